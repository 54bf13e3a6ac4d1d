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
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        for text in ["{\"version\":2,\"record\":{\"trunc", "not json", "[]", "{\"version\":1}", "{\"version\":2}"] {
            try Data(text.utf8).write(to: file)
            await expectError(.configuration) { try await FileCredentialStore(url: file).load() }
            #expect(try String(contentsOf: file, encoding: .utf8) == text)
        }
    }

    @Test("a file from a newer version is a configuration error naming the version")
    func newerVersion() async throws {
        let file = Self.temporaryFile()
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(#"{"version":3,"record":{}}"#.utf8).write(to: file)
        let error = await expectError(.configuration) { try await FileCredentialStore(url: file).load() }
        #expect(error?.message.contains("version 3") == true)
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
                        let now = inside.withLock { $0 += 1; return $0 }
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

/// The hand-written parser of stored dates agrees with Foundation's ISO 8601 format style.
@Suite("Stored dates")
struct StoredDateTests {
    @Test("written dates parse back to the millisecond; offsets and Z are honoured; anything else is nil")
    func parse() throws {
        let style = Date.ISO8601FormatStyle.iso8601.year().month().day().time(includingFractionalSeconds: true)
        for seconds in [0.0, 951_782_400.5, 1_700_000_000.123, 4_070_908_800.999, -86_400.25] {
            let date = Date(timeIntervalSince1970: seconds)
            let parsed = try #require(StoredDate.parse(date.formatted(style)))
            #expect(abs(parsed.timeIntervalSince1970 - seconds) < 0.001)
        }
        #expect(StoredDate.parse("2000-01-01T00:00:00Z")?.timeIntervalSince1970 == 946_684_800)
        #expect(StoredDate.parse("2000-01-01T01:30:00+01:30")?.timeIntervalSince1970 == 946_684_800)
        #expect(StoredDate.parse("1999-12-31T23:00:00-01:00")?.timeIntervalSince1970 == 946_684_800)
        for bad in ["", "2000-01-01", "2000-13-01T00:00:00", "2000-01-01T00:00:00.", "2000-01-01T00:00:00Zjunk", "２000-01-01T00:00:00"] {
            #expect(StoredDate.parse(bad) == nil, "\(bad)")
        }
    }
}
