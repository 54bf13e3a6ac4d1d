import Foundation

/// A value behind a lock, for state read from synchronous code without an actor hop.
///
/// Sendable only when its value is: the lock makes access exclusive, but it
/// cannot make a non-Sendable value safe to hand to another thread.
package final class LockedValue<Value> {
    private let lock = NSLock()
    // Only touched under the lock, so the runtime exclusivity check is redundant.
    @exclusivity(unchecked) private var value: Value

    package init(_ value: Value) {
        self.value = value
    }

    /// Runs `body` with the value while holding the lock.
    package func withLock<T, E: Error>(_ body: (inout Value) throws(E) -> T) throws(E) -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}

// The compiler cannot see that the lock guards `value`; it does.
extension LockedValue: @unchecked Sendable where Value: Sendable {}
