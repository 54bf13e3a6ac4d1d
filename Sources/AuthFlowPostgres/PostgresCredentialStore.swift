#if PostgreSQL // the PostgreSQL package trait
public import AuthFlow
import Foundation
import Logging
import PostgresNIO

/// One session's record in a ``PostgresSessionTable``, shared by every
/// instance that opens the same session ID. Made by ``PostgresSessionTable/store(sessionID:)``.
///
/// ``withExclusiveAccess(_:)`` opens a transaction that holds the session
/// row's lock; ``load()``, ``save(_:)`` and ``delete()`` called inside it run
/// in that transaction, and it commits when the body returns or throws
/// (what the body wrote stands either way). Outside it, ``save(_:)`` and
/// ``delete()`` take the lock for themselves.
///
/// ``delete()`` leaves a tombstone: ``load()`` returns nil, and a refresh
/// waiting on another instance finds the session signed out.
public struct PostgresCredentialStore: CredentialStore {
    /// The table the session lives in.
    public let table: PostgresSessionTable
    /// The session's ID.
    public let sessionID: String
    /// The refreshes this store (and its copies) recorded as in flight whose
    /// markers may still be in the table: its own, which a later holder of
    /// this store finishes instead of taking them for a lost reply.
    let ownRefreshes = LockedValue<Set<UUID>>([])

    init(table: PostgresSessionTable, sessionID: String) {
        self.table = table
        self.sessionID = sessionID
    }

    /// The stored record, or nil when there is none (never stored, signed
    /// out, or ended).
    ///
    /// Inside ``withExclusiveAccess(_:)``, a refresh recorded in flight by a
    /// holder that never finished (it died, or lost its connection, after
    /// sending the request) ends the session when the provider rotates
    /// refresh tokens (or it is not known whether it does): the refresh
    /// token stored is the one the provider has replaced, and the reply that
    /// held the new one is lost. A refresh this store recorded itself is not
    /// lost: its reply is in the memory of the session that sent it, which
    /// saves it now (a save that failed, made again).
    ///
    /// - Throws: `AuthFlowError/Category/reauthenticationRequired` (reason
    ///   `AuthFlowError/Reason/refreshReplyLost`) for such a lost reply;
    ///   `AuthFlowError/Category/configuration` when the row's key is not
    ///   among the keys given; `AuthFlowError/Category/storage` when it
    ///   does not decrypt; `network` or `timeout` when PostgreSQL fails.
    public func load() async throws -> SessionRecord? {
        if let lease = ownLease, !lease.state.withLock({ $0.lost }) {
            return try await load(in: lease)
        }
        try await table.prepared()
        let row: StoredRow?
        do {
            row = try StoredRow.fetch(
                try await Statement.rows(
                    StoredRow.query(table, sessionID), on: table.client, within: table.options.queryTimeout,
                    doing: "read the session \(sessionID)", logger: table.logger))
        } catch {
            throw DatabaseError.map(error, doing: "read the session \(sessionID)")
        }
        return try row?.open(table, sessionID)
    }

    /// Encrypts `record` with the current key and stores it, committed when
    /// this returns (or, inside ``withExclusiveAccess(_:)``, when that ends).
    public func save(_ record: SessionRecord) async throws {
        guard let lease = ownLease else {
            return try await withExclusiveAccess { try await save(record) }
        }
        let newRefresh = record.credentials.token.refreshToken
        let rotates: Bool? = lease.state.withLock { state in
            guard case .some(let old?) = state.readRefreshToken, let newRefresh else { return nil }
            return old != newRefresh
        }
        let expiresAt = newRefresh == nil ? record.credentials.expiresAt : nil
        try await write(.record(record, rotates: rotates, expiresAt: expiresAt), in: lease)
    }

    /// Forgets the record, leaving a tombstone that a refresh on any instance respects.
    public func delete() async throws {
        guard let lease = ownLease else {
            return try await withExclusiveAccess { try await delete() }
        }
        try await write(.tombstone(reason: "signed_out"), in: lease)
    }

    /// Runs `body` inside a transaction that holds the session row's lock,
    /// waiting at most ``PostgresSessionTable/Options-swift.struct/lockTimeout``
    /// for another instance to release it. Reentrant for the same session.
    ///
    /// The lock is PostgreSQL's: it ends with the transaction, so an instance
    /// that dies or loses its connection holds nothing. A write whose
    /// connection is lost before the commit is made again in a new
    /// transaction, when the row has not changed meanwhile.
    public func withExclusiveAccess<T: Sendable>(_ body: @Sendable () async throws -> T) async throws -> T {
        if ownLease != nil { return try await body() }
        try await table.prepared()
        await table.slots.acquire()
        let outcome: Result<T, any Error>
        do {
            outcome = try await ConnectionLoan.withConnection(
                of: table.client, within: table.options.queryTimeout, doing: "lock the session \(sessionID)"
            ) { connection in
                try await lease(on: connection, body)
            }
        } catch {
            await table.slots.release()
            throw DatabaseError.map(error, doing: "lock the session \(sessionID)")
        }
        await table.slots.release()
        return try outcome.get()
    }

