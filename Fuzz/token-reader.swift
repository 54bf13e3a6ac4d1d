import Foundation

@testable import AuthFlow

/// The reader of every signed token against `JSONParser` as the oracle. The
/// input is a JSON text: `JSONObjectReader` accepts it exactly when the
/// parser reads an object, then answers every reading (`value`, `string`,
/// `number`, `kind`, `contains`, `string(_:equals:)`, the words of a `scope`,
/// the audience, every member) as the parser's dictionary does, and refuses
/// the others with the parser's own `Failure` (a text that is JSON but not an
/// object: any failure). The same text as a token's payload and as its
/// header must read the same through `CompactJWS`, and `IDTokenClaims` made
/// from it equals the one made from the parser's dictionary, or both are
/// refused with the same error.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTokenReader(_ data: UnsafeRawPointer?, _ size: Int) -> CInt {
    let text = fuzzBytes(data, size)
    let parsed = Result { () throws(JSONParser.Failure) in try JSONParser.parse(text) }
    let read = Result { () throws(JSONParser.Failure) in try JSONObjectReader(text) }
    switch (parsed, read) {
    case (.success(.object(let full)), .success(let reader)):
        checkReadings(reader, full)
        checkIDTokenClaims(reader, full)
    case (.success(.object), .failure(let failure)):
        fuzzFailure("the reader refused an object the parser reads: \(failure)")
    case (.success, .success):
        fuzzFailure("the reader accepted a text that is not an object")
    case (.success, .failure):
        break
    case (.failure(let expected), .failure(let failure)):
        fuzzCheck(failure == expected, "the reader refused with \(failure), the parser with \(expected)")
    case (.failure, .success):
        fuzzFailure("the reader accepted what the parser refuses")
    }
    let full: [String: JSONMemberValue]? = if case .success(.object(let object)) = parsed { object } else { nil }
    // The text as a token's payload, then as its header.
    let header = Array(#"{"alg":"ES256","kid":"k","typ":"at+jwt"}"#.utf8)
    let token = Base64URL.encode(header) + "." + Base64URL.encode(text) + ".c2ln"
    let jws = try? CompactJWS(token)
    fuzzCheck((jws != nil) == (full != nil), "CompactJWS and the parser disagree on a payload")
    if let jws, let full {
        fuzzCheck(jws.claims == full && jws.payload == text, "the payload reads differently in a token")
        fuzzCheck(jws.keyID == "k" && jws.algorithm == "ES256" && jws.knownAlgorithm == .es256 && jws.type == "at+jwt", "header differs")
        fuzzCheck(jws.signature == Array("sig".utf8) && jws.signingInput == Array(token.utf8.prefix(token.utf8.count - 5)), "signed parts")
    }
    let asHeader = try? CompactJWS(Base64URL.encode(text) + "." + Base64URL.encode(Array("{}".utf8)) + ".")
    fuzzCheck((asHeader != nil) == (full != nil), "CompactJWS and the parser disagree on a header")
    if let asHeader, let full {
        fuzzCheck(asHeader.header == full && asHeader.algorithm == full["alg"]?.stringValue, "the header reads differently")
        fuzzCheck(asHeader.keyID == full["kid"]?.stringValue && asHeader.hasCriticalHeader == (full["crit"] != nil), "kid or crit differ")
        fuzzCheck(asHeader.knownAlgorithm == full["alg"]?.stringValue.flatMap(JWSAlgorithm.init(name:)), "known algorithm differs")
    }
    return 0
}

/// Every reading of `reader` against the parser's dictionary, for the names
/// it has and some it may not (non-ASCII names that Swift compares canonically).
private func checkReadings(_ reader: JSONObjectReader, _ full: [String: JSONMemberValue]) {
    fuzzCheck(reader.all == full, "the members differ")
    let values = full.values.compactMap(\.stringValue)
    let probes = ["iss", "aud", "exp", "sub", "scope", "", "é", "e\u{301}", "\u{212A}", "K", "\\", "\u{7F}"] + Array(full.keys.prefix(16))
    for name in probes {
        let value = full[name]
        fuzzCheck(reader.value(name) == value, "value(\(name)) differs")
        fuzzCheck(reader.string(name) == value?.stringValue, "string(\(name)) differs")
        fuzzCheck(reader.number(name) == value?.numberValue, "number(\(name)) differs")
        fuzzCheck(reader.contains(name) == (value != nil), "contains(\(name)) differs")
        let kind: JSONObjectReader.Kind =
            switch value {
            case nil: .absent
            case .string(let string)?: .string(empty: string.isEmpty)
            case .number?: .number
            default: .other
            }
        fuzzCheck(reader.kind(name) == kind, "kind(\(name)) differs")
        for expected in values.prefix(8) + ["", "K", "\u{212A}", "api"] {
            let same = value?.stringValue.map { $0.utf8.elementsEqual(expected.utf8) } ?? false
            fuzzCheck(reader.string(name, equals: expected) == same, "string(\(name), equals:) differs")
        }
    }
    let words = values.prefix(4).flatMap { $0.split(separator: " ").map(String.init) }.prefix(8) + ["", " ", "a", "é", "\u{212A}"]
    for name in probes.prefix(14) {
        for word in words {
            let expected = full[name]?.stringValue.map { $0.utf8.split(separator: 0x20).contains { $0.elementsEqual(word.utf8) } } ?? false
            fuzzCheck(reader.string(name, containsWord: word) == expected, "string(\(name), containsWord:) differs")
        }
    }
    let audience: [String] =
        switch full["aud"] {
        case .string(let value)?: [value]
        case .array(let values)?: values.compactMap(\.stringValue)
        default: []
        }
    fuzzCheck(reader.audience == audience, "the audience differs")
    for expected in values.prefix(8) + ["", "K", "\u{212A}"] {
        // Claim strings compare byte for byte (RFC 7519 §7.3): the Kelvin sign is not K.
        fuzzCheck(reader.audienceContains(expected) == audience.contains { $0.hasSameBytes(as: expected) }, "audienceContains differs")
    }
}

/// `IDTokenClaims` over the reader and over the parser's dictionary: equal, or refused alike.
private func checkIDTokenClaims(_ reader: JSONObjectReader, _ full: [String: JSONMemberValue]) {
    switch (Result { try IDTokenClaims(reader) }, Result { try IDTokenClaims(claims: full) }) {
    case (.success(let x), .success(let y)):
        fuzzCheck(x == y, "IDTokenClaims differ")
        for probe in ["app", "https://idp.example", "", "é", y.issuer, y.audience.first ?? "-", y.nonce ?? "-"] {
            fuzzCheck(x.issuerEquals(probe) == y.issuer.hasSameBytes(as: probe), "issuerEquals differs")
            fuzzCheck(x.audienceContains(probe) == y.audience.contains { $0.hasSameBytes(as: probe) }, "audienceContains differs")
            fuzzCheck(
                x.authorizedPartyEquals(probe) == (y.authorizedParty?.hasSameBytes(as: probe) ?? false), "authorizedPartyEquals differs")
        }
        fuzzCheck(x.audienceCount == y.audience.count && x.hasAuthorizedParty == (y.authorizedParty != nil), "audience shape differs")
    case (.failure(let x), .failure(let y)):
        fuzzCheck(x as? AuthFlowError == y as? AuthFlowError, "IDTokenClaims refused with different errors")
    default:
        fuzzFailure("IDTokenClaims accepted one reading and refused the other")
    }
}
