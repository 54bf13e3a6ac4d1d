#if PostgreSQL // the PostgreSQL package trait
import AuthFlow
import Foundation
import Logging
import PostgresNIO

/// One statement run within a deadline, its rows read in full (a session's
/// statements return at most one row).
enum Statement {
    /// The rows of `query` on `connection` (inside a transaction), or a
    /// `timeout` error after `seconds`. A connection abandoned at its
    /// deadline is closed: its transaction, and the lock with it, end.
    static func rows(
        _ query: PostgresQuery, on connection: PostgresConnection, within seconds: TimeInterval, doing: String, logger: Logger
    ) async throws -> [PostgresRow] {
        do {
            return try await Deadline.run(seconds: seconds, doing: doing) {
                var rows: [PostgresRow] = []
                for try await row in try await connection.query(query, logger: logger) { rows.append(row) }
                return rows
            }
        } catch let error as AuthFlowError where error.category == .timeout {
            Task { try? await connection.close() }
            throw error
        }
    }

    /// The rows of `query` on a connection of the pool, or a `timeout` error after `seconds`.
    static func rows(_ query: PostgresQuery, on client: PostgresClient, within seconds: TimeInterval, doing: String, logger: Logger)
        async throws -> [PostgresRow]
    {
        try await Deadline.run(seconds: seconds, doing: doing) {
            var rows: [PostgresRow] = []
            for try await row in try await client.query(query, logger: logger) { rows.append(row) }
            return rows
        }
    }
}
#endif
