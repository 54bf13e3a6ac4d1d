/// The token68 syntax of an `Authorization` value or a challenge (RFC 9110
/// §11.2): `1*( ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" / "/" ) *"="`.
/// The one reading of it, for the challenges a client reads and the
/// credentials an API reads.
package enum Token68 {
    /// Whether `byte` is one of token68's characters before the `=`
    /// padding; one bit per ASCII byte in two 64-bit masks.
    @inlinable
    package static func isCharacter(_ byte: UInt8) -> Bool {
        let mask: UInt64 = byte < 64 ? 0x03FF_E800_0000_0000 : 0x47FF_FFFE_87FF_FFFE
        return byte < 128 && (mask >> UInt64(byte & 63)) & 1 == 1
    }

    /// Whether `text` is one whole token68: at least one character, then
    /// only `=` padding.
    package static func matches(_ text: Substring) -> Bool {
        let bytes = text.utf8
        var index = bytes.startIndex
        while index < bytes.endIndex, isCharacter(bytes[index]) { index = bytes.index(after: index) }
        guard index > bytes.startIndex else { return false }
        while index < bytes.endIndex, bytes[index] == UInt8(ascii: "=") { index = bytes.index(after: index) }
        return index == bytes.endIndex
    }
}
