#if AsyncHTTPClient && os(Linux) // the AsyncHTTPClient package trait, on Linux
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The HTTP proxies the environment names, read as curl and Go read them, for
/// ``AsyncHTTPClientTransport`` (URLSession on Apple platforms follows the
/// system's settings instead).
///
/// - `https_proxy` or `HTTPS_PROXY` for https URLs, `http_proxy` or
///   `HTTP_PROXY` for http URLs (the lower-case name wins): `http://host:port`,
///   `host:port`, or with `user:password@` for Basic proxy authentication.
///   An https URL goes through the proxy in a `CONNECT` tunnel.
/// - `no_proxy` or `NO_PROXY`: entries separated by commas that are
///   reached directly: host names, each with its subdomains (`example.com`
///   and `.example.com` both cover `api.example.com`), IP addresses,
///   address blocks (`10.0.0.0/8`, `fd00::/8`), and `*` for every host.
/// - Loopback hosts (`localhost`, `127.0.0.0/8`, `::1`) are always reached
///   directly, as Go does: the loopback redirect of a sign-in never goes
///   through a proxy.
///
/// A variable that names a proxy the transport cannot use (another scheme
/// such as `socks5://` or `https://`, no host, a bad port) is not skipped:
/// every request it would serve fails with a configuration error naming the
/// variable, so that nothing is sent around a proxy the user meant to use.
struct ProxyEnvironment: Sendable, Equatable {
    /// One proxy: where it listens and its Basic credentials.
    struct Proxy: Sendable, Hashable {
        var host: String
        var port: Int
        var user: String?
        var password: String?
    }

    /// What a variable set: a proxy, or the reason it is unusable.
    enum Setting: Sendable, Equatable {
        case proxy(Proxy)
        case unusable(variable: String)
    }

    var http: Setting?
    var https: Setting?
    /// The `no_proxy` entries, lower-cased, without a leading dot or port.
    var noProxy: [String]
    /// The entries that are address blocks (`10.0.0.0/8`), read once.
    var noProxyBlocks: [ProxyAddressBlock]

    /// Reads `environment` (the process's, normally).
    init(_ environment: [String: String]) {
        func value(_ names: String...) -> (name: String, value: String)? {
            for name in names {
                if let value = environment[name]?.trimmingWhitespace(), !value.isEmpty { return (name, value) }
            }
            return nil
        }
        http = value("http_proxy", "HTTP_PROXY").map { Self.setting($0.value, variable: $0.name) }
        https = value("https_proxy", "HTTPS_PROXY").map { Self.setting($0.value, variable: $0.name) }
        noProxy = (value("no_proxy", "NO_PROXY")?.value ?? "").split(separator: ",").compactMap { entry in
            var host = entry.trimmingWhitespace().lowercased()
            while host.hasPrefix(".") { host.removeFirst() }
            if host.hasPrefix("["), let end = host.firstIndex(of: "]") {
                host = String(host[host.index(after: host.startIndex)..<end])
            } else if host.filter({ $0 == ":" }).count == 1, let colon = host.firstIndex(of: ":") {
                host = String(host[..<colon])
            }
            return host.isEmpty ? nil : host
        }
        noProxyBlocks = noProxy.compactMap(ProxyAddressBlock.init)
    }

    /// The setting that serves `url`: nil to connect directly.
    func setting(for url: URL) -> Setting? {
        guard let host = url.host?.lowercased().trimmingScalars(where: { $0 == "[" || $0 == "]" }), !host.isEmpty,
            !URLPolicy.isLoopback(url), !bypasses(host)
        else { return nil }
        switch url.scheme?.lowercased() {
        case "https": return https
        case "http": return http
        default: return nil
        }
    }

    /// Whether `no_proxy` names `host`, a domain above it, or an address block holding it.
    func bypasses(_ host: String) -> Bool {
        noProxy.contains { $0 == "*" || host == $0 || host.hasSuffix("." + $0) }
            || noProxyBlocks.contains { $0.contains(host) }
    }

    /// `value` as an http proxy; anything else is unusable.
    static func setting(_ value: String, variable: String) -> Setting {
        let text = value.contains("://") ? value : "http://" + value
        guard let components = URLComponents(string: text), components.scheme?.lowercased() == "http",
            let host = components.host, !host.isEmpty, components.path.isEmpty || components.path == "/",
            components.query == nil, components.fragment == nil
        else { return .unusable(variable: variable) }
        let port = components.port ?? 80
        guard (1...65_535).contains(port) else { return .unusable(variable: variable) }
        return .proxy(
            Proxy(
                host: host.trimmingScalars(where: { $0 == "[" || $0 == "]" }), port: port,
                // Decoded once: `user` and `password` of URLComponents are decoded already.
                user: components.percentEncodedUser.map { FormEncoding.percentDecoded($0) ?? $0 },
                password: components.percentEncodedPassword.map { FormEncoding.percentDecoded($0) ?? $0 }))
    }

    /// The error of a request that an unusable variable would serve (the
    /// value is never repeated: it may hold a password).
    static func unusable(_ variable: String) -> AuthFlowError {
        AuthFlowError(
            .configuration, "\(variable) names a proxy this transport cannot use",
            recovery: "Set \(variable) to an http proxy (http://host:port, with user:password@ for Basic authentication), "
                + "or unset it; socks and https proxies are not supported.")
    }
}
#endif
