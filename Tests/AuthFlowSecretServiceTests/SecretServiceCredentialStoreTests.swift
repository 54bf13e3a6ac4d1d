#if os(Linux)
import AuthFlow
import Foundation
import Glibc
import Testing

@testable import AuthFlowSecretService

/// The public store against a real gnome-keyring daemon on a private
/// session bus of the test's own (as Tests/Interop/keyring_fixtures.py
/// starts them): a record saved is loaded the same and deleted; a locked
/// keyring and a missing bus are the `storage` errors the documentation names.
@Suite(
    "SecretServiceCredentialStore against gnome-keyring",
    .enabled(if: PrivateSessionBus.toolsInstalled, "dbus-daemon, dbus-send or gnome-keyring-daemon is missing"))
struct SecretServiceCredentialStoreTests {
    static func record() throws -> SessionRecord {
        let token = try TokenResponse(
            json: Data(#"{"access_token":"at-1","token_type":"Bearer","refresh_token":"rt-1","expires_in":3600}"#.utf8), requestedScopes: []
        )
        let credentials = OAuthCredentials(
            issuer: try Issuer("https://id.example.com" as String), clientID: "desktop-app", token: token, idToken: nil)
        return SessionRecord(
            credentials: credentials,
            metadata: ProviderMetadata(
                authorizationEndpoint: URL(string: "https://id.example.com/authorize")!,
                tokenEndpoint: URL(string: "https://id.example.com/token")!),
            clientAuthenticationMethod: .none)
    }

    static func store(_ bus: PrivateSessionBus?, profile: String = "default") -> SecretServiceCredentialStore {
        SecretServiceCredentialStore(
            key: CredentialKey(issuer: "https://id.example.com", clientID: "desktop-app", profile: profile), application: "AuthFlow tests",
            timeout: .seconds(10), lockFile: nil, busAddress: bus?.address)
    }

    @Test("a record saved in the keyring loads the same, apart from another profile's, and is gone once deleted")
    func roundTrip() async throws {
        let bus = try PrivateSessionBus(keyring: true)
        defer { bus.close() }
        let store = Self.store(bus)
        #expect(try await store.load() == nil)
        let record = try Self.record()
        try await store.save(record)
        // Stored dates keep milliseconds (CredentialCoding), as in a file.
        #expect(try await store.load() == (try CredentialCoding.decode(try CredentialCoding.encode(record), source: "the record")))
        #expect(try await Self.store(bus, profile: "other").load() == nil)
        try await store.delete()
        #expect(try await store.load() == nil)
    }

    @Test("a locked keyring is storage keyring_locked, never a prompt")
    func locked() async throws {
        let bus = try PrivateSessionBus(keyring: true)
        defer { bus.close() }
        let store = Self.store(bus)
        try await store.save(try Self.record())
        try bus.send(
            "org.freedesktop.secrets", "/org/freedesktop/secrets", "org.freedesktop.Secret.Service.Lock",
            "array:objpath:/org/freedesktop/secrets/collection/login")
        let error = try await #require(throws: AuthFlowError.self) { try await store.load() }
        #expect(error.category == .storage)
        #expect(error.reason?.rawValue == "keyring_locked")
    }

    @Test("no session bus, or a bus without a Secret Service, is storage keyring_unavailable")
    func unavailable() async throws {
        let none = try await #require(throws: AuthFlowError.self) { try await Self.store(nil).load() }
        #expect(none.category == .storage)
        #expect(none.reason?.rawValue == "keyring_unavailable")
        #expect(none.message == "the desktop keyring cannot be used: there is no session bus")
        let bus = try PrivateSessionBus(keyring: false)
        defer { bus.close() }
        #expect(!SecretServiceItem.isAvailable(busAddress: bus.address, timeout: .seconds(5)))
        let bare = try await #require(throws: AuthFlowError.self) { try await Self.store(bus).save(try Self.record()) }
        #expect(bare.category == .storage)
        #expect(bare.reason?.rawValue == "keyring_unavailable")
    }
}

/// `dbus-daemon --session` on a socket of its own under a temporary home,
/// with `gnome-keyring-daemon --unlock --components=secrets` and a new,
/// unlocked login collection when asked.
final class PrivateSessionBus {
    static var toolsInstalled: Bool {
        ["dbus-daemon", "dbus-send", "gnome-keyring-daemon"].allSatisfy { tool in
            FileManager.default.isExecutableFile(atPath: "/usr/bin/\(tool)")
        }
    }

