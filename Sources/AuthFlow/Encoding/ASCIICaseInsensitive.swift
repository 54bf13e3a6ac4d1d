/// Case-insensitive comparison as HTTP defines it for tokens, header names
/// and authentication schemes (RFC 9110 §5.1, §11.1): ASCII letters match
/// their other case, every other byte matches only itself.
///
/// Used in place of Foundation's `caseInsensitiveCompare`, which folds
/// Unicode case (so `"K"` would equal the Kelvin sign) and on Linux links all
/// of swift-corelibs-foundation (docs/performance.md, "Size").
extension StringProtocol {
    /// Whether the two texts are equal when ASCII letters are compared without their case.
    package func equalsIgnoringASCIICase(_ other: some StringProtocol) -> Bool {
        var left = utf8.makeIterator()
        var right = other.utf8.makeIterator()
        while true {
            switch (left.next(), right.next()) {
            case (nil, nil): return true
            case (let a?, let b?) where Self.lowercased(a) == Self.lowercased(b): continue
            default: return false
            }
        }
    }

    private static func lowercased(_ byte: UInt8) -> UInt8 {
        (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) ? byte | 0x20 : byte
    }
}
