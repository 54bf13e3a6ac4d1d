// LocalAuthentication, only what the Secure Enclave key API names, from
// Apple's documented Swift declaration.
import Foundation

/// https://developer.apple.com/documentation/localauthentication/lacontext
@available(iOS 8.0, macCatalyst 13.1, macOS 10.10, visionOS 1.0, watchOS 9.0, *)
open class LAContext: NSObject {
    public override init() { fatalError("stand-in") }
}

#if !os(watchOS)
extension LAContext {
    /// https://developer.apple.com/documentation/localauthentication/lacontext/touchidauthenticationallowablereuseduration
    /// (an Objective-C property: a computed property here).
    @available(iOS 9.0, macCatalyst 13.1, macOS 10.12, visionOS 1.0, *)
    @available(watchOS, unavailable)
    public var touchIDAuthenticationAllowableReuseDuration: TimeInterval {
        get { fatalError("stand-in") }
        set {}
    }
}
#endif
