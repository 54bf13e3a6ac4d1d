// expect(iOS): incorrect argument label
// A misspelled parameter label of ASWebAuthenticationSession's initializer.
import AuthenticationServices
import Foundation

func makeSession(_ url: URL) -> ASWebAuthenticationSession {
    ASWebAuthenticationSession(url: url, callbackScheme: "com.example.app", completionHandler: { _, _ in })
}
