#if PostgreSQL // the PostgreSQL package trait
public import AuthFlow
public import Foundation
public import Logging
public import PostgresNIO

/// A table of sessions in PostgreSQL, shared by every instance of a service:
/// one row per session ID the caller chooses (a user, a device, a robot),
/// each a `CredentialStore` through ``store(sessionID:)``.
///
/// ```swift
/// let table = try PostgresSessionTable(client: postgres, keys: keys)
/// let store = try table.store(sessionID: "user-42")
/// let session = try await AuthSession.restore(from: store)
/// ```
///
/// - The table creates and migrates itself on first use (schema version in
///   `authflow_schema_versions`); ``migrate()`` does it up front.
/// - A refresh runs inside a transaction that holds the session row's lock
///   (`SELECT … FOR UPDATE`): across any number of instances one refreshes
///   and the others, once they have the lock, read and use its result.
/// - A sign-out leaves a tombstone; no refresh brings the session back.
/// - A refresh in flight is recorded (with its start time and instance)
///   before its request is sent; when the instance dies before storing the
///   reply, the next instance reports
///   `AuthFlowError/Category/reauthenticationRequired` instead of sending
///   a refresh token the provider has rotated.
/// - Records are encrypted with AES-256-GCM under the caller's
///   ``CredentialEncryptionKeys``; a row never holds a plain token.
///
/// The caller owns `client` and runs it (`PostgresClient.run()`, or a
/// `ServiceGroup`). Each refresh holds two of its connections for a moment
/// (the locked transaction and the record of the refresh in flight), so
/// ``Options-swift.struct/concurrentLocks`` must stay at most half the
/// client's `maximumConnections`.
public final class PostgresSessionTable: Sendable {
    /// How the table waits, holds locks and cleans up.
    public struct Options: Sendable {
        /// Seconds to wait for a session's lock held by another instance
        /// (PostgreSQL's `lock_timeout`) before a `AuthFlowError/Category/timeout` error.
        public var lockTimeout: TimeInterval = 30
        /// Seconds a lock holder may sit idle in its transaction (PostgreSQL's
        /// `idle_in_transaction_session_timeout`): the bound on how long an
        /// instance that hangs mid-refresh keeps others waiting.
        public var lockHoldLimit: TimeInterval = 300
        /// Seconds a connection from the pool, or one statement, may take
        /// (the wait for a session's lock has ``lockTimeout`` on top) before
        /// the operation is abandoned with a `AuthFlowError/Category/timeout`
        /// error: the bound when the server stops answering.
        public var queryTimeout: TimeInterval = 15
        /// Seconds to keep trying to store a refresh's result when the
        /// connection was lost (the server restarting) before giving up.
        public var reconnectTimeout: TimeInterval = 15
        /// Seconds a sign-out's tombstone is kept before ``PostgresSessionTable/purgeExpired()`` removes it.
        public var tombstoneRetention: TimeInterval = 86_400
        /// How many sessions of this process may hold their lock at once.
        public var concurrentLocks = 8
        /// This instance's name in the record of a refresh in flight (host and process ID by default).
        public var instance = "\(ProcessInfo.processInfo.hostName):\(ProcessInfo.processInfo.processIdentifier)"

        /// The defaults.
        public init() {}
    }

    /// The PostgreSQL client (the caller runs it).
    public let client: PostgresClient
    /// The table's name; refreshes in flight live in `<name>_refreshes`.
    public let name: String
    /// The keys the records are encrypted with.
    public let keys: CredentialEncryptionKeys
    /// Waiting, locking and clean-up.
    public let options: Options
    let logger: Logger
    private let migrated = LockedValue<Task<Void, any Error>?>(nil)
    let slots: LockSlots

    /// A table named `name` (lower-case letters, digits and `_`, at most 48,
    /// not starting with a digit) in the database `client` connects to.
    ///
    /// - Throws: `AuthFlowError/Category/configuration` for another name.
    public init(
        client: PostgresClient, keys: CredentialEncryptionKeys, name: String = "authflow_sessions", options: Options = Options(),
        logger: Logger = .authFlow("Postgres")
    ) throws {
        guard (1...48).contains(name.utf8.count), name.utf8.first.map({ !(48...57).contains($0) }) ?? false,
            name.utf8.allSatisfy({ (97...122).contains($0) || (48...57).contains($0) || $0 == 95 })
        else {
            throw AuthFlowError(
                .configuration, "a session table's name must be 1 to 48 lower-case letters, digits or '_', not starting with a digit")
        }
        self.client = client
        self.keys = keys
        self.name = name
        self.options = options
        self.logger = logger
        slots = LockSlots(max(1, options.concurrentLocks))
    }

