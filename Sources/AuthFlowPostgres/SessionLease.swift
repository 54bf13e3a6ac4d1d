#if PostgreSQL // the PostgreSQL package trait
import AuthFlow
import Foundation
import PostgresNIO

/// One holder's exclusive access to a session: an open transaction on a
/// pooled connection that holds the session row's lock (`FOR UPDATE`). The
/// store's operations inside ``PostgresCredentialStore/withExclusiveAccess(_:)``
/// find it through ``SessionLeases/current`` and run in that transaction.
final class SessionLease: Sendable {
    let table: ObjectIdentifier
    let sessionID: String
    let connection: PostgresConnection
    /// The row's generation when the lock was taken (bumped by every write).
    let startGeneration: Int64
    let state: LockedValue<State>

    struct State: Sendable {
        /// A refresh in flight recorded before this lease: its holder's
        /// transaction ended without storing a result.
        var orphan: RefreshMarker?
        /// The refresh this lease recorded as in flight, until a write clears it.
        var attempt: UUID?
        /// The refresh token of the record this lease read, to tell whether the provider rotates.
        var readRefreshToken: String??
        /// The last write, replayed in a new transaction when the connection is lost before the commit.
        var write: SessionWrite?
        /// True once a write was made in the transaction (false when it failed).
        var written = false
        /// True once the connection (and the transaction with it) was lost.
        var lost = false
        /// The row's generation in this transaction: the start's, plus one per write made.
        var generation: Int64
    }

    init(table: ObjectIdentifier, sessionID: String, connection: PostgresConnection, startGeneration: Int64, orphan: RefreshMarker?) {
        self.table = table
        self.sessionID = sessionID
        self.connection = connection
        self.startGeneration = startGeneration
        state = LockedValue(State(orphan: orphan, generation: startGeneration))
    }
}

/// The lease of the running task, if any.
enum SessionLeases {
    @TaskLocal static var current: SessionLease?
}

/// A refresh recorded as in flight.
struct RefreshMarker: Sendable {
    let attempt: UUID
    let instance: String
    let startedAt: Date
}

/// What a lease wrote to the session row.
enum SessionWrite: Sendable {
    /// A record, sealed when written (for the generation the write gives the
    /// row); `expiresAt`: when the session can no longer be renewed, if known.
    case record(SessionRecord, rotates: Bool?, expiresAt: Date?)
    /// A tombstone, with why the session ended.
    case tombstone(reason: String)
}

#endif
