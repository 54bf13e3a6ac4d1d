import AuthFlow
import AuthFlowApple
import Foundation
import Observation
import UIKit

/// The app's sign-in state, driven by AuthFlow.
@MainActor
@Observable
final class SessionModel {
    enum State {
        case signedOut
        case signedIn(subject: String, claims: [String: JSONValue], canUsePayments: Bool)
    }

    private(set) var state: State = .signedOut
    private(set) var message: String?
    private var session: AuthSession?
    private var client: OAuthClient?

    /// Info.plist key `AuthFlow`: Issuer, ClientID, RedirectURI, Scopes.
    private func configuration() throws -> ClientConfiguration {
        try ClientConfiguration(dictionary: Bundle.main.object(forInfoDictionaryKey: "AuthFlow") as? [String: Any] ?? [:])
    }

    func signIn(from window: UIWindow) async {
        do {
            let configuration = try configuration()
            let client = try await OAuthClient(configuration: configuration)
            let credentials = try await client.signIn(redirectURI: configuration.redirectURI, scopes: configuration.scopes,
                                                      userAgent: WebAuthenticationUserAgent(anchor: window))
            let store = KeychainCredentialStore(key: CredentialKey(issuer: client.metadata.issuer ?? "", clientID: client.clientID))
            session = AuthSession(client: client, store: store, credentials: credentials)
            self.client = client
            state = .signedIn(subject: credentials.subject ?? "-", claims: credentials.idToken?.all ?? [:],
                              canUsePayments: credentials.hasScope("payments"))
            message = nil
        } catch let error as AuthFlowError {
            message = error.category == .cancelled ? nil : error.recoverySuggestion
        } catch {
            message = "Sign-in failed."
        }
    }

    func callAPI() async {
        guard let session else { return }
        do {
            let response = try await session.send(HTTPRequest(method: "GET", url: URL(string: "https://api.example.com/me")!))
            message = "API answered HTTP \(response.status)"
        } catch let error as AuthFlowError {
            if error.category == .reauthenticationRequired { state = .signedOut }
            message = error.recoverySuggestion
        } catch {
            message = "The request failed."
        }
    }

    func signOut() async {
        guard let session else { return }
        do {
            if let url = try await session.signOut() { await UIApplication.shared.open(url) }
        } catch {
            message = "Signed out on this device; the provider could not be reached."
        }
        self.session = nil
        state = .signedOut
    }
}
