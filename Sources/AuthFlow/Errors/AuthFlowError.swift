#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// The one error type AuthFlow throws.
///
/// An error speaks to two audiences:
///
/// - **People.** ``errorDescription`` is a sentence for the user ("The sign-in
///   provider refused the request.") and ``recoverySuggestion`` says what to do
///   next. Both reach `localizedDescription`, `NSError`'s
///   `localizedRecoverySuggestion` and SwiftUI alerts through `LocalizedError`.
/// - **Programs and developers.** ``category`` is stable and machine readable;
///   branch on it with `==` or in a `switch` (add a `default:` — categories can
///   be added). ``reason`` names the rule that failed, ``oauth`` carries the
///   server's `error`, `error_description` and `error_uri`, ``message`` the
///   details, ``remedy`` the fix as a value (for a program that says it in
///   its own terms, such as a command-line tool's flags), and
///   ``underlyingError`` the system error beneath (errno, `OSStatus`,
///   `URLError`). ``description`` and ``debugDescription`` put them on one
///   line for logs.
///
/// No message or recovery names a command-line flag: they speak in the
/// engine's API terms, and ``remedy`` carries the fix for other terms.
///
/// No part of an error ever contains a token, code, verifier, state, nonce or
/// client secret.
public struct AuthFlowError: Error, Sendable, CustomStringConvertible, CustomDebugStringConvertible {
    /// The category of failure.
    public let category: Category
    /// The rule that failed, for ``Category/idTokenInvalid`` and ``Category/jwtInvalid``.
    public let reason: Reason?
    /// The server's error response, for ``Category/oauthError``.
    public let oauth: OAuthErrorResponse?
    /// A short explanation for developers. Never contains secrets.
    public let message: String
    /// What to do about this particular failure, when the place that threw
    /// it knows better than the category's general advice (the setting to
    /// change, the issuer the provider actually names), in the engine's API
    /// terms.
    public let recovery: String?
    /// The fix as a value, when there is a known one: what a program that
    /// speaks in other terms than the engine's API (a command-line tool's
    /// flags) shows instead of ``recovery``.
    public let remedy: Remedy?
    /// The system error beneath this one (errno, OSStatus, URLError), when
    /// there is one. Never contains secrets.
    public let underlyingError: (any Error & Sendable)?

    /// Creates an error. `message` and `recovery` must not contain secrets;
    /// `recovery`, when given, replaces the category's general advice, and
    /// `remedy` says the same fix as a value.
    public init(
        _ category: Category, _ message: String, reason: Reason? = nil, oauth: OAuthErrorResponse? = nil,
        recovery: String? = nil, remedy: Remedy? = nil, underlyingError: (any Error & Sendable)? = nil
    ) {
        self.category = category
        self.message = message
        self.reason = reason
        self.oauth = oauth
        self.recovery = recovery
        self.remedy = remedy
        self.underlyingError = underlyingError
    }

    /// One line for logs and developers: the category, the reason, the
    /// server's answer and the message, such as
    /// `id_token_invalid (at_hash): at_hash does not match the access token`.
    public var description: String {
        var text = category.rawValue
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

    /// ``description`` followed by the underlying system error, when there is one.
    public var debugDescription: String {
        guard let underlyingError else { return description }
        return "\(description) (underlying: \(String(describing: underlyingError)))"
    }
}

extension AuthFlowError: LocalizedError {
    /// A sentence for the user saying what went wrong, without protocol
    /// details. ``description`` has those.
    public var errorDescription: String? {
        switch category {
        case .oauthError:
            switch oauth?.error {
            case "access_denied": return "The sign-in was declined."
            case "invalid_client", "unauthorized_client": return "This app is not set up correctly with the sign-in provider."
            case "invalid_grant": return "The sign-in has expired or was already used."
            case "temporarily_unavailable", "server_error": return "The sign-in service is not working right now."
            default: return "The sign-in provider refused the request."
            }
        case .stateMismatch, .issuerMismatch, .idTokenInvalid, .userinfoSubjectMismatch:
            return "The answer from the sign-in provider could not be trusted."
        case .jwtInvalid: return "A token could not be verified."
        case .invalidResponse: return "The sign-in provider sent an answer that could not be understood."
        case .configuration: return "The sign-in settings are not valid."
        case .network: return "The sign-in provider could not be reached."
        case .timeout: return "The sign-in took too long."
        case .cancelled: return "The sign-in was cancelled."
        case .reauthenticationRequired: return "You are signed out."
        case .storage: return "The saved sign-in could not be read or written."
        default: return "Signing in failed."
        }
    }

    /// What to tell the user to do next: ``recovery`` when the place that
    /// threw knows, else the category's general advice; `nil` only for a
    /// category this version of AuthFlow does not know.
    public var recoverySuggestion: String? {
        if let recovery { return recovery }
        switch category {
        case .oauthError:
            switch oauth?.error {
            case "access_denied": return "Sign-in was declined. Try again and approve the request."
            case "invalid_client", "unauthorized_client":
                return "The app is not registered correctly with the sign-in provider. Contact the app's developer."
            case "invalid_grant": return "The sign-in expired or was already used. Sign in again."
            case "temporarily_unavailable", "server_error": return "The sign-in service has a problem. Try again later."
            default: return "The sign-in provider refused the request. Try again, or contact the app's developer if it keeps happening."
            }
        case .stateMismatch, .issuerMismatch, .idTokenInvalid, .userinfoSubjectMismatch:
            return "The sign-in response could not be trusted and was discarded. Start the sign-in again."
        case .jwtInvalid:
            return "The token was refused. Get a new token from its issuer."
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
        default:
            return nil
        }
    }
}

extension AuthFlowError: Equatable {
    /// Errors are equal when category, reason, server answer, message,
    /// recovery and remedy agree; the underlying system error is not compared.
    public static func == (lhs: AuthFlowError, rhs: AuthFlowError) -> Bool {
        lhs.category == rhs.category && lhs.reason == rhs.reason && lhs.oauth == rhs.oauth
            && lhs.message == rhs.message && lhs.recovery == rhs.recovery && lhs.remedy == rhs.remedy
    }
}

extension AuthFlowError {
    static func configuration(_ message: String) -> AuthFlowError { .init(.configuration, message) }
    static func invalidResponse(_ message: String) -> AuthFlowError { .init(.invalidResponse, message) }
    static func idToken(_ reason: Reason, _ message: String) -> AuthFlowError {
        .init(.idTokenInvalid, message, reason: reason)
    }
}
