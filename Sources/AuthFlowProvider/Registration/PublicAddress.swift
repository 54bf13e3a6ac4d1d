#if EmbeddedProvider // the EmbeddedProvider package trait
import AuthFlow
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Whether a host the provider is asked to fetch from (a client ID metadata
/// document) is on the public internet: not loopback, private (RFC 1918,
/// RFC 4193), shared (RFC 6598), link-local, multicast, reserved or
/// unspecified. A name counts as public only when every address it resolves
/// to is; one that does not resolve is not.
package enum PublicAddress {
    /// Resolves `host` (on a thread of its own: the lookup blocks) and checks every address.
    static func isPublic(host: String) async -> Bool {
        let bare = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        return await DetachedThread.run { addresses(of: bare).map { !$0.isEmpty && $0.allSatisfy(isPublic) } ?? false }
    }

    /// The addresses `host` resolves to, as bytes (4 for IPv4, 16 for IPv6); nil when it does not resolve.
    static func addresses(of host: String) -> [[UInt8]]? {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        #if canImport(Glibc)
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        #else
        hints.ai_socktype = SOCK_STREAM
        #endif
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, nil, &hints, &list) == 0 else { return nil }
        defer { freeaddrinfo(list) }
        var found: [[UInt8]] = []
        var next = list
        // getaddrinfo(3) hands back a linked list of C structures (a libc boundary); each address is copied out as bytes.
        while let entry = next?.pointee {
            if entry.ai_family == AF_INET, let address = entry.ai_addr {
                var ipv4 = address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee.sin_addr }
                found.append(withUnsafeBytes(of: &ipv4) { Array($0) })
            } else if entry.ai_family == AF_INET6, let address = entry.ai_addr {
                var ipv6 = address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { $0.pointee.sin6_addr }
                found.append(withUnsafeBytes(of: &ipv6) { Array($0) })
            }
            next = entry.ai_next
        }
        return found
    }

    /// Whether one address (4 or 16 bytes) is public.
    package static func isPublic(_ bytes: [UInt8]) -> Bool {
        if bytes.count == 4 { return isPublicIPv4(bytes) }
        guard bytes.count == 16 else { return false }
        // IPv4-mapped (::ffff:0:0/96) and NAT64 (64:ff9b::/96): the IPv4 address decides.
        if bytes[0..<10].allSatisfy({ $0 == 0 }), bytes[10] == 0xFF, bytes[11] == 0xFF { return isPublicIPv4(Array(bytes[12...])) }
        if bytes[0..<12] == [0x00, 0x64, 0xFF, 0x9B, 0, 0, 0, 0, 0, 0, 0, 0] { return isPublicIPv4(Array(bytes[12...])) }
        if bytes[0..<15].allSatisfy({ $0 == 0 }) { return false } // :: and ::1
        if bytes[0] & 0xFE == 0xFC { return false } // fc00::/7, unique local
        if bytes[0] == 0xFE, bytes[1] & 0xC0 == 0x80 { return false } // fe80::/10, link-local
        if bytes[0] == 0xFF { return false } // multicast
        if bytes[0] == 0x20, bytes[1] == 0x01, bytes[2] == 0x0D, bytes[3] == 0xB8 { return false } // 2001:db8::/32, documentation
        return true
    }

    private static func isPublicIPv4(_ bytes: [UInt8]) -> Bool {
        let (a, b) = (bytes[0], bytes[1])
        switch a {
        case 0, 10, 127: return false
        case 100 where b & 0xC0 == 64: return false // 100.64.0.0/10
        case 169 where b == 254: return false
        case 172 where b & 0xF0 == 16: return false
        case 192 where b == 168 || (b == 0 && bytes[2] == 0) || (b == 0 && bytes[2] == 2): return false
        case 198 where b & 0xFE == 18 || (b == 51 && bytes[2] == 100): return false
        case 203 where b == 0 && bytes[2] == 113: return false
        case 224...255: return false
        default: return true
        }
    }
}
#endif
