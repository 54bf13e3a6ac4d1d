import AuthFlowTestSupport
import Foundation
import Testing

@testable import AuthFlow

@Suite struct AtomicFileTests {
    private func scratchDirectory() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("authflow-tests-\(UUID().uuidString)")
    }

    private func mode(_ url: URL) throws -> Int {
        let attributes = try FileManager.default.attributesOfItem(atPath: url.path)
        return try #require(attributes[.posixPermissions] as? Int) & 0o777
    }

    @Test func createsDirectory0700AndFile0600() throws {
        let root = scratchDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        let directory = root.appendingPathComponent("nested/authflow")
        let file = directory.appendingPathComponent("credentials.json")
        try AtomicFile.write(Data("secret".utf8), to: file)
        #expect(try Data(contentsOf: file) == Data("secret".utf8))
        #expect(try mode(file) == 0o600)
        #expect(try mode(directory) == 0o700)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["credentials.json"])
    }

    @Test func replacesExistingContentAndMode() throws {
        let root = scratchDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        let file = root.appendingPathComponent("creds")
        try Data("old old old old old".utf8).write(to: file)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: file.path)
        try AtomicFile.write(Data("new".utf8), to: file)
        #expect(try Data(contentsOf: file) == Data("new".utf8))
        #expect(try mode(file) == 0o600)
        try AtomicFile.write(Data(), to: file)
        #expect(try Data(contentsOf: file).isEmpty)
        #expect(try FileManager.default.contentsOfDirectory(atPath: root.path) == ["creds"])
    }

    @Test func noTemporaryFilesLeftAfterManyWrites() throws {
        let root = scratchDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        let file = root.appendingPathComponent("creds")
        for index in 0..<20 { try AtomicFile.write(Data("v\(index)".utf8), to: file) }
        #expect(try Data(contentsOf: file) == Data("v19".utf8))
        #expect(try FileManager.default.contentsOfDirectory(atPath: root.path) == ["creds"])
    }

    /// A writer killed between creating and renaming its temporary file
    /// leaves it behind; the next write removes it, and only it.
    @Test func temporaryFilesOfDeadWritersAreRemoved() throws {
        let root = scratchDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        let finished = Process()
        finished.executableURL = URL(fileURLWithPath: "/bin/true")
        try finished.run()
        finished.waitUntilExit()
        let dead = ".creds.\(finished.processIdentifier).1111.tmp"
        let alive = ".creds.\(getppid()).2222.tmp" // the test runner's parent still runs
        let noPID = ".creds.9687727D-E465-4F11-B94F-24853E946D0C.tmp" // the earlier naming, no process id
        let otherTarget = ".other.\(finished.processIdentifier).4444.tmp"
        for name in [dead, alive, noPID, otherTarget] {
            try Data("partial".utf8).write(to: root.appendingPathComponent(name))
        }
        try AtomicFile.write(Data("new".utf8), to: root.appendingPathComponent("creds"))
        let left = Set(try FileManager.default.contentsOfDirectory(atPath: root.path))
        #expect(left == ["creds", alive, noPID, otherTarget])
    }

    @Test func targetIsADirectoryFailsWithStorageAndLeavesNoTemporaryFile() throws {
        let root = scratchDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        let target = root.appendingPathComponent("creds")
        try FileManager.default.createDirectory(at: target.appendingPathComponent("inner"), withIntermediateDirectories: true)
        let error = expectError(.storage) { try AtomicFile.write(Data("x".utf8), to: target) }
        #expect((error?.underlyingError as? POSIXError)?.code == .EISDIR, "rename's errno is kept")
        #expect(try FileManager.default.contentsOfDirectory(atPath: root.path) == ["creds"])
    }

    /// The documented contract is that AuthFlow throws only `AuthFlowError`.
    @Test func parentIsARegularFileFailsWithAuthFlowError() throws {
        let root = scratchDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        let blocker = root.appendingPathComponent("blocker")
        try Data("x".utf8).write(to: blocker)
        expectError(.storage) { try AtomicFile.write(Data("x".utf8), to: blocker.appendingPathComponent("creds")) }
    }
}
