import AuthFlowTestSupport
import Foundation
import Testing

@testable import AuthFlow

/// The engine side of the Apple layer: redirect-URI rules, callback matching,
/// Info.plist configuration, provider-specific callbacks, consent context.
@Suite("Native app rules")
struct NativeAppTests {
    @Test(
        "RFC 8252 §7.1: a private-use scheme must be reverse-DNS",
        arguments: [
            ("com.example.app:/cb", true), ("com.example.app://cb", true), ("myapp://cb", false), ("myapp:/cb", false),
            ("com..app:/cb", false), ("https://app.example.com/cb", true), ("http://127.0.0.1/callback", true),
            ("http://[::1]:8080/callback", true), ("http://example.com/callback", false), ("com.example.app:/cb#frag", false),
        ])
    func redirectPolicy(uri: String, allowed: Bool) {
        if allowed {
            #expect(throws: Never.self) { try RedirectURIPolicy.validate(url(uri)) }
        } else {
            expectError(.configuration) { try RedirectURIPolicy.validate(url(uri)) }
        }
    }

    @Test("authorization requests refuse a redirect URI that breaks the rules")
    func requestRefusesBadRedirect() throws {
        let client = try OAuthClient(metadata: metadata(), clientID: "app", transport: ScriptedTransport.unused())
        expectError(.configuration) { try client.authorizationRequest(redirectURI: url("myapp://cb"), scopes: ["openid"]) }
    }

