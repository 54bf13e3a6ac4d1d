/// A strict, single-pass RFC 8259 JSON parser over UTF-8 bytes, producing ``JSONMemberValue``.
///
/// It accepts exactly the JSON text grammar of RFC 8259 and refuses, with a
/// ``JSONParser/Failure``:
///
/// - duplicate member names in any object, compared after unescaping (two
///   parsers could otherwise read different values from one document). Names
///   are compared as Swift `String`s, so canonically equivalent spellings
///   (`"é"` and `"e\u0301"`) count as the same name: a `[String: JSONMemberValue]`
///   could not hold both;
/// - invalid UTF-8 (overlong forms, encoded surrogates, code points above
///   U+10FFFF, truncated sequences), a byte-order mark, and control characters
///   (U+0000 to U+001F) that are not escaped;
/// - `\u` escapes that leave a lone UTF-16 surrogate, and unknown escapes;
/// - numbers outside the RFC 8259 grammar (leading zeros, `+1`, `.5`, `1.`,
///   `NaN`, `Infinity`) or too large for a finite `Double`;
/// - nesting deeper than ``maximumDepth`` arrays and objects;
/// - anything but whitespace after the top-level value.
///
/// Numbers become `Double`, correctly rounded. The parser reads the input
/// once; duplicate names are found while each object is built.
struct JSONParser {
    /// The deepest nesting of arrays and objects accepted.
    static let maximumDepth = 64

    /// Why a text was refused, and the byte offset where that was noticed.
    struct Failure: Error, Equatable, CustomStringConvertible {
        /// What was wrong.
        enum Kind: Equatable, Sendable {
            /// The input ended inside a value.
            case unexpectedEnd
            /// A byte that cannot start or continue the value here.
            case unexpectedByte(UInt8)
            /// Something other than whitespace after the top-level value.
            case trailingData
            /// An object has the same member name twice.
            case duplicateName(String)
            /// A string holds bytes that are not well-formed UTF-8.
            case invalidUTF8
            /// A string holds an unescaped control character (U+0000 to U+001F).
            case controlCharacter
            /// A backslash escape RFC 8259 does not define, or a malformed `\u` escape.
            case invalidEscape
            /// A `\u` escape that is half of a surrogate pair without the other half.
            case loneSurrogate
            /// A number outside the RFC 8259 grammar or beyond the range of `Double`.
            case invalidNumber
            /// Arrays and objects nested deeper than ``JSONParser/maximumDepth``.
            case tooDeep
        }

        /// What was wrong.
        let kind: Kind
        /// Byte offset into the input.
        let offset: Int

        var description: String {
            switch kind {
            case .unexpectedEnd: "unexpected end of JSON text"
            case .unexpectedByte(let byte): "unexpected byte 0x\(String(byte, radix: 16)) at offset \(offset)"
            case .trailingData: "data after the JSON value at offset \(offset)"
            case .duplicateName(let name): "duplicate member name \"\(name)\" (object ending at offset \(offset))"
            case .invalidUTF8: "invalid UTF-8 at offset \(offset)"
            case .controlCharacter: "unescaped control character at offset \(offset)"
            case .invalidEscape: "invalid escape at offset \(offset)"
            case .loneSurrogate: "lone UTF-16 surrogate at offset \(offset)"
            case .invalidNumber: "invalid number at offset \(offset)"
            case .tooDeep: "nesting deeper than \(JSONParser.maximumDepth) at offset \(offset)"
            }
        }
    }

    /// Parses one JSON text (any value at the top level).
    // Input as a view, parsed where it lies (ID-token validation, docs/performance.md; fuzzed: Fuzz/json.swift).
    static func parse(_ bytes: UnsafeBufferPointer<UInt8>) throws(Failure) -> JSONMemberValue {
        var parser = JSONParser(bytes)
        return try parser.parseDocument()
    }

