#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
import MachO
#endif

/// `authflow-core`, the full command-line tool, which the front end runs
/// for every command line it does not answer itself.
enum FullTool {
    /// The executable's file name; it is installed in the same directory as `authflow`.
    static let name = "authflow-core"

    /// Replaces this process with `authflow-core` and the same arguments
    /// (`argv[0]` included) and
    /// environment. Returns only to exit 1 with a one-line error when it
    /// cannot be run.
    static func run() -> Never {
        guard let directory = executableDirectory() else {
            fail("cannot find the directory of the authflow executable, where \(name) must be")
        }
        let path = directory + "/" + name
        execv(path, CommandLine.unsafeArgv)
        let reason = String(cString: strerror(errno))
        fail("cannot run \(path) (\(reason)); authflow needs \(name) in the same directory: install both executables of a build together")
    }

    private static func fail(_ message: String) -> Never {
        Terminal.write("error: \(message)\n", to: 2)
        exit(1)
    }

    /// The directory holding this executable, symbolic links resolved
    /// (empty for the root directory).
    private static func executableDirectory() -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        #if os(Linux)
        let length = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard length > 0 else { return nil }
        buffer[length] = 0
        #else
        var size = UInt32(buffer.count)
        guard _NSGetExecutablePath(&buffer, &size) == 0 else { return nil }
        var resolved = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        guard realpath(buffer, &resolved) != nil else { return nil }
        buffer = resolved
        #endif
        let path = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        guard let slash = path.lastIndex(of: "/") else { return nil }
        return String(path[..<slash])
    }
}
