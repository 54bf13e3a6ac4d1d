#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

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
        public var issuer: Issuer?
        /// The client ID.
        public var clientID: String
        /// How the client authenticates at the token endpoint.
        public var authentication: ClientAuthentication

        /// A client ID registered with `issuer` (nil: with whichever server the resource names).
        public init(clientID: String, issuer: Issuer? = nil, authentication: ClientAuthentication = .none) {
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
    /// A client ID given without its issuer, and a metadata document, apply
    /// only to a server that promises `iss` (RFC 9207,
    /// `authorization_response_iss_parameter_supported`): their redirect URIs
    /// are fixed, so `iss` is the only defence against a mix-up (RFC 9700
    /// §4.4). A stored registration applies only when its redirect URIs are
    /// specific to the issuer (``IssuerSpecificRedirect``), as every
    /// registration made for a resource is.
    ///
    /// - Throws: ``AuthFlowError/Category/configuration`` when the metadata
    ///   document URL is not https, when a client ID given without its
    ///   issuer or a metadata document meets a server that does not promise
    ///   `iss`, or when no way applies (the server supports neither metadata
    ///   documents nor registration and no client ID was registered with it).
    public func choose(for metadata: ProviderMetadata, now: Date = Date()) throws -> Choice {
        if let preRegistered, preRegistered.issuer != nil, preRegistered.issuer == metadata.issuer {
            return .preRegistered(preRegistered)
        }
        if let preRegistered, preRegistered.issuer == nil {
            // A client ID for whichever server the resource names: its redirect URIs are not AuthFlow's to make
            // issuer-specific, so only `iss` (RFC 9207) can tell that server's callback from another's.
            guard metadata.authorizationResponseIssParameterSupported else { throw Self.needsIssuer(metadata, "a client ID given") }
            return .preRegistered(preRegistered)
        }
        // A metadata document lists fixed redirect URIs too: used only where the server promises `iss`.
        if let metadataDocument, metadata.clientIDMetadataDocumentSupported, metadata.authorizationResponseIssParameterSupported {
            guard metadataDocument.scheme?.lowercased() == "https", metadataDocument.host?.isEmpty == false,
                metadataDocument.path.count > 1, metadataDocument.fragment == nil
            else {
                throw AuthFlowError(
                    .configuration, "a client ID metadata document must be an https URL with a path",
                    recovery: "Serve the client's metadata at an https URL such as https://app.example.com/oauth/client.json.")
            }
            return .metadataDocument(metadataDocument)
        }
        if let storedRegistration, let issuer = metadata.issuer, storedRegistration.issuer == issuer,
            !storedRegistration.isExpired(at: now),
            storedRegistration.redirectURIs.contains(where: { IssuerSpecificRedirect.isSpecific($0, to: issuer) })
        {
            return .stored(storedRegistration)
        }
        if let registration, metadata.registrationEndpoint != nil {
            return .register(registration)
        }
        if metadataDocument != nil, metadata.clientIDMetadataDocumentSupported {
            throw Self.needsIssuer(metadata, "a client ID metadata document")
        }
        throw AuthFlowError(
            .configuration, "no client identity for \(metadata.issuer?.identifier ?? "the authorization server")",
            recovery: "The server accepts neither client ID metadata documents nor dynamic registration: register a client "
                + "with it by hand and give its client ID.")
    }

    /// The refusal of an identity with fixed redirect URIs at a server that does not promise `iss`.
    static func needsIssuer(_ metadata: ProviderMetadata, _ what: String) -> AuthFlowError {
        AuthFlowError(
            .configuration,
            "\(what) without its issuer needs a server that promises the iss parameter (RFC 9207); "
                + "\(metadata.issuer?.identifier ?? "the authorization server") does not",
            recovery: "Without iss, another authorization server could take this server's place (a mix-up attack, "
                + "RFC 9700 §4.4): name the issuer the client ID is registered with, or use dynamic registration.")
    }
}
