#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// Remembers identifiers that may be used once — a DPoP proof's `jti`
/// (RFC 9449 §11.1), a logout token's `jti` — until they could no longer be
/// accepted anyway.
///
/// The seam between a server that receives such identifiers and where they
/// are kept: AuthFlowHummingbird's middleware asks a cache, and the cache
/// may be in memory (one instance) or shared by every instance behind a load
/// balancer (AuthFlowPostgres), since a replay may reach any of them.
public protocol ReplayCache: Sendable {
    /// Records `identifier` until `expiresAt`; returns false when it was
    /// already recorded and has not expired (a replay).
    ///
    /// An implementation that cannot record it (full, unreachable) throws:
    /// the identifier is then refused, never let through.
    func firstUse(of identifier: String, until expiresAt: Date) async throws -> Bool

    /// Forgets `identifier`, which ``firstUse(of:until:)`` recorded for work
    /// that then failed (a back-channel logout whose sessions could not be
    /// ended), so that the sender's retry is not refused as a replay.
    ///
    /// The default keeps the identifier: a retry is then refused until it
    /// expires. Both caches AuthFlow ships forget.
    func forget(_ identifier: String) async throws
}

extension ReplayCache {
    /// Keeps `identifier` (see ``ReplayCache/forget(_:)``).
    public func forget(_ identifier: String) async throws {}
}
