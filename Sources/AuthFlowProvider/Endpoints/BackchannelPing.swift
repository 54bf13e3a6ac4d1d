#if EmbeddedProvider // the EmbeddedProvider package trait
import AuthFlow
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Logging

/// The ping of OpenID CIBA Core 1.0 §10.2: `POST` to the client's
/// notification endpoint with `Authorization: Bearer <client_notification_token>`
/// and `{"auth_req_id": …}`. One attempt within 5 seconds: the client polls
/// beside it, so a lost ping costs it one interval, not the sign-in.
struct BackchannelPing: Sendable {
    let logger: Logger
    var transport: any HTTPTransport = URLSessionTransport()

    func send(_ authRequestID: String, to endpoint: URL, token: String) async {
        do {
            let body = try JSONBody.bytes(.object(["auth_req_id": .string(authRequestID)]))
            let response = try await transport.send(
                HTTPTransportRequest(
                    method: "POST", url: endpoint,
                    headers: [("Content-Type", "application/json"), ("Authorization", "Bearer \(token)")],
                    body: Data(body), timeout: 5, purpose: .resource, maxResponseBytes: 4096))
            logger.info("backchannel ping sent", metadata: ["endpoint": "\(endpoint.absoluteString)", "status": "\(response.status)"])
        } catch {
            logger.warning("backchannel ping failed", metadata: ["endpoint": "\(endpoint.absoluteString)", "error": "\(type(of: error))"])
        }
    }
}
#endif