    /// Records the refresh about to be sent as in flight (its attempt, this
    /// instance, the time) and commits that at once, on a connection of its
    /// own, so that it outlives this instance. Storing the result, or the
    /// end of the transaction, clears it.
    public func refreshWillStart() async throws {
        guard let lease = ownLease, !lease.state.withLock({ $0.lost }) else { return }
        let attempt = UUID()
        do {
            _ = try await Statement.rows(
                """
                INSERT INTO \(unescaped: table.name)_refreshes (session_id, attempt, instance, from_generation, started_at)
                VALUES (\(sessionID), \(attempt), \(table.options.instance), \(lease.startGeneration), now())
                ON CONFLICT (session_id) DO UPDATE SET attempt = EXCLUDED.attempt, instance = EXCLUDED.instance,
                    from_generation = EXCLUDED.from_generation, started_at = EXCLUDED.started_at
                """, on: table.client, within: table.options.queryTimeout, doing: "record the refresh of the session \(sessionID)",
                logger: table.logger)
        } catch {
            throw DatabaseError.map(error, doing: "record the refresh of the session \(sessionID)")
        }
        lease.state.withLock { $0.attempt = attempt }
        ownRefreshes.withLock { _ = $0.insert(attempt) }
    }

    // MARK: - Inside a lease

    private var ownLease: SessionLease? {
        guard let lease = SessionLeases.current, lease.table == ObjectIdentifier(table), lease.sessionID == sessionID else { return nil }
        return lease
    }

    /// Begins the transaction, takes the row's lock, runs `body` with the
    /// lease, then clears this lease's refresh record and commits.
    private func lease<T: Sendable>(on connection: PostgresConnection, _ body: @Sendable () async throws -> T) async throws -> Result<
        T, any Error
    > {
        let logger = table.logger
        let name = table.name
        let limit = table.options.queryTimeout
        let doing = "lock the session \(sessionID)"
        @Sendable func run(_ query: PostgresQuery, within seconds: TimeInterval = limit) async throws -> [PostgresRow] {
            try await Statement.rows(query, on: connection, within: seconds, doing: doing, logger: logger)
        }
        _ = try await run("BEGIN")
        let lease: SessionLease
        do {
            let lockMillis = "\(Int(table.options.lockTimeout * 1000))"
            let holdMillis = "\(Int(table.options.lockHoldLimit * 1000))"
            _ = try await run(
                "SELECT set_config('lock_timeout', \(lockMillis), true), set_config('idle_in_transaction_session_timeout', \(holdMillis), true)"
            )
            _ = try await run("INSERT INTO \(unescaped: name) (session_id) VALUES (\(sessionID)) ON CONFLICT (session_id) DO NOTHING")
            var generation: Int64 = 0
            for row in try await run(
                "SELECT generation FROM \(unescaped: name) WHERE session_id = \(sessionID) FOR UPDATE",
                within: table.options.lockTimeout + limit)
            {
                generation = try row.decode(Int64.self)
            }
            var orphan: RefreshMarker?
            for row in try await run(
                "SELECT attempt, instance, started_at FROM \(unescaped: name)_refreshes WHERE session_id = \(sessionID)")
            {
                let (attempt, instance, startedAt) = try row.decode((UUID, String, Date).self)
                orphan = RefreshMarker(attempt: attempt, instance: instance, startedAt: startedAt)
            }
            lease = SessionLease(
                table: ObjectIdentifier(table), sessionID: sessionID, connection: connection, startGeneration: generation, orphan: orphan)
        } catch {
            _ = try? await run("ROLLBACK")
            throw error
        }
        let outcome: Result<T, any Error>
        do {
            outcome = .success(try await SessionLeases.$current.withValue(lease) { try await body() })
        } catch {
            outcome = .failure(error)
        }
        let (lost, attempt, write, written) = lease.state.withLock { ($0.lost, $0.attempt, $0.write, $0.written) }
        guard !lost else { return outcome }
        do {
            if let attempt {
                _ = try await run("DELETE FROM \(unescaped: name)_refreshes WHERE session_id = \(sessionID) AND attempt = \(attempt)")
            }
            _ = try await run("COMMIT")
        } catch {
            _ = try? await run("ROLLBACK")
            // A write that failed was reported to the body, which kept what it
            // could not store (the refreshed credentials); only a write that
            // was made and then not committed is this commit's failure.
            guard let write, written, DatabaseError.isConnectionLost(error) else {
                if write == nil || !written { return outcome }
                throw error
            }
            try await replay(write, since: lease.startGeneration)
            ownRefreshes.withLock { $0.removeAll() }
            return outcome
        }
        // Committed: a write deleted every marker of the session; otherwise this lease's own marker went.
        ownRefreshes.withLock { own in
            if written {
                own.removeAll()
            } else if let attempt {
                own.remove(attempt)
            }
        }
        return outcome
    }

