#if CLI // the CLI package trait
import AuthFlow
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Where a client (git, Docker) wants to send a credential: scheme, host,
/// port and path, compared the way a profile's `credential_urls` name them.
///
/// A URL pattern `https://forge.example.com` serves every path on that host
/// and port; `https://forge.example.com/team` serves `/team` and what is
/// below it (git sends the path only with `credential.useHttpPath`). A
/// pattern without a scheme means https. Hosts compare case-insensitively,
/// default ports are dropped (`:443` for https, `:80` for http), and paths
/// are compared normalised (``normalisedPath(_:)``): `team` does not serve
/// `team/../other`.
struct CredentialTarget: Equatable {
    let scheme: String
    let host: String
    let port: Int?
    /// Without the leading and trailing `/`; empty for the whole host.
    let path: String

    init?(scheme: String, hostAndPort: String, path: String) {
        let scheme = scheme.lowercased()
        guard scheme == "https" || scheme == "http", !hostAndPort.isEmpty else { return nil }
        var host = Substring(hostAndPort)
        var port: Int?
        if let colon = host.lastIndex(of: ":"), !host.hasSuffix("]") {
            guard let number = Int(host[host.index(after: colon)...]), (1...65535).contains(number) else { return nil }
            port = number
            host = host[..<colon]
        }
        guard !host.isEmpty,
            host.unicodeScalars.allSatisfy({ $0.isASCII && $0.value > 0x20 && !"/?#@\\ ".unicodeScalars.contains($0) })
        else { return nil }
        if port == (scheme == "https" ? 443 : 80) { port = nil }
        self.scheme = scheme
        self.host = host.lowercased()
        self.port = port
        self.path = Self.normalisedPath(path)
    }

    /// `path` as the server will read it: percent-encoded unreserved
    /// characters decoded (`%2E` is `.`; RFC 3986 §6.2.2.2), `.` and `..`
    /// segments resolved (§5.2.4), empty segments dropped, without the
    /// leading and trailing `/`. So `team/../other` is `other`, which the
    /// pattern `team` does not serve.
    static func normalisedPath(_ path: String) -> String {
        var segments: [String] = []
        for raw in path.split(separator: "/", omittingEmptySubsequences: true) {
            let segment = decodingUnreserved(raw)
            switch segment {
            case ".": continue
            case "..": _ = segments.popLast()
            default: segments.append(segment)
            }
        }
        return segments.joined(separator: "/")
    }

    /// `segment` with `%XX` decoded where XX is an unreserved character
    /// (ALPHA, DIGIT, `-`, `.`, `_`, `~`); other escapes stay, uppercased.
    private static func decodingUnreserved(_ segment: Substring) -> String {
        guard segment.contains("%") else { return String(segment) }
        var bytes = Array(segment.utf8)[...]
        var result: [UInt8] = []
        while let byte = bytes.popFirst() {
            guard byte == UInt8(ascii: "%"), bytes.count >= 2,
                let value = UInt8(String(decoding: bytes.prefix(2), as: UTF8.self), radix: 16)
            else {
                result.append(byte)
                continue
            }
            bytes = bytes.dropFirst(2)
            if FormEncoding.isUnreserved(value) {
                result.append(value)
            } else {
                FormEncoding.appendEscape(of: value, to: &result)
            }
        }
        return String(decoding: result, as: UTF8.self)
    }

    /// Whether a path holds an escape that a server may read as a separator
    /// (`%2F`, `%5C`) or a backslash: it cannot be compared with a path
    /// pattern, so such a target is served only by a whole-host pattern.
    private static func hasHiddenSeparator(_ path: String) -> Bool {
        let upper = path.uppercased()
        return upper.contains("%2F") || upper.contains("%5C") || path.contains("\\")
    }

    /// A URL as a profile's `credential_urls` or Docker's `ServerURL` give it:
    /// `https://host[:port][/path]`, or `host[:port][/path]` (https).
    init?(url text: String) {
        let trimmed = text.trimmingWhitespace()
        var rest = Substring(trimmed)
        var scheme = "https"
        if let range = rest.firstRange(of: "://") {
            scheme = String(rest[..<range.lowerBound])
            rest = rest[range.upperBound...]
        }
        if let end = rest.firstIndex(where: { $0 == "?" || $0 == "#" }) { rest = rest[..<end] }
        let slash = rest.firstIndex(of: "/") ?? rest.endIndex
        self.init(scheme: scheme, hostAndPort: String(rest[..<slash]), path: String(rest[slash...]))
    }

    /// The target git names: `protocol`, `host` (with its port) and, with
    /// `credential.useHttpPath`, `path`. Nil when git names no http(s) host.
    init?(git message: GitCredentialMessage) {
        guard let scheme = message["protocol"], let host = message["host"] else { return nil }
        self.init(scheme: scheme, hostAndPort: host, path: message["path"] ?? "")
    }

    /// How specific the pattern is: the number of its path segments (0 for
    /// a whole host). The most specific pattern that serves a URL wins.
    var specificity: Int { path.isEmpty ? 0 : path.split(separator: "/").count }

    /// Whether the pattern `self` serves `target`: same scheme, host and
    /// port, and the target's path is the pattern's or below it.
    func serves(_ target: CredentialTarget) -> Bool {
        guard scheme == target.scheme, host == target.host, port == target.port else { return false }
        if path.isEmpty { return true }
        guard !Self.hasHiddenSeparator(target.path) else { return false }
        return target.path == path || target.path.hasPrefix(path + "/")
    }

    /// Whether the host is a loopback IP literal (127.0.0.0/8 or `::1`), where
    /// plain http is acceptable; a host *name* never is (``LoopbackAddress``).
    var isLoopback: Bool { LoopbackAddress.isLiteral(host) }

    /// `scheme://host[:port][/path]`.
    var text: String {
        "\(scheme)://\(host)\(port.map { ":\($0)" } ?? "")\(path.isEmpty ? "" : "/" + path)"
    }
}
#endif
