import AuthFlowTestSupport
import Foundation
import Testing

@testable import AuthFlow

/// Port tokens (`PortTokenVerifier`), shaped as the ZenKey guide's account
/// migration describes them (§11.1 step 13: `iss` the carrier the user left,
/// `sub` the new identifier, `iat`, `aud` the client ID, no `exp`), signed by
/// a carrier served on 127.0.0.1 (discovery and JWK Set).
@Suite struct PortTokenTests {
    static let clientID = "ccid-SP0001"
    static let newSubject = "mncmcc-002002-Z"
    static let now = TestIDP.now
    static let day: TimeInterval = 86_400

    /// A carrier on 127.0.0.1 with its metadata and keys; it counts the requests.
    static func carrier(keys: [[String: JSONMemberValue]] = [SigningKey.rsa2048.jwk(kid: "slow-1")]) throws -> LocalHTTPServer {
        let port = Locked(0)
        let server = try LocalHTTPServer { request in
            let base = "http://127.0.0.1:\(port.current)"
            if request.target == "/.well-known/openid-configuration" { return .json(DiscoveryTests.document(issuer: base)) }
            if request.target == "/jwks" { return .json(jwksJSON(keys)) }
            return .init(status: 404)
        }
        port.withLock { $0 = server.port }
        return server
    }

    static func issuer(_ server: LocalHTTPServer) -> String { "http://127.0.0.1:\(server.port)" }

    static func portToken(
        issuer: String, _ changes: [String: JSONMemberValue?] = [:], key: SigningKey = .rsa2048, kid: String = "slow-1"
    ) throws -> String {
        var claims: [String: JSONMemberValue] = [
            "iss": .string(issuer), "sub": .string(newSubject), "iat": .number(now.timeIntervalSince1970 - 30 * day),
            "aud": .string(clientID),
        ]
        for (name, value) in changes { claims[name] = value }
        return try jws(claims, key: key, alg: "RS256", kid: kid)
    }

    static func verifier(trusting issuers: [String], maximumAge: TimeInterval = 90 * day) throws -> PortTokenVerifier {
        PortTokenVerifier(trustedIssuers: Set(try issuers.map { try Issuer($0) }), clientID: clientID, maximumAge: maximumAge, timeout: 5)
    }

    /// The new carrier's ID token, carrying `aka` when given.
    static func idToken(sub: String = newSubject, aka: JSONMemberValue?) throws -> IDTokenClaims {
        var claims: [String: JSONMemberValue] = [
            "iss": .string("https://mno2.example"), "sub": .string(sub), "aud": .string(clientID),
            "exp": .number(now.timeIntervalSince1970 + 300), "iat": .number(now.timeIntervalSince1970),
        ]
        if let aka { claims[PortToken.claimName] = aka }
        return try IDTokenClaims(claims: claims)
    }

    @Test func aPortTokenOfATrustedCarrierIsVerified() async throws {
        let mno1 = try Self.carrier()
        defer { mno1.stop() }
        let token = try Self.portToken(issuer: Self.issuer(mno1))
        let verified = try await Self.verifier(trusting: ["https://mno3.example", Self.issuer(mno1)]).verify(token, now: Self.now)
        #expect(verified.previousIssuer.identifier == Self.issuer(mno1))
        #expect(verified.subject == Self.newSubject)
        #expect(verified.issuedAt == Date(timeIntervalSince1970: Self.now.timeIntervalSince1970 - 30 * Self.day))
        #expect(verified.jwt.expiresAt == Date(timeIntervalSince1970: Self.now.timeIntervalSince1970 + 60 * Self.day))
        #expect(mno1.requests.map(\.target) == ["/.well-known/openid-configuration", "/jwks"])
    }

    /// The guide's rule 2: the issuer is checked against the trusted set
    /// before anything is fetched; the server the token names is never asked.
    @Test func anUntrustedCarrierIsRefusedWithoutARequest() async throws {
        let rogue = try Self.carrier()
        defer { rogue.stop() }
        let token = try Self.portToken(issuer: Self.issuer(rogue))
        let error = await expectError(.jwtInvalid, reason: .issuer) {
            try await Self.verifier(trusting: ["https://mno1.example"]).verify(token, now: Self.now)
        }
        #expect(error?.message == "the port token's issuer is not a trusted carrier")
        #expect(rogue.requests.isEmpty)
    }

    /// Compared byte for byte: a trailing slash or another case is another issuer.
    @Test(arguments: ["/", "/x"]) func anIssuerThatOnlyLooksTrustedIsRefused(_ suffix: String) async throws {
        let mno1 = try Self.carrier()
        defer { mno1.stop() }
        let token = try Self.portToken(issuer: Self.issuer(mno1) + suffix)
        await expectError(.jwtInvalid, reason: .issuer) {
            try await Self.verifier(trusting: [Self.issuer(mno1)]).verify(token, now: Self.now)
        }
        #expect(mno1.requests.isEmpty)
    }

