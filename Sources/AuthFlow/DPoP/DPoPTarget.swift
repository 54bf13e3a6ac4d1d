#if canImport(FoundationEssentials)
package import FoundationEssentials
#else
package import Foundation
#endif

/// The `htu` of a DPoP proof (RFC 9449 §4.2, §4.3): what the client writes,
/// and the normalised form a server compares.
package enum DPoPTarget {
    /// The `htu` for a request to the absolute URL `text`: scheme, host,
    /// port and path, without userinfo, query or fragment (RFC 9449 §4.2).
    /// Byte-level: proofs are built on every request.
    static func htu(of text: String) -> String {
        let bytes = Array(text.utf8)
        // In an absolute URL the first "?" or "#" starts the query or fragment.
        let end = bytes.firstIndex { $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") } ?? bytes.count
        guard let schemeEnd = find(Array("://".utf8), in: bytes[..<end]) else { return String(decoding: bytes[..<end], as: UTF8.self) }
        let authorityStart = schemeEnd + 3
        let authorityEnd = bytes[authorityStart..<end].firstIndex(of: UInt8(ascii: "/")) ?? end
        // Userinfo ends at the authority's last "@" (RFC 3986 §3.2.1): never part of htu.
        guard let at = bytes[authorityStart..<authorityEnd].lastIndex(of: UInt8(ascii: "@")) else {
            return String(decoding: bytes[..<end], as: UTF8.self)
        }
        return String(decoding: bytes[..<authorityStart] + bytes[(at + 1)..<end], as: UTF8.self)
    }

    /// The form two `htu` values are compared in (RFC 9449 §4.3 item 9,
    /// RFC 3986 §6.2.2 and §6.2.3): scheme and host lowercased, the default
    /// port dropped, percent-encoding normalised, dot segments removed, an
    /// empty path as `/`; query and fragment ignored. Nil when `text` is not
    /// an absolute `http` or `https` URI with a host, or carries userinfo
    /// (which no request target has, RFC 9110 §4.2.4).
    package static func normalized(_ text: String) -> String? {
        let absolute = htu(of: text)
        // htu(of:) drops userinfo; a value that had some is refused, not silently matched.
        guard absolute == text.prefix(while: { $0 != "?" && $0 != "#" }) else { return nil }
        guard let schemeEnd = absolute.firstRange(of: "://") else { return nil }
        let scheme = absolute[..<schemeEnd.lowerBound].lowercased()
        guard scheme == "http" || scheme == "https" else { return nil }
        let rest = absolute[schemeEnd.upperBound...]
        let slash = rest.firstIndex(of: "/") ?? rest.endIndex
        var authority = rest[..<slash].lowercased()
        let path = String(rest[slash...])
        // The port follows the last ":" after any IPv6 literal's "]".
        if let colon = authority.lastIndex(of: ":"), !authority[colon...].contains("]") {
            let port = authority[authority.index(after: colon)...]
            guard port.allSatisfy(\.isASCII), port.allSatisfy(\.isNumber) else { return nil }
            let defaultPort = scheme == "http" ? "80" : "443"
            let digits = port.drop { $0 == "0" }
            if port.isEmpty || String(digits) == defaultPort {
                authority = String(authority[..<colon])
            } else {
                authority = String(authority[..<colon]) + ":" + (digits.isEmpty ? "0" : String(digits))
            }
        }
        guard !authority.isEmpty, !authority.hasPrefix(":") else { return nil }
        guard let decoded = normalizedPercentEncoding(path.isEmpty ? "/" : path) else { return nil }
        return scheme + "://" + authority + removingDotSegments(decoded)
    }

    /// Whether `path` is an RFC 3986 absolute path (`path-absolute`, or
    /// empty): `/`, unreserved and sub-delimiter characters, `:`, `@`, and
    /// `%` escapes with two hex digits. A request target NIO accepts may hold
    /// more (braces, `|`, quotes, a backslash, `^`, a backtick, `<`, `>`, a
    /// broken `%`): such a path is no URI path, so no proof's `htu` names it.
    package static func isValidPath(_ path: String) -> Bool {
        var bytes = Array(path.utf8)[...]
        guard bytes.isEmpty || bytes.first == UInt8(ascii: "/") else { return false }
        while let byte = bytes.popFirst() {
            if byte == UInt8(ascii: "%") {
                guard bytes.popFirst().flatMap(FormEncoding.hexValue) != nil, bytes.popFirst().flatMap(FormEncoding.hexValue) != nil else {
                    return false
                }
            } else if !(FormEncoding.isUnreserved(byte) || isPathDelimiter(byte)) {
                return false
            }
        }
        return true
    }

    /// The URL of a request to `path` at `resource`'s origin: scheme, host
    /// and port of `resource`, then `path`; nil when `path` is not a valid
    /// absolute path (``isValidPath(_:)``). Built without any API that traps
    /// on what a request may carry.
    package static func requestURL(origin resource: URL, path: String) -> String? {
        guard isValidPath(path), var components = URLComponents(url: resource, resolvingAgainstBaseURL: false) else { return nil }
        components.percentEncodedPath = ""
        components.percentEncodedQuery = nil
        components.percentEncodedFragment = nil
        components.percentEncodedUser = nil
        components.percentEncodedPassword = nil
        guard let origin = components.string else { return nil }
        return origin + (path.isEmpty ? "/" : path)
    }

    private static func isPathDelimiter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "/"), UInt8(ascii: ":"), UInt8(ascii: "@"), UInt8(ascii: "!"), UInt8(ascii: "$"), UInt8(ascii: "&"),
            UInt8(ascii: "'"), UInt8(ascii: "("), UInt8(ascii: ")"), UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: ","),
            UInt8(ascii: ";"), UInt8(ascii: "="):
            true
        default: false
        }
    }

    /// Unreserved characters decoded, other escapes in uppercase hex (RFC 3986 §6.2.2.1, §6.2.2.2);
    /// nil on a broken escape.
    static func normalizedPercentEncoding(_ path: String) -> String? {
        var output: [UInt8] = []
        var bytes = Array(path.utf8)[...]
        while let byte = bytes.popFirst() {
            guard byte == UInt8(ascii: "%") else {
                output.append(byte)
                continue
            }
            guard let high = bytes.popFirst().flatMap(FormEncoding.hexValue), let low = bytes.popFirst().flatMap(FormEncoding.hexValue)
            else { return nil }
            let value = high << 4 | low
            if FormEncoding.isUnreserved(value) {
                output.append(value)
            } else {
                FormEncoding.appendEscape(of: value, to: &output)
            }
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// RFC 3986 §5.2.4 for an absolute path.
    static func removingDotSegments(_ path: String) -> String {
        let segments = path.split(separator: "/", omittingEmptySubsequences: false).dropFirst()
        var output: [Substring] = []
        for (offset, segment) in segments.enumerated() {
            let isLast = offset == segments.count - 1
            switch segment {
            case ".": if isLast { output.append("") }
            case "..":
                if !output.isEmpty { output.removeLast() }
                if isLast { output.append("") }
            default: output.append(segment)
            }
        }
        return "/" + output.joined(separator: "/")
    }

    private static func find(_ needle: [UInt8], in haystack: ArraySlice<UInt8>) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        var index = haystack.startIndex
        while index + needle.count <= haystack.endIndex {
            if haystack[index..<(index + needle.count)].elementsEqual(needle) { return index }
            index += 1
        }
        return nil
    }
}
