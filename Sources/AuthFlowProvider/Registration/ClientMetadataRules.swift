#if EmbeddedProvider // the EmbeddedProvider package trait
import AuthFlow
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The rules client metadata must follow to become a ``ProviderClient``:
/// RFC 7591 §2 with OpenID Connect Dynamic Client Registration's
/// `application_type` and RFC 8252's native redirect URIs. The registration
/// endpoint and client ID metadata documents both apply them.
///
/// - `application_type` `native`: each redirect URI is `http` on a loopback
///   host (`127.0.0.1` or `[::1]`, which then match any port, RFC 8252 §7.3;
///   `localhost` is accepted for the clients that use it but matched
///   exactly, port included, since RFC 8252 §8.3 does not recommend it), a
///   private-use scheme in reverse-DNS form (§7.1), or `https` (§7.2).
///   `web`: `https` only. Absent: `native` when every redirect URI is one a
///   native client may use, else `web`.
/// - `grant_types` (default `authorization_code`) and `response_types`
///   (default `code`) must agree: `code` goes with `authorization_code`
///   and nothing else is supported; `redirect_uris` is required with it.
/// - `token_endpoint_auth_method` (default `client_secret_basic`, RFC 7591
///   §2) is one the provider supports; `private_key_jwt` needs `jwks`
///   (`jwks_uri` is not supported); `client_credentials` needs a
///   confidential method.
///
/// Errors are RFC 7591 §3.2.2's: `invalid_redirect_uri` for a redirect URI,
/// `invalid_client_metadata` for anything else.
struct ClientMetadataRules {
    /// The scopes such a client may have: all of them when `scope` is
    /// absent, else those of `scope` among them (others are dropped, and the
    /// answer's `scope` says what was granted, RFC 7591 §3.2.1).
    let defaultScopes: Set<String>
    /// The methods allowed (client ID metadata documents allow no shared secret).
    var allowedMethods: Set<ProviderClient.Authentication> = Set(ProviderClient.Authentication.allCases)

    /// What the metadata registers: the client, and the metadata as the
    /// provider recorded it (echoed in the registration response).
    struct Result {
        var client: ProviderClient
        var metadata: [String: JSONMemberValue]
    }

    func client(from object: [String: JSONMemberValue], id: String, secret: (ProviderClient.Authentication) -> String?) throws(OAuthFailure)
        -> Result
    {
        let redirectURIs = try strings(object, "redirect_uris") ?? []
        let grantTypes = try strings(object, "grant_types") ?? [GrantType.authorizationCode]
        let responseTypes = try strings(object, "response_types") ?? ["code"]
        for grant in grantTypes where !GrantType.all.contains(grant) {
            throw Self.metadata("the grant type \(grant) is not supported (\(GrantType.all.joined(separator: ", ")))")
        }
        for type in responseTypes where type != "code" { throw Self.metadata("the response type \(type) is not supported (only code)") }
        guard grantTypes.contains(GrantType.authorizationCode) == responseTypes.contains("code") else {
            throw Self.metadata("grant_types and response_types disagree: authorization_code goes with the response type code")
        }
        let methodName = try string(object, "token_endpoint_auth_method") ?? ProviderClient.Authentication.clientSecretBasic.rawValue
        guard let method = ProviderClient.Authentication(rawValue: methodName), allowedMethods.contains(method) else {
            throw Self.metadata(
                "token_endpoint_auth_method \(methodName) is not supported (\(allowedMethods.map(\.rawValue).sorted().joined(separator: ", ")))"
            )
        }
        if grantTypes.contains(GrantType.clientCredentials), method == .none {
            throw Self.metadata("client_credentials needs a confidential client, not token_endpoint_auth_method none")
        }
        if grantTypes.contains(GrantType.jwtBearer), method == .none {
            throw Self.metadata("the JWT bearer grant needs a confidential client, not token_endpoint_auth_method none")
        }
        if object["jwks_uri"] != nil { throw Self.metadata("jwks_uri is not supported; give the keys as jwks") }
        let jwks = object["jwks"]
        if method == .privateKeyJWT {
            guard let jwks, let data = try? JSONEncoder().encode(jwks), let set = try? JSONWebKeySet(json: data), !set.keys.isEmpty else {
                throw Self.metadata("private_key_jwt needs jwks with at least one usable public key")
            }
        }
        if grantTypes.contains(GrantType.authorizationCode), redirectURIs.isEmpty {
            throw OAuthFailure("invalid_redirect_uri", "redirect_uris is required for the authorization code grant")
        }
        let declared = try string(object, "application_type")
        let applicationType = declared ?? (redirectURIs.allSatisfy(Self.isNativeRedirect) ? "native" : "web")
        guard applicationType == "native" || applicationType == "web" else {
            throw Self.metadata("application_type must be native or web")
        }
        for uri in redirectURIs { try Self.check(uri, applicationType: applicationType) }
        let postLogout = try strings(object, "post_logout_redirect_uris") ?? []
        for uri in postLogout { try Self.check(uri, applicationType: applicationType) }
        let scopes =
            try string(object, "scope").map { Set($0.split(separator: " ").map(String.init)).intersection(defaultScopes) } ?? defaultScopes
        var metadata: [String: JSONMemberValue] = [
            "client_id": .string(id),
            "redirect_uris": .array(redirectURIs.map(JSONMemberValue.string)),
            "grant_types": .array(grantTypes.map(JSONMemberValue.string)),
            "response_types": .array(responseTypes.map(JSONMemberValue.string)),
            "token_endpoint_auth_method": .string(method.rawValue),
            "application_type": .string(applicationType),
            "scope": .string(scopes.sorted().joined(separator: " ")),
        ]
        if !postLogout.isEmpty { metadata["post_logout_redirect_uris"] = .array(postLogout.map(JSONMemberValue.string)) }
        for name in ["client_name", "client_uri", "logo_uri", "tos_uri", "policy_uri", "software_id", "software_version"] {
            if let value = try string(object, name) { metadata[name] = .string(value) }
        }
        if let jwks, method == .privateKeyJWT { metadata["jwks"] = jwks }
        let client = ProviderClient(
            id: id, secret: secret(method), authentication: method, redirectURIs: redirectURIs, postLogoutRedirectURIs: postLogout,
            grantTypes: Set(grantTypes), scopes: scopes, jwks: method == .privateKeyJWT ? jwks : nil)
        return Result(client: client, metadata: metadata)
    }

