extension AuthFlowError {
    /// What kind of failure happened: a stable, machine-readable name such
    /// as `oauth_error`.
    ///
    /// Categories are values, not enum cases, so a later version can add
    /// one without breaking code that branches on them. Compare with `==`
    /// or match in a `switch`, which needs a `default:` branch:
    ///
    /// ```swift
    /// func isWorthRetrying(_ error: AuthFlowError) -> Bool {
    ///     switch error.category {
    ///     case .network, .timeout: true
    ///     default: false
    ///     }
    /// }
    /// ```
    ///
    /// Encoded (`Codable`) as its raw string.
    public struct Category: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible {
        /// The stable name, such as `oauth_error`.
        public let rawValue: String

        /// A category with the given name.
        public init(rawValue: String) {
            self.rawValue = rawValue
        }

        /// The raw name.
        public var description: String { rawValue }

        /// True when `value` is `pattern`: lets a `switch` match categories.
        public static func ~= (pattern: Category, value: Category) -> Bool {
            pattern == value
        }

        /// The authorization server answered with an OAuth error.
        public static let oauthError = Category(rawValue: "oauth_error")
        /// The `state` of a callback was missing or did not match.
        public static let stateMismatch = Category(rawValue: "state_mismatch")
        /// An issuer did not match the one expected (discovery, RFC 9207 `iss`).
        public static let issuerMismatch = Category(rawValue: "issuer_mismatch")
        /// The ID token failed verification; see ``AuthFlowError/reason``.
        public static let idTokenInvalid = Category(rawValue: "id_token_invalid")
        /// The userinfo `sub` differs from the ID token's.
        public static let userinfoSubjectMismatch = Category(rawValue: "userinfo_subject_mismatch")
        /// The server sent something that is not a valid protocol message.
        public static let invalidResponse = Category(rawValue: "invalid_response")
        /// The client is configured wrongly (bad URL, reserved parameter, …).
        public static let configuration = Category(rawValue: "configuration")
        /// The network failed (connection refused, DNS, TLS, …).
        public static let network = Category(rawValue: "network")
        /// A request or the wait for the browser took too long.
        public static let timeout = Category(rawValue: "timeout")
        /// The user or the app cancelled.
        public static let cancelled = Category(rawValue: "cancelled")
        /// The session ended, or there is none; the user must sign in again.
        public static let reauthenticationRequired = Category(rawValue: "reauthentication_required")
        /// Credentials could not be read, written or locked (file system,
        /// Keychain); ``AuthFlowError/underlyingError`` keeps the cause.
        public static let storage = Category(rawValue: "storage")
        /// A JWT that is not an ID token (an access token, a token another
        /// service issued) failed ``JWTVerifier``'s checks; see
        /// ``AuthFlowError/reason``.
        public static let jwtInvalid = Category(rawValue: "jwt_invalid")

        /// Every category this version of AuthFlow throws, in documentation order.
        public static let known: [Category] = [
            .oauthError, .stateMismatch, .issuerMismatch, .idTokenInvalid, .userinfoSubjectMismatch,
            .invalidResponse, .configuration, .network, .timeout, .cancelled, .reauthenticationRequired,
            .storage, .jwtInvalid,
        ]
    }
}
