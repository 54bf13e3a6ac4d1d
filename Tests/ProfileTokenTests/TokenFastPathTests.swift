import AuthFlow
import Foundation
import Testing
@testable import ProfileToken

@Suite("TokenFastPath")
struct TokenFastPathTests {
    let now = Date(timeIntervalSince1970: 2_000_000_000)

    func token(expiresIn remaining: TimeInterval?, lifetime: Int? = 3600, type: String = "Bearer") -> StoredToken {
        StoredToken(accessToken: "AT", tokenType: type, expiresAt: remaining.map { now.addingTimeInterval($0) }, expiresIn: lifetime)
    }

    @Test("valid beyond the 60 s leeway: printed; within it: refresh")
    func leeway() {
        #expect(TokenFastPath.validToken(token(expiresIn: 3000), minimumValidity: nil, now: now) == "AT")
        #expect(TokenFastPath.validToken(token(expiresIn: 61), minimumValidity: nil, now: now) == "AT")
        #expect(TokenFastPath.validToken(token(expiresIn: 60), minimumValidity: nil, now: now) == nil)
        #expect(TokenFastPath.validToken(token(expiresIn: 30), minimumValidity: nil, now: now) == nil)
        #expect(TokenFastPath.validToken(token(expiresIn: -5), minimumValidity: nil, now: now) == nil)
        #expect(TokenFastPath.validToken(token(expiresIn: 61, lifetime: nil), minimumValidity: nil, now: now) == "AT")
        #expect(TokenFastPath.validToken(token(expiresIn: 59, lifetime: nil), minimumValidity: nil, now: now) == nil)
    }

    @Test("a short-lived token: the margin is half its lifetime")
    func halfLifetime() {
        // 20 s token: margin 10 s, not 60.
        #expect(TokenFastPath.validToken(token(expiresIn: 15, lifetime: 20), minimumValidity: nil, now: now) == "AT")
        #expect(TokenFastPath.validToken(token(expiresIn: 10.5, lifetime: 20), minimumValidity: nil, now: now) == "AT")
        #expect(TokenFastPath.validToken(token(expiresIn: 10, lifetime: 20), minimumValidity: nil, now: now) == nil)
        #expect(TokenFastPath.validToken(token(expiresIn: 4, lifetime: 5), minimumValidity: nil, now: now) == "AT")
        #expect(TokenFastPath.validToken(token(expiresIn: 2, lifetime: 5), minimumValidity: nil, now: now) == nil)
        // A lifetime of 0 or less is not a lifetime: the leeway applies.
        #expect(TokenFastPath.validToken(token(expiresIn: 30, lifetime: 0), minimumValidity: nil, now: now) == nil)
    }

    @Test("--min-ttl replaces the margin, in both directions")
    func minimumValidity() {
        #expect(TokenFastPath.validToken(token(expiresIn: 300), minimumValidity: 600, now: now) == nil)
        #expect(TokenFastPath.validToken(token(expiresIn: 601), minimumValidity: 600, now: now) == "AT")
        #expect(TokenFastPath.validToken(token(expiresIn: 5), minimumValidity: 0, now: now) == "AT")
        #expect(TokenFastPath.validToken(token(expiresIn: 0), minimumValidity: 0, now: now) == nil)
        #expect(TokenFastPath.validToken(token(expiresIn: 15, lifetime: 20), minimumValidity: 12, now: now) == "AT")
        #expect(TokenFastPath.validToken(token(expiresIn: 15, lifetime: 20), minimumValidity: 16, now: now) == nil)
    }

    @Test("no expiry: valid whatever the minimum")
    func noExpiry() {
        #expect(TokenFastPath.validToken(token(expiresIn: nil), minimumValidity: nil, now: now) == "AT")
        #expect(TokenFastPath.validToken(token(expiresIn: nil), minimumValidity: 1e9, now: now) == "AT")
    }

