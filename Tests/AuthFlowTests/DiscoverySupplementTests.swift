import AuthFlowTestSupport
import Foundation
import Logging
import Testing

@testable import AuthFlow

/// Discovery filling gaps of the OpenID document (no `revocation_endpoint`)
/// from the RFC 8414 document of the same issuer.
@Suite struct DiscoverySupplementTests {
    static let issuer = "https://ex.com"
    static let openIDURL = "https://ex.com/.well-known/openid-configuration"
    static let oauthURL = "https://ex.com/.well-known/oauth-authorization-server"

    /// A metadata document; `extra` members are appended verbatim.
    static func document(issuer: String = issuer, base: String = issuer, extra: [String: String] = [:]) -> String {
        var members: [String: JSONMemberValue] = [
            "issuer": .string(issuer),
            "authorization_endpoint": .string("\(base)/authorize"),
            "token_endpoint": .string("\(base)/token"),
            "jwks_uri": .string("\(base)/jwks"),
            "response_types_supported": .array([.string("code")]),
        ]
        for (name, value) in extra { members[name] = .string(value) }
        return jsonText(members)
    }

    static let openIDDocument = document(extra: ["userinfo_endpoint": "https://ex.com/userinfo"])

    static func discover(_ transport: ScriptedTransport, issuer: String = issuer) async throws -> ProviderMetadata {
        try await ProviderMetadata.discover(issuer: Issuer(issuer), transport: transport, timeout: 5)
    }

    @Test func missingRevocationEndpointIsTakenFromRFC8414() async throws {
        let transport = ScriptedTransport(routes: [
            Self.openIDURL: .json(Self.openIDDocument),
            Self.oauthURL: .json(
                Self.document(
                    base: "https://ex.com/oauth",
                    extra: [
                        "revocation_endpoint": "https://ex.com/oauth/revoke",
                        "introspection_endpoint": "https://ex.com/oauth/introspect",
                        "device_authorization_endpoint": "https://ex.com/oauth/device",
                        "pushed_authorization_request_endpoint": "https://ex.com/oauth/par",
                    ])),
        ])
        let metadata = try await Self.discover(transport)
        #expect(metadata.revocationEndpoint == url("https://ex.com/oauth/revoke"))
        #expect(metadata.introspectionEndpoint == url("https://ex.com/oauth/introspect"))
        #expect(metadata.deviceAuthorizationEndpoint == url("https://ex.com/oauth/device"))
        #expect(metadata.pushedAuthorizationRequestEndpoint == url("https://ex.com/oauth/par"))
        // Everything else stays the OpenID document's.
        #expect(metadata.issuer?.identifier == Self.issuer)
        #expect(metadata.tokenEndpoint == url("https://ex.com/token"))
        #expect(metadata.authorizationEndpoint == url("https://ex.com/authorize"))
        #expect(metadata.jwksURI == url("https://ex.com/jwks"))
        #expect(metadata.userinfoEndpoint == url("https://ex.com/userinfo"))
        #expect(transport.urls == [Self.openIDURL, Self.oauthURL])
        #expect(transport.requests.allSatisfy { $0.method == "GET" && $0.timeout == 5 })
    }

    @Test func endpointsTheOpenIDDocumentHasAreNotOverridden() async throws {
        let transport = ScriptedTransport(routes: [
            Self.openIDURL: .json(Self.document(extra: ["introspection_endpoint": "https://ex.com/introspect"])),
            Self.oauthURL: .json(
                Self.document(extra: [
                    "revocation_endpoint": "https://ex.com/oauth/revoke", "introspection_endpoint": "https://ex.com/oauth/introspect",
                ])),
        ])
        let metadata = try await Self.discover(transport)
        #expect(metadata.revocationEndpoint == url("https://ex.com/oauth/revoke"))
        #expect(metadata.introspectionEndpoint == url("https://ex.com/introspect"))
    }

    @Test func issuerWithPathUsesTheInsertedWellKnownURL() async throws {
        let issuer = "https://ex.com/tenant/a"
        let transport = ScriptedTransport(routes: [
            "https://ex.com/tenant/a/.well-known/openid-configuration": .json(Self.document(issuer: issuer)),
            "https://ex.com/.well-known/oauth-authorization-server/tenant/a":
                .json(Self.document(issuer: issuer, extra: ["revocation_endpoint": "https://ex.com/tenant/a/revoke"])),
        ])
        let metadata = try await Self.discover(transport, issuer: issuer)
        #expect(metadata.revocationEndpoint == url("https://ex.com/tenant/a/revoke"))
        #expect(transport.urls.count == 2)
    }

    @Test(arguments: ["https://other.example", "https://ex.com/", "https://EX.com"])
    func rfc8414DocumentOfAnotherIssuerIsIgnored(_ otherIssuer: String) async throws {
        let transport = ScriptedTransport(routes: [
            Self.openIDURL: .json(Self.openIDDocument),
            Self.oauthURL: .json(Self.document(issuer: otherIssuer, extra: ["revocation_endpoint": "https://other.example/revoke"])),
        ])
        let metadata = try await Self.discover(transport)
        #expect(metadata.revocationEndpoint == nil)
        #expect(metadata == (try ProviderMetadata(json: json(Self.openIDDocument))))
        #expect(transport.urls == [Self.openIDURL, Self.oauthURL])
    }

