#if MCP // the MCP package trait
import AuthFlow
import Foundation
import Logging

extension AuthSessionAuthorizer {
    /// The session for `endpoint`: the one held, else (at the first request)
    /// the one in ``store`` when it is for that server. No network. Keeps the
    /// stored registration for a later sign-in either way.
    func restoredSession(for endpoint: URL) async throws -> AuthSession? {
        if let held = fields.withLock({ $0.session }) {
            return held.client.resource?.permitsRequest(to: endpoint) == true ? held : nil
        }
        // An enterprise-managed server's tokens are short-lived and come without a browser: nothing to restore.
        guard enterprise == nil, !fields.withLock({ $0.restored }) else { return nil }
        fields.withLock { $0.restored = true }
        let record: SessionRecord?
        do {
            record = try await store.load()
        } catch {
            logger.warning("the MCP session store could not be read; signing in anew", metadata: ["error": "\(error)"])
            return nil
        }
        guard let record else { return nil }
        fields.withLock { $0.storedRegistration = record.registration }
        guard let resource = record.resource, let wanted = try? ResourceIdentifier(endpoint), resource.covers(wanted) else {
            return nil
        }
        do {
            let restored = try await AuthSession.restore(
                record, from: store, authentication: record.registration?.authentication ?? identity.preRegistered?.authentication ?? .none,
                transport: transport, logger: logger, leeway: leeway)
            fields.withLock { $0.session = restored }
            return restored
        } catch {
            logger.warning("the stored MCP session could not be restored; signing in anew", metadata: ["error": "\(error)"])
            return nil
        }
    }

    /// Signs in to the MCP server at `endpoint` by its URL alone, keeps the
    /// session in ``store`` and holds its token.
    func signInByURL(_ endpoint: URL, challenge: ResourceChallenge?) async throws {
        if let enterprise { return try await signInWithIdentityAssertion(enterprise, scopes: scopes ?? []) }
        var identity = identity
        if identity.storedRegistration == nil {
            identity.storedRegistration = fields.withLock { $0.session?.client.registration ?? $0.storedRegistration }
        }
        let chosen = scopes
        let signIn = signIn
        let signedIn = try await OAuthClient.signIn(
            toResource: endpoint, challenge: challenge, identity: identity, transport: transport, timeout: timeout, leeway: leeway,
            logger: logger
        ) { access in
            try await signIn(access.client, chosen ?? challenge?.scopes ?? access.resourceMetadata.scopesSupported ?? [])
        }
        let session = try await AuthSession.start(
            client: signedIn.access.client, credentials: signedIn.result, store: store, leeway: leeway)
        fields.withLock { fields in
            fields.session = session
            fields.storedRegistration = signedIn.access.registration
            fields.refreshedAfterRefusal = nil
            fields.signedInDuringRequest = true
            fields.steppedUp = []
        }
        hold(signedIn.result, of: session)
    }
}
#endif
