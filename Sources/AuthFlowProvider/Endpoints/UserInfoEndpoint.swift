#if EmbeddedProvider // the EmbeddedProvider package trait
import AuthFlow
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The userinfo endpoint (OIDC Core §5.3) with bearer tokens in the
/// Authorization header (RFC 6750 §2.1).
struct UserInfoEndpoint: Sendable {
    let state: ProviderState

    func handle(_ request: ProviderRequest) async -> ProviderResponse {
        guard let header = request.header("Authorization"), let space = header.firstIndex(of: " "),
            ["bearer", "dpop"].contains(header[..<space].lowercased())
        else {
            return challenge(nil, "an access token is required", status: 401)
        }
        let usesDPoP = header[..<space].lowercased() == "dpop"
        let token = header[space...].trimmingWhitespace()
        guard let info = await state.lookup(token, includeRefresh: false), let subject = info.subject else {
            return challenge("invalid_token", "the access token is invalid, expired or revoked", status: 401, dpop: usesDPoP)
        }
        // RFC 9449 §7: a DPoP-bound token only with the DPoP scheme and a proof by its key.
        if let bound = info.dpopJKT {
            guard usesDPoP else {
                return challenge(
                    "invalid_token", "the access token is DPoP-bound; use the DPoP scheme with a proof", status: 401, dpop: true)
            }
            do throws(DPoPFailure) {
                guard let jkt = try await state.checkDPoPProof(request, path: EndpointPaths.userinfo, accessToken: token) else {
                    return challenge("invalid_dpop_proof", "a DPoP proof is required", status: 401, dpop: true)
                }
                guard jkt == bound else {
                    return challenge("invalid_token", "the DPoP proof's key is not the token's", status: 401, dpop: true)
                }
            } catch {
                return challenge(error.failure.code, error.failure.description, status: 401, dpop: true, nonce: error.nonce)
            }
        } else if usesDPoP {
            return challenge("invalid_token", "the access token is not DPoP-bound; use the Bearer scheme", status: 401)
        }
        guard info.scopes.contains("openid") else {
            return challenge("insufficient_scope", "the access token was not granted openid", status: 403)
        }
        let claims = state.configuration.user(subject: subject)?.claims(for: Set(info.scopes)) ?? ["sub": .string(subject)]
        return .json(.object(claims), noStore: true)
    }

    private func challenge(_ error: String?, _ description: String, status: Int, dpop: Bool = false, nonce: String? = nil)
        -> ProviderResponse
    {
        var value = dpop ? "DPoP realm=\"authflow-provider\", algs=\"ES256 RS256 PS256 EdDSA\"" : "Bearer realm=\"authflow-provider\""
        if let error { value += ", error=\"\(error)\", error_description=\"\(description)\"" }
        var body: [String: JSONMemberValue] = [:]
        if let error { body = ["error": .string(error), "error_description": .string(description)] }
        var headers: [(name: String, value: String)] = [("WWW-Authenticate", value)]
        if let nonce { headers.append(("DPoP-Nonce", nonce)) }
        return .json(.object(body), status: status, noStore: true, extraHeaders: headers)
    }
}
#endif
