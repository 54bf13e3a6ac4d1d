import AuthFlowTestSupport
import Foundation
import Testing

@testable import AuthFlow

/// `JSONParser`: agreement with Foundation on valid JSON, strictness on invalid
/// JSON, and a seeded random round trip through `JSONEncoder`.
@Suite("JSONParser")
struct JSONParserTests {
    // MARK: Agreement with JSONSerialization

    static let validDocuments: [String] = [
        #"{}"#,
        #"[]"#,
        #"  { "a" : [ 1 , 2 , { "b" : null } ] , "c" : "d" }  "#,
        "\t\r\n{\"ws\":\n[\r1\t]}\n",
        #"{"nested":{"deeper":{"deepest":[[[[{"x":[true,false,null]}]]]]}}}"#,
        #"{"unicode":"héllo wörld ☃ 😀 中文","ключ":"значение","🔑":"🗝"}"#,
        #"{"escapes":"\" \\ \/ \b \f \n \r \t","u":"\u00e9\u2603\u0041","pair":"\ud83d\ude00","nul":"a\u0000b"}"#,
        #"{"\u0073ub":"escaped name","s\\b":"backslash in a name"}"#,
        #"{"slash":"a\/b","upper":"\u00C9\uD83D\uDE00"}"#,
        #"[0,-0,1,-1,1e3,1E3,1e+3,1e-3,-0.0,1.5E-2,0.1,123.456e-7,1.7976931348623157e308,5e-324,2.2250738585072014E-308]"#,
        // (0.30000000000000004 is left out: Foundation on Linux reads it as 0.3000000000000001,
        // one ulp off; `numbersAreCorrectlyRounded` checks it against `Double(_:)`.)
        #"[9007199254740993,12345678901234567890,-9223372036854775808,3.141592653589793238462643383279]"#,
        #"[1e22,1e23,1e-22,1e-23,123456789012345,1234567890123456,0.000001,100000000000000000000000]"#,
        #"{"iss":"https://id.example.com","sub":"248289761001","aud":["client","other"],"exp":1311281970,"iat":1311280970,"amr":["pwd","mfa"],"email_verified":true}"#,
        #""just a string""#,
        #"42"#,
        #"-1.25e-1"#,
        #"true"#,
        #"null"#,
        #"[{},[],{"":""},[""]]"#,
    ]

    @Test(arguments: validDocuments)
    func agreesWithJSONSerialization(_ document: String) throws {
        let foundation = try JSONSerialization.jsonObject(with: Data(document.utf8), options: [.fragmentsAllowed])
        let expected = try #require(Self.jsonValue(foundation), "unexpected Foundation value for \(document)")
        let parsed = try JSONParser.parse(Array(document.utf8))
        #expect(parsed == expected, "\(document)")
    }

