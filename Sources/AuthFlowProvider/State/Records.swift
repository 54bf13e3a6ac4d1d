#if EmbeddedProvider // the EmbeddedProvider package trait
import AuthFlow
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One authorization a user (or a client, for `client_credentials`) gave:
/// every token issued from it belongs to it, and revoking it revokes them all
/// (code reuse, refresh-token replay, revocation of a refresh token).
struct GrantRecord: Sendable {
    let clientID: String
    let subject: String?
    let scopes: [String]
    let authTime: Date?
    var revoked = false
    /// The DPoP key every token of this grant is bound to (`cnf.jkt`, RFC 9449 §6).
    var dpopJKT: String? = nil
    /// The resource (RFC 8707) the grant is for; nil when the authorization
    /// request named none (its tokens may then name any).
    var resource: String? = nil
    /// The authentication context class the user signed in at (`acr`), when
    /// the request asked for one the provider supports.
    var acr: String? = nil
}

/// An issued authorization code, bound to its client, redirect URI and PKCE challenge.
struct CodeRecord: Sendable {
    let grantID: String
    let clientID: String
    let redirectURI: String
    let challenge: String
    let nonce: String?
    let expiresAt: Date
    var redeemed = false
    /// `dpop_jkt` of the authorization request (RFC 9449 §10).
    var dpopJKT: String? = nil
}

/// An issued access token.
struct AccessTokenRecord: Sendable {
    let grantID: String
    let scopes: [String]
    /// Its `aud`: the resource it was issued for (RFC 8707, RFC 9068 §3).
    let audience: String
    let issuedAt: Date
    let expiresAt: Date
    /// Its `act` (RFC 8693 §4.1), for a token exchanged to an actor: kept here, so that opaque tokens carry it too.
    var actor: JSONMemberValue? = nil
    var revoked = false
}

/// An issued refresh token; `rotated` once it has been exchanged.
struct RefreshTokenRecord: Sendable {
    let grantID: String
    let issuedAt: Date
    let expiresAt: Date
    var rotated = false
    var revoked = false
}

/// The user's answer to a device or backchannel authorization.
enum UserDecision: Sendable {
    case pending
    case approved(subject: String, authTime: Date)
    case denied
}

/// How fast a client may poll (RFC 8628 §3.5, OpenID CIBA Core 1.0 §11):
/// a poll sooner than `interval` after the last one is `slow_down`, and the
/// interval grows for this and every later poll.
struct PollingPace: Sendable {
    var interval: TimeInterval
    var lastPoll: Date? = nil

    mutating func poll(now: Date, increment: TimeInterval) throws(OAuthFailure) {
        defer { lastPoll = now }
        if let lastPoll, now.timeIntervalSince(lastPoll) < interval {
            interval += increment
            throw OAuthFailure("slow_down", "polling too fast; the interval is now \(Int(interval.rounded(.up))) s")
        }
    }
}

/// A pending device authorization (RFC 8628).
struct DeviceRecord: Sendable {
    let clientID: String
    let userCode: String
    let scopes: [String]
    let expiresAt: Date
    var pace: PollingPace
    var decision: UserDecision = .pending
    var redeemed = false
    /// `dpop_jkt` of the device authorization request: every poll must then
    /// carry a DPoP proof of that key (as RFC 9449 §10 binds a code).
    var dpopJKT: String? = nil
    /// The `resource` of the device authorization request (RFC 8707).
    var resource: String? = nil
}

/// A pending backchannel authentication (OpenID CIBA Core 1.0), by `auth_req_id`.
struct BackchannelRecord: Sendable {
    let clientID: String
    /// The user the request's hint named: only they may approve it.
    let subject: String
    let scopes: [String]
    let bindingMessage: String?
    /// The `acr` the approval gets: the first of the request's `acr_values` the provider supports.
    let acr: String?
    let expiresAt: Date
    /// The handle of the approval page (`/ciba?request=…`): not the `auth_req_id`, which is the client's secret.
    let approvalID: String
    /// Ping mode: the endpoint and the `client_notification_token`.
    let notification: (endpoint: URL, token: String)?
    var pace: PollingPace
    var decision: UserDecision = .pending
    var redeemed = false
    var resource: String? = nil
}

/// What a valid access token stands for (userinfo, introspection).
struct TokenInfo: Sendable {
    let clientID: String
    let subject: String?
    let scopes: [String]
    let issuedAt: Date
    let expiresAt: Date
    let kind: String
    /// The DPoP key the token is bound to.
    var dpopJKT: String? = nil
    /// An access token's `aud`.
    var audience: String? = nil
    /// An exchanged access token's `act` (RFC 8693 §4.1), with its nested actors.
    var actor: JSONMemberValue? = nil
}
#endif
