#if canImport(CryptoKit) && !os(tvOS)
public import AuthFlow
import CryptoKit
import LocalAuthentication
import Security
public import Foundation

/// A DPoP key (RFC 9449) generated in the Secure Enclave: proofs are signed
/// inside the enclave, and the private key never exists outside it, so a
/// copied session cannot be used on another device.
///
/// Keep ``dataRepresentation`` to find the key again after a restart: it is
/// an opaque handle that only this device's Secure Enclave can use (not the
/// key itself). A ``SessionRecord`` cannot hold this key, so store the
/// handle beside the session (the Keychain, this device only) and give the
/// key back when restoring:
///
/// ```swift
/// let key = try SecureEnclaveDPoPKey(dataRepresentation: handle)
/// let session = try await AuthSession.restore(from: store, dpopKey: key)
/// ```
///
/// Where ``isAvailable`` is false (the Simulator, a Mac without the enclave),
/// use a software ``DPoPKey`` instead. Not on tvOS.
@available(iOS 13.0, macCatalyst 13.0, macOS 10.15, visionOS 1.0, watchOS 9.0, *)
public struct SecureEnclaveDPoPKey: DPoPSigningKey, CustomStringConvertible {
    /// The enclave's opaque handle of the key: what ``init(dataRepresentation:)`` takes.
    public let dataRepresentation: Data
    /// The uncompressed public point (`0x04`, x, y).
    public let publicKeyX963: [UInt8]
    /// The biometric-protected session's authentication context, for a key
    /// behind the same protection: each proof opens the key with it.
    private let contexts: BiometricContexts<KeychainAuthenticationContext>?

    /// Whether this device has a Secure Enclave that can hold the key.
    public static var isAvailable: Bool { SecureEnclave.isAvailable }

    /// A new key in the Secure Enclave, usable after the device's first unlock
    /// and never leaving this device.
    ///
    /// - Throws: ``AuthFlowError/Category/configuration`` when the enclave
    ///   cannot make one (see ``isAvailable``).
    public init() throws {
        do {
            let key = try SecureEnclave.P256.Signing.PrivateKey()
            self.init(key)
        } catch {
            throw AuthFlowError(
                .configuration, "the Secure Enclave cannot make a DPoP key",
                recovery: "Use a software DPoPKey where SecureEnclaveDPoPKey.isAvailable is false.",
                underlyingError: error)
        }
    }

    /// The key whose ``dataRepresentation`` was kept.
    ///
    /// - Throws: ``AuthFlowError/Category/configuration`` when this device's
    ///   enclave cannot use it (another device's handle, or a damaged one).
    public init(dataRepresentation: Data) throws {
        try self.init(dataRepresentation: dataRepresentation, contexts: nil)
    }

    /// The key whose ``dataRepresentation`` was kept, opened for each proof
    /// with the session's authentication context (`contexts`), so that a
    /// key behind biometric protection signs without a prompt inside the
    /// session's reuse window and never prompts in the background.
    package init(dataRepresentation: Data, contexts: BiometricContexts<KeychainAuthenticationContext>?) throws {
        do {
            // Opening the handle reads the public key; only signing asks for the user.
            self.init(try SecureEnclave.P256.Signing.PrivateKey(dataRepresentation: dataRepresentation), contexts: contexts)
        } catch {
            throw AuthFlowError(
                .configuration, "this device's Secure Enclave cannot use the stored DPoP key",
                recovery: "Sign in again with a new key.", remedy: .signInAgain, underlyingError: error)
        }
    }

    /// A new key in the Secure Enclave that signs only after Face ID, Touch
    /// ID or the passcode, as `protection` says (the same access control as
    /// a biometric-protected session record).
    ///
    /// - Throws: ``AuthFlowError/Category/configuration`` when the enclave
    ///   cannot make one (see ``isAvailable``) or the access control cannot be made.
    public init(biometricProtection protection: BiometricProtection) throws {
        let flags: SecAccessControlCreateFlags =
            protection.policy == .biometryCurrentSet
            ? [.privateKeyUsage, .biometryCurrentSet] : [.privateKeyUsage, .userPresence]
        // The record's accessibility: a background refresh may sign a proof.
        guard let control = SecAccessControlCreateWithFlags(nil, kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly, flags, nil) else {
            throw AuthFlowError(
                .configuration, "the Keychain cannot make the biometric access control",
                recovery: "Check that the device has a passcode set.")
        }
        do {
            self.init(try SecureEnclave.P256.Signing.PrivateKey(accessControl: control))
        } catch {
            throw AuthFlowError(
                .configuration, "the Secure Enclave cannot make a DPoP key",
                recovery: "Use a software DPoPKey where SecureEnclaveDPoPKey.isAvailable is false.",
                underlyingError: error)
        }
    }

    private init(_ key: SecureEnclave.P256.Signing.PrivateKey, contexts: BiometricContexts<KeychainAuthenticationContext>? = nil) {
        dataRepresentation = key.dataRepresentation
        publicKeyX963 = Array(key.publicKey.x963Representation)
        self.contexts = contexts
    }

    /// Signs inside the enclave: ECDSA P-256 over the SHA-256 of
    /// `signingInput`, raw `r` and `s`.
    public func signature(for signingInput: [UInt8]) throws -> [UInt8] {
        // The handle is reopened for each proof: it is a plain value that is
        // safe to share between tasks, which the key object is not declared
        // to be. Without a context a protected key would make "a new context
        // ..., used once, and discarded" (kSecUseAuthenticationContext): a
        // prompt per proof, and a failure in the background.
        guard let contexts else {
            let key = try SecureEnclave.P256.Signing.PrivateKey(dataRepresentation: dataRepresentation)
            return Array(try key.signature(for: signingInput).rawRepresentation)
        }
        let handle = dataRepresentation
        return try contexts.signWithoutPrompt { context in
            let key = try SecureEnclave.P256.Signing.PrivateKey(dataRepresentation: handle, authenticationContext: context)
            return Array(try key.signature(for: signingInput).rawRepresentation)
        }
    }

    /// The thumbprint only.
    public var description: String { "Secure Enclave DPoP key \(thumbprint)" }
}
#endif
