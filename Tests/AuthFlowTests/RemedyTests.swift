import AuthFlowTestSupport
import Foundation
import Testing

@testable import AuthFlow

/// Errors carry a typed remedy, and no engine message names a command-line
/// flag: each remedy comes from the engine failure it belongs to, with a
/// message and recovery in API terms.
@Suite struct RemedyTests {
    /// The texts of `error` a user or a log sees.
    static func texts(_ error: AuthFlowError) -> [String] {
        [error.message, error.recovery ?? "", error.recoverySuggestion ?? "", error.description, error.debugDescription]
    }

    /// `error` carries `remedy`, and none of its texts names a flag.
    static func expectRemedy(
        _ error: AuthFlowError?, _ remedy: AuthFlowError.Remedy, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        guard let error else {
            Issue.record("no error", sourceLocation: sourceLocation)
            return
        }
        #expect(error.remedy == remedy, "\(error)", sourceLocation: sourceLocation)
        #expect(error.recovery != nil, "a remedy comes with its recovery in API terms", sourceLocation: sourceLocation)
        for text in texts(error) {
            #expect(!text.contains("--"), "names a flag: \(text)", sourceLocation: sourceLocation)
        }
    }

    static let redirect = url("http://127.0.0.1:8765/callback")

    // MARK: Each remedy, from the failure it belongs to

    @Test func usePushedAuthorizationRequests() throws {
        var offering = metadata()
        offering.pushedAuthorizationRequestEndpoint = url("https://idp.example/par")
        let client = try OAuthClient(metadata: offering, clientID: "app", transport: ScriptedTransport.unused())
        let request = try client.authorizationRequest(redirectURI: Self.redirect, scopes: ["openid"])
        var callback = URLComponents(url: Self.redirect, resolvingAgainstBaseURL: false)!
        callback.queryItems = [.init(name: "error", value: "invalid_request"), .init(name: "state", value: request.state)]
        let error = expectError(.oauthError) { try request.validateCallback(callback.url!) }
        Self.expectRemedy(error, .usePushedAuthorizationRequests)
    }

    @Test func signInWithoutPushedAuthorizationRequests() async throws {
        let client = try OAuthClient(metadata: metadata(), clientID: "app", transport: ScriptedTransport.unused())
        let error = await expectError(.configuration) {
            try await client.pushedAuthorizationRequest(redirectURI: Self.redirect, scopes: ["openid"])
        }
        Self.expectRemedy(error, .signInWithoutPushedAuthorizationRequests)
    }

    @Test func signInAgain() async throws {
        let client = try OAuthClient(metadata: metadata(), clientID: "app", transport: ScriptedTransport.unused())
        let session = AuthSession(client: client, store: MemoryCredentialStore())
        let error = await expectError(.reauthenticationRequired) { try await session.freshAccessToken() }
        Self.expectRemedy(error, .signInAgain)
    }

    @Test func requestOfflineAccess() {
        Self.expectRemedy(AuthFlowError.noRefreshToken, .requestOfflineAccess)
    }

    @Test func passScopesSeparately() throws {
        let client = try OAuthClient(metadata: metadata(), clientID: "app", transport: ScriptedTransport.unused())
        let error = expectError(.configuration) {
            try client.authorizationRequest(
                redirectURI: Self.redirect, scopes: [], options: .init(additionalParameters: [.init("scope", "x")]))
        }
        Self.expectRemedy(error, .passScopesSeparately)
        let other = expectError(.configuration) {
            try client.authorizationRequest(
                redirectURI: Self.redirect, scopes: [], options: .init(additionalParameters: [.init("state", "x")]))
        }
        #expect(other?.remedy == nil)
    }

    @Test func allowMoreTime() async {
        let error = await expectError(.timeout) {
            try await withDeadline(seconds: 0.01) { try await Task.sleep(for: .seconds(10)) }
        }
        Self.expectRemedy(error, .allowMoreTime)
    }

    @Test(arguments: ["/relative", "https://idp.example/?tenant=x", "https://idp.example/#x"])
    func giveTheIssuerURL(_ issuer: String) {
        let error = expectError(.configuration) { try ProviderMetadata.discoveryURLs(for: Issuer(issuer)) }
        Self.expectRemedy(error, .giveTheIssuerURL)
    }

    @Test func checkTheIssuer() async {
        let nothing = ScriptedTransport { _ in HTTPTransportResponse(status: 404) }
        let error = await expectError(.invalidResponse) {
            try await ProviderMetadata.discover(issuer: Issuer("https://github.example"), transport: nothing)
        }
        Self.expectRemedy(error, .checkTheIssuer)
        let nameless = IssuerAdvice.mismatch(asked: "https://idp.example", found: "")
        #expect(nameless.remedy == .checkTheIssuer && nameless.why == "the provider's metadata names no issuer")
    }

