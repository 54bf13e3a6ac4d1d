#if canImport(FoundationEssentials)
package import FoundationEssentials
#else
package import Foundation
#endif

/// Rules for the URLs AuthFlow talks to.
package enum URLPolicy {
    /// True for 127.0.0.0/8, ::1 and localhost.
    static func isLoopback(_ url: URL) -> Bool {
        guard let host = url.host?.lowercased() else { return false }
        let bare = host.hasPrefix("[") ? String(host.dropFirst().dropLast()) : host
        if bare == "localhost" || bare == "::1" { return true }
        let octets = bare.split(separator: ".", omittingEmptySubsequences: false)
        guard octets.count == 4, octets[0] == "127" else { return false }
        return octets.allSatisfy { UInt8($0) != nil }
    }

    /// Requires https, or http on a loopback host (for development).
    package static func requireSecure(_ url: URL, _ what: String) throws {
        guard let scheme = url.scheme?.lowercased(), url.host?.isEmpty == false else {
            throw AuthFlowError(
                .configuration, "\(what) is not an absolute URL",
                recovery:
                    "Give \(what) as a full URL with scheme and host, such as https://id.example.com/… (check the flag, Info.plist key or metadata member that sets it)."
            )
        }
        if scheme == "https" { return }
        if scheme == "http", isLoopback(url) { return }
        throw AuthFlowError(
            .configuration, "\(what) must use https (http is allowed only for loopback hosts)",
            recovery: "Use the https form of \(what); plain http is accepted only for 127.0.0.1, [::1] and localhost during development.")
    }
}
