import AuthFlowTestSupport
import Foundation
import Testing

@testable import AuthFlow

/// `JWTVerifier` reads every claim as the parser's dictionary does, and gives
/// the same result and the same error whether it fetches the keys (the first
/// verification of a fresh verifier) or uses the cached ones (later ones).
@Suite("JWT reading")
struct JWTReadingTests {
    static let now = JWTVerifierTests.now
    static var nowSeconds: Double { now.timeIntervalSince1970 }

    /// Payload texts the reader must read exactly as the parser does.
    static let payloads: [String] = [
        #"{"iss":"https://idp.example","sub":"u-1","aud":"https://api.example","exp":EXP,"iat":IAT,"scope":"read write"}"#,
        // Escapes and non-ASCII in values, aud as an array with other types, nested objects.
        #"{"iss":"https:\/\/idp.example","sub":"\u00e9l\u00e8ve","aud":["x",1,"https://api.example",null],"exp":EXP,"iat":IAT,"cnf":{"jkt":"abc"},"events":{"e":{}},"nbf":null,"scope":"  read  \u0077rite "}"#,
        // Whitespace, numbers in every form, exp as a float.
        #" { "iss" : "https://idp.example" , "aud" : [ "https://api.example" ] , "exp" : EXPe0 , "iat":IAT.0,"n":-0.5e-3,"b":true,"z":[],"scope":" read   write x" } "#,
        // A Kelvin sign (canonically equal to "K" for Swift) in a value; a name "K" that a lookup of the sign finds.
        "{\"iss\":\"https://idp.example\",\"aud\":\"https://api.example\",\"exp\":EXP,\"k\":\"\u{212A}\",\"K\":1}",
    ]

    static func text(_ payload: String) -> String {
        payload.replacingOccurrences(of: "EXP", with: String(Int(nowSeconds) + 300)).replacingOccurrences(
            of: "IAT", with: String(Int(nowSeconds) - 10))
    }

    static let names = [
        "iss", "sub", "aud", "exp", "iat", "nbf", "scope", "cnf", "events", "n", "b", "z", "k", "K", "\u{212A}", "missing", "",
    ]

    @Test(arguments: payloads)
    func readsWhatTheParserReads(_ payload: String) throws {
        let bytes = Array(Self.text(payload).utf8)
        let full = try #require(bytes.withUnsafeBufferPointer { JSONParser.object($0) })
        let reader = try JSONObjectReader(bytes)
        #expect(reader.all == full)
        for name in Self.names + Array(full.keys) {
            #expect(reader.value(name) == full[name], "\(name)")
            #expect(reader.string(name) == full[name]?.stringValue, "\(name)")
            #expect(reader.number(name) == full[name]?.numberValue, "\(name)")
            #expect(reader.contains(name) == (full[name] != nil), "\(name)")
            for expected in ["https://idp.example", "K", "\u{212A}", "élève", "", "read write"] {
                // Byte for byte (RFC 7519 §7.3): the Kelvin sign is not "K".
                let same = full[name]?.stringValue.map { $0.utf8.elementsEqual(expected.utf8) } ?? false
                #expect(reader.string(name, equals: expected) == same, "\(name) = \(expected)")
            }
        }
        for word in ["read", "write", "read write", "", " ", "rea", "https://idp.example", "K", "\u{212A}", "élève"] {
            for name in ["scope", "iss", "sub", "k", "aud", "missing"] {
                // Scope tokens compare byte for byte too: the Kelvin sign is not the word "K".
                let words = full[name]?.stringValue?.utf8.split(separator: 0x20) ?? []
                let expected = words.contains { $0.elementsEqual(word.utf8) }
                #expect(reader.string(name, containsWord: word) == expected, "\(name) has the word \(word)")
            }
        }
        let audience: [String] =
            switch full["aud"] {
            case .string(let value)?: [value]
            case .array(let values)?: values.compactMap(\.stringValue)
            default: []
            }
        #expect(reader.audience == audience)
        for expected in ["https://api.example", "x", "1", ""] {
            #expect(reader.audienceContains(expected) == audience.contains(expected))
        }
    }

    /// `token` verified by a fresh verifier (keys fetched), then again (cached keys).
    static func bothPaths(_ token: String) async throws -> (
        full: Result<VerifiedJWT, AuthFlowError>, scanned: Result<VerifiedJWT, AuthFlowError>
    ) {
        let verifier = try TestIDP(keys: JWTVerifierTests.standardKeys).verifier()
        func verify() async -> Result<VerifiedJWT, AuthFlowError> {
            do { return .success(try await verifier.verify(token, now: now)) } catch { return .failure(error as! AuthFlowError) }
        }
        let full = await verify()
        #expect(verifier.signature.keys?.currentKeySet() != nil, "the first verification fetched the keys")
        return (full, await verify())
    }

    @Test(arguments: payloads)
    func verifierGivesTheSameResultWithFetchedAndCachedKeys(_ payload: String) async throws {
        let token = try jws(
            headerJSON: #"{"alg":"ES256","kid":"ec","typ":"at+jwt"}"#, payloadJSON: Self.text(payload), key: .ec256, alg: "ES256")
        let (full, scanned) = try await Self.bothPaths(token)
        let a = try full.get()
        let b = try scanned.get()
        #expect(a == b)
        #expect(a.type == "at+jwt" && b.type == "at+jwt")
        #expect(a.issuedAt == b.issuedAt && a.audience == b.audience && a.issuer == b.issuer && a.subject == b.subject)
        for word in ["read", "write", "rea", ""] {
            #expect(a.claimMembers.string("scope", containsWord: word) == b.claimMembers.string("scope", containsWord: word), "\(word)")
        }
        for name in Self.names {
            #expect(a.claim(name) == b.claim(name) && a.string(name) == b.string(name), "\(name)")
            #expect(a.number(name) == b.number(name) && a.hasClaim(name) == b.hasClaim(name), "\(name)")
        }
    }

    @Test(arguments: [
        (#""iss":"https://evil.example""#, AuthFlowError.Reason.issuer), (#""iss":"https:\/\/idp.example\/""#, .issuer),
        (#""iss":1"#, .issuer), (#""aud":"https://other.example""#, .audience), (#""aud":["x",2]"#, .audience),
        (#""aud":{"a":"https://api.example"}"#, .audience), (#""exp":"1700000300""#, .expired), (#""exp":1000"#, .expired),
        (#""nbf":NBF"#, .notBefore), (#""iat":NBF"#, .issuedAt),
    ])
    func eachRuleRefusesWithTheSameErrorWithFetchedAndCachedKeys(_ member: String, _ reason: AuthFlowError.Reason) async throws {
        var members = [
            "iss": #""iss":"https://idp.example""#, "aud": #""aud":"https://api.example""#, "exp": #""exp":EXP"#,
            "iat": #""iat":IAT"#,
        ]
        members[String(member.dropFirst().prefix { $0 != "\"" })] = member
        let payload = "{" + members.values.sorted().joined(separator: ",") + "}"
        let text = Self.text(payload).replacingOccurrences(of: "NBF", with: String(Int(Self.nowSeconds) + 600))
        let token = try jws(headerJSON: #"{"alg":"ES256","kid":"ec"}"#, payloadJSON: text, key: .ec256, alg: "ES256")
        let (full, scanned) = try await Self.bothPaths(token)
        guard case .failure(let a) = full, case .failure(let b) = scanned else {
            Issue.record("a path accepted \(member)")
            return
        }
        #expect(a == b)
        #expect(a.category == .jwtInvalid && a.reason == reason, "\(member): \(a.message)")
    }
}
