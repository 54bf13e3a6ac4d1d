import AuthFlow
import AuthFlowTestSupport
import Foundation
import Testing

extension InteropSuites {
    /// The engine end to end against Django OAuth Toolkit and Authlib on
    /// 127.0.0.1, each with PKCE required (S256 only), signed in by headless
    /// Chromium.
    @Suite("Authorization code flow against real servers")
    struct CodeFlowInteropTests {
        static let servers = ["dot", "authlib"]

        @Test("public client: PKCE, verified ID token, nothing secret logged", arguments: servers)
        func publicClient(server name: String) async throws {
            let flow = try InteropFlow(name)
            let client = try await flow.client()
            let (request, grant) = try await flow.authorize(client)
            let credentials = try await client.exchange(grant)

            #expect(credentials.issuer?.identifier == flow.server.issuer)
            let claims = try #require(credentials.idToken)
            #expect(!claims.subject.isEmpty)
            #expect(claims.audience.contains(flow.server.publicClientID))
            #expect(claims.nonce == request.nonce)
            #expect(credentials.scopes.contains("openid"))
            #expect(credentials.token.tokenType == "Bearer")

            let secrets = [
                grant.code, grant.codeVerifier, request.state, request.nonce ?? "", credentials.accessToken,
                credentials.token.refreshToken ?? "", credentials.token.idToken ?? "",
            ].filter { !$0.isEmpty }
            let log = flow.log.text
            #expect(log.contains("signed in"), "the verbose log is not empty")
            for secret in secrets {
                #expect(!log.contains(secret), "a secret reached the log")
            }
            #expect(!"\(credentials)".contains(credentials.accessToken))
        }

        /// Authlib's basic client has `+ / = %` in both id and secret, so this
        /// also proves the RFC 6749 §2.3.1 form-encoding before base64.
        @Test("confidential client with client_secret_basic", arguments: servers)
        func confidentialBasic(server name: String) async throws {
            let flow = try InteropFlow(name)
            let secret = flow.server.confidentialClientSecret
            let client = try await flow.client(.clientSecretBasic(secret: secret), clientID: flow.server.confidentialClientID)
            let (_, grant) = try await flow.authorize(client)
            let credentials = try await client.exchange(grant)
            #expect(credentials.idToken?.audience.contains(flow.server.confidentialClientID) == true)
            #expect(!flow.log.text.contains(secret))
            #expect(!flow.log.text.contains(credentials.accessToken))
        }

        @Test("confidential client with client_secret_post")
        func confidentialPost() async throws {
            let flow = try InteropFlow("authlib")
            let clientID = try #require(flow.server.postClientID)
            let secret = try #require(flow.server.postClientSecret)
            let client = try await flow.client(.clientSecretPost(secret: secret), clientID: clientID)
            let (_, grant) = try await flow.authorize(client)
            let credentials = try await client.exchange(grant)
            #expect(credentials.idToken?.subject.isEmpty == false)
            #expect(!flow.log.text.contains(secret))
        }

        @Test("a wrong code_verifier is refused with invalid_grant", arguments: servers)
        func wrongVerifier(server name: String) async throws {
            let flow = try InteropFlow(name)
            let client = try await flow.client()
            var (_, grant) = try await flow.authorize(client)
            grant.codeVerifier = AuthorizationRequest.PKCE().verifier
            let error = await #expect(throws: AuthFlowError.self) { try await client.exchange(grant) }
            #expect(error?.category == .oauthError)
            #expect(error?.oauth?.error == "invalid_grant")
            #expect(error.map { "\($0)".contains(grant.code) } == false)
        }

        @Test("a code used twice is refused with invalid_grant", arguments: servers)
        func reusedCode(server name: String) async throws {
            let flow = try InteropFlow(name)
            let client = try await flow.client()
            let (_, grant) = try await flow.authorize(client)
            _ = try await client.exchange(grant)
            let error = await #expect(throws: AuthFlowError.self) { try await client.exchange(grant) }
            #expect(error?.category == .oauthError)
            #expect(error?.oauth?.error == "invalid_grant")
        }

        @Test("a wrong client secret is refused with invalid_client")
        func wrongSecret() async throws {
            let flow = try InteropFlow("authlib")
            let secret = flow.server.confidentialClientSecret
            let client = try await flow.client(.clientSecretBasic(secret: secret + "x"), clientID: flow.server.confidentialClientID)
            let (_, grant) = try await flow.authorize(client)
            let error = await #expect(throws: AuthFlowError.self) { try await client.exchange(grant) }
            #expect(error?.category == .oauthError)
            #expect(error?.oauth?.error == "invalid_client")
        }
    }
}
