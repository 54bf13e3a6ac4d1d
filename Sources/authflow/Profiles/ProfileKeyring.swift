#if CLI // the CLI package trait
import AuthFlow
// The fuzz target `profile` compiles the Secret Service's sources into its own module.
#if canImport(AuthFlowSecretService)
import AuthFlowSecretService
#endif
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

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
        var resourceTokens: [ResourceToken]?

        enum CodingKeys: String, CodingKey {
            case version, credentials
            case dpopKey = "dpop_key"
            case resourceTokens = "resource_tokens"
        }
    }

    /// The profile's keyring item.
    static func item(_ name: String) -> SecretServiceItem {
        SecretServiceItem(
            label: label(name), attributes: attributes(name), busAddress: ProfileLocation.environment("DBUS_SESSION_BUS_ADDRESS"),
            timeout: timeout)
    }

    /// Whether a Secret Service is running on the session bus now (the
    /// automatic choice at sign-in); false when there is no bus or it does not answer.
    static func isAvailable() -> Bool {
        SecretServiceItem.isAvailable(busAddress: ProfileLocation.environment("DBUS_SESSION_BUS_ADDRESS"), timeout: probeTimeout)
    }

    /// The profile's secrets; nil when the keyring holds none.
    static func load(profile name: String) throws -> Secret? {
        let data: [UInt8]?
        do throws(SecretServiceError) { data = try item(name).read() } catch { throw failure(error, profile: name) }
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
        do throws(SecretServiceError) { try item(name).write(bytes, contentType: "application/json") } catch {
            throw failure(error, profile: name)
        }
    }

    /// Deletes the profile's item, when there is one.
    static func delete(profile name: String) throws {
        do throws(SecretServiceError) { try item(name).delete() } catch { throw failure(error, profile: name) }
    }

    /// Opens a session with the Secret Service (which the bus may start) and
    /// finds its default collection unlocked (unlocking it when that needs no
    /// prompt), or throws the error a later write would: no bus, no service,
    /// a locked keyring (`keyring_locked`), no default collection.
    static func checkWritable(profile name: String) throws {
        do throws(SecretServiceError) { try item(name).checkWritable() } catch { throw failure(error, profile: name) }
    }

    static func label(_ name: String) -> String { "authflow: \(name)" }

    static func attributes(_ name: String) -> [(String, String)] {
        let directory = ProfileLocation.url(for: name)?.deletingLastPathComponent().path ?? ""
        return [("application", "authflow"), ("profile", name), ("directory", directory)]
    }

    /// The error a command reports; never holds a secret (D-Bus error messages name objects, not values).
    static func failure(_ error: SecretServiceError, profile name: String) -> AuthFlowError {
        if case .bus(.noSessionBus) = error {
            return AuthFlowError(
                .storage,
                "profile \(name) keeps its credentials in the desktop keyring, and there is no session bus (DBUS_SESSION_BUS_ADDRESS)",
                recovery: "Run it in the desktop session, or sign in again with --store file.")
        }
        return error.authFlowError(
            fallback: "Or sign in again with --store file to keep the credentials in the profile file (mode 0600).",
            field: TerminalText.field)
    }
}
#endif
