#if EmbeddedProvider // the EmbeddedProvider package trait
import AuthFlow
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A grant its client polls the token endpoint for until the user decides:
/// a device code (RFC 8628) or a backchannel authentication request (OpenID
/// CIBA Core 1.0).
protocol PolledGrant: Sendable {
    var clientID: String { get }
    var expiresAt: Date { get }
    var pace: PollingPace { get set }
    var decision: UserDecision { get }
    var redeemed: Bool { get set }
    /// The resource indicator of the request, when it named one.
    var resource: String? { get }
}

extension DeviceRecord: PolledGrant {}
extension BackchannelRecord: PolledGrant {}

extension ProviderState {
    /// The answer to a poll of `record` (RFC 8628 §3.5, CIBA Core §11), whose
    /// code the errors call `named`: `invalid_grant` for another client's
    /// or a used code, `expired_token`, whatever `check` throws, the
    /// resource rule, `slow_down` when polled too fast (the pace is kept in
    /// `record` either way), `authorization_pending`, `access_denied`, or the
    /// tokens of the grant `approval` makes. A decided poll marks the code
    /// redeemed.
    func answerPoll<Grant: PolledGrant>(
        _ record: inout Grant, named code: String, expired: String, client: ProviderClient, resource: String?, now: Date,
        check: (Grant) throws -> Void = { _ in }, approval: (_ subject: String, _ authTime: Date) -> GrantRecord
    ) throws -> IssuedTokens {
        guard record.clientID == client.id else { throw OAuthFailure.invalidGrant("\(code) was issued to another client") }
        guard !record.redeemed else { throw OAuthFailure.invalidGrant("\(code) was already used") }
        guard record.expiresAt > now else { throw OAuthFailure("expired_token", expired) }
        try check(record)
        let audience = try ResourceIndicator.check(resource, granted: record.resource)
        try record.pace.poll(now: now, increment: configuration.lifetimes.deviceSlowDownIncrement)
        switch record.decision {
        case .pending:
            throw OAuthFailure("authorization_pending", "the user has not decided yet")
        case .denied:
            record.redeemed = true
            throw OAuthFailure("access_denied", "the user denied the request")
        case .approved(let subject, let authTime):
            record.redeemed = true
            let grantID = addGrant(approval(subject, authTime))
            return try issueTokens(grantID: grantID, nonce: nil, refresh: true, resource: audience, now: now)
        }
    }
}
#endif