    @Test(arguments: [404, 400, 500, 503, 302])
    func rfc8414FailureLeavesMetadataUnchanged(_ status: Int) async throws {
        let transport = ScriptedTransport(routes: [
            Self.openIDURL: .json(Self.openIDDocument),
            Self.oauthURL: .json(Self.document(extra: ["revocation_endpoint": "https://ex.com/revoke"]), status: status),
        ])
        let metadata = try await Self.discover(transport)
        #expect(metadata == (try ProviderMetadata(json: json(Self.openIDDocument))))
        #expect(metadata.revocationEndpoint == nil)
        #expect(transport.urls == [Self.openIDURL, Self.oauthURL])
    }

    @Test(arguments: [
        "not json", "[]", #"{"issuer":"https://ex.com"}"#,
        #"{"issuer":"https://ex.com","authorization_endpoint":"https://ex.com/a","token_endpoint":"https://ex.com/t","revocation_endpoint":42}"#,
    ])
    func brokenRFC8414DocumentIsIgnored(_ body: String) async throws {
        let transport = ScriptedTransport(routes: [
            Self.openIDURL: .json(Self.openIDDocument),
            Self.oauthURL: .json(body),
        ])
        let metadata = try await Self.discover(transport)
        #expect(metadata == (try ProviderMetadata(json: json(Self.openIDDocument))))
    }

    @Test func networkFailureOfRFC8414IsIgnored() async throws {
        let transport = ScriptedTransport { request in
            if request.url.absoluteString == Self.openIDURL { return .json(Self.openIDDocument) }
            throw AuthFlowError(.network, "connection refused")
        }
        let metadata = try await Self.discover(transport)
        #expect(metadata.revocationEndpoint == nil)
        #expect(transport.urls == [Self.openIDURL, Self.oauthURL])
    }

    @Test(arguments: ["http://ex.com/revoke", "http://revoke.example/revoke"])
    func insecureRevocationEndpointIsIgnored(_ endpoint: String) async throws {
        let transport = ScriptedTransport(routes: [
            Self.openIDURL: .json(Self.openIDDocument),
            Self.oauthURL: .json(Self.document(extra: ["revocation_endpoint": endpoint])),
        ])
        let metadata = try await Self.discover(transport)
        #expect(metadata.revocationEndpoint == nil)
        #expect(metadata == (try ProviderMetadata(json: json(Self.openIDDocument))))
    }

    @Test func insecureOtherEndpointMakesTheWholeDocumentIgnored() async throws {
        let transport = ScriptedTransport(routes: [
            Self.openIDURL: .json(Self.openIDDocument),
            Self.oauthURL: .json(
                Self.document(extra: [
                    "revocation_endpoint": "https://ex.com/revoke", "introspection_endpoint": "http://ex.com/introspect",
                ])),
        ])
        let metadata = try await Self.discover(transport)
        #expect(metadata.revocationEndpoint == nil)
        #expect(metadata.introspectionEndpoint == nil)
    }

    @Test func loopbackHTTPIssuerAcceptsLoopbackRevocationEndpoint() async throws {
        let issuer = "http://127.0.0.1:8080"
        let transport = ScriptedTransport(routes: [
            "\(issuer)/.well-known/openid-configuration": .json(Self.document(issuer: issuer)),
            "\(issuer)/.well-known/oauth-authorization-server": .json(
                Self.document(issuer: issuer, extra: ["revocation_endpoint": "\(issuer)/revoke"])),
        ])
        let metadata = try await Self.discover(transport, issuer: issuer)
        #expect(metadata.revocationEndpoint == url("\(issuer)/revoke"))
    }

    @Test func openIDDocumentWithRevocationEndpointMakesOneRequest() async throws {
        let transport = ScriptedTransport(routes: [
            Self.openIDURL: .json(Self.document(extra: ["revocation_endpoint": "https://ex.com/revoke"])),
            Self.oauthURL: .json(Self.document(extra: ["revocation_endpoint": "https://ex.com/other-revoke"])),
        ])
        let metadata = try await Self.discover(transport)
        #expect(metadata.revocationEndpoint == url("https://ex.com/revoke"))
        #expect(transport.urls == [Self.openIDURL])
    }

    @Test func rfc8414OnlyProviderWithoutRevocationMakesTwoRequests() async throws {
        // The OpenID document is absent; the RFC 8414 one is the answer and is
        // not fetched a second time to supplement itself.
        let transport = ScriptedTransport(routes: [Self.oauthURL: .json(Self.document())])
        let metadata = try await Self.discover(transport)
        #expect(metadata.revocationEndpoint == nil)
        #expect(metadata.issuer?.identifier == Self.issuer)
        #expect(transport.urls == [Self.openIDURL, Self.oauthURL])
    }

    @Test func supplementedDirectlyKeepsMetadataOnMismatch() async throws {
        let base = try ProviderMetadata(json: json(Self.openIDDocument))
        let transport = ScriptedTransport(routes: [
            Self.oauthURL: .json(
                Self.document(issuer: "https://evil.example", extra: ["revocation_endpoint": "https://evil.example/revoke"]))
        ])
        let merged = await ProviderMetadata.supplemented(
            base, from: url(Self.oauthURL), transport: transport, timeout: 3, logger: .init(label: "test"))
        #expect(merged == base)
        #expect(transport.requests.first?.timeout == 3)
    }
}
