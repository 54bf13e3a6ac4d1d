/// One D-Bus message (the D-Bus Specification, "Message Format"): the
/// header fields this client uses and the body's values.
struct DBusMessage: Equatable, Sendable {
    enum Kind: UInt8, Sendable {
        case methodCall = 1
        case methodReturn = 2
        case error = 3
        case signal = 4
    }

    /// Messages larger than this are refused before they are read (the
    /// specification allows 128 MiB; a Secret Service reply is a few kilobytes).
    static let maximumSize = 1 << 20
    /// Flag: the bus must not start a service to deliver the call.
    static let noAutoStart: UInt8 = 0x2
    /// The fixed part of the header: endianness, type, flags, version, body
    /// length, serial, and the header fields' array length.
    static let fixedHeaderSize = 16

    var kind: Kind
    var flags: UInt8 = 0
    var serial: UInt32
    var path: String?
    var interface: String?
    var member: String?
    var errorName: String?
    var replySerial: UInt32?
    var destination: String?
    var sender: String?
    var body: [DBusValue] = []

    /// The body's signature.
    var signature: String { body.map(\.type.signature).joined() }

    /// The message in little-endian order.
    func encoded() -> [UInt8] {
        var fields: [DBusValue] = []
        func field(_ code: UInt8, _ value: DBusValue?) {
            if let value { fields.append(.structure([.byte(code), .variant(value)])) }
        }
        field(1, path.map(DBusValue.objectPath))
        field(2, interface.map(DBusValue.string))
        field(3, member.map(DBusValue.string))
        field(4, errorName.map(DBusValue.string))
        field(5, replySerial.map(DBusValue.uint32))
        field(6, destination.map(DBusValue.string))
        field(7, sender.map(DBusValue.string))
        if !body.isEmpty { field(8, .signature(signature)) }
        var bodyWriter = DBusWriter()
        bodyWriter.write(body)
        var writer = DBusWriter()
        writer.write([
            .byte(UInt8(ascii: "l")), .byte(kind.rawValue), .byte(flags), .byte(1),
            .uint32(UInt32(bodyWriter.bytes.count)), .uint32(serial),
            .array(.structure([.byte, .variant]), fields),
        ])
        writer.pad(to: 8)
        return writer.bytes + bodyWriter.bytes
    }

    /// The whole message's length, from its first ``fixedHeaderSize`` bytes.
    ///
    /// - Throws: ``DBusWireError/tooLarge(_:)`` over ``maximumSize``, and the
    ///   errors of a bad endianness byte or too few bytes.
    static func frameLength(_ header: ArraySlice<UInt8>) throws(DBusWireError) -> Int {
        guard header.count >= fixedHeaderSize else { throw .truncated }
        let bytes = Array(header.prefix(fixedHeaderSize))
        let bigEndian: Bool
        switch bytes[0] {
        case UInt8(ascii: "l"): bigEndian = false
        case UInt8(ascii: "B"): bigEndian = true
        default: throw .badEndianness(bytes[0])
        }
        func uint32(at offset: Int) -> Int {
            let slice = bytes[offset..<offset + 4]
            return (bigEndian ? Array(slice) : Array(slice.reversed())).reduce(0) { $0 << 8 | Int($1) }
        }
        let fieldsLength = uint32(at: 12)
        let bodyLength = uint32(at: 4)
        let total = (fixedHeaderSize + fieldsLength + 7) / 8 * 8 + bodyLength
        guard total <= maximumSize else { throw .tooLarge(total) }
        return total
    }

    /// Parses one whole message; `bytes` must hold it exactly.
    static func decode(_ bytes: [UInt8]) throws(DBusWireError) -> DBusMessage {
        let total = try frameLength(bytes[...])
        guard bytes.count >= total else { throw .truncated }
        guard bytes.count == total else { throw .trailingBytes }
        let bigEndian = bytes[0] == UInt8(ascii: "B")
        guard let kind = Kind(rawValue: bytes[1]) else { throw .badMessageType(bytes[1]) }
        guard bytes[3] == 1 else { throw .badVersion(bytes[3]) }
        var reader = DBusReader(bytes, bigEndian: bigEndian, from: 4)
        guard case .uint32(let bodyLength) = try reader.read(.uint32, depth: 0),
            case .uint32(let serial) = try reader.read(.uint32, depth: 0),
            let fields = try reader.read(.array(.structure([.byte, .variant])), depth: 0).arrayElements
        else { throw .badHeader }
        try reader.align(8)
        guard serial != 0, reader.position + Int(bodyLength) == total else { throw .badHeader }
        var message = DBusMessage(kind: kind, flags: bytes[2], serial: serial)
        var signature = ""
        for field in fields {
            guard let parts = field.structureFields, parts.count == 2, case .byte(let code) = parts[0],
                let value = parts[1].variantValue
            else { throw .badHeader }
            switch (code, value) {
            case (1, .objectPath(let text)): message.path = text
            case (2, .string(let text)): message.interface = text
            case (3, .string(let text)): message.member = text
            case (4, .string(let text)): message.errorName = text
            case (5, .uint32(let number)): message.replySerial = number
            case (6, .string(let text)): message.destination = text
            case (7, .string(let text)): message.sender = text
            case (8, .signature(let text)): signature = text
            case (1...9, _): throw .badHeader
            default: break // Unknown fields are ignored, as the specification says.
            }
        }
        switch kind {
        case .methodCall: guard message.path != nil, message.member != nil else { throw .badHeader }
        case .methodReturn: guard message.replySerial != nil else { throw .badHeader }
        case .error: guard message.replySerial != nil, message.errorName != nil else { throw .badHeader }
        case .signal: guard message.path != nil, message.interface != nil, message.member != nil else { throw .badHeader }
        }
        message.body = try reader.read(try DBusType.parse(signature: signature))
        guard reader.atEnd else { throw .trailingBytes }
        return message
    }
}
