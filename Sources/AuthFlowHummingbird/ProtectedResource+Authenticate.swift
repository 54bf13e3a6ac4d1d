#if Hummingbird // the Hummingbird package trait
import AuthFlow
import Crypto
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension ProtectedResource {
    /// Checks a request's credentials: the access token (a JWT by its
    /// signature, an opaque token by introspection), its binding (a
    /// DPoP-bound token only with the `DPoP` scheme and a proof made with its
    /// key; never as a Bearer token), the proof (``DPoPProofVerifier``, the
    /// replay store, the nonce), then the scopes `required`, then how the
    /// user authenticated (`authentication`, RFC 9470).
    /// - Parameters:
    ///   - authorization: the values of the request's `Authorization` fields.
    ///   - proofs: the values of its `DPoP` fields.
    ///   - method: its method.
    ///   - path: its path, without query (the `htu` is the resource's origin and this path).
    func authenticate(
        authorization: [String], proofs: [String], method: String, path: String, required: [String],
        authentication: AuthenticationRequirement? = nil, now: Date = Date()
    ) async throws(AccessFailure) -> VerifiedAccessToken {
        guard let credentials = try AuthorizationHeader.credentials(authorization) else { throw .missing }
        let (scheme, token) = (credentials.scheme, credentials.token)
        let verified = try await verifyToken(token, compactJWS: credentials.isCompactJWS, scheme: scheme, now: now)
        switch (scheme, verified.dpopThumbprint) {
        case (.bearer, .some):
            throw .invalidToken("the access token is DPoP-bound: send it with the DPoP scheme and a proof", scheme: .bearer)
        case (.bearer, .none):
            if options.requiresDPoP { throw .invalidToken("this API accepts DPoP-bound access tokens only", scheme: .dpop) }
        case (.dpop, .none):
            throw .invalidToken("the access token is not DPoP-bound: send it with the Bearer scheme", scheme: .dpop)
        case (.dpop, .some(let thumbprint)):
            try await checkProof(proofs, for: String(token), boundTo: thumbprint, method: method, path: path, now: now)
        }
        guard verified.grants(required) else { throw .insufficientScope(required, scheme: scheme) }
        if let authentication, let shortfall = authentication.shortfall(of: verified.claims, now: now) {
            throw .insufficientUserAuthentication(authentication, shortfall, scheme: scheme)
        }
        return verified
    }

    /// A JWT (two dots) by its signature; anything else by introspection when the API has client credentials.
    private func verifyToken(
        _ token: Substring, compactJWS: Bool, scheme: AuthorizationScheme, now: Date
    ) async throws(AccessFailure) -> VerifiedAccessToken {
        if compactJWS {
            do {
                return try await jwtRules.verify(token, scheme: scheme, now: now)
            } catch {
                // A JWS is not checked as a token68 beforehand: a malformed one is a bad request.
                if error.error == "invalid_token", !Token68.matches(token) {
                    throw .invalidRequest("the access token is not a token68", scheme: scheme)
                }
                throw error
            }
        }
        guard let introspection else {
            throw .invalidToken("the access token is not a JWT and this API does not introspect tokens", scheme: scheme)
        }
        return try await introspection.verify(String(token), scheme: scheme, now: now)
    }

    private func checkProof(
        _ proofs: [String], for token: String, boundTo thumbprint: String, method: String, path: String, now: Date
    ) async throws(AccessFailure) {
        guard !proofs.isEmpty else { throw .invalidProof("a DPoP-bound access token needs a DPoP proof") }
        guard let url = requestURL(path: path) else { throw .invalidRequest("the request path is not a valid URI path", scheme: .dpop) }
        let proof: DPoPProofVerifier.Proof?
        do throws(DPoPProofVerifier.Failure) {
            proof = try proofVerifier.verify(
                proofs, method: method, url: url, accessToken: token, nonces: nonces?.accepted(now: now) ?? [], now: now)
        } catch {
            throw AccessFailure(status: 401, error: error.error, description: error.message, scope: nil, scheme: .dpop)
        }
        guard let proof else { throw .invalidProof("a DPoP-bound access token needs a DPoP proof") }
        guard proof.thumbprint == thumbprint else { throw .invalidProof("the DPoP proof's key is not the token's (cnf.jkt)") }
        let firstUse: Bool
        do {
            // Remembered until its iat can no longer pass the window; by its key (the cache's budgets are per key).
            firstUse = try await options.replayCache.firstUse(
                of: proof.replayIdentifier, until: proof.replayExpiry(maximumSkew: proofVerifier.maximumSkew))
        } catch {
            throw .unavailable("the DPoP replay store failed")
        }
        guard firstUse else { throw .invalidProof("the DPoP proof was already used (jti replay)") }
    }

    /// The URL a request to `path` was sent to: the resource identifier's
    /// origin and `path`; nil when `path` is not a valid URI path (a request
    /// target may hold `{`, `|`, a broken `%` escape…): never a trap.
    func requestURL(path: String) -> String? {
        DPoPTarget.requestURL(origin: resource, path: path)
    }
}
#endif

#if Hummingbird // the Hummingbird package trait
extension ProtectedResource {
    /// Verifies a request's credentials as ``AccessTokenMiddleware`` does, for
    /// a request that does not pass through it (a WebSocket upgrade, another framework).
    /// - Parameters:
    ///   - authorization: the request's `Authorization` field, when it has one.
    ///   - dpopProofs: the values of its `DPoP` fields.
    ///   - method: its method.
    ///   - path: its path, without query.
    ///   - requiredScopes: the scopes the request needs.
    /// - Returns: the verified token.
    /// - Throws: ``AccessTokenRefusal`` with the status and challenges to answer.
    public func verify(
        authorization: String?, dpopProofs: [String] = [], method: String, path: String, requiredScopes: [String] = []
    ) async throws(AccessTokenRefusal) -> VerifiedAccessToken {
        do throws(AccessFailure) {
            return try await authenticate(
                authorization: authorization.map { [$0] } ?? [], proofs: dpopProofs, method: method, path: path, required: requiredScopes)
        } catch {
            throw refusal(error)
        }
    }

    /// What to answer for `failure`.
    func refusal(_ failure: AccessFailure) -> AccessTokenRefusal {
        AccessTokenRefusal(
            status: failure.status, error: failure.error, errorDescription: failure.description,
            challenges: failure.status == 503 ? [] : challenges.values(for: failure), dpopNonce: nonces?.current())
    }
}
#endif
