import AuthFlow

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What the listener makes of a callback request, and so which page the
/// browser shows.
enum CallbackVerdict: Sendable, Equatable {
    /// Not the expected callback (no or wrong `state`, or one was already
    /// delivered): refused and not handed on.
    case ignored
    /// Handed on, and the engine's validation accepts it: a code to exchange.
    case signedIn
    /// Handed on, but it is an error response (`error=access_denied`, a
    /// form-posted `login_required`, …) or fails validation (`iss`, no code,
    /// a repeated parameter): the application reports why; the page echoes
    /// nothing the server sent.
    case failed
    /// The provider's redirect after RP-initiated logout, with the state sent.
    case signedOut

    /// The page for the verdict (nil for ``ignored``).
    var page: String? {
        switch self {
        case .ignored: nil
        case .signedIn: Pages.done
        case .failed: Pages.failed
        case .signedOut: Pages.signedOut
        }
    }
}

/// The one redirect the listener waits for: the response to an
/// authorization request, or the provider's redirect back after an
/// RP-initiated logout.
enum CallbackExpectation: Sendable {
    case authorization(AuthorizationRequest)
    case endSession(EndSessionRequest)

    func matchesState(_ value: String) -> Bool {
        switch self {
        case .authorization(let request): request.matchesState(value)
        case .endSession(let request): request.matchesState(value)
        }
    }

    /// Whether the response may come as a form POST (`response_mode=form_post`).
    var expectsFormPost: Bool {
        if case .authorization(let request) = self { return request.expectsFormPost }
        return false
    }

    /// The verdict on `target` (path and query, as received) that carried
    /// the expected state, from the same validation the engine runs on the
    /// URL it is handed.
    func verdict(target: String) -> CallbackVerdict {
        switch self {
        case .authorization(let request):
            guard let url = URL(string: target, relativeTo: request.redirectURI)?.absoluteURL,
                (try? request.validateCallback(url)) != nil
            else { return .failed }
            return .signedIn
        case .endSession(let request):
            guard let base = request.postLogoutRedirectURI,
                let url = URL(string: target, relativeTo: base)?.absoluteURL,
                (try? request.validateRedirect(url)) != nil
            else { return .failed }
            return .signedOut
        }
    }
}
