#if EmbeddedProvider // the EmbeddedProvider package trait
import AuthFlow
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// WebFinger (RFC 7033) for the provider's users, so that a client finds the
/// issuer from an account (OpenID Connect Discovery 1.0 §2).
///
/// `GET /.well-known/webfinger?resource=…[&rel=…]`: a resource that names a
/// user of this provider, as `acct:USERNAME@HOST` or a URL
/// `https://USERNAME@HOST` (the form Discovery §2.1 makes of
/// `USERNAME@HOST:PORT`), where `HOST` is the issuer's host and port, is
/// answered with a JSON Resource Descriptor holding the issuer link. An
/// unknown resource is 404; a missing, repeated or malformed `resource` is
/// 400. `rel` (repeatable) filters the links (RFC 7033 §4.3).
struct WebFingerEndpoint: Sendable {
    /// Where WebFinger lives (RFC 7033 §10.1).
    static let path = "/.well-known/webfinger"

    let state: ProviderState

    func handle(_ request: ProviderRequest) async -> ProviderResponse {
        guard let pairs = FormEncoding.decode(request.query) else { return Self.badRequest("the query is not properly encoded") }
        let resources = pairs.filter { $0.0 == "resource" }.map(\.1)
        guard resources.count == 1, let resource = resources.first, !resource.isEmpty else {
            return Self.badRequest(resources.count > 1 ? "the resource parameter is repeated" : "the resource parameter is missing")
        }
        let issuer = await state.issuer
        guard let username = Self.username(in: resource, issuer: issuer),
            state.configuration.users.contains(where: { $0.username == username })
        else { return Self.unknown }
        let relations = Set(pairs.filter { $0.0 == "rel" }.map(\.1))
        var links: [JSONMemberValue] = []
        if relations.isEmpty || relations.contains(WebFingerResource.issuerRelation) {
            links.append(.object(["rel": .string(WebFingerResource.issuerRelation), "href": .string(issuer)]))
        }
        var response = ProviderResponse.json(.object(["subject": .string(resource), "links": .array(links)]))
        // RFC 7033 §10.2 names the media type; §5 asks for CORS, since the answer is public.
        response.headers = [("Content-Type", "application/jrd+json"), ("Access-Control-Allow-Origin", "*")]
        return response
    }

    /// The user `resource` names when its host is the issuer's, or nil.
    static func username(in resource: String, issuer: String) -> String? {
        guard let named = try? WebFingerResource(resource), named.resource == resource,
            let own = URLComponents(string: issuer), let ownHost = own.host?.lowercased(),
            named.host == own.port.map({ "\(ownHost):\($0)" }) ?? ownHost
        else { return nil }
        if resource.hasPrefix("acct:") {
            guard let at = resource.lastIndex(of: "@") else { return nil }
            return FormEncoding.percentDecoded(resource[resource.index(resource.startIndex, offsetBy: 5)..<at])
        }
        guard let components = URLComponents(string: resource), ["https", "http"].contains(components.scheme?.lowercased() ?? ""),
            components.path.isEmpty || components.path == "/", components.query == nil, let user = components.user, !user.isEmpty
        else { return nil }
        return user
    }

    private static let unknown = ProviderResponse(
        status: 404, headers: [("Content-Type", "text/plain"), ("Access-Control-Allow-Origin", "*")],
        body: Array("no such resource\n".utf8))

    private static func badRequest(_ message: String) -> ProviderResponse {
        ProviderResponse(status: 400, headers: [("Content-Type", "text/plain")], body: Array("\(message)\n".utf8))
    }
}
#endif
