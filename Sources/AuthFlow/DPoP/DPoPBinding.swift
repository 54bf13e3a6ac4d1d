#if canImport(FoundationEssentials)
package import FoundationEssentials
#else
package import Foundation
#endif

/// DPoP for one client or session (RFC 9449): the key, the nonces servers
/// gave (remembered per origin), and whether a `Bearer` answer to a DPoP
/// token request is tolerated.
public struct DPoPBinding: Sendable {
    /// The key proofs are signed with: a software ``DPoPKey``, or a key
    /// kept in hardware (any ``DPoPSigningKey``).
    public let key: any DPoPSigningKey
    /// Accept a `Bearer` token when a proof was sent (the provider ignored
    /// DPoP). Off by default: such an answer is `invalid_response`.
    public var allowsBearerDowngrade: Bool
    let nonces: ReceivedDPoPNonces

    /// Binds to `key` (a new software key by default).
    public init(key: any DPoPSigningKey = DPoPKey(), allowsBearerDowngrade: Bool = false) {
        self.key = key
        self.allowsBearerDowngrade = allowsBearerDowngrade
        nonces = ReceivedDPoPNonces()
    }

    /// A proof for `method` `url`, with the nonce last given by that server.
    package func proof(method: String, url: URL, accessToken: String? = nil) throws -> String {
        try key.proof(method: method, url: url, accessToken: accessToken, nonce: nonces.nonce(for: url), now: Date())
    }

    /// Remembers the `DPoP-Nonce` of `response` from `url`'s server; true when
    /// the response asks for a retry with it (`use_dpop_nonce`, RFC 9449 §8, §9).
    package func noteNonce(in response: HTTPTransportResponse, from url: URL) -> Bool {
        guard let nonce = response.header("DPoP-Nonce"), !nonce.isEmpty else { return false }
        nonces.set(nonce, for: url)
        if response.status == 400, TokenEndpoint.oauthError(in: response.body)?.error == "use_dpop_nonce" { return true }
        // RFC 9449 §9: a resource server's DPoP challenge, among any others, names the error.
        return response.status == 401
            && AuthenticationChallenge.challenges(in: response).contains {
                $0.isScheme("DPoP") && $0["error"] == "use_dpop_nonce"
            }
    }

    /// RFC 9449 §5: a token request with a proof must get a DPoP token.
    func checkTokenType(_ tokenType: String) throws {
        guard tokenType != "DPoP", !allowsBearerDowngrade else { return }
        throw AuthFlowError(
            .invalidResponse, "the provider answered a DPoP token request with a \(tokenType) token",
            recovery: "the provider does not bind tokens to DPoP keys; sign in without DPoP, or allow the downgrade")
    }

    /// Sends `request` with a fresh proof; retries once with the server's
    /// nonce when it asks for one.
    func send(_ request: HTTPTransportRequest, accessToken: String? = nil, transport: any HTTPTransport) async throws
        -> HTTPTransportResponse
    {
        try await send(building: { request }, accessToken: accessToken, transport: transport)
    }

    /// ``send(_:accessToken:transport:)`` with the request built afresh for
    /// each attempt (a retry needs a new client assertion, too).
    func send(
        building build: () throws -> HTTPTransportRequest, accessToken: String? = nil,
        transport: any HTTPTransport
    ) async throws -> HTTPTransportResponse {
        var attempt = try build()
        attempt.headers.append((name: "DPoP", value: try proof(method: attempt.method, url: attempt.url, accessToken: accessToken)))
        let response = try await transport.send(attempt)
        guard noteNonce(in: response, from: attempt.url) else { return response }
        var retry = try build()
        retry.headers.append((name: "DPoP", value: try proof(method: retry.method, url: retry.url, accessToken: accessToken)))
        let second = try await transport.send(retry)
        _ = noteNonce(in: second, from: retry.url)
        return second
    }
}

/// The nonces servers gave this client (`DPoP-Nonce`), by origin (scheme,
/// host, port): the client side of RFC 9449 §8; a server's own rotating
/// nonces are the API middleware's `DPoPNonces`.
final class ReceivedDPoPNonces: Sendable {
    private let values = LockedValue<[String: String]>([:])

    private static func origin(_ url: URL) -> String {
        "\(url.scheme?.lowercased() ?? "")://\(url.host?.lowercased() ?? "")\(url.port.map { ":\($0)" } ?? "")"
    }

    func nonce(for url: URL) -> String? { values.withLock { $0[ReceivedDPoPNonces.origin(url)] } }

    func set(_ nonce: String, for url: URL) { values.withLock { $0[ReceivedDPoPNonces.origin(url)] = nonce } }
}
