import Foundation
import Logging

extension AuthSession {
    /// Sends `request` with the session's access token as DPoP (RFC 9449 §7)
    /// when the client is DPoP-bound and the token is a `DPoP` token:
    /// `Authorization: DPoP <token>` and a fresh proof with `ath`, retried
    /// once with the resource server's `DPoP-Nonce` when it asks. A `Bearer`
    /// token is sent as ``send(_:)`` sends it. On a 401 `invalid_token` the
    /// session refreshes once and retries once.
    public nonisolated func sendWithDPoP(_ request: HTTPTransportRequest) async throws -> HTTPTransportResponse {
        let first = try await freshCredentials()
        let response = try await authorizedSend(request, with: first)
        guard response.status == 401, AuthSession.saysInvalidToken(response) else { return response }
        client.logger.debug("resource server refused the access token; refreshing once")
        let second = try await freshCredentials(rejecting: first.accessToken)
        return try await authorizedSend(request, with: second)
    }

    private nonisolated func authorizedSend(_ request: HTTPTransportRequest, with credentials: OAuthCredentials) async throws
        -> HTTPTransportResponse
    {
        var authorized = request
        authorized.headers.removeAll {
            $0.name.caseInsensitiveCompare("Authorization") == .orderedSame || $0.name.caseInsensitiveCompare("DPoP") == .orderedSame
        }
        if let dpop = client.dpop, credentials.token.tokenType.caseInsensitiveCompare("DPoP") == .orderedSame {
            authorized.headers.append((name: "Authorization", value: "DPoP \(credentials.accessToken)"))
            return try await dpop.send(authorized, accessToken: credentials.accessToken, transport: client.transport)
        }
        authorized.headers.append((name: "Authorization", value: "Bearer \(credentials.accessToken)"))
        return try await client.transport.send(authorized)
    }

    /// Whether a `WWW-Authenticate` challenge (Bearer or DPoP) names `invalid_token`.
    static func saysInvalidToken(_ response: HTTPTransportResponse) -> Bool {
        AuthenticationChallenge.challenges(in: response).contains {
            ($0.isScheme("Bearer") || $0.isScheme("DPoP")) && $0["error"] == "invalid_token"
        }
    }
}
