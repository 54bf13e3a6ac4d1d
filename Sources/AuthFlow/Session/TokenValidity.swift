#if canImport(FoundationEssentials)
package import FoundationEssentials
#else
package import Foundation
#endif

/// When an access token must be refreshed before use: the one rule that
/// ``AuthSession`` and the `authflow token` command apply.
package enum TokenValidity {
    /// Whether `credentials` must be refreshed: their access token expires
    /// within `minimumValidity` seconds when given, else within the
    /// leeway, which is never more than half the token's lifetime (so a
    /// short-lived token is used for a while before being refreshed, instead
    /// of on every call). A token without an expiry never needs refreshing.
    package static func needsRefresh(
        _ credentials: OAuthCredentials, minimumValidity: TimeInterval?, leeway: TimeInterval,
        now: Date
    ) -> Bool {
        guard let expiry = credentials.expiresAt else { return false }
        let margin = minimumValidity ?? effectiveLeeway(leeway, lifetime: credentials.token.expiresIn)
        return expiry.timeIntervalSince(now) <= margin
    }

    /// The leeway for a token that lives `lifetime` seconds: at most half of it.
    package static func effectiveLeeway(_ leeway: TimeInterval, lifetime: Int?) -> TimeInterval {
        guard let lifetime, lifetime > 0 else { return leeway }
        return min(leeway, TimeInterval(lifetime) / 2)
    }
}
