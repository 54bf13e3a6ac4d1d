import Foundation

@testable import AuthFlow

/// The ID-token fast path against the full parse: `PayloadClaims.scan`
/// either leaves a payload to the full parser or reads exactly what
/// `JSONParser` + `IDTokenClaimValues` read, and `IDTokenClaims` made from
/// either is equal or refused with the same error. The input is the payload's
/// JSON text; the same text is also wrapped into a token for
/// `ScannedIDToken.scan`, which must agree with `CompactJWS`.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzIDTokenScan(_ data: UnsafeRawPointer?, _ size: Int) -> CInt {
    let text = fuzzBytes(data, size)
    let full: [String: JSONMemberValue]? = {
        guard case .object(let object)? = try? JSONParser.parse(text) else { return nil }
        return object
    }()
    if let payload = PayloadClaims.scan(text) {
        guard let full else { fuzzFailure("the scan accepted what the full parser refuses") }
        fuzzCheck(payload.values == IDTokenClaimValues(full), "the scan read other claims than the full parser")
        let a = Result { try IDTokenClaims(payload) }
        let b = Result { try IDTokenClaims(claims: full) }
        switch (a, b) {
        case (.success(let x), .success(let y)):
            fuzzCheck(x == y, "IDTokenClaims differ")
            for probe in ["app", "https://idp.example", "", "é", y.issuer, y.audience.first ?? "-", y.nonce ?? "-"] {
                fuzzCheck(x.issuerEquals(probe) == y.issuerEquals(probe), "issuerEquals differs")
                fuzzCheck(x.audienceContains(probe) == y.audienceContains(probe), "audienceContains differs")
                fuzzCheck(x.authorizedPartyEquals(probe) == y.authorizedPartyEquals(probe), "authorizedPartyEquals differs")
                fuzzCheck(x.nonceMatches(probe) == y.nonceMatches(probe), "nonceMatches differs")
            }
            fuzzCheck(x.audienceCount == y.audienceCount && x.hasAuthorizedParty == y.hasAuthorizedParty, "audience shape differs")
        case (.failure(let x), .failure(let y)):
            fuzzCheck(x as? AuthFlowError == y as? AuthFlowError, "the two paths refused with different errors")
        default:
            fuzzFailure("one path accepted the claims, the other refused them")
        }
    }
    // The same payload in a token: the scan reads it only when CompactJWS does.
    let token = Base64URL.encode(Array(#"{"alg":"RS256","kid":"k"}"#.utf8)) + "." + Base64URL.encode(text) + ".c2ln"
    let parsed = try? CompactJWS(token)
    let scanned = ScannedIDToken.scan(token) { scanned in
        guard let parsed else { fuzzFailure("ScannedIDToken read a token CompactJWS refuses") }
        fuzzCheck(scanned.keyID == parsed.keyID && scanned.algorithm == parsed.algorithm, "header readings differ")
        fuzzCheck(scanned.claims.values == IDTokenClaimValues(parsed.claims), "payload readings differ")
        scanned.withSignedParts { input, signature in
            fuzzCheck(Array(input) == parsed.signingInput && Array(signature) == parsed.signature, "signed parts differ")
        }
    }
    if scanned { fuzzCheck(full != nil, "a scanned token's payload is not an object") }
    return 0
}
