#if CLI // the CLI package trait
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Which hosts the CLI treats as this machine: an IP *literal* in
/// 127.0.0.0/8 or `::1`, never a host name. A name is resolved by DNS,
/// which the network may answer: `127.attacker.example` or `localhost.evil`
/// can point anywhere, and a token sent to it over plain http (a credential
/// helper) or a password sent without TLS (the PostgreSQL store) would
/// cross the network in clear.
enum LoopbackAddress {
    /// Whether `host` (brackets around an IPv6 literal allowed) is
    /// `127.a.b.c` in dotted-decimal (four parts, 0 to 255, no leading
    /// zeros) or an IPv6 literal equal to `::1`.
    static func isLiteral(_ host: String) -> Bool {
        var bare = Substring(host)
        if bare.hasPrefix("[") && bare.hasSuffix("]") { bare = bare.dropFirst().dropLast() }
        if bare.contains(":") { return isIPv6Loopback(String(bare)) }
        let parts = bare.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4, parts[0] == "127" else { return false }
        return parts.allSatisfy { part in
            guard (1...3).contains(part.utf8.count), part.utf8.allSatisfy({ (0x30...0x39).contains($0) }),
                part == "0" || part.first != "0", let value = Int(part)
            else { return false }
            return value <= 255
        }
    }

    /// `::1` in any of its spellings (`0:0:0:0:0:0:0:1`, `::0:1`), not a
    /// zone-scoped or IPv4-mapped address.
    private static func isIPv6Loopback(_ text: String) -> Bool {
        guard !text.contains("%"), !text.contains(".") else { return false }
        var address = in6_addr()
        guard inet_pton(AF_INET6, text, &address) == 1 else { return false }
        return withUnsafeBytes(of: &address) { bytes in bytes.dropLast().allSatisfy { $0 == 0 } && bytes.last == 1 }
    }
}
#endif
