import AuthFlowStoredDate

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A session record in a file: versioned JSON (`CredentialCoding`), mode
/// 0600 in a 0700 directory, replaced atomically (`AtomicFile`), with a
/// cross-process lock (`FileLock` on `<file>.lock`) around refreshes and
/// sign-out.
///
/// The file is read only when it is private, with the rules of the
/// `authflow` command's profiles: a regular file (a symbolic link is not
/// followed), owned by this user, in a directory owned by this user, with
/// no permission for group or others; anything else is a
/// ``AuthFlowError/Category/storage`` error whose recovery names the fix
/// (`chmod 600 …`). Saving makes the directory private.
///
/// Dates are stored in UTC to the millisecond (`2026-11-24T17:54:40.100`),
/// so a record that is loaded and saved again keeps them exactly. The years
/// 1583 to 9999 are stored as they are; a date beyond them, which no real
/// token carries, is stored as the nearest end of that range.
///
/// A corrupt file or one written by a newer version is a
/// ``AuthFlowError/Category/configuration`` error; it is never overwritten
/// silently and never crashes. Failing file-system calls are
/// ``AuthFlowError/Category/storage`` errors that keep the `errno`.
public struct FileCredentialStore: CredentialStore {
    /// The record's file.
    public let url: URL
    /// The cross-process lock.
    package let lock: FileLock

    /// A store in `url`, whose lock is waited for at most `lockTimeout`
    /// seconds; `name` (default: the path) is how lock errors name it.
    public init(url: URL, lockTimeout: TimeInterval = 30, name: String? = nil) {
        self.url = url
        lock = FileLock(url: url.appendingPathExtension("lock"), timeout: lockTimeout, name: name ?? url.path)
    }

    /// The record in the file, or nil when there is none.
    public func load() async throws -> SessionRecord? {
        guard let data = try FileCredentialStore.read(url) else { return nil }
        return try CredentialCoding.decode(data, source: url.path)
    }

    /// Writes `record` to the file atomically, mode 0600, in its directory
    /// made private first (created with mode 0700, or its mode repaired).
    public func save(_ record: SessionRecord) async throws {
        try PrivateFile.prepareDirectory(of: url)
        try AtomicFile.write(try CredentialCoding.encode(record), to: url)
    }

    /// Removes the file; nothing happens when there is none.
    public func delete() async throws {
        if unlink(url.path) != 0 && errno != ENOENT {
            throw StorageError.posix("cannot delete \(url.path)")
        }
    }

    /// Runs `body` holding the file's lock, which other processes respect too.
    public func withExclusiveAccess<T: Sendable>(_ body: @Sendable () async throws -> T) async throws -> T {
        try await lock.withLock(body)
    }

    /// The file's bytes, nil when it does not exist; a file that is not
    /// private (`PrivateFile`) and other failures are `storage` errors.
    static func read(_ url: URL) throws -> Data? {
        try PrivateFile.read(url)
    }
}

/// Reading and writing versioned JSON files strictly.
package enum VersionedFile {
    /// Encodes `value` as sorted, pretty JSON with ISO 8601 dates in UTC, to
    /// the millisecond (`StoredDate.write`: a date read back writes the same).
    public static func encode(_ value: some Encodable) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(StoredDate.write(date))
        }
        return try encoder.encode(value)
    }

    /// Decodes `data`, checking its `version` member first: a newer version
    /// or anything unreadable is a `configuration` error naming `path`.
    public static func decode<T: Decodable>(_ type: T.Type, from data: Data, current: Int, path: String) throws -> T {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            let text = try decoder.singleValueContainer().decode(String.self)
            if let date = StoredDate.read(text) { return date }
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "not an ISO 8601 date"))
        }
        guard let found = (try? decoder.decode(VersionOnly.self, from: data))?.version else {
            throw AuthFlowError(.configuration, "\(path) is corrupt; move it away and sign in again")
        }
        guard found == current else {
            throw AuthFlowError(.configuration, "\(path) has format version \(found); this version of AuthFlow reads \(current)")
        }
        guard let value = try? decoder.decode(T.self, from: data) else {
            throw AuthFlowError(.configuration, "\(path) is corrupt; move it away and sign in again")
        }
        return value
    }

    /// The `version` member of `data`; unreadable data is a `configuration` error naming `path`.
    public static func version(of data: Data, path: String) throws -> Int {
        guard let found = (try? JSONDecoder().decode(VersionOnly.self, from: data))?.version else {
            throw AuthFlowError(.configuration, "\(path) is corrupt; move it away and sign in again")
        }
        return found
    }

    private struct VersionOnly: Decodable { let version: Int }
}
