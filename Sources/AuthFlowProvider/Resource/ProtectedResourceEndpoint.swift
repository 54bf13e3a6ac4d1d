#if EmbeddedProvider // the EmbeddedProvider package trait
import AuthFlow
import Foundation

/// The demo protected resource (``ProviderProtectedResource``) and its
/// RFC 9728 metadata, on the provider's own listener.
struct ProtectedResourceEndpoint: Sendable {
    let state: ProviderState
    let resource: ProviderProtectedResource

    /// RFC 9728 §3.2 metadata.
    func metadata(_ request: ProviderRequest) async -> ProviderResponse {
        let issuer = await state.issuer
        return .json(
            .object([
                "resource": .string(issuer + resource.path),
                "authorization_servers": .array([.string(issuer)]),
                "scopes_supported": .array(resource.scopesSupported.map(JSONMemberValue.string)),
                "bearer_methods_supported": .array([.string("header")]),
                "dpop_signing_alg_values_supported": .array(ClientAssertionCheck.asymmetric.sorted().map(JSONMemberValue.string)),
                "resource_name": .string("AuthFlow demo API"),
            ]))
    }

    /// The resource itself: 401 without a valid token for it, 403 without
    /// its scopes, else 200 with who called.
    func handle(_ request: ProviderRequest) async -> ProviderResponse {
        let issuer = await state.issuer
        let challenge = Challenge(metadataURL: issuer + resource.metadataPath, scopes: resource.requiredScopes)
        guard let header = request.header("Authorization"), let space = header.firstIndex(of: " "),
            ["bearer", "dpop"].contains(header[..<space].lowercased())
        else {
            return challenge.response(nil, "an access token is required", status: 401)
        }
        let usesDPoP = header[..<space].lowercased() == "dpop"
        let token = String(header[space...]).trimmingCharacters(in: .whitespaces)
        guard let info = await state.lookup(token, includeRefresh: false) else {
            return challenge.response("invalid_token", "the access token is invalid, expired or revoked", status: 401, dpop: usesDPoP)
        }
        guard info.audience == issuer + resource.path else {
            return challenge.response("invalid_token", "the access token is not for this resource (aud)", status: 401, dpop: usesDPoP)
        }
        if let bound = info.dpopJKT {
            guard usesDPoP else {
                return challenge.response(
                    "invalid_token", "the access token is DPoP-bound; use the DPoP scheme with a proof", status: 401, dpop: true)
            }
            do throws(DPoPFailure) {
                guard let jkt = try await state.checkDPoPProof(request, path: request.path, accessToken: token) else {
                    return challenge.response("invalid_dpop_proof", "a DPoP proof is required", status: 401, dpop: true)
                }
                guard jkt == bound else {
                    return challenge.response("invalid_token", "the DPoP proof's key is not the token's", status: 401, dpop: true)
                }
            } catch {
                return challenge.response(error.failure.code, error.failure.description, status: 401, dpop: true, nonce: error.nonce)
            }
        } else if usesDPoP {
            return challenge.response("invalid_token", "the access token is not DPoP-bound; use the Bearer scheme", status: 401)
        }
        let missing = resource.requiredScopes.filter { !info.scopes.contains($0) }
        guard missing.isEmpty else {
            return challenge.response(
                "insufficient_scope", "the access token lacks the scope \(missing.joined(separator: " "))", status: 403, dpop: usesDPoP)
        }
        var body: [String: JSONMemberValue] = [
            "resource": .string(issuer + resource.path),
            "client_id": .string(info.clientID),
            "scope": .string(info.scopes.joined(separator: " ")),
            "message": .string("Hello from the AuthFlow demo API"),
        ]
        if let subject = info.subject { body["sub"] = .string(subject) }
        return .json(.object(body), noStore: true)
    }

    /// A `WWW-Authenticate` challenge (RFC 6750 §3, RFC 9728 §5.1, RFC 9449 §7.1).
    struct Challenge {
        /// `algs` of a DPoP challenge: what the proof check accepts and the metadata lists.
        static let dpopAlgorithms = ClientAssertionCheck.asymmetric.sorted().joined(separator: " ")

        let metadataURL: String
        let scopes: [String]

        func response(_ error: String?, _ description: String, status: Int, dpop: Bool = false, nonce: String? = nil) -> ProviderResponse {
            var parameters = ["realm=\"authflow-demo-api\""]
            if let error { parameters += ["error=\"\(error)\"", "error_description=\"\(description)\""] }
            if !scopes.isEmpty { parameters.append("scope=\"\(scopes.joined(separator: " "))\"") }
            parameters.append("resource_metadata=\"\(metadataURL)\"")
            var headers: [(name: String, value: String)] = [
                ("WWW-Authenticate", (dpop ? "DPoP algs=\"\(Self.dpopAlgorithms)\", " : "Bearer ") + parameters.joined(separator: ", "))
            ]
            if let nonce { headers.append(("DPoP-Nonce", nonce)) }
            var body: [String: JSONMemberValue] = [:]
            if let error { body = ["error": .string(error), "error_description": .string(description)] }
            return .json(.object(body), status: status, noStore: true, extraHeaders: headers)
        }
    }
}
#endif
