// expect(iOS): missing argument for parameter 'additionalHeaderFields'
// The https form of WebAuthenticationSession.authenticate has no default for its header fields.
import AuthenticationServices
import Foundation
import SwiftUI

@available(iOS 17.4, *)
@MainActor func signIn(_ session: WebAuthenticationSession, _ url: URL) async throws -> URL {
    try await session.authenticate(using: url, callback: .https(host: "app.example.com", path: "/callback"))
}
