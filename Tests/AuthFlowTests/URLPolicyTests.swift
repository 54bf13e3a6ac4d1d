import AuthFlowTestSupport
import Foundation
import Testing

@testable import AuthFlow

/// The https rule for every endpoint: the exact error, and advice that names what to change.
@Suite struct URLPolicyTests {
    @Test func plainHTTPOnAnotherHostIsRefusedWithTheFix() throws {
        let error = #expect(throws: AuthFlowError.self) {
            try URLPolicy.requireSecure(URL(string: "http://id.example.com/token")!, "token_endpoint")
        }
        #expect(error?.category == .configuration)
        #expect(error?.message == "token_endpoint must use https (http is allowed only for loopback hosts)")
        #expect(error?.recovery?.contains("https form of token_endpoint") == true)
    }

    @Test func relativeURLIsRefusedWithTheFix() throws {
        let error = #expect(throws: AuthFlowError.self) {
            try URLPolicy.requireSecure(URL(string: "/token")!, "token_endpoint")
        }
        #expect(error?.message == "token_endpoint is not an absolute URL")
        #expect(error?.recovery?.contains("full URL with scheme and host") == true)
    }

    @Test(arguments: ["https://id.example.com/token", "http://127.0.0.1:8080/token", "http://[::1]/token", "http://localhost/token"])
    func secureOrLoopbackIsAccepted(_ text: String) throws {
        try URLPolicy.requireSecure(URL(string: text)!, "token_endpoint")
    }

    @Test func clientRefusesInsecureMetadataWithTheAdvice() throws {
        let metadata = ProviderMetadata(
            authorizationEndpoint: URL(string: "https://id.example.com/authorize")!,
            tokenEndpoint: URL(string: "http://id.example.com/token")!)
        let error = #expect(throws: AuthFlowError.self) { try OAuthClient(metadata: metadata, clientID: "app") }
        #expect(error?.category == .configuration)
        #expect(error?.recovery != nil)
    }
}
