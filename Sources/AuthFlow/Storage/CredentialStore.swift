import Foundation

/// Where a session keeps its credentials. Implementations: memory, a file
/// (this module), the Keychain (AuthFlowApple).
public protocol CredentialStore: Sendable {
    /// The stored credentials, or nil when there are none.
    func load() async throws -> Credentials?
    /// Replaces the stored credentials. Must be durable when it returns.
    func save(_ credentials: Credentials) async throws
    /// Forgets the credentials.
    func delete() async throws
    /// Runs `body` while holding the store's exclusive lock, so that only one
    /// holder (in any process, for stores that can) refreshes at a time.
    func withExclusiveAccess<T: Sendable>(_ body: @Sendable () async throws -> T) async throws -> T
}

extension CredentialStore {
    /// Stores that live in one process need no lock beyond the session actor.
    public func withExclusiveAccess<T: Sendable>(_ body: @Sendable () async throws -> T) async throws -> T {
        try await body()
    }
}

/// Credentials in memory only (tests, or apps that sign in every launch).
public actor MemoryCredentialStore: CredentialStore {
    private var credentials: Credentials?

    /// Creates a store, optionally holding credentials already.
    public init(_ credentials: Credentials? = nil) {
        self.credentials = credentials
    }

    public func load() async throws -> Credentials? { credentials }
    public func save(_ credentials: Credentials) async throws { self.credentials = credentials }
    public func delete() async throws { credentials = nil }
}
