import AuthFlow

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// JSON values, one per line, over a pair of pipe ends: how `authflow` and
/// its store helper talk. Reads block, so they run on a thread of their own
/// (``DetachedThread``); one exchange at a time, under a lock.
package final class LineChannel: Sendable {
    /// The longest line either end accepts: a session record is a few
    /// kilobytes; a line this long is a fault, not a record.
    package static let maximumLine = 1 << 20

    private let input: Int32
    private let output: Int32
    /// Bytes read past the last line; touched only under the exchange lock
    /// or by the one reader the helper has.
    private let pending = LockedValue<[UInt8]>([])
    private let exchangeLock = LockedValue(())

    /// A channel reading `input` and writing `output` (descriptors it does not own).
    package init(input: Int32, output: Int32) {
        self.input = input
        self.output = output
    }

    /// Why the channel stopped.
    package enum Failure: Error, Sendable, Equatable {
        /// The other end closed its side.
        case ended
        /// A line longer than ``LineChannel/maximumLine``, or not the JSON expected.
        case malformed
        /// A read or write failed with this `errno`.
        case system(Int32)
    }

    /// Writes `value` as one line.
    package func send(_ value: some Encodable) throws(Failure) {
        let encoded: Data
        do { encoded = try JSONEncoder().encode(value) } catch { throw .malformed }
        var bytes = [UInt8](encoded)
        bytes.append(UInt8(ascii: "\n"))
        do { try DescriptorStream(descriptor: output).write(bytes) } catch { throw error.errno == EPIPE ? .ended : .system(error.errno) }
    }

    /// Reads the next line as a `T`, blocking the calling thread.
    package func receiveBlocking<T: Decodable>(_: T.Type) throws(Failure) -> T {
        let line = try readLine()
        do { return try JSONDecoder().decode(T.self, from: Data(line)) } catch { throw .malformed }
    }

    /// Reads the next line as a `T` on a thread of its own.
    package func receive<T: Decodable & Sendable>(_: T.Type) async throws(Failure) -> T {
        let result: Result<T, Failure> = await DetachedThread.run {
            do throws(Failure) { return .success(try self.receiveBlocking(T.self)) } catch { return .failure(error) }
        }
        return try result.get()
    }

    /// Sends `request` and reads its answer, one exchange at a time.
    package func exchange<Request: Encodable & Sendable, Answer: Decodable & Sendable>(
        _ request: Request, expecting: Answer.Type
    ) async throws(Failure) -> Answer {
        let result: Result<Answer, Failure> = await DetachedThread.run {
            self.exchangeLock.withLock { _ in
                do throws(Failure) {
                    try self.send(request)
                    return .success(try self.receiveBlocking(Answer.self))
                } catch {
                    return .failure(error)
                }
            }
        }
        return try result.get()
    }

    private func readLine() throws(Failure) -> [UInt8] {
        var buffer = pending.withLock { pending in
            defer { pending = [] }
            return pending
        }
        var searched = 0
        while true {
            if let end = buffer[searched...].firstIndex(of: UInt8(ascii: "\n")) {
                let line = Array(buffer[..<end])
                let rest = Array(buffer[(end + 1)...])
                pending.withLock { $0 = rest }
                return line
            }
            searched = buffer.count
            guard buffer.count <= Self.maximumLine else { throw .malformed }
            let chunk: [UInt8]
            do { chunk = try DescriptorStream(descriptor: input).read(upToCount: 16_384) } catch { throw .system(error.errno) }
            if chunk.isEmpty { throw .ended }
            buffer.append(contentsOf: chunk)
        }
    }
}
