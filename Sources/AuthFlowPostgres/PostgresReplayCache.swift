#if PostgreSQL // the PostgreSQL package trait
public import AuthFlow
import Crypto
public import Foundation
import PostgresNIO

/// A `ReplayCache` shared by every instance: identifiers that may be used
/// once (a DPoP proof's `jti`, a logout token's `jti`), remembered in the
/// `<table>_seen` table of a ``PostgresSessionTable`` until they expire.
///
/// Give one to AuthFlowHummingbird's middleware
/// (`ProtectedResourceOptions.replayCache`) and back-channel logout endpoint,
/// and a proof or logout token used on one instance is refused on every
/// other. Only SHA-256 of each identifier (with the cache's scope) is stored.
///
/// Expiries are kept and compared on one clock, the database's: the time
/// left until `expiresAt` is measured on this instance's clock, and the row
/// expires that long after the database's `now()`. Instances whose clocks
/// differ from the database's (or from each other) neither let a replay
/// through early nor keep an identifier longer than asked.
public struct PostgresReplayCache: ReplayCache {
    /// The table whose `_seen` table holds the identifiers.
    public let table: PostgresSessionTable
    /// Keeps this cache's identifiers apart from other caches' in the same table.
    public let scope: String
    /// This instance's clock, against which `expiresAt` is read.
    let now: @Sendable () -> Date

    /// A cache in `table`'s database.
    /// - Parameters:
    ///   - table: the table whose `_seen` table holds the identifiers.
    ///   - scope: keeps this cache's identifiers apart from those of caches
    ///     with another scope (another API, another use) in the same table.
    public init(table: PostgresSessionTable, scope: String = "") {
        self.init(table: table, scope: scope, now: { Date() })
    }

    /// A cache reading expiries against `now` (tests give an instance a clock that differs from the database's).
    package init(table: PostgresSessionTable, scope: String, now: @escaping @Sendable () -> Date) {
        self.table = table
        self.scope = scope
        self.now = now
    }

    /// True the first time `identifier` is seen in this cache's scope (until
    /// `expiresAt`), false for a replay, however many instances ask at the
    /// same moment. An expired entry counts as unseen.
    ///
    /// - Throws: database failures as `network`, `timeout` or `storage`.
    public func firstUse(of identifier: String, until expiresAt: Date) async throws -> Bool {
        try await table.prepared()
        let key = key(identifier)
        let lifetime = expiresAt.timeIntervalSince(now())
        let doing = "record a one-time identifier in \(table.name)_seen"
        do {
            let rows = try await Statement.rows(
                """
                INSERT INTO \(unescaped: table.name)_seen (key, expires_at) VALUES (\(key), now() + make_interval(secs => \(lifetime)))
                ON CONFLICT (key) DO UPDATE SET expires_at = EXCLUDED.expires_at WHERE \(unescaped: table.name)_seen.expires_at < now()
                RETURNING 1
                """, on: table.client, within: table.options.queryTimeout, doing: doing, logger: table.logger)
            return !rows.isEmpty
        } catch {
            throw DatabaseError.map(error, doing: doing)
        }
    }

    /// Forgets `identifier` in this cache's scope, on every instance: its next use is a first use again.
    ///
    /// - Throws: database failures as `network`, `timeout` or `storage`.
    public func forget(_ identifier: String) async throws {
        try await table.prepared()
        let doing = "forget a one-time identifier in \(table.name)_seen"
        do {
            _ = try await Statement.rows(
                "DELETE FROM \(unescaped: table.name)_seen WHERE key = \(key(identifier))", on: table.client,
                within: table.options.queryTimeout, doing: doing, logger: table.logger)
        } catch {
            throw DatabaseError.map(error, doing: doing)
        }
    }

    /// What the table keeps of `identifier`: SHA-256 of the scope and the identifier.
    private func key(_ identifier: String) -> Data {
        Data(SHA256.hash(data: Data("\(scope)\u{0}\(identifier)".utf8)))
    }
}
#endif
