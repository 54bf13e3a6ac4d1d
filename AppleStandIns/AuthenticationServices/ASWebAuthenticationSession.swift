import Foundation

/// https://developer.apple.com/documentation/authenticationservices/aswebauthenticationsession
@available(iOS 12.0, macCatalyst 13.0, macOS 10.15, tvOS 16.0, visionOS 1.0, watchOS 6.2, *)
open class ASWebAuthenticationSession: NSObject {
    /// https://developer.apple.com/documentation/authenticationservices/aswebauthenticationsession/completionhandler
    public typealias CompletionHandler = (URL?, (any Error)?) -> Void

    /// https://developer.apple.com/documentation/authenticationservices/aswebauthenticationsession/init(url:callbackurlscheme:completionhandler:)-7fpox
    @available(iOS 12.0, macCatalyst 13.0, macOS 10.15, tvOS 16.0, visionOS 1.0, watchOS 6.2, *)
    public init(url URL: URL, callbackURLScheme: String?, completionHandler: @escaping ASWebAuthenticationSession.CompletionHandler) {
        fatalError("stand-in")
    }

    /// https://developer.apple.com/documentation/authenticationservices/aswebauthenticationsession/init(url:callback:completionhandler:)-6nut7
    @available(iOS 17.4, macCatalyst 17.4, macOS 14.4, tvOS 17.4, visionOS 1.1, watchOS 10.4, *)
    public init(
        url URL: URL, callback: ASWebAuthenticationSession.Callback,
        completionHandler: @escaping ASWebAuthenticationSession.CompletionHandler
    ) { fatalError("stand-in") }

    #if !os(watchOS)
    /// https://developer.apple.com/documentation/authenticationservices/aswebauthenticationsession/presentationcontextprovider
    @available(iOS 13.0, macCatalyst 13.1, macOS 10.15, visionOS 1.0, *)
    @available(tvOS, unavailable)
    @available(watchOS, unavailable)
    /// (An Objective-C `weak` property: a computed property here.)
    open var presentationContextProvider: (any ASWebAuthenticationPresentationContextProviding)? {
        get { fatalError("stand-in") }
        set {}
    }
    #endif

    /// https://developer.apple.com/documentation/authenticationservices/aswebauthenticationsession/prefersephemeralwebbrowsersession
    @available(iOS 13.0, macCatalyst 13.1, macOS 10.15, visionOS 1.0, watchOS 6.2, *)
    @available(tvOS, unavailable)
    open var prefersEphemeralWebBrowserSession: Bool {
        get { fatalError("stand-in") }
        set {}
    }

    /// https://developer.apple.com/documentation/authenticationservices/aswebauthenticationsession/canstart
    @available(iOS 13.4, macCatalyst 13.4, macOS 10.15.4, tvOS 13.4, visionOS 1.0, watchOS 6.2, *)
    open var canStart: Bool { fatalError("stand-in") }

    /// https://developer.apple.com/documentation/authenticationservices/aswebauthenticationsession/start()
    @available(iOS 12.0, macCatalyst 13.0, macOS 10.15, tvOS 16.0, visionOS 1.0, watchOS 6.2, *)
    open func start() -> Bool { fatalError("stand-in") }

    /// https://developer.apple.com/documentation/authenticationservices/aswebauthenticationsession/cancel()
    @available(iOS 12.0, macCatalyst 13.0, macOS 10.15, tvOS 16.0, visionOS 1.0, watchOS 6.2, *)
    open func cancel() { fatalError("stand-in") }
}

@available(iOS 17.4, macCatalyst 17.4, macOS 14.4, tvOS 17.4, visionOS 1.1, watchOS 10.4, *)
extension ASWebAuthenticationSession {
    /// https://developer.apple.com/documentation/authenticationservices/aswebauthenticationsession/callback
    open class Callback: NSObject {
        /// https://developer.apple.com/documentation/authenticationservices/aswebauthenticationsession/callback/customscheme(_:)
        open class func customScheme(_ customScheme: String) -> Self { fatalError("stand-in") }
        /// https://developer.apple.com/documentation/authenticationservices/aswebauthenticationsession/callback/https(host:path:)
        open class func https(host: String, path: String) -> Self { fatalError("stand-in") }
        /// https://developer.apple.com/documentation/authenticationservices/aswebauthenticationsession/callback/matchesurl(_:)
        open func matchesURL(_ url: URL) -> Bool { fatalError("stand-in") }
    }
}

#if !os(watchOS)
/// https://developer.apple.com/documentation/authenticationservices/aswebauthenticationpresentationcontextproviding
@available(iOS 13.0, macCatalyst 13.1, macOS 10.15, visionOS 1.0, *)
@available(tvOS, unavailable)
@available(watchOS, unavailable)
@MainActor public protocol ASWebAuthenticationPresentationContextProviding: NSObjectProtocol {
    /// https://developer.apple.com/documentation/authenticationservices/aswebauthenticationpresentationcontextproviding/presentationanchor(for:)
    func presentationAnchor(for session: ASWebAuthenticationSession) -> ASPresentationAnchor
}
#endif

/// https://developer.apple.com/documentation/authenticationservices/aswebauthenticationsessionerror
/// (an `NS_ERROR_ENUM` imported as a struct with a `Code` enum; the bridged
/// NSError machinery is left out).
@available(iOS 12.0, macCatalyst 13.0, macOS 10.15, tvOS 16.0, visionOS 1.0, watchOS 6.2, *)
public struct ASWebAuthenticationSessionError: Error, Hashable, Sendable {
    /// https://developer.apple.com/documentation/authenticationservices/aswebauthenticationsessionerror/code
    public enum Code: Int, Sendable {
        /// https://developer.apple.com/documentation/authenticationservices/aswebauthenticationsessionerror/code/canceledlogin
        case canceledLogin = 1
        /// https://developer.apple.com/documentation/authenticationservices/aswebauthenticationsessionerror/code/presentationcontextnotprovided
        @available(iOS 13.0, macCatalyst 13.1, macOS 10.15, visionOS 1.0, *)
        @available(tvOS, unavailable)
        @available(watchOS, unavailable)
        case presentationContextNotProvided = 2
        /// https://developer.apple.com/documentation/authenticationservices/aswebauthenticationsessionerror/code/presentationcontextinvalid
        @available(iOS 13.0, macCatalyst 13.1, macOS 10.15, visionOS 1.0, *)
        @available(tvOS, unavailable)
        @available(watchOS, unavailable)
        case presentationContextInvalid = 3
    }
    public let code: Code
    public init(_ code: Code) { self.code = code }
    /// https://developer.apple.com/documentation/authenticationservices/aswebauthenticationsessionerror/canceledlogin
    public static var canceledLogin: Code { .canceledLogin }
}
