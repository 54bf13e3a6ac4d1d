import AuthFlowTestSupport
import Foundation
import Testing

@testable import AuthFlow

/// The ID-token fast path (`JSONParser.scanObject`, `PayloadClaims`,
/// `ScannedIDToken`) never accepts what the full parser refuses and always
/// reads what the full parser reads; `IDTokenClaims` and the verifier give the
/// same results and the same errors on both paths.
@Suite("ID-token scan")
struct IDTokenScanTests {
    typealias Claim = IDTokenClaimValues.Claim

    /// The scan's result, or nil when it leaves the payload to the full parser.
    static func scan(_ text: [UInt8]) -> IDTokenClaimValues? {
        PayloadClaims.scan(text)?.values
    }

    /// What the full parser makes of `text`: the typed claims of an object, nil otherwise.
    static func full(_ text: [UInt8]) -> IDTokenClaimValues? {
        guard case .object(let object)? = try? JSONParser.parse(text) else { return nil }
        return IDTokenClaimValues(object)
    }

    /// When the scan reads a text, the full parser reads the same claims from
    /// it, and `IDTokenClaims` made from either is equal (or refused with the
    /// same error), down to the comparisons the OIDC rules make.
    static func expectAgreement(_ text: [UInt8], _ comment: @autoclosure () -> String, sourceLocation: SourceLocation = #_sourceLocation) {
        guard let payload = PayloadClaims.scan(text) else { return }
        guard case .object(let object)? = try? JSONParser.parse(text) else {
            Issue.record("the scan accepted what the full parser refuses: \(comment())", sourceLocation: sourceLocation)
            return
        }
        #expect(payload.values == IDTokenClaimValues(object), "\(comment())", sourceLocation: sourceLocation)
        let fromPayload = Result { try IDTokenClaims(payload) }
        let fromDictionary = Result { try IDTokenClaims(claims: object) }
        switch (fromPayload, fromDictionary) {
        case (.success(let a), .success(let b)):
            #expect(a == b, "\(comment())", sourceLocation: sourceLocation)
            for probe in ["app", "https://idp.example", "N-1", "", "é", "x\"y", b.issuer, b.audience.first ?? "-", b.nonce ?? "-"] {
                #expect(a.issuerEquals(probe) == b.issuerEquals(probe), sourceLocation: sourceLocation)
                #expect(a.audienceContains(probe) == b.audienceContains(probe), sourceLocation: sourceLocation)
                #expect(a.authorizedPartyEquals(probe) == b.authorizedPartyEquals(probe), sourceLocation: sourceLocation)
                #expect(a.nonceMatches(probe) == b.nonceMatches(probe), sourceLocation: sourceLocation)
            }
            #expect(a.audienceCount == b.audienceCount && a.hasAuthorizedParty == b.hasAuthorizedParty, sourceLocation: sourceLocation)
        case (.failure(let a), .failure(let b)):
            #expect(a as? AuthFlowError == b as? AuthFlowError, "\(comment())", sourceLocation: sourceLocation)
        default:
            Issue.record("one path accepted the claims, the other refused them: \(comment())", sourceLocation: sourceLocation)
        }
    }

    // MARK: Fixed documents

    @Test func readsTheTypedClaimsOfAnIDToken() throws {
        let text = Array(
            #" { "iss" : "https://id.example" , "sub":"u-1","aud":["a","b"],"exp":1700000300,"iat":1.7e9,"auth_time":1699999000,"nonce":"n\"1","azp":"a","at_hash":"h","acr":"0","amr":["pwd"],"name":"Ann","email":"a@b","preferred_username":"ann","address":{"country":"NL"},"groups":[1,[2,{"x":null}]],"ok":true} "#
                .utf8)
        let scanned = try #require(Self.scan(text))
        #expect(scanned.iss == .value("https://id.example"))
        #expect(scanned.aud == .value(["a", "b"]))
        #expect(scanned.iat == .value(1.7e9))
        #expect(scanned.nonce == .value("n\"1"))
        #expect(scanned.amr == ["pwd"])
        #expect(scanned.preferredUsername == "ann")
        #expect(scanned == (try #require(Self.full(text))))
    }

