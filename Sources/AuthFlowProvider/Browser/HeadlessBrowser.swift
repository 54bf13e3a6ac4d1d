#if EmbeddedProvider // the EmbeddedProvider package trait
public import AuthFlow
#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// Plays the browser for tests and `authflow demo`: requests a URL without
/// following redirects, as a user agent would before it navigates.
///
/// With ``SignInMode/automatic(subject:)`` the authorization endpoint
/// answers at once with a redirect to the client's redirect URI; the
/// `Location` is the authorization response.
public struct HeadlessBrowser: Sendable {
    /// The network; it must not follow redirects (`URLSessionTransport` does not).
    public let transport: any HTTPTransport
    /// Bound on each request, in seconds.
    public let timeout: TimeInterval

    /// Creates a browser.
    public init(transport: any HTTPTransport = URLSessionTransport(), timeout: TimeInterval = 10) {
        self.transport = transport
        self.timeout = timeout
    }

    /// GETs `url`.
    public func get(_ url: URL) async throws -> HTTPTransportResponse {
        try await transport.send(HTTPTransportRequest(method: "GET", url: url, headers: [("Accept", "text/html")], timeout: timeout))
    }

    /// GETs `url` and returns where it redirects to.
    ///
    /// - Throws: `AuthFlowError` (`invalid_response`) when the answer is
    ///   not a redirect, for example an error page or a login page.
    public func redirectLocation(of url: URL) async throws -> URL {
        let response = try await get(url)
        guard (300..<400).contains(response.status), let location = response.header("Location"),
            let target = URL(string: location, relativeTo: url)?.absoluteURL
        else {
            throw AuthFlowError(.invalidResponse, "expected a redirect, got HTTP \(response.status)")
        }
        return target
    }
}
#endif
