#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Writing to a file descriptor without buffering.
enum Terminal {
    /// Writes all of `text` to `descriptor`, retrying after interruptions;
    /// stops silently at the first error (a closed descriptor), as
    /// `authflow-core` does. A reader that went away raises `SIGPIPE` in
    /// both, as in any program that does not ignore it.
    static func write(_ text: String, to descriptor: Int32) {
        var text = text
        text.withUTF8 { bytes in
            var offset = 0
            while offset < bytes.count {
                #if canImport(Glibc)
                let written = Glibc.write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
                #else
                let written = Darwin.write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
                #endif
                if written < 0, errno == EINTR { continue }
                guard written > 0 else { return }
                offset += written
            }
        }
    }
}
