#if AsyncHTTPClient && os(Linux) // the AsyncHTTPClient package trait, on Linux
import Glibc

/// An address block a `no_proxy` entry names in CIDR form (`10.0.0.0/8`,
/// `fd00::/8`), as curl (7.86 and later) and Go read them: an IP address
/// host inside it is reached directly.
struct ProxyAddressBlock: Equatable {
    /// The network address, 4 bytes (IPv4) or 16 (IPv6).
    let network: [UInt8]
    /// How many leading bits of an address must equal the network's.
    let prefixLength: Int

    /// The block `entry` names; nil when it is no CIDR block.
    init?(_ entry: String) {
        let parts = entry.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let address = Self.address(String(parts[0])), let length = Int(parts[1]),
            (0...(address.count * 8)).contains(length), parts[1].allSatisfy(\.isASCII)
        else { return nil }
        // The network's own bits only: 10.9.9.9/8 is the block 10.0.0.0/8.
        network = address.enumerated().map { index, byte in Self.masked(byte, bits: length - index * 8) }
        prefixLength = length
    }

    /// `byte` with only its first `bits` bits (all of them from 8 on, none below 1).
    private static func masked(_ byte: UInt8, bits: Int) -> UInt8 {
        bits >= 8 ? byte : bits <= 0 ? 0 : byte & UInt8(truncatingIfNeeded: 0xFF << (8 - bits))
    }

    /// Whether `host` is an IP address of this block (a name never is).
    func contains(_ host: String) -> Bool {
        guard let address = Self.address(host), address.count == network.count else { return false }
        return zip(network, address).enumerated().allSatisfy { index, pair in
            pair.0 == Self.masked(pair.1, bits: prefixLength - index * 8)
        }
    }

    /// The bytes of an IPv4 or IPv6 address in its textual form; nil for anything else.
    static func address(_ text: String) -> [UInt8]? {
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 {
            return withUnsafeBytes(of: &v4) { Array($0) }
        }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, text, &v6) == 1 {
            return withUnsafeBytes(of: &v6) { Array($0) }
        }
        return nil
    }
}
#endif
