import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Credentials in a file: versioned JSON, mode 0600 in a 0700 directory,
/// replaced atomically (``AtomicFile``), with a cross-process lock
/// (``FileLock`` on `<file>.lock`) around refreshes.
///
/// A corrupt file or one written by a newer version is a
/// ``AuthFlowError/Category/configuration`` error; it is never overwritten
/// silently and never crashes.
public struct FileCredentialStore: CredentialStore {
    /// The credentials file.
    public let url: URL
    private let lock: FileLock

    /// A store in `url`.
    public init(url: URL) {
        self.url = url
        lock = FileLock(url: url.appendingPathExtension("lock"))
    }

    public func load() async throws -> Credentials? {
        guard let data = FileManager.default.contents(atPath: url.path) else { return nil }
        return try CredentialCoding.decode(data, source: url.path)
    }

    public func save(_ credentials: Credentials) async throws {
        try AtomicFile.write(try CredentialCoding.encode(credentials), to: url)
    }

    public func delete() async throws {
        if unlink(url.path) != 0 && errno != ENOENT {
            throw AuthFlowError(.configuration, "cannot delete \(url.path) (errno \(errno))")
        }
    }

    public func withExclusiveAccess<T: Sendable>(_ body: @Sendable () async throws -> T) async throws -> T {
        try await lock.withLock(body)
    }
}

/// Reading and writing versioned JSON files strictly.
public enum VersionedFile {
    /// Encodes `value` as sorted, pretty JSON with ISO 8601 dates.
    public static func encode(_ value: some Encodable) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(date.formatted(.iso8601.year().month().day().time(includingFractionalSeconds: true)))
        }
        return try encoder.encode(value)
    }

    /// Decodes `data`, checking its `version` member first: a newer version
    /// or anything unreadable is a `configuration` error naming `path`.
    public static func decode<T: Decodable>(_ type: T.Type, from data: Data, current: Int, path: String) throws -> T {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            let text = try decoder.singleValueContainer().decode(String.self)
            if let date = try? Date(text, strategy: .iso8601.year().month().day().time(includingFractionalSeconds: true)) { return date }
            if let date = try? Date(text, strategy: .iso8601) { return date }
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

    private struct VersionOnly: Decodable { let version: Int }
}
