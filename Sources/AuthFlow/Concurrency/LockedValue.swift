#if canImport(Darwin)
import Foundation
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A value behind a lock, for state read from synchronous code without an actor hop.
///
/// Sendable only when its value is: the lock makes access exclusive, but it
/// cannot make a non-Sendable value safe to hand to another thread.
///
/// The lock is `NSLock` on Apple platforms and a pthread mutex elsewhere. On
/// Linux, `NSLock` is swift-corelibs-foundation's, and one use links all of
/// that library and ICU's data (docs/performance.md, "Size"). The standard
/// library's `Mutex` would do, but ThreadSanitizer cannot see its atomics (the
/// standard library is not instrumented) and reports every guarded access as
/// a race; it sees pthread mutexes.
package final class LockedValue<Value> {
    #if canImport(Darwin)
    private let lock = NSLock()
    #else
    // Allocated, never moved: a pthread mutex must keep its address.
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    #endif
    // Only touched under the lock, so the runtime exclusivity check is redundant.
    @exclusivity(unchecked) private var value: Value

    package init(_ value: Value) {
        self.value = value
        #if !canImport(Darwin)
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        let status = pthread_mutex_init(mutex, nil)
        precondition(status == 0, "pthread_mutex_init failed: \(status)")
        #endif
    }

    #if !canImport(Darwin)
    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deinitialize(count: 1)
        mutex.deallocate()
    }
    #endif

    /// Runs `body` with the value while holding the lock.
    package func withLock<T, E: Error>(_ body: (inout Value) throws(E) -> T) throws(E) -> T {
        #if canImport(Darwin)
        lock.lock()
        defer { lock.unlock() }
        #else
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        #endif
        return try body(&value)
    }
}

// The compiler cannot see that the lock guards `value`; it does.
extension LockedValue: @unchecked Sendable where Value: Sendable {}
