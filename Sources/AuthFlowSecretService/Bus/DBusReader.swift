/// Reads marshalled values from bytes received from the bus, checking every
/// length, boundary and padding byte against the bytes actually there.
/// Positions count from the start of the message, so `bytes` must be the
/// whole message (or start on an 8-byte boundary of it).
struct DBusReader {
    let bytes: [UInt8]
    let bigEndian: Bool
    private(set) var position: Int
    /// Where reading must stop (the end of the body or of an array).
    var end: Int

    init(_ bytes: [UInt8], bigEndian: Bool, from position: Int = 0, end: Int? = nil) {
        self.bytes = bytes
        self.bigEndian = bigEndian
        self.position = position
        self.end = end ?? bytes.count
    }

    var atEnd: Bool { position >= end }

    mutating func align(_ alignment: Int) throws(DBusWireError) {
        let target = (position + alignment - 1) / alignment * alignment
        guard target <= end else { throw .truncated }
        while position < target {
            guard bytes[position] == 0 else { throw .badPadding }
            position += 1
        }
    }

    mutating func read(_ types: [DBusType]) throws(DBusWireError) -> [DBusValue] {
        var values: [DBusValue] = []
        for type in types { values.append(try read(type, depth: 0)) }
        return values
    }

    mutating func read(_ type: DBusType, depth: Int) throws(DBusWireError) -> DBusValue {
        guard depth <= DBusType.maximumDepth else { throw .nestingTooDeep }
        try align(type.alignment)
        switch type {
        case .byte: return .byte(try byte())
        case .boolean:
            let value: UInt32 = try integer()
            guard value <= 1 else { throw .badBoolean }
            return .boolean(value == 1)
        case .int16: return .int16(Int16(bitPattern: try integer()))
        case .uint16: return .uint16(try integer())
        case .int32: return .int32(Int32(bitPattern: try integer()))
        case .uint32: return .uint32(try integer())
        case .int64: return .int64(Int64(bitPattern: try integer()))
        case .uint64: return .uint64(try integer())
        case .double: return .double(Double(bitPattern: try integer()))
        case .string: return .string(try string(length: Int(try integer() as UInt32)))
        case .objectPath:
            let path = try string(length: Int(try integer() as UInt32))
            guard Self.isObjectPath(path) else { throw .badString }
            return .objectPath(path)
        case .signature: return .signature(try signatureText())
        case .variant:
            let inner = try DBusType.parseSingle(signature: try signatureText())
            return .variant(try read(inner, depth: depth + 1))
        case .array(let element):
            let length = Int(try integer() as UInt32)
            // The D-Bus limit is 64 MiB; the message bound is far smaller anyway.
            guard length <= 1 << 26 else { throw .badArrayLength }
            try align(element.alignment)
            let stop = position + length
            guard stop <= end else { throw .truncated }
            let outer = end
            end = stop
            defer { end = outer }
            var elements: [DBusValue] = []
            while position < stop {
                elements.append(try read(element, depth: depth + 1))
            }
            guard position == stop else { throw .badArrayLength }
            return .array(element, elements)
        case .structure(let fields):
            var values: [DBusValue] = []
            for field in fields { values.append(try read(field, depth: depth + 1)) }
            return .structure(values)
        case .dictEntry(let key, let value):
            return .dictEntry(try read(key, depth: depth + 1), try read(value, depth: depth + 1))
        }
    }

    private mutating func take(_ count: Int) throws(DBusWireError) -> ArraySlice<UInt8> {
        guard count >= 0, count <= end - position else { throw .truncated }
        defer { position += count }
        return bytes[position..<position + count]
    }

    private mutating func byte() throws(DBusWireError) -> UInt8 {
        let slice = try take(1)
        return slice[slice.startIndex]
    }

    private mutating func integer<T: FixedWidthInteger>() throws(DBusWireError) -> T {
        let slice = try take(MemoryLayout<T>.size)
        var value: T = 0
        let ordered = bigEndian ? Array(slice) : Array(slice.reversed())
        for byte in ordered { value = value << 8 | T(byte) }
        return value
    }

    /// `length` bytes of UTF-8 without a NUL, then the NUL.
    private mutating func string(length: Int) throws(DBusWireError) -> String {
        let body = try take(length)
        guard try take(1).first == 0, !body.contains(0) else { throw .badString }
        // Invalid UTF-8 decodes with replacement characters, which encode to other bytes.
        let text = String(decoding: body, as: UTF8.self)
        guard text.utf8.elementsEqual(body) else { throw .badString }
        return text
    }

    private mutating func signatureText() throws(DBusWireError) -> String {
        let text = try string(length: Int(try byte()))
        guard text.utf8.count <= DBusType.maximumSignatureLength else { throw .badSignature }
        return text
    }

    /// `/`, or `/` followed by elements of `[A-Za-z0-9_]` separated by single slashes.
    static func isObjectPath(_ path: String) -> Bool {
        if path == "/" { return true }
        let bytes = Array(path.utf8)
        guard bytes.first == UInt8(ascii: "/"), bytes.last != UInt8(ascii: "/") else { return false }
        var previousSlash = false
        for byte in bytes {
            let slash = byte == UInt8(ascii: "/")
            if slash, previousSlash { return false }
            guard slash || byte == UInt8(ascii: "_") || (byte >= 0x30 && byte <= 0x39) || ((byte | 0x20) >= 0x61 && (byte | 0x20) <= 0x7A)
            else { return false }
            previousSlash = slash
        }
        return true
    }
}
