import Logging

extension OAuthClient {
    /// The JWT bearer grant (RFC 7523 §2.1): an access token for the JWT
    /// `assertion`, such as an Identity Assertion JWT Authorization Grant
    /// from an enterprise identity provider, or a signed statement of a
    /// service's own.
    ///
    /// The request goes to the token endpoint like every grant, with this
    /// client's ``authentication`` (RFC 7523 §3.1 keeps client
    /// authentication apart from the assertion) and a DPoP proof when the
    /// client is DPoP-bound. `resource` (RFC 8707), else the client's
    /// ``resource``, names the API the token is for.
    ///
    /// ```swift
    /// let credentials = try await client.jwtBearerGrant(assertion: idJAG, scopes: ["tools:call"])
    /// ```
    ///
    /// - Parameters:
    ///   - assertion: one JWT in compact serialization (a JWS, or a JWE).
    ///     Secret: never logged or put in an error.
    ///   - scopes: the scopes to ask for (none when empty).
    ///   - resource: the resource the token is for.
    /// - Returns: the credentials, without a verified ID token.
    /// - Throws: ``AuthFlowError``: `configuration` when `assertion` is not
    ///   a compact JWT; `oauth_error` when the server refuses (`invalid_grant`
    ///   for an assertion it does not accept); `invalid_response` for a
    ///   malformed answer.
    public func jwtBearerGrant(assertion: String, scopes: [String] = [], resource: ResourceIdentifier? = nil) async throws
        -> OAuthCredentials
    {
        guard Self.isCompactJWT(assertion) else {
            throw AuthFlowError.configuration("the assertion is not a JWT in compact serialization (RFC 7523 §2.1)")
        }
        var form: [(String, String)] = [("grant_type", Self.jwtBearerGrantType), ("assertion", assertion)]
        if !scopes.isEmpty { form.append(("scope", scopes.joined(separator: " "))) }
        if let resource { form.append(("resource", resource.description)) }
        let token = try await tokenEndpoint.request(form, requestedScopes: scopes)
        logger.info("JWT bearer grant accepted", metadata: ["token_type": "\(token.tokenType)"])
        return OAuthCredentials(issuer: metadata.issuer, clientID: clientID, token: token, idToken: nil)
    }

    /// The `grant_type` of RFC 7523 §2.1.
    static let jwtBearerGrantType = "urn:ietf:params:oauth:grant-type:jwt-bearer"

    /// A JWS (three segments) or JWE (five) of base64url characters, with a
    /// non-empty header.
    static func isCompactJWT(_ text: String) -> Bool {
        let segments = text.utf8.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard segments.count == 3 || segments.count == 5, let header = segments.first, !header.isEmpty else { return false }
        return segments.allSatisfy { segment in
            segment.allSatisfy { byte in
                (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) || (0x30...0x39).contains(byte)
                    || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
            }
        }
    }
}
