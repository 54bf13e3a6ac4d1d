import Foundation

#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Random bytes from the operating system's secure generator, drawn in
/// blocks and handed out in 16-byte slices: each DPoP proof's `jti` without
/// a system call per proof.
///
/// Every slice is output of the system's CSPRNG (the kernel's, through
/// `/dev/urandom`, on Linux; `arc4random_buf` on Apple platforms), handed out once and wiped from the
/// pool as it is taken, so no `jti` can be derived from another. A forked
/// child process discards its copy of the shared pool, so parent and child
/// never hand out the same bytes.
final class RandomPool: @unchecked Sendable {
    /// The pool every proof draws from. Its lock is held across `fork`, so
    /// a child never inherits it locked, and the child empties the pool.
    static let shared: RandomPool = {
        let pool = RandomPool(blockSize: 4096)
        #if canImport(Darwin) || canImport(Glibc) || canImport(Musl)
        _ = pthread_atfork(
            { RandomPool.shared.lock.lock() },
            { RandomPool.shared.lock.unlock() },
            {
                let pool = RandomPool.shared
                wipe(pool.block, count: pool.blockSize)
                pool.used = pool.blockSize
                pool.lock.unlock()
            })
        #endif
        return pool
    }()

    let blockSize: Int
    private let lock = NSLock()
    // Touched only under `lock`.
    private let block: UnsafeMutablePointer<UInt8>
    private var used: Int

    /// A pool drawing `blockSize` bytes (a multiple of 16) at a time.
    init(blockSize: Int) {
        precondition(blockSize >= 16 && blockSize % 16 == 0, "a pool block holds whole 16-byte slices")
        self.blockSize = blockSize
        block = UnsafeMutablePointer<UInt8>.allocate(capacity: blockSize)
        block.initialize(repeating: 0, count: blockSize)
        used = blockSize
    }

    deinit {
        wipe(block, count: blockSize)
        block.deallocate()
    }

    /// 128 fresh random bits, never handed out before.
    func next128() -> (UInt64, UInt64) {
        lock.lock()
        defer { lock.unlock() }
        if used + 16 > blockSize {
            RandomPool.fillFromSystem(block, count: blockSize)
            used = 0
        }
        let slice = UnsafeMutableRawPointer(block + used)
        let words = (slice.loadUnaligned(as: UInt64.self), slice.loadUnaligned(fromByteOffset: 8, as: UInt64.self))
        wipe(block + used, count: 16)
        used += 16
        return words
    }

    /// Fills `buffer` from the system's secure generator.
    static func fillFromSystem(_ buffer: UnsafeMutablePointer<UInt8>, count: Int) {
        #if canImport(Darwin)
        arc4random_buf(buffer, count)
        #elseif canImport(Glibc) || canImport(Musl)
        // The kernel's CSPRNG through /dev/urandom (the same generator as
        // `getrandom`, which the C library module does not export), one read
        // per block; the descriptor stays open.
        var filled = 0
        while filled < count, let device = urandom {
            let got = read(device, buffer + filled, count - filled)
            if got > 0 {
                filled += got
            } else if !(got < 0 && errno == EINTR) {
                break
            }
        }
        // No /dev/urandom (a sandbox without /dev): the standard library's
        // generator, which asks the kernel with `getrandom`.
        if filled < count { fillWords(buffer + filled, count: count - filled) }
        #else
        fillWords(buffer, count: count)
        #endif
    }

    #if canImport(Glibc) || canImport(Musl)
    /// A descriptor for /dev/urandom, opened on first use; nil when it cannot be.
    private static let urandom: Int32? = {
        let device = open("/dev/urandom", O_RDONLY | O_CLOEXEC)
        return device >= 0 ? device : nil
    }()
    #endif

    private static func fillWords(_ buffer: UnsafeMutablePointer<UInt8>, count: Int) {
        var generator = SystemRandomNumberGenerator()
        var index = 0
        while index < count {
            var word = generator.next()
            withUnsafeBytes(of: &word) { bytes in
                for byte in bytes where index < count {
                    buffer[index] = byte
                    index += 1
                }
            }
        }
    }
}

/// Overwrites `count` bytes with zeros through a call the optimizer cannot
/// drop as a dead store.
@inline(never)
private func wipe(_ pointer: UnsafeMutablePointer<UInt8>, count: Int) {
    _ = withExtendedLifetime(pointer) { memset(pointer, 0, count) }
}
