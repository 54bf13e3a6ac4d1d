#if PostgreSQL // the PostgreSQL package trait
import AuthFlow
package import Foundation
package import Logging
package import PostgresNIO

/// One connection attempt, outside any pool, closed at once: what a command
/// that is about to ask the user for something (open a browser) runs first,
/// so that a server that refuses the connection, or will not speak TLS when
/// TLS is required, is reported now and with its cause. A pool keeps
/// retrying such a server until its caller's deadline, and then knows only
/// that no connection came.
package enum DatabaseProbe {
    /// Connects with `configuration` within `seconds`, then closes.
    ///
    /// - Throws: the failure as ``DatabaseError/map(_:doing:)`` names it
    ///   (`network` for a refused or lost connection, a server without TLS
    ///   when it is required, or no answer within `seconds`; `configuration`
    ///   for refused credentials); never the password.
    package static func connect(_ configuration: PostgresConnection.Configuration, within seconds: TimeInterval, logger: Logger)
        async throws
    {
        let doing = "connect to the server"
        let connection: PostgresConnection
        do {
            connection = try await Deadline.run(seconds: seconds, doing: doing) {
                try await PostgresConnection.connect(configuration: configuration, id: 0, logger: logger)
            }
        } catch let error as PSQLError where error.code == .connectionError {
            // The socket's own error: it names no setting but the address.
            var cause = ""
            if let failure = (error.underlying as? NIOConnectionError)?.connectionErrors.last {
                let reason = (failure.error as? IOError).map { String(cString: strerror($0.errnoCode)).lowercased() } ?? "\(failure.error)"
                cause = ": \(reason) (\(failure.target))"
            }
            throw AuthFlowError(
                .network, "PostgreSQL: cannot \(doing)\(cause)",
                recovery: "Check that the PostgreSQL server is running and reachable at the URL's host and port.")
        } catch let error as PSQLError where error.code == .sslUnsupported {
            throw AuthFlowError(
                .network, "PostgreSQL: cannot \(doing): the server does not offer TLS, which this store requires",
                recovery: "Enable TLS on the server, or add sslmode=disable to the URL for a server on this machine or a trusted network.")
        } catch {
            throw DatabaseError.map(error, doing: doing)
        }
        try? await connection.close()
    }
}
#endif
