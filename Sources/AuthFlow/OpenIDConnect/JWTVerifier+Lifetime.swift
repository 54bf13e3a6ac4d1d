#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

extension JWTVerifier {
    /// How long ``JWTVerifier`` accepts a token.
    ///
    /// Tokens that authorise a request carry `exp` (RFC 9068 §2.2 requires
    /// it of JWT access tokens), and ``expiring`` refuses one without it.
    /// Some JWTs are statements rather than credentials and carry no `exp`:
    /// a carrier's port token, which records that a user moved to another
    /// carrier, is signed once and read whenever the user next opens the
    /// app. For those, ``issuedWithin(_:)`` says, explicitly, how old a
    /// token may be.
    public enum Lifetime: Sendable, Hashable {
        /// The token must carry `exp`, and is refused once it has passed
        /// (with the verifier's leeway). The default.
        case expiring
        /// The token may lack `exp`. It must then carry `iat`, and is
        /// accepted for this many seconds after it (with the verifier's
        /// leeway); ``VerifiedJWT/expiresAt`` is `iat` plus this age. An
        /// `exp` the token does carry is still checked.
        case issuedWithin(TimeInterval)
    }

    /// When the token's acceptance ends under `lifetime`, from its `exp`
    /// and `iat` (seconds since 1970), or the rule it breaks.
    static func acceptedUntil(
        exp: Double?, iat: Double?, lifetime: Lifetime, now: Date, leeway: TimeInterval
    ) throws -> Double {
        let nowSeconds = now.timeIntervalSince1970
        var until: Double
        switch lifetime {
        case .expiring:
            guard let exp else { throw invalid(.expired, "the token has no exp") }
            until = exp
        case .issuedWithin(let maximumAge):
            guard let iat else { throw invalid(.issuedAt, "the token has neither exp nor iat") }
            until = iat + maximumAge
            if nowSeconds - until >= leeway {
                let age = maximumAge.rounded() == maximumAge && abs(maximumAge) < 1e15 ? String(Int(maximumAge)) : String(maximumAge)
                throw invalid(.expired, "the token was issued more than \(age) s ago")
            }
            if let exp { until = min(until, exp) }
        }
        guard nowSeconds - until < leeway else { throw invalid(.expired, "the token has expired") }
        return until
    }

    static func invalid(_ reason: AuthFlowError.Reason, _ message: String) -> AuthFlowError {
        AuthFlowError(.jwtInvalid, message, reason: reason)
    }
}
