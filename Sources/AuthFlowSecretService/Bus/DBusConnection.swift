#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A connection to the session bus: a Unix socket, the EXTERNAL
/// authentication with this process's uid, `Hello`, then method calls that
/// wait for their reply. Every wait is bounded by the deadline the
/// connection was opened with, so a bus that hangs yields
/// ``DBusConnectionError/timedOut(_:)`` instead of a hung command; every
/// message read is bounded by ``DBusMessage/maximumSize``.
///
/// A reply is the awaited one only when its `reply_serial` is the call's
/// serial, its sender is the peer the call went to, and (after `Hello`) it
/// is addressed to this connection: the bus itself (`org.freedesktop.DBus`)
/// for the bus's methods, else the unique name that owns the destination
/// (asked of the bus with `GetNameOwner`, once per name, starting an
/// activatable service first). Another peer on the bus that guesses a
/// serial is ignored like a signal.
///
/// Used from one task at a time (the CLI's synchronous profile reads and writes).
final class DBusConnection {
    private let fd: Int32
    private let timeout: Duration
    private var nextSerial: UInt32 = 1
    private var buffer: [UInt8] = []
    /// Messages that are not the awaited reply (signals) are skipped, up to this many per call.
    private static let maximumSkippedMessages = 256
    /// The bus's name for this connection, from `Hello`.
    private(set) var uniqueName = ""
    /// The unique names that own the well-known names called so far.
    private var owners: [String: String] = [:]
    static let busName = "org.freedesktop.DBus"