    /// Parses one JSON text (any value at the top level).
    static func parse(_ bytes: [UInt8]) throws(Failure) -> JSONMemberValue {
        // The array viewed for parse(_:) without a copy (fuzzed: Fuzz/json.swift).
        let result: Result<JSONMemberValue, Failure> = bytes.withUnsafeBufferPointer { buffer in
            Result { () throws(Failure) -> JSONMemberValue in try parse(buffer) }
        }
        return try result.get()
    }

    /// Parses a JSON text that must be an object; nil for anything else,
    /// including every text ``parse(_:)-swift.type.method`` refuses.
    // A view, as parse(_:) takes (fuzzed: Fuzz/json.swift, Fuzz/token-reader.swift).
    static func object(_ bytes: UnsafeBufferPointer<UInt8>) -> [String: JSONMemberValue]? {
        guard case .object(let object)? = try? parse(bytes) else { return nil }
        return object
    }

    // MARK: State

    // The input, read in place; every read is checked against its count (fuzzed: Fuzz/json.swift, Fuzz/token-reader.swift).
    let bytes: UnsafeBufferPointer<UInt8>
    var index = 0
    var depth = 0
    /// Members of the objects being built, innermost last; each object
    /// remembers where its members start. Reused, so building an object
    /// costs one allocation (its dictionary) once the stack has grown.
    private var members: [(name: String, value: JSONMemberValue)] = []
    /// Elements of the arrays being built, innermost last.
    private var elements: [JSONMemberValue] = []
    /// The unescaped bytes of a string that contains escapes.
    var scratch: [UInt8] = []