    @Test("the web-authentication callback is derived from the redirect URI")
    func callbackMatch() throws {
        #expect(try CallbackMatch(redirectURI: url("com.example.App:/oauth2redirect")) == .customScheme("com.example.app"))
        #expect(
            try CallbackMatch(redirectURI: url("https://app.example.com/auth/callback"))
                == .https(host: "app.example.com", path: "/auth/callback"))
        expectError(.configuration) { try CallbackMatch(redirectURI: url("http://127.0.0.1/callback")) }
        expectError(.configuration) { try CallbackMatch(redirectURI: url("myapp://cb")) }
    }

    @Test("Info.plist-style configuration with an issuer, or with explicit endpoints")
    func configuration() throws {
        let discovered = try ClientConfiguration(dictionary: [
            "Issuer": "https://id.example.com", "ClientID": "com.example.app",
            "RedirectURI": "com.example.app:/oauth2redirect", "Scopes": ["openid", "profile"],
        ])
        #expect(discovered.provider == .issuer("https://id.example.com"))
        #expect(discovered.scopes == ["openid", "profile"])
        let explicit = try ClientConfiguration(dictionary: [
            "AuthorizeEndpoint": "https://id.example.com/authorize", "TokenEndpoint": "https://id.example.com/token",
            "ClientID": "app", "RedirectURI": "com.example.app:/cb", "Scopes": "openid email",
        ])
        #expect(
            explicit.provider
                == .endpoints(authorization: url("https://id.example.com/authorize"), token: url("https://id.example.com/token")))
        #expect(explicit.scopes == ["openid", "email"])
    }

    @Test(
        "a missing or bad configuration key is named in the error",
        arguments: [
            ([String: String](), "Issuer"),
            (["Issuer": "https://id.example.com", "RedirectURI": "com.example.app:/cb"], "ClientID"),
            (["Issuer": "https://id.example.com", "ClientID": "app"], "RedirectURI"),
            (["AuthorizeEndpoint": "https://id.example.com/a", "ClientID": "app", "RedirectURI": "com.example.app:/cb"], "TokenEndpoint"),
            (["TokenEndpoint": "https://id.example.com/t", "ClientID": "app", "RedirectURI": "com.example.app:/cb"], "AuthorizeEndpoint"),
            (["Issuer": "not a url", "ClientID": "app", "RedirectURI": "com.example.app:/cb"], "Issuer"),
            (["Issuer": "https://id.example.com", "ClientID": "app", "RedirectURI": "myapp://cb"], "RedirectURI"),
        ])
    func badConfiguration(dictionary: [String: String], key: String) {
        let error = expectError(.configuration) { try ClientConfiguration(dictionary: dictionary) }
        #expect(error?.message.contains(key) == true, "\(error?.message ?? "-") names \(key)")
    }

    @Test("a wrongly typed configuration value is named")
    func wrongType() {
        let error = expectError(.configuration) {
            try ClientConfiguration(dictionary: ["Issuer": "https://id.example.com", "ClientID": 42, "RedirectURI": "com.example.app:/cb"])
        }
        #expect(error?.message.contains("ClientID") == true)
        let scopes = expectError(.configuration) {
            try ClientConfiguration(dictionary: [
                "Issuer": "https://id.example.com", "ClientID": "a", "RedirectURI": "com.example.app:/cb", "Scopes": 1,
            ])
        }
        #expect(scopes?.message.contains("Scopes") == true)
    }

    /// Zephr-style outcomes, interpreted after state is checked.
    enum ZephrOutcome: Sendable, Equatable {
        case success(sessionID: String)
        case partial(stateKey: String)
        case failure(message: String)
    }

    static func interpretZephr(_ parameters: CallbackParameters) -> ZephrOutcome? {
        switch parameters["status"] {
        case "success": parameters["session_id"].map { .success(sessionID: $0) }
        case "partial": parameters["state_key"].map { .partial(stateKey: $0) }
        case "failure": .failure(message: parameters["message"] ?? "")
        default: nil
        }
    }

    @Test("provider-specific callback outcomes, with state still checked first")
    func customOutcomes() throws {
        let client = try OAuthClient(metadata: metadata(issuer: nil), clientID: "app", transport: ScriptedTransport.unused())
        let request = try client.authorizationRequest(redirectURI: url("com.example.app:/cb"), scopes: ["openid"])
        let state = FormEncoding.escape(request.state)
        func outcome(_ query: String) throws -> CallbackOutcome<ZephrOutcome> {
            try request.validateCallback(url("com.example.app:/cb?\(query)"), interpret: Self.interpretZephr)
        }
        guard case .custom(.success("S1")) = try outcome("status=success&session_id=S1&state=\(state)") else {
            Issue.record("success")
            return
        }
        guard case .custom(.partial("K1")) = try outcome("status=partial&state_key=K1&state=\(state)") else {
            Issue.record("partial")
            return
        }
        guard case .custom(.failure("no")) = try outcome("status=failure&message=no&state=\(state)") else {
            Issue.record("failure")
            return
        }
        guard case .code(let grant) = try outcome("code=C1&state=\(state)") else {
            Issue.record("code")
            return
        }
        #expect(grant.code == "C1")
        expectError(.stateMismatch) { try outcome("status=success&session_id=S1&state=forged") }
        expectError(.stateMismatch) { try outcome("status=success&session_id=S1") }
        expectError(.oauthError) { try outcome("error=access_denied&state=\(state)") }
    }

    @Test("ZenKey context: up to 280 characters pass through, longer is refused before sending")
    func consentContext() throws {
        var options = AuthorizationOptions(prompt: ["consent"], acrValues: ["a3"])
        try options.setContext(String(repeating: "x", count: 280))
        let client = try OAuthClient(metadata: metadata(), clientID: "app", transport: ScriptedTransport.unused())
        let request = try client.authorizationRequest(redirectURI: url("com.example.app:/cb"), scopes: ["openid"], options: options)
        let query = formDictionary(URLComponents(url: request.url, resolvingAgainstBaseURL: false)?.percentEncodedQuery ?? "")
        #expect(query["context"]?.count == 280)
        #expect(query["prompt"] == "consent")
        #expect(query["acr_values"] == "a3")
        expectError(.configuration) { try options.setContext(String(repeating: "y", count: 281)) }
        #expect(
            formDictionary(
                URLComponents(
                    url: try client.authorizationRequest(redirectURI: url("com.example.app:/cb"), scopes: ["openid"], options: options).url,
                    resolvingAgainstBaseURL: false)?.percentEncodedQuery ?? "")["context"]?.hasPrefix("x") == true)
    }

    @Test("ZenKey context given as a plain extra parameter meets the same 280-character rule")
    func consentContextAsAParameter() throws {
        let client = try OAuthClient(metadata: metadata(), clientID: "app", transport: ScriptedTransport.unused())
        let long = AuthorizationOptions(additionalParameters: [.init("context", String(repeating: "y", count: 281))])
        let error = expectError(.configuration) {
            try client.authorizationRequest(redirectURI: url("com.example.app:/cb"), scopes: ["openid"], options: long)
        }
        #expect(error?.message == "context has 281 characters; at most 280 are allowed")
        let fits = AuthorizationOptions(additionalParameters: [.init("context", String(repeating: "é", count: 280))])
        let request = try client.authorizationRequest(redirectURI: url("com.example.app:/cb"), scopes: ["openid"], options: fits)
        #expect(
            formDictionary(URLComponents(url: request.url, resolvingAgainstBaseURL: false)?.percentEncodedQuery ?? "")["context"]?.count
                == 280)
    }

    @Test("granted scopes decide features: fewer granted than requested")
    func scopeDrivenFeatures() throws {
        let token = try TokenResponse(
            json: json(#"{"access_token":"a","token_type":"Bearer","scope":"openid profile"}"#),
            requestedScopes: ["openid", "profile", "payments"])
        let credentials = OAuthCredentials(issuer: nil, clientID: "app", token: token, idToken: nil)
        #expect(credentials.hasScope("profile"))
        #expect(!credentials.hasScope("payments"))
    }

    @Test("credential keys are unambiguous item names")
    func credentialKey() {
        let a = CredentialKey(issuer: "https://id.example.com", clientID: "a b", profile: "x")
        let b = CredentialKey(issuer: "https://id.example.com a", clientID: "b", profile: "x")
        #expect(a.account != b.account)
        #expect(a.account == "https%3A%2F%2Fid.example.com a%20b x")
    }

    @Test("the stored form is versioned and strict")
    func credentialCoding() throws {
        let token = try TokenResponse(json: json(#"{"access_token":"a","token_type":"Bearer"}"#), requestedScopes: [])
        let credentials = OAuthCredentials(issuer: "https://id.example.com", clientID: "app", token: token, idToken: nil)
        let data = try CredentialCoding.encode(
            SessionRecord(credentials: credentials, metadata: metadata(), clientAuthenticationMethod: .none))
        #expect(try CredentialCoding.decode(data, source: "test").credentials.accessToken == "a")
        expectError(.configuration) { try CredentialCoding.decode(Data(#"{"version":9}"#.utf8), source: "test") }
    }
}
