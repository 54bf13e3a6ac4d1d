#if EmbeddedProvider // the EmbeddedProvider package trait
import AuthFlow
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Logging

/// Client ID Metadata Documents (draft-ietf-oauth-client-id-metadata-document,
/// the Model Context Protocol's authorization specification of 2025-11-25):
/// a `client_id` that is an https URL names the document with the client's
/// metadata.
///
/// The URL must be https with a path, without a fragment, user information
/// or dot segments (http on a loopback host only behind
/// ``ClientIDMetadataDocumentSettings/allowsLoopbackHTTP``). The document
/// is fetched without following redirects, within the AuthFlow client's
/// limits (``ClientIDMetadataDocumentSettings/maximumBytes`` bytes,
/// ``ClientIDMetadataDocumentSettings/timeout`` seconds), must be a
/// JSON object whose `client_id` is the URL exactly, must carry no secret,
/// and is checked by ``ClientMetadataRules`` with `none` or
/// `private_key_jwt` authentication only. Every failure is `invalid_client`;
/// a document that could not be fetched (from an address that is not public,
/// ``PublicAddress``, unless ``ClientIDMetadataDocumentSettings/allowsPrivateAddresses``;
/// no connection, a timeout, a status other than 200, too large) has one
/// description for all, the others say what was wrong with the document.
enum ClientMetadataDocument {
    /// Whether `id` is meant as a metadata document (an http or https URL).
    static func looksLikeOne(_ id: String) -> Bool {
        let lowered = id.lowercased()
        return lowered.hasPrefix("https://") || lowered.hasPrefix("http://")
    }

    /// Fetches, checks and converts the document at `id`.
    static func fetch(_ id: String, settings: ClientIDMetadataDocumentSettings, scopes: Set<String>, logger: Logger)
        async throws(OAuthFailure)
        -> ProviderClient
    {
        let url = try checkedURL(id, settings: settings)
        // Not from this machine or its network (the provider must not be a probe of them), unless configured.
        if !settings.allowsPrivateAddresses, !settings.allowsLoopbackHTTP, let host = url.host, !(await PublicAddress.isPublic(host: host))
        {
            logger.info("client ID metadata document refused", metadata: ["url": "\(id)", "reason": "not a public address"])
            throw refuse(id, Self.unfetchable)
        }
        let response: HTTPTransportResponse
        do {
            response = try await URLSessionTransport().send(
                HTTPTransportRequest(
                    method: "GET", url: url, headers: [("Accept", "application/json")], timeout: settings.timeout, purpose: .registration,
                    maxResponseBytes: settings.maximumBytes))
        } catch {
            // One answer for every failure to fetch, so that a client ID cannot tell a closed port from a slow or open one.
            logger.info("client ID metadata document refused", metadata: ["url": "\(id)", "error": "\(error)"])
            throw refuse(id, Self.unfetchable)
        }
        guard response.status == 200 else {
            logger.info("client ID metadata document refused", metadata: ["url": "\(id)", "status": "\(response.status)"])
            throw refuse(id, Self.unfetchable)
        }
        guard case .object(let object)? = try? JSONMemberValue.parseStrictly(Array(response.body)) else {
            throw refuse(id, "it is not a JSON object")
        }
        guard object["client_id"]?.stringValue == id else { throw refuse(id, "its client_id is not the URL it was fetched from") }
        if object["client_secret"] != nil || object["client_secret_expires_at"] != nil {
            throw refuse(id, "it carries a client secret, which a public document must not")
        }
        var rules = ClientMetadataRules(defaultScopes: scopes)
        rules.allowedMethods = [.none, .privateKeyJWT]
        var metadata = object
        metadata["client_id"] = nil
        if metadata["token_endpoint_auth_method"] == nil { metadata["token_endpoint_auth_method"] = .string("none") }
        do throws(OAuthFailure) {
            return try rules.client(from: metadata, id: id) { _ in nil }.client
        } catch {
            throw refuse(id, "\(error.code): \(error.description)")
        }
    }

    /// The URL of `id`, or `invalid_client` for one that cannot be a document.
    static func checkedURL(_ id: String, settings: ClientIDMetadataDocumentSettings) throws(OAuthFailure) -> URL {
        guard let components = URLComponents(string: id), let url = components.url, let scheme = components.scheme?.lowercased(),
            let host = components.host, !host.isEmpty
        else { throw refuse(id, "it is not a URL") }
        let loopback = host == "127.0.0.1" || host == "[::1]" || host == "::1" || host.lowercased() == "localhost"
        guard scheme == "https" || (scheme == "http" && loopback && settings.allowsLoopbackHTTP) else {
            throw refuse(id, "a client ID metadata document must be an https URL")
        }
        guard components.fragment == nil, components.user == nil, components.password == nil else {
            throw refuse(id, "the URL must not carry a fragment or user information")
        }
        let segments = components.percentEncodedPath.split(separator: "/", omittingEmptySubsequences: false)
        guard components.percentEncodedPath.count > 1, !segments.contains(where: { $0 == "." || $0 == ".." }) else {
            throw refuse(id, "the URL must have a path without dot segments")
        }
        return url
    }

    /// The one reason given for any failure to fetch a document (an address
    /// that is not public, no connection, a timeout, a status other than
    /// 200, a document over the size limit); the log has the details.
    static let unfetchable = "it could not be fetched"

    private static func refuse(_ id: String, _ why: String) -> OAuthFailure {
        .invalidClient("the client ID metadata document \(id) cannot be used: \(why)")
    }
}
#endif
