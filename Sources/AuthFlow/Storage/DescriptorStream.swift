#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A file descriptor read and written with `read(2)` and `write(2)`: the
/// CLI's standard streams (`StandardStream`), the pipes to the store helper,
/// a private file's bytes (``PrivateFile``).
///
/// In place of Foundation's `FileHandle`, which on Linux lives in
/// swift-corelibs-foundation: one use links all of that library and ICU's
/// data into the executable (docs/performance.md, "Size").
package struct DescriptorStream: Sendable {
    /// The file descriptor, which this value does not own.
    package let descriptor: Int32

    /// The stream of `descriptor`.
    package init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    /// A `read(2)` or `write(2)` that failed, with its `errno` (`EPIPE`
    /// when the reader of a pipe has gone: `authflow demo | head`).
    package struct Failure: Error, Sendable {
        package let errno: Int32
    }

    /// Writes all of `bytes`: a partial write goes on with the rest, and a
    /// call interrupted by a signal (`EINTR`) is made again.
    package func write(_ bytes: some Collection<UInt8>) throws(Failure) {
        var failure: Failure?
        let contiguous: Void? = bytes.withContiguousStorageIfAvailable { buffer in
            do throws(Failure) { try write(UnsafeRawBufferPointer(buffer)) } catch { failure = error }
        }
        if let failure { throw failure }
        if contiguous == nil { try write(Array(bytes)) }
    }

    /// Writes `text` in UTF-8.
    package func write(_ text: String) throws(Failure) {
        try write(text.utf8)
    }

    // write(2) takes a raw pointer; the loop stays within the buffer (a syscall boundary).
    private func write(_ buffer: UnsafeRawBufferPointer) throws(Failure) {
        guard let base = buffer.baseAddress else { return }
        var offset = 0
        while offset < buffer.count {
            let written = Self.systemWrite(descriptor, base + offset, buffer.count - offset)
            if written < 0 {
                if errno == EINTR { continue }
                throw Failure(errno: errno)
            }
            offset += written
        }
    }

    /// What one `read(2)` returns: at most `count` bytes, as many as are
    /// there (it waits only when none are); empty at the end of the input.
    /// A call interrupted by a signal is made again.
    package func read(upToCount count: Int) throws(Failure) -> [UInt8] {
        var buffer = [UInt8](repeating: 0, count: count)
        while true {
            let read = buffer.withUnsafeMutableBytes { Self.systemRead(descriptor, $0.baseAddress, count) }
            if read < 0 {
                if errno == EINTR { continue }
                throw Failure(errno: errno)
            }
            buffer.removeLast(count - read)
            return buffer
        }
    }

    // The C library's functions, named unambiguously next to this type's own `read` and `write`.
    private static func systemWrite(_ fd: Int32, _ pointer: UnsafeRawPointer, _ count: Int) -> Int {
        #if canImport(Glibc)
        Glibc.write(fd, pointer, count)
        #elseif canImport(Musl)
        Musl.write(fd, pointer, count)
        #else
        Darwin.write(fd, pointer, count)
        #endif
    }

    private static func systemRead(_ fd: Int32, _ pointer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
        #if canImport(Glibc)
        Glibc.read(fd, pointer, count)
        #elseif canImport(Musl)
        Musl.read(fd, pointer, count)
        #else
        Darwin.read(fd, pointer, count)
        #endif
    }
}
