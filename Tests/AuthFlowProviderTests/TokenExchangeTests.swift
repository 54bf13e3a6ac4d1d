#if EmbeddedProvider // the EmbeddedProvider package trait
import AuthFlow
import AuthFlowProvider
import AuthFlowTestSupport
import Foundation
import HTTPTypes
import Logging
import Testing

/// Token exchange (RFC 8693) from the engine to the embedded provider, and
/// the engine's checks of a token exchange response.
@Suite("Token exchange")
struct TokenExchangeTests {
    static let billing = "https://api.example.com/billing"

    /// The demo provider with a policy: the confidential demo client may
    /// exchange for the `billing` audience, the billing resource, and act as an actor.
    static func configuration() -> ProviderConfiguration {
        var configuration = Fixture.configuration()
        configuration.tokenExchangePolicy = TokenExchangePolicy([
            .init(clientID: Fixture.backend.id, audiences: ["billing"], resources: [billing], allowsDelegation: true)
        ])
        return configuration
    }

    /// The confidential demo client, signed in as `demo`.
    static func signedIn(_ provider: EmbeddedProvider, logger: Logger? = nil) async throws -> (OAuthClient, OAuthCredentials) {
        let client =
            if let logger {
                try await OAuthClient(
                    issuer: provider.issuer, clientID: Fixture.backend.id,
                    authentication: .clientSecretBasic(secret: Fixture.backend.secret!), logger: logger)
            } else {
                try await OAuthClient(
                    issuer: provider.issuer, clientID: Fixture.backend.id,
                    authentication: .clientSecretBasic(secret: Fixture.backend.secret!))
            }
        let credentials = try await client.exchange(authorize(client, scopes: ["openid", "profile", "email"]).1)
        return (client, credentials)
    }

    @Test("an access token is exchanged for one for a second resource: aud is that resource, sub the user, and it is live")
    func exchangeForResource() async throws {
        try await Fixture.with(Self.configuration()) { provider in
            let (client, credentials) = try await Self.signedIn(provider)
            let issued = try await client.exchangeToken(
                TokenExchangeRequest(
                    subject: .init(credentials.accessToken, type: .accessToken), requestedTokenType: .accessToken,
                    resources: [ResourceIdentifier(URL(string: Self.billing)!)], scopes: ["profile"]))
            #expect(issued.issuedTokenType == .accessToken)
            #expect(issued.token.tokenType == "Bearer")
            #expect(issued.isAccessToken)
            #expect(issued.token.scopes == ["profile"])
            #expect(issued.token.refreshToken == nil)
            #expect(issued.issuedToken != credentials.accessToken)
            let claims = try CompactJWS(issued.issuedToken).claims
            #expect(claims["aud"] == .string(Self.billing))
            #expect(claims["sub"] == .string("demo"))
            #expect(claims["client_id"] == .string(Fixture.backend.id))
            #expect(claims["act"] == nil)
            let introspection = try await Wire(provider: provider).introspect(issued.issuedToken)
            #expect(introspection["active"] == .bool(true))
            #expect(introspection["aud"] == .string(Self.billing))
            // The subject access token is still for its own audience.
            #expect(try CompactJWS(credentials.accessToken).claims["aud"] != .string(Self.billing))
        }
    }

