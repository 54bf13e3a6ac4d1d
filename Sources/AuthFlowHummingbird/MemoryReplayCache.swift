#if Hummingbird // the Hummingbird package trait
public import AuthFlow
#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// A `ReplayCache` in memory, for one instance, bounded twice so that one
/// client cannot deny the others:
///
/// - each key holds at most ``capacityPerKey`` identifiers at once. The key
///   is what comes before the first space of an identifier: the middleware
///   records a DPoP proof as `<thumbprint> <hash of jti>`, so the key is
///   the proof's key, which must be the one the access token is bound to.
///   A client that sends more proofs than that within their lifetime has
///   its own further proofs refused (the cache throws), nobody else's;
/// - all keys together hold at most ``capacity`` identifiers: filling it
///   takes `capacity / capacityPerKey` DPoP-bound access tokens, each
///   issued by the authorization server for its own key.
///
/// An identifier is held until the `expiresAt` it was recorded with (for a
/// DPoP proof, until its `iat` can no longer pass the skew window: at most
/// twice ``ProtectedResourceOptions/dpopProofMaximumSkew`` and a second),
/// then dropped by a sweep (every 10 s, and at most once a second while a
/// limit is reached). When a limit is reached, new identifiers are refused
/// rather than forgetting one that could still be replayed.
///
/// Memory: an identifier from the middleware is at most 88 bytes, and an
/// entry takes about 200 bytes, so the defaults (500,000 in all, 5,000 per
/// key) hold at most about 100 MB, reached only when at least 100 tokens
/// are used at full speed at once.
public actor MemoryReplayCache: ReplayCache {
    /// The most identifiers held at once, for all keys together.
    public let capacity: Int
    /// The most identifiers held at once for one key.
    public let capacityPerKey: Int
    private var entries: [String: Date] = [:]
    private var perKey: [Substring: Int] = [:]
    private var lastSweep = Date.distantPast

    /// A cache for at most `capacity` identifiers, `capacityPerKey` of them for one key.
    public init(capacity: Int = 500_000, capacityPerKey: Int = 5_000) {
        self.capacity = max(1, capacity)
        self.capacityPerKey = max(1, capacityPerKey)
    }

    /// Records `identifier` until `expiresAt`; false when it is already held.
    /// - Throws: ``ReplayCacheFull`` when ``capacity`` identifiers are held,
    ///   or ``capacityPerKey`` for the identifier's key, and none has expired.
    public func firstUse(of identifier: String, until expiresAt: Date) throws -> Bool {
        let now = Date()
        if let held = entries[identifier], held > now { return false }
        let key = Self.key(of: identifier)
        let atLimit = entries.count >= capacity || perKey[key, default: 0] >= capacityPerKey
        let sinceSweep = now.timeIntervalSince(lastSweep)
        if sinceSweep >= 10 || (atLimit && sinceSweep >= 1) { sweep(now) }
        guard entries.count < capacity else { throw ReplayCacheFull() }
        guard perKey[key, default: 0] < capacityPerKey else { throw ReplayCacheFull(perKey: true) }
        if entries.updateValue(expiresAt, forKey: identifier) == nil { perKey[key, default: 0] += 1 }
        return true
    }

    /// Forgets `identifier`: its next use is a first use again.
    public func forget(_ identifier: String) {
        guard entries.removeValue(forKey: identifier) != nil else { return }
        let key = Self.key(of: identifier)
        perKey[key] = perKey[key].flatMap { $0 > 1 ? $0 - 1 : nil }
    }

    /// Drops the identifiers that have expired and counts the rest per key.
    private func sweep(_ now: Date) {
        entries = entries.filter { $0.value > now }
        var counts: [Substring: Int] = [:]
        for identifier in entries.keys { counts[Self.key(of: identifier), default: 0] += 1 }
        perKey = counts
        lastSweep = now
    }

    /// What comes before the first space (the whole identifier without one).
    static func key(of identifier: String) -> Substring {
        identifier.prefix { $0 != " " }
    }
}

/// A ``MemoryReplayCache`` holds as many identifiers as it may, in all or
/// for one key: the request is refused rather than risk accepting a replay.
public struct ReplayCacheFull: Error, Sendable, CustomStringConvertible {
    /// Whether the limit reached is the one of the identifier's key.
    public var perKey = false

    /// Says what happened.
    public var description: String {
        perKey ? "the replay cache holds as many identifiers as it may for this key" : "the replay cache is full"
    }
}
#endif
