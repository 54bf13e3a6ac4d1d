#if canImport(FoundationEssentials)
package import FoundationEssentials
#else
package import Foundation
#endif

/// A JSON value, for members AuthFlow keeps without knowing their meaning
/// (unknown token-response members, extra claims, extra metadata).
public enum JSONMemberValue: Sendable, Hashable, Codable {
    /// `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// A number (JSON does not tell integers apart).
    case number(Double)
    /// A string.
    case string(String)
    /// An array.
    case array([JSONMemberValue])
    /// An object.
    case object([String: JSONMemberValue])

    /// Decodes any JSON value.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSONMemberValue].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: JSONMemberValue].self))
        }
    }

    /// Encodes the value as the JSON it holds.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .number(let value):
            if value.rounded() == value, abs(value) < 1e15 { try container.encode(Int64(value)) } else { try container.encode(value) }
        case .string(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }

    /// The string, if this is a string.
    public var stringValue: String? { if case .string(let value) = self { value } else { nil } }
    /// The number, if this is a number.
    public var numberValue: Double? { if case .number(let value) = self { value } else { nil } }
    /// The object, if this is an object.
    public var objectValue: [String: JSONMemberValue]? { if case .object(let value) = self { value } else { nil } }
    /// The array, if this is an array.
    public var arrayValue: [JSONMemberValue]? { if case .array(let value) = self { value } else { nil } }
    /// The boolean, if this is a boolean.
    public var boolValue: Bool? { if case .bool(let value) = self { value } else { nil } }

    /// Parses one JSON text with ``JSONParser`` (strict RFC 8259, duplicate
    /// member names refused). For this package's other modules (the CLI's
    /// credential-helper protocols): the error's description says what was
    /// wrong and where.
    package static func parseStrictly(_ bytes: [UInt8]) throws -> JSONMemberValue {
        try JSONParser.parse(bytes)
    }

    /// Parses a JSON object with ``JSONParser`` (strict RFC 8259, duplicate
    /// member names refused); nil if `data` is not one.
    package static func object(from data: Data) -> [String: JSONMemberValue]? {
        // JSONParser reads bytes in place (the ID-token path, docs/performance.md): Data viewed, not copied (fuzzed: Fuzz/json.swift).
        data.withUnsafeBytes { raw in JSONParser.object(raw.assumingMemoryBound(to: UInt8.self)) }
    }

    /// Parses a JSON object with ``JSONParser`` (strict RFC 8259, duplicate
    /// member names refused); nil if `bytes` is not one.
    package static func object(from bytes: [UInt8]) -> [String: JSONMemberValue]? {
        // The array viewed for JSONParser without a copy (fuzzed: Fuzz/json.swift).
        bytes.withUnsafeBufferPointer { JSONParser.object($0) }
    }
}
