/// A short ASCII name as one integer, first byte most significant, so that a
/// name is recognised with one integer `switch` (`"iss"` is `0x69_73_73`).
/// Nil when there are more than `maxCount` bytes (at most 8).
///
/// Callers pass bytes that cannot contain NUL (the content of a JSON string
/// without escapes, or a name to look up among constants whose first byte is
/// not zero), so a leading zero byte never makes two names equal.
@inline(__always)
func packedName(_ bytes: some Sequence<UInt8>, maxCount: Int) -> UInt64? {
    var packed: UInt64 = 0
    var count = 0
    for byte in bytes {
        count += 1
        guard count <= maxCount else { return nil }
        packed = packed << 8 | UInt64(byte)
    }
    return packed
}
