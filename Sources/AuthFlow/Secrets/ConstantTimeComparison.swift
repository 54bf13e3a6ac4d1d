/// Compares two strings in time that depends only on their lengths.
package func constantTimeEquals(_ lhs: String, _ rhs: String) -> Bool {
    constantTimeEquals(lhs.utf8, rhs.utf8)
}

/// Byte-wise comparison whose time depends only on the lengths: every byte
/// of the longer sequence is read and compared, whatever the earlier ones.
func constantTimeEquals(_ a: some Sequence<UInt8>, _ b: some Sequence<UInt8>) -> Bool {
    var left = a.makeIterator()
    var right = b.makeIterator()
    var difference: UInt8 = 0
    var sameLength = true
    while true {
        let x = left.next()
        let y = right.next()
        if x == nil, y == nil { break }
        sameLength = sameLength && (x == nil) == (y == nil)
        difference |= (x ?? 0) ^ (y ?? 0)
    }
    return difference == 0 && sameLength
}
