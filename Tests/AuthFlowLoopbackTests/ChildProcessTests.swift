#if canImport(Glibc)
import Glibc
import Foundation
import Testing

@testable import AuthFlowLoopback

/// `ChildProcess` against real programs: `/bin/sh`, `cat`.
@Suite struct ChildProcessTests {
    @Test func exitStatusIsReported() async throws {
        let child = try ChildProcess.spawn(["/bin/sh", "-c", "exit 3"])
        #expect(await child.exitStatus() == 3)
        let found = try ChildProcess.spawn(["sh", "-c", "exit 0"])
        #expect(await found.exitStatus() == 0, "a name without a slash is looked up in PATH")
    }

    @Test func theChildHasTheParentsEnvironment() async throws {
        let environment = ProcessInfo.processInfo.environment
        let path = try #require(environment["PATH"])
        let home = environment["HOME"] ?? ""
        let child = try ChildProcess.spawn(["/bin/sh", "-c", #"test "$PATH" = "$1" && test "$HOME" = "$2""#, "sh", path, home])
        #expect(await child.exitStatus() == 0)
    }

    @Test func aSignalIsReportedAsShellsDo() async throws {
        let child = try ChildProcess.spawn(["/bin/sh", "-c", "kill -9 $$"])
        #expect(await child.exitStatus() == 128 + 9)
    }

    @Test func aMissingProgramIsENOENT() {
        #expect(throws: ChildProcess.SpawnFailure(call: "posix_spawn", code: ENOENT)) {
            try ChildProcess.spawn(["/nonexistent/authflow-no-such-program"])
        }
        #expect(throws: ChildProcess.SpawnFailure(call: "posix_spawn", code: ENOENT)) {
            try ChildProcess.spawn(["authflow-no-such-program-in-path"])
        }
    }

    /// Standard input and output as pipes: what goes in comes out, and
    /// closing the input ends `cat`.
    @Test func pipesCarryBothWays() async throws {
        let child = try ChildProcess.spawn(["cat"], input: .pipe, output: .pipe)
        let input = try #require(child.input)
        let output = try #require(child.output)
        let text = Array("one line\n".utf8)
        #expect(text.withUnsafeBytes { write(input, $0.baseAddress, $0.count) } == text.count)
        close(input)
        let received = Self.readToEnd(output)
        #expect(received == text)
        #expect(await child.exitStatus() == 0)
    }

    /// The parent ignores SIGPIPE (SwiftNIO sets that) and an ignored signal
    /// survives `exec`; the child must start with every signal at its
    /// default and none blocked, or a browser or helper whose reader went
    /// away would never die of it.
    @Test func theChildStartsWithDefaultSignals() async throws {
        let previous = signal(SIGPIPE, SIG_IGN)
        defer { signal(SIGPIPE, previous) }
        let child = try ChildProcess.spawn(["cat", "/proc/self/status"], output: .pipe)
        let output = try #require(child.output)
        let received = Self.readToEnd(output)
        _ = await child.exitStatus()
        let status = String(decoding: received, as: UTF8.self)
        let ignored = status.split(separator: "\n").first { $0.hasPrefix("SigIgn:") }
        let blocked = status.split(separator: "\n").first { $0.hasPrefix("SigBlk:") }
        // The standard signals, 1 to 31 (the bits above are glibc's own real-time signals).
        func standard(_ line: Substring?) -> UInt64? {
            line.flatMap { UInt64($0.split(separator: "\t").last ?? "", radix: 16) }.map { $0 & 0x7fff_ffff }
        }
        #expect(standard(ignored) == 0, "\(ignored ?? "no SigIgn")")
        #expect(standard(blocked) == 0, "\(blocked ?? "no SigBlk")")
    }

    /// Only standard input, output and error reach the child: a descriptor
    /// the parent opened (close-on-exec, as this module opens them) does not.
    @Test func noOtherDescriptorIsInherited() async throws {
        let child = try ChildProcess.spawn(["/bin/sh", "-c", "ls /proc/self/fd"], input: .pipe, output: .pipe)
        let output = try #require(child.output)
        let received = Self.readToEnd(output)
        if let input = child.input { close(input) }
        _ = await child.exitStatus()
        let descriptors = String(decoding: received, as: UTF8.self).split(separator: "\n").compactMap { Int($0) }
        // 0–2, and the one `ls` opens for /proc/self/fd.
        #expect(descriptors.filter { $0 > 2 }.count <= 1, "\(descriptors)")
    }

    /// Everything the child writes to the pipe, until it closes; closes the pipe.
    static func readToEnd(_ descriptor: Int32) -> [UInt8] {
        var received: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            guard count > 0 else { break }
            received += chunk[..<count]
        }
        close(descriptor)
        return received
    }
}
#endif
