import Foundation
import Testing

@testable import AuthFlow

/// The session's in-process gate beside the store's lock: one body at a
/// time, in arrival order; a waiter cancelled while it waits leaves.
@Suite("SerialGate")
struct SerialGateTests {
    @Test("bodies run one at a time, in the order they arrived")
    func oneAtATime() async throws {
        let gate = SerialGate()
        let log = LockedValue<[Int]>([])
        let inside = LockedValue(0)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<20 {
                group.addTask {
                    try await gate.run {
                        let concurrent = inside.withLock { value -> Int in
                            value += 1
                            return value
                        }
                        #expect(concurrent == 1)
                        try await Task.sleep(for: .milliseconds(1))
                        log.withLock { $0.append(index) }
                        inside.withLock { $0 -= 1 }
                    }
                }
                try await Task.sleep(for: .milliseconds(2))
            }
            try await group.waitForAll()
        }
        #expect(log.withLock { $0 } == Array(0..<20))
    }

    @Test("a waiter cancelled while it waits throws CancellationError; the gate goes on to the next")
    func cancelledWaiter() async throws {
        let gate = SerialGate()
        let release = AsyncStream<Void>.makeStream()
        let holder = Task {
            try await gate.run {
                for await _ in release.stream { break }
            }
        }
        try await Task.sleep(for: .milliseconds(50))
        let waiter = Task { try await gate.run { "entered" } }
        try await Task.sleep(for: .milliseconds(50))
        waiter.cancel()
        await #expect(throws: CancellationError.self) { try await waiter.value }
        let next = Task { try await gate.run { "next" } }
        release.continuation.yield()
        try await holder.value
        #expect(try await next.value == "next")
    }
}
