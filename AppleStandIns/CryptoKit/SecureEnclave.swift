// CryptoKit's Secure Enclave P-256 signing key and the public types it
// returns, from Apple's documented Swift declarations (only what AuthFlowApple
// uses). The enclave key's initializers that take an `LAContext` do not exist
// on tvOS.
import Foundation
import Security

#if !os(tvOS)
import LocalAuthentication
#endif

/// https://developer.apple.com/documentation/cryptokit/p256
@available(iOS 13.0, macCatalyst 13.0, macOS 10.15, tvOS 13.0, visionOS 1.0, watchOS 6.0, *)
public enum P256: Sendable {
    /// https://developer.apple.com/documentation/cryptokit/p256/signing
    public enum Signing: Sendable {
        /// https://developer.apple.com/documentation/cryptokit/p256/signing/publickey
        public struct PublicKey: Sendable {
            /// https://developer.apple.com/documentation/cryptokit/p256/signing/publickey/x963representation
            public var x963Representation: Data { fatalError("stand-in") }
        }

        /// https://developer.apple.com/documentation/cryptokit/p256/signing/ecdsasignature
        public struct ECDSASignature: Sendable {
            /// https://developer.apple.com/documentation/cryptokit/p256/signing/ecdsasignature/rawrepresentation
            public var rawRepresentation: Data { fatalError("stand-in") }
        }
    }
}

/// https://developer.apple.com/documentation/cryptokit/secureenclave
@available(iOS 13.0, macCatalyst 13.0, macOS 10.15, tvOS 13.0, visionOS 1.0, watchOS 6.0, *)
public enum SecureEnclave: Sendable {
    /// https://developer.apple.com/documentation/cryptokit/secureenclave/isavailable
    public static var isAvailable: Bool { fatalError("stand-in") }

    /// https://developer.apple.com/documentation/cryptokit/secureenclave/p256
    public enum P256: Sendable {
        /// https://developer.apple.com/documentation/cryptokit/secureenclave/p256/signing
        public enum Signing: Sendable {
            /// https://developer.apple.com/documentation/cryptokit/secureenclave/p256/signing/privatekey
            /// (declared without `Sendable`: its page lists no conformance).
            public struct PrivateKey {
                /// https://developer.apple.com/documentation/cryptokit/secureenclave/p256/signing/privatekey/publickey
                public let publicKey: CryptoKit.P256.Signing.PublicKey
                /// https://developer.apple.com/documentation/cryptokit/secureenclave/p256/signing/privatekey/datarepresentation
                public let dataRepresentation: Data

                #if !os(tvOS)
                /// https://developer.apple.com/documentation/cryptokit/secureenclave/p256/signing/privatekey/init(compactrepresentable:accesscontrol:authenticationcontext:)
                /// (the default argument is the documented one)
                @available(iOS 13.0, macCatalyst 13.0, macOS 10.15, visionOS 1.0, watchOS 9.0, *)
                public init(
                    compactRepresentable: Bool = true,
                    accessControl: SecAccessControl = SecAccessControlCreateWithFlags(
                        nil, kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly, [], nil)!,
                    authenticationContext: LAContext? = nil
                ) throws { fatalError("stand-in") }

                /// https://developer.apple.com/documentation/cryptokit/secureenclave/p256/signing/privatekey/init(datarepresentation:authenticationcontext:)
                @available(iOS 13.0, macCatalyst 13.0, macOS 10.15, visionOS 1.0, watchOS 9.0, *)
                public init(dataRepresentation: Data, authenticationContext: LAContext? = nil) throws { fatalError("stand-in") }
                #endif

                /// https://developer.apple.com/documentation/cryptokit/secureenclave/p256/signing/privatekey/signature(for:)
                public func signature<D: DataProtocol>(for data: D) throws -> CryptoKit.P256.Signing.ECDSASignature {
                    fatalError("stand-in")
                }
            }
        }
    }
}
