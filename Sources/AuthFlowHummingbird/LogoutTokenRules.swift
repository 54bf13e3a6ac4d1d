#if Hummingbird // the Hummingbird package trait
import AuthFlow
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// OpenID Connect Back-Channel Logout 1.0 §2.6: the logout token's
/// signature with the issuer's JWK Set, `iss`, `aud` = the client ID, `exp`,
/// `iat`, `typ` `logout+jwt` when present, the `events` member with the
/// back-channel logout event (an object), `sid` and/or `sub`, no `nonce`,
/// and a `jti` not seen before.
struct LogoutTokenRules: Sendable {
    static let event = "http://schemas.openid.net/event/backchannel-logout"

    let verifier: JWTVerifier
    let replayCache: any ReplayCache

    /// Why a logout token was refused; the description has no secrets.
    struct Refusal: Error, Sendable, Equatable {
        let description: String
    }

    func verify(_ token: String, now: Date = Date()) async throws(Refusal) -> BackChannelLogoutRequest {
        let jwt: VerifiedJWT
        do {
            jwt = try await verifier.verify(token, now: now)
        } catch let error as AuthFlowError {
            throw Refusal(description: error.message)
        } catch {
            throw Refusal(description: "the logout token could not be verified")
        }
        if jwt.header["typ"] != nil, !jwt.hasType("logout+jwt") {
            throw Refusal(description: "the logout token's typ is not logout+jwt")
        }
        guard let iat = jwt.issuedAt else { throw Refusal(description: "the logout token has no iat") }
        guard let events = jwt.claim("events")?.objectValue else { throw Refusal(description: "the logout token has no events member") }
        guard events[Self.event]?.objectValue != nil else {
            throw Refusal(description: "the logout token's events member has no back-channel logout event")
        }
        guard !jwt.hasClaim("nonce") else { throw Refusal(description: "a logout token must not carry a nonce") }
        let subject = jwt.string("sub")
        let sessionID = jwt.string("sid")
        guard subject != nil || sessionID != nil else { throw Refusal(description: "the logout token names neither sub nor sid") }
        guard let jti = jwt.string("jti"), !jti.isEmpty else { throw Refusal(description: "the logout token has no jti") }
        let firstUse: Bool
        do {
            firstUse = try await replayCache.firstUse(of: Self.replayKey(jti), until: jwt.expiresAt.addingTimeInterval(verifier.leeway + 1))
        } catch {
            throw Refusal(description: "the logout replay store failed")
        }
        guard firstUse else { throw Refusal(description: "the logout token was already used (jti replay)") }
        return BackChannelLogoutRequest(
            issuer: verifier.issuer, subject: subject, sessionID: sessionID, tokenID: jti, issuedAt: iat)
    }

    /// Forgets a logout whose handler failed, so that the provider's retry is
    /// taken (OpenID Connect Back-Channel Logout 1.0 §2.8: the 400 invites one).
    func forget(_ logout: BackChannelLogoutRequest) async {
        try? await replayCache.forget(Self.replayKey(logout.tokenID))
    }

    private static func replayKey(_ jti: String) -> String { "logout " + jti }
}
#endif
