import Foundation
import Logging

/// The polling loop of RFC 8628 §3.4–3.5.
///
/// - It waits `interval` before every request, the first one included.
/// - `authorization_pending`: poll again after `interval`.
/// - `slow_down`, or HTTP 429 (`temporarily_unavailable`): `interval` grows
///   by 5 seconds, for this and every later poll.
/// - a request that times out: `interval` doubles (§3.5 asks clients to
///   reduce their polling frequency on connection timeouts).
/// - `expired_token`, or a next poll that would fall after the deadline set
///   by `expires_in`: ``AuthFlowError/Category/timeout``.
/// - `access_denied` and any other error: thrown as it came
///   (``AuthFlowError/Category/oauthError``).
/// - cancellation: ``AuthFlowError/Category/cancelled`` at once; no request
///   is sent after it.
struct DevicePoller: Sendable {
    static let grantType = "urn:ietf:params:oauth:grant-type:device_code"
    static let slowDownStep: Duration = .seconds(5)

    let endpoint: TokenEndpoint
    let deviceCode: String
    let interval: Int
    let scopes: [String]
    let deadline: ContinuousClock.Instant
    let clock: any PollingClock
    let logger: Logger

    func poll(onPoll: (@Sendable (DevicePoll) -> Void)?) async throws -> TokenResponse {
        // An interval of 0 would hammer the server: wait at least a second.
        var wait = Duration.seconds(max(interval, 1))
        var attempt = 0
        let form: [(String, String)] = [("grant_type", Self.grantType), ("device_code", deviceCode)]
        while true {
            guard clock.now.advanced(by: wait) <= deadline else {
                logger.debug("device code expires before the next poll", metadata: ["polls": "\(attempt)"])
                throw AuthFlowError(.timeout, "the device code expired before the sign-in was approved")
            }
            do {
                try await clock.sleep(for: wait)
            } catch {
                throw Self.cancelled
            }
            guard !Task.isCancelled else { throw Self.cancelled }
            attempt += 1
            let outcome: DevicePoll.Outcome
            do {
                let token = try await endpoint.request(form, requestedScopes: scopes)
                guard !Task.isCancelled else { throw Self.cancelled }
                onPoll?(DevicePoll(attempt: attempt, interval: wait, outcome: .granted))
                return token
            } catch let error as AuthFlowError where !Task.isCancelled {
                switch (error.category, error.oauth?.error) {
                case (.oauthError, "authorization_pending"):
                    outcome = .pending
                case (.oauthError, "slow_down"), (.oauthError, "temporarily_unavailable"):
                    // A rate-limited poll (HTTP 429) backs off like slow_down.
                    outcome = .slowDown
                case (.oauthError, "expired_token"):
                    throw AuthFlowError(.timeout, "the device code expired before the sign-in was approved", oauth: error.oauth)
                case (.timeout, _):
                    outcome = .retry
                default:
                    throw error
                }
            } catch {
                throw Task.isCancelled ? Self.cancelled : error
            }
            onPoll?(DevicePoll(attempt: attempt, interval: wait, outcome: outcome))
            logger.debug(
                "device authorization poll",
                metadata: [
                    "attempt": "\(attempt)", "waited": "\(wait)", "answer": "\(outcome.rawValue)",
                ])
            switch outcome {
            case .slowDown: wait += Self.slowDownStep
            case .retry: wait *= 2
            case .pending, .granted: break
            }
        }
    }

    static var cancelled: AuthFlowError { AuthFlowError(.cancelled, "the device authorization was cancelled") }
}
