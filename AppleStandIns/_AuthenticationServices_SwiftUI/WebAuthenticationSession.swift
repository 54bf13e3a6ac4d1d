// The cross-import overlay of AuthenticationServices and SwiftUI: visible to a
// file that imports both, as on Apple platforms.
@_exported import AuthenticationServices
import Foundation
@_exported import SwiftUI

/// https://developer.apple.com/documentation/authenticationservices/webauthenticationsession
@available(iOS 16.4, macCatalyst 16.4, macOS 13.3, tvOS 16.4, visionOS 1.0, watchOS 9.4, *)
@MainActor public struct WebAuthenticationSession {
    /// https://developer.apple.com/documentation/authenticationservices/webauthenticationsession/browsersession
    public struct BrowserSession: Sendable {
        /// https://developer.apple.com/documentation/authenticationservices/webauthenticationsession/browsersession/ephemeral
        public static var ephemeral: WebAuthenticationSession.BrowserSession { fatalError("stand-in") }
        /// https://developer.apple.com/documentation/authenticationservices/webauthenticationsession/browsersession/shared
        public static var shared: WebAuthenticationSession.BrowserSession { fatalError("stand-in") }
    }

    /// https://developer.apple.com/documentation/authenticationservices/webauthenticationsession/authenticate(using:callbackurlscheme:preferredbrowsersession:)
    @MainActor public func authenticate(
        using url: URL, callbackURLScheme: String, preferredBrowserSession: WebAuthenticationSession.BrowserSession? = nil
    ) async throws -> URL { fatalError("stand-in") }

    /// https://developer.apple.com/documentation/authenticationservices/webauthenticationsession/authenticate(using:callback:preferredbrowsersession:additionalheaderfields:)
    @available(iOS 17.4, macCatalyst 17.4, macOS 14.4, tvOS 17.4, visionOS 1.1, watchOS 10.4, *)
    @MainActor public func authenticate(
        using url: URL, callback: ASWebAuthenticationSession.Callback,
        preferredBrowserSession: WebAuthenticationSession.BrowserSession? = nil, additionalHeaderFields: [String: String]
    ) async throws -> URL { fatalError("stand-in") }
}

@available(iOS 16.4, macCatalyst 16.4, macOS 13.3, tvOS 16.4, visionOS 1.0, watchOS 9.4, *)
extension EnvironmentValues {
    /// https://developer.apple.com/documentation/swiftui/environmentvalues/webauthenticationsession
    public var webAuthenticationSession: WebAuthenticationSession { fatalError("stand-in") }
}