    let address: String
    let home: URL
    private let bus: Process
    private let keyring: Process?
    private let environment: [String: String]

    init(keyring withKeyring: Bool) throws {
        home = FileManager.default.temporaryDirectory.appendingPathComponent("authflow-bus-\(UUID().uuidString)")
        let run = home.appendingPathComponent("run")
        try FileManager.default.createDirectory(at: home.appendingPathComponent("data"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: run, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        var environment = [
            "PATH": "/usr/bin:/bin", "HOME": home.path, "XDG_DATA_HOME": home.appendingPathComponent("data").path,
            "XDG_RUNTIME_DIR": run.path,
        ]
        // In the foreground, so that it is this test's child and ends with close().
        let daemon = Process()
        daemon.executableURL = URL(fileURLWithPath: "/usr/bin/dbus-daemon")
        daemon.arguments = ["--session", "--nofork", "--nopidfile", "--print-address=1"]
        daemon.environment = environment
        let printed = Pipe()
        daemon.standardOutput = printed
        daemon.standardError = FileHandle.nullDevice
        try daemon.run()
        bus = daemon
        // The address is the first line; bounded by the daemon's output ending.
        var line = Data()
        while !line.contains(UInt8(ascii: "\n")) {
            let chunk = printed.fileHandleForReading.availableData
            guard !chunk.isEmpty else { break }
            line.append(chunk)
        }
        let text = String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard text.hasPrefix("unix:") else {
            daemon.terminate()
            throw BusError("dbus-daemon printed \(text)")
        }
        address = text
        environment["DBUS_SESSION_BUS_ADDRESS"] = address
        self.environment = environment
        guard withKeyring else {
            keyring = nil
            return
        }
        let keyringDaemon = Process()
        keyringDaemon.executableURL = URL(fileURLWithPath: "/usr/bin/gnome-keyring-daemon")
        keyringDaemon.arguments = ["--unlock", "--components=secrets", "--foreground"]
        keyringDaemon.environment = environment
        let input = Pipe()
        keyringDaemon.standardInput = input
        keyringDaemon.standardOutput = FileHandle.nullDevice
        keyringDaemon.standardError = FileHandle.nullDevice
        try keyringDaemon.run()
        input.fileHandleForWriting.write(Data("authflow-test".utf8))
        try input.fileHandleForWriting.close()
        keyring = keyringDaemon
        // Bounded: 400 polls of 50 ms.
        for _ in 0..<400 {
            if SecretServiceItem.isAvailable(busAddress: address, timeout: .seconds(2)) { return }
            Thread.sleep(forTimeInterval: 0.05)
        }
        close()
        throw BusError("gnome-keyring-daemon did not take its name on the bus")
    }

    /// `dbus-send --session --print-reply` on this bus.
    func send(_ destination: String, _ path: String, _ method: String, _ arguments: String...) throws {
        _ = try Self.run(
            "/usr/bin/dbus-send", ["--session", "--print-reply", "--dest=\(destination)", path, method] + arguments,
            environment: environment)
    }

    /// Kills both daemons (gnome-keyring-daemon does not end on SIGTERM) and removes the home.
    func close() {
        for process in [keyring, bus].compactMap(\.self) where process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(at: home)
    }

    private static func run(_ tool: String, _ arguments: [String], environment: [String: String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        process.environment = environment
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw BusError("\(tool) exited with \(process.terminationStatus)") }
        return String(decoding: data, as: UTF8.self)
    }

    struct BusError: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }
}
#endif
