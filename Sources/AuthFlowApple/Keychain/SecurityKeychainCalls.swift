#if canImport(Security)
import Security
#if canImport(LocalAuthentication)
package import Foundation
package import LocalAuthentication
#else
import Foundation
#endif

/// The `SecItem` calls of Security.framework.
struct SecurityKeychainCalls: KeychainCalls {
    func copyMatching(_ query: [String: Any]) -> (status: KeychainStatus, data: Data?) {
        var result: CFTypeRef?
        let status = KeychainStatus(SecItemCopyMatching(query as CFDictionary, &result))
        return (status, result as? Data)
    }

    func add(_ attributes: [String: Any]) -> KeychainStatus {
        KeychainStatus(SecItemAdd(attributes as CFDictionary, nil))
    }

    func update(_ query: [String: Any], _ attributesToUpdate: [String: Any]) -> KeychainStatus {
        KeychainStatus(SecItemUpdate(query as CFDictionary, attributesToUpdate as CFDictionary))
    }

    func delete(_ query: [String: Any]) -> KeychainStatus {
        KeychainStatus(SecItemDelete(query as CFDictionary))
    }
}

extension KeychainKeys {
    /// The Security framework's constants.
    static var security: KeychainKeys {
        KeychainKeys(
            itemClass: kSecClass as String, genericPassword: kSecClassGenericPassword, service: kSecAttrService as String,
            account: kSecAttrAccount as String, accessGroup: kSecAttrAccessGroup as String,
            useDataProtectionKeychain: kSecUseDataProtectionKeychain as String, valueData: kSecValueData as String,
            returnData: kSecReturnData as String, matchLimit: kSecMatchLimit as String, matchLimitOne: kSecMatchLimitOne,
            accessible: kSecAttrAccessible as String, accessControl: kSecAttrAccessControl as String,
            useAuthenticationContext: kSecUseAuthenticationContext as String)
    }
}

#if canImport(LocalAuthentication)
extension LAContext: AuthenticationContextControls {
    /// `interactionNotAllowed` (LAContext.h; not on watchOS or tvOS, where
    /// nothing can stop the prompt).
    package var refusesInteraction: Bool {
        get {
            #if os(watchOS) || os(tvOS)
            false
            #else
            interactionNotAllowed
            #endif
        }
        set {
            #if !os(watchOS) && !os(tvOS)
            interactionNotAllowed = newValue
            #endif
        }
    }

    /// `touchIDAuthenticationAllowableReuseDuration` (LAContext.h: reuse of
    /// an unlock on the lock screen only; not on watchOS or tvOS).
    package var lockScreenUnlockReuse: TimeInterval {
        get {
            #if os(watchOS) || os(tvOS)
            0
            #else
            touchIDAuthenticationAllowableReuseDuration
            #endif
        }
        set {
            #if !os(watchOS) && !os(tvOS)
            touchIDAuthenticationAllowableReuseDuration = newValue
            #endif
        }
    }
}
#endif
#endif
