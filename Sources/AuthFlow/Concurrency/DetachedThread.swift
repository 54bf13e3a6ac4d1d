#if canImport(Darwin)
import Foundation
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A thread of its own for work that blocks in a system call (`accept`,
/// `poll`, `getaddrinfo`, a D-Bus round trip, a read of standard input), so
/// that it never holds one of the concurrency pool's few threads.
///
/// `Thread` on Apple platforms; a detached pthread elsewhere. On Linux,
/// `Thread` is swift-corelibs-foundation's, and one use links all of that
/// library and ICU's data (docs/performance.md, "Size").
package enum DetachedThread {
    /// Starts `body` on a new detached thread and returns at once.
    ///
    /// - Returns: false when the system refused a thread (`EAGAIN`: the
    ///   process or user is at its thread limit); `body` did not run.
    @discardableResult
    package static func start(_ body: @escaping @Sendable () -> Void) -> Bool {
        #if canImport(Darwin)
        Thread.detachNewThread(body)
        return true
        #else
        let box = Unmanaged.passRetained(Box(body))
        var thread = pthread_t()
        let status = pthread_create(
            &thread, nil,
            { argument in
                guard let argument else { return nil }
                let box = Unmanaged<Box>.fromOpaque(argument).takeRetainedValue()
                box.body()
                return nil
            }, box.toOpaque())
        guard status == 0 else {
            box.release()
            return false
        }
        pthread_detach(thread)
        return true
        #endif
    }

    /// Runs `body` on a thread of its own and returns its result. When the
    /// system refuses a thread, `body` runs on the caller's thread instead:
    /// that blocks a pool thread for a while, but the work is done.
    package static func run<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            let started = start { continuation.resume(returning: body()) }
            if !started { continuation.resume(returning: body()) }
        }
    }

    private final class Box: Sendable {
        let body: @Sendable () -> Void
        init(_ body: @escaping @Sendable () -> Void) { self.body = body }
    }
}
