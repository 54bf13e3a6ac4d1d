#if EmbeddedProvider // the EmbeddedProvider package trait
import AuthFlow
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The device authorization endpoint (RFC 8628 §3.1–3.2). A `dpop_jkt`
/// parameter binds the device code to that DPoP key: each poll must carry a
/// proof of it, and the tokens are bound to it.
struct DeviceAuthorizationEndpoint: Sendable {
    let state: ProviderState

    func handle(_ request: ProviderRequest) async -> ProviderResponse {
        do throws(OAuthFailure) {
            let (form, client) = try await state.authenticatedForm(request)
            guard client.grantTypes.contains(GrantType.deviceCode) else {
                throw OAuthFailure.unauthorizedClient("the client may not use the device authorization grant")
            }
            let scopes = form.scopes ?? []
            if let scope = scopes.first(where: { !client.scopes.contains($0) }) {
                throw OAuthFailure.invalidScope("the client may not request the scope \(scope)")
            }
            let resource = try ResourceIndicator.parse(form)
            let (deviceCode, record) = await state.startDeviceAuthorization(
                client: client, scopes: scopes, dpopJKT: form["dpop_jkt"], resource: resource)
            let verification = await state.issuer + EndpointPaths.device
            let lifetimes = state.configuration.lifetimes
            return .json(
                .object([
                    "device_code": .string(deviceCode),
                    "user_code": .string(record.userCode),
                    "verification_uri": .string(verification),
                    "verification_uri_complete": .string(verification + "?" + FormEncoding.encode([("user_code", record.userCode)])),
                    "expires_in": .number(lifetimes.deviceCode.rounded(.up)),
                    "interval": .number(lifetimes.devicePollingInterval.rounded(.up)),
                ]), noStore: true)
        } catch {
            return error.response
        }
    }
}
#endif
