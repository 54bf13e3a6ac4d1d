#if CLI // the CLI package trait
import Foundation

/// Where a client (git, Docker) wants to send a credential: scheme, host,
/// port and path, compared the way a profile's `credential_urls` name them.
///
/// A URL pattern `https://forge.example.com` serves every path on that host
/// and port; `https://forge.example.com/team` serves `/team` and what is
/// below it (git sends the path only with `credential.useHttpPath`). A
/// pattern without a scheme means https. Hosts compare case-insensitively,
/// default ports are dropped (`:443` for https, `:80` for http).
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
        self.path = path.split(separator: "/", omittingEmptySubsequences: true).joined(separator: "/")
    }

    /// A URL as a profile's `credential_urls` or Docker's `ServerURL` give it:
    /// `https://host[:port][/path]`, or `host[:port][/path]` (https).
    init?(url text: String) {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        var rest = Substring(trimmed)
        var scheme = "https"
        if let range = rest.range(of: "://") {
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

    /// Whether the pattern `self` serves `target`: same scheme, host and
    /// port, and the target's path is the pattern's or below it.
    func serves(_ target: CredentialTarget) -> Bool {
        guard scheme == target.scheme, host == target.host, port == target.port else { return false }
        return path.isEmpty || target.path == path || target.path.hasPrefix(path + "/")
    }

    /// Whether the host is a loopback address, where plain http is acceptable.
    var isLoopback: Bool { ["127.0.0.1", "localhost", "[::1]"].contains(host) || host.hasPrefix("127.") }

    /// `scheme://host[:port][/path]`.
    var text: String {
        "\(scheme)://\(host)\(port.map { ":\($0)" } ?? "")\(path.isEmpty ? "" : "/" + path)"
    }
}
#endif
