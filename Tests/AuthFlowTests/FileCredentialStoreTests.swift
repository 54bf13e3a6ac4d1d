import AuthFlowTestSupport
import Foundation
import Testing

@testable import AuthFlow

@Suite("FileCredentialStore")
struct FileCredentialStoreTests {
    static func temporaryFile() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("authflow-store-\(UUID().uuidString)")
            .appendingPathComponent("profile.json")
    }

    @Test("round trip, versioned JSON, mode 0600 in a 0700 directory, no temporary files left")
    func roundTrip() async throws {
        let file = Self.temporaryFile()
        let store = FileCredentialStore(url: file)
        #expect(try await store.load() == nil)
        let credentials = try SessionTests.credentials(expiresIn: 3600)
        let record = SessionRecord(credentials: credentials, metadata: metadata(), clientAuthenticationMethod: .clientSecretBasic)
        try await store.save(record)
        let loadedRecord = try #require(try await store.load())
        #expect(loadedRecord.metadata == record.metadata)
        #expect(loadedRecord.clientAuthenticationMethod == .clientSecretBasic)
        let loaded = loadedRecord.credentials
        #expect(loaded.accessToken == credentials.accessToken)
        #expect(loaded.token.refreshToken == credentials.token.refreshToken)
        #expect(loaded.scopes == credentials.scopes)
        let expiry = try #require(loaded.expiresAt?.timeIntervalSince1970)
        #expect(abs(expiry - (credentials.expiresAt?.timeIntervalSince1970 ?? 0)) < 0.001, "dates keep milliseconds")
        let attributes = try FileManager.default.attributesOfItem(atPath: file.path)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        let directory = try FileManager.default.attributesOfItem(atPath: file.deletingLastPathComponent().path)
        #expect((directory[.posixPermissions] as? NSNumber)?.intValue == 0o700)
        let object = try #require(JSONMemberValue.object(from: try Data(contentsOf: file)))
        #expect(object["version"] == .number(2))
        let names = try FileManager.default.contentsOfDirectory(atPath: file.deletingLastPathComponent().path)
        #expect(names.allSatisfy { !$0.hasSuffix(".tmp") })
        try await store.delete()
        #expect(try await store.load() == nil)
        try await store.delete() // deleting twice is fine
    }

    @Test("a corrupt file is a configuration error and is not overwritten")
    func corrupt() async throws {
        let file = Self.temporaryFile()
        try FileManager.default.createDirectory(
            at: file.deletingLastPathComponent(), withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        for text in ["{\"version\":2,\"record\":{\"trunc", "not json", "[]", "{\"version\":1}", "{\"version\":2}"] {
            try Data(text.utf8).write(to: file)
            #expect(chmod(file.path, 0o600) == 0)
            await expectError(.configuration) { try await FileCredentialStore(url: file).load() }
            #expect(try String(contentsOf: file, encoding: .utf8) == text)
        }
    }

    @Test("a file from a newer version is a configuration error naming the version")
    func newerVersion() async throws {
        let file = Self.temporaryFile()
        try FileManager.default.createDirectory(
            at: file.deletingLastPathComponent(), withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        try Data(#"{"version":3,"record":{}}"#.utf8).write(to: file)
        #expect(chmod(file.path, 0o600) == 0)
        let error = await expectError(.configuration) { try await FileCredentialStore(url: file).load() }
        #expect(error?.message.contains("version 3") == true)
    }

    @Test("the file is read only when private, with the CLI profile's rules: mode, directory, owner-only, no link")
    func onlyPrivateFilesAreRead() async throws {
        let file = Self.temporaryFile()
        let store = FileCredentialStore(url: file)
        try await store.save(
            SessionRecord(
                credentials: try SessionTests.credentials(expiresIn: 3600), metadata: metadata(), clientAuthenticationMethod: .none))
        #expect(chmod(file.path, 0o644) == 0)
        var error = await expectError(.storage) { try await store.load() }
        #expect(error?.message == "\(file.path) is accessible by other users (mode 644); it holds credentials, so it is not used")
        #expect(error?.recovery == "Make it private: chmod 600 \(file.path)")
        #expect(chmod(file.path, 0o600) == 0)
        let directory = file.deletingLastPathComponent().path
        #expect(chmod(directory, 0o755) == 0)
        error = await expectError(.storage) { try await store.load() }
        #expect(error?.message == "\(directory) is accessible by other users (mode 755); it holds credentials, so it is not used")
        // Saving makes the directory private again.
        try await store.save(
            SessionRecord(
                credentials: try SessionTests.credentials(expiresIn: 3600), metadata: metadata(), clientAuthenticationMethod: .none))
        #expect(try await store.load() != nil)
        let link = file.deletingLastPathComponent().appendingPathComponent("link.json")
        #expect(symlink(file.path, link.path) == 0)
        error = await expectError(.storage) { try await FileCredentialStore(url: link).load() }
        #expect(error?.message == "\(link.path) is a symbolic link, and credential files are not read through links")
        #expect(mkfifo(file.deletingLastPathComponent().appendingPathComponent("fifo.json").path, 0o600) == 0)
        error = await expectError(.storage) {
            try await FileCredentialStore(url: file.deletingLastPathComponent().appendingPathComponent("fifo.json")).load()
        }
        #expect(error?.message == "\(directory)/fifo.json is not a regular file")
        #expect(error?.recovery == "Remove \(directory)/fifo.json and sign in again.")
    }

    @Test("the exclusive lock serialises holders")
    func lock() async throws {
        let store = FileCredentialStore(url: Self.temporaryFile())
        let inside = Locked(0)
        let maximum = Locked(0)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    try await store.withExclusiveAccess {
                        let now = inside.withLock {
                            $0 += 1
                            return $0
                        }
                        maximum.withLock { $0 = max($0, now) }
                        try await Task.sleep(nanoseconds: 5_000_000)
                        inside.withLock { $0 -= 1 }
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(maximum.current == 1)
    }
}
