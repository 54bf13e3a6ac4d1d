/// A D-Bus type, as a signature spells it (the D-Bus Specification,
/// "Type System"). Unix file descriptors (`h`) are not supported: the
/// Secret Service calls never carry one.
indirect enum DBusType: Equatable, Sendable {
    case byte, boolean, int16, uint16, int32, uint32, int64, uint64, double
    case string, objectPath, signature, variant
    case array(DBusType)
    case structure([DBusType])
    case dictEntry(DBusType, DBusType)

    /// Signatures are at most 255 bytes long.
    static let maximumSignatureLength = 255
    /// Arrays and structures nest at most 32 deep each (64 together with variants).
    static let maximumDepth = 64

    /// The signature of this one type.
    var signature: String {
        switch self {
        case .byte: "y"
        case .boolean: "b"
        case .int16: "n"
        case .uint16: "q"
        case .int32: "i"
        case .uint32: "u"
        case .int64: "x"
        case .uint64: "t"
        case .double: "d"
        case .string: "s"
        case .objectPath: "o"
        case .signature: "g"
        case .variant: "v"
        case .array(let element): "a" + element.signature
        case .structure(let fields): "(" + fields.map(\.signature).joined() + ")"
        case .dictEntry(let key, let value): "{" + key.signature + value.signature + "}"
        }
    }

    /// The boundary a value of this type starts on.
    var alignment: Int {
        switch self {
        case .byte, .signature, .variant: 1
        case .int16, .uint16: 2
        case .boolean, .int32, .uint32, .string, .objectPath, .array: 4
        case .int64, .uint64, .double, .structure, .dictEntry: 8
        }
    }

    /// Whether the type may be a dictionary key (a basic type).
    var isBasic: Bool {
        switch self {
        case .variant, .array, .structure, .dictEntry: false
        default: true
        }
    }

    /// The types a signature lists, in order.
    static func parse(signature text: String) throws(DBusWireError) -> [DBusType] {
        let bytes = Array(text.utf8)
        guard bytes.count <= maximumSignatureLength else { throw .badSignature }
        var position = 0
        var types: [DBusType] = []
        while position < bytes.count {
            types.append(try parseOne(bytes, &position, arrays: 0, structures: 0))
        }
        return types
    }

    /// The one complete type a variant's signature must hold.
    static func parseSingle(signature text: String) throws(DBusWireError) -> DBusType {
        let types = try parse(signature: text)
        guard types.count == 1 else { throw .badSignature }
        return types[0]
    }

    private static func parseOne(
        _ bytes: [UInt8], _ position: inout Int, arrays: Int, structures: Int
    ) throws(DBusWireError) -> DBusType {
        guard position < bytes.count else { throw .badSignature }
        let code = bytes[position]
        position += 1
        switch code {
        case UInt8(ascii: "y"): return .byte
        case UInt8(ascii: "b"): return .boolean
        case UInt8(ascii: "n"): return .int16
        case UInt8(ascii: "q"): return .uint16
        case UInt8(ascii: "i"): return .int32
        case UInt8(ascii: "u"): return .uint32
        case UInt8(ascii: "x"): return .int64
        case UInt8(ascii: "t"): return .uint64
        case UInt8(ascii: "d"): return .double
        case UInt8(ascii: "s"): return .string
        case UInt8(ascii: "o"): return .objectPath
        case UInt8(ascii: "g"): return .signature
        case UInt8(ascii: "v"): return .variant
        case UInt8(ascii: "a"):
            guard arrays < 32 else { throw .nestingTooDeep }
            if position < bytes.count, bytes[position] == UInt8(ascii: "{") {
                position += 1
                guard structures < 32 else { throw .nestingTooDeep }
                let key = try parseOne(bytes, &position, arrays: arrays + 1, structures: structures + 1)
                guard key.isBasic else { throw .badSignature }
                let value = try parseOne(bytes, &position, arrays: arrays + 1, structures: structures + 1)
                guard position < bytes.count, bytes[position] == UInt8(ascii: "}") else { throw .badSignature }
                position += 1
                return .array(.dictEntry(key, value))
            }
            return .array(try parseOne(bytes, &position, arrays: arrays + 1, structures: structures))
        case UInt8(ascii: "("):
            guard structures < 32 else { throw .nestingTooDeep }
            var fields: [DBusType] = []
            while position < bytes.count, bytes[position] != UInt8(ascii: ")") {
                fields.append(try parseOne(bytes, &position, arrays: arrays, structures: structures + 1))
            }
            guard position < bytes.count, !fields.isEmpty else { throw .badSignature }
            position += 1
            return .structure(fields)
        default:
            throw .badSignature
        }
    }
}
