public import Dispatch
import Synchronization

/// Monotonic nanoseconds.
@inlinable @inline(__always) public func nowNanos() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

/// Starts one unstructured task per slot of `slots`; each runs `call`, writes
/// when it started and finished and what it got into its own slot, and counts
/// down a latch. Returns when the last one has. (Unstructured tasks, because a
/// task group adds its own cost per caller: with `for await` the parent is
/// woken once per finished child, and a discarding group's bookkeeping of
/// finished children made the fan-out ten times slower.)
public func fanOut(into slots: OutcomeSlots, _ call: @escaping @Sendable () async throws -> String) async {
    await withCheckedContinuation { (finished: CheckedContinuation<Void, Never>) in
        let latch = CountdownLatch(count: slots.count, finished: finished)
        for index in 0..<slots.count {
            Task {
                let start = nowNanos()
                let token = try? await call()
                slots.set(index, Outcome(start: start, end: nowNanos(), token: token))
                latch.countDown()
            }
        }
    }
}

/// What one caller of a fan-out saw: when it started and finished (monotonic
/// nanoseconds) and the token it got, if any.
public struct Outcome: Sendable {
    public var start: UInt64
    public var end: UInt64
    public var token: String?

    public init(start: UInt64, end: UInt64, token: String?) {
        self.start = start
        self.end = end
        self.token = token
    }

    /// The wait beyond the refresh itself: completion − max(start, `ready`),
    /// where `ready` is when the refreshed value became available.
    public func addedLatency(after ready: UInt64) -> UInt64 {
        let from = max(start, ready)
        return end > from ? end - from : 0
    }
}

/// One slot per caller, each written by exactly one task before the fan-out
/// ends and read only after it: no two tasks touch the same slot, and no lock
/// is shared by the callers (a shared lock would be part of what is measured).
public final class OutcomeSlots: @unchecked Sendable {
    private let storage: UnsafeMutableBufferPointer<Outcome?>
    /// The number of slots.
    public var count: Int { storage.count }

    public init(count: Int) {
        storage = .allocate(capacity: count)
        storage.initialize(repeating: nil)
    }

    deinit {
        storage.deinitialize()
        storage.deallocate()
    }

    public func set(_ index: Int, _ outcome: Outcome) { storage[index] = outcome }

    /// Every outcome, once the fan-out has ended.
    public func outcomes() -> [Outcome] { storage.compactMap { $0 } }
}

/// Resumes `finished` once `count` tasks have counted down (one atomic
/// decrement each).
public final class CountdownLatch: Sendable {
    private let remaining: Atomic<Int>
    private let finished: CheckedContinuation<Void, Never>

    public init(count: Int, finished: CheckedContinuation<Void, Never>) {
        remaining = Atomic(count)
        self.finished = finished
    }

    public func countDown() {
        if remaining.subtract(1, ordering: .acquiringAndReleasing).newValue == 0 { finished.resume() }
    }
}
