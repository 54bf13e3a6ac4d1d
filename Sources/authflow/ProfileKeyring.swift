#if CLI // the CLI package trait
import AuthFlow
import Foundation

/// A profile's secrets in the desktop keyring (`--store secret-service`):
/// the credentials and the DPoP key, as one JSON item labelled
/// `authflow: NAME` with the attributes `application=authflow`,
/// `profile=NAME` and `directory=` the profile directory (two configuration
/// directories with the same profile name keep apart). The profile file
/// then holds the settings only. The profile's file lock serializes
/// refreshes exactly as for the file store.
enum ProfileKeyring {
    /// What `credential_store` says in a profile whose secrets are in the keyring.
    static let storeName = "secret-service"
    /// Each connection, and each call over it, is given this long.
    static let timeout: Duration = .seconds(10)
    /// A probe for the automatic choice gives up sooner.
    static let probeTimeout: Duration = .seconds(2)

    /// What the keyring item holds.
    struct Secret: Codable {
        var version = 1
        var credentials: OAuthCredentials
        var dpopKey: DPoPKey?

        enum CodingKeys: String, CodingKey {
            case version, credentials
            case dpopKey = "dpop_key"
        }
    }

    /// The session bus's address, from `DBUS_SESSION_BUS_ADDRESS`.
    static func busAddress() -> DBusAddress? {
        ProfileLocation.environment("DBUS_SESSION_BUS_ADDRESS").flatMap(DBusAddress.init)
    }

    /// Whether a Secret Service is running on the session bus now (the
    /// automatic choice at sign-in); false when there is no bus or it does not answer.
    static func isAvailable() -> Bool {
        guard let address = busAddress(), let connection = try? DBusConnection(address: address, timeout: probeTimeout) else {
            return false
        }
        return SecretServiceClient.isRunning(on: connection)
    }

    /// The profile's secrets; nil when the keyring holds none.
    static func load(profile name: String) throws -> Secret? {
        let data: [UInt8]? = try withClient(profile: name) { client throws(SecretServiceError) in
            let found = try client.search(attributes(name))
            try client.unlock(found.locked)
            guard let item = found.unlocked.first ?? found.locked.first else { return nil }
            return try client.secret(of: item)
        }
        guard let data else { return nil }
        do {
            return try VersionedFile.decode(Secret.self, from: Data(data), current: 1, path: "the keyring item \(label(name))")
        } catch {
            throw AuthFlowError(
                .storage, "the keyring item \(label(name)) is not authflow credentials",
                recovery: "Delete it (seahorse, or secret-tool clear application authflow profile \(name)), then sign in again.")
        }
    }

    /// Stores the profile's secrets, replacing the item; nil deletes it.
    static func save(profile name: String, _ secret: Secret?) throws {
        guard let secret else { return try delete(profile: name) }
        let bytes = [UInt8](try VersionedFile.encode(secret))
        try withClient(profile: name) { client throws(SecretServiceError) in
            try client.store(
                bytes, label: label(name), attributes: attributes(name), contentType: "application/json", in: try client.defaultCollection()
            )
        }
    }

    /// Deletes the profile's item, when there is one.
    static func delete(profile name: String) throws {
        try withClient(profile: name) { client throws(SecretServiceError) in
            let found = try client.search(attributes(name))
            try client.unlock(found.locked)
            for item in found.unlocked + found.locked { try client.delete(item) }
        }
    }

    /// Opens a session with the Secret Service (which the bus may start) and
    /// finds its default collection unlocked (unlocking it when that needs no
    /// prompt), or throws the error a later write would: no bus, no service,
    /// a locked keyring (`keyring_locked`), no default collection.
    static func checkWritable(profile name: String) throws {
        try withClient(profile: name) { client throws(SecretServiceError) in _ = try client.defaultCollection() }
    }

    static func label(_ name: String) -> String { "authflow: \(name)" }

    static func attributes(_ name: String) -> [(String, String)] {
        let directory = ProfileLocation.url(for: name)?.deletingLastPathComponent().path ?? ""
        return [("application", "authflow"), ("profile", name), ("directory", directory)]
    }

    private static func withClient<T>(profile name: String, _ body: (SecretServiceClient) throws(SecretServiceError) -> T) throws -> T {
        guard let address = busAddress() else {
            throw AuthFlowError(
                .storage,
                "profile \(name) keeps its credentials in the desktop keyring, and there is no session bus (DBUS_SESSION_BUS_ADDRESS)",
                recovery: "Run it in the desktop session, or sign in again with --store file.")
        }
        do throws(SecretServiceError) {
            let connection: DBusConnection
            do throws(DBusConnectionError) {
                connection = try DBusConnection(address: address, timeout: timeout)
            } catch {
                throw .bus(error)
            }
            return try body(try SecretServiceClient(connection: connection))
        } catch {
            throw failure(error, profile: name)
        }
    }

    /// The error a command reports; never holds a secret (D-Bus error messages name objects, not values).
    static func failure(_ error: SecretServiceError, profile name: String) -> AuthFlowError {
        let fallback = "Or sign in again with --store file to keep the credentials in the profile file (mode 0600)."
        switch error {
        case .locked:
            return AuthFlowError(
                .storage, "the desktop keyring is locked, and authflow cannot ask for its password",
                reason: .init(rawValue: "keyring_locked"),
                recovery: "Unlock it (sign in to the desktop, or open Passwords and Keys), then try again. \(fallback)")
        case .noDefaultCollection:
            return AuthFlowError(
                .storage, "the desktop keyring has no default collection",
                reason: .init(rawValue: "keyring_unavailable"), recovery: "Create one (Passwords and Keys). \(fallback)")
        case .unexpectedReply(let method):
            return AuthFlowError(
                .storage, "the Secret Service answered \(method) with an unexpected reply", reason: .init(rawValue: "keyring_unavailable"),
                recovery: fallback)
        case .bus(let bus):
            return AuthFlowError(
                .storage, "the desktop keyring cannot be used: \(describe(bus))", reason: .init(rawValue: "keyring_unavailable"),
                recovery: fallback)
        }
    }

    static func describe(_ error: DBusConnectionError) -> String {
        switch error {
        case .noSessionBus: "there is no session bus"
        case .cannotConnect(let reason): "cannot connect to the session bus (\(reason))"
        case .authenticationRejected: "the session bus refused the authentication"
        case .timedOut(let what): "the session bus did not answer in time (\(what))"
        case .closed: "the session bus closed the connection"
        case .wire(let wire): "the session bus sent a malformed message (\(wire))"
        case .remote(let name, let message): "\(name): \(TerminalText.field(String(message.prefix(200))))"
        case .unexpectedReply(let signature): "an unexpected reply (wanted \(signature))"
        }
    }
}
#endif
