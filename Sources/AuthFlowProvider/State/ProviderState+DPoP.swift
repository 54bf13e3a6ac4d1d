#if EmbeddedProvider // the EmbeddedProvider package trait
import AuthFlow
import Crypto
import Foundation

/// A DPoP failure: `invalid_dpop_proof` or `use_dpop_nonce` (RFC 9449 §5,
/// §7.1, §8), answered with the provider's current `DPoP-Nonce`.
struct DPoPFailure: Error, Sendable {
    let failure: OAuthFailure
    let nonce: String?
}

extension ProviderState {
    /// The proof in `request`'s `DPoP` header (nil when there is none),
    /// checked for `method` at `path` (RFC 9449 §4.3): one proof, `typ`
    /// `dpop+jwt`, an asymmetric `alg`, a public `jwk` (``PublicJWKRules``,
    /// no `kid` beside it) that verifies the signature, `htm`, `htu`
    /// (compared normalised), `iat` within a minute, a `jti` not seen
    /// before, `ath` for `accessToken`, and the current nonce when nonces
    /// are required. Returns the key's thumbprint.
    func checkDPoPProof(_ request: ProviderRequest, path: String, accessToken: String? = nil, now: Date = Date()) throws(DPoPFailure)
        -> String?
    {
        let proofs = request.headers.filter { ProviderRequest.sameFieldName($0.name, "DPoP") }
        guard !proofs.isEmpty else { return nil }
        func refuse(_ why: String) -> DPoPFailure {
            DPoPFailure(failure: OAuthFailure("invalid_dpop_proof", why), nonce: configuration.requiresDPoPNonce ? dpopNonce : nil)
        }
        guard proofs.count == 1 else { throw refuse("exactly one DPoP proof is allowed") }
        guard let jws = try? CompactJWS(proofs[0].value) else { throw refuse("the DPoP proof is not a JWS") }
        guard jws.header["typ"]?.stringValue == "dpop+jwt" else { throw refuse("the DPoP proof's typ must be dpop+jwt") }
        guard case .object(let jwk)? = jws.header["jwk"] else { throw refuse("the DPoP proof's header must carry a public jwk") }
        if let violation = PublicJWKRules.violation(in: jwk) { throw refuse("the DPoP proof's jwk is not a public key: \(violation)") }
        // The key is the jwk itself (RFC 9449 §4.2); a kid would name some other key.
        guard jws.header["kid"] == nil else { throw refuse("the DPoP proof's header must not carry a kid: its key is the jwk") }
        guard let keys = try? JSONEncoder().encode(JSONMemberValue.object(["keys": .array([.object(jwk)])])),
            let thumbprint = ProviderState.thumbprint(of: jwk)
        else { throw refuse("the DPoP proof's jwk is not a usable key") }
        switch ClientAssertionSignature.check(jws, allowed: ClientAssertionCheck.asymmetric, keys: keys, secret: nil) {
        case .valid: break
        case .algorithmRefused: throw refuse("the DPoP proof's algorithm \(jws.algorithm ?? "(none)") is not accepted")
        case .noKey, .invalid: throw refuse("the DPoP proof's signature is invalid")
        }
        let claims = jws.claims
        guard claims["htm"]?.stringValue == request.method else { throw refuse("the DPoP proof's htm is not \(request.method)") }
        // RFC 9449 §4.3: compared normalised (scheme and host case, default port, dot segments), query and
        // fragment ignored; an htu with userinfo is refused.
        guard let htu = claims["htu"]?.stringValue, let target = DPoPTarget.normalized(htu), target == DPoPTarget.normalized(issuer + path)
        else {
            throw refuse("the DPoP proof's htu is not \(issuer + path)")
        }
        guard let iat = claims["iat"]?.numberValue, abs(iat - now.timeIntervalSince1970) <= 60 else {
            throw refuse("the DPoP proof's iat is missing or more than 60 s from now")
        }
        guard let jti = claims["jti"]?.stringValue, !jti.isEmpty else { throw refuse("the DPoP proof has no jti") }
        if let accessToken {
            let ath = Base64URL.encode(Array(SHA256.hash(data: Array(accessToken.utf8))))
            guard claims["ath"]?.stringValue == ath else { throw refuse("the DPoP proof's ath does not match the access token") }
        }
        if configuration.requiresDPoPNonce, claims["nonce"]?.stringValue != dpopNonce {
            throw DPoPFailure(failure: OAuthFailure("use_dpop_nonce", "the DPoP proof must carry the server's nonce"), nonce: dpopNonce)
        }
        sweep(now: now)
        guard usedProofIDs.updateValue(now.addingTimeInterval(120), forKey: jti) == nil else {
            throw refuse("the DPoP proof was already used (jti replay)")
        }
        return thumbprint
    }

    /// The JWK SHA-256 thumbprint (RFC 7638) of an EC, RSA or OKP public key.
    static func thumbprint(of jwk: [String: JSONMemberValue]) -> String? {
        let members: [String]
        switch jwk["kty"]?.stringValue {
        case "EC"?: members = ["crv", "kty", "x", "y"]
        case "RSA"?: members = ["e", "kty", "n"]
        case "OKP"?: members = ["crv", "kty", "x"]
        default: return nil
        }
        var canonical = "{"
        for (index, name) in members.enumerated() {
            guard let value = jwk[name]?.stringValue, value.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" }) else {
                return nil
            }
            canonical += (index == 0 ? "" : ",") + "\"\(name)\":\"\(value)\""
        }
        canonical += "}"
        return Base64URL.encode(Array(SHA256.hash(data: Array(canonical.utf8))))
    }
}

extension DPoPFailure {
    /// The JSON error of a token endpoint, with `DPoP-Nonce` when known.
    var tokenEndpointResponse: ProviderResponse {
        var response = failure.response
        if let nonce { response.headers.append(("DPoP-Nonce", nonce)) }
        return response
    }
}
#endif
