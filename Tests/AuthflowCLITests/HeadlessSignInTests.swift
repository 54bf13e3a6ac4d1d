#if CLI
import AuthFlow
import AuthFlowTestSupport
import Foundation
import Testing
@testable import authflow

@Suite("Headless sign-in")
struct HeadlessSignInTests {
    @Test("no browser opens over SSH or, on Linux, without a display; $BROWSER always opens one")
    func reason() {
        func reason(_ values: [String: String]) -> String? { HeadlessSignIn.reason { values[$0] } }
        #expect(reason(["SSH_CONNECTION": "192.0.2.1 1 192.0.2.2 22", "DISPLAY": ":0"]) == "this is an SSH session")
        #expect(reason(["SSH_TTY": "/dev/pts/1", "WAYLAND_DISPLAY": "wayland-0"]) == "this is an SSH session")
        #expect(reason(["SSH_CONNECTION": "x", "BROWSER": "w3m"]) == nil)
        #expect(reason(["DISPLAY": ":0"]) == nil)
        #expect(reason(["WAYLAND_DISPLAY": "wayland-0"]) == nil)
        #if os(Linux)
        #expect(reason([:]) == "there is no display")
        #expect(reason(["DISPLAY": " "]) == "there is no display")
        #endif
    }

    @Test("a pasted line is taken only when it is a URL carrying this sign-in's state; the engine then validates it")
    func pasted() throws {
        let metadata = ProviderMetadata(
            issuer: "https://id.example", authorizationEndpoint: URL(string: "https://id.example/authorize")!,
            tokenEndpoint: URL(string: "https://id.example/token")!)
        let client = try OAuthClient(metadata: metadata, clientID: "app")
        let request = try client.authorizationRequest(redirectURI: URL(string: "http://127.0.0.1:4321/callback")!, scopes: ["openid"])
        let state = try #require(
            URLComponents(url: request.url, resolvingAgainstBaseURL: false)?.queryItems?.first { $0.name == "state" }?.value)
        let good = "http://127.0.0.1:4321/callback?code=c&state=\(state)&iss=https%3A%2F%2Fid.example"
        #expect(HeadlessSignIn.pasted("  \(good)\n", for: request)?.absoluteString == good)
        #expect(try request.validateCallback(try #require(HeadlessSignIn.pasted(good, for: request))).code == "c")
        for refused in [
            "", "code=c&state=\(state)", "http://127.0.0.1:4321/callback?code=c&state=other",
            "http://127.0.0.1:4321/callback?code=c", "not a url", good + String(repeating: "x", count: 16_384),
        ] {
            #expect(HeadlessSignIn.pasted(refused, for: request) == nil, "\(refused.prefix(80))")
        }
        // Taken (the state matches), then refused by the one validation rule, as the listener's callback would be.
        let cases: [(String, AuthFlowError.Category, String)] = [
            (
                "http://127.0.0.1:4321/callback?code=c&state=\(state)&iss=https%3A%2F%2Fevil.example", .issuerMismatch,
                "callback comes from issuer https://evil.example, expected https://id.example"
            ),
            (
                "http://127.0.0.1:9999/callback?code=c&state=\(state)", .invalidResponse,
                "callback is not for the redirect URI that was sent"
            ),
            (
                "http://127.0.0.1:4321/callback?code=c&state=\(state)&state=\(state)", .invalidResponse,
                "callback repeats the state parameter"
            ),
        ]
        for (line, category, message) in cases {
            let url = try #require(HeadlessSignIn.pasted(line, for: request))
            let error = try #require(throws: AuthFlowError.self) { try request.validateCallback(url) }
            #expect(error.category == category && error.message == message)
        }
    }
}
#endif
