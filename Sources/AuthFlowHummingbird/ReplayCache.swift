#if Hummingbird // the Hummingbird package trait
public import Foundation

/// Remembers identifiers that may be used once (a DPoP proof's `jti`, a
/// logout token's `jti`) until they could no longer be accepted anyway.
///
/// ``MemoryReplayCache`` serves one instance; instances behind a load
/// balancer share one store, since a replay may reach any of them.
public protocol ReplayCache: Sendable {
    /// Records `identifier` until `expiresAt`; returns false when it was
    /// already recorded and has not expired (a replay).
    ///
    /// An implementation that cannot record it (full, unreachable) throws:
    /// the request is then refused, never let through.
    func firstUse(of identifier: String, until expiresAt: Date) async throws -> Bool
}

/// A ``ReplayCache`` in memory, bounded: when it holds ``capacity``
/// identifiers that have not expired, new ones are refused (it throws)
/// rather than forgetting one that could still be replayed.
public actor MemoryReplayCache: ReplayCache {
    /// The most identifiers held at once.
    public let capacity: Int
    private var entries: [String: Date] = [:]
    private var nextSweep = Date.distantPast

    /// A cache for at most `capacity` identifiers.
    public init(capacity: Int = 100_000) {
        self.capacity = max(1, capacity)
    }

    /// Records `identifier` until `expiresAt`; false when it is already held.
    /// - Throws: ``ReplayCacheFull`` when ``capacity`` identifiers are held and none has expired.
    public func firstUse(of identifier: String, until expiresAt: Date) throws -> Bool {
        let now = Date()
        if let held = entries[identifier], held > now { return false }
        if entries.count >= capacity || now >= nextSweep {
            entries = entries.filter { $0.value > now }
            nextSweep = now.addingTimeInterval(10)
        }
        guard entries.count < capacity else { throw ReplayCacheFull() }
        entries[identifier] = expiresAt
        return true
    }
}

/// A ``MemoryReplayCache`` holds as many identifiers as it may: the request
/// is refused rather than risk accepting a replay.
public struct ReplayCacheFull: Error, Sendable, CustomStringConvertible {
    /// Says what happened.
    public var description: String { "the replay cache is full" }
}
#endif
