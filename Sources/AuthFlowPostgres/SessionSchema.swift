#if PostgreSQL // the PostgreSQL package trait
import AuthFlow
import Logging
import PostgresNIO

/// The tables of a ``PostgresSessionTable`` and their migrations, versioned
/// in `authflow_schema_versions` (one row per table name). Migrations run in
/// one transaction under an advisory lock, so instances starting together
/// migrate once; a table at a version newer than this code knows is left
/// alone and reported.
enum SessionSchema {
    /// The version this code writes and reads.
    static let version = 2
    /// The advisory lock that serialises migrations (any table).
    static let migrationLock: Int64 = 0x4175_7468_466C_6F77 // "AuthFlow"

    /// Brings the tables named `table` to ``version``.
    static func migrate(_ client: PostgresClient, table: String, logger: Logger) async throws {
        do {
            try await client.withTransaction(logger: logger) { connection in
                try await connection.query("SELECT pg_advisory_xact_lock(\(migrationLock))", logger: logger)
                try await connection.query(
                    """
                    CREATE TABLE IF NOT EXISTS authflow_schema_versions (
                        table_name text PRIMARY KEY,
                        version integer NOT NULL,
                        migrated_at timestamptz NOT NULL DEFAULT now())
                    """, logger: logger)
                var found = 0
                for try await version in try await connection.query(
                    "SELECT version FROM authflow_schema_versions WHERE table_name = \(table)", logger: logger
                ).decode(Int.self) {
                    found = version
                }
                guard found <= version else {
                    throw AuthFlowError(
                        .configuration, "the table \(table) has schema version \(found); this version of AuthFlow knows \(version)",
                        recovery: "Run a version of AuthFlow that knows schema version \(found).")
                }
                if found < 1 {
                    try await createVersion1(connection, table: table, logger: logger)
                }
                if found < 2 {
                    try await addVersion2(connection, table: table, logger: logger)
                }
                if found < version {
                    logger.info("migrated the session table", metadata: ["table": "\(table)", "from": "\(found)", "to": "\(version)"])
                    try await connection.query(
                        """
                        INSERT INTO authflow_schema_versions (table_name, version) VALUES (\(table), \(version))
                        ON CONFLICT (table_name) DO UPDATE SET version = EXCLUDED.version, migrated_at = now()
                        """, logger: logger)
                }
            }
        } catch {
            throw DatabaseError.map(error, doing: "create or migrate the table \(table)")
        }
    }

    /// Sessions (one row each: the sealed record, or a tombstone) and the
    /// refreshes in flight (a row while a refresh request is out).
    private static func createVersion1(_ connection: PostgresConnection, table: String, logger: Logger) async throws {
        try await connection.query(
            """
            CREATE TABLE IF NOT EXISTS \(unescaped: table) (
                session_id text PRIMARY KEY,
                generation bigint NOT NULL DEFAULT 0,
                key_id text,
                sealed bytea,
                refresh_rotates boolean,
                expires_at timestamptz,
                signed_out_at timestamptz,
                ended_reason text,
                updated_at timestamptz NOT NULL DEFAULT now(),
                CHECK ((key_id IS NULL) = (sealed IS NULL)))
            """, logger: logger)
        try await connection.query(
            """
            CREATE TABLE IF NOT EXISTS \(unescaped: table)_refreshes (
                session_id text PRIMARY KEY,
                attempt uuid NOT NULL,
                instance text NOT NULL,
                from_generation bigint NOT NULL,
                started_at timestamptz NOT NULL DEFAULT now())
            """, logger: logger)
    }

    /// Version 2: the keys a back-channel logout finds sessions by (SHA-256
    /// of the issuer and the `sub`, or the `sid`, never the values), and the
    /// one-time use of identifiers such as DPoP proofs' `jti`.
    private static func addVersion2(_ connection: PostgresConnection, table: String, logger: Logger) async throws {
        try await connection.query(
            "ALTER TABLE \(unescaped: table) ADD COLUMN IF NOT EXISTS subject_key bytea, ADD COLUMN IF NOT EXISTS sid_key bytea",
            logger: logger)
        try await connection.query(
            "CREATE INDEX IF NOT EXISTS \(unescaped: table)_subject ON \(unescaped: table) (subject_key) WHERE subject_key IS NOT NULL",
            logger: logger)
        try await connection.query(
            "CREATE INDEX IF NOT EXISTS \(unescaped: table)_sid ON \(unescaped: table) (sid_key) WHERE sid_key IS NOT NULL", logger: logger)
        try await connection.query(
            """
            CREATE TABLE IF NOT EXISTS \(unescaped: table)_seen (
                key bytea PRIMARY KEY,
                expires_at timestamptz NOT NULL)
            """, logger: logger)
    }
}
#endif
