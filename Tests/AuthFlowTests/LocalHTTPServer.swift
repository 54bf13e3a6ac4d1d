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

/// A tiny HTTP/1.1 server on 127.0.0.1 built on POSIX sockets, one
/// connection at a time, for testing the real `URLSessionTransport`.
final class LocalHTTPServer: @unchecked Sendable {
    struct Request: Sendable {
        var method: String
        var target: String
        var headers: [(name: String, value: String)]
        var body: Data

        func header(_ name: String) -> String? {
            headers.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
        }
        var bodyText: String { String(decoding: body, as: UTF8.self) }
    }

    struct Response: Sendable {
        var status: Int
        var headers: [(name: String, value: String)] = []
        var body: Data = Data()

        static func json(_ text: String, status: Int = 200) -> Response {
            Response(status: status, headers: [("Content-Type", "application/json")], body: Data(text.utf8))
        }
    }

    let port: Int
    private let listener: Int32
    private let handler: @Sendable (Request) -> Response
    private let log = Locked<[Request]>([])

    /// Starts a server answering each request with `handler`.
    init(_ handler: @escaping @Sendable (Request) -> Response) throws {
        self.handler = handler
        let (fd, port) = try bindLoopbackSocket()
        guard listen(fd, 16) == 0 else {
            close(fd)
            throw POSIXError(.EADDRINUSE)
        }
        listener = fd
        self.port = port
        let thread = Thread { [self] in acceptLoop() }
        thread.start()
    }

    var requests: [Request] { log.current }
    func url(_ path: String) -> URL { URL(string: "http://127.0.0.1:\(port)\(path)")! }

    /// Stops accepting. Only the accept thread closes the listening socket,
    /// so its descriptor number cannot be reused by another socket while
    /// that thread may still call `accept` on it.
    func stop() {
        stopped.withLock { $0 = true }
        shutdown(listener, Int32(SHUT_RDWR))
    }

    private let stopped = Locked(false)

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
            serve(connection)
            close(connection)
        }
    }

    private func serve(_ fd: Int32) {
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var buffer = [UInt8]()
        let terminator: [UInt8] = Array("\r\n\r\n".utf8)
        var headerEnd: Int?
        while headerEnd == nil {
            guard let chunk = readChunk(fd) else { return }
            buffer += chunk
            headerEnd = find(terminator, in: buffer)
        }
        guard let end = headerEnd else { return }
        let headText = String(decoding: buffer[..<end], as: UTF8.self)
        var lines = headText.components(separatedBy: "\r\n")
        let requestLine = lines.removeFirst().split(separator: " ")
        guard requestLine.count >= 2 else { return }
        let headers: [(name: String, value: String)] = lines.compactMap { line in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return (name: String(line[..<colon]), value: line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
        var request = Request(method: String(requestLine[0]), target: String(requestLine[1]), headers: headers, body: Data())
        if request.header("Expect")?.lowercased() == "100-continue" {
            sendAll(fd, Array("HTTP/1.1 100 Continue\r\n\r\n".utf8))
        }
        let length = Int(request.header("Content-Length") ?? "0") ?? 0
        var body = Array(buffer[(end + terminator.count)...])
        while body.count < length, let chunk = readChunk(fd) { body += chunk }
        request.body = Data(body)
        log.withLock { $0.append(request) }

        let response = handler(request)
        var head = "HTTP/1.1 \(response.status) Status\r\n"
        for header in response.headers { head += "\(header.name): \(header.value)\r\n" }
        head += "Content-Length: \(response.body.count)\r\nConnection: close\r\n\r\n"
        sendAll(fd, Array(head.utf8) + Array(response.body))
        shutdown(fd, Int32(SHUT_WR))
    }

    private func readChunk(_ fd: Int32) -> [UInt8]? {
        var chunk = [UInt8](repeating: 0, count: 65536)
        let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        guard count > 0 else { return nil }
        return Array(chunk[..<count])
    }

    private func sendAll(_ fd: Int32, _ bytes: [UInt8]) {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if sent <= 0 { return }
            offset += sent
        }
    }

    private func find(_ needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        for start in 0...(haystack.count - needle.count) where Array(haystack[start..<(start + needle.count)]) == needle {
            return start
        }
        return nil
    }
}

/// A socket bound to 127.0.0.1 on an ephemeral port (not yet listening).
func bindLoopbackSocket(reusingAddress: Bool = true) throws -> (fd: Int32, port: Int) {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { throw POSIXError(.EMFILE) }
    var yes: Int32 = 1
    if reusingAddress { setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size)) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = 0
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    let bound = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    }
    guard bound == 0 else {
        close(fd)
        throw POSIXError(.EADDRINUSE)
    }
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    _ = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
    }
    return (fd, Int(UInt16(bigEndian: address.sin_port)))
}

/// A socket that listens on 127.0.0.1 and never accepts: connections complete
/// in the kernel backlog and then hear nothing.
final class SilentServer: @unchecked Sendable {
    let port: Int
    private let fd: Int32
    init() throws {
        (fd, port) = try bindLoopbackSocket()
        guard listen(fd, 8) == 0 else {
            close(fd)
            throw POSIXError(.EADDRINUSE)
        }
    }
    func stop() { close(fd) }
}

/// A port on 127.0.0.1 that refuses connections for as long as `body` runs:
/// a socket bound to it that never listens (a connection gets a reset). It is
/// bound without `SO_REUSEADDR`, so no other socket, not even a test server
/// started in parallel, can take the port meanwhile (closing a socket and then
/// connecting to its port raced with them).
@discardableResult
func withRefusingLoopbackPort<R>(_ body: (Int) async throws -> R) async throws -> R {
    let (fd, port) = try bindLoopbackSocket(reusingAddress: false)
    defer { close(fd) }
    return try await body(port)
}