    @Test("an ID token is exchanged for an access token for a second audience; an actor token puts act in it")
    func exchangeIDTokenWithActor() async throws {
        try await Fixture.with(Self.configuration()) { provider in
            let (client, credentials) = try await Self.signedIn(provider)
            let actor = try await client.clientCredentials()
            let issued = try await client.exchangeToken(
                TokenExchangeRequest(
                    subject: .init(try #require(credentials.token.idToken), type: .idToken),
                    actor: .init(actor.accessToken, type: .accessToken), audiences: ["billing"]))
            #expect(issued.issuedTokenType == .accessToken)
            let claims = try CompactJWS(issued.issuedToken).claims
            #expect(claims["aud"] == .string("billing"))
            #expect(claims["sub"] == .string("demo"))
            #expect(claims["act"] == .object(["sub": .string(Fixture.backend.id)]))
        }
    }

    @Test("a token exchanged again with a second actor nests the earlier act (RFC 8693 §4.1); without an actor the chain carries over")
    func nestedActors() async throws {
        try await Fixture.with(Self.configuration()) { provider in
            let (client, credentials) = try await Self.signedIn(provider)
            let actor = try await client.clientCredentials()
            let first = try await client.exchangeToken(
                TokenExchangeRequest(
                    subject: .init(try #require(credentials.token.idToken), type: .idToken),
                    actor: .init(actor.accessToken, type: .accessToken), audiences: ["billing"]))
            let second = try await client.exchangeToken(
                TokenExchangeRequest(
                    subject: .init(first.issuedToken, type: .accessToken), actor: .init(actor.accessToken, type: .accessToken),
                    resources: [ResourceIdentifier(URL(string: Self.billing)!)]))
            let actorSub = JSONMemberValue.string(Fixture.backend.id)
            #expect(try CompactJWS(second.issuedToken).claims["act"] == .object(["sub": actorSub, "act": .object(["sub": actorSub])]))
            let carried = try await client.exchangeToken(
                TokenExchangeRequest(subject: .init(first.issuedToken, type: .accessToken), audiences: ["billing"]))
            #expect(try CompactJWS(carried.issuedToken).claims["act"] == .object(["sub": actorSub]))
        }
    }

    @Test("opaque access tokens keep act: introspection shows it, and a second exchange nests it")
    func nestedActorsOfOpaqueTokens() async throws {
        var configuration = Self.configuration()
        configuration.issuesOpaqueAccessTokens = true
        try await Fixture.with(configuration) { provider in
            let (client, credentials) = try await Self.signedIn(provider)
            let actor = try await client.clientCredentials()
            #expect((try? CompactJWS(actor.accessToken)) == nil, "opaque")
            let first = try await client.exchangeToken(
                TokenExchangeRequest(
                    subject: .init(credentials.accessToken, type: .accessToken), actor: .init(actor.accessToken, type: .accessToken),
                    audiences: ["billing"]))
            let wire = Wire(provider: provider)
            let actorSub = JSONMemberValue.string(Fixture.backend.id)
            #expect(try await wire.introspect(first.issuedToken)["act"] == .object(["sub": actorSub]))
            let second = try await client.exchangeToken(
                TokenExchangeRequest(
                    subject: .init(first.issuedToken, type: .accessToken), actor: .init(actor.accessToken, type: .accessToken),
                    audiences: ["billing"]))
            #expect(try await wire.introspect(second.issuedToken)["act"] == .object(["sub": actorSub, "act": .object(["sub": actorSub])]))
            #expect(try await wire.introspect(credentials.accessToken)["act"] == nil)
        }
    }

    @Test("a subject token with under 5 s left is refused with invalid_request, not exchanged for one that expires at once")
    func expiringSubjectIsRefused() async throws {
        var configuration = Self.configuration()
        configuration.lifetimes.accessToken = 4
        try await Fixture.with(configuration) { provider in
            let (client, credentials) = try await Self.signedIn(provider)
            let error = await #expect(throws: AuthFlowError.self) {
                try await client.exchangeToken(
                    TokenExchangeRequest(subject: .init(credentials.accessToken, type: .accessToken), audiences: ["billing"]))
            }
            #expect(error?.oauth?.error == "invalid_request")
            #expect(error?.oauth?.errorDescription == "the subject token expires within seconds; exchange a fresh one")
        }
    }

    @Test("an exchanged token never outlives its subject token")
    func lifetimeCappedAtTheSubject() async throws {
        var configuration = Self.configuration()
        configuration.lifetimes.idToken = 120
        try await Fixture.with(configuration) { provider in
            let (client, credentials) = try await Self.signedIn(provider)
            let idToken = try #require(credentials.token.idToken)
            let issued = try await client.exchangeToken(
                TokenExchangeRequest(subject: .init(idToken, type: .idToken), audiences: ["billing"]))
            let subjectExpiry = try #require(try CompactJWS(idToken).claims["exp"]?.numberValue)
            let issuedExpiry = try #require(try CompactJWS(issued.issuedToken).claims["exp"]?.numberValue)
            #expect(issuedExpiry <= subjectExpiry)
            #expect(try #require(issued.token.expiresIn) <= 120)
        }
    }

    @Test("the provider refuses an audience or resource outside its policy with invalid_target")
    func audienceOutsidePolicy() async throws {
        try await Fixture.with(Self.configuration()) { provider in
            let (client, credentials) = try await Self.signedIn(provider)
            let subject = TokenExchangeRequest.SecurityToken(credentials.accessToken, type: .accessToken)
            let audience = await #expect(throws: AuthFlowError.self) {
                try await client.exchangeToken(TokenExchangeRequest(subject: subject, audiences: ["payroll"]))
            }
            #expect(audience?.category == .oauthError)
            #expect(audience?.oauth?.error == "invalid_target")
            #expect(audience?.oauth?.errorDescription == "the client may not exchange tokens for this audience")
            let resource = await #expect(throws: AuthFlowError.self) {
                try await client.exchangeToken(
                    TokenExchangeRequest(subject: subject, resources: [ResourceIdentifier(URL(string: "https://api.example.com/payroll")!)])
                )
            }
            #expect(resource?.oauth?.error == "invalid_target")
            #expect(resource?.oauth?.errorDescription == "the client may not exchange tokens for this resource")
            let none = await #expect(throws: AuthFlowError.self) { try await client.exchangeToken(TokenExchangeRequest(subject: subject)) }
            #expect(none?.oauth?.error == "invalid_target")
            #expect(none?.oauth?.errorDescription == "name the audience or the resource the token is for")
        }
    }

    @Test("a client without a policy rule is unauthorized_client; a subject token of another client is invalid_request")
    func clientRules() async throws {
        var configuration = Self.configuration()
        configuration.tokenExchangePolicy = TokenExchangePolicy([.init(clientID: Fixture.oddID, audiences: ["billing"])])
        try await Fixture.with(configuration) { provider in
            let (client, credentials) = try await Self.signedIn(provider)
            let subject = TokenExchangeRequest.SecurityToken(credentials.accessToken, type: .accessToken)
            let noRule = await #expect(throws: AuthFlowError.self) {
                try await client.exchangeToken(TokenExchangeRequest(subject: subject, audiences: ["billing"]))
            }
            #expect(noRule?.oauth?.error == "unauthorized_client")
            #expect(noRule?.oauth?.errorDescription == "the client may not exchange tokens")
            // The odd client may exchange, but not the demo client's token.
            let odd = try await OAuthClient(
                issuer: provider.issuer, clientID: Fixture.oddID, authentication: .clientSecretBasic(secret: Fixture.oddSecret))
            let stolen = await #expect(throws: AuthFlowError.self) {
                try await odd.exchangeToken(TokenExchangeRequest(subject: subject, audiences: ["billing"]))
            }
            #expect(stolen?.oauth?.error == "invalid_request")
            #expect(stolen?.oauth?.errorDescription == "the subject token was issued to another client")
            let garbage = await #expect(throws: AuthFlowError.self) {
                try await odd.exchangeToken(
                    TokenExchangeRequest(subject: .init("not-a-token-of-this-provider", type: .idToken), audiences: ["billing"]))
            }
            #expect(garbage?.oauth?.errorDescription == "the subject token is not an ID token signed by this provider")
        }
    }

    @Test("the provider advertises the token exchange grant")
    func metadataListsTheGrant() async throws {
        try await Fixture.with(Self.configuration()) { provider in
            let metadata = Wire.json(try await Wire(provider: provider).get("/.well-known/openid-configuration"))
            let grants = metadata["grant_types_supported"]?.arrayValue?.compactMap(\.stringValue) ?? []
            #expect(grants.contains("urn:ietf:params:oauth:grant-type:token-exchange"))
        }
    }

    @Test("a response without issued_token_type is invalid_response")
    func missingIssuedTokenType() async throws {
        try await ScriptedTokenEndpoint.with(answering: #"{"access_token":"issued-secret-7781","token_type":"Bearer"}"#) { endpoint in
            let error = await #expect(throws: AuthFlowError.self) {
                try await endpoint.client().exchangeToken(
                    TokenExchangeRequest(subject: .init("subject-secret-4410", type: .accessToken), audiences: ["billing"]))
            }
            #expect(error?.category == .invalidResponse)
            #expect(error?.message == "the token exchange response has no issued_token_type (RFC 8693 §2.2.1)")
        }
    }

    @Test("a response with another issued_token_type than requested is invalid_response, naming only known types")
    func unexpectedIssuedTokenType() async throws {
        let idToken =
            #"{"access_token":"issued-secret-7781","token_type":"N_A","issued_token_type":"urn:ietf:params:oauth:token-type:id_token"}"#
        try await ScriptedTokenEndpoint.with(answering: idToken) { endpoint in
            let error = await #expect(throws: AuthFlowError.self) {
                try await endpoint.client().exchangeToken(
                    TokenExchangeRequest(
                        subject: .init("subject-secret-4410", type: .accessToken), requestedTokenType: .accessToken, audiences: ["billing"])
                )
            }
            #expect(error?.category == .invalidResponse)
            #expect(
                error?.message
                    == "the token exchange response issued urn:ietf:params:oauth:token-type:id_token, not the requested urn:ietf:params:oauth:token-type:access_token"
            )
        }
        // A server that puts the issued token in issued_token_type does not get it into the error.
        let echo = #"{"access_token":"x:issued-secret-7781","token_type":"N_A","issued_token_type":"x:issued-secret-7781"}"#
        try await ScriptedTokenEndpoint.with(answering: echo) { endpoint in
            let error = await #expect(throws: AuthFlowError.self) {
                try await endpoint.client().exchangeToken(
                    TokenExchangeRequest(
                        subject: .init("subject-secret-4410", type: .accessToken), requestedTokenType: .idJAG, audiences: ["billing"]))
            }
            #expect(
                error?.message
                    == "the token exchange response issued another token type, not the requested urn:ietf:params:oauth:token-type:id-jag")
            #expect(error.map { "\($0) \($0.debugDescription)" }?.contains("issued-secret") == false)
        }
        let notURI = #"{"access_token":"issued-secret-7781","token_type":"N_A","issued_token_type":"id_token"}"#
        try await ScriptedTokenEndpoint.with(answering: notURI) { endpoint in
            let error = await #expect(throws: AuthFlowError.self) {
                try await endpoint.client().exchangeToken(TokenExchangeRequest(subject: .init("subject-secret-4410", type: .accessToken)))
            }
            #expect(error?.message == "the token exchange response has an issued_token_type that is not a URI")
        }
    }

    @Test("an N_A token of the requested type is accepted, and the request's form is what RFC 8693 §2.1 says")
    func notApplicableTokenAndForm() async throws {
        let answer =
            #"{"access_token":"eyJ.issued.jag","token_type":"N_A","issued_token_type":"urn:ietf:params:oauth:token-type:id-jag","expires_in":300}"#
        try await ScriptedTokenEndpoint.with(answering: answer) { endpoint in
            let issued = try await endpoint.client().exchangeToken(
                TokenExchangeRequest(
                    subject: .init("subject-secret-4410", type: .idToken), actor: .init("actor-secret-5520", type: .jwt),
                    requestedTokenType: .idJAG, audiences: ["https://as.example.com", "second"],
                    resources: [ResourceIdentifier(URL(string: "https://mcp.example.com/mcp")!)], scopes: ["tools", "read"]))
            #expect(issued.issuedTokenType == .idJAG)
            #expect(issued.token.tokenType == "N_A")
            #expect(!issued.isAccessToken)
            #expect(issued.issuedToken == "eyJ.issued.jag")
            #expect(issued.token.expiresIn == 300)
            #expect(issued.token.additional["issued_token_type"] == nil)
            #expect("\(issued)".contains("eyJ.issued.jag") == false)
            let received = try #require(await endpoint.received.first)
            #expect(
                received.body
                    == "grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Atoken-exchange&subject_token=subject-secret-4410"
                    + "&subject_token_type=urn%3Aietf%3Aparams%3Aoauth%3Atoken-type%3Aid_token&actor_token=actor-secret-5520"
                    + "&actor_token_type=urn%3Aietf%3Aparams%3Aoauth%3Atoken-type%3Ajwt"
                    + "&requested_token_type=urn%3Aietf%3Aparams%3Aoauth%3Atoken-type%3Aid-jag"
                    + "&audience=https%3A%2F%2Fas.example.com&audience=second&resource=https%3A%2F%2Fmcp.example.com%2Fmcp&scope=tools%20read"
            )
            #expect(received.authorization == "Basic " + Data("client-a:secret-a".utf8).base64EncodedString())
        }
    }

    @Test("an N_A token type is refused outside token exchange")
    func notApplicableOnlyForExchange() async throws {
        try await ScriptedTokenEndpoint.with(answering: #"{"access_token":"issued-secret-7781","token_type":"N_A"}"#) { endpoint in
            let error = await #expect(throws: AuthFlowError.self) { try await endpoint.client().clientCredentials() }
            #expect(error?.message == "token response has unsupported token_type N_A")
        }
    }

    @Test("the JWT bearer grant's form body, as the server received it")
    func jwtBearerForm() async throws {
        let assertion = "eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJkZW1vIn0.c2lnbmF0dXJl"
        try await ScriptedTokenEndpoint.with(answering: #"{"access_token":"issued-secret-7781","token_type":"Bearer","expires_in":60}"#) {
            endpoint in
            let credentials = try await endpoint.client().jwtBearerGrant(
                assertion: assertion, scopes: ["tools:call", "read"],
                resource: ResourceIdentifier(URL(string: "https://mcp.example.com/mcp")!))
            #expect(credentials.accessToken == "issued-secret-7781")
            #expect(credentials.scopes == ["tools:call", "read"])
            let received = try #require(await endpoint.received.first)
            #expect(
                received.body
                    == "grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer&assertion=\(assertion)"
                    + "&scope=tools%3Acall%20read&resource=https%3A%2F%2Fmcp.example.com%2Fmcp")
            #expect(received.authorization == "Basic " + Data("client-a:secret-a".utf8).base64EncodedString())
        }
    }

    @Test("a JWT bearer assertion that is not a compact JWT is refused before anything is sent")
    func jwtBearerShape() async throws {
        try await ScriptedTokenEndpoint.with(answering: "{}") { endpoint in
            for bad in ["", "not a jwt", "a.b", "a.b.c.d", ".b.c", "a.b.c\n"] {
                let error = await #expect(throws: AuthFlowError.self) { try await endpoint.client().jwtBearerGrant(assertion: bad) }
                #expect(error?.category == .configuration)
                #expect(error?.message == "the assertion is not a JWT in compact serialization (RFC 7523 §2.1)")
            }
            #expect(await endpoint.received.isEmpty)
        }
    }

    @Test("no token reaches an error or a log line, even when the server echoes them")
    func noTokenInErrorsOrLogs() async throws {
        let secrets = ["subject-secret-4410", "actor-secret-5520", "eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJkZW1vIn0.c2lnbmF0dXJl"]
        let echo =
            #"{"error":"invalid_request","error_description":"bad subject-secret-4410 actor-secret-5520 "#
            + #"eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJkZW1vIn0.c2lnbmF0dXJl"}"#
        let capture = LogCapture()
        try await ScriptedTokenEndpoint.with(answering: echo, status: .badRequest) { endpoint in
            let client = try endpoint.client(logger: capture.logger())
            let exchange = await #expect(throws: AuthFlowError.self) {
                try await client.exchangeToken(
                    TokenExchangeRequest(
                        subject: .init(secrets[0], type: .accessToken), actor: .init(secrets[1], type: .accessToken), audiences: ["b"]))
            }
            let bearer = await #expect(throws: AuthFlowError.self) { try await client.jwtBearerGrant(assertion: secrets[2]) }
            // Each error is scrubbed of the tokens its own request sent.
            for (error, sent) in [(exchange, secrets.prefix(2)), (bearer, secrets.suffix(1))] {
                let error = try #require(error)
                #expect(error.oauth?.error == "invalid_request")
                let text = [
                    error.description, error.debugDescription, error.localizedDescription, error.recoverySuggestion ?? "",
                    error.oauth?.errorDescription ?? "",
                ].joined(separator: " ")
                for secret in sent { #expect(!text.contains(secret)) }
            }
            #expect(exchange?.oauth?.errorDescription == "bad <redacted> <redacted> \(secrets[2])")
            #expect(bearer?.oauth?.errorDescription == "bad subject-secret-4410 actor-secret-5520 <redacted>")
        }
        // The embedded provider's own errors, and the log of a successful exchange.
        try await Fixture.with(Self.configuration()) { provider in
            let (client, credentials) = try await Self.signedIn(provider, logger: capture.logger())
            let subject = TokenExchangeRequest.SecurityToken(credentials.accessToken, type: .accessToken)
            let refused = await #expect(throws: AuthFlowError.self) {
                try await client.exchangeToken(TokenExchangeRequest(subject: subject, audiences: ["payroll"]))
            }
            let issued = try await client.exchangeToken(TokenExchangeRequest(subject: subject, audiences: ["billing"]))
            let text = [refused?.description ?? "", refused?.debugDescription ?? "", "\(issued)", "\(subject)"].joined(separator: " ")
            for token in [credentials.accessToken, issued.issuedToken] {
                #expect(!text.contains(token))
                #expect(!capture.text.contains(token))
            }
        }
        #expect(capture.text.contains("token exchanged"))
        for secret in secrets { #expect(!capture.text.contains(secret)) }
    }
}
#endif