    // Takes the view the parse and scan entries hold (fuzzed: Fuzz/json.swift, Fuzz/token-reader.swift).
    init(_ bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    private mutating func parseDocument() throws(Failure) -> JSONMemberValue {
        skipWhitespace()
        let value = try parseValue()
        skipWhitespace()
        guard index == bytes.count else { throw Failure(kind: .trailingData, offset: index) }
        return value
    }

    // MARK: Values

    mutating func parseValue() throws(Failure) -> JSONMemberValue {
        guard index < bytes.count else { throw Failure(kind: .unexpectedEnd, offset: index) }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try parseObject()
        case UInt8(ascii: "["): return try parseArray()
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"):
            try expectLiteral("true")
            return .bool(true)
        case UInt8(ascii: "f"):
            try expectLiteral("false")
            return .bool(false)
        case UInt8(ascii: "n"):
            try expectLiteral("null")
            return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try parseNumber())
        case let byte: throw Failure(kind: .unexpectedByte(byte), offset: index)
        }
    }

    mutating func parseObject() throws(Failure) -> JSONMemberValue {
        try enterContainer()
        index += 1 // {
        skipWhitespace()
        if try peek() == UInt8(ascii: "}") {
            index += 1
            depth -= 1
            return .object([:])
        }
        // One allocation for the stack instead of one per doubling.
        if members.capacity == 0 { members.reserveCapacity(16) }
        let base = members.count
        repeat {
            guard try peek() == UInt8(ascii: "\"") else { throw unexpected() }
            let name = try parseString()
            try expectNameSeparator()
            let value = try parseValue()
            members.append((name, value))
        } while try nextMember(closing: UInt8(ascii: "}"))
        var object = [String: JSONMemberValue](minimumCapacity: members.count - base)
        for member in members[base...] {
            if object.updateValue(member.value, forKey: member.name) != nil {
                throw Failure(kind: .duplicateName(member.name), offset: index - 1)
            }
        }
        members.removeSubrange(base...)
        depth -= 1
        return .object(object)
    }

    private mutating func parseArray() throws(Failure) -> JSONMemberValue {
        let base = elements.count
        try readArray { parser throws(Failure) in
            if parser.elements.capacity == 0 { parser.elements.reserveCapacity(16) }
            parser.elements.append(try parser.parseValue())
        }
        let array = Array(elements[base...])
        elements.removeSubrange(base...)
        return .array(array)
    }

    /// Reads the array at `index` (its `[`): brackets, commas and depth, with
    /// `element` called at each element, which it must consume. Building
    /// (``parseValue()``) and checking (``skipValue()``) share it.
    mutating func readArray(_ element: (inout JSONParser) throws(Failure) -> Void) throws(Failure) {
        try enterContainer()
        index += 1 // [
        skipWhitespace()
        if try peek() == UInt8(ascii: "]") {
            index += 1
            depth -= 1
            return
        }
        repeat {
            try element(&self)
        } while try nextMember(closing: UInt8(ascii: "]"))
        depth -= 1
    }

    /// After a member name: the `:` and the whitespace around it.
    @inline(__always) mutating func expectNameSeparator() throws(Failure) {
        skipWhitespace()
        guard try peek() == UInt8(ascii: ":") else { throw unexpected() }
        index += 1
        skipWhitespace()
    }

    /// After a member or an element: consumes a `,` (true: another follows,
    /// whitespace skipped) or the container's `closing` byte (false); anything
    /// else is an error at that byte.
    @inline(__always) mutating func nextMember(closing: UInt8) throws(Failure) -> Bool {
        skipWhitespace()
        let byte = try peek()
        if byte == UInt8(ascii: ",") {
            index += 1
            skipWhitespace()
            return true
        }
        guard byte == closing else { throw unexpected() }
        index += 1
        return false
    }

    mutating func enterContainer() throws(Failure) {
        depth += 1
        if depth > JSONParser.maximumDepth { throw Failure(kind: .tooDeep, offset: index) }
    }

    mutating func expectLiteral(_ literal: StaticString) throws(Failure) {
        let count = literal.utf8CodeUnitCount
        // A StaticString's UTF-8 is reached through its pointer, bounded by its count (fuzzed: Fuzz/json.swift).
        let expected = UnsafeBufferPointer(start: literal.utf8Start, count: count)
        for offset in 0..<count {
            guard index + offset < bytes.count else { throw Failure(kind: .unexpectedEnd, offset: bytes.count) }
            guard bytes[index + offset] == expected[offset] else {
                throw Failure(kind: .unexpectedByte(bytes[index + offset]), offset: index + offset)
            }
        }
        index += count
    }

    // MARK: Strings

    /// Parses the string starting at the opening quote at `index`.
    mutating func parseString() throws(Failure) -> String {
        index += 1 // "
        let start = index
        // Fast path: no escapes. Validate UTF-8 as we go and make the String
        // straight from the input bytes.
        while true {
            guard index < bytes.count else { throw Failure(kind: .unexpectedEnd, offset: index) }
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                // A string without escapes is made from a contiguous view of the input, no copy first (fuzzed: Fuzz/json.swift).
                let content = UnsafeBufferPointer(rebasing: bytes[start..<index])
                index += 1
                return String(decoding: content, as: UTF8.self)
            } else if byte == UInt8(ascii: "\\") {
                break
            } else if byte < 0x20 {
                throw Failure(kind: .controlCharacter, offset: index)
            } else if byte < 0x80 {
                index += 1
            } else {
                try skipMultibyteScalar()
            }
        }
        // Slow path: copy what was read so far, then unescape into `scratch`.
        scratch.removeAll(keepingCapacity: true)
        // The run read so far, appended from a contiguous view in one copy (fuzzed: Fuzz/json.swift).
        scratch.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<index]))
        while true {
            guard index < bytes.count else { throw Failure(kind: .unexpectedEnd, offset: index) }
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                index += 1
                return String(decoding: scratch, as: UTF8.self)
            } else if byte == UInt8(ascii: "\\") {
                try parseEscape()
            } else if byte < 0x20 {
                throw Failure(kind: .controlCharacter, offset: index)
            } else if byte < 0x80 {
                scratch.append(byte)
                index += 1
            } else {
                let scalarStart = index
                try skipMultibyteScalar()
                // The scalar's bytes, appended from a contiguous view in one copy (fuzzed: Fuzz/json.swift).
                scratch.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[scalarStart..<index]))
            }
        }
    }

    /// Appends the character of the escape at `index` (a backslash) to `scratch`.
    mutating func parseEscape() throws(Failure) {
        let escapeStart = index
        guard index + 1 < bytes.count else { throw Failure(kind: .unexpectedEnd, offset: bytes.count) }
        let byte = bytes[index + 1]
        index += 2
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): scratch.append(byte)
        case UInt8(ascii: "b"): scratch.append(0x08)
        case UInt8(ascii: "f"): scratch.append(0x0C)
        case UInt8(ascii: "n"): scratch.append(0x0A)
        case UInt8(ascii: "r"): scratch.append(0x0D)
        case UInt8(ascii: "t"): scratch.append(0x09)
        case UInt8(ascii: "u"):
            let unit = try hexQuad()
            let scalar: UInt32
            switch unit {
            case 0xD800...0xDBFF:
                // A high surrogate must be followed by `\u` and a low surrogate.
                guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") else {
                    throw Failure(kind: .loneSurrogate, offset: escapeStart)
                }
                index += 2
                let low = try hexQuad()
                guard (0xDC00...0xDFFF).contains(low) else { throw Failure(kind: .loneSurrogate, offset: escapeStart) }
                scalar = 0x10000 + ((UInt32(unit) - 0xD800) << 10) + (UInt32(low) - 0xDC00)
            case 0xDC00...0xDFFF:
                throw Failure(kind: .loneSurrogate, offset: escapeStart)
            default:
                scalar = UInt32(unit)
            }
            appendUTF8(scalar)
        default:
            throw Failure(kind: .invalidEscape, offset: escapeStart)
        }
    }

    /// Reads four hexadecimal digits at `index`.
    private mutating func hexQuad() throws(Failure) -> UInt16 {
        guard index + 4 <= bytes.count else { throw Failure(kind: .unexpectedEnd, offset: bytes.count) }
        var value: UInt16 = 0
        for offset in 0..<4 {
            let byte = bytes[index + offset]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw Failure(kind: .invalidEscape, offset: index + offset)
            }
            value = value << 4 | UInt16(digit)
        }
        index += 4
        return value
    }

    private mutating func appendUTF8(_ scalar: UInt32) {
        switch scalar {
        case 0..<0x80:
            scratch.append(UInt8(scalar))
        case 0x80..<0x800:
            scratch.append(UInt8(0xC0 | scalar >> 6))
            scratch.append(UInt8(0x80 | scalar & 0x3F))
        case 0x800..<0x10000:
            scratch.append(UInt8(0xE0 | scalar >> 12))
            scratch.append(UInt8(0x80 | scalar >> 6 & 0x3F))
            scratch.append(UInt8(0x80 | scalar & 0x3F))
        default:
            scratch.append(UInt8(0xF0 | scalar >> 18))
            scratch.append(UInt8(0x80 | scalar >> 12 & 0x3F))
            scratch.append(UInt8(0x80 | scalar >> 6 & 0x3F))
            scratch.append(UInt8(0x80 | scalar & 0x3F))
        }
    }

    /// Steps over one well-formed multi-byte UTF-8 sequence at `index`
    /// (Unicode Table 3-7: no overlong forms, no surrogates, nothing above U+10FFFF).
    mutating func skipMultibyteScalar() throws(Failure) {
        let lead = bytes[index]
        let length: Int
        var low: UInt8 = 0x80
        var high: UInt8 = 0xBF // range of the second byte
        switch lead {
        case 0xC2...0xDF: length = 2
        case 0xE0:
            length = 3
            low = 0xA0
        case 0xE1...0xEC, 0xEE...0xEF: length = 3
        case 0xED:
            length = 3
            high = 0x9F
        case 0xF0:
            length = 4
            low = 0x90
        case 0xF1...0xF3: length = 4
        case 0xF4:
            length = 4
            high = 0x8F
        default: throw Failure(kind: .invalidUTF8, offset: index)
        }
        guard index + length <= bytes.count else { throw Failure(kind: .invalidUTF8, offset: index) }
        guard (low...high).contains(bytes[index + 1]) else { throw Failure(kind: .invalidUTF8, offset: index) }
        for offset in 2..<length where bytes[index + offset] & 0xC0 != 0x80 {
            throw Failure(kind: .invalidUTF8, offset: index)
        }
        index += length
    }

    // MARK: Numbers

    /// Powers of ten that are exact in a `Double`.
    private static let exactPowersOfTen: [Double] = (0...22).map { exponent in
        var value = 1.0
        for _ in 0..<exponent { value *= 10 }
        return value
    }

    /// Parses `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`.
    mutating func parseNumber() throws(Failure) -> Double {
        let start = index
        let negative = bytes[index] == UInt8(ascii: "-")
        if negative { index += 1 }
        // Significant digits (integer and fraction) accumulated while they fit
        // exactly; `digits` counts all of them, `fractionDigits` those after the point.
        var significand: UInt64 = 0
        var digits = 0
        var fractionDigits = 0

        guard index < bytes.count else { throw Failure(kind: .unexpectedEnd, offset: index) }
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
            if index < bytes.count, isDigit(bytes[index]) { throw Failure(kind: .invalidNumber, offset: start) }
        } else if isDigit(bytes[index]) {
            while index < bytes.count, isDigit(bytes[index]) {
                if digits < 19 { significand = significand &* 10 &+ UInt64(bytes[index] &- UInt8(ascii: "0")) }
                digits += 1
                index += 1
            }
        } else {
            throw Failure(kind: .invalidNumber, offset: start)
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            guard index < bytes.count, isDigit(bytes[index]) else { throw Failure(kind: .invalidNumber, offset: start) }
            while index < bytes.count, isDigit(bytes[index]) {
                if digits < 19 {
                    significand = significand &* 10 &+ UInt64(bytes[index] &- UInt8(ascii: "0"))
                    fractionDigits += 1
                }
                // Leading zeros of a fraction ("0.001") do not count as significant.
                if significand != 0 { digits += 1 }
                index += 1
            }
        }
        var exponent = 0
        var exponentOverflow = false
        if index < bytes.count, bytes[index] | 0x20 == UInt8(ascii: "e") {
            index += 1
            var negativeExponent = false
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
                negativeExponent = bytes[index] == UInt8(ascii: "-")
                index += 1
            }
            guard index < bytes.count, isDigit(bytes[index]) else { throw Failure(kind: .invalidNumber, offset: start) }
            while index < bytes.count, isDigit(bytes[index]) {
                if exponent < 100_000 { exponent = exponent * 10 + Int(bytes[index] - UInt8(ascii: "0")) } else { exponentOverflow = true }
                index += 1
            }
            if negativeExponent { exponent = -exponent }
        }

        // Exact cases: a significand below 2^53 times or divided by an exact
        // power of ten is one correctly rounded IEEE operation.
        if !exponentOverflow, digits <= 15 {
            let value = Double(significand)
            let scale = exponent - fractionDigits
            var result: Double?
            if scale == 0 {
                result = value
            } else if scale > 0, scale <= 22 {
                result = value * JSONParser.exactPowersOfTen[scale]
            } else if scale < 0, scale >= -22 {
                result = value / JSONParser.exactPowersOfTen[-scale]
            }
            if let result { return negative ? -result : result }
        }
        // Everything else: the C library's correctly rounded conversion.
        // The number's text from a contiguous view of the input, for the C library's conversion (fuzzed: Fuzz/json.swift).
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
        guard let value = Double(text), value.isFinite else { throw Failure(kind: .invalidNumber, offset: start) }
        return value
    }

    // MARK: Helpers

    @inline(__always) private func isDigit(_ byte: UInt8) -> Bool {
        byte &- UInt8(ascii: "0") < 10
    }

    /// The byte at `index`; the end of input is an error.
    @inline(__always) func peek() throws(Failure) -> UInt8 {
        guard index < bytes.count else { throw Failure(kind: .unexpectedEnd, offset: index) }
        return bytes[index]
    }

    func unexpected() -> Failure {
        index < bytes.count ? Failure(kind: .unexpectedByte(bytes[index]), offset: index) : Failure(kind: .unexpectedEnd, offset: index)
    }

    @inline(__always) mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x0A, 0x0D, 0x09: index += 1
            default: return
            }
        }
    }
}