    @Test func negativeZeroKeepsItsSign() throws {
        let parsed = try JSONParser.parse(Array("[-0,-0.0,-0e5]".utf8))
        for value in try #require(parsed.arrayValue) {
            let number = try #require(value.numberValue)
            #expect(number == 0 && number.sign == .minus)
        }
    }

    @Test func numbersAreCorrectlyRounded() throws {
        let texts = [
            "0.1", "1.5E-2", "1e3", "2.2250738585072014E-308", "9007199254740993", "0.30000000000000004",
            "123456789.123456789", "1e-7", "4.9406564584124654e-324", "1.7976931348623157e308", "7.0e-10",
        ]
        for text in texts {
            #expect(try JSONParser.parse(Array(text.utf8)) == .number(try #require(Double(text))), "\(text)")
        }
    }

    @Test func objectFromDataOnlyAcceptsObjects() {
        #expect(JSONMemberValue.object(from: Data(#"{"a":1}"#.utf8)) == ["a": .number(1)])
        #expect(JSONMemberValue.object(from: Data("[1]".utf8)) == nil)
        #expect(JSONMemberValue.object(from: Data("\"a\"".utf8)) == nil)
        #expect(JSONMemberValue.object(from: Data()) == nil)
        #expect(JSONMemberValue.object(from: Data(#"{"a":1,"a":2}"#.utf8)) == nil)
    }

    // MARK: Rejection

    static let invalidDocuments: [(String, String)] = [
        ("trailing comma in array", "[1,2,]"),
        ("trailing comma in object", #"{"a":1,}"#),
        ("leading zero", "01"),
        ("negative leading zero", "[-01]"),
        ("bare NaN", "NaN"),
        ("NaN in array", "[NaN]"),
        ("Infinity", "[Infinity]"),
        ("negative Infinity", "-Infinity"),
        ("plus sign", "+1"),
        ("fraction without integer", ".5"),
        ("point without fraction", "1."),
        ("exponent without digits", "1e"),
        ("signed exponent without digits", "1e+"),
        ("lone minus", "-"),
        ("hex number", "0x10"),
        ("overflowing number", "1e400"),
        ("unescaped control character", "\"a\u{01}b\""),
        ("unescaped newline", "\"a\nb\""),
        ("unescaped tab", "\"a\tb\""),
        ("lone high surrogate", #""\ud800""#),
        ("lone low surrogate", #""\udc00""#),
        ("high surrogate then letter", #""\ud800\u0041""#),
        ("high surrogate then high surrogate", #""\ud800\ud800""#),
        ("high surrogate at the end", #""\ud83d"#),
        ("unknown escape", #""\x41""#),
        ("short unicode escape", #""\u12""#),
        ("non-hex unicode escape", #""\u12g4""#),
        ("single quotes", "'a'"),
        ("unterminated string", #""abc"#),
        ("unquoted name", "{a:1}"),
        ("missing colon", #"{"a" 1}"#),
        ("missing comma", "[1 2]"),
        ("truncated literal", "tru"),
        ("wrong case literal", "True"),
        ("trailing garbage", "{} x"),
        ("two values", "1 2"),
        ("empty text", ""),
        ("only whitespace", "  \n "),
        ("unclosed array", "[1,2"),
        ("unclosed object", #"{"a":1"#),
        ("comment", "[1] // no"),
        ("duplicate names", #"{"a":1,"a":2}"#),
        ("duplicate names after unescaping", #"{"a":1,"\u0061":2}"#),
        ("duplicate names in a nested object", #"{"x":[{"b":1,"c":{"d":1,"d":1}}]}"#),
        ("depth 65", String(repeating: "[", count: 65) + String(repeating: "]", count: 65)),
        ("depth 1000", String(repeating: "[", count: 1000) + String(repeating: "]", count: 1000)),
        ("depth 1000 of objects", String(repeating: #"{"a":"#, count: 1000) + "1" + String(repeating: "}", count: 1000)),
    ]

    @Test(arguments: invalidDocuments)
    func refusesInvalidJSON(_ reason: String, _ document: String) {
        #expect(throws: JSONParser.Failure.self, "\(reason): \(document)") { try JSONParser.parse(Array(document.utf8)) }
    }

    static let invalidUTF8: [(String, [UInt8])] = [
        ("overlong slash", [0x22, 0xC0, 0xAF, 0x22]),
        ("overlong three-byte", [0x22, 0xE0, 0x80, 0xAF, 0x22]),
        ("encoded surrogate", [0x22, 0xED, 0xA0, 0x80, 0x22]),
        ("above U+10FFFF", [0x22, 0xF4, 0x90, 0x80, 0x80, 0x22]),
        ("truncated sequence", [0x22, 0xE2, 0x82, 0x22]),
        ("lone continuation byte", [0x22, 0x80, 0x22]),
        ("invalid byte", [0x22, 0xFF, 0x22]),
        ("sequence cut by the end", [0x22, 0xF0, 0x9F]),
        ("byte-order mark", [0xEF, 0xBB, 0xBF, 0x7B, 0x7D]),
        ("non-ASCII outside a string", [0x5B, 0xC3, 0xA9, 0x5D]),
    ]

    @Test(arguments: invalidUTF8)
    func refusesInvalidUTF8(_ reason: String, _ bytes: [UInt8]) {
        #expect(throws: JSONParser.Failure.self, "\(reason)") { try JSONParser.parse(bytes) }
    }

    @Test func depthLimitIsExactlyMaximumDepth() throws {
        let depth = JSONParser.maximumDepth
        let deepest = String(repeating: "[", count: depth) + String(repeating: "]", count: depth)
        _ = try JSONParser.parse(Array(deepest.utf8))
        do {
            _ = try JSONParser.parse(Array(("[" + deepest + "]").utf8))
            Issue.record("depth \(depth + 1) was accepted")
        } catch {
            #expect(error.kind == .tooDeep)
        }
    }

    @Test func failuresSayWhatWasWrong() {
        func kind(_ text: String) -> JSONParser.Failure.Kind? {
            do {
                _ = try JSONParser.parse(Array(text.utf8))
                return nil
            } catch { return error.kind }
        }
        #expect(kind(#"{"a":1,"\u0061":2}"#) == .duplicateName("a"))
        #expect(kind(#""\udc00""#) == .loneSurrogate)
        #expect(kind("01") == .invalidNumber)
        #expect(kind("[01]") == .invalidNumber)
        #expect(kind("\"\u{1F}\"") == .controlCharacter)
        #expect(kind(#""\q""#) == .invalidEscape)
        #expect(kind("[1,]") == .unexpectedByte(UInt8(ascii: "]")))
        #expect(kind("[1") == .unexpectedEnd)
        #expect(kind("1 1") == .trailingData)
    }

    // MARK: Random round trip

    /// Characters that exercise escaping: quotes, backslash, slash, control
    /// characters, non-ASCII in all UTF-8 lengths, astral-plane scalars.
    static let alphabet: [Unicode.Scalar] = Array(
        "abcXYZ019 _-.:\"\\/é☃中😀🔑\u{0}\u{1}\u{8}\u{9}\u{A}\u{C}\u{D}\u{1F}\u{7F}\u{80}\u{FFFF}\u{10FFFF}".unicodeScalars)

    static func randomString(_ rng: inout SeededGenerator) -> String {
        var scalars = String.UnicodeScalarView()
        for _ in 0..<Int.random(in: 0...12, using: &rng) { scalars.append(alphabet.randomElement(using: &rng)!) }
        return String(scalars)
    }

    static func randomNumber(_ rng: inout SeededGenerator) -> Double {
        switch Int.random(in: 0..<4, using: &rng) {
        case 0: return Double(Int.random(in: -1_000_000...1_000_000, using: &rng))
        case 1: return Double.random(in: -1...1, using: &rng)
        case 2: return Double(Int64.random(in: .min ... .max, using: &rng))
        default:
            while true {
                let value = Double(bitPattern: rng.next())
                if value.isFinite { return value }
            }
        }
    }

    static func randomValue(_ rng: inout SeededGenerator, depth: Int) -> JSONMemberValue {
        let kinds = depth >= 5 ? 4 : 6
        switch Int.random(in: 0..<kinds, using: &rng) {
        case 0: return .null
        case 1: return .bool(Bool.random(using: &rng))
        case 2: return .number(randomNumber(&rng))
        case 3: return .string(randomString(&rng))
        case 4: return .array((0..<Int.random(in: 0...5, using: &rng)).map { _ in randomValue(&rng, depth: depth + 1) })
        default:
            var object: [String: JSONMemberValue] = [:]
            for _ in 0..<Int.random(in: 0...5, using: &rng) { object[randomString(&rng)] = randomValue(&rng, depth: depth + 1) }
            return .object(object)
        }
    }

    @Test func randomValuesRoundTripThroughJSONEncoder() throws {
        var rng = SeededGenerator(state: 0x4A53_4F4E_5061_7273)
        for round in 0..<500 {
            let value = Self.randomValue(&rng, depth: 0)
            let encoder = JSONEncoder()
            if round.isMultiple(of: 2) { encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes] }
            let encoded = try encoder.encode(value)
            let parsed = try JSONParser.parse(Array(encoded))
            #expect(parsed == value, "round \(round): \(String(decoding: encoded, as: UTF8.self))")
        }
    }

    // MARK: Helpers

    /// A JSONSerialization result as a `JSONMemberValue` (booleans are the NSNumbers whose type is `c`).
    static func jsonValue(_ any: Any) -> JSONMemberValue? {
        switch any {
        case is NSNull: return .null
        case let string as String: return .string(string)
        case let number as NSNumber:
            if String(cString: number.objCType) == "c" { return .bool(number.boolValue) }
            return .number(number.doubleValue)
        case let array as [Any]:
            var values: [JSONMemberValue] = []
            for element in array {
                guard let value = jsonValue(element) else { return nil }
                values.append(value)
            }
            return .array(values)
        case let dictionary as [String: Any]:
            var object: [String: JSONMemberValue] = [:]
            for (name, element) in dictionary {
                guard let value = jsonValue(element) else { return nil }
                object[name] = value
            }
            return .object(object)
        default:
            return nil
        }
    }
}

/// `CompactJWS`'s own base64url decoder and segment split agree with `Base64URL`.
@Suite("CompactJWS decoding")
struct CompactJWSDecodingTests {
    /// The block decoder (`Base64URL.decode(_:into:)`, used by `CompactJWS` and the
    /// ID-token scan) against Foundation's decoder for valid input, and exact answers
    /// for foreign, padded and non-canonical input.
    @Test func base64URLDecoderAgreesWithFoundation() {
        func blockDecode(_ text: String) -> [UInt8]? { Array(text.utf8).withUnsafeBufferPointer { Base64URL.decode($0) } }
        for length in 0...40 {
            let bytes = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 251) }
            var standard = Data(bytes).base64EncodedString()
            let foundation = Data(base64Encoded: standard).map(Array.init)
            standard = standard.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
                .replacingOccurrences(of: "=", with: "")
            #expect(blockDecode(standard) == foundation, "\(standard)")
        }
        for text in ["AQ==", "AQ=", "+_8", "/_8", "ab+c", "ab/c", "A", "AAAAA", "AB", "AAB", "a b", "é", "AR", "AAF"] {
            #expect(blockDecode(text) == nil, "\(text)")
        }
        #expect(blockDecode("AAE") == [0x00, 0x01])
        #expect(blockDecode("-_8") == [0xFB, 0xFF])
        #expect(blockDecode("") == [])
        // A character outside the alphabet anywhere, in the eight-at-a-time part too.
        for length in [8, 11, 12, 16, 23, 40] {
            let valid = Array(Base64URL.encode((0..<(length * 3 / 4)).map { UInt8(truncatingIfNeeded: $0 &* 53) }).utf8)
            for position in valid.indices {
                for bad in ["+", "/", "=", " ", "\u{0}", "é"] {
                    var text = valid
                    text.replaceSubrange(position...position, with: Array(bad.utf8))
                    #expect(text.withUnsafeBufferPointer { Base64URL.decode($0) } == nil, "\(text)")
                }
            }
        }
    }

    @Test(arguments: ["", "a", "a.b", "a.b.c.d", "...", "a..b.c"])
    func segmentCountOtherThanThreeIsMalformed(_ token: String) {
        #expect(throws: AuthFlowError.self) { try CompactJWS(token) }
    }

    @Test func segmentsAreSplitAtTheDots() throws {
        let header = Base64URL.encode(Array(#"{"alg":"ES256"}"#.utf8))
        let payload = Base64URL.encode(Array(#"{"sub":"a"}"#.utf8))
        let jws = try CompactJWS(header + "." + payload + ".AQID")
        #expect(jws.algorithm == "ES256")
        #expect(jws.claims == ["sub": .string("a")])
        #expect(jws.signature == [1, 2, 3])
        #expect(jws.signingInput == Array((header + "." + payload).utf8))
    }
}
