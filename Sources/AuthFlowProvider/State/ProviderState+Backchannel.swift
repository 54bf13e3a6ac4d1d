#if EmbeddedProvider // the EmbeddedProvider package trait
import AuthFlow
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Logging

extension ProviderState {
    /// Records a backchannel authentication request (OpenID CIBA Core 1.0
    /// §7.1–7.3); returns its `auth_req_id` (256 random bits, §7.3).
    func startBackchannel(
        client: ProviderClient, subject: String, scopes: [String], bindingMessage: String?, acr: String?, lifetime: TimeInterval,
        notificationToken: String?, resource: String?, now: Date = Date()
    ) -> (authRequestID: String, record: BackchannelRecord) {
        sweep(now: now)
        let notification: (endpoint: URL, token: String)? =
            if let endpoint = client.backchannelNotificationEndpoint, let notificationToken { (endpoint, notificationToken) } else { nil }
        let record = BackchannelRecord(
            clientID: client.id, subject: subject, scopes: scopes, bindingMessage: bindingMessage, acr: acr,
            expiresAt: now.addingTimeInterval(lifetime), approvalID: RandomToken.make(bytes: 16),
            notification: notification,
            pace: PollingPace(interval: configuration.lifetimes.devicePollingInterval), resource: resource)
        let id = RandomToken.make()
        backchannel[id] = record
        logger.info(
            "backchannel authentication waits for the user",
            metadata: [
                "client_id": "\(client.id)", "approve_at": "\(issuer)\(EndpointPaths.backchannelApproval)?request=\(record.approvalID)",
            ])
        return (id, record)
    }

    /// The undecided, unexpired requests, oldest first: all of them, or the one with `approvalID`.
    func pendingBackchannel(approvalID: String? = nil, now: Date = Date()) -> [BackchannelRecord] {
        backchannel.values
            .filter {
                if case .pending = $0.decision { $0.expiresAt > now && (approvalID == nil || $0.approvalID == approvalID) } else { false }
            }
            .sorted { $0.expiresAt < $1.expiresAt }
    }

    /// Records the user's decision on the approval page. Nil when the
    /// request is unknown, expired, decided, or names another user; else
    /// the record, whose ping (if any) the caller sends.
    func decideBackchannel(approvalID: String, subject: String, approve: Bool, now: Date = Date()) -> BackchannelRecord? {
        guard
            let (id, record) = backchannel.first(where: { $0.value.approvalID == approvalID }),
            record.expiresAt > now, record.subject == subject, case .pending = record.decision
        else { return nil }
        backchannel[id]?.decision = approve ? .approved(subject: subject, authTime: now) : .denied
        return backchannel[id]
    }

    /// The `auth_req_id` of a record, for its ping.
    func backchannelRequestID(approvalID: String) -> String? {
        backchannel.first { $0.value.approvalID == approvalID }?.key
    }

    /// The CIBA token request (§10.1, §11): `authorization_pending` until
    /// the user decides, `slow_down` when polled too fast, `access_denied`,
    /// `expired_token`; redeemed once, by the client it was issued to.
    func pollBackchannel(_ id: String, client: ProviderClient, dpopJKT: String? = nil, resource: String? = nil, now: Date = Date())
        throws -> IssuedTokens
    {
        guard var record = backchannel[id] else { throw OAuthFailure.invalidGrant("the auth_req_id is unknown") }
        defer { backchannel[id] = record }
        let (scopes, granted, acr) = (record.scopes, record.resource, record.acr)
        return try answerPoll(
            &record, named: "the auth_req_id", expired: "the backchannel authentication request has expired", client: client,
            resource: resource, now: now
        ) { subject, authTime in
            GrantRecord(
                clientID: client.id, subject: subject, scopes: scopes, authTime: authTime, dpopJKT: dpopJKT, resource: granted, acr: acr)
        }
    }
}
#endif
