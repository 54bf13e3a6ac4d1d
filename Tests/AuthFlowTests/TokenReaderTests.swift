import AuthFlowTestSupport
import Foundation
import Testing

@testable import AuthFlow

/// `JSONObjectReader`, the reader of every signed token, against `JSONParser`:
/// it accepts exactly the objects the parser reads, refuses everything else
/// with the parser's own failure, and reads every member as the parser's
/// dictionary does; `IDTokenClaims` over it equals the claims made from the
/// parser's dictionary, or is refused with the same error.
@Suite("Token reader")
struct TokenReaderTests {
    /// The reader's result for `text`.
    static func read(_ text: [UInt8]) -> Result<JSONObjectReader, JSONParser.Failure> {
        Result { () throws(JSONParser.Failure) in try JSONObjectReader(text) }
    }

    /// The reader and the parser agree on `text`: same acceptance, same
    /// failure, same members, same `IDTokenClaims` (or the same error), down to
    /// the comparisons the OIDC rules make.
    static func expectAgreement(_ text: [UInt8], _ comment: @autoclosure () -> String, sourceLocation: SourceLocation = #_sourceLocation) {
        let parsed = Result { () throws(JSONParser.Failure) in try JSONParser.parse(text) }
        switch (parsed, read(text)) {
        case (.success(.object(let object)), .success(let reader)):
            #expect(reader.all == object, "\(comment())", sourceLocation: sourceLocation)
            for name in Array(object.keys) + ["iss", "aud", "missing", "", "é", "e\u{301}", "\u{212A}", "K"] {
                #expect(reader.value(name) == object[name], "\(name): \(comment())", sourceLocation: sourceLocation)
                #expect(reader.string(name) == object[name]?.stringValue, "\(name): \(comment())", sourceLocation: sourceLocation)
                #expect(reader.number(name) == object[name]?.numberValue, "\(name): \(comment())", sourceLocation: sourceLocation)
            }
            expectSameClaims(reader, object, comment(), sourceLocation: sourceLocation)
        case (.success(.object), .failure(let failure)):
            Issue.record("the reader refused an object (\(failure)): \(comment())", sourceLocation: sourceLocation)
        case (.success, .success), (.failure, .success):
            Issue.record("the reader accepted what is not a JSON object: \(comment())", sourceLocation: sourceLocation)
        case (.success, .failure):
            break
        case (.failure(let expected), .failure(let failure)):
            #expect(failure == expected, "\(comment())", sourceLocation: sourceLocation)
        }
    }

