#if CLI // the CLI package trait
import ArgumentParser
import AuthFlow
import AuthFlowStoreHelper
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `--store` (or `AUTHFLOW_STORE`): where a profile's credentials live.
///
/// - `file`: in the profile's file (mode 0600).
/// - `secret-service`: in the desktop keyring (GNOME Keyring, KWallet)
///   through the Secret Service API on the session bus; the profile file
///   keeps the settings only (``ProfileKeyring``).
/// - neither given: at sign-in, the keyring when a Secret Service is running
///   on the session bus, else the file (said once, on stderr). The choice is
///   kept in the profile, and `token`, `logout`, `status` and the credential
///   helpers follow it.
/// - `postgresql://USER[:PASSWORD]@HOST[:PORT]/DATABASE[?table=NAME&sslmode=disable|prefer|require]`:
///   in a table shared by every machine that names it; the session ID is the
///   profile name. Without `sslmode`, TLS is required unless the host is a
///   loopback IP literal (``PostgresStoreAddress/defaultTLS(host:)``). The password comes from the URL, else from the file named
///   by `AUTHFLOW_STORE_PASSWORD_FILE`, else from `AUTHFLOW_STORE_PASSWORD`.
///   The records are encrypted with the key (32 bytes, base64) in the file
///   named by `AUTHFLOW_STORE_KEY_FILE`, else in `AUTHFLOW_STORE_KEY`, under
///   the key ID `AUTHFLOW_STORE_KEY_ID` (default `default`).
///
/// Neither the password nor the key is ever printed: a bad URL is reported
/// by its parts without them.
struct StoreOption: ParsableArguments {
    @Option(
        name: .customLong("store"),
        help: ArgumentHelp(
            "Where the credentials live: file (the profile), secret-service (the desktop keyring) or postgresql://USER@HOST[:PORT]/DATABASE (also AUTHFLOW_STORE; default: the keyring when one runs, else the file).",
            valueName: "store"))
    var store: String?

    func validate() throws {
        _ = try kind()
    }

    /// The store named by `--store`, else `AUTHFLOW_STORE`, else ``StoreKind/automatic``.
    func kind(environment: [String: String] = ProcessInfo.processInfo.environment) throws -> StoreKind {
        let text = store ?? environment["AUTHFLOW_STORE"].flatMap { $0.isEmpty ? nil : $0 }
        guard let text else { return .automatic }
        if text == "file" { return .file }
        if text == ProfileKeyring.storeName { return .secretService }
        let source = store == nil ? "AUTHFLOW_STORE" : "--store"
        if text.lowercased().hasPrefix("postgresql://") || text.lowercased().hasPrefix("postgres://") {
            return .postgresql(try PostgresStoreAddress(text, source: source))
        }
        throw ValidationError("\(source) takes file, secret-service or a postgresql:// URL")
    }
}

/// The kinds of credential store the CLI can use.
enum StoreKind {
    /// Not named: at sign-in, the keyring when a Secret Service runs, else
    /// the file; afterwards, where the profile says.
    case automatic
    /// The profile's own file (with its lock).
    case file
    /// The desktop keyring (the Secret Service API); the profile's file lock still serializes refreshes.
    case secretService
    /// A shared PostgreSQL table.
    case postgresql(PostgresStoreAddress)

    /// This kind for a command that may sign `profile` in again (`request`):
    /// not named means where the profile keeps its credentials now, so that
    /// signing in again never moves them.
    func keepingPlace(of profile: Profile) -> StoreKind {
        guard case .automatic = self else { return self }
        return profile.usesKeyring ? .secretService : .file
    }
}

/// A parsed `postgresql://` URL. The password is kept apart and never shown.
struct PostgresStoreAddress: CustomStringConvertible {
    var host: String
    var port: Int
    var user: String
    var database: String
    var table: String
    var tls: TLSMode
    /// From the URL; nil means the file or the environment (``password(environment:)``).
    var urlPassword: String?

    /// The URL's `sslmode`, as the store helper takes it.
    typealias TLSMode = PostgresStoreConfiguration.TLSMode

    /// Parses `text`; `source` names the flag or variable in usage errors,
    /// which never repeat the URL (it may hold a password).
    init(_ text: String, source: String) throws {
        guard let components = URLComponents(string: text), let host = components.host, !host.isEmpty else {
            throw ValidationError("\(source) is not a valid postgresql:// URL (postgresql://USER@HOST[:PORT]/DATABASE)")
        }
        guard let user = components.percentEncodedUser.flatMap({ FormEncoding.percentDecoded($0) }), !user.isEmpty else {
            throw ValidationError("\(source) names no user (postgresql://USER@HOST[:PORT]/DATABASE)")
        }
        let database = String(components.path.drop { $0 == "/" })
        guard !database.isEmpty, !database.contains("/") else {
            throw ValidationError("\(source) names no database (postgresql://USER@HOST[:PORT]/DATABASE)")
        }
        var table = "authflow_sessions"
        var tls: TLSMode?
        for item in components.queryItems ?? [] {
            switch item.name {
            case "table": table = item.value ?? ""
            case "sslmode":
                guard let mode = TLSMode(rawValue: item.value ?? "") else {
                    throw ValidationError("\(source): sslmode takes disable, prefer or require")
                }
                tls = mode
            default: throw ValidationError("\(source): unknown parameter \(item.name) (known: table, sslmode)")
            }
        }
        if let port = components.port, !(1...65535).contains(port) {
            throw ValidationError("\(source): the port must be 1 to 65535")
        }
        self.host = host.hasPrefix("[") ? String(host.dropFirst().dropLast()) : host
        port = components.port ?? 5432
        self.user = user
        self.database = FormEncoding.percentDecoded(database) ?? database
        self.table = table
        self.tls = tls ?? Self.defaultTLS(host: self.host)
        urlPassword = components.percentEncodedPassword.flatMap { FormEncoding.percentDecoded($0) }
    }

    /// TLS when the URL names no `sslmode`: `require`, so that neither the
    /// password nor the sealed rows cross a network in clear because a
    /// server (or someone in the path) said it has no TLS; `prefer` only for
    /// a loopback IP literal (``LoopbackAddress``), where nothing crosses a
    /// network. A host name, `localhost` included, is resolved by DNS and
    /// gets `require`.
    static func defaultTLS(host: String) -> TLSMode {
        LoopbackAddress.isLiteral(host) ? .prefer : .require
    }

    /// The password: from the URL, else the file `AUTHFLOW_STORE_PASSWORD_FILE`
    /// names (its first line), else `AUTHFLOW_STORE_PASSWORD`; nil for none.
    func password(environment: [String: String] = ProcessInfo.processInfo.environment) throws -> String? {
        if let urlPassword { return urlPassword }
        if let path = environment["AUTHFLOW_STORE_PASSWORD_FILE"], !path.isEmpty {
            return try Self.firstLine(of: path, what: "the password file AUTHFLOW_STORE_PASSWORD_FILE names")
        }
        return environment["AUTHFLOW_STORE_PASSWORD"].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// The first line of a file, without its line end.
    static func firstLine(of path: String, what: String) throws -> String {
        let data: Data
        do { data = try Data(contentsOf: URL(fileURLWithPath: path)) } catch {
            throw AuthFlowError(.configuration, "cannot read \(what) (\(path))")
        }
        return String(decoding: data, as: UTF8.self).split(whereSeparator: \.isNewline).first.map(String.init) ?? ""
    }

    /// Where, without the password.
    var description: String { "postgresql://\(user)@\(host):\(port)/\(database) (table \(table))" }
}
#endif
