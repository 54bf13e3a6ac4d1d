#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// How the client authenticates at the token endpoint and every other
/// endpoint that authenticates it — pushed authorization, revocation,
/// introspection, device authorization (RFC 6749 §2.3, OIDC Core §9,
/// RFC 7523 §2.2).
public enum ClientAuthentication: Sendable, Equatable {
    /// A public client: `client_id` in the body, no secret (native apps).
    case none
    /// HTTP Basic with the id and secret each form-urlencoded first (RFC 6749 §2.3.1).
    case clientSecretBasic(secret: String)
    /// `client_id` and `client_secret` in the form body.
    case clientSecretPost(secret: String)
    /// A JWT signed with the client's private key (`private_key_jwt`): a new
    /// one, with a fresh `jti` and a one-minute `exp`, on every request,
    /// addressed to the issuer unless `audience` says otherwise.
    case privateKeyJWT(key: ClientAssertionKey, audience: ClientAssertionAudience = .issuer)
    /// A JWT signed with HS256 keyed by the client secret (`client_secret_jwt`),
    /// fresh on every request like ``privateKeyJWT(key:audience:)``. The
    /// secret must be at least 32 bytes, the size of the SHA-256 output
    /// (RFC 7518 §3.2): a shorter one is refused with
    /// ``AuthFlowError/Reason/secretTooShort``.
    case clientSecretJWT(secret: String, audience: ClientAssertionAudience = .issuer)

    /// The OIDC name of the method (`none`, `client_secret_basic`,
    /// `client_secret_post`, `private_key_jwt`, `client_secret_jwt`).
    public var methodName: String {
        switch self {
        case .none: "none"
        case .clientSecretBasic: "client_secret_basic"
        case .clientSecretPost: "client_secret_post"
        case .privateKeyJWT: "private_key_jwt"
        case .clientSecretJWT: "client_secret_jwt"
        }
    }

    /// Whether a secret is available (HMAC ID tokens need one).
    public var secret: String? {
        switch self {
        case .none, .privateKeyJWT: nil
        case .clientSecretBasic(let secret), .clientSecretPost(let secret), .clientSecretJWT(let secret, _): secret
        }
    }

    /// The fewest bytes of a `client_secret_jwt` secret: the SHA-256 output
    /// size, since assertions are signed with HS256 (RFC 7518 §3.2). The
    /// embedded provider requires the same of its clients.
    package static let minimumHMACSecretBytes = 32

    /// Refuses settings no request could be safely sent with: a
    /// `client_secret_jwt` secret shorter than ``minimumHMACSecretBytes``.
    func validate() throws {
        if case .clientSecretJWT(let secret, _) = self, secret.utf8.count < ClientAuthentication.minimumHMACSecretBytes {
            throw AuthFlowError(
                .configuration,
                "the client_secret_jwt secret has \(secret.utf8.count) bytes; HS256 needs at least \(ClientAuthentication.minimumHMACSecretBytes)",
                reason: .secretTooShort,
                recovery: "Use a client secret of at least 32 bytes (RFC 7518 §3.2), or another client authentication method.")
        }
    }

    /// This authentication with an ``ClientAssertionAudience/issuer`` or
    /// ``ClientAssertionAudience/tokenEndpoint`` audience replaced by its
    /// value for this provider, so that every endpoint (token, PAR,
    /// revocation, device) gets the same `aud`.
    func resolvingAudience(issuer: Issuer?, tokenEndpoint: URL) -> ClientAuthentication {
        switch self {
        case .privateKeyJWT(let key, let audience):
            .privateKeyJWT(key: key, audience: .value(audience.resolve(issuer: issuer, tokenEndpoint: tokenEndpoint)))
        case .clientSecretJWT(let secret, let audience):
            .clientSecretJWT(secret: secret, audience: .value(audience.resolve(issuer: issuer, tokenEndpoint: tokenEndpoint)))
        default: self
        }
    }

    /// Adds this authentication to a request to `endpoint` (an audience not
    /// yet resolved for a provider falls back to that URL). Returns the
    /// values it added that must never be echoed (the assertion).
    @discardableResult
    func apply(
        clientID: String, endpoint: URL, to form: inout [(String, String)],
        headers: inout [(name: String, value: String)], now: Date = Date()
    ) throws -> [String] {
        switch self {
        case .none:
            form.append(("client_id", clientID))
        case .clientSecretPost(let secret):
            form.append(("client_id", clientID))
            form.append(("client_secret", secret))
        case .clientSecretBasic(let secret):
            let pair = "\(FormEncoding.escape(clientID)):\(FormEncoding.escape(secret))"
            headers.append((name: "Authorization", value: "Basic \(Data(pair.utf8).base64EncodedString())"))
        case .privateKeyJWT(let key, let audience):
            return [try appendAssertion(clientID: clientID, signer: .key(key), audience: audience, endpoint: endpoint, to: &form, now: now)]
        case .clientSecretJWT(let secret, let audience):
            return [
                try appendAssertion(
                    clientID: clientID, signer: .secret(secret), audience: audience, endpoint: endpoint, to: &form, now: now)
            ]
        }
        return []
    }

    private func appendAssertion(
        clientID: String, signer: ClientAssertion.Signer, audience: ClientAssertionAudience, endpoint: URL,
        to form: inout [(String, String)], now: Date
    ) throws -> String {
        try validate()
        let assertion: String
        do {
            assertion = try ClientAssertion.make(
                clientID: clientID, audience: audience.resolve(issuer: nil, tokenEndpoint: endpoint),
                signer: signer, now: now)
        } catch {
            throw AuthFlowError(.configuration, "the client assertion could not be signed (\(type(of: error)))")
        }
        form.append(("client_id", clientID))
        form.append(("client_assertion_type", ClientAssertion.type))
        form.append(("client_assertion", assertion))
        return assertion
    }
}

extension ClientAuthentication: CustomStringConvertible {
    /// The method name only; the secret or key is never shown.
    public var description: String { methodName }
}
