#if os(Linux)
import Foundation
import Glibc
import Testing
@testable import AuthFlowSecretService

/// The connection against a real Unix socket that misbehaves: a bus that
/// never answers ends in a timeout, a refusal or an oversized message in
/// its typed error.
@Suite("D-Bus connection")
struct DBusConnectionTests {
    /// A listening socket in a fresh directory; `reply`, when given, is
    /// what a thread writes to the first connection after reading its first bytes.
    final class FakeBus: Sendable {
        let path: String
        let fd: Int32

        init(reply: [UInt8]? = nil) throws {
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("authflow-dbus-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            path = directory.appendingPathComponent("bus").path
            fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
            var address = sockaddr_un()
            address.sun_family = sa_family_t(AF_UNIX)
            let bytes = Array(path.utf8) + [0]
            withUnsafeMutableBytes(of: &address.sun_path) { raw in for (index, byte) in bytes.enumerated() { raw[index] = byte } }
            let bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
            }
            guard bound == 0, listen(fd, 4) == 0 else { throw POSIXError(.EADDRINUSE) }
            guard let reply else { return }
            let listener = fd
            Thread.detachNewThread {
                let client = accept(listener, nil, nil)
                guard client >= 0 else { return }
                var buffer = [UInt8](repeating: 0, count: 256)
                _ = buffer.withUnsafeMutableBytes { recv(client, $0.baseAddress, $0.count, 0) }
                _ = reply.withUnsafeBytes { send(client, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                // Keep the connection open for the client to read, then close it.
                sleep(3)
                close(client)
            }
        }

        deinit {
            close(fd)
            try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent)
        }
    }

    static func connectionError(_ bus: FakeBus) -> DBusConnectionError? {
        do throws(DBusConnectionError) {
            _ = try DBusConnection(address: .path(bus.path), timeout: .milliseconds(500))
            return nil
        } catch {
            return error
        }
    }

    @Test("a bus that never answers ends in .timedOut, not a hang")
    func hungBus() throws {
        #expect(Self.connectionError(try FakeBus()) == .timedOut("the authentication"))
    }

    @Test("a refused authentication is .authenticationRejected")
    func rejected() throws {
        #expect(Self.connectionError(try FakeBus(reply: Array("REJECTED EXTERNAL\r\n".utf8))) == .authenticationRejected)
    }

    @Test("an oversized reply is refused from its header, before its body is read")
    func oversized() throws {
        var header = Array("OK 0123456789abcdef0123456789abcdef\r\n".utf8)
        header += [UInt8(ascii: "l"), 2, 0, 1, 0, 0, 0, 0x40, 1, 0, 0, 0, 0, 0, 0, 0]
        #expect(Self.connectionError(try FakeBus(reply: header)) == .wire(.tooLarge(16 + 0x4000_0000)))
    }

    @Test("no socket at the address is .cannotConnect")
    func missing() {
        #expect(throws: DBusConnectionError.cannotConnect("No such file or directory")) {
            _ = try DBusConnection(address: .path("/nonexistent/authflow-bus"), timeout: .milliseconds(500))
        }
    }
}
#endif
