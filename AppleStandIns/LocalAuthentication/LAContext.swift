// LocalAuthentication, only what the Apple layer names, from Apple's
// documented Swift declarations and LocalAuthentication/LAContext.h.
import Foundation

/// https://developer.apple.com/documentation/localauthentication/lacontext
@available(iOS 8.0, macCatalyst 13.1, macOS 10.10, visionOS 1.0, watchOS 9.0, *)
open class LAContext: NSObject {
    public override init() { fatalError("stand-in") }
}

#if !os(watchOS) && !os(tvOS)
extension LAContext {
    /// https://developer.apple.com/documentation/localauthentication/lacontext/touchidauthenticationallowablereuseduration
    /// (an Objective-C property: a computed property here). LAContext.h:
    /// `API_AVAILABLE(macos(10.12), ios(9.0)) API_UNAVAILABLE(watchos, tvos)`;
    /// "meant only for reusing biometric matches from the device lock screen.
    /// It does not allow reusing previous biometric matches in application".
    @available(iOS 9.0, macCatalyst 13.1, macOS 10.12, visionOS 1.0, *)
    @available(watchOS, unavailable)
    @available(tvOS, unavailable)
    public var touchIDAuthenticationAllowableReuseDuration: TimeInterval {
        get { fatalError("stand-in") }
        set {}
    }

    /// https://developer.apple.com/documentation/localauthentication/lacontext/interactionnotallowed
    /// LAContext.h: `API_AVAILABLE(macos(10.13), ios(11.0)) API_UNAVAILABLE(watchos, tvos)`;
    /// with `kSecUseAuthenticationContext` "the keychain call will eventually
    /// fail with errSecInteractionNotAllowed instead of displaying the
    /// authentication UI".
    @available(iOS 11.0, macCatalyst 13.1, macOS 10.13, visionOS 1.0, *)
    @available(watchOS, unavailable)
    @available(tvOS, unavailable)
    public var interactionNotAllowed: Bool {
        get { fatalError("stand-in") }
        set {}
    }
}
#endif