    @Test func useIssuer() async {
        let document =
            #"{"issuer":"https://idp.example/","authorization_endpoint":"https://idp.example/a","#
            + #""token_endpoint":"https://idp.example/t"}"#
        let error = await expectError(.issuerMismatch) {
            try await ProviderMetadata.discover(
                issuer: Issuer("https://idp.example"), transport: ScriptedTransport { _ in .json(document) })
        }
        Self.expectRemedy(error, .useIssuer.with("https://idp.example/"))
        #expect(error?.remedy?.value == "https://idp.example/")
    }

    @Test func chooseTenants() {
        let error = expectError(.configuration) {
            try OAuthClient(
                metadata: metadata(issuer: Issuer(stringLiteral: MultiTenantTests.template)), clientID: "app",
                transport: ScriptedTransport.unused())
        }
        Self.expectRemedy(error, .chooseTenants)
    }

    @Test func fixTheTenantList() {
        let error = expectError(.configuration) { try IssuerTenants(parsing: "a/b") }
        Self.expectRemedy(error, .fixTheTenantList)
    }

    @Test func allowTenant() throws {
        let error = expectError(.idTokenInvalid, reason: .issuer) {
            try MultiTenantTests.rules(.only([MultiTenantTests.tenantB])).check(
                MultiTenantTests.claims(iss: "https://login.example/\(MultiTenantTests.tenantA)/v2.0", tid: MultiTenantTests.tenantA),
                now: TestIDP.now)
        }
        Self.expectRemedy(error, .allowTenant.with(MultiTenantTests.tenantA))
    }

    @Test func giveTheClientID() {
        let error = expectError(.configuration) {
            try OAuthClient(metadata: metadata(), clientID: "", transport: ScriptedTransport.unused())
        }
        Self.expectRemedy(error, .giveTheClientID)
    }

    @Test func giveTheUserInfoEndpoint() async throws {
        let client = try OAuthClient(metadata: metadata(), clientID: "app", transport: ScriptedTransport.unused())
        let error = await expectError(.configuration) { try await client.userInfo(accessToken: "AT", expectedSubject: nil) }
        Self.expectRemedy(error, .giveTheUserInfoEndpoint)
    }

    @Test func giveASupportedPrivateKey() {
        let error = expectError(.configuration) { try ClientAssertionKey(pem: "not a key") }
        Self.expectRemedy(error, .giveASupportedPrivateKey)
    }

    @Test func giveAnAppIDAndACallbackPath() {
        Self.expectRemedy(expectError(.configuration) { try AppleAppSiteAssociation(appIDs: [], paths: ["/cb"]) }, .giveAnAppID)
        Self.expectRemedy(
            expectError(.configuration) { try AppleAppSiteAssociation(appIDs: ["ABCDE12345.com.example.app"], paths: []) },
            .giveACallbackPath)
    }

    // MARK: The value type

    @Test func aRemedyWithoutValueMatchesItWhateverItsValue() {
        let remedy = AuthFlowError.Remedy.useIssuer.with("https://idp.example/")
        #expect(remedy.name == "use_issuer" && remedy.value == "https://idp.example/")
        #expect(remedy != .useIssuer)
        #expect(remedy.description == "use_issuer(https://idp.example/)")
        switch remedy {
        case .allowTenant: Issue.record("matched another remedy")
        case .useIssuer.with("https://other.example/"): Issue.record("matched another value")
        case .useIssuer: break
        default: Issue.record("matched nothing")
        }
        // Another module (or an app) adds its own, as the loopback listener does.
        let own = AuthFlowError.Remedy(name: "unlock_the_device")
        #expect(own != .signInAgain && own.description == "unlock_the_device")
        #expect(AuthFlowError(.storage, "locked", remedy: own) != AuthFlowError(.storage, "locked"))
    }

    // MARK: No message names a flag

    /// Every line outside comments in the engine's and the listener's
    /// sources (string literals, multi-line ones included): none may name a
    /// command-line flag (`--name`).
    @Test func noEngineOrListenerMessageNamesAFlag() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let flag = try Regex("--[a-z]")
        var scanned = 0
        for module in ["Sources/AuthFlow", "Sources/AuthFlowLoopback"] {
            let folder = root.appendingPathComponent(module)
            let files = try #require(FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil))
            for case let file as URL in files where file.pathExtension == "swift" {
                let lines = try String(contentsOf: file, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
                for (number, line) in lines.enumerated() {
                    let code = line.trimmingCharacters(in: .whitespaces)
                    guard !code.hasPrefix("//") else { continue }
                    #expect(
                        code.firstMatch(of: flag) == nil,
                        "\(file.path.dropFirst(root.path.count + 1)):\(number + 1) names a flag: \(code)")
                }
                scanned += 1
            }
        }
        #expect(scanned > 100, "the sources were found")
    }
}
