/// Marshals values in little-endian order. Offsets count from the start of
/// what is written, which starts on an 8-byte boundary of the message (the
/// header and the body both do), so alignment holds in the message too.
struct DBusWriter {
    private(set) var bytes: [UInt8] = []

    mutating func pad(to alignment: Int) {
        while bytes.count % alignment != 0 { bytes.append(0) }
    }

    mutating func write(_ values: [DBusValue]) {
        for value in values { write(value) }
    }

    mutating func write(_ value: DBusValue) {
        pad(to: value.type.alignment)
        switch value {
        case .byte(let byte): bytes.append(byte)
        case .boolean(let flag): appendInteger(UInt32(flag ? 1 : 0))
        case .int16(let number): appendInteger(UInt16(bitPattern: number))
        case .uint16(let number): appendInteger(number)
        case .int32(let number): appendInteger(UInt32(bitPattern: number))
        case .uint32(let number): appendInteger(number)
        case .int64(let number): appendInteger(UInt64(bitPattern: number))
        case .uint64(let number): appendInteger(number)
        case .double(let number): appendInteger(number.bitPattern)
        case .string(let text), .objectPath(let text):
            let utf8 = Array(text.utf8)
            appendInteger(UInt32(utf8.count))
            bytes += utf8
            bytes.append(0)
        case .signature(let text):
            writeSignature(text)
        case .variant(let inner):
            writeSignature(inner.type.signature)
            write(inner)
        case .array(let element, let elements):
            let lengthOffset = bytes.count
            appendInteger(UInt32(0))
            // The padding to the first element is not counted in the length.
            pad(to: element.alignment)
            let start = bytes.count
            for item in elements { write(item) }
            let length = UInt32(bytes.count - start)
            for index in 0..<4 { bytes[lengthOffset + index] = UInt8(truncatingIfNeeded: length >> (8 * UInt32(index))) }
        case .structure(let fields):
            for field in fields { write(field) }
        case .dictEntry(let key, let value):
            write(key)
            write(value)
        }
    }

    private mutating func writeSignature(_ text: String) {
        let utf8 = Array(text.utf8)
        bytes.append(UInt8(truncatingIfNeeded: utf8.count))
        bytes += utf8
        bytes.append(0)
    }

    private mutating func appendInteger<T: FixedWidthInteger>(_ value: T) {
        withUnsafeBytes(of: value.littleEndian) { bytes += $0 }
    }
}
