#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The POSIX calls of the loopback listener, with the few platform
/// differences in one place. Every descriptor is non-blocking and
/// close-on-exec; `EINTR` is retried; `SIGPIPE` never fires (`MSG_NOSIGNAL`
/// on Linux, `SO_NOSIGPIPE` on Apple platforms).
enum Socket {
    /// What a read or write did.
    enum Transfer {
        case bytes(Int)
        /// The peer closed (read), nothing more can be sent (write).
        case end
        /// Nothing to read, or no room to write: wait for poll.
        case wouldBlock
        case failed(Int32)
    }

    /// A failed system call: its name and `errno`.
    struct Failure: Error, Sendable {
        let call: String
        let code: Int32
    }

    /// A listening TCP socket on 127.0.0.1:`port` (0: ephemeral) and the port bound.
    static func listen(port: Int, backlog: Int32) throws(Failure) -> (descriptor: Int32, port: Int) {
        #if canImport(Glibc)
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        #else
        let fd = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard fd >= 0 else { throw Failure(call: "socket", code: errno) }
        do throws(Failure) {
            #if canImport(Darwin)
            try configure(fd)
            #endif
            // Rebinding a fixed port right after an earlier run (its
            // connections in TIME_WAIT) succeeds; a port another socket
            // listens on still fails with EADDRINUSE.
            var on: Int32 = 1
            guard setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, socklen_t(MemoryLayout<Int32>.size)) == 0 else {
                throw Failure(call: "setsockopt", code: errno)
            }
            var address = sockaddr_in()
            #if canImport(Darwin)
            address.sin_len = UInt8(MemoryLayout<sockaddr_in>.size)
            #endif
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = UInt16(port).bigEndian
            address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian // 127.0.0.1
            // bind(2) takes a sockaddr pointer: the sockaddr_in is viewed as one for this call (a syscall boundary, no input parsed).
            let bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            guard bound == 0 else { throw Failure(call: "bind", code: errno) }
            #if canImport(Glibc)
            let listening = Glibc.listen(fd, backlog)
            #else
            let listening = Darwin.listen(fd, backlog)
            #endif
            guard listening == 0 else { throw Failure(call: "listen", code: errno) }
            var local = sockaddr_in()
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            // getsockname(2) writes the bound address through a sockaddr pointer (a syscall boundary, no input parsed).
            let named = withUnsafeMutablePointer(to: &local) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
            }
            guard named == 0 else { throw Failure(call: "getsockname", code: errno) }
            return (fd, Int(UInt16(bigEndian: local.sin_port)))
        } catch {
            close(fd)
            throw error
        }
    }

    /// Accepts a pending connection: its descriptor, nil when none is
    /// pending, or the failure.
    static func accept(_ listener: Int32) -> Result<Int32?, Failure> {
        while true {
            #if canImport(Glibc)
            let fd = Glibc.accept(listener, nil, nil)
            #else
            let fd = Darwin.accept(listener, nil, nil)
            #endif
            if fd >= 0 {
                do throws(Failure) { try configure(fd) } catch {
                    close(fd)
                    return .failure(error)
                }
                return .success(fd)
            }
            switch errno {
            case EINTR, ECONNABORTED:
                continue
            case EAGAIN, EWOULDBLOCK:
                return .success(nil)
            case let code:
                return .failure(Failure(call: "accept", code: code))
            }
        }
    }

    /// Non-blocking and close-on-exec; on Apple platforms also no SIGPIPE
    /// (Linux passes `MSG_NOSIGNAL` to each send instead).
    private static func configure(_ fd: Int32) throws(Failure) {
        guard fcntl(fd, F_SETFD, FD_CLOEXEC) == 0, fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) == 0 else {
            throw Failure(call: "fcntl", code: errno)
        }
        #if canImport(Darwin)
        var on: Int32 = 1
        guard setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &on, socklen_t(MemoryLayout<Int32>.size)) == 0 else {
            throw Failure(call: "setsockopt", code: errno)
        }
        #endif
    }

    /// Reads what has arrived into `buffer`.
    // recv(2) writes through a raw pointer, bounded by the buffer's count; only this call sees it (RequestReader reads a slice).
    static func receive(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer) -> Transfer {
        while true {
            let count = recv(fd, buffer.baseAddress, buffer.count, 0)
            if count > 0 { return .bytes(count) }
            if count == 0 { return .end }
            switch errno {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK: return .wouldBlock
            case let code: return .failed(code)
            }
        }
    }

    /// Writes as much of `bytes` as the socket takes now.
    // send(2) reads through a raw pointer, bounded by the buffer's count (a syscall boundary, no input parsed).
    static func send(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) -> Transfer {
        #if canImport(Glibc)
        let flags = Int32(MSG_NOSIGNAL)
        #else
        let flags: Int32 = 0
        #endif
        while true {
            #if canImport(Glibc)
            let count = Glibc.send(fd, bytes.baseAddress, bytes.count, flags)
            #else
            let count = Darwin.send(fd, bytes.baseAddress, bytes.count, flags)
            #endif
            if count >= 0 { return .bytes(count) }
            switch errno {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK: return .wouldBlock
            case EPIPE: return .end
            case let code: return .failed(code)
            }
        }
    }

    /// Sends FIN: the response is complete, reading may go on.
    static func shutdownWrite(_ fd: Int32) {
        _ = shutdown(fd, Int32(SHUT_WR))
    }

    /// Closes `fd`. Not retried on EINTR: the descriptor is released either way.
    static func close(_ fd: Int32) {
        #if canImport(Glibc)
        _ = Glibc.close(fd)
        #else
        _ = Darwin.close(fd)
        #endif
    }

    /// A non-blocking, close-on-exec pipe: (read end, write end).
    static func pipe() throws(Failure) -> (read: Int32, write: Int32) {
        var ends: [Int32] = [-1, -1]
        #if canImport(Glibc)
        let made = Glibc.pipe(&ends)
        #else
        let made = Darwin.pipe(&ends)
        #endif
        guard made == 0 else { throw Failure(call: "pipe", code: errno) }
        for fd in ends {
            guard fcntl(fd, F_SETFD, FD_CLOEXEC) == 0, fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) == 0 else {
                let code = errno
                ends.forEach { close($0) }
                throw Failure(call: "fcntl", code: code)
            }
        }
        return (ends[0], ends[1])
    }

    /// Writes one byte to a wake-up pipe; a full pipe already wakes its reader.
    static func signal(_ fd: Int32) {
        var byte: UInt8 = 1
        while write(fd, &byte, 1) < 0 && errno == EINTR {}
    }

    /// Empties a wake-up pipe.
    static func drain(_ fd: Int32) {
        var bytes = [UInt8](repeating: 0, count: 64)
        while true {
            // read(2) writes through a raw pointer, bounded by the array's count (a syscall boundary; the bytes are dropped).
            let count = bytes.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count > 0 { continue }
            if count < 0 && errno == EINTR { continue }
            return
        }
    }

    /// A poll entry for `fd`: readable, or writable when `writing`.
    static func pollEntry(_ fd: Int32, writing: Bool = false) -> pollfd {
        pollfd(fd: fd, events: Int16(truncatingIfNeeded: writing ? POLLOUT : POLLIN), revents: 0)
    }

    /// Waits until an entry is ready or `milliseconds` pass (-1: no limit).
    /// Fails only when poll itself fails; an interrupted poll (EINTR)
    /// succeeds with no entry ready.
    static func poll(_ entries: inout [pollfd], milliseconds: Int32) -> Result<Void, Failure> {
        #if canImport(Glibc)
        let ready = Glibc.poll(&entries, nfds_t(entries.count), milliseconds)
        #else
        let ready = Darwin.poll(&entries, nfds_t(entries.count), milliseconds)
        #endif
        if ready < 0 && errno != EINTR { return .failure(Failure(call: "poll", code: errno)) }
        if ready < 0 { for index in entries.indices { entries[index].revents = 0 } }
        return .success(())
    }

    /// The system's text for `code`.
    static func describe(_ code: Int32) -> String {
        String(cString: strerror(code))
    }
}
