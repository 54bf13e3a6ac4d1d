package import Foundation

/// The four `SecItem` calls, over `[String: Any]` dictionaries: the seam at
/// the framework boundary, so that which keys go in which dictionary is
/// decided in plain Swift and tested against a behavioural stand-in.
package protocol KeychainCalls: Sendable {
    /// `SecItemCopyMatching` returning one item's data.
    func copyMatching(_ query: [String: Any]) -> (status: KeychainStatus, data: Data?)
    /// `SecItemAdd`.
    func add(_ attributes: [String: Any]) -> KeychainStatus
    /// `SecItemUpdate`: `attributesToUpdate` may hold only real item
    /// attributes (SecItem.h: "no 'meta' attributes are allowed").
    func update(_ query: [String: Any], _ attributesToUpdate: [String: Any]) -> KeychainStatus
    /// `SecItemDelete`.
    func delete(_ query: [String: Any]) -> KeychainStatus
}

/// The Security keys and values the store uses: the `kSec…` constants on
/// Apple platforms, their documented raw values in the tests.
package struct KeychainKeys: @unchecked Sendable {
    package var itemClass: String
    package var genericPassword: Any
    package var service: String
    package var account: String
    package var accessGroup: String
    package var useDataProtectionKeychain: String
    package var valueData: String
    package var returnData: String
    package var matchLimit: String
    package var matchLimitOne: Any
    package var accessible: String
    package var accessControl: String
    package var useAuthenticationContext: String

    package init(
        itemClass: String, genericPassword: Any, service: String, account: String, accessGroup: String,
        useDataProtectionKeychain: String, valueData: String, returnData: String, matchLimit: String, matchLimitOne: Any,
        accessible: String, accessControl: String, useAuthenticationContext: String
    ) {
        self.itemClass = itemClass
        self.genericPassword = genericPassword
        self.service = service
        self.account = account
        self.accessGroup = accessGroup
        self.useDataProtectionKeychain = useDataProtectionKeychain
        self.valueData = valueData
        self.returnData = returnData
        self.matchLimit = matchLimit
        self.matchLimitOne = matchLimitOne
        self.accessible = accessible
        self.accessControl = accessControl
        self.useAuthenticationContext = useAuthenticationContext
    }
}