    private func load(in lease: SessionLease) async throws -> SessionRecord? {
        let row: StoredRow?
        do {
            row = try StoredRow.fetch(
                try await Statement.rows(
                    StoredRow.query(table, sessionID), on: lease.connection, within: table.options.queryTimeout,
                    doing: "read the session \(sessionID)", logger: table.logger))
        } catch {
            if DatabaseError.isConnectionLost(error) { lease.state.withLock { $0.lost = true } }
            throw DatabaseError.map(error, doing: "read the session \(sessionID)")
        }
        if let orphan = lease.state.withLock({ state in
            defer { state.orphan = nil }
            return state.orphan
        }) {
            if ownRefreshes.withLock({ $0.contains(orphan.attempt) }) {
                // This store's own refresh, whose save failed: the session that sent it holds the reply and saves it now.
                table.logger.debug(
                    "a refresh of this store never stored its result; its session saves it", metadata: ["session": "\(sessionID)"])
            } else if row?.sealed != nil, row?.refreshRotates == false {
                table.logger.info(
                    "a refresh never stored its result; the provider does not rotate refresh tokens, so the stored one is used",
                    metadata: ["session": "\(sessionID)", "instance": "\(orphan.instance)"])
            } else if row?.sealed != nil {
                table.logger.warning(
                    "a refresh never stored its result; the session ends",
                    metadata: ["session": "\(sessionID)", "instance": "\(orphan.instance)"])
                try await write(.tombstone(reason: "refresh_reply_lost"), in: lease)
                throw AuthFlowError(
                    .reauthenticationRequired,
                    "a refresh of the session \(sessionID) started at \(Self.timestamp(orphan.startedAt)) on \(orphan.instance) never stored its result: the provider may have rotated the refresh token, and only that lost reply held the new one",
                    reason: .refreshReplyLost, recovery: "Sign in again.")
            }
        }
        let record = try row?.open(table, sessionID)
        lease.state.withLock { $0.readRefreshToken = .some(record?.credentials.token.refreshToken) }
        return record
    }

    /// Writes in the lease's transaction; when its connection is lost, in a
    /// new transaction if the row is as the lease found it.
    private func write(_ change: SessionWrite, in lease: SessionLease) async throws {
        lease.state.withLock { $0.write = change }
        if !lease.state.withLock({ $0.lost }) {
            do {
                let generation = lease.state.withLock { $0.generation }
                try await Self.apply(change, table: table, sessionID: sessionID, generation: generation, on: lease.connection)
                lease.state.withLock { state in
                    state.attempt = nil
                    state.written = true
                    state.generation = generation + 1
                }
                return
            } catch {
                guard DatabaseError.isConnectionLost(error) else {
                    throw DatabaseError.map(error, doing: "write the session \(sessionID)")
                }
                lease.state.withLock { $0.lost = true }
                table.logger.info(
                    "the connection was lost while writing the session; writing it again", metadata: ["session": "\(sessionID)"])
            }
        }
        try await replay(change, since: lease.startGeneration)
        ownRefreshes.withLock { $0.removeAll() }
    }

