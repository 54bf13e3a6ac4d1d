import AuthFlowTestSupport
import Foundation
import Testing

@testable import AuthFlow

/// A 401 with a `WWW-Authenticate` challenge must come back as a response,
/// promptly: URLSession on Linux otherwise stalls on the challenge.
@Suite("401 challenges")
struct ChallengeResponseTests {
    @Test(
        "a 401 invalid_client with a Basic challenge is oauth_error, not a stall",
        arguments: [
            #"Basic realm="token""#, #"Bearer error="invalid_client""#, #"Digest realm="x", nonce="1""#,
        ])
    func basicChallenge(challenge: String) async throws {
        let server = try LocalHTTPServer { _ in
            var response = LocalHTTPServer.Response.json(#"{"error":"invalid_client","error_description":"bad secret"}"#, status: 401)
            response.headers.append(("WWW-Authenticate", challenge))
            return response
        }
        defer { server.stop() }
        let client = try OAuthClient(
            metadata: ProviderMetadata(authorizationEndpoint: server.url("/authorize"), tokenEndpoint: server.url("/token")),
            clientID: "app", authentication: .clientSecretBasic(secret: "wrong"), timeout: 5)
        let grant = AuthorizationGrant(
            code: "c", codeVerifier: fixedVerifier, redirectURI: url("http://127.0.0.1/callback"), clientID: "app")
        let error = await expectError(.oauthError) { try await client.exchange(grant) }
        #expect(error?.oauth?.error == "invalid_client")
        // On Linux the body of a Basic-challenged 401 cannot be read (see URLSessionTransport).
        if !challenge.hasPrefix("Basic") { #expect(error?.oauth?.errorDescription == "bad secret") }
    }
}