    @Test func aTokenOlderThanTheMaximumAgeIsRefused() async throws {
        let mno1 = try Self.carrier()
        defer { mno1.stop() }
        let token = try Self.portToken(issuer: Self.issuer(mno1))
        let error = await expectError(.jwtInvalid, reason: .expired) {
            try await Self.verifier(trusting: [Self.issuer(mno1)], maximumAge: 7 * Self.day).verify(token, now: Self.now)
        }
        #expect(error?.message == "the token was issued more than 604800 s ago")
    }

    @Test func aTokenWithoutIatIsRefused() async throws {
        let mno1 = try Self.carrier()
        defer { mno1.stop() }
        let token = try Self.portToken(issuer: Self.issuer(mno1), ["iat": nil])
        let error = await expectError(.jwtInvalid, reason: .issuedAt) {
            try await Self.verifier(trusting: [Self.issuer(mno1)]).verify(token, now: Self.now)
        }
        #expect(error?.message == "the token has neither exp nor iat")
    }

    /// An `exp` the carrier adds still ends the token.
    @Test func anExpiredExpStillCounts() async throws {
        let mno1 = try Self.carrier()
        defer { mno1.stop() }
        let token = try Self.portToken(issuer: Self.issuer(mno1), ["exp": .number(Self.now.timeIntervalSince1970 - 3600)])
        let error = await expectError(.jwtInvalid, reason: .expired) {
            try await Self.verifier(trusting: [Self.issuer(mno1)]).verify(token, now: Self.now)
        }
        #expect(error?.message == "the token has expired")
    }

    @Test func aTokenForAnotherAppIsRefused() async throws {
        let mno1 = try Self.carrier()
        defer { mno1.stop() }
        let token = try Self.portToken(issuer: Self.issuer(mno1), ["aud": .string("ccid-OTHER")])
        await expectError(.jwtInvalid, reason: .audience) {
            try await Self.verifier(trusting: [Self.issuer(mno1)]).verify(token, now: Self.now)
        }
    }

    @Test func aTokenWithoutSubIsRefused() async throws {
        let mno1 = try Self.carrier()
        defer { mno1.stop() }
        let token = try Self.portToken(issuer: Self.issuer(mno1), ["sub": nil])
        let error = await expectError(.jwtInvalid, reason: .subject) {
            try await Self.verifier(trusting: [Self.issuer(mno1)]).verify(token, now: Self.now)
        }
        #expect(error?.message == "the port token has no sub")
    }

    /// Signed by another key than the carrier's: refused after one refetch of the carrier's keys.
    @Test func aTokenSignedByAnotherKeyIsRefused() async throws {
        let mno1 = try Self.carrier()
        defer { mno1.stop() }
        let token = try Self.portToken(issuer: Self.issuer(mno1), key: .rsa2048b)
        await expectError(.jwtInvalid, reason: .signature) {
            try await Self.verifier(trusting: [Self.issuer(mno1)]).verify(token, now: Self.now)
        }
    }

    @Test func theIDTokensAkaClaimIsVerifiedAndMustNameTheSameUser() async throws {
        let mno1 = try Self.carrier()
        defer { mno1.stop() }
        let verifier = try Self.verifier(trusting: [Self.issuer(mno1)])
        let token = try Self.portToken(issuer: Self.issuer(mno1))
        let carried = try await verifier.verify(carriedBy: Self.idToken(aka: .string(token)), now: Self.now)
        #expect(carried?.subject == Self.newSubject)
        #expect(try await verifier.verify(carriedBy: Self.idToken(aka: nil), now: Self.now) == nil)

        let error = await expectError(.jwtInvalid, reason: .subject) {
            try await verifier.verify(carriedBy: Self.idToken(sub: "mncmcc-002002-Y", aka: .string(token)), now: Self.now)
        }
        #expect(error?.message == "the port token names another user than the ID token carrying it")
        await expectError(.jwtInvalid, reason: .malformed) {
            try await verifier.verify(carriedBy: Self.idToken(aka: .number(1)), now: Self.now)
        }
        #expect(mno1.requests.count == 2, "one discovery and one key fetch for every token of the carrier")
    }

    /// Without the explicit lifetime, a JWT without `exp` is refused as before.
    @Test func theDefaultLifetimeStillRequiresExp() async throws {
        let idp = try TestIDP(keys: [SigningKey.rsa2048.jwk(kid: "slow-1")])
        let token = try Self.portToken(issuer: TestIDP.issuer)
        let verifier = JWTVerifier(issuer: try Issuer(TestIDP.issuer), audience: Self.clientID, keys: idp.cache)
        #expect(verifier.lifetime == .expiring)
        let error = await expectError(.jwtInvalid, reason: .expired) { try await verifier.verify(token, now: Self.now) }
        #expect(error?.message == "the token has no exp")
    }
}