    /// The store of one session.
    ///
    /// - Throws: `AuthFlowError/Category/configuration` when `sessionID` is
    ///   empty, longer than 256 bytes or holds control characters.
    public func store(sessionID: String) throws -> PostgresCredentialStore {
        guard (1...256).contains(sessionID.utf8.count),
            !sessionID.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
        else {
            throw AuthFlowError(.configuration, "a session ID must be 1 to 256 bytes without control characters")
        }
        return PostgresCredentialStore(table: self, sessionID: sessionID)
    }

    /// Creates the tables, or migrates them to this version's schema; safe to
    /// run from many instances at once, and again.
    ///
    /// - Throws: `AuthFlowError/Category/configuration` when the tables have
    ///   a newer schema version; database failures as `network`, `timeout` or `storage`.
    public func migrate() async throws {
        try await SessionSchema.migrate(client, table: name, logger: logger)
    }

    /// Migrates once per table object, before its first use.
    func prepared() async throws {
        let task = migrated.withLock { task in
            if let task { return task }
            let made = Task {
                // A connection first, so that a server that cannot be reached
                // is reported as such within the deadline.
                let doing = "prepare the table \(self.name)"
                try await ConnectionLoan.withConnection(of: self.client, within: self.options.queryTimeout, doing: doing) { _ in }
                try await Deadline.run(seconds: self.options.lockTimeout + self.options.queryTimeout, doing: doing) {
                    try await self.migrate()
                }
            }
            task = made
            return made
        }
        do {
            try await task.value
        } catch {
            migrated.withLock { $0 = nil }
            throw error
        }
    }

    /// Deletes what is no longer needed: tombstones older than
    /// ``Options-swift.struct/tombstoneRetention``, sessions whose access token
    /// has expired with no refresh token to renew it, lock rows that never
    /// held a record, and expired one-time identifiers (``PostgresReplayCache``).
    /// Run it from a periodic job.
    ///
    /// - Returns: how many sessions were deleted.
    @discardableResult
    public func purgeExpired() async throws -> Int {
        try await prepared()
        do {
            var deleted = 0
            for row in try await Statement.rows(
                """
                WITH gone AS (
                    DELETE FROM \(unescaped: name) WHERE session_id IN (
                        SELECT session_id FROM \(unescaped: name) WHERE
                            (sealed IS NULL AND coalesce(signed_out_at, updated_at) < now() - make_interval(secs => \(options.tombstoneRetention)))
                            OR (sealed IS NOT NULL AND expires_at < now())
                        FOR UPDATE SKIP LOCKED)
                    RETURNING session_id),
                marks AS (DELETE FROM \(unescaped: name)_refreshes r USING gone WHERE r.session_id = gone.session_id),
                seen AS (DELETE FROM \(unescaped: name)_seen WHERE expires_at < now())
                SELECT count(*) FROM gone
                """, on: client, within: options.queryTimeout, doing: "delete expired sessions from \(name)", logger: logger)
            {
                deleted = try row.decode(Int.self)
            }
            return deleted
        } catch {
            throw DatabaseError.map(error, doing: "delete expired sessions from \(name)")
        }
    }
}

/// At most `limit` holders at once, waiting in order (the lease and its
/// refresh record each need a pooled connection: without a bound, leases
/// could hold every connection and wait forever for a second one).
actor LockSlots {
    private var free: Int
    private var waiting: [CheckedContinuation<Void, Never>] = []

    init(_ limit: Int) { free = limit }

    func acquire() async {
        if free > 0 {
            free -= 1
            return
        }
        await withCheckedContinuation { waiting.append($0) }
    }

    func release() {
        if waiting.isEmpty {
            free += 1
        } else {
            waiting.removeFirst().resume()
        }
    }
}
#endif
