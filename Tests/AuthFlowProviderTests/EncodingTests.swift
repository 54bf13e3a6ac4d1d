#if EmbeddedProvider // the EmbeddedProvider package trait
import AuthFlow
import AuthFlowTestSupport
import Foundation
import Testing
@testable import AuthFlowProvider

/// The provider's hand-written encoders produce what the Foundation code
/// they replaced produced.
@Suite("Provider encodings")
struct EncodingTests {
    private func foundationJSON(_ value: JSONMemberValue) throws -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return Array(try encoder.encode(value))
    }

    private func foundationBase64URL(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    @Test("JSONBody writes what JSONEncoder with sorted keys and unescaped slashes writes")
    func jsonBody() throws {
        let strings = [
            "", "plain", "http://127.0.0.1:8080/a/b", "quote \" backslash \\ slash /",
            "\u{0}\u{1}\u{8}\u{9}\u{A}\u{B}\u{C}\u{D}\u{1F}\u{7F}",
            "Grüße, 東京 🎉", "e\u{301}", "</script>",
        ]
        let numbers: [Double] = [
            0, -0.0, 1, -1, 3600, 1_767_225_600, 999_999_999_999_999, 1e15, -1e15, 1e16, 0.5, -2.25, 1.0 / 3, 1e-7, 123456.789,
        ]
        var members: [String: JSONMemberValue] = [:]
        for (index, string) in strings.enumerated() {
            members["s\(index)"] = .string(string)
            members[string] = .number(Double(index))
        }
        for (index, number) in numbers.enumerated() { members["n\(index)"] = .number(number) }
        for key in ["Z", "a", "_", "A", "aa", "a_b", "aB", "a1", "a10", "a2", "É", "e", "ß", "~", "-", "0"] {
            members[key] = .bool(key < "a")
        }
        members["nested"] = .object([
            "b": .array([.null, .bool(true), .bool(false), .array([]), .object([:])]), "a": .object(["z": .null, "y": .string("/")]),
        ])
        members["array"] = .array(strings.map { .string($0) } + numbers.map { .number($0) })
        let value = JSONMemberValue.object(members)
        #expect(try JSONBody.bytes(value) == foundationJSON(value))
        for member in members.values { #expect(try JSONBody.bytes(member) == foundationJSON(member)) }
        #expect(try JSONBody.bytes(.object([:])) == foundationJSON(.object([:])))
        #expect(throws: (any Error).self) { try JSONBody.bytes(.number(.nan)) }
        #expect(throws: (any Error).self) { try JSONBody.bytes(.object(["x": .number(.infinity)])) }
    }

    @Test("Base64URL.encode (shared with the engine) is unpadded base64url of any length")
    func base64URL() {
        var generator = SystemRandomNumberGenerator()
        for length in 0...70 {
            let bytes = (0..<length).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
            #expect(Base64URL.encode(bytes) == foundationBase64URL(bytes))
            #expect(Base64URL.encode(bytes[...]) == foundationBase64URL(bytes))
            #expect(Base64URL.decode(Base64URL.encode(bytes)) == bytes)
        }
        #expect(Base64URL.encode([0xFB, 0xFF, 0xBF]) == "-_-_")
    }

    @Test("random tokens have the requested length and differ")
    func randomTokens() {
        for count in [0, 1, 6, 7, 8, 9, 12, 32, 33] { #expect(RandomToken.randomBytes(count).count == count) }
        #expect(RandomToken.make().utf8.count == 43)
        #expect(RandomToken.make(bytes: 12).utf8.count == 16)
        #expect(Set((0..<100).map { _ in RandomToken.make() }).count == 100)
    }

    @Test("header names compare ASCII case-insensitively; media types are trimmed and lowercased")
    func headers() {
        let request = ProviderRequest(
            method: "POST", path: "/token", query: "",
            headers: [("content-type", " Application/X-WWW-Form-URLEncoded\t; charset=UTF-8"), ("AUTHORIZATION", "Basic x")],
            body: [])
        #expect(request.header("Authorization") == "Basic x")
        #expect(request.header("Content-Type") != nil)
        #expect(request.header("Content-Typ") == nil)
        #expect(request.mediaType == "application/x-www-form-urlencoded")
        for text in ["", " ", "\t", " a ", "A\tB", " \u{A0}Text/Plain ", "Ünïcode"] {
            #expect(ProviderRequest.trimmedLowercase(text[...]) == text.trimmingCharacters(in: .whitespaces).lowercased())
        }
    }
}
#endif
