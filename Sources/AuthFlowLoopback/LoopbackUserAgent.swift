public import AuthFlow

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// An `AuthorizationUserAgent` for desktops and terminals: opens the
/// authorization URL in a browser and waits for the redirect on a
/// ``LoopbackListener``.
public struct LoopbackUserAgent: AuthorizationUserAgent {
    /// The listener whose ``LoopbackListener/redirectURI`` the request uses.
    public let listener: LoopbackListener
    /// How long to wait for the redirect, in seconds.
    public let timeout: TimeInterval
    /// Opens the URL; `nil` only waits (the caller shows the URL itself).
    public let open: (@Sendable (URL) throws -> Void)?

    /// Creates a user agent.
    public init(listener: LoopbackListener, timeout: TimeInterval = 300, open: (@Sendable (URL) throws -> Void)? = SystemBrowser.open) {
        self.listener = listener
        self.timeout = timeout
        self.open = open
    }

    /// Opens `request` in the browser and waits for the listener's callback.
    public func authorize(_ request: AuthorizationRequest) async throws -> URL {
        guard listener.receives(request.redirectURI) else {
            throw AuthFlowError(.configuration, "the request's redirect URI is not this listener's")
        }
        listener.prepare(for: request)
        try open?(request.url)
        return try await listener.waitForCallback(for: request, timeout: timeout)
    }
}
