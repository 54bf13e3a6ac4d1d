import Foundation

@testable import AuthFlow

/// Compact JWS reading: any text ends in a read JWS or `id_token_invalid`
/// / `malformed`. A read one re-serialises to the same signing input, and its
/// header and payload are what `JSONParser` reads from the decoded segments.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCompactJWS(_ data: UnsafeRawPointer?, _ size: Int) -> CInt {
    let token = String(decoding: fuzzBytes(data, size), as: UTF8.self)
    let parsed: CompactJWS?
    do {
        parsed = try CompactJWS(token)
    } catch let error as AuthFlowError {
        fuzzCheck(error.category == .idTokenInvalid && error.reason == .malformed, "unexpected error \(error.category)")
        parsed = nil
    } catch {
        fuzzFailure("an error that is not an AuthFlowError")
    }
    if let parsed {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        fuzzCheck(parts.count == 3, "parsed a token without three segments")
        fuzzCheck(Array((parts[0] + "." + parts[1]).utf8) == parsed.signingInput, "wrong signing input")
        fuzzCheck(Base64URL.decode(parts[2]) == parsed.signature, "wrong signature bytes")
        fuzzCheck(Base64URL.decode(parts[1]) == parsed.payload, "wrong payload bytes")
        fuzzCheck((try? JSONParser.parse(parsed.payload)) == .object(parsed.claims), "the claims differ from the parser's")
        fuzzCheck(
            (try? JSONParser.parse(Base64URL.decode(parts[0]) ?? [])) == .object(parsed.header), "the header differs from the parser's")
    }
    // The API middleware's test for a JWT: exactly two dots.
    fuzzCheck(CompactJWS.hasTwoDots(token[...]) == (token.utf8.count { $0 == UInt8(ascii: ".") } == 2), "hasTwoDots differs")
    fuzzCheck(
        CompactJWS.hasTwoDots(token.dropFirst()) == (token.dropFirst().utf8.count { $0 == UInt8(ascii: ".") } == 2), "hasTwoDots differs")
    // The JWT verifier's unverified view (authflow decode) reads the same text.
    if let parsed { _ = try? IDTokenClaims(claims: parsed.claims) }
    return 0
}
