/// One item of the desktop keyring, named by its attributes: read, written
/// (replacing the item with the same attributes) and deleted, each over a
/// session bus connection of its own, bounded by ``timeout``. What the
/// public ``SecretServiceCredentialStore`` and the `authflow` command's
/// keyring store share; what the item holds is theirs.
package struct SecretServiceItem: Sendable {
    /// What the keyring shows (Passwords and Keys, seahorse).
    package let label: String
    /// What finds the item; an item holding all of them is this one.
    package let attributes: [(String, String)]
    /// `DBUS_SESSION_BUS_ADDRESS`; nil when the process has no session bus.
    package let busAddress: String?
    /// Each connection, and each call over it, is given this long.
    package let timeout: Duration

    package init(label: String, attributes: [(String, String)], busAddress: String?, timeout: Duration) {
        self.label = label
        self.attributes = attributes
        self.busAddress = busAddress
        self.timeout = timeout
    }

    /// Whether a Secret Service owns its name on the session bus at
    /// `busAddress` now (the bus does not start one for this question);
    /// false when there is no bus or it does not answer within `timeout`.
    package static func isAvailable(busAddress: String?, timeout: Duration) -> Bool {
        guard let address = busAddress.flatMap(DBusAddress.init), let connection = try? DBusConnection(address: address, timeout: timeout)
        else {
            return false
        }
        return SecretServiceClient.isRunning(on: connection)
    }

    /// The item's secret; nil when the keyring holds no such item.
    package func read() throws(SecretServiceError) -> [UInt8]? {
        try withClient { client throws(SecretServiceError) in
            let found = try client.search(attributes)
            try client.unlock(found.locked)
            guard let item = found.unlocked.first ?? found.locked.first else { return nil }
            return try client.secret(of: item)
        }
    }

    /// Stores `secret` in the default collection, replacing the item.
    package func write(_ secret: [UInt8], contentType: String) throws(SecretServiceError) {
        try withClient { client throws(SecretServiceError) in
            try client.store(secret, label: label, attributes: attributes, contentType: contentType, in: try client.defaultCollection())
        }
    }

    /// Deletes the item (every item with the attributes), when there is one.
    package func delete() throws(SecretServiceError) {
        try withClient { client throws(SecretServiceError) in
            let found = try client.search(attributes)
            try client.unlock(found.locked)
            for item in found.unlocked + found.locked { try client.delete(item) }
        }
    }

    /// Opens a session with the Secret Service (which the bus may start) and
    /// finds its default collection unlocked (unlocking it when that needs
    /// no prompt), or throws the error a later ``write(_:contentType:)`` would.
    package func checkWritable() throws(SecretServiceError) {
        try withClient { client throws(SecretServiceError) in _ = try client.defaultCollection() }
    }

    private func withClient<T>(_ body: (SecretServiceClient) throws(SecretServiceError) -> T) throws(SecretServiceError) -> T {
        guard let address = busAddress.flatMap(DBusAddress.init) else { throw .bus(.noSessionBus) }
        let connection: DBusConnection
        do throws(DBusConnectionError) {
            connection = try DBusConnection(address: address, timeout: timeout)
        } catch {
            throw .bus(error)
        }
        return try body(try SecretServiceClient(connection: connection))
    }
}