    /// Claims of the wrong type are read as such by both paths (and refused
    /// later by `IDTokenClaims` with the same errors).
    @Test func wrongTypesReadTheSameOnBothPaths() throws {
        let text = Array(
            #"{"iss":1,"sub":["s"],"aud":[1],"exp":"1","iat":null,"auth_time":true,"nonce":{},"azp":2,"at_hash":[],"acr":false,"amr":"pwd","name":3,"email":null,"preferred_username":[]}"#
                .utf8)
        let scanned = try #require(Self.scan(text))
        #expect(scanned == (try #require(Self.full(text))))
        #expect(scanned.iss == .wrongType)
        #expect(scanned.aud == .wrongType)
        #expect(scanned.exp == .wrongType)
        #expect(scanned.amr == nil)
        #expect(scanned.name == nil)
    }

    @Test func everyClaimNameIsRecognisedExactly() {
        for claim in Claim.allCases {
            let name = Array(claim.name.utf8)
            #expect(name.withUnsafeBufferPointer { Claim($0) } == claim)
            // One byte more, one byte less, another last byte: not a claim.
            for other in [name + [UInt8(ascii: "x")], Array(name.dropLast()), Array(name.dropLast()) + [UInt8(ascii: "_")]] {
                #expect(other.withUnsafeBufferPointer { Claim($0) } == nil, "\(String(decoding: other, as: UTF8.self))")
            }
        }
    }

    /// Names the scan does not compare byte for byte go to the full parser.
    @Test(arguments: [
        #"{"\u0069ss":"x"}"#, // an escaped name that unescapes to a claim name
        #"{"a":1,"\u0061":2}"#, // a duplicate once unescaped
        #"{"é":1}"#, "{\"K\":1,\"\u{212A}\":2}", // non-ASCII (the Kelvin sign is canonically "K")
        #"{"":1}"#, // empty name
        #"{"iss":"a","iss":"b"}"#, #"{"x":1,"y":2,"x":3}"#, // duplicates
        "[]", "\"s\"", "{", "", "{}x",
    ])
    func leavesToTheFullParser(_ document: String) {
        #expect(Self.scan(Array(document.utf8)) == nil)
    }

    @Test func moreMembersThanTheLimitGoToTheFullParser() {
        func object(_ count: Int) -> [UInt8] {
            Array(("{" + (0..<count).map { "\"c\($0)\":\($0)" }.joined(separator: ",") + "}").utf8)
        }
        #expect(Self.scan(object(JSONParser.scanMemberLimit)) != nil)
        #expect(Self.scan(object(JSONParser.scanMemberLimit + 1)) == nil)
    }

    /// Every invalid text of the parser's own tests, as the value of a known
    /// claim and of an unknown one, and as the whole payload, is refused.
    @Test(arguments: JSONParserTests.invalidDocuments)
    func refusesWhatTheParserRefuses(_ reason: String, _ document: String) {
        for text in [document, #"{"name":\#(document)}"#, #"{"other":\#(document)}"#, #"{"other":[1,\#(document)]}"#] {
            #expect(Self.scan(Array(text.utf8)) == nil, "\(reason): \(text)")
        }
    }

    @Test(arguments: JSONParserTests.invalidUTF8)
    func refusesInvalidUTF8InValues(_ reason: String, _ bytes: [UInt8]) {
        for prefix in [#"{"name":"#, #"{"other":"#] {
            #expect(Self.scan(Array(prefix.utf8) + bytes + [UInt8(ascii: "}")]) == nil, "\(reason)")
        }
    }

    @Test(arguments: JSONParserTests.validDocuments)
    func agreesOnValidDocuments(_ document: String) {
        for text in [document, #"{"name":\#(document)}"#, #"{"other":\#(document)}"#] {
            Self.expectAgreement(Array(text.utf8), text)
        }
    }

