import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A TCP connection to 127.0.0.1 that the test drives byte by byte: send
/// part of a request, stay idle, read with a bounded wait.
final class RawConnection {
    let fd: Int32

    /// Connects to 127.0.0.1:`port`; nil when refused.
    init?(port: Int) {
        guard let fd = connectedLoopbackSocket(port: port) else { return nil }
        self.fd = fd
    }

    deinit { close(fd) }

    /// Sends all of `text`; false when the server no longer takes it.
    @discardableResult
    func send(_ text: String) -> Bool { send(Array(text.utf8)) }

    @discardableResult
    func send(_ bytes: [UInt8]) -> Bool {
        var sent = 0
        while sent < bytes.count {
            #if canImport(Darwin)
            let n = bytes[sent...].withUnsafeBytes { Darwin.send(fd, $0.baseAddress, $0.count, 0) }
            #else
            let n = bytes[sent...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            #endif
            if n <= 0 { return false }
            sent += n
        }
        return true
    }

    /// Whether something (data or the server's close) is ready to read within `seconds`.
    func readable(within seconds: Double) -> Bool {
        var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        return poll(&entry, 1, Int32(seconds * 1000)) > 0
    }

    /// Reads until the server closes or `seconds` pass without anything
    /// arriving; returns what arrived and whether the server closed.
    func readAll(waiting seconds: Double = 5) -> (text: String, closed: Bool) {
        var answer: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        for _ in 0..<10_000 {
            guard readable(within: seconds) else { return (String(decoding: answer, as: UTF8.self), false) }
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n <= 0 { return (String(decoding: answer, as: UTF8.self), true) }
            answer += chunk[0..<n]
        }
        return (String(decoding: answer, as: UTF8.self), false)
    }

    /// The status code of an answer.
    static func status(_ text: String) -> Int? {
        text.split(separator: " ", maxSplits: 2).dropFirst().first.flatMap { Int($0) }
    }
}

#if os(Linux)
/// What each open descriptor of this process refers to (`socket:[123]`, `pipe:[456]`, a path).
func openDescriptors() -> [String] {
    let names = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
    return names.compactMap { try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\($0)") }
}

/// The descriptors of this process that are TCP sockets whose local port is `port`.
func socketsOfThisProcess(onPort port: Int) -> Int {
    let table = (try? String(contentsOfFile: "/proc/net/tcp", encoding: .utf8)) ?? ""
    var inodes = Set<String>()
    for line in table.split(separator: "\n").dropFirst() {
        let fields = line.split(separator: " ")
        guard fields.count > 9, let local = fields[1].split(separator: ":").last, Int(local, radix: 16) == port,
            fields[9] != "0"
        else { continue }
        inodes.insert("socket:[\(fields[9])]")
    }
    return openDescriptors().filter { inodes.contains($0) }.count
}

/// Whether a thread of this process has the name `name`.
func threadExists(named name: String) -> Bool {
    let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
    return tasks.contains { task in
        let comm = (try? String(contentsOfFile: "/proc/self/task/\(task)/comm", encoding: .utf8)) ?? ""
        return comm.trimmingCharacters(in: .whitespacesAndNewlines) == name
    }
}
#endif

/// Polls `condition` every 20 ms for at most `seconds`.
func eventually(within seconds: Double = 5, _ condition: () -> Bool) async -> Bool {
    for _ in 0..<Int(seconds * 50) {
        if condition() { return true }
        try? await Task.sleep(nanoseconds: 20_000_000)
    }
    return condition()
}
