import Logging

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The `token_type_hint` of a revocation request (RFC 7009 §2.1).
public enum TokenTypeHint: String, Sendable {
    case accessToken = "access_token"
    case refreshToken = "refresh_token"
}

extension OAuthClient {
    /// Revokes one token at the provider's `revocation_endpoint` (RFC 7009),
    /// with the same client authentication as the token endpoint. Success is
    /// any 200 (RFC 7009 §2.2: an unknown token is not an error).
    ///
    /// A DPoP-bound client (``dpop``) sends a DPoP proof of its key with the
    /// request (RFC 9449 §5; a server that binds tokens may ask for it, and
    /// its nonce is answered like the token endpoint's) unless `tokenType`
    /// says the token is not DPoP-bound (a `Bearer` answer the client allowed).
    public func revoke(_ token: String, hint: TokenTypeHint, tokenType: String? = nil) async throws {
        guard let endpoint = metadata.revocationEndpoint else {
            throw AuthFlowError.configuration("the provider has no revocation endpoint")
        }
        let bound = tokenType.map { $0.equalsIgnoringASCIICase("DPoP") } ?? true
        let revocation = authenticatedEndpoint(endpoint, purpose: .revocation, dpop: bound ? dpop : nil)
        _ = try await revocation.post([("token", token), ("token_type_hint", hint.rawValue)], what: "revocation (\(hint.rawValue))")
    }

    /// Revokes the refresh token first (which on most servers ends the whole
    /// grant), then the access token; throws the first failure after trying both.
    public func revokeAll(_ credentials: OAuthCredentials) async throws {
        if let failure = await revokeEach(credentials).first { throw failure }
    }

    /// Revokes the refresh token, then the access token, trying both, and
    /// returns the failures. A server that answers the access token with
    /// `unsupported_token_type` (RFC 7009 §2.2.1; AWS Cognito revokes only
    /// refresh tokens) is not a failure: revoking the refresh token ended
    /// the grant, or the access token simply expires.
    public func revokeEach(_ credentials: OAuthCredentials) async -> [AuthFlowError] {
        var failures: [AuthFlowError] = []
        if let refreshToken = credentials.token.refreshToken {
            do {
                try await revoke(refreshToken, hint: .refreshToken, tokenType: credentials.token.tokenType)
            } catch {
                failures.append(AuthFlowError.wrapping(error))
            }
        }
        do {
            try await revoke(credentials.accessToken, hint: .accessToken, tokenType: credentials.token.tokenType)
        } catch let error as AuthFlowError where error.category == .oauthError && error.oauth?.error == "unsupported_token_type" {
            logger.debug("the provider does not revoke access tokens (unsupported_token_type)")
        } catch {
            failures.append(AuthFlowError.wrapping(error))
        }
        return failures
    }
}

extension AuthFlowError {
    /// `error` itself when it is an ``AuthFlowError``, else a `network` error around it.
    static func wrapping(_ error: any Error) -> AuthFlowError {
        if let error = error as? AuthFlowError { return error }
        return AuthFlowError(.network, "the request failed", underlyingError: error)
    }
}
