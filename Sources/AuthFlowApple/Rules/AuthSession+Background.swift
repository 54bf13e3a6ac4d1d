public import AuthFlow
import Foundation

extension AuthSession {
    /// ``freshAccessToken(minimumValidity:)`` inside a ``BackgroundActivity`` on `host`: a
    /// refresh in flight keeps running when the app moves to the background,
    /// and the caller gets a `cancelled` error instead of a suspended request
    /// if the system ends the background time first.
    public nonisolated func freshAccessToken(continuingIn host: any BackgroundExecutionHost) async throws -> String {
        try await BackgroundActivity(name: "AuthFlow token refresh", host: host).run { try await self.freshAccessToken() }
    }

    /// ``send(_:)`` inside a ``BackgroundActivity`` on `host`.
    public nonisolated func send(_ request: HTTPTransportRequest, continuingIn host: any BackgroundExecutionHost) async throws -> HTTPTransportResponse {
        try await BackgroundActivity(name: "AuthFlow request", host: host).run { try await self.send(request) }
    }
}
