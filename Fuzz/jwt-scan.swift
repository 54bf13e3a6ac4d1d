import Foundation

@testable import AuthFlow

/// The JWT fast path against the full parse: `ScannedJWTClaims.scan` either
/// leaves a payload to the full parser or answers every reading (`value`,
/// `string`, `number`, `contains`, `string(_:equals:)`, the words of a
/// `scope`, the audience, every claim) as the full parser's dictionary does. The input is the payload's
/// JSON text; the same text is also wrapped into a token for `ScannedJWS`,
/// whose header readings must agree with `CompactJWS`.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJWTScan(_ data: UnsafeRawPointer?, _ size: Int) -> CInt {
    let text = fuzzBytes(data, size)
    let full: [String: JSONMemberValue]? = {
        guard case .object(let object)? = try? JSONParser.parse(text) else { return nil }
        return object
    }()
    if let scanned = ScannedJWTClaims.scan(payload: text) {
        guard let full else { fuzzFailure("the scan accepted what the full parser refuses") }
        fuzzCheck(scanned.claims == full, "the claims differ")
        let values = full.values.compactMap(\.stringValue)
        let probes = ["iss", "aud", "exp", "sub", "", "é", "\u{212A}", "K", "e\u{301}"] + Array(full.keys)
        for name in probes {
            fuzzCheck(scanned.value(name) == full[name], "value(\(name)) differs")
            fuzzCheck(scanned.string(name) == full[name]?.stringValue, "string(\(name)) differs")
            fuzzCheck(scanned.number(name) == full[name]?.numberValue, "number(\(name)) differs")
            fuzzCheck(scanned.contains(name) == (full[name] != nil), "contains(\(name)) differs")
            for expected in values.prefix(8) + ["", "K", "\u{212A}", "api"] {
                fuzzCheck(
                    scanned.string(name, equals: expected) == (full[name]?.stringValue == expected), "string(\(name), equals:) differs")
            }
        }
        // Scope tokens: the words of every string value, and some that are not words.
        let words = values.prefix(4).flatMap { $0.split(separator: " ").map(String.init) }.prefix(8) + ["", " ", "a", "é", "\u{212A}"]
        for name in probes.prefix(12) {
            for word in words {
                let expected = full[name]?.stringValue.map { VerifiedJWT.words(of: $0, contain: word) } ?? false
                fuzzCheck(scanned.claim(name, containsWord: word) == expected, "claim(\(name), containsWord:) differs")
            }
        }
        let audience = VerifiedJWT.Contents.audience(full["aud"])
        fuzzCheck(scanned.audience == audience, "the audience differs")
        for expected in values.prefix(8) + ["", "K", "\u{212A}"] {
            fuzzCheck(scanned.audienceContains(expected) == audience.contains(expected), "audienceContains differs")
        }
    }
    // The same payload in a token: the scan reads it only when CompactJWS does.
    let token = Base64URL.encode(Array(#"{"alg":"ES256","kid":"k","typ":"at+jwt"}"#.utf8)) + "." + Base64URL.encode(text) + ".c2ln"
    let parsed = try? CompactJWS(token)
    let scanned = ScannedJWS.scan(token, claims: ScannedJWTClaims.scan(header:payload:)) { scanned in
        guard let parsed else { fuzzFailure("ScannedJWS read a token CompactJWS refuses") }
        fuzzCheck(scanned.keyID == parsed.keyID && scanned.algorithm == parsed.algorithm, "header readings differ")
        fuzzCheck(scanned.type == parsed.header["typ"]?.stringValue, "typ differs")
        fuzzCheck(scanned.claims.header == parsed.header && scanned.claims.claims == parsed.claims, "header or claims differ")
        scanned.withSignedParts { input, signature in
            fuzzCheck(Array(input) == parsed.signingInput && Array(signature) == parsed.signature, "signed parts differ")
        }
    }
    if scanned { fuzzCheck(full != nil, "a scanned token's payload is not an object") }
    return 0
}
