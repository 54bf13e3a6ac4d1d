import Foundation

@testable import AuthFlow

/// Compact JWS parsing: any text ends in a parsed JWS or `id_token_invalid`
/// / `malformed`. A parsed one re-serialises to the same signing input, and
/// the ID-token scan, when it reads the text, reads what `CompactJWS` read.
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
    }
    let scanned = ScannedIDToken.scan(token) { scanned in
        guard let parsed else { fuzzFailure("the scan read a token CompactJWS refuses") }
        fuzzCheck(scanned.keyID == parsed.keyID, "kid differs")
        if let algorithm = scanned.algorithm { fuzzCheck(algorithm == parsed.algorithm, "alg differs") }
        fuzzCheck(scanned.hasCriticalHeader == (parsed.header["crit"] != nil), "crit differs")
        fuzzCheck(scanned.claims.values == IDTokenClaimValues(parsed.claims), "claims differ")
        scanned.withSignedParts { input, signature in
            fuzzCheck(Array(input) == parsed.signingInput && Array(signature) == parsed.signature, "signed parts differ")
        }
    }
    _ = scanned
    // The API middleware's test for a JWT: exactly two dots.
    fuzzCheck(CompactJWS.hasTwoDots(token) == (token.utf8.count { $0 == UInt8(ascii: ".") } == 2), "hasTwoDots differs")
    fuzzCheck(
        CompactJWS.hasTwoDots(token.dropFirst()) == (token.dropFirst().utf8.count { $0 == UInt8(ascii: ".") } == 2), "hasTwoDots differs")
    // The JWT verifier's unverified view (authflow decode) reads the same text.
    if let parsed { _ = try? IDTokenClaims(claims: parsed.claims) }
    return 0
}
