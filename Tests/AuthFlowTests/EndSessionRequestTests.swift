import AuthFlowTestSupport
import Foundation
import Testing

@testable import AuthFlow

/// RP-initiated logout as a request value: GET or POST, and the check of the
/// provider's redirect back (RP-Initiated Logout 1.0 §2–3).
@Suite struct EndSessionRequestTests {
    static let redirect = URL(string: "http://127.0.0.1:4242/callback")!

    static func client(endSession: String? = "https://idp.example/logout?p=policy") throws -> OAuthClient {
        let metadata = ProviderMetadata(
            issuer: "https://idp.example", authorizationEndpoint: URL(string: "https://idp.example/authorize")!,
            tokenEndpoint: URL(string: "https://idp.example/token")!,
            endSessionEndpoint: endSession.flatMap(URL.init(string:)))
        return try OAuthClient(metadata: metadata, clientID: "app")
    }

    @Test func noEndpointIsNoRequest() throws {
        if try Self.client(endSession: nil).endSessionRequest(idTokenHint: "id.tok.en") != nil {
            Issue.record("a request without an end_session_endpoint")
        }
    }

    @Test func parametersInOrderWithAFreshStateOnlyWithARedirect() throws {
        let client = try Self.client()
        let request = try #require(client.endSessionRequest(idTokenHint: "id.tok.en", postLogoutRedirectURI: Self.redirect))
        #expect(request.parameters.map(\.name) == ["client_id", "id_token_hint", "post_logout_redirect_uri", "state"])
        let state = try #require(request.state)
        #expect(state.count >= 43)
        let other = try #require(client.endSessionRequest(idTokenHint: "id.tok.en", postLogoutRedirectURI: Self.redirect))
        #expect(other.state != state)
        let bare = try #require(client.endSessionRequest(idTokenHint: nil))
        #expect(bare.parameters.map(\.name) == ["client_id"])
        #expect(bare.state == nil && !bare.matchesState(""))
    }

    @Test func getKeepsTheEndpointQueryAndPostHasTheSameParameters() throws {
        let request = try #require(try Self.client().endSessionRequest(idTokenHint: "id.tok.en", postLogoutRedirectURI: Self.redirect))
        let url = try request.url()
        #expect(
            url.absoluteString.hasPrefix(
                "https://idp.example/logout?p=policy&client_id=app&id_token_hint=id.tok.en&post_logout_redirect_uri="))
        #expect(request.endpoint.absoluteString == "https://idp.example/logout?p=policy")
        let body = try #require(FormEncoding.decode(request.formBody))
        #expect(body.map(\.0) == ["client_id", "id_token_hint", "post_logout_redirect_uri", "state"])
        #expect(body[2].1 == Self.redirect.absoluteString)
    }

    @Test func redirectBackIsCheckedForEndpointAndState() throws {
        let request = try #require(try Self.client().endSessionRequest(idTokenHint: "id.tok.en", postLogoutRedirectURI: Self.redirect))
        let state = try #require(request.state)
        let good = URL(string: "http://127.0.0.1:4242/callback?" + FormEncoding.encode([("state", state)]))!
        try request.validateRedirect(good)

        func fails(_ url: String, _ category: AuthFlowError.Category) {
            #expect(throws: AuthFlowError.self) { try request.validateRedirect(URL(string: url)!) }
            do { try request.validateRedirect(URL(string: url)!) } catch let error as AuthFlowError {
                #expect(error.category == category, "\(url)")
            } catch {}
        }
        fails("http://127.0.0.1:4242/callback", .stateMismatch)
        fails("http://127.0.0.1:4242/callback?state=wrong", .stateMismatch)
        fails("http://127.0.0.1:4242/callback?" + FormEncoding.encode([("state", state), ("state", state)]), .stateMismatch)
        fails("http://127.0.0.1:4243/callback?" + FormEncoding.encode([("state", state)]), .invalidResponse)
        fails("http://127.0.0.1:4242/other?" + FormEncoding.encode([("state", state)]), .invalidResponse)
        let withoutRedirect = try #require(try Self.client().endSessionRequest(idTokenHint: "id.tok.en"))
        #expect(throws: AuthFlowError.self) { try withoutRedirect.validateRedirect(good) }
    }

    @Test func descriptionHoldsNoSecret() throws {
        let request = try #require(
            try Self.client().endSessionRequest(idTokenHint: "secret.id.token", postLogoutRedirectURI: Self.redirect))
        let text = "\(request)"
        #expect(!text.contains("secret.id.token"))
        #expect(!text.contains(try #require(request.state)))
        #expect(text.contains("id_token_hint"))
    }
}