    /// Connects to `address`, authenticates and says `Hello`, all within `timeout`.
    init(address: DBusAddress, timeout: Duration) throws(DBusConnectionError) {
        self.timeout = timeout
        fd = try Self.connect(address)
        // From here on, a failure releases the connection, and deinit closes the socket.
        try authenticate(deadline: ContinuousClock.now.advanced(by: timeout))
        let reply = try call(
            destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus", member: "Hello")
        guard let name = reply.first?.stringValue else { throw .unexpectedReply("s") }
        uniqueName = name
    }

    deinit { close(fd) }

    /// Calls a method and returns the reply's values.
    ///
    /// - Throws: ``DBusConnectionError/remote(name:message:)`` when the
    ///   callee answers with an error; the others when the bus fails.
    func call(
        destination: String, path: String, interface: String, member: String, _ body: [DBusValue] = [], flags: UInt8 = 0
    ) throws(DBusConnectionError) -> [DBusValue] {
        let sender = try owner(of: destination, flags: flags)
        return try call(destination: destination, sender: sender, path: path, interface: interface, member: member, body, flags: flags)
    }

    /// The sender a reply from `destination` comes from: the bus for its own
    /// name, a unique name (`:1.42`) itself, else the unique name that owns
    /// the well-known name now.
    private func owner(of destination: String, flags: UInt8) throws(DBusConnectionError) -> String {
        if destination == Self.busName || destination.hasPrefix(":") { return destination }
        if let known = owners[destination] { return known }
        func ask() throws(DBusConnectionError) -> String {
            let reply = try call(
                destination: Self.busName, sender: Self.busName, path: "/org/freedesktop/DBus", interface: Self.busName,
                member: "GetNameOwner", [.string(destination)], flags: 0)
            guard let owner = reply.first?.stringValue, owner.hasPrefix(":") else { throw .unexpectedReply("s") }
            return owner
        }
        let owner: String
        do throws(DBusConnectionError) {
            owner = try ask()
        } catch .remote(let name, _) where name == "org.freedesktop.DBus.Error.NameHasNoOwner" && flags & DBusMessage.noAutoStart == 0 {
            // An activatable service that is not running yet: the call would have started it.
            _ = try call(
                destination: Self.busName, sender: Self.busName, path: "/org/freedesktop/DBus", interface: Self.busName,
                member: "StartServiceByName", [.string(destination), .uint32(0)], flags: 0)
            owner = try ask()
        }
        owners[destination] = owner
        return owner
    }

    private func call(
        destination: String, sender: String, path: String, interface: String, member: String, _ body: [DBusValue], flags: UInt8
    ) throws(DBusConnectionError) -> [DBusValue] {
        let deadline = ContinuousClock.now.advanced(by: timeout)
        let serial = nextSerial
        nextSerial &+= 1
        let message = DBusMessage(
            kind: .methodCall, flags: flags, serial: serial, path: path, interface: interface, member: member,
            destination: destination, body: body)
        try send(message.encoded(), deadline: deadline, what: "\(interface).\(member)")
        for _ in 0..<Self.maximumSkippedMessages {
            let reply = try receive(deadline: deadline, what: "the reply to \(interface).\(member)")
            guard reply.replySerial == serial, reply.sender == sender, uniqueName.isEmpty || reply.destination == uniqueName else {
                continue
            }
            switch reply.kind {
            case .methodReturn: return reply.body
            case .error:
                throw .remote(name: reply.errorName ?? "", message: reply.body.first?.stringValue ?? "")
            default: continue
            }
        }
        throw .timedOut("the reply to \(interface).\(member) (too many other messages)")
    }

    // MARK: - Authentication

    /// `\0AUTH EXTERNAL <uid in hex>`, `OK <guid>`, `BEGIN` (the D-Bus
    /// Specification, "Authentication Protocol").
    private func authenticate(deadline: ContinuousClock.Instant) throws(DBusConnectionError) {
        let uid = Array(String(getuid()).utf8).map { byte in
            let digits = Array("0123456789abcdef".utf8)
            return String(decoding: [digits[Int(byte >> 4)], digits[Int(byte & 0xF)]], as: UTF8.self)
        }.joined()
        try send([0] + Array("AUTH EXTERNAL \(uid)\r\n".utf8), deadline: deadline, what: "the authentication")
        let line = try receiveLine(deadline: deadline)
        guard line.hasPrefix("OK ") else { throw .authenticationRejected }
        try send(Array("BEGIN\r\n".utf8), deadline: deadline, what: "the authentication")
    }

    /// One line of the authentication exchange, at most 1 KiB.
    private func receiveLine(deadline: ContinuousClock.Instant) throws(DBusConnectionError) -> String {
        while true {
            if let end = buffer.indices.dropLast().first(where: { buffer[$0] == 13 && buffer[$0 + 1] == 10 }) {
                let line = String(decoding: buffer[..<end], as: UTF8.self)
                buffer.removeFirst(end + 2)
                return line
            }
            guard buffer.count <= 1024 else { throw .authenticationRejected }
            try fill(deadline: deadline, what: "the authentication")
        }
    }

    // MARK: - Messages

    private func receive(deadline: ContinuousClock.Instant, what: String) throws(DBusConnectionError) -> DBusMessage {
        while buffer.count < DBusMessage.fixedHeaderSize { try fill(deadline: deadline, what: what) }
        let length: Int
        do throws(DBusWireError) { length = try DBusMessage.frameLength(buffer[...]) } catch { throw .wire(error) }
        while buffer.count < length { try fill(deadline: deadline, what: what) }
        let frame = Array(buffer[..<length])
        buffer.removeFirst(length)
        do throws(DBusWireError) { return try DBusMessage.decode(frame) } catch { throw .wire(error) }
    }

    // MARK: - The socket

    private static func connect(_ address: DBusAddress) throws(DBusConnectionError) -> Int32 {
        #if os(Linux)
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        #else
        let fd = socket(AF_UNIX, SOCK_STREAM, 0)
        #endif
        guard fd >= 0 else { throw .cannotConnect(String(cString: strerror(errno))) }
        var name = sockaddr_un()
        name.sun_family = sa_family_t(AF_UNIX)
        let pathBytes: [UInt8]
        switch address {
        case .path(let path): pathBytes = Array(path.utf8) + [0]
        case .abstract(let text):
            #if os(Linux)
            pathBytes = [0] + Array(text.utf8)
            #else
            _ = text
            close(fd)
            throw .cannotConnect("abstract socket addresses exist on Linux only")
            #endif
        }
        let capacity = MemoryLayout.size(ofValue: name.sun_path)
        guard pathBytes.count <= capacity else {
            close(fd)
            throw .cannotConnect("the socket address is longer than \(capacity) bytes")
        }
        // sun_path is a fixed C array; the bytes are copied into it within its size, checked above.
        withUnsafeMutableBytes(of: &name.sun_path) { raw in
            for (index, byte) in pathBytes.enumerated() { raw[index] = byte }
        }
        let length = socklen_t(MemoryLayout<sockaddr_un>.offset(of: \sockaddr_un.sun_path)! + pathBytes.count)
        // connect(2) takes the address as a sockaddr pointer (a syscall boundary).
        let result = withUnsafePointer(to: &name) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { systemConnect(fd, $0, length) }
        }
        guard result == 0, fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) == 0 else {
            let reason = String(cString: strerror(errno))
            close(fd)
            throw .cannotConnect(reason)
        }
        #if canImport(Darwin)
        var on: Int32 = 1
        _ = setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &on, socklen_t(MemoryLayout<Int32>.size))
        #endif
        return fd
    }

    private func send(_ bytes: [UInt8], deadline: ContinuousClock.Instant, what: String) throws(DBusConnectionError) {
        var offset = 0
        while offset < bytes.count {
            try wait(for: Int16(POLLOUT), deadline: deadline, what: what)
            #if os(Linux)
            let flags = Int32(MSG_NOSIGNAL)
            #else
            let flags: Int32 = 0
            #endif
            // send(2) reads from the array's buffer, bounded by the count left.
            let sent = bytes.withUnsafeBytes { systemSend(fd, $0.baseAddress! + offset, $0.count - offset, flags) }
            if sent < 0 {
                if errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK { continue }
                if errno == EPIPE || errno == ECONNRESET { throw .closed }
                throw .cannotConnect(String(cString: strerror(errno)))
            }
            offset += sent
        }
    }

    /// Reads what the socket holds into the buffer (at least one byte).
    private func fill(deadline: ContinuousClock.Instant, what: String) throws(DBusConnectionError) {
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            try wait(for: Int16(POLLIN), deadline: deadline, what: what)
            // recv(2) writes into the chunk's buffer, bounded by its size.
            let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count < 0 {
                if errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK { continue }
                if errno == ECONNRESET { throw .closed }
                throw .cannotConnect(String(cString: strerror(errno)))
            }
            if count == 0 { throw .closed }
            buffer += chunk[0..<count]
            return
        }
    }

    private func wait(for events: Int16, deadline: ContinuousClock.Instant, what: String) throws(DBusConnectionError) {
        while true {
            let left = ContinuousClock.now.duration(to: deadline)
            guard left > .zero else { throw .timedOut(what) }
            let (seconds, attoseconds) = left.components
            let milliseconds = Int32(clamping: seconds * 1000 + attoseconds / 1_000_000_000_000_000 + 1)
            var entry = pollfd(fd: fd, events: events, revents: 0)
            let ready = poll(&entry, 1, milliseconds)
            if ready < 0 {
                if errno == EINTR { continue }
                throw .cannotConnect(String(cString: strerror(errno)))
            }
            if ready > 0 {
                if entry.revents & Int16(POLLNVAL) != 0 { throw .closed }
                return
            }
        }
    }
}

// The libc functions whose names the class's own methods shadow.
private func systemConnect(_ fd: Int32, _ address: UnsafePointer<sockaddr>, _ length: socklen_t) -> Int32 {
    connect(fd, address, length)
}

private func systemSend(_ fd: Int32, _ buffer: UnsafeRawPointer, _ count: Int, _ flags: Int32) -> Int {
    send(fd, buffer, count, flags)
}
