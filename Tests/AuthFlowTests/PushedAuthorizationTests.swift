import AuthFlowTestSupport
import Foundation
import Testing

@testable import AuthFlow

/// The engine's side of RFC 9126 against answers a real provider would not give.
@Suite struct PushedAuthorizationTests {
    private func push(answer: LocalHTTPServer.Response) async throws -> (AuthFlowError?, [LocalHTTPServer.Request]) {
        let server = try LocalHTTPServer { _ in answer }
        defer { server.stop() }
        var metadata = ProviderMetadata(
            issuer: nil, authorizationEndpoint: url("https://idp.example/authorize?tenant=a"),
            tokenEndpoint: server.url("/token"))
        metadata.pushedAuthorizationRequestEndpoint = server.url("/par")
        let client = try OAuthClient(metadata: metadata, clientID: "app", authentication: .clientSecretBasic(secret: "s3cret"), timeout: 5)
        do {
            let request = try await client.pushedAuthorizationRequest(redirectURI: url("http://127.0.0.1:9/cb"), scopes: ["read"])
            #expect(request.url.absoluteString.hasPrefix("https://idp.example/authorize?tenant=a&client_id=app&request_uri=urn%3Ax"))
            return (nil, server.requests)
        } catch let error as AuthFlowError {
            return (error, server.requests)
        }
    }

    @Test func thePushCarriesEveryParameterAndAuthenticates() async throws {
        let (error, requests) = try await push(answer: .json(#"{"request_uri":"urn:x","expires_in":90}"#, status: 201))
        #expect(error == nil)
        let request = try #require(requests.first)
        #expect(request.header("Authorization")?.hasPrefix("Basic ") == true)
        let form = formDictionary(request.bodyText)
        #expect(form["response_type"] == "code" && form["scope"] == "read" && form["redirect_uri"] == "http://127.0.0.1:9/cb")
        #expect(form["state"] != nil && form["code_challenge"] != nil && form["code_challenge_method"] == "S256")
        #expect(form["tenant"] == nil) // the endpoint's own query stays in the browser URL
    }

    @Test func aRedirectIsNotFollowed() async throws {
        let (error, requests) = try await push(answer: .init(status: 307, headers: [("Location", "https://elsewhere.example/par")]))
        #expect(error?.category == .invalidResponse)
        #expect(error?.message == "pushed authorization request was answered with a redirect (HTTP 307), which is not followed")
        #expect(requests.count == 1)
    }

    @Test func aRefusalIsOAuthErrorWithTheServersAnswer() async throws {
        let (error, _) = try await push(
            answer: .json(#"{"error":"invalid_request","error_description":"scope read is not allowed"}"#, status: 400))
        #expect(error?.category == .oauthError)
        #expect(error?.oauth?.error == "invalid_request")
        #expect(error?.oauth?.errorDescription == "scope read is not allowed")
    }

    @Test func anAnswerWithoutRequestURIOrExpiryIsInvalidResponse() async throws {
        var (error, _) = try await push(answer: .json(#"{"expires_in":60}"#, status: 201))
        #expect(error?.message == "the pushed authorization response has no request_uri")
        (error, _) = try await push(answer: .json(#"{"request_uri":"urn:x","expires_in":0}"#, status: 201))
        #expect(error?.message == "the pushed authorization response has no valid expires_in")
    }
}
