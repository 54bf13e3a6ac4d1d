#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Names the calling thread as `ps`, `top` and debuggers show it (at most
/// 15 bytes on Linux).
enum ThreadName {
    static func set(_ name: String) {
        #if canImport(Darwin)
        _ = pthread_setname_np(name)
        #elseif canImport(Glibc)
        // What pthread_setname_np does for the calling thread; Swift's Glibc
        // module does not export that function.
        let fd = open("/proc/thread-self/comm", O_WRONLY | O_CLOEXEC)
        guard fd >= 0 else { return }
        let bytes = Array(name.utf8.prefix(15))
        // write(2) takes a pointer to the name's bytes (a syscall boundary; the name is ours, not input).
        _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        _ = close(fd)
        #endif
    }
}
