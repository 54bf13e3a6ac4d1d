/// The calls of the Secret Service API (freedesktop.org, "Secret Service
/// API Draft" 0.2) that a credential store needs, over a ``DBusConnection``:
/// a session that encrypts the secrets (`dh-ietf1024-sha256-aes128-cbc-pkcs7`,
/// ``SecretTransport``), or, with a service that offers only that, `plain`
/// (the secret then travels over the private, already authenticated session
/// bus); search by attributes, unlock without a prompt, read,
/// create-or-replace, and delete.
///
/// A step that needs a prompt (a locked collection) is not shown: the
/// command may run without a desktop. It fails with ``SecretServiceError/locked``.
struct SecretServiceClient {
    static let busName = "org.freedesktop.secrets"
    static let servicePath = "/org/freedesktop/secrets"
    private static let serviceInterface = "org.freedesktop.Secret.Service"
    private static let itemInterface = "org.freedesktop.Secret.Item"
    private static let collectionInterface = "org.freedesktop.Secret.Collection"

    let connection: DBusConnection
    /// The session object the secrets are exchanged in.
    let session: String
    /// How secrets are sealed in it.
    let transport: SecretTransport

    /// Opens an encrypted session with the Secret Service on `connection`,
    /// or a `plain` one when the service does not support the encryption.
    init(connection: DBusConnection) throws(SecretServiceError) {
        self.connection = connection
        let keys = SecretTransport.dhKeyPair()
        do throws(SecretServiceError) {
            let reply = try Self.call(
                connection, Self.servicePath, Self.serviceInterface, "OpenSession",
                [.string(SecretTransport.dhAlgorithm), .variant(.bytes(keys.publicValue))])
            guard reply.count == 2, let servicePublic = reply[0].variantValue?.byteArray, case .objectPath(let session) = reply[1],
                let transport = SecretTransport.aes(privateExponent: keys.privateExponent, servicePublicValue: servicePublic)
            else { throw .unexpectedReply("OpenSession") }
            self.session = session
            self.transport = transport
        } catch .bus(.remote(let name, _)) where name == "org.freedesktop.DBus.Error.NotSupported" {
            let reply = try Self.call(
                connection, Self.servicePath, Self.serviceInterface, "OpenSession", [.string("plain"), .variant(.string(""))])
            guard reply.count == 2, case .objectPath(let session) = reply[1] else { throw .unexpectedReply("OpenSession") }
            self.session = session
            transport = .plain
        }
    }

    /// Whether a Secret Service owns its name on the bus now (the bus does
    /// not start one for this question).
    static func isRunning(on connection: DBusConnection) -> Bool {
        let reply = try? connection.call(
            destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
            member: "NameHasOwner", [.string(busName)])
        return reply?.first?.booleanValue ?? false
    }

    /// The items whose attributes include `attributes`: the unlocked ones and the locked ones.
    func search(_ attributes: [(String, String)]) throws(SecretServiceError) -> (unlocked: [String], locked: [String]) {
        let reply = try call(Self.servicePath, Self.serviceInterface, "SearchItems", [.stringDictionary(attributes)])
        guard reply.count == 2, let unlocked = reply[0].arrayElements, let locked = reply[1].arrayElements else {
            throw .unexpectedReply("SearchItems")
        }
        return (unlocked.compactMap(\.stringValue), locked.compactMap(\.stringValue))
    }

    /// Unlocks `objects` when that needs no prompt; throws ``SecretServiceError/locked`` otherwise.
    func unlock(_ objects: [String]) throws(SecretServiceError) {
        guard !objects.isEmpty else { return }
        let reply = try call(Self.servicePath, Self.serviceInterface, "Unlock", [.array(.objectPath, objects.map(DBusValue.objectPath))])
        guard reply.count == 2, let prompt = reply[1].stringValue else { throw .unexpectedReply("Unlock") }
        guard prompt == "/" else { throw .locked }
    }

    /// The secret of an unlocked item.
    func secret(of item: String) throws(SecretServiceError) -> [UInt8] {
        let reply = try call(item, Self.itemInterface, "GetSecret", [.objectPath(session)])
        // (oayays): the session, the algorithm's parameters, the value, its content type.
        guard let fields = reply.first?.structureFields, fields.count == 4, let parameters = fields[1].byteArray,
            let value = fields[2].byteArray
        else {
            throw .unexpectedReply("GetSecret")
        }
        guard let secret = transport.open(parameters: parameters, value: value) else { throw .unexpectedReply("GetSecret") }
        return secret
    }

    /// The collection secrets go in by default (the `default` alias), unlocked.
    func defaultCollection() throws(SecretServiceError) -> String {
        let reply = try call(Self.servicePath, Self.serviceInterface, "ReadAlias", [.string("default")])
        guard let path = reply.first?.stringValue else { throw .unexpectedReply("ReadAlias") }
        guard path != "/" else { throw .noDefaultCollection }
        try unlock([path])
        return path
    }

    /// Creates an item in `collection`, replacing the one with the same attributes.
    func store(
        _ secret: [UInt8], label: String, attributes: [(String, String)], contentType: String, in collection: String
    ) throws(SecretServiceError) {
        let properties: DBusValue = .array(
            .dictEntry(.string, .variant),
            [
                .dictEntry(.string("org.freedesktop.Secret.Item.Label"), .variant(.string(label))),
                .dictEntry(.string("org.freedesktop.Secret.Item.Attributes"), .variant(.stringDictionary(attributes))),
            ])
        guard let sealed = try? transport.seal(secret) else { throw .unexpectedReply("CreateItem") }
        let value: DBusValue = .structure([.objectPath(session), .bytes(sealed.parameters), .bytes(sealed.value), .string(contentType)])
        let reply = try call(collection, Self.collectionInterface, "CreateItem", [properties, value, .boolean(true)])
        guard reply.count == 2, let prompt = reply[1].stringValue else { throw .unexpectedReply("CreateItem") }
        guard prompt == "/" else { throw .locked }
    }

    /// Deletes an item.
    func delete(_ item: String) throws(SecretServiceError) {
        let reply = try call(item, Self.itemInterface, "Delete")
        guard let prompt = reply.first?.stringValue else { throw .unexpectedReply("Delete") }
        guard prompt == "/" else { throw .locked }
    }

    private func call(_ path: String, _ interface: String, _ member: String, _ body: [DBusValue] = []) throws(SecretServiceError)
        -> [DBusValue]
    {
        try Self.call(connection, path, interface, member, body)
    }

    private static func call(
        _ connection: DBusConnection, _ path: String, _ interface: String, _ member: String, _ body: [DBusValue]
    ) throws(SecretServiceError) -> [DBusValue] {
        do throws(DBusConnectionError) {
            return try connection.call(destination: busName, path: path, interface: interface, member: member, body)
        } catch .remote(let name, _) where name == "org.freedesktop.Secret.Error.IsLocked" {
            throw .locked
        } catch {
            throw .bus(error)
        }
    }
}

/// Why the Secret Service could not be used.
package enum SecretServiceError: Error, Equatable, Sendable {
    /// The session bus failed (or the service answered with an error).
    case bus(DBusConnectionError)
    /// The collection or item is locked, and unlocking it needs a prompt.
    case locked
    /// No collection is the `default` alias (a keyring never set up).
    case noDefaultCollection
    /// A reply had another shape than the API specifies (the method).
    case unexpectedReply(String)
}
