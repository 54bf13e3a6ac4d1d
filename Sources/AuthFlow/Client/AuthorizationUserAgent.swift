#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// Shows the authorization URL to the user and returns the callback URL.
///
/// The seam between the engine and a browser: `ASWebAuthenticationSession`
/// on Apple platforms, the system browser plus a loopback listener on
/// desktops. A user agent only carries URLs; the engine validates the callback.
public protocol AuthorizationUserAgent: Sendable {
    /// Presents `request.url` and returns the URL the provider redirected to.
    ///
    /// Throws ``AuthFlowError`` with ``AuthFlowError/Category/cancelled`` when
    /// the user cancels and ``AuthFlowError/Category/timeout`` when no
    /// callback arrives in time.
    func authorize(_ request: AuthorizationRequest) async throws -> URL
}
