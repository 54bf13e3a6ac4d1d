// Linux and macOS: posix_spawn is prohibited on tvOS and watchOS, and no iOS
// app starts programs.
#if canImport(Glibc) || canImport(Musl) || os(macOS)
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#else
import Darwin
#endif
import AuthFlow
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A program started with `posix_spawn`: the browser (on Linux), and the
/// helper that holds `authflow`'s PostgreSQL store.
///
/// swift-corelibs-foundation's `Process` does the same, but one use links
/// all of that library and ICU's data (docs/performance.md, "Size").
///
/// The child starts with every signal at its default action and none
/// blocked (the parent ignores `SIGPIPE`, as SwiftNIO sets, and an ignored
/// signal survives `exec`), and with only standard input, output and error
/// open from the parent.
package struct ChildProcess: Sendable {
    /// Where one of the child's standard streams goes.
    package enum Stream: Sendable {
        /// The parent's own stream.
        case inherit
        /// `/dev/null`.
        case null
        /// A new pipe; the parent's end is in ``ChildProcess/input`` or ``ChildProcess/output``.
        case pipe
        /// The parent's standard error (for a child's standard output).
        case standardError
    }

    /// Why a program could not be started.
    package struct SpawnFailure: Error, Sendable, Equatable {
        /// The failed call: `posix_spawn`, `pipe` or `open`.
        package let call: String
        /// Its `errno` (`ENOENT` when the program is not found).
        package let code: Int32
    }

    /// The child's process ID.
    package let pid: Int32
    /// The parent's (write) end of the child's standard input, when it is a pipe.
    package let input: Int32?
    /// The parent's (read) end of the child's standard output, when it is a pipe.
    package let output: Int32?

    /// Starts `arguments[0]` (searched for in `PATH` when it holds no slash)
    /// with the rest as its arguments and the parent's environment.
    package static func spawn(
        _ arguments: [String], input: Stream = .null, output: Stream = .inherit, error: Stream = .inherit
    ) throws(SpawnFailure) -> ChildProcess {
        precondition(!arguments.isEmpty, "a program to start")
        #if canImport(Darwin)
        var actions: posix_spawn_file_actions_t? = nil
        #else
        var actions = posix_spawn_file_actions_t()
        #endif
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        var opened: [Int32] = []
        // The child's ends, closed in the parent once the child has them.
        defer { for descriptor in opened { close(descriptor) } }
        var parentInput: Int32?
        var parentOutput: Int32?
        var failed: SpawnFailure?

        func wire(_ stream: Stream, to target: Int32) {
            guard failed == nil else { return }
            switch stream {
            case .inherit:
                break
            case .null:
                let descriptor = open("/dev/null", (target == 0 ? O_RDONLY : O_WRONLY) | O_CLOEXEC)
                guard descriptor >= 0 else {
                    failed = SpawnFailure(call: "open", code: errno)
                    return
                }
                opened.append(descriptor)
                posix_spawn_file_actions_adddup2(&actions, descriptor, target)
            case .standardError:
                posix_spawn_file_actions_adddup2(&actions, 2, target)
            case .pipe:
                var ends: [Int32] = [-1, -1]
                guard pipe(&ends) == 0 else {
                    failed = SpawnFailure(call: "pipe", code: errno)
                    return
                }
                // Close-on-exec, so that no other child inherits them (the
                // window before this call is the one `Process` has too).
                for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
                let (childEnd, parentEnd) = target == 0 ? (ends[0], ends[1]) : (ends[1], ends[0])
                opened.append(childEnd)
                if target == 0 { parentInput = parentEnd } else { parentOutput = parentEnd }
                posix_spawn_file_actions_adddup2(&actions, childEnd, target)
            }
        }
        wire(input, to: 0)
        wire(output, to: 1)
        wire(error, to: 2)
        #if !canImport(Darwin)
        // Darwin closes the rest itself (POSIX_SPAWN_CLOEXEC_DEFAULT below).
        for descriptor in inheritable() { posix_spawn_file_actions_addclose(&actions, descriptor) }
        #endif
        func closeParentEnds() {
            if let parentInput { close(parentInput) }
            if let parentOutput { close(parentOutput) }
        }
        if let failed {
            closeParentEnds()
            throw failed
        }

        #if canImport(Darwin)
        var attributes: posix_spawnattr_t? = nil
        #else
        var attributes = posix_spawnattr_t()
        #endif
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var signals = sigset_t()
        sigfillset(&signals)
        posix_spawnattr_setsigdefault(&attributes, &signals)
        sigemptyset(&signals)
        posix_spawnattr_setsigmask(&attributes, &signals)
        #if canImport(Darwin)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_CLOEXEC_DEFAULT))
        #else
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))
        #endif

        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { for argument in argv { free(argument) } }
        // The parent's environment, read through ProcessInfo: the same on
        // every platform (Darwin has no `environ` to import).
        var environment: [UnsafeMutablePointer<CChar>?] =
            ProcessInfo.processInfo.environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { for variable in environment { free(variable) } }
        var pid = pid_t()
        let status: Int32 =
            if arguments[0].contains("/") {
                posix_spawn(&pid, argv[0]!, &actions, &attributes, &argv, &environment)
            } else {
                posix_spawnp(&pid, argv[0]!, &actions, &attributes, &argv, &environment)
            }
        guard status == 0 else {
            closeParentEnds()
            throw SpawnFailure(call: "posix_spawn", code: status)
        }
        return ChildProcess(pid: pid, input: parentInput, output: parentOutput)
    }

    #if !canImport(Darwin)
    /// The parent's descriptors above standard error without close-on-exec
    /// (a library's, or one a test harness left open): the child closes them.
    private static func inheritable() -> [Int32] {
        guard let directory = opendir("/proc/self/fd") else { return [] }
        defer { closedir(directory) }
        let own = dirfd(directory)
        var found: [Int32] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            guard let descriptor = Int32(name), descriptor > 2, descriptor != own else { continue }
            let flags = fcntl(descriptor, F_GETFD)
            if flags >= 0, flags & FD_CLOEXEC == 0 { found.append(descriptor) }
        }
        return found
    }
    #endif

    /// Waits, on a thread of its own, for the child to end, then calls
    /// `ended` with its exit status (128 plus the signal's number when a
    /// signal ended it, as shells report it).
    package func whenExited(_ ended: @escaping @Sendable (Int32) -> Void) {
        let pid = pid
        DetachedThread.start { ended(Self.waitForExit(pid)) }
    }

    /// Waits for the child to end and returns its exit status (see ``whenExited(_:)``).
    package func exitStatus() async -> Int32 {
        let pid = pid
        return await DetachedThread.run { Self.waitForExit(pid) }
    }

    private static func waitForExit(_ pid: Int32) -> Int32 {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 {
            guard errno == EINTR else { return -1 }
        }
        // WIFEXITED and WTERMSIG are macros, which Swift does not import.
        let signal = status & 0x7f
        return signal == 0 ? (status >> 8) & 0xff : 128 + signal
    }
}
#endif
