import AuthFlow
import AuthFlowApple
import AuthenticationServices
import Foundation
import Observation
import SwiftUI
import UIKit

/// The app's sign-in state, driven by AuthFlow's public API.
@MainActor
@Observable
final class SessionModel {
    /// The signed-in user's subject, nil when signed out.
    private(set) var subject: String?
    /// A line for the user (errors, API results).
    private(set) var message: String?
    /// True while a sign-in or sign-out runs: the buttons that start one are
    /// disabled, so a double tap opens one sheet.
    private(set) var isWorking = false

    private var session: AuthSession?
    private let auth: AppleSignIn?

    /// The API the example calls with the access token.
    private let api = URL(string: "https://api.example.com/me")!

    init() {
        do {
            // An app reads the same keys from its Info.plist with `try AppleSignIn()`.
            auth = AppleSignIn(settings: try AppleSignInSettings(dictionary: ExampleSettings.authFlow))
        } catch {
            auth = nil
            message = (error as? AuthFlowError)?.recovery ?? "The AuthFlow settings in ExampleSettings.swift are incomplete."
        }
    }

    /// At launch: the session saved in the Keychain, without the network.
    func restore() async {
        guard let auth, session == nil else { return }
        do {
            if let restored = try await auth.restore() {
                session = restored
                subject = try await restored.currentCredentials?.subject ?? "(no ID token)"
            }
        } catch {
            show(error)
        }
    }

    /// Signs in with the view's web-authentication session. Call it from
    /// the button's action: `isWorking` is set before the first suspension,
    /// so a second tap finds the button disabled.
    func signIn(using webAuthenticationSession: WebAuthenticationSession) async {
        guard let auth, !isWorking else { return }
        isWorking = true
        defer { isWorking = false }
        do {
            let session = try await auth.signIn(using: webAuthenticationSession)
            self.session = session
            subject = try await session.currentCredentials?.subject ?? "(no ID token)"
            message = nil
        } catch {
            show(error)
        }
    }

    /// Calls the API with a fresh access token; a refresh in flight
    /// continues if the app moves to the background.
    func callAPI() async {
        guard let session else { return }
        do {
            let response = try await send(on: session)
            message = "The API answered HTTP \(response.status)."
        } catch let error as AuthFlowError where error.underlyingError as? BiometricFailure == .locked {
            // With BiometricProtection: the in-app reuse window is over, and
            // only a foreground call may show Face ID. Unlock (one prompt)
            // and try once more.
            do {
                guard let auth, let unlocked = try await auth.restore() else { return }
                self.session = unlocked
                message = "The API answered HTTP \(try await send(on: unlocked).status)."
            } catch {
                show(error)
            }
        } catch let error as AuthFlowError where error.category == .reauthenticationRequired {
            self.session = nil
            subject = nil
            message = "Your sign-in expired. Sign in again."
        } catch {
            show(error)
        }
    }

    /// The API call; a refresh in flight continues if the app moves to the background.
    private func send(on session: AuthSession) async throws -> HTTPTransportResponse {
        try await session.send(
            HTTPTransportRequest(method: "GET", url: api),
            continuingIn: ApplicationBackgroundHost(application: UIApplication.shared))
    }

    /// Signs out: revokes, clears the Keychain and ends the provider's
    /// browser session in the same kind of sheet as sign-in.
    func signOut(using webAuthenticationSession: WebAuthenticationSession) async {
        guard let auth, let session, !isWorking else { return }
        isWorking = true
        defer { isWorking = false }
        do {
            let result = try await auth.signOut(session, using: webAuthenticationSession)
            if !result.local.revocationFailures.isEmpty {
                message = "Signed out on this device; the provider could not be reached to revoke the tokens."
            } else if result.browserStep == .failed {
                let reason = result.browserFailure?.recovery ?? result.browserFailure?.message ?? ""
                message = "Signed out on this device; the provider's sign-out page could not be shown. \(reason)"
            } else {
                message = nil
            }
        } catch {
            show(error)
        }
        self.session = nil
        subject = nil
    }

    /// Shows what went wrong: nothing for a sign-in the user cancelled (or a
    /// second tap while one runs); for a setup problem — a missing
    /// `webcredentials` association, a wrong redirect URI — what the
    /// developer must fix, so "Sign in" never silently does nothing.
    func show(_ error: any Error) {
        guard let error = error as? AuthFlowError else {
            message = "Something went wrong."
            return
        }
        switch error.category {
        case .cancelled:
            message = nil
        case .configuration:
            message = "Sign-in is not set up correctly: \(error.message). \(error.recovery ?? "")"
        default:
            message = error.recovery ?? error.message
        }
    }
}
