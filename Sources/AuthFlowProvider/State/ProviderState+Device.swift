#if EmbeddedProvider // the EmbeddedProvider package trait
import AuthFlow
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension ProviderState {
    /// Starts a device authorization (RFC 8628 §3.1–3.2); returns the device code.
    func startDeviceAuthorization(
        client: ProviderClient, scopes: [String], dpopJKT: String? = nil, resource: String? = nil,
        now: Date = Date()
    ) -> (deviceCode: String, record: DeviceRecord) {
        sweep(now: now)
        let lifetimes = configuration.lifetimes
        let record = DeviceRecord(
            clientID: client.id, userCode: RandomToken.userCode(), scopes: scopes,
            expiresAt: now.addingTimeInterval(lifetimes.deviceCode), pace: PollingPace(interval: lifetimes.devicePollingInterval),
            dpopJKT: dpopJKT, resource: resource)
        let deviceCode = RandomToken.make()
        devices[deviceCode] = record
        return (deviceCode, record)
    }

    /// The pending authorization with this user code (case and dashes ignored).
    func deviceAuthorization(userCode: String, now: Date = Date()) -> DeviceRecord? {
        devices.values.first { DeviceState.sameUserCode($0.userCode, userCode) && $0.expiresAt > now && !$0.redeemed }
    }

    /// Records the user's decision on the verification page; false when the code is unknown or already decided.
    func decide(userCode: String, approvedBy subject: String?, now: Date = Date()) -> Bool {
        guard
            let (deviceCode, record) = devices.first(where: {
                DeviceState.sameUserCode($0.value.userCode, userCode) && $0.value.expiresAt > now && !$0.value.redeemed
            }), case .pending = record.decision
        else { return false }
        devices[deviceCode]?.decision = subject.map { .approved(subject: $0, authTime: now) } ?? .denied
        return true
    }

    /// The device-code grant (RFC 8628 §3.4–3.5): `authorization_pending`
    /// until the user decides, `slow_down` (and a longer interval) when
    /// polled too fast, `access_denied`, `expired_token`; redeemed once.
    func pollDevice(_ deviceCode: String, client: ProviderClient, dpopJKT: String? = nil, resource: String? = nil, now: Date = Date())
        throws -> IssuedTokens
    {
        guard var record = devices[deviceCode] else { throw OAuthFailure.invalidGrant("the device code is unknown") }
        defer { devices[deviceCode] = record }
        let (scopes, granted) = (record.scopes, record.resource)
        // Bound to the key of the poll's DPoP proof, if it had one (RFC 9449 §5).
        let approval = { (subject: String, authTime: Date) in
            GrantRecord(clientID: client.id, subject: subject, scopes: scopes, authTime: authTime, dpopJKT: dpopJKT, resource: granted)
        }
        return try answerPoll(
            &record, named: "the device code", expired: "the device code has expired", client: client, resource: resource, now: now,
            check: { record in
                if let bound = record.dpopJKT, bound != dpopJKT {
                    throw OAuthFailure.invalidGrant(
                        dpopJKT == nil
                            ? "the device authorization request named a DPoP key (dpop_jkt); a DPoP proof is required"
                            : "the DPoP proof's key is not the dpop_jkt of the device authorization request")
                }
            }, approval: approval)
    }
}

/// User-code comparison: case-insensitive, dashes and spaces ignored (RFC 8628 §6.1).
enum DeviceState {
    static func sameUserCode(_ a: String, _ b: String) -> Bool {
        func normal(_ s: String) -> String { s.uppercased().filter { $0 != "-" && $0 != " " } }
        return normal(a) == normal(b)
    }
}
#endif
