#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Base64url without padding (RFC 4648 §5), as used by PKCE and JOSE: the one
/// implementation the engine and the embedded provider share.
///
/// Decoding is canonical: nil for a character outside the alphabet (padding
/// included), an impossible length, or non-zero leftover bits.
package enum Base64URL {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    /// `0xFF` for bytes outside the alphabet, the 6-bit value otherwise.
    /// Made once and never freed or written again, so reading it from any
    /// thread is safe; a pointer, so a decode does not retain an array.
    // A pointer, so the decode loop neither retains an array nor checks bounds per byte (fuzzed: Fuzz/base64url.swift).
    nonisolated(unsafe) private static let values: UnsafePointer<UInt8> = {
        let table = UnsafeMutablePointer<UInt8>.allocate(capacity: 256)
        table.initialize(repeating: 0xFF, count: 256)
        for (value, byte) in alphabet.enumerated() { table[Int(byte)] = UInt8(value) }
        return UnsafePointer(table)
    }()

    // MARK: Encoding

    /// Encodes bytes as base64url without padding, written straight into the string.
    package static func encode<Bytes: Sequence>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
        let encoded: String? = bytes.withContiguousStorageIfAvailable { encode(buffer: $0) }
        // Bytes without contiguous storage are copied once and viewed (fuzzed: Fuzz/base64url.swift).
        return encoded ?? Array(bytes).withUnsafeBufferPointer { encode(buffer: $0) }
    }

    /// Appends the base64url encoding of `bytes` (no padding) to `output`,
    /// sized once and written in place: for callers that build a larger
    /// byte string, such as a JWS.
    package static func append<Bytes: Sequence>(_ bytes: Bytes, to output: inout [UInt8]) where Bytes.Element == UInt8 {
        let appended: Void? = bytes.withContiguousStorageIfAvailable { append(buffer: $0, to: &output) }
        // Bytes without contiguous storage are copied once and viewed (fuzzed: Fuzz/base64url.swift).
        if appended == nil { Array(bytes).withUnsafeBufferPointer { append(buffer: $0, to: &output) } }
    }

    /// ``append(_:to:)`` for bytes already in contiguous memory.
    // Encodes from a view into the output's own storage, no intermediate array (fuzzed: Fuzz/base64url.swift).
    package static func append(buffer input: UnsafeBufferPointer<UInt8>, to output: inout [UInt8]) {
        let start = output.count
        let length = encodedLength(input.count)
        output.append(contentsOf: repeatElement(0, count: length))
        // Writes into the room appended above, encodedLength(count) bytes.
        output.withUnsafeMutableBufferPointer { whole in
            _ = encode(input, into: UnsafeMutableBufferPointer(rebasing: whole[start...]))
        }
    }

    /// The number of characters `count` bytes encode to.
    static func encodedLength(_ count: Int) -> Int { count / 3 * 4 + [0, 2, 3][count % 3] }

    // Writes straight into the String's storage, one allocation (fuzzed: Fuzz/base64url.swift).
    private static func encode(buffer input: UnsafeBufferPointer<UInt8>) -> String {
        String(unsafeUninitializedCapacity: encodedLength(input.count)) { encode(input, into: $0) }
    }

    /// Writes the encoding of `input` at the start of `output` (which holds
    /// at least ``encodedLength(_:)`` bytes); returns the count written.
    // The encoding loop over views; it writes encodedLength(count) bytes, which callers provide (fuzzed: Fuzz/base64url.swift).
    private static func encode(_ input: UnsafeBufferPointer<UInt8>, into output: UnsafeMutableBufferPointer<UInt8>) -> Int {
        let count = input.count
        // The alphabet without a bounds check per character (indices are 6-bit).
        return alphabet.withUnsafeBufferPointer { table in
            var i = 0
            var o = 0
            while i + 3 <= count {
                let chunk = UInt32(input[i]) << 16 | UInt32(input[i + 1]) << 8 | UInt32(input[i + 2])
                output[o] = table[Int(chunk >> 18)]
                output[o + 1] = table[Int(chunk >> 12 & 63)]
                output[o + 2] = table[Int(chunk >> 6 & 63)]
                output[o + 3] = table[Int(chunk & 63)]
                i += 3
                o += 4
            }
            switch count - i {
            case 1:
                let chunk = UInt32(input[i]) << 16
                output[o] = table[Int(chunk >> 18)]
                output[o + 1] = table[Int(chunk >> 12 & 63)]
                o += 2
            case 2:
                let chunk = UInt32(input[i]) << 16 | UInt32(input[i + 1]) << 8
                output[o] = table[Int(chunk >> 18)]
                output[o + 1] = table[Int(chunk >> 12 & 63)]
                output[o + 2] = table[Int(chunk >> 6 & 63)]
                o += 3
            default:
                break
            }
            return o
        }
    }

    // MARK: Decoding

    /// Decodes unpadded, canonical base64url text.
    package static func decode<S: StringProtocol>(_ text: S) -> [UInt8]? {
        let decoded: [UInt8]?? = text.utf8.withContiguousStorageIfAvailable { decode($0) }
        // Text without contiguous UTF-8 is copied once and viewed (fuzzed: Fuzz/base64url.swift).
        return decoded ?? Array(text.utf8).withUnsafeBufferPointer { decode($0) }
    }

    /// The number of bytes `count` base64url characters decode to; nil for
    /// an impossible length.
    static func decodedLength(_ count: Int) -> Int? {
        let tail = count % 4
        guard tail != 1 else { return nil }
        return count / 4 * 3 + (tail == 0 ? 0 : tail - 1)
    }

    /// `body` applied to the decoded bytes of `input` in temporary (stack)
    /// storage, for bytes only needed while they are read; nil when `input`
    /// is not canonical base64url.
    // For bytes read once (JWS headers): decoded on the stack, no heap allocation (fuzzed: Fuzz/base64url.swift).
    static func withDecoded<T>(_ input: UnsafeBufferPointer<UInt8>, _ body: (UnsafeBufferPointer<UInt8>) -> T) -> T? {
        guard let count = decodedLength(input.count) else { return nil }
        // decodedLength(count) bytes on the stack; `body` sees exactly those.
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: max(count, 1)) { buffer in
            guard decode(input, into: buffer) else { return nil }
            return body(UnsafeBufferPointer(rebasing: buffer[..<count]))
        }
    }

    /// Decodes the UTF-8 of unpadded, canonical base64url into an exactly
    /// sized array, one allocation.
    // Decodes from a view into an exactly sized array, one allocation (fuzzed: Fuzz/base64url.swift).
    static func decode(_ input: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        guard let outputCount = decodedLength(input.count) else { return nil }
        var valid = false
        // Filled by the loop; nothing counts as initialized unless it succeeded.
        let output = [UInt8](unsafeUninitializedCapacity: outputCount) { out, initialized in
            valid = decode(input, into: out)
            initialized = valid ? outputCount : 0
        }
        return valid ? output : nil
    }

    /// Decodes the UTF-8 of unpadded, canonical base64url into `out`, which
    /// holds at least ``decodedLength(_:)`` bytes; false for invalid input.
    // The decode loop over views; `out` holds decodedLength(count) bytes (fuzzed: Fuzz/base64url.swift).
    static func decode(_ input: UnsafeBufferPointer<UInt8>, into out: UnsafeMutableBufferPointer<UInt8>) -> Bool {
        let count = input.count
        let tail = count % 4
        guard tail != 1 else { return false }
        guard count > 0, let source = input.baseAddress, let target = out.baseAddress else { return true }
        let table = values
        var inIndex = 0
        var outIndex = 0
        while inIndex + 4 <= count {
            let a = table[Int(source[inIndex])]
            let b = table[Int(source[inIndex + 1])]
            let c = table[Int(source[inIndex + 2])]
            let d = table[Int(source[inIndex + 3])]
            guard (a | b | c | d) & 0x80 == 0 else { return false }
            let chunk = UInt32(a) << 18 | UInt32(b) << 12 | UInt32(c) << 6 | UInt32(d)
            target[outIndex] = UInt8(truncatingIfNeeded: chunk >> 16)
            target[outIndex + 1] = UInt8(truncatingIfNeeded: chunk >> 8)
            target[outIndex + 2] = UInt8(truncatingIfNeeded: chunk)
            inIndex += 4
            outIndex += 3
        }
        if tail >= 2 {
            let a = table[Int(source[inIndex])]
            let b = table[Int(source[inIndex + 1])]
            let c = tail == 3 ? table[Int(source[inIndex + 2])] : 0
            // Leftover bits must be zero for a canonical encoding.
            guard (a | b | c) & 0x80 == 0, tail == 3 ? c & 0x03 == 0 : b & 0x0F == 0 else { return false }
            let chunk = UInt32(a) << 18 | UInt32(b) << 12 | UInt32(c) << 6
            target[outIndex] = UInt8(truncatingIfNeeded: chunk >> 16)
            if tail == 3 { target[outIndex + 1] = UInt8(truncatingIfNeeded: chunk >> 8) }
        }
        return true
    }
}
