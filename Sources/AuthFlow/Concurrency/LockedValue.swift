#if canImport(Darwin)
import Foundation
#else
import Synchronization
#endif

/// A value behind a lock, for state read from synchronous code without an actor hop.
///
/// Sendable only when its value is: the lock makes access exclusive, but it
/// cannot make a non-Sendable value safe to hand to another thread.
///
/// The lock is `NSLock` on Apple platforms and the standard library's `Mutex`
/// elsewhere: on Linux, `NSLock` is swift-corelibs-foundation's, and one use
/// links all of that library and ICU's data (docs/performance.md, "Size").
/// `Mutex` needs iOS 18 and macOS 15 on Apple platforms.
package final class LockedValue<Value> {
    #if canImport(Darwin)
    private let lock = NSLock()
    #else
    private let lock = Mutex(())
    #endif
    // Only touched under the lock, so the runtime exclusivity check is redundant.
    @exclusivity(unchecked) private var value: Value

    package init(_ value: Value) {
        self.value = value
    }

    /// Runs `body` with the value while holding the lock.
    package func withLock<T, E: Error>(_ body: (inout Value) throws(E) -> T) throws(E) -> T {
        #if canImport(Darwin)
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
        #else
        try lock.withLock { _ throws(E) -> sending T in
            // What `body` returns leaves the lock, as it does from NSLock's
            // `withLock`; `Mutex` asks for a value in no isolation region, which
            // a generic result cannot promise.
            nonisolated(unsafe) let result = try body(&value)
            return result
        }
        #endif
    }
}

// The compiler cannot see that the lock guards `value`; it does.
extension LockedValue: @unchecked Sendable where Value: Sendable {}
