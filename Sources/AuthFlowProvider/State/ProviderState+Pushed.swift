#if EmbeddedProvider // the EmbeddedProvider package trait
import AuthFlow
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

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

    /// The parameters pushed under `uri` for `clientID`, consumed (one use,
    /// RFC 9126 §4); nil when unknown, used, expired or another client's.
    func takePushedRequest(_ uri: String, clientID: String, now: Date = Date()) -> [(String, String)]? {
        // Another client's attempt leaves the request in place for its own client.
        guard let record = pushedRequests[uri], record.clientID == clientID else { return nil }
        pushedRequests[uri] = nil
        return record.expiresAt > now ? record.parameters : nil
    }

    /// Starts a login-page interaction with the `parameters` of a pushed
    /// request (already used up); returns its handle, which the page posts
    /// back. It lives ``TokenLifetimes/interaction`` seconds, apart from the
    /// `request_uri`'s short lifetime.
    func beginInteraction(_ parameters: [(String, String)], clientID: String, now: Date = Date()) -> String {
        sweep(now: now)
        let handle = RandomToken.make(bytes: 24)
        interactions[handle] = PushedRequestRecord(
            parameters: parameters, clientID: clientID,
            expiresAt: now.addingTimeInterval(configuration.lifetimes.interaction))
        return handle
    }

    /// The parameters of the interaction `handle` for `clientID`, left in
    /// place (the page may be shown again); nil when unknown, ended, expired
    /// or another client's.
    func interaction(_ handle: String, clientID: String, now: Date = Date()) -> [(String, String)]? {
        guard let record = interactions[handle], record.clientID == clientID, record.expiresAt > now else { return nil }
        return record.parameters
    }

    /// Ends the interaction `handle`: true when it was live and `clientID`'s
    /// (one code per interaction, even to concurrent posts).
    func endInteraction(_ handle: String, clientID: String, now: Date = Date()) -> Bool {
        guard let record = interactions.removeValue(forKey: handle) else { return false }
        return record.clientID == clientID && record.expiresAt > now
    }
}
#endif
