#if MCP // the MCP package trait
import AuthFlow
public import Foundation
import Logging
import MCP
#if canImport(FoundationNetworking)
public import FoundationNetworking
#endif

extension AuthSessionAuthorizer {
    /// Before each request: restores the session from ``store`` at the
    /// first one, and refreshes a token that expires within the leeway.
    /// Failures are left to the request's 401 (the transport ignores them).
    public func prepareAuthorization(for endpoint: URL, session: URLSession) async throws {
        try await gate.run {
            // A new request: it may ask the user once. (Requests the transport
            // interleaves share this; each is still bounded by maxAuthorizationAttempts.)
            self.fields.withLock { $0.signedInDuringRequest = false }
            guard let signedIn = try await self.restoredSession(for: endpoint) else { return }
            do {
                let credentials = try await signedIn.freshCredentials()
                self.hold(credentials, of: signedIn)
            } catch let error as AuthFlowError where error.category == .reauthenticationRequired {
                self.logger.info("the stored MCP session ended; the next request signs in again")
                self.fields.withLock { fields in
                    fields.session = nil
                    fields.held = nil
                }
            }
        }
    }

    /// A 401 or 403 of the MCP server (`statusCode`, the response's
    /// `headers`): signs in, refreshes or steps up as the challenge asks, and
    /// says whether the request is worth sending again.
    ///
    /// - Throws: `AuthFlowError` when the sign-in, refresh or
    ///   step-up fails, and `AuthFlowError.Category.oauthError`
    ///   `insufficient_scope` when a step-up cannot help (also kept in
    ///   ``lastFailure``).
    public func handleChallenge(
        statusCode: Int, headers: [String: String], endpoint: URL, operationKey: String?, session: URLSession
    ) async throws -> Bool {
        let response = HTTPTransportResponse(status: statusCode, headers: headers.map { (name: $0.key, value: $0.value) })
        // The token the refused request carried: when another request replaced it meanwhile, sending again is enough.
        let sent = fields.withLock { $0.held?.accessToken }
        do {
            return try await gate.run {
                if self.fields.withLock({ $0.held?.accessToken }) != sent { return true }
                switch statusCode {
                case 401: return try await self.answerUnauthorized(response, endpoint: endpoint, sent: sent)
                case 403: return try await self.answerForbidden(response, endpoint: endpoint)
                default: return false
                }
            }
        } catch let error as AuthFlowError {
            fields.withLock { $0.lastFailure = error }
            throw error
        }
    }

    /// 401: refresh once when the session can; else (or when the refreshed
    /// token is refused too) sign in by the server's URL. A token refused
    /// after the user signed in during this request ends it instead of
    /// asking the user again.
    private func answerUnauthorized(_ response: HTTPTransportResponse, endpoint: URL, sent: String?) async throws -> Bool {
        let (signedInNow, refreshed) = fields.withLock { ($0.signedInDuringRequest, $0.refreshedAfterRefusal) }
        if let signedIn = try await restoredSession(for: endpoint), !signedInNow || sent == nil,
            refreshed == nil || refreshed != sent, signedIn.canRefresh || sent == nil
        {
            do {
                let credentials = try await signedIn.freshCredentials(rejecting: sent)
                hold(credentials, of: signedIn)
                if sent != nil { fields.withLock { $0.refreshedAfterRefusal = credentials.accessToken } }
                logger.debug("the MCP server refused the access token; refreshed once")
                return true
            } catch let error as AuthFlowError where error.category == .reauthenticationRequired {
                logger.info("the MCP session cannot be refreshed; signing in again")
            }
        }
        guard !signedInNow else {
            throw AuthFlowError(
                .invalidResponse, "the MCP server refused the access token of a new sign-in",
                oauth: ResourceChallenge(response)?.error.map { OAuthErrorResponse(error: $0) },
                recovery: "The MCP server does not accept the tokens of its own authorization server; tell its operator.")
        }
        try await signInByURL(endpoint, challenge: ResourceChallenge(response))
        return true
    }

    /// 403 `insufficient_scope`: one step-up with the granted scopes and the
    /// required ones. Any other 403 is the server's answer.
    private func answerForbidden(_ response: HTTPTransportResponse, endpoint: URL) async throws -> Bool {
        guard let required = try AuthSession.requiredScopes(in: response),
            let signedIn = fields.withLock({ $0.session }),
            signedIn.client.resource?.permitsRequest(to: endpoint) == true
        else { return false }
        let wanted = try AuthSession.stepUpScopes(granted: try await signedIn.freshCredentials().scopes, required: required)
        let asked = Set(wanted)
        guard !fields.withLock({ fields in fields.steppedUp.contains { earlier in asked.isSubset(of: earlier) } }) else {
            throw AuthSession.insufficientScope(required, "the resource still needs more scopes after authorizing again")
        }
        logger.info("the MCP server needs more scopes; authorizing again once", metadata: ["scope": "\(wanted.joined(separator: " "))"])
        if let enterprise {
            try await signInWithIdentityAssertion(enterprise, scopes: wanted)
            fields.withLock { $0.steppedUp.append(asked) }
            return true
        }
        let credentials = try await signIn(signedIn.client, wanted)
        try AuthSession.checkStepUp(credentials, of: signedIn.client)
        let next = try await AuthSession.start(client: signedIn.client, credentials: credentials, store: store, leeway: leeway)
        fields.withLock { fields in
            fields.session = next
            fields.steppedUp.append(asked)
            fields.signedInDuringRequest = true
        }
        hold(credentials, of: next)
        return true
    }

    /// Makes `credentials` of `session` the token handed to the transport.
    func hold(_ credentials: OAuthCredentials, of session: AuthSession) {
        guard let resource = session.client.resource else { return }
        fields.withLock { $0.held = HeldToken(resource: resource, credentials: credentials) }
    }
}
#endif
