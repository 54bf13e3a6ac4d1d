#if Hummingbird // the Hummingbird package trait
public import AuthFlow
public import Foundation

/// A `ReplayCache` in memory, for one instance, bounded: when it holds ``capacity``
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

    /// Forgets `identifier`: its next use is a first use again.
    public func forget(_ identifier: String) {
        entries[identifier] = nil
    }
}

/// A ``MemoryReplayCache`` holds as many identifiers as it may: the request
/// is refused rather than risk accepting a replay.
public struct ReplayCacheFull: Error, Sendable, CustomStringConvertible {
    /// Says what happened.
    public var description: String { "the replay cache is full" }
}
#endif