    static func expectSameClaims(
        _ reader: JSONObjectReader, _ object: [String: JSONMemberValue], _ comment: @autoclosure () -> String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        switch (Result { try IDTokenClaims(reader) }, Result { try IDTokenClaims(claims: object) }) {
        case (.success(let a), .success(let b)):
            #expect(a == b, "\(comment())", sourceLocation: sourceLocation)
            for probe in ["app", "https://idp.example", "N-1", "", "é", "x\"y", b.issuer, b.audience.first ?? "-", b.nonce ?? "-"] {
                #expect(a.issuerEquals(probe) == (b.issuer == probe), sourceLocation: sourceLocation)
                #expect(a.audienceContains(probe) == b.audience.contains(probe), sourceLocation: sourceLocation)
                #expect(a.authorizedPartyEquals(probe) == (b.authorizedParty == probe), sourceLocation: sourceLocation)
                #expect(a.nonceMatches(probe) == b.nonce.map { constantTimeEquals($0, probe) }, sourceLocation: sourceLocation)
            }
            #expect(
                a.audienceCount == b.audience.count && a.hasAuthorizedParty == (b.authorizedParty != nil), sourceLocation: sourceLocation)
        case (.failure(let a), .failure(let b)):
            #expect(a as? AuthFlowError == b as? AuthFlowError, "\(comment())", sourceLocation: sourceLocation)
        default:
            Issue.record("one reading accepted the claims, the other refused them: \(comment())", sourceLocation: sourceLocation)
        }
    }

    /// The reader of `text`, which must read.
    static func reader(_ text: String) throws -> JSONObjectReader {
        try read(Array(text.utf8)).get()
    }

    /// The failure the reader gives `text`, which must be refused.
    static func failure(_ text: String) -> JSONParser.Failure? {
        if case .failure(let failure) = read(Array(text.utf8)) { return failure }
        return nil
    }

    // MARK: Fixed documents

    @Test func readsTheTypedClaimsOfAnIDToken() throws {
        let text =
            #" { "iss" : "https://id.example" , "sub":"u-1","aud":["a","b"],"exp":1700000300,"iat":1.7e9,"auth_time":1699999000,"nonce":"n\"1","azp":"a","at_hash":"h","acr":"0","amr":["pwd"],"name":"Ann","email":"a@b","preferred_username":"ann","address":{"country":"NL"},"groups":[1,[2,{"x":null}]],"ok":true} "#
        let claims = try IDTokenClaims(try Self.reader(text))
        #expect(claims.issuer == "https://id.example")
        #expect(claims.audience == ["a", "b"] && claims.audienceCount == 2)
        #expect(claims.issuedAt == Date(timeIntervalSince1970: 1.7e9))
        #expect(claims.nonce == "n\"1")
        #expect(claims.authenticationMethods == ["pwd"])
        #expect(claims.preferredUsername == "ann")
        Self.expectAgreement(Array(text.utf8), text)
    }

    /// Each typed claim of the wrong type is refused with its own reason and
    /// message, in the order the rules check them.
    @Test(arguments: [
        (#""iss":1"#, AuthFlowError.Reason.issuer, "the iss claim is not a string"),
        (#""sub":["s"]"#, .subject, "the sub claim is not a string"), (#""sub":"""#, .subject, "the ID token has no sub"),
        (#""aud":[1]"#, .audience, "the ID token has no valid aud"), (#""aud":[]"#, .audience, "the ID token has no valid aud"),
        (#""exp":"1""#, .expired, "the exp claim is not a number"), (#""iat":null"#, .issuedAt, "the iat claim is not a number"),
        (#""auth_time":true"#, .authTime, "the auth_time claim is not a number"),
        (#""nonce":{}"#, .nonce, "the nonce claim is not a string"), (#""azp":2"#, .authorizedParty, "the azp claim is not a string"),
        (#""at_hash":[]"#, .atHash, "the at_hash claim is not a string"), (#""acr":false"#, .malformed, "the acr claim is not a string"),
    ])
    func wrongTypesAreRefusedExactly(_ member: String, _ reason: AuthFlowError.Reason, _ message: String) throws {
        var claims = TestIDP.claims()
        claims[String(member.dropFirst().prefix { $0 != "\"" })] = nil
        let text = String(jsonText(claims).dropLast()) + "," + member + "}"
        let error = #expect(throws: AuthFlowError.self) { try IDTokenClaims(try Self.reader(text)) }
        #expect(error?.category == .idTokenInvalid && error?.reason == reason && error?.message == message, "\(member)")
        Self.expectAgreement(Array(text.utf8), text)
    }

    /// Names with escapes or outside ASCII are read, and found by any
    /// spelling Swift counts as the same string.
    @Test func escapedAndNonASCIINamesAreRead() throws {
        let reader = try Self.reader(#"{"\u0069ss":"x","\u00e9":1,"\u212a":"kelvin","a\/b":true,"\"q\"":null}"#)
        #expect(reader.string("iss") == "x" && reader.string("iss", equals: "x") && reader.contains("iss"))
        #expect(reader.number("é") == 1 && reader.number("e\u{301}") == 1 && reader.kind("\u{E9}") == .number)
        #expect(reader.string("K") == "kelvin" && reader.string("\u{212A}") == "kelvin")
        #expect(reader.value("a/b") == .bool(true) && reader.value("\"q\"") == .null && reader.kind("\"q\"") == .other)
        #expect(reader.value("a\\/b") == nil && reader.value("k") == nil)
        let plain = try Self.reader("{\"K\":1,\"\u{E9}\":2}")
        #expect(plain.number("\u{212A}") == 1 && plain.number("e\u{301}") == 2 && plain.number("é") == 2)
    }

    /// Duplicate names, however they are spelled, are refused with the
    /// parser's own failure: the name as the later member spells it, at the
    /// object's closing brace, after any other error inside the object.
    @Test(arguments: [
        (#"{"a":1,"a":2}"#, "a", 12), (#"{"a":1,"\u0061":2}"#, "a", 17), ("{\"\u{E9}\":1,\"e\u{301}\":2}", "e\u{301}", 15),
        ("{\"K\":1,\"\u{212A}\":2}", "\u{212A}", 14), (#"{"":1,"":2}"#, "", 10), (#"{"x":1,"y":{"z":1,"z":2},"x":3}"#, "z", 23),
    ])
    func duplicatesAreRefusedExactly(_ text: String, _ name: String, _ offset: Int) {
        #expect(Self.failure(text) == JSONParser.Failure(kind: .duplicateName(name), offset: offset))
        Self.expectAgreement(Array(text.utf8), text)
        // A later error inside the object is the one reported (unless a nested object ended first), as by the parser.
        let broken = String(text.dropLast()) + #","b":01}"#
        #expect(Self.failure(broken)?.kind == (name == "z" ? .duplicateName(name) : .invalidNumber))
        Self.expectAgreement(Array(broken.utf8), broken)
    }

    /// Any number of members is read; a repeated name among many, plain or
    /// not, is still found.
    @Test(arguments: [0, 1, 31, 32, 33, 64, 1_000, 20_000])
    func anyNumberOfMembersIsRead(_ count: Int) throws {
        let members = (0..<count).map { #""c\#($0)":\#($0)"# }
        let reader = try Self.reader("{" + members.joined(separator: ",") + "}")
        #expect(reader.all.count == count)
        if count > 0 { #expect(reader.number("c\(count - 1)") == Double(count - 1)) }
        for repeated in [#""c0":0"#, #""\u0063\#(max(count - 1, 0))":0"#] where count > 0 {
            let text = "{" + (members + [repeated]).joined(separator: ",") + "}"
            #expect(Self.failure(text)?.kind == .duplicateName(repeated.hasPrefix(#""c"#) ? "c0" : "c\(count - 1)"))
            if count <= 1_000 { Self.expectAgreement(Array(text.utf8), "\(count) members") }
        }
    }

    /// Numbers too large for a finite `Double` are refused where they stand;
    /// the largest finite ones, and very long digit strings, read as the parser reads them.
    @Test func hugeNumbersAreRefusedExactly() throws {
        #expect(Self.failure(#"{"exp":1e400}"#)?.kind == .invalidNumber)
        #expect(Self.failure(#"{"exp":-1.8e308}"#)?.kind == .invalidNumber)
        #expect(try Self.reader(#"{"exp":1.7976931348623157e308}"#).number("exp") == .greatestFiniteMagnitude)
        let long = #"{"exp":1"# + String(repeating: "0", count: 300) + "}"
        #expect(try Self.reader(long).number("exp") == 1e300)
        for text in [#"{"exp":1e400}"#, long, #"{"exp":1e-400}"#, #"{"exp":-0}"#] { Self.expectAgreement(Array(text.utf8), text) }
    }

    /// What is not one JSON object is refused with the parser's failure, or
    /// (JSON, but not an object) at its first byte.
    @Test(arguments: ["[]", "\"s\"", " 1", "{", "", "{}x", "{\"a\"}", "{\"a\":}", "\u{FEFF}{}"])
    func notAnObjectIsRefused(_ document: String) {
        #expect(Self.failure(document) != nil)
        Self.expectAgreement(Array(document.utf8), document)
    }

    /// Every invalid text of the parser's own tests, as a member's value and
    /// as the whole payload, is refused with the parser's failure.
    @Test(arguments: JSONParserTests.invalidDocuments)
    func refusesWhatTheParserRefuses(_ reason: String, _ document: String) {
        for text in [document, #"{"name":\#(document)}"#, #"{"other":\#(document)}"#, #"{"other":[1,\#(document)]}"#] {
            #expect(Self.failure(text) != nil, "\(reason): \(text)")
            Self.expectAgreement(Array(text.utf8), text)
        }
    }

    @Test(arguments: JSONParserTests.invalidUTF8)
    func refusesInvalidUTF8InNamesAndValues(_ reason: String, _ bytes: [UInt8]) {
        for prefix in [#"{"name":"#, #"{"other":"#, "{"] {
            let text = Array(prefix.utf8) + bytes + Array((prefix == "{" ? ":1}" : "}").utf8)
            #expect((try? JSONObjectReader(text)) == nil, "\(reason)")
            Self.expectAgreement(text, reason)
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
        #expect((try? Self.reader(fits)) != nil)
        #expect(Self.failure(deeper)?.kind == .tooDeep)
        Self.expectAgreement(Array(deeper.utf8), "too deep")
        // Deep inside a long array, and in a name's object value.
        let wide =
            #"{"a":["# + String(repeating: "1,", count: 1_000) + String(repeating: "{\"b\":", count: depth) + "1"
            + String(repeating: "}", count: depth) + "]}"
        #expect(Self.failure(wide)?.kind == .tooDeep)
        Self.expectAgreement(Array(wide.utf8), "too deep in an array")
    }

    /// The word-at-a-time byte tests agree with a byte-by-byte loop.
    @Test func wordAtATimeChecksAgreeWithBytes() {
        var rng = SeededGenerator(state: 0x5357_4152)
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
    /// edits: the reader agrees with the parser on each.
    @Test func randomPayloadsAndMutationsAgree() throws {
        var rng = SeededGenerator(state: 0x5343_414E_4944_544B)
        let names = [
            "iss", "sub", "aud", "exp", "iat", "auth_time", "nonce", "azp", "at_hash", "acr", "amr", "name", "email",
            "preferred_username", "custom", "address", "groups", "x",
        ]
        let bytes: [UInt8] = Array(#"{}[]":,\0123456789.eE+-tfnul aé"#.utf8)
        var accepted = 0
        var mutatedAccepted = 0
        var valid = 0
        for round in 0..<3_000 {
            // Every third round starts from a complete, valid set of claims, so
            // that accepted claims are compared too, not only refusals.
            var object: [String: JSONMemberValue] = round.isMultiple(of: 3) ? TestIDP.claims() : [:]
            for _ in 0..<Int.random(in: 0...(round.isMultiple(of: 3) ? 3 : 10), using: &rng) {
                // Mostly plain names; sometimes any string.
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
            if (try? JSONObjectReader(text)) != nil { accepted += 1 }
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
            if (try? JSONObjectReader(mutated)) != nil { mutatedAccepted += 1 }
            Self.expectAgreement(mutated, "round \(round), mutated: \(String(decoding: mutated, as: UTF8.self))")
        }
        // The fuzzing must exercise the reader, not only its refusals.
        #expect(accepted == 3_000)
        #expect(mutatedAccepted > 100)
        #expect(valid > 300)
    }

    // MARK: Through the verifier

    /// The same claims with a plain and an escaped member name verify to equal claims.
    @Test func escapedNamesVerifyToTheSameClaims() async throws {
        let idp = try TestIDP(keys: [SigningKey.ec256.jwk(kid: "ec1")])
        var claims = TestIDP.claims()
        claims["name"] = .string("Ann")
        claims["address"] = .object(["country": .string("NL")])
        let plain = jsonText(claims)
        let escaped = plain.replacingOccurrences(of: #""name""#, with: #""n\u0061me""#)
        #expect(escaped != plain)
        let header = #"{"alg":"ES256","kid":"ec1"}"#

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

    /// Claim strings compare byte for byte (RFC 7519 §7.3), escaped or not:
    /// `é` (U+00E9) and `e` + U+0301, equal for Swift's `==`, are different
    /// audiences.
    @Test(arguments: [#""e\u0301""#, "\"\u{E9}\"", "\"e\u{301}\"", #""\u00e9""#])
    func nonASCIIValuesCompareByteForByte(_ value: String) throws {
        var claims = TestIDP.claims()
        claims["aud"] = nil
        claims["nonce"] = nil
        let text = jsonText(claims).dropLast() + #","aud":\#(value),"azp":\#(value),"nonce":\#(value)}"#
        let scanned = try IDTokenClaims(try Self.reader(String(text)))
        let parsed = try IDTokenClaims(claims: try #require(JSONMemberValue.object(from: Data(text.utf8))))
        let decoded = try #require(parsed.audience.first)
        for probe in ["\u{E9}", "e\u{301}"] {
            let same = decoded.utf8.elementsEqual(probe.utf8)
            #expect(probe == decoded) // Swift's String comparison calls them equal
            #expect(scanned.audienceContains(probe) == same)
            #expect(parsed.audienceContains(probe) == same)
            #expect(scanned.authorizedPartyEquals(probe) == same)
            #expect(scanned.nonceMatches(probe) == parsed.nonce.map { constantTimeEquals($0, probe) }) // bytes, not equivalence
        }
    }

    /// A plain ASCII claim against an expected value that is not ASCII but
    /// canonically equivalent (the Kelvin sign is "K", the Greek question
    /// mark is ";"): equal as Swift strings, different claims (RFC 7519
    /// §7.3 compares without canonicalisation); the same bytes are equal.
    @Test(arguments: [
        ("K-app", "\u{212A}-app", false), ("a;b", "a\u{37E}b", false), ("K-app", "K-app", true), ("K-app", "k-app", false),
        ("app", "app\u{301}", false), ("app", "ap", false), ("", "\u{212A}", false),
    ])
    func plainValuesAgainstNonASCIIExpectations(_ value: String, _ probe: String, _ equal: Bool) throws {
        var claims = TestIDP.claims()
        claims["aud"] = .string(value)
        claims["azp"] = .string(value)
        claims["iss"] = .string(value)
        let text = jsonText(claims)
        let scanned = try IDTokenClaims(try Self.reader(text))
        #expect(scanned.audienceContains(probe) == equal)
        #expect(scanned.authorizedPartyEquals(probe) == equal)
        #expect(scanned.issuerEquals(probe) == equal)
    }

    /// The header's `alg`, `kid`, `typ` and `crit` read as the parser reads the header.
    @Test(arguments: [
        #"{"alg":"ES256","kid":"ec1"}"#, #"{"kid":"ec1","typ":"JWT","alg":"ES256","x":{"y":[1]}}"#,
        #"{"alg":"ES256","kid":7}"#, #"{"alg":"ES256","kid":"e\u00631"}"#,
        #"{"alg":"ES256","kid":"ec1","crit":["exp"]}"#, #"{"alg":"ES256","crit":null}"#, #"{"\u0061lg":"ES256","t\u0079p":"at+jwt"}"#,
    ])
    func headerReadsAsTheParserReadsIt(_ header: String) throws {
        let token = try jws(headerJSON: header, payloadJSON: jsonText(TestIDP.claims()), key: .ec256, alg: "ES256")
        let read = try CompactJWS(token)
        let parsed = try #require(JSONMemberValue.object(from: Data(header.utf8)))
        #expect(read.header == parsed)
        #expect(read.algorithm == parsed["alg"]?.stringValue && read.knownAlgorithm == .es256)
        #expect(read.keyID == parsed["kid"]?.stringValue && read.type == parsed["typ"]?.stringValue)
        #expect(read.hasCriticalHeader == (parsed["crit"] != nil))
        let parts = token.split(separator: ".")
        #expect(read.signingInput == Array((parts[0] + "." + parts[1]).utf8))
        #expect(read.signature == Base64URL.decode(parts[2]))
    }

    /// More than three segments are malformed.
    @Test func extraSegmentsAreRefused() async throws {
        let idp = try TestIDP(keys: [SigningKey.ec256.jwk(kid: "ec1")])
        let token = try jws(headerJSON: #"{"alg":"ES256","kid":"ec1"}"#, payloadJSON: jsonText(TestIDP.claims()), key: .ec256, alg: "ES256")
        for extended in [token + ".", token + ".x", token + "..", token.replacingOccurrences(of: ".", with: "..")] {
            await expectError(.idTokenInvalid, reason: .malformed) {
                try await idp.verifier().verify(extended, rules: TestIDP.rules(), accessToken: nil, now: TestIDP.now)
            }
        }
    }

    /// An `alg` written with escapes is the algorithm it names.
    @Test func escapedAlgorithmIsRead() async throws {
        let idp = try TestIDP(keys: [SigningKey.ec256.jwk(kid: "ec1")])
        let token = try jws(
            headerJSON: #"{"alg":"ES\u0032\u00356","kid":"ec1"}"#, payloadJSON: jsonText(TestIDP.claims()),
            key: .ec256, alg: "ES256")
        #expect(try CompactJWS(token).knownAlgorithm == .es256)
        let claims = try await idp.verifier().verify(token, rules: TestIDP.rules(), accessToken: nil, now: TestIDP.now)
        #expect(claims.subject == "user-1")
    }

    /// Every header rule refuses with its exact reason, however the header is spelled.
    @Test func headerIsCheckedExactly() async throws {
        let idp = try TestIDP(keys: [SigningKey.ec256.jwk(kid: "ec1")])
        for (header, reason) in [
            (#"{"alg":"ES256","\u0061lg":"none","kid":"ec1"}"#, AuthFlowError.Reason.malformed),
            (#"{"alg":"ES256","kid":"ec1","kid":"ec1"}"#, .malformed),
            (#"{"\u0061lg":"none","kid":"ec1"}"#, .algorithm),
            (#"{"alg":"ES256","kid":"ec1","\u0063rit":["x"]}"#, .malformed),
            (#"{"kid":"ec1"}"#, .malformed), (#"{"alg":["ES256"],"kid":"ec1"}"#, .malformed),
            (#"{"alg":null,"kid":"ec1"}"#, .malformed), (#"{"alg":"none","kid":"ec1"}"#, .algorithm),
            (#"{"alg":"ES512","kid":"ec1"}"#, .algorithm), (#"{"alg":"ES2566","kid":"ec1"}"#, .algorithm),
            (#"{"alg":"es256","kid":"ec1"}"#, .algorithm), (#"{"alg":"","kid":"ec1"}"#, .algorithm),
        ] {
            let token = try jws(headerJSON: header, payloadJSON: jsonText(TestIDP.claims()), key: .ec256, alg: "ES256")
            await expectError(.idTokenInvalid, reason: reason) {
                try await idp.verifier().verify(token, rules: TestIDP.rules(), accessToken: nil, now: TestIDP.now)
            }
        }
    }
}
