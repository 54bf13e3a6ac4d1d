/// Why bytes from the bus are not a D-Bus message this client accepts. Each
/// case is what a parser test expects for one kind of bad input.
package enum DBusWireError: Error, Equatable, Sendable {
    /// The bytes end before the message (or a value in it) does.
    case truncated
    /// The message says it is larger than ``DBusMessage/maximumSize``.
    case tooLarge(Int)
    /// The first byte is neither `l` nor `B`.
    case badEndianness(UInt8)
    /// The protocol version is not 1.
    case badVersion(UInt8)
    /// The message type is not 1 to 4.
    case badMessageType(UInt8)
    /// Padding bytes are not zero.
    case badPadding
    /// A signature is malformed, too long, or not the one a value needs.
    case badSignature
    /// A string is not UTF-8, holds a NUL, or is not NUL-terminated.
    case badString
    /// A boolean is neither 0 nor 1.
    case badBoolean
    /// Containers nest deeper than the specification allows.
    case nestingTooDeep
    /// An array's length does not match its elements, or exceeds the message.
    case badArrayLength
    /// A header field has the wrong type, or a required one is missing.
    case badHeader
    /// Bytes follow the last value of the body.
    case trailingBytes
}
