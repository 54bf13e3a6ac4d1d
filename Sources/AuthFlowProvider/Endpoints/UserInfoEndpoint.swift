import AuthFlow

/// The userinfo endpoint (OIDC Core §5.3) with bearer tokens in the
/// Authorization header (RFC 6750 §2.1).
struct UserInfoEndpoint: Sendable {
    let state: ProviderState

    func handle(_ request: ProviderRequest) async -> ProviderResponse {
        guard request.method == "GET" || request.method == "POST" else { return .methodNotAllowed("GET, POST") }
        guard let header = request.header("Authorization"), header.count > 7, header.prefix(7).lowercased() == "bearer " else {
            return challenge(nil, "an access token is required", status: 401)
        }
        let token = String(header.dropFirst(7)).trimmingCharacters(in: .whitespaces)
        guard let info = await state.lookup(token, includeRefresh: false), let subject = info.subject else {
            return challenge("invalid_token", "the access token is invalid, expired or revoked", status: 401)
        }
        guard info.scopes.contains("openid") else {
            return challenge("insufficient_scope", "the access token was not granted openid", status: 403)
        }
        let claims = state.configuration.user(subject: subject)?.claims(for: Set(info.scopes)) ?? ["sub": .string(subject)]
        return .json(.object(claims), noStore: true)
    }

    private func challenge(_ error: String?, _ description: String, status: Int) -> ProviderResponse {
        var value = "Bearer realm=\"authflow-provider\""
        if let error { value += ", error=\"\(error)\", error_description=\"\(description)\"" }
        var body: [String: JSONValue] = [:]
        if let error { body = ["error": .string(error), "error_description": .string(description)] }
        return .json(.object(body), status: status, noStore: true, extraHeaders: [("WWW-Authenticate", value)])
    }
}
