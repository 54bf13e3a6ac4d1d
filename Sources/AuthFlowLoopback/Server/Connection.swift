/// One accepted connection of the loopback listener. It carries one request
/// and one answer, then closes (`Connection: close`).
///
/// Lives on the listener's thread only.
final class Connection {
    enum Phase {
        /// Reading the request.
        case reading
        /// Sending the answer.
        case writing
        /// Answer sent and FIN sent; reading and dropping whatever the
        /// client still sends until it closes, so it sees the answer rather
        /// than a reset.
        case lingering
        case closed
    }

    let descriptor: Int32
    var phase = Phase.reading
    var reader: RequestReader
    /// Bytes of the request received so far.
    var received = 0
    /// The answer and how much of it is sent.
    var output: [UInt8] = []
    var sent = 0
    /// Bytes dropped while lingering.
    var dropped = 0
    /// When the current phase must be over.
    var deadline: ContinuousClock.Instant

    init(descriptor: Int32, reader: RequestReader, deadline: ContinuousClock.Instant) {
        self.descriptor = descriptor
        self.reader = reader
        self.deadline = deadline
    }

    func close() {
        guard phase != .closed else { return }
        phase = .closed
        Socket.close(descriptor)
    }
}
