/// One poll of the token endpoint in the device flow, as reported to an
/// observer of ``PendingDeviceAuthorization/credentials(onPoll:)``.
public struct DevicePoll: Sendable, Equatable {
    /// What the token endpoint answered.
    public enum Outcome: String, Sendable, Equatable {
        /// `authorization_pending`: the user has not decided yet.
        case pending
        /// `slow_down`: the interval grows by 5 seconds from the next poll on.
        case slowDown = "slow_down"
        /// The request timed out; the interval doubles before the next poll
        /// (RFC 8628 §3.5).
        case retry
        /// Tokens were issued.
        case granted
    }

    /// 1 for the first poll.
    public let attempt: Int
    /// How long AuthFlow waited before this poll.
    public let interval: Duration
    /// The answer.
    public let outcome: Outcome

    /// Creates a poll record.
    public init(attempt: Int, interval: Duration, outcome: Outcome) {
        self.attempt = attempt
        self.interval = interval
        self.outcome = outcome
    }
}