    /// `change` in a transaction of its own, if the row's generation is still
    /// `generation`; retried while the server cannot be reached, for at most
    /// ``PostgresSessionTable/Options-swift.struct/reconnectTimeout``.
    private func replay(_ change: SessionWrite, since generation: Int64) async throws {
        let deadline = Date().addingTimeInterval(table.options.reconnectTimeout)
        var pause: UInt64 = 100_000_000
        while true {
            do {
                let table = table
                let sessionID = sessionID
                let doing = "write the session \(sessionID) again"
                try await ConnectionLoan.withConnection(of: table.client, within: table.options.queryTimeout, doing: doing) { connection in
                    let limit = table.options.queryTimeout
                    func run(_ query: PostgresQuery, within seconds: TimeInterval = limit) async throws -> [PostgresRow] {
                        try await Statement.rows(query, on: connection, within: seconds, doing: doing, logger: table.logger)
                    }
                    _ = try await run("BEGIN")
                    do {
                        var found: Int64?
                        for row in try await run(
                            "SELECT generation FROM \(unescaped: table.name) WHERE session_id = \(sessionID) FOR UPDATE",
                            within: table.options.lockTimeout + limit)
                        {
                            found = try row.decode(Int64.self)
                        }
                        guard found == generation else {
                            throw AuthFlowError(
                                .storage,
                                "the session \(sessionID) changed on another instance while the connection to PostgreSQL was lost; this write was not made"
                            )
                        }
                        try await Self.apply(change, table: table, sessionID: sessionID, generation: generation, on: connection)
                        _ = try await run("COMMIT")
                    } catch {
                        _ = try? await run("ROLLBACK")
                        throw error
                    }
                }
                return
            } catch {
                guard DatabaseError.isConnectionLost(error), Date() < deadline else {
                    throw DatabaseError.map(error, doing: "write the session \(sessionID) again after the connection was lost")
                }
                try? await Task.sleep(nanoseconds: pause)
                pause = min(pause * 2, 1_000_000_000)
            }
        }
    }

    /// Writes `change` to the row, locked at `generation`, which becomes `generation + 1`.
    private static func apply(
        _ change: SessionWrite, table: PostgresSessionTable, sessionID: String, generation: Int64, on connection: PostgresConnection
    ) async throws {
        let name = table.name
        let next = generation + 1
        let query: PostgresQuery
        switch change {
        case .record(let record, let rotates, let expiresAt):
            let key = table.keys.current
            let sealed = try SealedRecord.seal(record, table: name, sessionID: sessionID, generation: next, with: key)
            let identity = SessionIdentityKeys(record.credentials, key: key)
            query = try """
            UPDATE \(unescaped: name) SET generation = \(next), key_id = \(sealed.keyID), sealed = \(sealed.sealed),
                refresh_rotates = coalesce(\(rotates), refresh_rotates), expires_at = \(expiresAt),
                signed_out_at = NULL, ended_reason = NULL, updated_at = now(),
                subject_key = coalesce(\(identity.subject), subject_key), sid_key = coalesce(\(identity.sid), sid_key)
            WHERE session_id = \(sessionID)
            """
        case .tombstone(let reason):
            query = """
                UPDATE \(unescaped: name) SET generation = \(next), key_id = NULL, sealed = NULL, refresh_rotates = NULL,
                    expires_at = NULL, signed_out_at = now(), ended_reason = \(reason), updated_at = now(),
                    subject_key = NULL, sid_key = NULL
                WHERE session_id = \(sessionID)
                """
        }
        let doing = "write the session \(sessionID)"
        let limit = table.options.queryTimeout
        _ = try await Statement.rows(query, on: connection, within: limit, doing: doing, logger: table.logger)
        _ = try await Statement.rows(
            "DELETE FROM \(unescaped: name)_refreshes WHERE session_id = \(sessionID)", on: connection, within: limit, doing: doing,
            logger: table.logger)
    }

    private static func timestamp(_ date: Date) -> String {
        date.formatted(.iso8601)
    }
}

/// A session row as read.
struct StoredRow {
    var sealed: SealedRecord?
    var refreshRotates: Bool?
    var generation: Int64

    static func query(_ table: PostgresSessionTable, _ sessionID: String) -> PostgresQuery {
        "SELECT key_id, sealed, refresh_rotates, generation FROM \(unescaped: table.name) WHERE session_id = \(sessionID)"
    }

    static func fetch(_ rows: [PostgresRow]) throws -> StoredRow? {
        var found: StoredRow?
        for row in rows {
            let (keyID, sealed, rotates, generation) = try row.decode((String?, Data?, Bool?, Int64).self)
            var stored = StoredRow(refreshRotates: rotates, generation: generation)
            if let keyID, let sealed { stored.sealed = SealedRecord(keyID: keyID, sealed: sealed) }
            found = stored
        }
        return found
    }

    /// The record this row holds (nil for a tombstone or an empty row).
    func open(_ table: PostgresSessionTable, _ sessionID: String) throws -> SessionRecord? {
        try sealed?.open(table: table.name, sessionID: sessionID, generation: generation, keys: table.keys)
    }
}

extension AuthFlowError.Reason {
    /// A refresh was sent by an instance that never stored its result (it
    /// died, or lost its connection to the store): the provider may have
    /// rotated the refresh token, and the new one was in the lost reply.
    public static let refreshReplyLost = AuthFlowError.Reason(rawValue: "refresh_reply_lost")
}
#endif
