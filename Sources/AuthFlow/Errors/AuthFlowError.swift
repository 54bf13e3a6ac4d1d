import Foundation

/// The one error type AuthFlow throws.
///
/// `category` is stable and machine readable; scripts and apps branch on it.
/// For OAuth error responses, ``oauth`` carries the server's `error`,
/// `error_description` and `error_uri`. ``description`` never contains a
/// token, code, verifier, state, nonce or client secret.
public struct AuthFlowError: Error, Sendable, CustomStringConvertible {
    /// What kind of failure happened.
    public enum Category: String, Sendable, Codable, CaseIterable {
        /// The authorization server answered with an OAuth error.
        case oauthError = "oauth_error"
        /// The `state` of a callback was missing or did not match.
        case stateMismatch = "state_mismatch"
        /// An issuer did not match the one expected (discovery, RFC 9207 `iss`).
        case issuerMismatch = "issuer_mismatch"
        /// The ID token failed verification; see ``AuthFlowError/reason``.
        case idTokenInvalid = "id_token_invalid"
        /// The userinfo `sub` differs from the ID token's.
        case userinfoSubjectMismatch = "userinfo_subject_mismatch"
        /// The server sent something that is not a valid protocol message.
        case invalidResponse = "invalid_response"
        /// The client is configured wrongly (bad URL, reserved parameter, …).
        case configuration
        /// The network failed (connection refused, DNS, TLS, …).
        case network
        /// A request or the wait for the browser took too long.
        case timeout
        /// The user or the app cancelled.
        case cancelled
        /// The session ended; the user must sign in again.
        case reauthenticationRequired = "reauthentication_required"
        /// Credentials could not be read, written or locked (file system,
        /// Keychain); ``AuthFlowError/underlyingError`` keeps the cause.
        case storage
    }

    /// Why an ID token was refused (only with ``Category/idTokenInvalid``).
    public enum Reason: String, Sendable, Codable, CaseIterable {
        case signature, algorithm
        case keyNotFound = "key_not_found"
        case issuer, audience
        case authorizedParty = "authorized_party"
        case expired
        case issuedAt = "issued_at"
        case nonce
        case atHash = "at_hash"
        case authTime = "auth_time"
        case subject
        case malformed
    }

    /// The category of failure.
    public let category: Category
    /// The ID token rule that failed, for ``Category/idTokenInvalid``.
    public let reason: Reason?
    /// The server's error response, for ``Category/oauthError``.
    public let oauth: OAuthErrorResponse?
    /// A short human explanation. Never contains secrets.
    public let message: String
    /// What to do about this particular failure, when the place that threw
    /// it knows better than the category's general advice (the flag or
    /// setting to change, the issuer the provider actually names).
    public let recovery: String?
    /// The system error beneath this one (errno, OSStatus, URLError), when
    /// there is one. Never contains secrets.
    public let underlyingError: (any Error & Sendable)?

    /// Creates an error. `message` and `recovery` must not contain secrets.
    public init(_ category: Category, _ message: String, reason: Reason? = nil, oauth: OAuthErrorResponse? = nil,
                recovery: String? = nil, underlyingError: (any Error & Sendable)? = nil) {
        self.category = category
        self.message = message
        self.reason = reason
        self.oauth = oauth
        self.recovery = recovery
        self.underlyingError = underlyingError
    }

    /// A one-line description, safe to log and show.
    public var description: String {
        var text = "\(category.rawValue)"
        if let reason { text += " (\(reason.rawValue))" }
        if let oauth {
            text += ": \(oauth.error)"
            if let detail = oauth.errorDescription { text += " – \(detail)" }
            if message != oauth.error { text += " [\(message)]" }
        } else {
            text += ": \(message)"
        }
        return text
    }

    /// What an app can tell its user to do next.
    public var recoverySuggestion: String {
        if let recovery { return recovery }
        switch category {
        case .oauthError:
            switch oauth?.error {
            case "access_denied": return "Sign-in was declined. Try again and approve the request."
            case "invalid_client", "unauthorized_client": return "The app is not registered correctly with the sign-in provider. Contact the app's developer."
            case "invalid_grant": return "The sign-in expired or was already used. Sign in again."
            case "temporarily_unavailable", "server_error": return "The sign-in service has a problem. Try again later."
            default: return "The sign-in provider refused the request. Try again, or contact the app's developer if it keeps happening."
            }
        case .stateMismatch, .issuerMismatch, .idTokenInvalid, .userinfoSubjectMismatch:
            return "The sign-in response could not be trusted and was discarded. Start the sign-in again."
        case .invalidResponse:
            return "The sign-in provider sent an unexpected answer. Try again later."
        case .configuration:
            return "The app's sign-in settings are wrong. Contact the app's developer."
        case .network:
            return "Check the internet connection and try again."
        case .timeout:
            return "That took too long. Check the connection and try again."
        case .cancelled:
            return "Sign-in was cancelled. Start it again when ready."
        case .reauthenticationRequired:
            return "The session has ended. Sign in again."
        case .storage:
            return "The saved sign-in could not be read or written. Try again; sign in again if it keeps happening."
        }
    }
}

extension AuthFlowError: Equatable {
    /// Errors are equal when category, reason, server answer, message and
    /// recovery agree; the underlying system error is not compared.
    public static func == (lhs: AuthFlowError, rhs: AuthFlowError) -> Bool {
        lhs.category == rhs.category && lhs.reason == rhs.reason && lhs.oauth == rhs.oauth
            && lhs.message == rhs.message && lhs.recovery == rhs.recovery
    }
}

extension AuthFlowError: LocalizedError {
    public var errorDescription: String? { description }
}

extension AuthFlowError {
    static func configuration(_ message: String) -> AuthFlowError { .init(.configuration, message) }
    static func invalidResponse(_ message: String) -> AuthFlowError { .init(.invalidResponse, message) }
    static func idToken(_ reason: Reason, _ message: String) -> AuthFlowError {
        .init(.idTokenInvalid, message, reason: reason)
    }
}

/// An OAuth 2.0 error response (RFC 6749 §4.1.2.1 and §5.2).
public struct OAuthErrorResponse: Sendable, Equatable, Codable {
    /// The `error` code, such as `invalid_grant`.
    public let error: String
    /// The server's `error_description`, if any.
    public let errorDescription: String?
    /// The server's `error_uri`, if any.
    public let errorURI: String?

    /// Creates an error response value.
    public init(error: String, errorDescription: String? = nil, errorURI: String? = nil) {
        self.error = error
        self.errorDescription = errorDescription
        self.errorURI = errorURI
    }

    /// This response with every occurrence of `secrets` in its text replaced
    /// by `<redacted>`: servers sometimes echo what they were sent.
    func redacting(_ secrets: [String]) -> OAuthErrorResponse {
        func scrub(_ text: String?) -> String? {
            guard var text else { return nil }
            for secret in secrets where secret.count >= 4 { text = text.replacingOccurrences(of: secret, with: "<redacted>") }
            return text
        }
        return OAuthErrorResponse(error: scrub(error) ?? error, errorDescription: scrub(errorDescription), errorURI: scrub(errorURI))
    }

    enum CodingKeys: String, CodingKey {
        case error
        case errorDescription = "error_description"
        case errorURI = "error_uri"
    }
}
