// Access control of Keychain items and Secure Enclave keys, from Apple's
// documented Swift declarations (only what AuthFlowApple uses).
import Foundation

/// https://developer.apple.com/documentation/security/secaccesscontrol
/// (a Core Foundation type; opaque here).
public final class SecAccessControl: @unchecked Sendable {}

/// https://developer.apple.com/documentation/corefoundation/cfallocator
public typealias CFAllocator = AnyObject
/// https://developer.apple.com/documentation/corefoundation/cferror
public typealias CFError = NSError

/// https://developer.apple.com/documentation/security/secaccesscontrolcreateflags
@available(iOS 8.0, macCatalyst 13.1, macOS 10.10, tvOS 8.0, visionOS 1.0, watchOS 1.0, *)
public struct SecAccessControlCreateFlags: OptionSet, Sendable {
    public let rawValue: UInt
    public init(rawValue: UInt) { self.rawValue = rawValue }
    /// https://developer.apple.com/documentation/security/secaccesscontrolcreateflags/userpresence
    public static var userPresence: SecAccessControlCreateFlags { SecAccessControlCreateFlags(rawValue: 1 << 0) }
    /// https://developer.apple.com/documentation/security/secaccesscontrolcreateflags/biometrycurrentset
    @available(iOS 11.3, macCatalyst 13.1, macOS 10.13.4, tvOS 11.3, visionOS 1.0, watchOS 4.3, *)
    public static var biometryCurrentSet: SecAccessControlCreateFlags { SecAccessControlCreateFlags(rawValue: 1 << 3) }
    /// https://developer.apple.com/documentation/security/secaccesscontrolcreateflags/privatekeyusage
    public static var privateKeyUsage: SecAccessControlCreateFlags { SecAccessControlCreateFlags(rawValue: 1 << 30) }
}

/// https://developer.apple.com/documentation/security/secaccesscontrolcreatewithflags(_:_:_:_:)
@available(iOS 8.0, macCatalyst 13.1, macOS 10.10, tvOS 8.0, visionOS 1.0, watchOS 1.0, *)
public func SecAccessControlCreateWithFlags(
    _ allocator: CFAllocator?, _ protection: CFTypeRef,
    _ flags: SecAccessControlCreateFlags,
    _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?
) -> SecAccessControl? { fatalError("stand-in") }

/// https://developer.apple.com/documentation/security/ksecattraccesscontrol
@available(iOS 8.0, macCatalyst 13.1, macOS 10.10, tvOS 9.0, visionOS 1.0, watchOS 2.0, *)
nonisolated(unsafe) public let kSecAttrAccessControl: CFString = "accc"
/// https://developer.apple.com/documentation/security/ksecuseauthenticationcontext
@available(iOS 9.0, macCatalyst 13.1, macOS 10.11, tvOS 9.0, visionOS 1.0, watchOS 2.0, *)
nonisolated(unsafe) public let kSecUseAuthenticationContext: CFString = "u_AuthCtx"
