#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The time source of device-flow polling: a monotonic "now" and a
/// cancellable sleep.
///
/// The default, ``SystemPollingClock``, uses `ContinuousClock`. Tests pass a
/// clock whose `sleep` returns at once and advances `now`, so the polling
/// rules of RFC 8628 §3.5 run without real waits.
public protocol PollingClock: Sendable {
    /// The current instant on a monotonic scale.
    var now: ContinuousClock.Instant { get }
    /// Waits `duration`. Must throw `CancellationError` when the task is
    /// cancelled, and return no later than that.
    func sleep(for duration: Duration) async throws
}

/// The real clock: `ContinuousClock` (keeps counting while the system sleeps,
/// like the server's expiry does).
public struct SystemPollingClock: PollingClock {
    /// Creates the system clock.
    public init() {}

    /// `ContinuousClock.now`.
    public var now: ContinuousClock.Instant { ContinuousClock.now }

    /// `Task.sleep(for:)`.
    public func sleep(for duration: Duration) async throws {
        try await Task.sleep(for: duration)
    }
}
