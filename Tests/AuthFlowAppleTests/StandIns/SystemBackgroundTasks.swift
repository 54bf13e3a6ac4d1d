@testable import AuthFlowApple

/// A behavioural stand-in for `UIApplication`'s background tasks: it hands
/// out identifiers, calls the expiration handler when time runs out — even
/// before `beginBackgroundTask` returns when no time is left — and records
/// which tasks were ended and how often. Sources: the
/// `beginBackgroundTask(withName:expirationHandler:)` documentation (every
/// task must be ended, also from the expiration handler, or the app is
/// terminated; the handler is called when the remaining time runs out) and
/// "UIApplication Background Task Notes" (Apple Developer Forums, thread
/// 85066: every task must be ended, from the handler too). The handler
/// running inside `beginBackgroundTask`, with no time left, is the case an
/// app must survive whether or not a device shows it often.
@MainActor
final class SystemBackgroundTasks {
    private var next = 1
    private var handlers: [Int: @MainActor () -> Void] = [:]
    private(set) var ended: [Int] = []
    /// No background time left: the handler runs inside `beginBackgroundTask`.
    var noTimeLeft = false

    func beginBackgroundTask(expirationHandler: @escaping @MainActor () -> Void) -> Int {
        let id = next
        next += 1
        if noTimeLeft {
            expirationHandler()
        } else {
            handlers[id] = expirationHandler
        }
        return id
    }

    func endBackgroundTask(_ id: Int) { ended.append(id) }

    /// The app's background time runs out.
    func expireAll() {
        let pending = handlers
        handlers = [:]
        for (_, handler) in pending.sorted(by: { $0.key < $1.key }) { handler() }
    }
}

/// ``ApplicationBackgroundHost``'s logic over the stand-in.
final class StandInBackgroundHost: BackgroundExecutionHost {
    let system: SystemBackgroundTasks
    init(_ system: SystemBackgroundTasks) { self.system = system }

    @MainActor
    func beginActivity(named name: String, expiration: @escaping @Sendable () -> Bool) async -> BackgroundActivityID? {
        let system = system
        let ending = BackgroundTaskEnding<Int> { system.endBackgroundTask($0) }
        let id = system.beginBackgroundTask { if expiration() { ending.expire() } }
        ending.began(id)
        return BackgroundActivityID(rawValue: id)
    }

    @MainActor
    func endActivity(_ id: BackgroundActivityID) async {
        system.endBackgroundTask(id.rawValue)
    }
}
