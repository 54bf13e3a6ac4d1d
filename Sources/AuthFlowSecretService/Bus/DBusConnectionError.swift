/// Why a call over the session bus failed.
package enum DBusConnectionError: Error, Equatable, Sendable {
    /// `DBUS_SESSION_BUS_ADDRESS` is unset or names no Unix socket.
    case noSessionBus
    /// The socket could not be opened or connected (the errno text).
    case cannotConnect(String)
    /// The bus refused the EXTERNAL authentication.
    case authenticationRejected
    /// The bus did not answer within the deadline (what was awaited).
    case timedOut(String)
    /// The bus closed the connection.
    case closed
    /// The bus sent bytes that are not a message this client accepts.
    case wire(DBusWireError)
    /// The call was answered with a D-Bus error (its name and message).
    case remote(name: String, message: String)
    /// The reply's values are not those the call returns (its signature).
    case unexpectedReply(String)
}