    @Test func nestingLimitIsTheParsers() {
        let depth = JSONParser.maximumDepth
        // The payload object is one level: a value may nest maximumDepth - 1 more.
        let fits = #"{"x":"# + String(repeating: "[", count: depth - 1) + String(repeating: "]", count: depth - 1) + "}"
        let deeper = #"{"x":"# + String(repeating: "[", count: depth) + String(repeating: "]", count: depth) + "}"
        #expect(Self.scan(Array(fits.utf8)) != nil)
        #expect(Self.full(Array(fits.utf8)) != nil)
        #expect(Self.scan(Array(deeper.utf8)) == nil)
        #expect(Self.full(Array(deeper.utf8)) == nil)
    }

    /// The word-at-a-time byte tests agree with a byte-by-byte loop.
    @Test func wordAtATimeChecksAgreeWithBytes() {
        var rng = JSONParserTests.SeededGenerator(state: 0x5357_4152)
        let interesting: [UInt8] = [0x00, 0x1F, 0x20, 0x21, 0x22, 0x23, 0x5B, 0x5C, 0x5D, 0x7E, 0x7F, 0x80, 0xC3, 0xFF, 0x41, 0x61]
        for round in 0..<20_000 {
            let count = Int.random(in: 0...40, using: &rng)
            let bytes: [UInt8] = (0..<count).map { _ in
                round.isMultiple(of: 2) ? interesting.randomElement(using: &rng)! : UInt8.random(in: 0x20...0x7E, using: &rng)
            }
            let expected = bytes.allSatisfy { $0 >= 0x20 && $0 < 0x7F && $0 != 0x5C }
            #expect(bytes.withUnsafeBufferPointer { isPlainASCII($0) } == expected, "\(bytes)")
            // skipString must find the same end and refuse the same strings as parseString.
            let text = [UInt8(ascii: "\"")] + bytes + [UInt8(ascii: "\"")]
            let full = text.withUnsafeBufferPointer { buffer -> Int? in
                var parser = JSONParser(buffer)
                return (try? parser.parseString()).map { _ in parser.index }
            }
            let skipped = text.withUnsafeBufferPointer { buffer -> (end: Int, plain: Bool)? in
                var parser = JSONParser(buffer)
                return (try? parser.skipString()).map { (parser.index, $0) }
            }
            #expect(full == skipped?.end, "\(bytes)")
            // Its plain answer is isPlainASCII's for the string it read (which ends at the first unescaped quote).
            if let skipped {
                let content = Array(text[1..<(skipped.end - 1)])
                #expect(skipped.plain == content.allSatisfy { $0 >= 0x20 && $0 < 0x7F && $0 != 0x5C }, "\(bytes)")
            }
        }
    }

    // MARK: Differential fuzzing against the full parser

