import AuthFlowTestSupport
import Foundation
import Testing

@testable import AuthFlow

/// Client authentication at the token endpoint, checked on the wire.
@Suite struct ClientAuthenticationTests {
    static let okBody = #"{"access_token":"AT","token_type":"Bearer"}"#

    private func exchange(clientID: String, _ authentication: ClientAuthentication) async throws -> LocalHTTPServer.Request {
        let server = try LocalHTTPServer { _ in .json(Self.okBody) }
        defer { server.stop() }
        let client = try TokenEndpointTests.client(server, clientID: clientID, authentication: authentication)
        _ = try await client.exchange(TokenEndpointTests.grant(clientID: clientID))
        return try #require(server.requests.first)
    }

    @Test func noneSendsClientIDInBodyAndNoAuthorization() async throws {
        let request = try await exchange(clientID: "a+b/c", .none)
        #expect(request.header("Authorization") == nil)
        let form = formDictionary(request.bodyText)
        #expect(form["client_id"] == "a+b/c")
        #expect(form["client_secret"] == nil)
    }

    @Test func basicEncodesIDAndSecretBeforeBase64() async throws {
        let request = try await exchange(clientID: "a+b/c", .clientSecretBasic(secret: "s3cr+t/with=chars% é"))
        let header = try #require(request.header("Authorization"))
        #expect(header.hasPrefix("Basic "))
        let decoded = try #require(Data(base64Encoded: String(header.dropFirst("Basic ".count))))
        #expect(String(decoding: decoded, as: UTF8.self) == "a%2Bb%2Fc:s3cr%2Bt%2Fwith%3Dchars%25%20%C3%A9")
        let form = formDictionary(request.bodyText)
        #expect(form["client_id"] == nil)
        #expect(form["client_secret"] == nil)
        #expect(!request.bodyText.contains("s3cr"))
    }

    @Test func postPutsIDAndSecretInBody() async throws {
        let request = try await exchange(clientID: "a+b/c", .clientSecretPost(secret: "s3cr+t/with=chars% é"))
        #expect(request.header("Authorization") == nil)
        let form = formDictionary(request.bodyText)
        #expect(form["client_id"] == "a+b/c")
        #expect(form["client_secret"] == "s3cr+t/with=chars% é")
    }

    @Test func methodNamesSecretsAndDescription() {
        #expect(ClientAuthentication.none.methodName == "none")
        #expect(ClientAuthentication.clientSecretBasic(secret: "S").methodName == "client_secret_basic")
        #expect(ClientAuthentication.clientSecretPost(secret: "S").methodName == "client_secret_post")
        #expect(ClientAuthentication.none.secret == nil)
        #expect(ClientAuthentication.clientSecretBasic(secret: "S1").secret == "S1")
        #expect(ClientAuthentication.clientSecretPost(secret: "S2").secret == "S2")
        let authentication = ClientAuthentication.clientSecretBasic(secret: "TOP-SECRET-VALUE")
        #expect(!"\(authentication)".contains("TOP-SECRET-VALUE"))
        #expect("\(authentication)" == "client_secret_basic")
    }
}
