package import AuthFlow

/// What `authflow` asks the store helper, one JSON object per line on the
/// helper's standard input. Each request gets one ``StoreHelperReply``.
package struct StoreHelperRequest: Codable, Sendable, Equatable {
    /// The ``CredentialStore`` operation, plus `probe` (connect once, now)
    /// and the two ends of ``CredentialStore/withExclusiveAccess(_:)``.
    package enum Operation: String, Codable, Sendable {
        case probe, load, save, delete, lock, unlock, refreshWillStart
    }

    package var operation: Operation
    /// The record to save (`save` only).
    package var record: SessionRecord?
    /// For `unlock`: the work done under the lock failed, so the store sees
    /// its body throw, as it would in one process.
    package var failed: Bool?

    package init(_ operation: Operation, record: SessionRecord? = nil, failed: Bool? = nil) {
        self.operation = operation
        self.record = record
        self.failed = failed
    }
}

/// The helper's answer to one ``StoreHelperRequest`` (and to the
/// configuration it starts with): the record loaded, or the error.
package struct StoreHelperReply: Codable, Sendable {
    package var record: SessionRecord?
    package var error: StoreHelperFailure?

    package init(record: SessionRecord? = nil, error: StoreHelperFailure? = nil) {
        self.record = record
        self.error = error
    }
}

/// An ``AuthFlowError`` as it crosses the pipe: its category, reason,
/// message, recovery and the server's OAuth answer. The underlying error
/// stays in the helper; its description may hold what no log should.
package struct StoreHelperFailure: Codable, Sendable, Equatable {
    package var category: String
    package var reason: String?
    package var message: String
    package var recovery: String?
    package var oauth: OAuthErrorResponse?

    /// `error` as the helper reports it. An error that is no
    /// ``AuthFlowError`` is named by its type only.
    package init(_ error: any Error) {
        if let error = error as? AuthFlowError {
            category = error.category.rawValue
            reason = error.reason?.rawValue
            message = error.message
            recovery = error.recovery
            oauth = error.oauth
        } else {
            category = AuthFlowError.Category.storage.rawValue
            message = "the PostgreSQL store failed (\(type(of: error)))"
        }
    }

    /// The error `authflow` throws.
    package var error: AuthFlowError {
        AuthFlowError(
            AuthFlowError.Category(rawValue: category), message, reason: reason.map(AuthFlowError.Reason.init(rawValue:)),
            oauth: oauth, recovery: recovery)
    }
}

/// Where the PostgreSQL store is and how to open it: the first line
/// `authflow` writes to the helper. The password and the key go through the
/// pipe, never through the helper's arguments, which any local user can
/// list.
package struct PostgresStoreConfiguration: Codable, Sendable, Equatable {
    package var host: String
    package var port: Int
    package var user: String
    package var password: String?
    package var database: String
    package var table: String
    /// Whether the connection uses TLS: the URL's `sslmode`.
    package enum TLSMode: String, Codable, Sendable {
        case disable, prefer, require
    }

    package var tls: TLSMode
    /// The encryption key's ID and its 32 bytes in base64.
    package var keyID: String
    package var key: String
    /// The session in the table: `authflow`'s profile name.
    package var sessionID: String

    package init(
        host: String, port: Int, user: String, password: String?, database: String, table: String, tls: TLSMode, keyID: String,
        key: String, sessionID: String
    ) {
        self.host = host
        self.port = port
        self.user = user
        self.password = password
        self.database = database
        self.table = table
        self.tls = tls
        self.keyID = keyID
        self.key = key
        self.sessionID = sessionID
    }
}

extension PostgresStoreConfiguration: CustomStringConvertible {
    /// The address without the password or the key.
    package var description: String {
        "postgresql://\(user)@\(host):\(port)/\(database) (table \(table), sslmode \(tls), session \(sessionID))"
    }
}
