import AuthFlowTestSupport
import Foundation
import Testing

@testable import AuthFlow

/// The one refresh rule, which `AuthSession` and `authflow token` apply.
@Suite("TokenValidity")
struct TokenValidityTests {
    let now = Date(timeIntervalSince1970: 2_000_000_000)

    func credentials(expiresIn remaining: TimeInterval?, lifetime: Int? = 3600) throws -> OAuthCredentials {
        var token = try TokenResponse(json: Data(#"{"access_token":"AT","token_type":"Bearer"}"#.utf8), requestedScopes: [])
        token.expiresAt = remaining.map { now.addingTimeInterval($0) }
        token.expiresIn = lifetime
        return OAuthCredentials(issuer: nil, clientID: "app", token: token, idToken: nil)
    }

    func fresh(_ remaining: TimeInterval?, lifetime: Int? = 3600, minimum: TimeInterval? = nil) throws -> Bool {
        !TokenValidity.needsRefresh(
            try credentials(expiresIn: remaining, lifetime: lifetime), minimumValidity: minimum, leeway: 60, now: now)
    }

    @Test("valid beyond the 60 s leeway; within it: refresh")
    func leeway() throws {
        #expect(try fresh(3000))
        #expect(try fresh(61))
        #expect(try !fresh(60))
        #expect(try !fresh(-5))
        #expect(try fresh(61, lifetime: nil))
        #expect(try !fresh(59, lifetime: nil))
    }

    @Test("a short-lived token: the margin is half its lifetime; a lifetime of 0 is none")
    func halfLifetime() throws {
        #expect(try fresh(10.5, lifetime: 20))
        #expect(try !fresh(10, lifetime: 20))
        #expect(try fresh(4, lifetime: 5))
        #expect(try !fresh(2, lifetime: 5))
        #expect(try !fresh(30, lifetime: 0))
    }

    @Test("a minimum validity replaces the margin, in both directions; no expiry is always valid")
    func minimumValidity() throws {
        #expect(try !fresh(300, minimum: 600))
        #expect(try fresh(601, minimum: 600))
        #expect(try fresh(5, minimum: 0))
        #expect(try !fresh(0, minimum: 0))
        #expect(try fresh(nil, minimum: 1e9))
    }
}
