/// How the loopback listener treats connections.
struct ServerSettings: Sendable {
    /// The limits on each request.
    var limits = RequestLimits()
    /// How long a connection may take, from accept to the last byte of its
    /// request. A client that sent nothing by then is closed silently (a
    /// browser's unused preconnect); one that sent part of a request gets 408.
    var requestTimeout: Duration = .seconds(5)
    /// How long sending the answer and then waiting for the client to close
    /// may take.
    var lingerTimeout: Duration = .seconds(2)
    /// How much a client may still send after its answer before the
    /// connection is closed regardless (it is read and dropped, so the client
    /// sees the answer rather than a reset).
    var lingerBytes = 256 * 1024
    /// Connections served at once; more wait in the listen backlog.
    var maxConnections = 64
    /// The listen backlog.
    var backlog: Int32 = 64
}