    /// Seeded random ID-token-like payloads, then the same with random byte
    /// edits: the scan either agrees with the full parser or leaves the text to it.
    @Test func randomPayloadsAndMutationsAgree() throws {
        var rng = JSONParserTests.SeededGenerator(state: 0x5343_414E_4944_544B)
        let names = Claim.allCases.map(\.name) + ["custom", "address", "groups", "x"]
        let bytes: [UInt8] = Array(#"{}[]":,\0123456789.eE+-tfnul aé"#.utf8)
        var accepted = 0
        var mutatedAccepted = 0
        var valid = 0
        for round in 0..<3_000 {
            // Every third round starts from a complete, valid set of claims, so
            // that accepted claims are compared too, not only refusals.
            var object: [String: JSONMemberValue] = round.isMultiple(of: 3) ? TestIDP.claims() : [:]
            for _ in 0..<Int.random(in: 0...(round.isMultiple(of: 3) ? 3 : 10), using: &rng) {
                // Mostly plain names the scan reads; sometimes any string, which it leaves to the parser.
                let name =
                    switch Int.random(in: 0..<10, using: &rng) {
                    case 0..<5: names.randomElement(using: &rng)!
                    case 5..<9: "k\(Int.random(in: 0..<40, using: &rng))"
                    default: JSONParserTests.randomString(&rng)
                    }
                object[name] = JSONParserTests.randomValue(&rng, depth: 1)
            }
            let encoder = JSONEncoder()
            if round.isMultiple(of: 2) { encoder.outputFormatting = [.prettyPrinted, .sortedKeys] }
            let text = Array(try encoder.encode(JSONMemberValue.object(object)))
            if Self.scan(text) != nil { accepted += 1 }
            if (try? IDTokenClaims(claims: object)) != nil { valid += 1 }
            Self.expectAgreement(text, "round \(round)")
            var mutated = text
            for _ in 0..<Int.random(in: 1...3, using: &rng) where !mutated.isEmpty {
                let at = Int.random(in: 0..<mutated.count, using: &rng)
                switch Int.random(in: 0..<3, using: &rng) {
                case 0: mutated[at] = bytes.randomElement(using: &rng)!
                case 1: mutated.remove(at: at)
                default: mutated.insert(bytes.randomElement(using: &rng)!, at: at)
                }
            }
            if Self.scan(mutated) != nil { mutatedAccepted += 1 }
            Self.expectAgreement(mutated, "round \(round), mutated: \(String(decoding: mutated, as: UTF8.self))")
        }
        // The fuzzing must exercise the scan, not only its refusals.
        #expect(accepted > 1_500)
        #expect(mutatedAccepted > 100)
        #expect(valid > 300)
    }

    // MARK: Through the verifier

    /// A token the scan reads and the same claims in a token it leaves to
    /// `CompactJWS` (an escaped member name) verify to equal claims.
    @Test func bothPathsVerifyToTheSameClaims() async throws {
        let idp = try TestIDP(keys: [SigningKey.ec256.jwk(kid: "ec1")])
        var claims = TestIDP.claims()
        claims["name"] = .string("Ann")
        claims["address"] = .object(["country": .string("NL")])
        let plain = jsonText(claims)
        let escaped = plain.replacingOccurrences(of: #""name""#, with: #""n\u0061me""#)
        #expect(escaped != plain)
        let header = #"{"alg":"ES256","kid":"ec1"}"#
        #expect(ScannedIDToken.reads(try jws(headerJSON: header, payloadJSON: plain, key: .ec256, alg: "ES256")))
        #expect(!ScannedIDToken.reads(try jws(headerJSON: header, payloadJSON: escaped, key: .ec256, alg: "ES256")))

        var results: [IDTokenClaims] = []
        var tokens: [String] = []
        for payload in [plain, escaped] {
            let token = try jws(headerJSON: header, payloadJSON: payload, key: .ec256, alg: "ES256")
            tokens.append(token)
            results.append(try await idp.verifier().verify(token, rules: TestIDP.rules(), accessToken: nil, now: TestIDP.now))
        }
        #expect(results[0] == results[1])
        // The claims keep the token for `all`, but printing them never shows it.
        let token = tokens[0]
        let signature = String(token.split(separator: ".")[2])
        for text in [
            String(describing: results[0]), String(reflecting: results[0]),
            {
                var out = ""
                dump(results[0], to: &out)
                return out
            }(),
        ] {
            #expect(!text.contains(signature) && !text.contains(token.prefix(20)), "\(text)")
            #expect(text.contains("user-1"))
        }
        #expect(results[0].name == "Ann")
        #expect(results[0].all == claims)
        #expect(results[1].all == claims)
        // A stored credential encodes the same either way and decodes back equal.
        let encoded = try results.map { try JSONEncoder().encode($0) }
        #expect(try JSONDecoder().decode(IDTokenClaims.self, from: encoded[0]) == results[1])
        #expect(try JSONDecoder().decode(IDTokenClaims.self, from: encoded[1]) == results[0])
    }

    /// Swift compares strings by canonical equivalence; the byte-wise shortcut
    /// is only taken for plain ASCII, so non-ASCII values compare the same way
    /// on both paths.
    @Test(arguments: [#""e\u0301""#, "\"\u{E9}\"", "\"e\u{301}\"", #""\u00e9""#])
    func nonASCIIValuesCompareAsStrings(_ value: String) throws {
        var claims = TestIDP.claims()
        claims["aud"] = nil
        claims["nonce"] = nil
        let text = jsonText(claims).dropLast() + #","aud":\#(value),"azp":\#(value),"nonce":\#(value)}"#
        let payload = try #require(PayloadClaims.scan(Array(text.utf8)))
        let scanned = try IDTokenClaims(payload)
        let parsed = try IDTokenClaims(claims: try #require(JSONMemberValue.object(from: Data(text.utf8))))
        for probe in ["\u{E9}", "e\u{301}"] {
            #expect(scanned.audienceContains(probe) == parsed.audienceContains(probe))
            #expect(scanned.audienceContains(probe)) // canonically equivalent
            #expect(scanned.authorizedPartyEquals(probe) == parsed.authorizedPartyEquals(probe))
            #expect(scanned.nonceMatches(probe) == parsed.nonceMatches(probe)) // bytes, not equivalence
        }
    }

    /// A plain ASCII claim against an expected value that is not ASCII but
    /// canonically equivalent (the Kelvin sign is "K", the Greek question
    /// mark is ";"): equal as Swift strings on both paths; different bytes
    /// that are both plain are different.
    @Test(arguments: [
        ("K-app", "\u{212A}-app", true), ("a;b", "a\u{37E}b", true), ("K-app", "k-app", false),
        ("app", "app\u{301}", false), ("app", "ap", false), ("", "\u{212A}", false),
    ])
    func plainValuesAgainstNonASCIIExpectations(_ value: String, _ probe: String, _ equal: Bool) throws {
        var claims = TestIDP.claims()
        claims["aud"] = .string(value)
        claims["azp"] = .string(value)
        claims["iss"] = .string(value)
        let text = jsonText(claims)
        let scanned = try IDTokenClaims(try #require(PayloadClaims.scan(Array(text.utf8))))
        let parsed = try IDTokenClaims(claims: try #require(JSONMemberValue.object(from: Data(text.utf8))))
        #expect(scanned.audienceContains(probe) == equal)
        #expect(parsed.audienceContains(probe) == equal)
        #expect(scanned.authorizedPartyEquals(probe) == equal)
        #expect(parsed.authorizedPartyEquals(probe) == equal)
        #expect(scanned.issuerEquals(probe) == equal)
        #expect(parsed.issuerEquals(probe) == equal)
    }

    /// The header scan reads `alg`, `kid` and `crit` as `CompactJWS` does.
    @Test(arguments: [
        #"{"alg":"ES256","kid":"ec1"}"#, #"{"kid":"ec1","typ":"JWT","alg":"ES256","x":{"y":[1]}}"#,
        #"{"alg":"ES256","kid":7}"#, #"{"alg":"ES256","kid":"e\u00631"}"#,
        #"{"alg":"ES256","kid":"ec1","crit":["exp"]}"#, #"{"alg":"ES256","crit":null}"#,
    ])
    func headerScanMatchesCompactJWS(_ header: String) throws {
        let token = try jws(headerJSON: header, payloadJSON: jsonText(TestIDP.claims()), key: .ec256, alg: "ES256")
        let parsed = try CompactJWS(token)
        let read = try ScannedIDToken.scan(token) { scanned throws in
            #expect(scanned.algorithm == parsed.algorithm)
            #expect(scanned.knownAlgorithm == parsed.knownAlgorithm)
            #expect(scanned.keyID == parsed.keyID)
            #expect(scanned.hasCriticalHeader == parsed.hasCriticalHeader)
            #expect(scanned.withSignedParts { input, _ in Array(input) } == parsed.signingInput)
            #expect(scanned.withSignedParts { _, signature in Array(signature) } == parsed.signature)
            #expect(try IDTokenClaims(scanned.claims) == IDTokenClaims(claims: parsed.claims))
        }
        #expect(read)
    }

    /// More than three segments: the scan refuses them (its signature decoder
    /// refuses a dot) and the full path reports them as malformed.
    @Test func extraSegmentsAreLeftToTheFullPath() async throws {
        let idp = try TestIDP(keys: [SigningKey.ec256.jwk(kid: "ec1")])
        let token = try jws(headerJSON: #"{"alg":"ES256","kid":"ec1"}"#, payloadJSON: jsonText(TestIDP.claims()), key: .ec256, alg: "ES256")
        #expect(ScannedIDToken.reads(token))
        for extended in [token + ".", token + ".x", token + "..", token.replacingOccurrences(of: ".", with: "..")] {
            #expect(!ScannedIDToken.reads(extended))
            await expectError(.idTokenInvalid, reason: .malformed) {
                try await idp.verifier().verify(extended, rules: TestIDP.rules(), accessToken: nil, now: TestIDP.now)
            }
        }
    }

    /// An `alg` written with escapes is left to the full path, which reads it
    /// as the algorithm it names.
    @Test func escapedAlgorithmIsReadByTheFullPath() async throws {
        let idp = try TestIDP(keys: [SigningKey.ec256.jwk(kid: "ec1")])
        let token = try jws(
            headerJSON: #"{"alg":"ES\u0032\u00356","kid":"ec1"}"#, payloadJSON: jsonText(TestIDP.claims()),
            key: .ec256, alg: "ES256")
        #expect(!ScannedIDToken.reads(token))
        #expect(try CompactJWS(token).knownAlgorithm == .es256)
        let claims = try await idp.verifier().verify(token, rules: TestIDP.rules(), accessToken: nil, now: TestIDP.now)
        #expect(claims.subject == "user-1")
    }

    /// Errors found only by the full path keep their exact reasons.
    @Test func headerTheScanLeavesIsStillCheckedExactly() async throws {
        let idp = try TestIDP(keys: [SigningKey.ec256.jwk(kid: "ec1")])
        for (header, reason) in [
            (#"{"alg":"ES256","\u0061lg":"none","kid":"ec1"}"#, AuthFlowError.Reason.malformed),
            (#"{"\u0061lg":"none","kid":"ec1"}"#, .algorithm),
            (#"{"alg":"ES256","kid":"ec1","\u0063rit":["x"]}"#, .malformed),
            // The scan reads only an alg it can verify, as a plain string.
            (#"{"kid":"ec1"}"#, .malformed), (#"{"alg":["ES256"],"kid":"ec1"}"#, .malformed),
            (#"{"alg":null,"kid":"ec1"}"#, .malformed), (#"{"alg":"none","kid":"ec1"}"#, .algorithm),
            (#"{"alg":"ES512","kid":"ec1"}"#, .algorithm), (#"{"alg":"ES2566","kid":"ec1"}"#, .algorithm),
            (#"{"alg":"es256","kid":"ec1"}"#, .algorithm), (#"{"alg":"","kid":"ec1"}"#, .algorithm),
        ] {
            let token = try jws(headerJSON: header, payloadJSON: jsonText(TestIDP.claims()), key: .ec256, alg: "ES256")
            #expect(!ScannedIDToken.reads(token))
            await expectError(.idTokenInvalid, reason: reason) {
                try await idp.verifier().verify(token, rules: TestIDP.rules(), accessToken: nil, now: TestIDP.now)
            }
        }
    }
}

extension ScannedIDToken {
    /// Whether the scan reads `token`, so that the verifier's fast path takes it.
    static func reads(_ token: String) -> Bool { scan(token) { _ in } }
}
