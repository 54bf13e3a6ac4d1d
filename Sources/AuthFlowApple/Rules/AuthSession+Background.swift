public import AuthFlow
import Foundation

extension AuthSession {
    /// ``freshAccessToken(minimumValidity:)`` inside a ``BackgroundActivity`` on `host`: a
    /// refresh in flight keeps running when the app moves to the background.
    /// If the system ends the background time first, the caller gets a
    /// `cancelled` error, the background task is ended, and the refresh is
    /// cancelled too: it stops before its token request (waiting for the
    /// store, before a retry), while a token request already sent finishes
    /// when the app runs again and its rotated refresh token is saved.
    public nonisolated func freshAccessToken(continuingIn host: any BackgroundExecutionHost) async throws -> String {
        try await BackgroundActivity(name: "AuthFlow token refresh", host: host).run(
            { try await self.freshAccessToken() }, onExpiry: { self.cancelRefreshInFlight() })
    }

    /// ``send(_:)`` inside a ``BackgroundActivity`` on `host`; on expiry the
    /// request and any refresh it started are cancelled, as for
    /// ``freshAccessToken(continuingIn:)``.
    public nonisolated func send(_ request: HTTPTransportRequest, continuingIn host: any BackgroundExecutionHost) async throws
        -> HTTPTransportResponse
    {
        try await BackgroundActivity(name: "AuthFlow request", host: host).run(
            { try await self.send(request) }, onExpiry: { self.cancelRefreshInFlight() })
    }
}
