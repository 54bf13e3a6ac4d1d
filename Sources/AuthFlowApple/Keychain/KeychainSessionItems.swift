import AuthFlow
package import Foundation

/// The Keychain items of one session, as ``KeychainCredentialStore`` keeps
/// them: the record (``account``), and for a biometric-protected record an
/// unprotected marker saying a session was saved and, after a save that
/// could not open the record, a protected *pending* record.
///
/// A protected record is read and updated with the session's one
/// authentication context (``BiometricContexts``), passed in the *query*
/// (`kSecUseAuthenticationContext`) — never in `SecItemUpdate`'s
/// attributes, which take only real item attributes. A save never prompts:
/// when the context cannot open the record (the reuse window is over, the
/// app is in the background) the record is added as the pending item, which
/// needs no authentication to add, and the next read prefers it and moves
/// it into the record. So rotated tokens survive a relaunch even when the
/// save after a background refresh could not open the record.
package struct KeychainSessionItems<Calls: KeychainCalls, Context: AuthenticationContextControls>: @unchecked Sendable {
    package let calls: Calls
    package let keys: KeychainKeys
    /// The service name, which also names the item in errors.
    package let service: String
    package let account: String
    package let accessGroup: String?
    /// The accessibility value of unprotected items.
    package let accessible: Any
    /// The biometric protection: the contexts and the access control value.
    package let protection: (contexts: BiometricContexts<Context>, accessControl: () throws -> Any)?

    package init(
        calls: Calls, keys: KeychainKeys, service: String, account: String, accessGroup: String?, accessible: Any,
        protection: (contexts: BiometricContexts<Context>, accessControl: () throws -> Any)?
    ) {
        self.calls = calls
        self.keys = keys
        self.service = service
        self.account = account
        self.accessGroup = accessGroup
        self.accessible = accessible
        self.protection = protection
    }

    var markerAccount: String { account + " biometric-marker" }
    var pendingAccount: String { account + " pending" }

    /// The item's identity: class, service, account, access group, data-protection Keychain.
    package func query(_ account: String) -> [String: Any] {
        var query: [String: Any] = [
            keys.itemClass: keys.genericPassword, keys.service: service, keys.account: account,
            keys.useDataProtectionKeychain: true,
        ]
        if let accessGroup { query[keys.accessGroup] = accessGroup }
        return query
    }

    // MARK: The record

    /// The record's bytes, or nil when there is none. A protected record is
    /// opened with the session's context, prompting only when `interactive`.
    package func readRecord(interactive: Bool) throws -> Data? {
        guard let protection else { return try readPlain(account) }
        let (status, data) = protection.contexts.perform(
            interactive: interactive,
            { context in readProtected(context) }, outcome: { authenticationOutcome($0.status) })
        if status == .success { return data }
        let markerPresent = status == .itemNotFound ? try readPlain(markerAccount) != nil : false
        if let failure = BiometricFailure.reading(status: status, markerPresent: markerPresent) { throw failure.error }
        if status == .itemNotFound { return nil }
        throw status.error(operation: "read", item: service)
    }

    /// The pending record if there is one (moved into the record while the
    /// context is open), else the record.
    private func readProtected(_ context: Context) -> (status: KeychainStatus, data: Data?) {
        var pending = query(pendingAccount)
        pending[keys.returnData] = true
        pending[keys.matchLimit] = keys.matchLimitOne
        pending[keys.useAuthenticationContext] = context
        let newer = calls.copyMatching(pending)
        if newer.status == .success, let data = newer.data {
            if updateProtected(data, context: context) == .success { _ = calls.delete(query(pendingAccount)) }
            return (.success, data)
        }
        guard newer.status == .itemNotFound else { return newer }
        var record = query(account)
        record[keys.returnData] = true
        record[keys.matchLimit] = keys.matchLimitOne
        record[keys.useAuthenticationContext] = context
        return calls.copyMatching(record)
    }

    /// `SecItemUpdate` of the protected record: the context in the query,
    /// only the data in the attributes.
    private func updateProtected(_ data: Data, context: Context) -> KeychainStatus {
        var record = query(account)
        record[keys.useAuthenticationContext] = context
        return calls.update(record, [keys.valueData: data])
    }

    /// Replaces the record (adding it when missing). A protected record is
    /// updated without a prompt, or saved as the pending record.
    package func writeRecord(_ data: Data) throws {
        guard let protection else { return try writePlain(data, account: account) }
        let status = protection.contexts.perform(
            interactive: false, { context in updateProtected(data, context: context) },
            outcome: authenticationOutcome)
        switch status {
        case .success:
            // A pending record left by an earlier save is older than this one.
            try deletePlain(pendingAccount)
        case .itemNotFound:
            try addProtected(data, account: account, accessControl: protection.accessControl())
            try deletePlain(pendingAccount)
        case .interactionNotAllowed, .authFailed, .userCanceled:
            try writePending(data, accessControl: protection.accessControl())
        default:
            throw status.error(operation: "write", item: service)
        }
        try writePlain(Data([1]), account: markerAccount)
    }

    /// Saves `data` as the pending record: added (no authentication needed),
    /// or, when an older pending record is there, replacing it.
    private func writePending(_ data: Data, accessControl: Any) throws {
        var status = add(data, account: pendingAccount, accessControl: accessControl)
        if status == .duplicateItem {
            try deletePlain(pendingAccount)
            status = add(data, account: pendingAccount, accessControl: accessControl)
        }
        guard status == .success else { throw status.error(operation: "write", item: service) }
    }

    private func addProtected(_ data: Data, account: String, accessControl: Any) throws {
        var status = add(data, account: account, accessControl: accessControl)
        if status == .duplicateItem {
            // Another process added it meanwhile: this save is the newer one.
            try writePending(data, accessControl: accessControl)
            status = .success
        }
        guard status == .success else { throw status.error(operation: "write", item: service) }
    }

    private func add(_ data: Data, account: String, accessControl: Any) -> KeychainStatus {
        var item = query(account)
        item[keys.valueData] = data
        item[keys.accessControl] = accessControl
        return calls.add(item)
    }

    /// Deletes the record, the pending record and the marker.
    package func deleteRecord() throws {
        try deletePlain(account)
        try deletePlain(pendingAccount)
        try deletePlain(markerAccount)
    }

    // MARK: Before the browser

    /// Checks that this app may write to the Keychain, before a sign-in
    /// opens the browser: a probe item is added and deleted. An app signed
    /// without a development team (a Mac build with "Sign to Run Locally")
    /// gets `errSecMissingEntitlement` from the data-protection Keychain
    /// (TN3137), which would otherwise surface only when the session is saved,
    /// after the user signed in.
    package func checkAccess() throws {
        let probe = account + " access-check"
        var item = query(probe)
        item[keys.valueData] = Data()
        item[keys.accessible] = accessible
        switch calls.add(item) {
        case .success, .duplicateItem:
            _ = calls.delete(query(probe))
        case .interactionNotAllowed:
            return // a locked device: the save reports it, and it passes once unlocked
        case .missingEntitlement:
            throw AuthFlowError(
                .configuration,
                "the app cannot use the Keychain: it is not signed with a development team, or lacks the access group (errSecMissingEntitlement)",
                recovery:
                    "Choose a Team under Signing & Capabilities for the app and each extension. On macOS, a shared KeychainAccessGroup must start with the team ID (TEAMID.com.example.shared).",
                underlyingError: KeychainStatus.missingEntitlement)
        case let status:
            throw status.error(operation: "write", item: service)
        }
    }

    // MARK: Unprotected items

    /// An unprotected item's bytes, or nil.
    package func readPlain(_ account: String) throws -> Data? {
        var request = query(account)
        request[keys.returnData] = true
        request[keys.matchLimit] = keys.matchLimitOne
        return try KeychainItemRules.read(item: service) { calls.copyMatching(request) }
    }

    /// Replaces an unprotected item's bytes (adding it when missing).
    package func writePlain(_ data: Data, account: String) throws {
        let item = query(account)
        let update: [String: Any] = [keys.valueData: data, keys.accessible: accessible]
        try KeychainItemRules.write(
            item: service, update: { calls.update(item, update) }, add: { calls.add(item.merging(update) { $1 }) })
    }

    /// Deletes an item (nothing to do when missing).
    package func deletePlain(_ account: String) throws {
        let item = query(account)
        try KeychainItemRules.delete(item: service) { calls.delete(item) }
    }
}
