import AuthFlow

/// An opaque identifier of one background activity granted by a
/// ``BackgroundExecutionHost``.
public struct BackgroundActivityID: Sendable, Hashable {
    /// The host's identifier (on iOS, `UIBackgroundTaskIdentifier.rawValue`).
    public let rawValue: Int

    /// Wraps a host identifier.
    public init(rawValue: Int) {
        self.rawValue = rawValue
    }
}

/// The system service that lets work in flight continue for a while after
/// the app leaves the foreground (on iOS, `UIApplication.beginBackgroundTask`).
///
/// The rules of using it live in ``BackgroundActivity`` so they are tested
/// on every platform; a host only forwards the two calls.
public protocol BackgroundExecutionHost: Sendable {
    /// Asks for background time for an activity called `name`. `expiration`
    /// is called at most once, when the system is about to end the time; it
    /// returns whether the host must end the activity itself right after
    /// (`true` when ``endActivity(_:)`` has not been and will not be called
    /// for it). Returns nil when the system grants no time.
    func beginActivity(named name: String, expiration: @escaping @Sendable () -> Bool) async -> BackgroundActivityID?

    /// Ends an activity that finished before its time expired.
    func endActivity(_ id: BackgroundActivityID) async
}

/// Runs an operation inside a background activity: the operation keeps
/// running when the app moves to the background, the activity is ended
/// exactly once whichever way the operation ends, and when the system
/// expires the time first the operation is cancelled and the caller gets a
/// `cancelled` error instead of being suspended mid-request.
public struct BackgroundActivity: Sendable {
    /// The host that grants the time.
    public let host: any BackgroundExecutionHost
    /// The activity's name, shown by the system's debugging tools.
    public let name: String

    /// An activity called `name` on `host`.
    public init(name: String, host: any BackgroundExecutionHost) {
        self.name = name
        self.host = host
    }

    /// Runs `operation`; see the type's description. `onExpiry` runs once
    /// when the system expires the time first, right after `operation` was
    /// cancelled: for work that `operation` shares with other callers and
    /// that must stop too. The caller is answered at expiry, without waiting
    /// for `operation` to notice its cancellation.
    public func run<T: Sendable>(
        _ operation: @escaping @Sendable () async throws -> T,
        onExpiry: @escaping @Sendable () -> Void = {}
    ) async throws -> T {
        // Who ends the activity: the first of "operation finished" and "time expired".
        let ending = LockedValue(Ending.running)
        let answer = FirstAnswer<T>()
        let name = name
        let task = Task {
            do {
                answer.deliver(.success(try await operation()))
            } catch {
                answer.deliver(.failure(error))
            }
        }
        let id = await host.beginActivity(named: name) {
            let won = ending.withLock { state -> Bool in
                guard state == .running else { return false }
                state = .expired
                return true
            }
            if won {
                task.cancel()
                onExpiry()
                answer.deliver(.failure(Self.expired(name)))
            }
            return won
        }
        let result = await answer.value
        let finishedFirst = ending.withLock { state -> Bool in
            guard state == .running else { return false }
            state = .finished
            return true
        }
        if finishedFirst, let id { await host.endActivity(id) }
        if !finishedFirst {
            // Expired: a value that arrived first still stands; anything else was cut short.
            if case .success(let value) = result { return value }
            throw Self.expired(name)
        }
        return try result.get()
    }

    private static func expired(_ name: String) -> AuthFlowError {
        AuthFlowError(
            .cancelled, "the system ended the app's background time before \(name) finished",
            recovery: "Bring the app to the foreground and try again.")
    }

    private enum Ending: Sendable, Equatable { case running, finished, expired }
}

/// The first of several answers, awaited once.
private final class FirstAnswer<T: Sendable>: Sendable {
    private enum State {
        case waiting(CheckedContinuation<Result<T, any Error>, Never>?)
        case answered(Result<T, any Error>)
    }

    private let state = LockedValue(State.waiting(nil))

    /// Delivers `result` if no answer came before it.
    func deliver(_ result: Result<T, any Error>) {
        let waiting: CheckedContinuation<Result<T, any Error>, Never>?? = state.withLock { state in
            guard case .waiting(let continuation) = state else { return .none }
            state = .answered(result)
            return .some(continuation)
        }
        if case .some(let continuation?) = waiting { continuation.resume(returning: result) }
    }

    /// The first answer, when it comes.
    var value: Result<T, any Error> {
        get async {
            await withCheckedContinuation { continuation in
                let known: Result<T, any Error>? = state.withLock { state in
                    switch state {
                    case .waiting:
                        state = .waiting(continuation)
                        return nil
                    case .answered(let result): return result
                    }
                }
                if let known { continuation.resume(returning: known) }
            }
        }
    }
}
