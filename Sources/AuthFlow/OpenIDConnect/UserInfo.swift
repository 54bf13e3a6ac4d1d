import Logging

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Claims from the userinfo endpoint (OIDC Core §5.3), typed.
public struct OpenIDUserInfo: Sendable, Equatable, Codable {
    /// `sub`; equal to the ID token's (checked).
    public let subject: String
    /// Every claim returned.
    public let all: [String: JSONMemberValue]

    /// `name`, when present.
    public var name: String? { all["name"]?.stringValue }
    /// `email`, when present.
    public var email: String? { all["email"]?.stringValue }
    /// `email_verified`, when present.
    public var emailVerified: Bool? { all["email_verified"]?.boolValue }
    /// `preferred_username`, when present.
    public var preferredUsername: String? { all["preferred_username"]?.stringValue }

    init(claims: [String: JSONMemberValue]) throws {
        guard let subject = claims["sub"]?.stringValue, !subject.isEmpty else {
            throw AuthFlowError.invalidResponse("the userinfo response has no sub")
        }
        self.subject = subject
        all = claims
    }
}

extension OAuthClient {
    /// Calls the userinfo endpoint with the access token (`Authorization:
    /// Bearer`, never the query; a `DPoP` token goes as `Authorization: DPoP`
    /// with a fresh proof from the client's key, RFC 9449 §7). JSON and signed-JWT (`application/jwt`)
    /// answers are accepted; a signed one is verified like an ID token's
    /// signature, and its `iss`/`aud`, when present, must be this issuer and
    /// client. When `expectedSubject` is given, a different `sub` is
    /// ``AuthFlowError/Category/userinfoSubjectMismatch`` and nothing is returned.
    public func userInfo(accessToken: String, tokenType: String = "Bearer", expectedSubject: String?) async throws -> OpenIDUserInfo {
        guard let endpoint = metadata.userinfoEndpoint else {
            throw AuthFlowError(
                .configuration, "the provider has no userinfo endpoint",
                recovery: "If the provider has an OpenID Connect userinfo endpoint, name it in ProviderMetadata.userinfoEndpoint. "
                    + "OAuth-only providers (GitHub, Zoom) have none; call their user API instead.",
                remedy: .giveTheUserInfoEndpoint)
        }
        let bound = AccessTokenAuthorization.isDPoP(tokenType)
        if bound, dpop == nil {
            throw AuthFlowError(
                .configuration, "the access token is DPoP-bound and this client has no DPoP key",
                recovery:
                    "Use the client the token was issued to (OAuthClient.dpop set to its key), or AuthSession.restore, which keeps the key."
            )
        }
        let request = HTTPTransportRequest(
            method: "GET", url: endpoint,
            headers: [
                // UserInfo takes a bearer token unless it is DPoP-bound (OIDC Core §5.3.1).
                AccessTokenAuthorization.field(accessToken, tokenType: bound ? "DPoP" : "Bearer"),
                ("Accept", "application/json, application/jwt"),
            ], timeout: timeout, purpose: .userInfo)
        logger.debug("requesting userinfo", metadata: ["url": "\(endpoint.absoluteString)"])
        let response =
            if bound, let dpop {
                try await dpop.send(request, accessToken: accessToken, transport: transport)
            } else {
                try await transport.send(request)
            }
        logger.debug("userinfo answered", metadata: ["status": "\(response.status)"])
        if response.status == 401 || response.status == 403, let challenge = BearerChallenge(response) {
            let oauth = OAuthErrorResponse(error: challenge.error, errorDescription: challenge.description).redacting([accessToken])
            throw AuthFlowError(.oauthError, oauth.error, oauth: oauth)
        }
        let body = try TokenEndpoint.requireSuccess(response, what: "userinfo request", secrets: [accessToken]).body
        let claims: [String: JSONMemberValue]
        if response.mediaType == "application/jwt" {
            let text = String(decoding: body, as: UTF8.self).trimmingWhitespaceAndNewlines()
            if text.split(separator: ".", omittingEmptySubsequences: false).count == 5 {
                throw AuthFlowError.invalidResponse("encrypted userinfo responses are not supported")
            }
            let algorithms = metadata.document["userinfo_signing_alg_values_supported"]?.arrayValue?.compactMap(\.stringValue)
            let verifier = JWSSignatureVerifier(
                keys: idTokenVerifier.keys, clientSecret: authentication.secret, providerAlgorithms: algorithms)
            claims = try await verifier.verify(text).jws.claims
            if let iss = claims["iss"], metadata.issuer.map({ $0.admits(iss.stringValue ?? "", tenants: nil) }) != true {
                throw AuthFlowError(.issuerMismatch, "the signed userinfo names another issuer")
            }
            if let aud = claims["aud"] {
                let audiences = aud.stringValue.map { [$0] } ?? aud.arrayValue?.compactMap(\.stringValue) ?? []
                guard audiences.contains(where: { $0.hasSameBytes(as: clientID) }) else {
                    throw AuthFlowError.idToken(.audience, "the signed userinfo is for another client")
                }
            }
        } else {
            guard let object = JSONMemberValue.object(from: body) else {
                throw AuthFlowError.invalidResponse("the userinfo response is not a JSON object")
            }
            claims = object
        }
        let info = try OpenIDUserInfo(claims: claims)
        if let expectedSubject, info.subject != expectedSubject {
            throw AuthFlowError(.userinfoSubjectMismatch, "the userinfo sub differs from the ID token's")
        }
        return info
    }
}

/// The error of a `WWW-Authenticate` Bearer challenge (RFC 6750 §3), or of
/// a DPoP one (RFC 9449 §7.1) when there is no Bearer challenge, read with
/// the one challenge parser (``AuthenticationChallenge``).
struct BearerChallenge {
    let error: String
    let description: String?

    /// The challenge in the fields of `response`.
    init?(_ response: HTTPTransportResponse) {
        self.init(challenges: AuthenticationChallenge.challenges(in: response))
    }

    /// The challenge in one field value.
    init?(_ fieldValue: String?) {
        guard let fieldValue else { return nil }
        self.init(challenges: AuthenticationChallenge.parse(fieldValue))
    }

    private init?(challenges: [AuthenticationChallenge]) {
        let chosen = challenges.first { $0.isScheme("Bearer") } ?? challenges.first { $0.isScheme("DPoP") }
        // An empty `error` names no error code (RFC 6750 §3.1): not a challenge to report.
        guard let chosen, let error = chosen["error"], !error.isEmpty else { return nil }
        self.error = error
        description = chosen["error_description"]
    }
}
