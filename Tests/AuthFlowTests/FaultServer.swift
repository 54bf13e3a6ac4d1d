import AuthFlowTestSupport
import Foundation

@testable import AuthFlow

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A misbehaving HTTP/1.1 server on 127.0.0.1 (real sockets, a thread per
/// connection, so a stalled connection never blocks the next). Each path is
/// answered by a ``Fault``: a normal answer, or one of the ways a broken or
/// hostile server fails at the HTTP level.
final class FaultServer: @unchecked Sendable {
    /// How one request is answered.
    enum Fault: Sendable {
        /// A complete, well-formed answer.
        case answer(LocalHTTPServer.Response)
        /// The connection is reset (RST) once the request is read.
        case reset
        /// The request is read and then nothing is sent, ever.
        case stallBeforeHeaders
        /// Headers announcing `announced` bytes, `sent` of them, then silence.
        case stallMidBody(announced: Int, sent: Int)
        /// Headers announcing `announced` bytes, `sent` of them, then the connection closes.
        case truncated(announced: Int, sent: Int)
        /// Headers without a length, then one byte every `interval` seconds, forever.
        case drip(interval: TimeInterval)
        /// Headers without a length (`Connection: close`), then 64 KiB chunks
        /// until the client goes away. Every endless body is paced at one
        /// chunk per 4 ms (16 MB/s): past any limit in well under the timeout, and slow
        /// enough that a flood on loopback does not starve the other tests'
        /// requests (URLSession on Linux has no backpressure between the
        /// socket and its delegate).
        case endless
        /// `Transfer-Encoding: chunked`, with chunks that never end.
        case endlessChunked
        /// A `Content-Length` of `announced`, then an endless body.
        case announcing(Int64)
        /// These bytes as the whole answer (not necessarily HTTP), then the connection closes.
        case raw([UInt8])
    }

    let port: Int
    private let listener: Int32
    private let faults: @Sendable (LocalHTTPServer.Request) -> Fault
    private let stopped = Locked(false)
    private let log = Locked<[LocalHTTPServer.Request]>([])
    /// Bytes written to clients, summed over every connection.
    let bytesSent = Locked(0)

    /// Starts a server answering each request with the fault `faults` picks.
    init(_ faults: @escaping @Sendable (LocalHTTPServer.Request) -> Fault) throws {
        self.faults = faults
        let (fd, port) = try bindLoopbackSocket()
        guard listen(fd, 64) == 0 else {
            close(fd)
            throw POSIXError(.EADDRINUSE)
        }
        listener = fd
        self.port = port
        Thread { [self] in acceptLoop() }.start()
    }

    var requests: [LocalHTTPServer.Request] { log.current }
    func url(_ path: String) -> URL { URL(string: "http://127.0.0.1:\(port)\(path)")! }

    /// Stops accepting and ends every stalled or endless answer.
    func stop() {
        stopped.withLock { $0 = true }
        shutdown(listener, Int32(SHUT_RDWR))
    }

    private func acceptLoop() {
        defer { close(listener) }
        while !stopped.current {
            let connection = accept(listener, nil, nil)
            if connection < 0 {
                if errno == EINTR { continue }
                return
            }
            if stopped.current {
                close(connection)
                return
            }
            Thread { [self] in
                serve(connection)
                close(connection)
            }.start()
        }
    }

    private func serve(_ fd: Int32) {
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        guard let request = readRequest(fd) else { return }
        log.withLock { $0.append(request) }
        switch faults(request) {
        case .answer(let response):
            var head = "HTTP/1.1 \(response.status) Status\r\n"
            for header in response.headers { head += "\(header.name): \(header.value)\r\n" }
            head += "Content-Length: \(response.body.count)\r\nConnection: close\r\n\r\n"
            _ = transmit(fd, Array(head.utf8) + Array(response.body))
            shutdown(fd, Int32(SHUT_WR))
        case .reset:
            var hardClose = linger(l_onoff: 1, l_linger: 0)
            setsockopt(fd, SOL_SOCKET, SO_LINGER, &hardClose, socklen_t(MemoryLayout<linger>.size))
        case .stallBeforeHeaders:
            waitUntilStopped(seconds: 30)
        case .stallMidBody(let announced, let sent):
            guard transmit(fd, head(length: "\(announced)") + Array(repeating: UInt8(ascii: " "), count: sent)) else { return }
            waitUntilStopped(seconds: 30)
        case .truncated(let announced, let sent):
            _ = transmit(
                fd, head(length: "\(announced)") + Array(#"{"access_token":"abcdefghijklmnopqrstuvwxyz0123456789"#.utf8.prefix(sent)))
        case .drip(let interval):
            guard transmit(fd, head(length: nil)) else { return }
            while !stopped.current, transmit(fd, [UInt8(ascii: " ")]) {
                Thread.sleep(forTimeInterval: interval)
            }
        case .endless:
            guard transmit(fd, head(length: nil)) else { return }
            let chunk = [UInt8](repeating: UInt8(ascii: " "), count: 65536)
            while !stopped.current, transmit(fd, chunk) { Thread.sleep(forTimeInterval: 0.004) }
        case .endlessChunked:
            guard transmit(fd, head(length: nil, chunked: true)) else { return }
            let chunk = Array("10000\r\n".utf8) + [UInt8](repeating: UInt8(ascii: " "), count: 65536) + Array("\r\n".utf8)
            while !stopped.current, transmit(fd, chunk) { Thread.sleep(forTimeInterval: 0.004) }
        case .announcing(let announced):
            guard transmit(fd, head(length: "\(announced)")) else { return }
            let chunk = [UInt8](repeating: UInt8(ascii: " "), count: 65536)
            while !stopped.current, transmit(fd, chunk) { Thread.sleep(forTimeInterval: 0.004) }
        case .raw(let bytes):
            _ = transmit(fd, bytes)
            shutdown(fd, Int32(SHUT_WR))
        }
    }

    private func head(length: String?, chunked: Bool = false) -> [UInt8] {
        var head = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
        if let length { head += "Content-Length: \(length)\r\n" }
        if chunked { head += "Transfer-Encoding: chunked\r\n" }
        head += "Connection: close\r\n\r\n"
        return Array(head.utf8)
    }

    private func waitUntilStopped(seconds: TimeInterval) {
        let end = Date().addingTimeInterval(seconds)
        while !stopped.current, Date() < end { Thread.sleep(forTimeInterval: 0.05) }
    }

    /// Sends all of `bytes`; false once the client has gone.
    private func transmit(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if sent <= 0 { return false }
            offset += sent
            bytesSent.withLock { $0 += sent }
        }
        return true
    }

    private func readRequest(_ fd: Int32) -> LocalHTTPServer.Request? {
        var buffer = [UInt8]()
        let terminator: [UInt8] = Array("\r\n\r\n".utf8)
        var headerEnd: Int?
        while headerEnd == nil {
            var chunk = [UInt8](repeating: 0, count: 16384)
            let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            guard count > 0, buffer.count < 1 << 20 else { return nil }
            buffer += chunk[..<count]
            headerEnd = buffer.indices.dropLast(3).first { buffer[$0..<($0 + 4)].elementsEqual(terminator) }
        }
        guard let end = headerEnd else { return nil }
        var lines = String(decoding: buffer[..<end], as: UTF8.self).components(separatedBy: "\r\n")
        let requestLine = lines.removeFirst().split(separator: " ")
        guard requestLine.count >= 2 else { return nil }
        let headers: [(name: String, value: String)] = lines.compactMap { line in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return (name: String(line[..<colon]), value: line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
        var request = LocalHTTPServer.Request(
            method: String(requestLine[0]), target: String(requestLine[1]), headers: headers, body: Data())
        let length = Int(request.header("Content-Length") ?? "0") ?? 0
        var body = Array(buffer[(end + 4)...])
        while body.count < length {
            var chunk = [UInt8](repeating: 0, count: 16384)
            let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { break }
            body += chunk[..<count]
        }
        request.body = Data(body)
        return request
    }
}
