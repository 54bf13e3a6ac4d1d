public import Logging

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

extension AuthSession {
    /// Restores the session kept in `store`, without the network: the client
    /// is built from the stored provider metadata and client id; pass the
    /// client's secret as `authentication` when it has one (it is never
    /// stored in the record). Nil when nothing is stored.
    ///
    /// A record stored in the first format (credentials only) is completed by
    /// discovery once, and saved again.
    ///
    /// A DPoP-bound session is bound again to the software key the record
    /// keeps; for a key the record cannot hold (a hardware
    /// ``DPoPSigningKey``), pass it as `dpopKey`. The client keeps the
    /// record's resource (RFC 8707) and registration (RFC 7591).
    ///
    /// - Throws: ``AuthFlowError/Category/configuration`` when `authentication`
    ///   is not the stored method.
    public static func restore(
        from store: any CredentialStore, authentication: ClientAuthentication = .none,
        dpopKey: (any DPoPSigningKey)? = nil, transport: any HTTPTransport = URLSessionTransport(),
        logger: Logger = .authFlow(),
        leeway: TimeInterval = 60
    ) async throws -> AuthSession? {
        guard let record = try await store.load() else { return nil }
        return try await restore(
            record, from: store, authentication: authentication, dpopKey: dpopKey, transport: transport,
            logger: logger, leeway: leeway)
    }

    /// ``restore(from:authentication:dpopKey:transport:logger:leeway:)`` with
    /// the record already loaded from `store`.
    package static func restore(
        _ record: SessionRecord, from store: any CredentialStore, authentication: ClientAuthentication = .none,
        dpopKey: (any DPoPSigningKey)? = nil, transport: any HTTPTransport, logger: Logger = .authFlow(),
        leeway: TimeInterval = 60
    ) async throws -> AuthSession {
        var record = record
        if record.hasMetadata {
            guard record.clientAuthenticationMethod == authentication.method else {
                throw AuthFlowError(
                    .configuration,
                    "the stored session authenticates with \(record.clientAuthenticationMethod), not \(authentication.method)",
                    recovery: "Pass the ClientAuthentication the session signed in with.")
            }
        } else {
            guard let issuer = record.credentials.issuer else {
                throw AuthFlowError(
                    .reauthenticationRequired, "the stored session predates provider metadata and names no issuer",
                    recovery: "Sign in again.", remedy: .signInAgain)
            }
            record = SessionRecord(
                credentials: record.credentials,
                metadata: try await ProviderMetadata.discover(issuer: issuer, transport: transport, logger: logger),
                clientAuthenticationMethod: authentication.method)
            try await store.save(record)
        }
        var client = try OAuthClient(
            metadata: record.metadata, clientID: record.clientID, authentication: authentication,
            transport: transport, logger: logger)
        client.dpop = (record.dpopKey ?? dpopKey).map { DPoPBinding(key: $0) }
        client.resource = record.resource
        client.registration = record.registration
        let session = AuthSession(client: client, store: store, stored: record.credentials, leeway: leeway, now: { Date() })
        session.state.withLock { $0.holdResourceTokens(of: record) }
        return session
    }
}
