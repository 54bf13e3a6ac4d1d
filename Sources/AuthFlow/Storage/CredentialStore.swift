#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Where a session keeps its ``SessionRecord``. Implementations: memory, a
/// file (this module), the Keychain (AuthFlowApple).
public protocol CredentialStore: Sendable {
    /// The stored record, or nil when there is none.
    func load() async throws -> SessionRecord?
    /// Replaces the stored record. Must be durable when it returns.
    func save(_ record: SessionRecord) async throws
    /// Forgets the record.
    func delete() async throws
    /// Runs `body` while holding the store's exclusive lock, so that only one
    /// holder (in any process, for stores that can) refreshes or signs out
    /// at a time.
    func withExclusiveAccess<T: Sendable>(_ body: @Sendable () async throws -> T) async throws -> T
    /// Called inside ``withExclusiveAccess(_:)``, after the store was read
    /// and just before a refresh request is sent. A store shared by several
    /// machines records the refresh as in flight here, so that when this
    /// process dies before ``save(_:)`` (the provider may have rotated the
    /// refresh token, and only the lost reply held the new one), the next
    /// holder of the lock can tell. The default does nothing.
    func refreshWillStart() async throws
}

extension CredentialStore {
    /// Stores that live in one process need no lock beyond the session actor.
    public func withExclusiveAccess<T: Sendable>(_ body: @Sendable () async throws -> T) async throws -> T {
        try await body()
    }

    /// Stores without a record of refreshes in flight do nothing.
    public func refreshWillStart() async throws {}
}

/// A record in memory only (tests, or apps that sign in every launch).
public actor MemoryCredentialStore: CredentialStore {
    private var record: SessionRecord?

    /// Creates a store, optionally holding a record already.
    public init(_ record: SessionRecord? = nil) {
        self.record = record
    }

    /// The record held, or nil.
    public func load() async throws -> SessionRecord? { record }
    /// Holds `record`, replacing the one held.
    public func save(_ record: SessionRecord) async throws { self.record = record }
    /// Forgets the record held.
    public func delete() async throws { record = nil }
}
