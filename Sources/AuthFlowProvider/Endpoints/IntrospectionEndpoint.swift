#if EmbeddedProvider // the EmbeddedProvider package trait
import AuthFlow
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Token introspection (RFC 7662). Confidential clients may introspect any
/// token; a public client only its own. Anything else is `active: false`.
struct IntrospectionEndpoint: Sendable {
    let state: ProviderState

    func handle(_ request: ProviderRequest) async -> ProviderResponse {
        do throws(OAuthFailure) {
            let (form, client) = try await state.authenticatedForm(request)
            let token = try form.required("token")
            guard let info = await state.lookup(token, includeRefresh: true), client.isConfidential || info.clientID == client.id else {
                return .json(.object(["active": .bool(false)]), noStore: true)
            }
            var body: [String: JSONMemberValue] = [
                "active": .bool(true),
                "client_id": .string(info.clientID),
                "scope": .string(info.scopes.joined(separator: " ")),
                "token_type": .string(info.kind == "access_token" ? (info.dpopJKT == nil ? "Bearer" : "DPoP") : "refresh_token"),
                "exp": .number(info.expiresAt.timeIntervalSince1970.rounded(.down)),
                "iat": .number(info.issuedAt.timeIntervalSince1970.rounded(.down)),
                "iss": .string(await state.issuer),
                "aud": .string(info.audience ?? info.clientID),
            ]
            if let jkt = info.dpopJKT { body["cnf"] = .object(["jkt": .string(jkt)]) }
            // RFC 8693 §4.1: who acts for the subject, as an exchanged JWT would say (kept for opaque tokens too).
            if let actor = info.actor { body["act"] = actor }
            if let subject = info.subject {
                body["sub"] = .string(subject)
                body["username"] = state.configuration.user(subject: subject).map { .string($0.username) }
            }
            return .json(.object(body), noStore: true)
        } catch {
            return error.response
        }
    }
}
#endif
