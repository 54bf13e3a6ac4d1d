#if EmbeddedProvider // the EmbeddedProvider package trait
import AuthFlow
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// JSON serialisation of provider responses: sorted keys, slashes unescaped.
///
/// The output is byte for byte what `JSONEncoder` with `[.sortedKeys,
/// .withoutEscapingSlashes]` writes for a ``JSONMemberValue`` (keys in UTF-8 order,
/// `"`, `\` and control characters escaped as it does, integral numbers
/// below 10^15 as integers), without its `Encoder` machinery, which cost
/// more than the rest of building a token response. Non-integral numbers,
/// which the provider itself never issues, still go through `JSONEncoder`.
enum JSONBody {
    static func bytes(_ value: JSONMemberValue) throws -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(256)
        try write(value, to: &output, depth: 0)
        return output
    }

    /// `JSONEncoder`'s nesting limit.
    private static let maximumDepth = 512

    private static func write(_ value: JSONMemberValue, to output: inout [UInt8], depth: Int) throws {
        switch value {
        case .null: output.append(contentsOf: "null".utf8)
        case .bool(let value): output.append(contentsOf: (value ? "true" : "false").utf8)
        case .number(let value):
            // The rule of JSONMemberValue.encode(to:).
            if value.rounded() == value, abs(value) < 1e15 {
                output.append(contentsOf: String(Int64(value)).utf8)
            } else {
                try output.append(contentsOf: encoded(number: value))
            }
        case .string(let value): writeString(value, to: &output)
        case .array(let elements):
            guard depth + 1 < maximumDepth else { throw tooDeep(value) }
            output.append(UInt8(ascii: "["))
            for (index, element) in elements.enumerated() {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                try write(element, to: &output, depth: depth + 1)
            }
            output.append(UInt8(ascii: "]"))
        case .object(let members):
            guard depth + 1 < maximumDepth else { throw tooDeep(value) }
            output.append(UInt8(ascii: "{"))
            let sorted = members.sorted { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }
            for (index, member) in sorted.enumerated() {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                writeString(member.key, to: &output)
                output.append(UInt8(ascii: ":"))
                try write(member.value, to: &output, depth: depth + 1)
            }
            output.append(UInt8(ascii: "}"))
        }
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)

    /// A JSON string with the escapes `JSONEncoder` uses; runs of bytes that
    /// need none are copied at once.
    private static func writeString(_ string: String, to output: inout [UInt8]) {
        output.append(UInt8(ascii: "\""))
        var string = string
        string.withUTF8 { bytes in
            var start = 0
            for index in bytes.indices {
                let byte = bytes[index]
                guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else { continue }
                output.append(contentsOf: bytes[start..<index])
                start = index + 1
                output.append(UInt8(ascii: "\\"))
                switch byte {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"): output.append(byte)
                case 0x08: output.append(UInt8(ascii: "b"))
                case 0x0C: output.append(UInt8(ascii: "f"))
                case 0x0A: output.append(UInt8(ascii: "n"))
                case 0x0D: output.append(UInt8(ascii: "r"))
                case 0x09: output.append(UInt8(ascii: "t"))
                default:
                    output.append(contentsOf: "u00".utf8)
                    output.append(hexDigits[Int(byte >> 4)])
                    output.append(hexDigits[Int(byte & 0x0F)])
                }
            }
            output.append(contentsOf: bytes[start...])
        }
        output.append(UInt8(ascii: "\""))
    }

    /// A non-integral (or huge, or non-finite) number exactly as `JSONEncoder` writes it.
    private static func encoded(number: Double) throws -> ArraySlice<UInt8> {
        let array = Array(try JSONEncoder().encode([JSONMemberValue.number(number)]))
        return array.dropFirst().dropLast()
    }

    private static func tooDeep(_ value: JSONMemberValue) -> any Error {
        EncodingError.invalidValue(value, .init(codingPath: [], debugDescription: "nested too deeply"))
    }
}
#endif
