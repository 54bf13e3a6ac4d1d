#if EmbeddedProvider  // the EmbeddedProvider package trait
import AuthFlow
import Foundation

/// A pushed authorization request (RFC 9126): its parameters, until used once or expired.
struct PushedRequestRecord: Sendable {
    let parameters: [(String, String)]
    let clientID: String
    let expiresAt: Date
}

extension ProviderState {
    /// Stores a pushed request; returns its `request_uri`.
    func pushAuthorizationRequest(_ parameters: [(String, String)], clientID: String, expiresAt: Date) -> String {
        sweep(now: Date())
        let uri = "urn:ietf:params:oauth:request_uri:" + RandomToken.make(bytes: 24)
        pushedRequests[uri] = PushedRequestRecord(parameters: parameters, clientID: clientID, expiresAt: expiresAt)
        return uri
    }

    /// The parameters pushed under `uri` for `clientID`, left in place (the
    /// login page shows them and posts the `request_uri` back); nil when
    /// unknown, used, expired or another client's.
    func pushedRequest(_ uri: String, clientID: String, now: Date = Date()) -> [(String, String)]? {
        guard let record = pushedRequests[uri], record.clientID == clientID, record.expiresAt > now else { return nil }
        return record.parameters
    }

    /// The parameters pushed under `uri` for `clientID`, consumed (one use,
    /// RFC 9126 §4); nil when unknown, used, expired or another client's.
    func takePushedRequest(_ uri: String, clientID: String, now: Date = Date()) -> [(String, String)]? {
        guard let record = pushedRequests.removeValue(forKey: uri) else { return nil }
        guard record.clientID == clientID, record.expiresAt > now else { return nil }
        return record.parameters
    }
}
#endif
