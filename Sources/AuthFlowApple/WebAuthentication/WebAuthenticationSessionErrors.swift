import Foundation

extension WebAuthenticationEnding {
    /// `ASWebAuthenticationSessionErrorDomain`, the domain of
    /// `ASWebAuthenticationSessionError` bridged to `NSError`
    /// (ASWebAuthenticationSession.h; the value seen in device logs:
    /// "Error Domain=com.apple.AuthenticationServices.WebAuthenticationSession Code=1").
    package static let sessionErrorDomain = "com.apple.AuthenticationServices.WebAuthenticationSession"

    /// How `error`, as the framework delivers it to the completion handler
    /// (or SwiftUI's `authenticate` throws it), ended the session. Read from
    /// the bridged `NSError` — domain, code, `userInfo` — the form the system
    /// reports on every SDK:
    ///
    /// - code 1 (`canceledLogin`) with an empty `userInfo` is the user
    ///   closing the sheet; with a failure reason it is the system refusing
    ///   the session (Auth0.swift makes the same distinction: a cancel only
    ///   when `userInfo` is empty);
    /// - code 2 (`presentationContextNotProvided`) and 3
    ///   (`presentationContextInvalid`);
    /// - anything else (another domain, an unknown code) is `other`.
    package init(_ error: any Error) {
        let nsError = error as NSError
        guard nsError.domain == Self.sessionErrorDomain else {
            self = .other(error)
            return
        }
        switch nsError.code {
        case 1:
            if nsError.userInfo.isEmpty {
                self = .canceledLogin(error)
            } else {
                self = .refusedBySystem(error, reason: Self.reason(in: nsError.userInfo))
            }
        case 2: self = .presentationContextNotProvided(error)
        case 3: self = .presentationContextInvalid(error)
        default: self = .other(error)
        }
    }

    /// The system's own words for a refusal, from the keys Foundation
    /// defines for them; nil when `userInfo` has none of them.
    static func reason(in userInfo: [String: Any]) -> String? {
        for key in [NSLocalizedFailureReasonErrorKey, NSLocalizedDescriptionKey, NSDebugDescriptionErrorKey] {
            if let text = userInfo[key] as? String, !text.isEmpty { return text }
        }
        return nil
    }
}
