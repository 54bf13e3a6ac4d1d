/// A D-Bus value, with enough type information to marshal it.
indirect enum DBusValue: Equatable, Sendable {
    case byte(UInt8)
    case boolean(Bool)
    case int16(Int16)
    case uint16(UInt16)
    case int32(Int32)
    case uint32(UInt32)
    case int64(Int64)
    case uint64(UInt64)
    case double(Double)
    case string(String)
    case objectPath(String)
    case signature(String)
    case variant(DBusValue)
    /// The element type is kept so that an empty array has a signature.
    case array(DBusType, [DBusValue])
    case structure([DBusValue])
    case dictEntry(DBusValue, DBusValue)

    /// The value's type.
    var type: DBusType {
        switch self {
        case .byte: .byte
        case .boolean: .boolean
        case .int16: .int16
        case .uint16: .uint16
        case .int32: .int32
        case .uint32: .uint32
        case .int64: .int64
        case .uint64: .uint64
        case .double: .double
        case .string: .string
        case .objectPath: .objectPath
        case .signature: .signature
        case .variant: .variant
        case .array(let element, _): .array(element)
        case .structure(let fields): .structure(fields.map(\.type))
        case .dictEntry(let key, let value): .dictEntry(key.type, value.type)
        }
    }

    /// An `a{ss}` dictionary.
    static func stringDictionary(_ pairs: [(String, String)]) -> DBusValue {
        .array(.dictEntry(.string, .string), pairs.map { .dictEntry(.string($0.0), .string($0.1)) })
    }

    /// An `ay` byte array.
    static func bytes(_ bytes: [UInt8]) -> DBusValue {
        .array(.byte, bytes.map { .byte($0) })
    }

    // Accessors for reading replies; nil when the value has another type.

    var stringValue: String? {
        switch self {
        case .string(let text), .objectPath(let text), .signature(let text): text
        default: nil
        }
    }

    var booleanValue: Bool? {
        if case .boolean(let value) = self { return value }
        return nil
    }

    var variantValue: DBusValue? {
        if case .variant(let inner) = self { return inner }
        return nil
    }

    var arrayElements: [DBusValue]? {
        if case .array(_, let elements) = self { return elements }
        return nil
    }

    var structureFields: [DBusValue]? {
        if case .structure(let fields) = self { return fields }
        return nil
    }

    /// The bytes of an `ay`.
    var byteArray: [UInt8]? {
        guard case .array(.byte, let elements) = self else { return nil }
        var bytes: [UInt8] = []
        for element in elements {
            guard case .byte(let byte) = element else { return nil }
            bytes.append(byte)
        }
        return bytes
    }
}
