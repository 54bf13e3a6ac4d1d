public import AuthFlow

/// A Keychain result code (`OSStatus`), kept as the ``AuthFlowError/underlyingError``
/// of a Keychain failure, and the rule that turns it into an ``AuthFlowError``.
///
/// The mapping is platform-neutral so that it is tested everywhere: a
/// Keychain that is locked because the device has not been unlocked since it
/// started (typical for a background launch) is a retryable `storage` error,
/// a missing entitlement is `configuration`, a cancelled prompt is
/// `cancelled`, and anything else is `storage` with the status kept.
public struct KeychainStatus: Error, Sendable, Hashable, CustomStringConvertible {
    /// The `OSStatus` value.
    public let rawValue: Int32

    /// Wraps an `OSStatus`.
    public init(_ rawValue: Int32) {
        self.rawValue = rawValue
    }

    /// `errSecSuccess`.
    public static let success = KeychainStatus(0)
    /// `errSecUserCanceled`: the user dismissed an authentication prompt.
    public static let userCanceled = KeychainStatus(-128)
    /// `errSecParam`: the query was malformed.
    public static let parameter = KeychainStatus(-50)
    /// `errSecNotAvailable`: no Keychain is available.
    public static let notAvailable = KeychainStatus(-25291)
    /// `errSecAuthFailed`: authentication of the user failed.
    public static let authFailed = KeychainStatus(-25293)
    /// `errSecDuplicateItem`: the item was added by someone else meanwhile.
    public static let duplicateItem = KeychainStatus(-25299)
    /// `errSecItemNotFound`.
    public static let itemNotFound = KeychainStatus(-25300)
    /// `errSecInteractionNotAllowed`: the Keychain is locked (the device has
    /// not been unlocked since it started, or the item needs an unlocked device).
    public static let interactionNotAllowed = KeychainStatus(-25308)
    /// `errSecMissingEntitlement`: the access group is not in the app's
    /// `keychain-access-groups` entitlement.
    public static let missingEntitlement = KeychainStatus(-34018)

    public var description: String { "OSStatus \(rawValue)" }

    /// Whether the same operation can succeed later without a change to the
    /// app (the device gets unlocked, a concurrent writer finishes).
    public var isRetryable: Bool {
        self == .interactionNotAllowed || self == .duplicateItem || self == .notAvailable
    }

    /// The error for `operation` ("read", "write", "delete") failing with
    /// this status. `item` names the Keychain item (service name), never its
    /// contents.
    public func error(operation: String, item: String) -> AuthFlowError {
        switch self {
        case .interactionNotAllowed:
            return AuthFlowError(
                .storage, "cannot \(operation) the Keychain item \(item): the device is locked (\(self)); try again after unlock",
                recovery:
                    "Unlock the device and try again. Work that runs in the background before the first unlock after a restart cannot read the session.",
                underlyingError: self)
        case .missingEntitlement:
            return AuthFlowError(
                .configuration,
                "cannot \(operation) the Keychain item \(item): the app lacks the Keychain access group entitlement (\(self))",
                recovery:
                    "Sign the app with a development team, and add the access group to the Keychain Sharing capability (keychain-access-groups entitlement) of the app and of every extension that shares the session (on macOS, a TEAMID.-prefixed group).",
                underlyingError: self)
        case .userCanceled:
            return AuthFlowError(.cancelled, "the Keychain prompt to \(operation) \(item) was cancelled (\(self))", underlyingError: self)
        case .duplicateItem:
            return AuthFlowError(
                .storage, "cannot \(operation) the Keychain item \(item): another process wrote it at the same moment (\(self)); try again",
                underlyingError: self)
        default:
            return AuthFlowError(.storage, "cannot \(operation) the Keychain item \(item) (\(self))", underlyingError: self)
        }
    }
}
