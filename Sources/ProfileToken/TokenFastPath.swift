#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// The check `authflow token` makes before building a client: the rule of
/// `AuthSession` (leeway 60 s, at most half the token's lifetime, or the
/// caller's minimum), without its setup.
public enum TokenFastPath {
    /// `token`'s access token when it stays valid for longer than the
    /// margin: `minimumValidity` when given, else `leeway` or half the
    /// token's lifetime, whichever is less. A token without an expiry is
    /// valid. Nil: it must be refreshed.
    public static func validToken(_ token: StoredToken, minimumValidity: TimeInterval?, leeway: TimeInterval = 60,
                                  now: Date = Date()) -> String? {
        guard let expiry = token.expiresAt else { return token.accessToken }
        var margin = leeway
        if let lifetime = token.expiresIn, lifetime > 0 { margin = min(margin, TimeInterval(lifetime) / 2) }
        if let minimumValidity { margin = minimumValidity }
        return expiry.timeIntervalSince(now) > margin ? token.accessToken : nil
    }

    /// The access token of profile `name` when `authflow token` may print it
    /// as it is: stored as `authflow` writes it (``StoredProfile``), not
    /// DPoP-bound, and valid by ``validToken(_:minimumValidity:leeway:now:)``.
    /// Nil: the full tool decides (refresh, sign in again, or an error).
    ///
    /// - Parameters:
    ///   - name: the profile name.
    ///   - minimumValidity: `--min-ttl`, when given.
    ///   - configHome: `XDG_CONFIG_HOME`, as for ``ProfileLocation/url(for:configHome:)``.
    ///   - now: the current time.
    public static func freshToken(profile name: String, minimumValidity: TimeInterval?,
                                  configHome: String? = ProfileLocation.environment("XDG_CONFIG_HOME"),
                                  now: Date = Date()) -> String? {
        guard let stored = StoredProfile.token(profile: name, configHome: configHome), !stored.isDPoPBound else { return nil }
        return validToken(stored, minimumValidity: minimumValidity, now: now)
    }
}
