import AuthFlow
@testable import AuthFlowApple
import Foundation
import Testing

@MainActor
@Suite struct BackgroundTaskExpiryTests {
    @Test func expiryBeforeTheIdentifierIsKnownStillEndsTheTaskOnce() async throws {
        let system = SystemBackgroundTasks()
        system.noTimeLeft = true
        let activity = BackgroundActivity(name: "refresh", host: StandInBackgroundHost(system))
        let error = await #expect(throws: AuthFlowError.self) {
            try await activity.run { () async throws -> String in
                try await Task.sleep(nanoseconds: 5_000_000_000)
                return "late"
            }
        }
        #expect(error?.category == .cancelled)
        #expect(system.ended == [1])
    }

    @Test func theAppMovedToTheBackgroundWhoseTimeExpiresCancelsTheWorkAndEndsTheTaskOnce() async throws {
        let system = SystemBackgroundTasks()
        let activity = BackgroundActivity(name: "refresh", host: StandInBackgroundHost(system))
        let started = LockedValue(false)
        let task = Task { @MainActor in
            try await activity.run { () async throws -> String in
                started.withLock { $0 = true }
                try await Task.sleep(nanoseconds: 5_000_000_000)
                return "late"
            }
        }
        while !started.withLock({ $0 }) { await Task.yield() }
        system.expireAll()
        let error = await #expect(throws: AuthFlowError.self) { try await task.value }
        #expect(error?.category == .cancelled)
        #expect(system.ended == [1])
    }

    @Test func workThatFinishesInTimeEndsTheTaskOnce() async throws {
        let system = SystemBackgroundTasks()
        let activity = BackgroundActivity(name: "refresh", host: StandInBackgroundHost(system))
        #expect(try await activity.run { "done" } == "done")
        system.expireAll()
        #expect(system.ended == [1])
    }
}
