import Logging

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension AuthSession {
    /// Sends `request` with the session's access token, in the header only
    /// (never the query), and gives the resource server's answer back.
    ///
    /// A bearer token goes as `Authorization: Bearer <token>`. A DPoP-bound
    /// session (its client has a ``OAuthClient/dpop`` binding and the token
    /// type is `DPoP`) sends `Authorization: DPoP <token>` with a fresh proof
    /// that carries `ath` (RFC 9449 §7), retried once with the resource
    /// server's `DPoP-Nonce` when it asks for one (`use_dpop_nonce`). Either
    /// way, a 401 whose `WWW-Authenticate` (a `Bearer` or `DPoP` challenge)
    /// says `invalid_token` refreshes once and retries once.
    ///
    /// A session whose client is for one protected resource
    /// (``OAuthClient/resource``, RFC 8707) sends its token only to that
    /// resource's origin: a request elsewhere is refused with
    /// ``AuthFlowError/Category/configuration`` before the token is read.
    ///
    /// The token goes only over https, or plain http to a loopback host
    /// (RFC 6750 §5.3): a request to an `http` URL elsewhere is refused with
    /// ``AuthFlowError/Category/configuration`` before the token is read,
    /// whether or not the session is for one resource.
    public nonisolated func send(_ request: HTTPTransportRequest) async throws -> HTTPTransportResponse {
        try URLPolicy.requireSecure(request.url, "a request that carries the access token")
        if let resource = client.resource { try AuthSession.requireOrigin(of: resource, for: request) }
        return try await sendRenewingOnce(request) { rejected in try await self.freshCredentials(rejecting: rejected) }
    }

    /// `request` with the credentials `token` gives (nil: none rejected yet),
    /// and once more with new ones when the resource server answers 401
    /// `invalid_token`.
    nonisolated func sendRenewingOnce(
        _ request: HTTPTransportRequest, token: @Sendable (_ rejected: String?) async throws -> OAuthCredentials
    ) async throws -> HTTPTransportResponse {
        let first = try await token(nil)
        let response = try await send(request, with: first)
        guard response.status == 401, AuthSession.saysInvalidToken(response) else { return response }
        client.logger.debug("resource server refused the access token; renewing it once")
        let second = try await token(first.accessToken)
        return try await send(request, with: second)
    }

    /// Refuses, before any token is read, a request to another origin than `resource`'s.
    static func requireOrigin(of resource: ResourceIdentifier, for request: HTTPTransportRequest) throws {
        guard resource.permitsRequest(to: request.url) else {
            throw AuthFlowError(
                .configuration,
                "the session's tokens are for \(resource.origin); a request to \(ResourceIdentifier.origin(of: request.url) ?? "another origin") would carry one elsewhere",
                recovery: "Send requests for another API with a token for that API.")
        }
    }

    /// One attempt: `request` with `credentials` in `Authorization`, and a
    /// DPoP proof as one more step when the token is DPoP-bound.
    nonisolated func send(_ request: HTTPTransportRequest, with credentials: OAuthCredentials) async throws
        -> HTTPTransportResponse
    {
        var authorized = request
        authorized.headers.removeAll { header in
            header.name.equalsIgnoringASCIICase("Authorization")
                || (client.dpop != nil && header.name.equalsIgnoringASCIICase("DPoP"))
        }
        let tokenType = credentials.token.tokenType
        authorized.headers.append(AccessTokenAuthorization.field(credentials.accessToken, tokenType: tokenType))
        if let dpop = client.dpop, AccessTokenAuthorization.isDPoP(tokenType) {
            return try await dpop.send(authorized, accessToken: credentials.accessToken, transport: client.transport)
        }
        return try await client.transport.send(authorized)
    }

    /// Whether a `WWW-Authenticate` challenge (Bearer or DPoP) names `invalid_token`.
    static func saysInvalidToken(_ response: HTTPTransportResponse) -> Bool {
        AuthenticationChallenge.challenges(in: response).contains {
            ($0.isScheme("Bearer") || $0.isScheme("DPoP")) && $0["error"] == "invalid_token"
        }
    }
}