    @Test("through the profile file: fresh, near expiry, DPoP-bound, wrong version, malformed, missing")
    func freshToken() throws {
        func home(_ credentials: OAuthCredentials?, version: Int = 2) throws -> String {
            try ProfileFixture.configHome(try ProfileFixture.data(version: version, credentials: credentials))
        }
        let fresh = try home(try ProfileFixture.credentials(expiresIn: 3600))
        #expect(TokenFastPath.freshToken(profile: "default", minimumValidity: nil, configHome: fresh) == "AT-1")
        #expect(TokenFastPath.freshToken(profile: "default", minimumValidity: 3500, configHome: fresh) == "AT-1")
        #expect(TokenFastPath.freshToken(profile: "default", minimumValidity: 3700, configHome: fresh) == nil)
        #expect(TokenFastPath.freshToken(profile: "other", minimumValidity: nil, configHome: fresh) == nil)
        #expect(TokenFastPath.freshToken(profile: ".default", minimumValidity: nil, configHome: fresh) == nil)

        let nearExpiry = try home(try ProfileFixture.credentials(expiresIn: 3600, now: Date(timeIntervalSinceNow: -3570)))
        #expect(TokenFastPath.freshToken(profile: "default", minimumValidity: nil, configHome: nearExpiry) == nil)
        #expect(TokenFastPath.freshToken(profile: "default", minimumValidity: 10, configHome: nearExpiry) == "AT-1")

        let noExpiry = try home(try ProfileFixture.credentials(expiresIn: nil))
        #expect(TokenFastPath.freshToken(profile: "default", minimumValidity: nil, configHome: noExpiry) == "AT-1")

        let dpop = try home(try ProfileFixture.credentials(tokenType: "DPoP"))
        #expect(StoredProfile.token(profile: "default", configHome: dpop)?.isDPoPBound == true)
        #expect(TokenFastPath.freshToken(profile: "default", minimumValidity: nil, configHome: dpop) == nil)
        let lowercaseDPoP = try ProfileFixture.configHome(Data(#"{"version":2,"credentials":{"token":{"accessToken":"AT","tokenType":"dpop"}}}"#.utf8))
        #expect(TokenFastPath.freshToken(profile: "default", minimumValidity: nil, configHome: lowercaseDPoP) == nil)

        let newer = try home(try ProfileFixture.credentials(), version: 3)
        #expect(TokenFastPath.freshToken(profile: "default", minimumValidity: nil, configHome: newer) == nil)
        let signedOut = try home(nil)
        #expect(TokenFastPath.freshToken(profile: "default", minimumValidity: nil, configHome: signedOut) == nil)
        let malformed = try ProfileFixture.configHome(Data(#"{"version":2,"credentials":{"token":"#.utf8))
        #expect(TokenFastPath.freshToken(profile: "default", minimumValidity: nil, configHome: malformed) == nil)
    }
}

@Suite("TokenArguments")
struct TokenArgumentsTests {
    @Test("the forms the front end answers")
    func recognised() {
        #expect(TokenArguments(["token"]) == TokenArguments())
        #expect(TokenArguments(["token", "--profile", "work"]) == TokenArguments(profile: "work"))
        #expect(TokenArguments(["token", "--profile=work"]) == TokenArguments(profile: "work"))
        #expect(TokenArguments(["token", "--min-ttl", "300"]) == TokenArguments(minimumValidity: 300))
        #expect(TokenArguments(["token", "--min-ttl=0"]) == TokenArguments(minimumValidity: 0))
        #expect(TokenArguments(["token", "--min-ttl", "2.5", "--profile", "p", "--timeout", "10", "-v"])
                == TokenArguments(profile: "p", minimumValidity: 2.5))
        #expect(TokenArguments(["token", "--verbose", "--timeout=0.5", "--profile=a=b"]) == TokenArguments(profile: "a=b"))
        #expect(TokenArguments(["token", "--profile", ""]) == TokenArguments(profile: ""))
    }

    @Test("everything else goes to authflow-core")
    func delegated() {
        let cases: [[String]] = [
            [], ["login"], ["status"], ["--version"], ["--help"], ["help", "token"], ["token", "--help"], ["token", "-h"],
            ["token", "--force"], ["token", "--unknown"], ["token", "extra"], ["token", "--"], ["token", "-vv"],
            ["--profile", "p", "token"], ["Token"], ["token", "--profile"], ["token", "--profile", "-v"],
            ["token", "--profile", "a", "--profile", "b"], ["token", "-v", "--verbose"], ["token", "--verbose=1"],
            ["token", "--min-ttl", "-1"], ["token", "--min-ttl=-1"], ["token", "--min-ttl", "inf"], ["token", "--min-ttl", "nan"],
            ["token", "--min-ttl", "soon"], ["token", "--min-ttl="], ["token", "--min-ttl", "1", "--force"],
            ["token", "--timeout", "0"], ["token", "--timeout=-3"], ["token", "--timeout", "nan"], ["token", "--timeout", "x"],
            ["token", "--profile=p", "--timeout"],
        ]
        for arguments in cases {
            #expect(TokenArguments(arguments) == nil, "\(arguments)")
        }
    }
}
