import Logging

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension OAuthClient {
    /// Redeems the refresh token of `credentials` (RFC 6749 §6).
    ///
    /// A refresh token in the answer replaces the old one (rotation); without
    /// one the old one stays. Granted scopes are updated (unchanged when the
    /// answer has no `scope`). A new ID token is verified and must keep the
    /// `iss`, `sub`, `aud`, `azp` and `auth_time` of the original (OIDC Core §12.2).
    ///
    /// - Throws: ``AuthFlowError/Category/reauthenticationRequired`` when there
    ///   is no refresh token; the server's `invalid_grant` as `oauth_error`.
    public func refresh(_ credentials: OAuthCredentials) async throws -> OAuthCredentials {
        let (token, idToken) = try await redeemRefreshToken(of: credentials, at: tokenEndpoint, scopes: nil)
        return OAuthCredentials(issuer: credentials.issuer, clientID: credentials.clientID, token: token, idToken: idToken)
    }

    /// The refresh token of `credentials` redeemed for an access token for
    /// `resource` (RFC 8707 §2.2; in `audience` instead when `namingAudience`,
    /// as Auth0 takes it), asking for `scopes` when there are any.
    /// The credentials come back with the rotated refresh token and a new
    /// ID token, if the answer has them, and their own access token; the
    /// answer's access token is the resource's.
    func refresh(_ credentials: OAuthCredentials, for resource: ResourceIdentifier, namingAudience: Bool = false, scopes: [String])
        async throws -> (credentials: OAuthCredentials, token: TokenResponse)
    {
        var endpoint = tokenEndpoint
        endpoint.resource = namingAudience ? nil : resource
        let (token, idToken) = try await redeemRefreshToken(
            of: credentials, at: endpoint, scopes: scopes.isEmpty ? nil : scopes,
            audience: namingAudience ? resource.description : nil)
        var kept = credentials
        kept.token.refreshToken = token.refreshToken
        kept.token.idToken = token.idToken
        kept.idToken = idToken
        return (kept, token)
    }

    /// The refresh grant itself: the answer, with the old refresh token and
    /// ID token kept where it has none, and the ID token verified.
    private func redeemRefreshToken(
        of credentials: OAuthCredentials, at endpoint: TokenEndpoint, scopes: [String]?, audience: String? = nil
    ) async throws -> (token: TokenResponse, idToken: IDTokenClaims?) {
        guard let refreshToken = credentials.token.refreshToken else {
            throw AuthFlowError.noRefreshToken
        }
        var form = [("grant_type", "refresh_token"), ("refresh_token", refreshToken)]
        if let scopes { form.append(("scope", scopes.joined(separator: " "))) }
        if let audience { form.append(("audience", audience)) }
        var token = try await endpoint.request(form, requestedScopes: scopes ?? credentials.scopes)
        if token.refreshToken == nil { token.refreshToken = refreshToken }
        var idToken = credentials.idToken
        if token.idToken != nil, let newClaims = try await verifyIDToken(in: token, nonce: nil, maxAge: nil, required: false) {
            if let old = credentials.idToken {
                try OAuthClient.checkContinuity(old: old, new: newClaims)
            }
            idToken = newClaims
        } else if token.idToken == nil {
            token.idToken = credentials.token.idToken
        }
        logger.debug("tokens refreshed", metadata: ["rotated": "\(token.refreshToken != refreshToken)"])
        return (token, idToken)
    }

    /// OIDC Core §12.2: a refreshed ID token describes the same authentication.
    static func checkContinuity(old: IDTokenClaims, new: IDTokenClaims) throws {
        guard old.issuer == new.issuer else { throw AuthFlowError.idToken(.issuer, "the refreshed ID token has another iss") }
        guard old.subject == new.subject else { throw AuthFlowError.idToken(.subject, "the refreshed ID token has another sub") }
        guard Set(old.audience) == Set(new.audience) else {
            throw AuthFlowError.idToken(.audience, "the refreshed ID token has another aud")
        }
        guard old.authorizedParty == new.authorizedParty else {
            throw AuthFlowError.idToken(.authorizedParty, "the refreshed ID token has another azp")
        }
        if let oldTime = old.authTime, let newTime = new.authTime, oldTime != newTime {
            throw AuthFlowError.idToken(.authTime, "the refreshed ID token has another auth_time")
        }
    }
}

extension AuthFlowError {
    /// The access token expired and the provider issued no refresh token, so
    /// nothing can be renewed without the user.
    public static var noRefreshToken: AuthFlowError {
        AuthFlowError(
            .reauthenticationRequired,
            "the access token expired and the provider issued no refresh token, so the session cannot be renewed",
            recovery: "Sign in again. To get a refresh token, request the offline_access scope (Auth0, Okta, most OpenID providers); "
                + "for Google add the parameters access_type=offline and prompt=consent (AuthorizationOptions.additionalParameters).",
            remedy: .requestOfflineAccess)
    }
}
