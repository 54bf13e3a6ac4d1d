#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Where a helper program of `authflow` is: beside the running executable
/// (a build folder, or a Homebrew keg's `bin`), else in `../libexec/authflow/`
/// from it (the release archive and the Debian package). Found by the
/// executable's real path, so a symbolic link to `authflow` (Homebrew's
/// `bin`, `docker-credential-authflow`) finds the same helper.
package enum HelperExecutable {
    /// The helper's path, or nil when neither place holds an executable file.
    package static func locate(_ name: String) -> String? {
        guard let executable = runningExecutable() else { return nil }
        let folder = String(executable[..<(executable.lastIndex(of: "/") ?? executable.startIndex)])
        for candidate in ["\(folder)/\(name)", "\(folder)/../libexec/authflow/\(name)"] where access(candidate, X_OK) == 0 {
            return candidate
        }
        return nil
    }

    /// The running executable's real path.
    private static func runningExecutable() -> String? {
        #if canImport(Darwin)
        var size: UInt32 = 0
        _ = _NSGetExecutablePath(nil, &size)
        var path = [CChar](repeating: 0, count: Int(size) + 1)
        guard _NSGetExecutablePath(&path, &size) == 0 else { return nil }
        #else
        let path: [CChar] = Array("/proc/self/exe".utf8CString)
        #endif
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }
}
