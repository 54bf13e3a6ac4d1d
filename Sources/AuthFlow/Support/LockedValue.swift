import Foundation

/// A value behind a lock, for state read from synchronous code without an actor hop.
final class LockedValue<Value>: @unchecked Sendable {
    private let lock = NSLock()
    // Only touched under the lock, so the runtime exclusivity check is redundant.
    @exclusivity(unchecked) private var value: Value

    init(_ value: Value) {
        self.value = value
    }

    /// Runs `body` with the value while holding the lock.
    func withLock<T, E: Error>(_ body: (inout Value) throws(E) -> T) throws(E) -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
