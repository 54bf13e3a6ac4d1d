#if PostgreSQL // the PostgreSQL package trait
import AuthFlow
import Crypto
public import Foundation
import PostgresNIO

/// Identifiers that may be used once across every instance (a DPoP proof's
/// `jti`, a logout token's `jti`), remembered in the `<table>_seen` table of
/// a ``PostgresSessionTable`` until they expire.
///
/// Only SHA-256 of each identifier (with its scope) is stored.
public struct PostgresReplayCache: Sendable {
    /// The table whose `_seen` table holds the identifiers.
    public let table: PostgresSessionTable

    /// A cache in `table`'s database.
    public init(table: PostgresSessionTable) {
        self.table = table
    }

    /// True the first time `identifier` is seen in `scope` (until `expiresAt`),
    /// false for a replay. An expired entry counts as unseen.
    ///
    /// - Throws: database failures as `network`, `timeout` or `storage`.
    public func firstUse(of identifier: String, scope: String, expiresAt: Date) async throws -> Bool {
        try await table.prepared()
        let key = Data(SHA256.hash(data: Data("\(scope)\u{0}\(identifier)".utf8)))
        let doing = "record a one-time identifier in \(table.name)_seen"
        do {
            let rows = try await Statement.rows(
                """
                INSERT INTO \(unescaped: table.name)_seen (key, expires_at) VALUES (\(key), \(expiresAt))
                ON CONFLICT (key) DO UPDATE SET expires_at = EXCLUDED.expires_at WHERE \(unescaped: table.name)_seen.expires_at < now()
                RETURNING 1
                """, on: table.client, within: table.options.queryTimeout, doing: doing, logger: table.logger)
            return !rows.isEmpty
        } catch {
            throw DatabaseError.map(error, doing: doing)
        }
    }
}
#endif
