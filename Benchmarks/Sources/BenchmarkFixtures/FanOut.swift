import Synchronization

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
}

/// One slot per caller, each written by exactly one task before the fan-out
/// ends and read only after it: no two tasks touch the same slot, and no lock
/// is shared by the callers (a shared lock would be part of what is measured).
public final class OutcomeSlots: @unchecked Sendable {
    private let storage: UnsafeMutableBufferPointer<Outcome?>

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
