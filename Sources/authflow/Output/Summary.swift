#if CLI // the CLI package trait
import AuthFlow
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The success object of `login --json` and the basis of `status`.
struct Summary: Encodable {
    let profile: String
    let issuer: String?
    /// The protected resource the profile signed in to (`login --resource`).
    let resource: String?
    let subject: String?
    let scope: String
    let expiresAt: Date?
    let tokenType: String
    let hasRefreshToken: Bool
    let idTokenClaims: [String: JSONMemberValue]?
    let expired: Bool?
    let tokens: (access: String, refresh: String?, id: String?)?
    let userInfo: OpenIDUserInfo?
    /// Where the credentials live: `file`, `secret-service` or `postgresql`.
    let store: String
    /// The session's tokens for other resources, without their values.
    var resourceTokens: [ResourceTokenStatus] = []

    /// One token for another resource as `status` shows it: never the token.
    struct ResourceTokenStatus: Encodable {
        let resource: String
        let grant: String
        let scope: String
        let expiresAt: Date?
        let expired: Bool

        init(_ token: ResourceToken, now: Date) {
            resource = token.resource.description
            grant = token.grant
            scope = token.scopes.joined(separator: " ")
            expiresAt = token.expiresAt
            expired = token.expiresAt.map { $0 <= now } ?? false
        }

        enum CodingKeys: String, CodingKey {
            case resource, grant, scope, expired
            case expiresAt = "expires_at"
        }
    }

    /// This summary listing `tokens`, the session's tokens for other resources.
    func listing(_ tokens: [ResourceToken], now: Date) -> Summary {
        var copy = self
        copy.resourceTokens = tokens.map { ResourceTokenStatus($0, now: now) }.sorted { $0.resource < $1.resource }
        return copy
    }

    init(
        profile: Profile, credentials: OAuthCredentials, showTokens: Bool, userInfo: OpenIDUserInfo? = nil, includeExpired: Bool = false,
        now: Date = Date(), store: String? = nil
    ) {
        self.init(
            name: profile.name, issuer: profile.issuer, resource: profile.resource?.description, credentials: credentials,
            showTokens: showTokens, userInfo: userInfo, includeExpired: includeExpired, now: now,
            store: store ?? (profile.usesKeyring ? ProfileKeyring.storeName : "file"))
    }

    /// A summary of a profile whose settings are not in a profile file (a shared store's record).
    init(
        name: String, issuer: String?, resource: String?, credentials: OAuthCredentials, showTokens: Bool,
        userInfo: OpenIDUserInfo? = nil, includeExpired: Bool = false, now: Date = Date(), store: String
    ) {
        self.userInfo = userInfo
        self.store = store
        self.profile = name
        self.issuer = issuer
        self.resource = resource
        subject = credentials.subject
        scope = credentials.scopes.joined(separator: " ")
        expiresAt = credentials.expiresAt
        tokenType = credentials.token.tokenType
        hasRefreshToken = credentials.token.refreshToken != nil
        idTokenClaims = credentials.idToken.map(Summary.printable)
        expired = includeExpired ? credentials.expiresAt.map { $0 <= now } ?? false : nil
        tokens = showTokens ? (credentials.accessToken, credentials.token.refreshToken, credentials.token.idToken) : nil
    }

    enum CodingKeys: String, CodingKey {
        case profile, issuer, resource, subject, scope, expired, store
        case expiresAt = "expires_at"
        case tokenType = "token_type"
        case hasRefreshToken = "has_refresh_token"
        case idTokenClaims = "id_token_claims"
        case accessToken = "access_token"
        case refreshToken = "refresh_token"
        case idToken = "id_token"
        case userInfo = "userinfo"
        case resourceTokens = "resource_tokens"
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(profile, forKey: .profile)
        try container.encode(issuer, forKey: .issuer)
        try container.encodeIfPresent(resource, forKey: .resource)
        try container.encode(subject, forKey: .subject)
        try container.encode(scope, forKey: .scope)
        try container.encode(expiresAt, forKey: .expiresAt)
        try container.encode(tokenType, forKey: .tokenType)
        try container.encode(hasRefreshToken, forKey: .hasRefreshToken)
        try container.encode(idTokenClaims, forKey: .idTokenClaims)
        try container.encodeIfPresent(expired, forKey: .expired)
        try container.encode(store, forKey: .store)
        try container.encodeIfPresent(userInfo?.all, forKey: .userInfo)
        if !resourceTokens.isEmpty { try container.encode(resourceTokens, forKey: .resourceTokens) }
        if let tokens {
            try container.encode(tokens.access, forKey: .accessToken)
            try container.encode(tokens.refresh, forKey: .refreshToken)
            try container.encode(tokens.id, forKey: .idToken)
        }
    }

    /// What is shown instead of the nonce, which was checked and is never printed.
    static let redactedNonce = "<verified, not shown>"

    /// ID-token claims for output: every claim, the nonce replaced.
    static func printable(_ claims: IDTokenClaims) -> [String: JSONMemberValue] {
        var all = claims.all
        if all["nonce"] != nil { all["nonce"] = .string(redactedNonce) }
        return all
    }

    static func render(_ value: JSONMemberValue) -> String {
        if let text = value.stringValue { return TerminalText.field(text) }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(value)).map { String(decoding: $0, as: UTF8.self) } ?? "?"
    }

    func printHuman(path: URL?) {
        var lines: [String] = []
        if let path { lines.append("Signed in. Profile \(profile) saved to \(path.path)") } else { lines.append("Profile \(profile)") }
        lines.append("  issuer:   \(issuer ?? "(not discovered)")")
        if let resource { lines.append("  resource: \(TerminalText.field(resource))") }
        lines.append("  subject:  \(subject ?? "(no verified ID token)")")
        lines.append("  scope:    \(scope.isEmpty ? "(none)" : scope)")
        let expiry = expiresAt.map(InternetDateTime.string(from:)) ?? "(not given)"
        lines.append("  expires:  \(expiry)\(expired == true ? " (expired)" : "")")
        lines.append("  refresh:  \(hasRefreshToken ? "yes" : "no")")
        switch store {
        case ProfileKeyring.storeName: lines.append("  store:    the desktop keyring (secret-service)")
        case "file": lines.append("  store:    the profile file (file)")
        default: lines.append("  store:    \(store)")
        }
        if !resourceTokens.isEmpty {
            lines.append("  tokens for other resources:")
            for token in resourceTokens {
                let expiry = token.expiresAt.map(InternetDateTime.string(from:)) ?? "no expiry given"
                lines.append(
                    "    \(TerminalText.field(token.resource)) (\(TerminalText.field(token.grant)), scope \(token.scope.isEmpty ? "(none)" : TerminalText.field(token.scope)), "
                        + "expires \(expiry)\(token.expired ? ", expired" : ""))")
            }
        }
        if let claims = idTokenClaims {
            lines.append("  verified ID token claims:")
            for (name, value) in claims.sorted(by: { $0.key < $1.key }) {
                lines.append("    \(TerminalText.field(name)): \(Summary.render(value))")
            }
        }
        if let userInfo {
            lines.append("  userinfo:")
            for (name, value) in userInfo.all.sorted(by: { $0.key < $1.key }) {
                lines.append("    \(TerminalText.field(name)): \(Summary.render(value))")
            }
        }
        if let tokens {
            lines.append("  access_token:  \(tokens.access)")
            if let refresh = tokens.refresh { lines.append("  refresh_token: \(refresh)") }
            if let id = tokens.id { lines.append("  id_token:      \(id)") }
        }
        Output.stdout(lines.joined(separator: "\n"))
    }
}
#endif
