#if Hummingbird // the Hummingbird package trait
public import AuthFlow
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import HTTPTypes
import Logging
public import Hummingbird
import NIOCore

@available(macOS 14, iOS 17, tvOS 17, watchOS 10, visionOS 1, *)
extension RouterMethods {
    /// Serves the API's protected-resource metadata (RFC 9728 §3) at
    /// ``ProtectedResource/metadataPath``: the path every challenge's `resource_metadata` names.
    @discardableResult public func addProtectedResourceMetadata(_ resource: ProtectedResource) -> Self {
        let document = resource.metadataDocument
        get(RouterPath(resource.metadataPath)) { _, _ in
            var headers = HTTPFields()
            headers[.contentType] = "application/json"
            headers[.cacheControl] = "max-age=3600"
            return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: document)))
        }
        return self
    }

    /// Receives OpenID Connect back-channel logouts at `path` (a form POST
    /// with `logout_token`): verifies the token for `clientID` against the
    /// resource's issuer and keys, then calls `handler`. Answers 200 when
    /// the handler returns, 400 with a JSON error otherwise. A token's `jti`
    /// is refused a second time (a replay), unless its handler failed: then
    /// it is forgotten, so that the provider's retry is taken.
    /// - Parameters:
    ///   - path: where the provider posts (the client's `backchannel_logout_uri`).
    ///   - resource: gives the issuer and its keys.
    ///   - clientID: the `aud` logout tokens must carry.
    ///   - replayCache: where used logout token identifiers are remembered.
    ///   - handler: ends the matching sessions.
    @discardableResult public func addBackChannelLogout(
        _ path: RouterPath, resource: ProtectedResource, clientID: String,
        replayCache: any ReplayCache = MemoryReplayCache(capacity: 10_000),
        handler: @escaping BackChannelLogoutHandler
    ) -> Self {
        let rules = LogoutTokenRules(
            verifier: JWTVerifier(
                issuer: resource.issuer, audience: clientID, keys: resource.keys,
                algorithms: resource.options.tokenAlgorithms, leeway: resource.options.leeway),
            replayCache: replayCache)
        post(path) { request, _ in
            var request = request
            let body = try? await request.collectBody(upTo: 64 * 1024)
            guard
                request.headers[.contentType]?.split(separator: ";").first?.trimmingWhitespace().lowercased()
                    == "application/x-www-form-urlencoded",
                let body, let form = FormEncoding.decode(utf8: Array(buffer: body))
            else { return BackChannelLogoutResponse.failure("the request is not a form POST") }
            let tokens = form.filter { $0.0 == "logout_token" }
            guard tokens.count == 1 else { return BackChannelLogoutResponse.failure("the request must carry one logout_token") }
            do throws(LogoutTokenRules.Refusal) {
                let logout = try await rules.verify(tokens[0].1)
                do {
                    try await handler(logout)
                } catch {
                    // Not ended: the provider may retry, and the retry must not look like a replay.
                    await rules.forget(logout)
                    resource.logger.warning("back-channel logout handler failed", metadata: ["error": "\(type(of: error))"])
                    return BackChannelLogoutResponse.failure("the sessions could not be ended")
                }
                return BackChannelLogoutResponse.success
            } catch {
                resource.logger.debug("logout token refused", metadata: ["reason": "\(error.description)"])
                return BackChannelLogoutResponse.failure(error.description)
            }
        }
        return self
    }
}

/// The answers of a back-channel logout endpoint (§2.8): 200, or 400 with a
/// JSON error; never cached.
enum BackChannelLogoutResponse {
    static var success: Response {
        var headers = HTTPFields()
        headers[.cacheControl] = "no-store"
        return Response(status: .ok, headers: headers)
    }

    static func failure(_ description: String) -> Response {
        var headers = HTTPFields()
        headers[.cacheControl] = "no-store"
        headers[.contentType] = "application/json"
        let body = (try? JSONEncoder().encode(["error": "invalid_request", "error_description": description])) ?? Data()
        return Response(status: .badRequest, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: body)))
    }
}
#endif
