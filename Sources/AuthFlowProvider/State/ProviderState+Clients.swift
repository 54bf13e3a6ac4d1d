#if EmbeddedProvider // the EmbeddedProvider package trait
import AuthFlow
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Logging

/// A client ID metadata document's client, until it is fetched again.
struct CachedMetadataDocumentClient: Sendable {
    let client: ProviderClient
    let fetchedAt: Date
}

extension ProviderState {
    /// The most clients registered at once (RFC 7591 registration is open):
    /// a bound on the memory strangers can make the provider use.
    static let maximumRegisteredClients = 1000
    /// The most client ID metadata documents kept at once; the oldest goes first.
    static let maximumCachedMetadataDocuments = 256

    /// The scopes every client may ask for: those of the configured clients
    /// and of the protected resources, and `openid`.
    nonisolated var supportedScopes: Set<String> {
        Set(configuration.clients.flatMap(\.scopes)).union(resourceScopes).union(["openid"])
    }

    /// The scopes a client registered at `/register` or identified by a
    /// metadata document may have (it asks for some of them, or gets all):
    /// ``ProviderConfiguration/scopesForDynamicClients``, the protected
    /// resources' scopes and `openid`; never a scope only a configured
    /// client has (another client's `admin`).
    nonisolated var dynamicClientScopes: Set<String> {
        configuration.scopesForDynamicClients.union(resourceScopes).union(["openid"])
    }

    /// The scopes of the protected resources, which any client may ask for.
    nonisolated var resourceScopes: Set<String> {
        Set(configuration.protectedResources.flatMap { $0.scopesSupported + $0.requiredScopes })
    }

    /// The client with `id` as the endpoints see it: configured (with the
    /// protected resources' scopes), registered, or from a metadata document
    /// fetched earlier. Nil when unknown.
    func client(_ id: String) -> ProviderClient? {
        if var client = configuration.client(id) {
            client.scopes.formUnion(resourceScopes)
            return client
        }
        return registeredClients[id] ?? metadataDocumentClients[id]?.client
    }

    /// Every client the authenticator may find.
    var knownClients: [ProviderClient] {
        configuration.clients.compactMap { self.client($0.id) } + Array(registeredClients.values)
            + metadataDocumentClients.values.map(\.client)
    }

    /// The client with `id`, fetching its metadata document first when `id`
    /// is one (an https URL) and the copy kept is missing or stale.
    ///
    /// - Throws: `invalid_client` when the document cannot be used (see
    ///   ``ClientMetadataDocument``); nothing is kept then.
    func resolveClient(_ id: String, now: Date = Date()) async throws(OAuthFailure) -> ProviderClient? {
        if configuration.client(id) != nil || registeredClients[id] != nil { return self.client(id) }
        let settings = configuration.clientIDMetadataDocuments
        guard settings.isEnabled, ClientMetadataDocument.looksLikeOne(id) else { return nil }
        if let cached = metadataDocumentClients[id], now.timeIntervalSince(cached.fetchedAt) < settings.cacheLifetime {
            return cached.client
        }
        let client = try await ClientMetadataDocument.fetch(id, settings: settings, scopes: dynamicClientScopes, logger: logger)
        if metadataDocumentClients[id] == nil, metadataDocumentClients.count >= Self.maximumCachedMetadataDocuments,
            let oldest = metadataDocumentClients.min(by: { $0.value.fetchedAt < $1.value.fetchedAt })?.key
        {
            metadataDocumentClients[oldest] = nil
        }
        metadataDocumentClients[id] = CachedMetadataDocumentClient(client: client, fetchedAt: Date())
        return client
    }

    /// Adds a client made by the registration endpoint.
    func register(_ client: ProviderClient) throws(OAuthFailure) {
        guard registeredClients.count < Self.maximumRegisteredClients else {
            throw OAuthFailure("invalid_client_metadata", "the provider holds too many registered clients; try again after a restart")
        }
        registeredClients[client.id] = client
        logger.info("client registered", metadata: ["client_id": "\(client.id)"])
    }

    /// Forgets every registered client and every metadata document kept;
    /// returns how many clients were forgotten. Their tokens stop working.
    func forgetRegisteredClients() -> Int {
        let count = registeredClients.count + metadataDocumentClients.count
        registeredClients.removeAll()
        metadataDocumentClients.removeAll()
        return count
    }
}
#endif
