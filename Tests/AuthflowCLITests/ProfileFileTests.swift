#if CLI
import AuthFlow
import AuthFlowTestSupport
import Foundation
import Testing
@testable import authflow
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Profiles are read only when private: no symbolic link, owned by this
/// user, no access for group or others (file and directory).
@Suite("ProfileFile")
struct ProfileFileTests {
    /// A fresh `…/authflow/default.json` holding `{}`, with the given modes.
    static func profile(file: mode_t = 0o600, directory: mode_t = 0o700) throws -> URL {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("authflow-cli-\(UUID().uuidString)")
        let folder = base.appendingPathComponent("authflow")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let url = folder.appendingPathComponent("default.json")
        try Data("{}".utf8).write(to: url)
        #expect(chmod(url.path, file) == 0 && chmod(folder.path, directory) == 0)
        return url
    }

    static func refusal(_ url: URL) -> AuthFlowError? {
        do {
            _ = try ProfileFile.read(url)
            return nil
        } catch {
            return error as? AuthFlowError
        }
    }

    @Test("a private profile is read; a missing file or directory is none")
    func privateProfile() throws {
        let url = try Self.profile()
        #expect(try ProfileFile.read(url) == Data("{}".utf8))
        #expect(try ProfileFile.read(url.deletingLastPathComponent().appendingPathComponent("other.json")) == nil)
        #expect(try ProfileFile.read(URL(fileURLWithPath: "/nonexistent-\(UUID().uuidString)/authflow/default.json")) == nil)
    }

    @Test(
        "a file group or others can read or write is refused, naming chmod 600",
        arguments: [0o666, 0o644, 0o640, 0o604, 0o620, 0o602] as [mode_t])
    func openFile(mode: mode_t) throws {
        let url = try Self.profile(file: mode)
        let error = try #require(Self.refusal(url))
        #expect(error.category == .storage)
        #expect(
            error.message
                == "\(url.path) is accessible by other users (mode \(String(mode, radix: 8))); it holds credentials, so it is not used")
        #expect(error.recovery == "Make it private: chmod 600 \(url.path)")
        #expect(Output.exitCode(for: error.category) == 1)
    }

    @Test("a directory group or others can use is refused, naming chmod 700", arguments: [0o777, 0o755, 0o750, 0o705] as [mode_t])
    func openDirectory(mode: mode_t) throws {
        let url = try Self.profile(directory: mode)
        let directory = url.deletingLastPathComponent().path
        let error = try #require(Self.refusal(url))
        #expect(error.category == .storage)
        #expect(error.message.hasPrefix("\(directory) is accessible by other users (mode \(String(mode, radix: 8)))"))
        #expect(error.recovery == "Make it private: chmod 700 \(directory)")
    }

    @Test("a symbolic link is not followed, even to a private file")
    func symbolicLink() throws {
        let target = try Self.profile()
        let url = try Self.profile()
        try FileManager.default.removeItem(at: url)
        try FileManager.default.createSymbolicLink(at: url, withDestinationURL: target)
        let error = try #require(Self.refusal(url))
        #expect(error.category == .storage)
        #expect(error.message == "\(url.path) is a symbolic link, and profiles are not read through links")
    }

    @Test("a FIFO or a directory in the profile's place is refused without blocking")
    func notAFile() throws {
        let url = try Self.profile()
        try FileManager.default.removeItem(at: url)
        #expect(mkfifo(url.path, 0o600) == 0)
        #expect(Self.refusal(url)?.message == "\(url.path) is not a regular file")
        try FileManager.default.removeItem(at: url)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
        #expect(Self.refusal(url)?.message == "\(url.path) is not a regular file")
    }

    @Test("a file or directory another user owns is refused", .enabled(if: geteuid() == 0, "chown needs root"))
    func otherOwner() throws {
        let url = try Self.profile()
        #expect(chown(url.path, 12_345, 12_345) == 0)
        let error = try #require(Self.refusal(url))
        #expect(error.message == "\(url.path) belongs to another user (uid 12345), so it is not used")
        #expect(error.recovery == "Use a profile of your own, or take this one over: chown \(geteuid()) \(url.path)")

        let other = try Self.profile()
        let directory = other.deletingLastPathComponent().path
        #expect(chown(directory, 12_345, 12_345) == 0)
        #expect(Self.refusal(other)?.message == "\(directory) belongs to another user (uid 12345), so it is not used")
        #expect(throws: AuthFlowError.self) { try ProfileFile.prepareDirectory(of: other) }
    }

    @Test("saving repairs the directory's mode")
    func repairsDirectory() throws {
        let url = try Self.profile(directory: 0o777)
        #expect(Self.refusal(url) != nil)
        try ProfileFile.prepareDirectory(of: url)
        let attributes = try FileManager.default.attributesOfItem(atPath: url.deletingLastPathComponent().path)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o700)
        #expect(try ProfileFile.read(url) == Data("{}".utf8))
    }
}
#endif
