import AuthFlowTestSupport
import Foundation
import Testing

@testable import AuthFlow

/// `IdentityAssertion.verify`: each rule of an Identity Assertion JWT
/// Authorization Grant, fed a grant that breaks it, with the exact error.
@Suite struct IdentityAssertionRuleTests {
    static let now = JWTVerifierTests.now
    static var nowSeconds: Double { now.timeIntervalSince1970 }
    static let resource = "https://tools.example.com/mcp"

    /// A valid grant, with `changes`.
    static func grant(_ changes: [String: JSONMemberValue?] = [:], typ: String = "oauth-id-jag+jwt") throws -> String {
        var claims: [String: JSONMemberValue?] = [
            "aud": .string(JWTVerifierTests.audience), "client_id": .string("tools-client"), "resource": .string(resource),
            "scope": .string("tools:call tools:list"), "exp": .number(nowSeconds + 240), "iat": .number(nowSeconds - 10),
        ]
        for (name, value) in changes { claims[name] = value }
        return try JWTVerifierTests.token(claims, header: ["typ": .string(typ)])
    }

    static func verify(_ token: String, resource: String? = resource) async throws -> IdentityAssertion {
        let issuer = try TestIDP(keys: JWTVerifierTests.standardKeys)
        return try await IdentityAssertion.verify(
            token, with: issuer.verifier(), clientID: "tools-client", resource: resource, now: now)
    }

    static func refusal(_ token: String, resource: String? = resource) async -> AuthFlowError? {
        await #expect(throws: AuthFlowError.self) { () async throws in _ = try await verify(token, resource: resource) }
    }

    @Test func aValidGrantIsRead() async throws {
        let assertion = try await Self.verify(try Self.grant())
        #expect(assertion.subject == "user-1")
        #expect(assertion.clientID == "tools-client")
        #expect(assertion.resources == [Self.resource])
        #expect(assertion.scopes == ["tools:call", "tools:list"])
        #expect(assertion.identifier == "id-1")
        #expect(assertion.authorizationServer == JWTVerifierTests.audience)
        // The media type in any case, with its application/ prefix.
        _ = try await Self.verify(try Self.grant(typ: "application/OAUTH-ID-JAG+JWT"))
        // A list of resources that names the one asked for.
        _ = try await Self.verify(try Self.grant(["resource": .array([.string("https://a.example"), .string(Self.resource)])]))
    }

    @Test func eachBrokenRuleHasItsError() async throws {
        let cases: [(String, AuthFlowError.Reason, String)] = [
            (try Self.grant(typ: "JWT"), .malformed, "the identity assertion's typ is not oauth-id-jag+jwt"),
            (try Self.grant(typ: "at+jwt"), .malformed, "the identity assertion's typ is not oauth-id-jag+jwt"),
            (
                try Self.grant(["aud": .array([.string(JWTVerifierTests.audience), .string("https://other.example")])]), .audience,
                "the identity assertion names more than one audience"
            ),
            (
                try Self.grant(["client_id": .string("other-client")]), .authorizedParty,
                "the identity assertion is for another client (client_id)"
            ),
            (try Self.grant(["client_id": nil]), .authorizedParty, "the identity assertion is for another client (client_id)"),
            (try Self.grant(["sub": nil]), .subject, "the identity assertion has no sub"),
            (try Self.grant(["jti": nil]), .malformed, "the identity assertion has no jti"),
            (try Self.grant(["iat": nil]), .issuedAt, "the identity assertion has no iat"),
            (
                try Self.grant(["exp": .number(Self.nowSeconds + 600), "iat": .number(Self.nowSeconds - 10)]), .expired,
                "the identity assertion lives longer than 300 seconds"
            ),
            (
                try Self.grant(["resource": .number(1)]), .malformed,
                "the identity assertion's resource is not a string or a list of strings"
            ),
            (
                try Self.grant(["resource": .string("https://tools.example.com/admin")]), .audience,
                "the identity assertion is not for the resource \(Self.resource)"
            ),
            (try Self.grant(["resource": nil]), .audience, "the identity assertion is not for the resource \(Self.resource)"),
        ]
        for (token, reason, message) in cases {
            let error = await Self.refusal(token)
            #expect(error?.category == .jwtInvalid, "\(message)")
            #expect(error?.reason == reason, "\(message)")
            #expect(error?.message == message)
        }
        // The JWT rules come first: another audience, expired.
        #expect(await Self.refusal(try Self.grant(["aud": .string("https://other.example")]))?.reason == .audience)
        #expect(await Self.refusal(try Self.grant(["exp": .number(Self.nowSeconds - 120)]))?.reason == .expired)
        // Without a resource to match, a grant naming none is read.
        #expect(try await Self.verify(try Self.grant(["resource": nil]), resource: nil).resources.isEmpty)
    }
}
