public import Foundation

/// The ways a client may identify itself to an authorization server it did
/// not know in advance, in the order the Model Context Protocol's
/// authorization specification gives:
///
/// 1. a client ID registered by hand with that server (``preRegistered``);
/// 2. a Client ID Metadata Document: an https URL that is the client ID and
///    serves the client's metadata, used when the server advertises
///    `client_id_metadata_document_supported` (``metadataDocument``);
/// 3. dynamic client registration (RFC 7591) at the server's
///    `registration_endpoint` (``registration``), reusing
///    ``storedRegistration`` when it was made by the same issuer and has
///    not expired.
public struct ClientIdentity: Sendable, Equatable {
    /// A client ID (and how it authenticates) registered by hand, for one issuer.
    public struct PreRegistered: Sendable, Equatable {
        /// The issuer the client ID is registered with; nil for any.
        public var issuer: String?
        /// The client ID.
        public var clientID: String
        /// How the client authenticates at the token endpoint.
        public var authentication: ClientAuthentication

        /// A client ID registered with `issuer` (nil: with whichever server the resource names).
        public init(clientID: String, issuer: String? = nil, authentication: ClientAuthentication = .none) {
            self.issuer = issuer
            self.clientID = clientID
            self.authentication = authentication
        }
    }

    /// A client ID registered by hand.
    public var preRegistered: PreRegistered?
    /// The https URL of the client's metadata document, which is its client ID.
    public var metadataDocument: URL?
    /// The metadata to register with, when the server allows registration.
    public var registration: ClientRegistrationRequest?
    /// A registration kept from an earlier launch.
    public var storedRegistration: ClientRegistration?

    /// Ways to identify the client; at least one must apply to the server.
    public init(
        preRegistered: PreRegistered? = nil, metadataDocument: URL? = nil, registration: ClientRegistrationRequest? = nil,
        storedRegistration: ClientRegistration? = nil
    ) {
        self.preRegistered = preRegistered
        self.metadataDocument = metadataDocument
        self.registration = registration
        self.storedRegistration = storedRegistration
    }

    /// What the client will be at `metadata`'s server.
    public enum Choice: Sendable, Equatable {
        /// The pre-registered client ID.
        case preRegistered(PreRegistered)
        /// The metadata document URL as the client ID.
        case metadataDocument(URL)
        /// The stored registration, still valid for this issuer.
        case stored(ClientRegistration)
        /// A new registration with this metadata.
        case register(ClientRegistrationRequest)
    }

    /// The first way that applies to the server of `metadata`, in the
    /// order of the type's description.
    ///
    /// - Throws: ``AuthFlowError/Category/configuration`` when the metadata
    ///   document URL is not https, or when no way applies (the server
    ///   supports neither metadata documents nor registration and no client
    ///   ID was registered with it).
    public func choose(for metadata: ProviderMetadata, now: Date = Date()) throws -> Choice {
        if let preRegistered, preRegistered.issuer == nil || preRegistered.issuer == metadata.issuer {
            return .preRegistered(preRegistered)
        }
        if let metadataDocument, metadata.clientIDMetadataDocumentSupported {
            guard metadataDocument.scheme?.lowercased() == "https", metadataDocument.host?.isEmpty == false,
                metadataDocument.path.count > 1, metadataDocument.fragment == nil
            else {
                throw AuthFlowError(
                    .configuration, "a client ID metadata document must be an https URL with a path",
                    recovery: "Serve the client's metadata at an https URL such as https://app.example.com/oauth/client.json.")
            }
            return .metadataDocument(metadataDocument)
        }
        if let storedRegistration, storedRegistration.issuer == metadata.issuer, !storedRegistration.isExpired(at: now) {
            return .stored(storedRegistration)
        }
        if let registration, metadata.registrationEndpoint != nil {
            return .register(registration)
        }
        throw AuthFlowError(
            .configuration, "no client identity for \(metadata.issuer ?? "the authorization server")",
            recovery: "The server accepts neither client ID metadata documents nor dynamic registration: register a client "
                + "with it by hand and give its client ID.")
    }
}
