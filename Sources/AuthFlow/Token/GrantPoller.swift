import Logging

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The polling loop of RFC 8628 §3.4–3.5, which OpenID CIBA Core 1.0 §10.1
/// and §11 reuse for its poll and ping modes.
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
/// - a ``PollDoorbell`` rung during a wait (a CIBA ping, §10.2) ends that
///   wait early: the token request goes out at once.
struct GrantPoller: Sendable {
    static let slowDownStep: Duration = .seconds(5)

    let endpoint: TokenEndpoint
    /// `grant_type` and the code it polls with.
    let grant: [(String, String)]
    let interval: Int
    let scopes: [String]
    let deadline: ContinuousClock.Instant
    let clock: any PollingClock
    let logger: Logger
    /// The flow, in logs: "device authorization", "backchannel authentication".
    let flow: String
    /// The error when the code expires: "the device code expired before the sign-in was approved".
    let expiredMessage: String
    var doorbell: PollDoorbell? = nil

    func poll(onPoll: (@Sendable (DevicePoll) -> Void)?) async throws -> TokenResponse {
        // An interval of 0 would hammer the server: wait at least a second.
        var wait = Duration.seconds(max(interval, 1))
        var attempt = 0
        while true {
            guard clock.now.advanced(by: wait) <= deadline else {
                logger.debug("\(flow): the code expires before the next poll", metadata: ["polls": "\(attempt)"])
                throw expired(nil)
            }
            let waited = try await pause(wait)
            attempt += 1
            let outcome: DevicePoll.Outcome
            do {
                let token = try await endpoint.request(grant, requestedScopes: scopes)
                guard !Task.isCancelled else { throw cancelled }
                onPoll?(DevicePoll(attempt: attempt, interval: waited, outcome: .granted))
                return token
            } catch let error as AuthFlowError where !Task.isCancelled {
                switch (error.category, error.oauth?.error) {
                case (.oauthError, "authorization_pending"):
                    outcome = .pending
                case (.oauthError, "slow_down"), (.oauthError, "temporarily_unavailable"):
                    // A rate-limited poll (HTTP 429) backs off like slow_down.
                    outcome = .slowDown
                case (.oauthError, "expired_token"):
                    throw expired(error.oauth)
                case (.timeout, _):
                    outcome = .retry
                default:
                    throw error
                }
            } catch {
                throw Task.isCancelled ? cancelled : error
            }
            onPoll?(DevicePoll(attempt: attempt, interval: waited, outcome: outcome))
            logger.debug(
                "\(flow) poll",
                metadata: [
                    "attempt": "\(attempt)", "waited": "\(waited)", "answer": "\(outcome.rawValue)",
                ])
            switch outcome {
            case .slowDown: wait += Self.slowDownStep
            case .retry: wait *= 2
            case .pending, .granted: break
            }
        }
    }

    /// Waits `wait`, or less when the doorbell rings; returns how long it waited.
    private func pause(_ wait: Duration) async throws -> Duration {
        let start = clock.now
        if let doorbell {
            let clock = clock
            await withTaskGroup(of: Void.self) { group in
                group.addTask { try? await clock.sleep(for: wait) }
                group.addTask { await doorbell.wait() }
                await group.next()
                group.cancelAll()
            }
        } else {
            do {
                try await clock.sleep(for: wait)
            } catch {
                throw cancelled
            }
        }
        guard !Task.isCancelled else { throw cancelled }
        return doorbell == nil ? wait : min(wait, start.duration(to: clock.now))
    }

    private func expired(_ oauth: OAuthErrorResponse?) -> AuthFlowError {
        AuthFlowError(.timeout, expiredMessage, oauth: oauth)
    }

    var cancelled: AuthFlowError { AuthFlowError(.cancelled, "the \(flow) was cancelled") }
}

extension GrantPoller {
    /// Polls until the user decides, then verifies the ID token of the answer
    /// (none needed unless `idTokenRequired`; `acrValues` checked when given)
    /// and returns `client`'s credentials of the sign-in, logged as `signedIn`.
    func credentials(
        of client: OAuthClient, onPoll: (@Sendable (DevicePoll) -> Void)?, idTokenRequired: Bool, acrValues: [String]? = nil,
        signedIn: Logger.Message
    ) async throws -> OAuthCredentials {
        let token = try await poll(onPoll: onPoll)
        let claims = try await client.verifyIDToken(in: token, nonce: nil, maxAge: nil, acrValues: acrValues, required: idTokenRequired)
        logger.info(
            signedIn,
            metadata: [
                "issuer": "\(client.metadata.issuer?.identifier ?? "-")", "id_token": "\(claims == nil ? "none" : "verified")",
            ])
        return OAuthCredentials(issuer: client.metadata.issuer, clientID: client.clientID, token: token, idToken: claims)
    }
}