    /// Whether a native client may use `uri` (see the type's description).
    static func isNativeRedirect(_ uri: String) -> Bool {
        (try? check(uri, applicationType: "native")) != nil
    }

    /// Refuses a redirect URI the application type may not use.
    static func check(_ uri: String, applicationType: String) throws(OAuthFailure) {
        guard let url = URL(string: uri), let scheme = url.scheme?.lowercased(), uri.lowercased().hasPrefix(scheme + ":") else {
            throw OAuthFailure("invalid_redirect_uri", "\(uri) is not an absolute URI")
        }
        guard url.fragment == nil, !uri.contains("#") else {
            throw OAuthFailure("invalid_redirect_uri", "\(uri) has a fragment (RFC 6749 §3.1.2)")
        }
        guard url.user == nil, url.password == nil else { throw OAuthFailure("invalid_redirect_uri", "\(uri) carries user information") }
        let host = url.host?.lowercased() ?? ""
        let loopback = ["127.0.0.1", "::1", "[::1]", "localhost"].contains(host)
        switch (applicationType, scheme) {
        case (_, "https"):
            guard !host.isEmpty else { throw OAuthFailure("invalid_redirect_uri", "\(uri) has no host") }
            if applicationType == "web", loopback {
                throw OAuthFailure("invalid_redirect_uri", "a web client's redirect URI must not be a loopback host")
            }
        case ("native", "http"):
            guard loopback else {
                throw OAuthFailure(
                    "invalid_redirect_uri",
                    "a native client's http redirect URI must be on a loopback host, such as http://127.0.0.1/callback (RFC 8252 §7.3)")
            }
        case ("native", _):
            let labels = scheme.split(separator: ".", omittingEmptySubsequences: false)
            guard labels.count >= 2, labels.allSatisfy({ !$0.isEmpty }) else {
                throw OAuthFailure(
                    "invalid_redirect_uri",
                    "the private-use scheme \(scheme) must be in reverse-DNS form, such as com.example.app (RFC 8252 §7.1)")
            }
        default:
            throw OAuthFailure("invalid_redirect_uri", "a web client's redirect URI must use https (\(uri))")
        }
    }

    private func string(_ object: [String: JSONMemberValue], _ name: String) throws(OAuthFailure) -> String? {
        switch object[name] {
        case nil, .null?: return nil
        case .string(let value)?: return value
        default: throw Self.metadata("\(name) must be a string")
        }
    }

    private func strings(_ object: [String: JSONMemberValue], _ name: String) throws(OAuthFailure) -> [String]? {
        switch object[name] {
        case nil, .null?: return nil
        case .array(let values)?:
            var result: [String] = []
            for value in values {
                guard case .string(let text) = value, !text.isEmpty else { throw Self.metadata("\(name) must be an array of strings") }
                result.append(text)
            }
            return result
        default: throw Self.metadata("\(name) must be an array of strings")
        }
    }

    static func metadata(_ description: String) -> OAuthFailure { OAuthFailure("invalid_client_metadata", description) }
}
#endif
