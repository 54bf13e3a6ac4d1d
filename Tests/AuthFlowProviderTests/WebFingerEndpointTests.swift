#if EmbeddedProvider // the EmbeddedProvider package trait
import AuthFlow
import AuthFlowProvider
import AuthFlowTestSupport
import Foundation
import Testing

/// The provider answers WebFinger for its users (RFC 7033, OpenID Connect Discovery 1.0 §2).
@Suite("WebFinger endpoint")
struct WebFingerEndpointTests {
    static let rel = WebFingerResource.issuerRelation

    @Test("a user's account names the issuer; the engine finds and discovers it")
    func knownUser() async throws {
        try await Fixture.with { provider in
            let host = "127.0.0.1:\(provider.port)"
            let response = try await Wire(provider: provider).get(
                "/.well-known/webfinger", [("resource", "acct:demo@\(host)"), ("rel", Self.rel)])
            #expect(response.status == 200)
            #expect(response.mediaType == "application/jrd+json")
            #expect(response.header("Access-Control-Allow-Origin") == "*")
            let body = Wire.json(response)
            #expect(body["subject"] == .string("acct:demo@\(host)"))
            #expect(
                body["links"] == .array([.object(["rel": .string(Self.rel), "href": .string(provider.issuer.identifier)])]))

            let metadata = try await ProviderMetadata.discover(account: "acct:demo@\(host)", timeout: 10)
            #expect(metadata.issuer == provider.issuer)
            // user@host:port is the URL https://user@host:port (Discovery §2.1); it names the same user.
            let found = try await Issuer.discover(account: "demo@\(host)", timeout: 10)
            #expect(found == provider.issuer)
        }
    }

    @Test("another rel filters the issuer link out")
    func otherRelation() async throws {
        try await Fixture.with { provider in
            let response = try await Wire(provider: provider).get(
                "/.well-known/webfinger",
                [("resource", "acct:demo@127.0.0.1:\(provider.port)"), ("rel", "http://webfinger.net/rel/avatar")])
            #expect(response.status == 200)
            #expect(Wire.json(response)["links"] == .array([]))
        }
    }

    /// Each resource with `PORT` standing for the provider's port.
    @Test(
        "an unknown resource is 404",
        arguments: [
            "acct:nobody@127.0.0.1:PORT", "acct:demo@example.com", "acct:demo@127.0.0.2:PORT", "acct:demo@127.0.0.1",
            "https://example.com/demo", "https://demo@127.0.0.1:PORT/profile", "mailto:demo@127.0.0.1:PORT", "demo",
        ])
    func unknownResource(_ template: String) async throws {
        try await Fixture.with { provider in
            let resource = template.replacingOccurrences(of: "PORT", with: "\(provider.port)")
            let response = try await Wire(provider: provider).get("/.well-known/webfinger", [("resource", resource)])
            #expect(response.status == 404)
        }
    }

    @Test("the engine says to give the issuer for an unknown user")
    func unknownUserThroughTheEngine() async throws {
        try await Fixture.with { provider in
            let account = "acct:nobody@127.0.0.1:\(provider.port)"
            let error = await #expect(throws: AuthFlowError.self) { try await Issuer.discover(account: account, timeout: 10) }
            #expect(error?.message == "no WebFinger answer for \(account) (HTTP 404)")
            #expect(error?.remedy == .giveTheIssuerInstead)
        }
    }

    @Test("a missing or repeated resource is 400")
    func badRequests() async throws {
        try await Fixture.with { provider in
            let wire = Wire(provider: provider)
            let resource = "acct:demo@127.0.0.1:\(provider.port)"
            let missing = try await wire.get("/.well-known/webfinger")
            let relOnly = try await wire.get("/.well-known/webfinger", [("rel", Self.rel)])
            let repeated = try await wire.get("/.well-known/webfinger", [("resource", resource), ("resource", resource)])
            let empty = try await wire.get("/.well-known/webfinger", [("resource", "")])
            #expect([missing, relOnly, repeated, empty].map(\.status) == [400, 400, 400, 400])
        }
    }
}
#endif
