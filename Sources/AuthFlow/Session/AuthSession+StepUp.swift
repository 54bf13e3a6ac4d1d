import Logging

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension AuthSession {
    /// Signs the user in again: what ``send(_:stepUp:)`` calls when a
    /// resource refuses the token for its scopes or for how the user
    /// authenticated. It receives the ``StepUpDemand`` (every scope to ask
    /// for, and the `acr_values` and `max_age` the resource named) and
    /// returns the new credentials of the same client, from an interactive
    /// sign-in (``OAuthClient/signIn(redirectURI:scopes:options:userAgent:)``
    /// with `demand.scopes` and `demand.options()`).
    public typealias StepUp = @Sendable (_ demand: StepUpDemand) async throws -> OAuthCredentials

    /// The most scopes a resource's `insufficient_scope` challenge may ask
    /// for; a longer list is ``AuthFlowError/Category/invalidResponse``.
    public static let maximumStepUpScopes = 64

    /// Sends `request` as ``send(_:)`` does and, when the resource refuses
    /// the token with a challenge that says what it needs, authorizes again
    /// once and retries once:
    ///
    /// - a 403 `insufficient_scope` naming scopes (RFC 6750 §3.1): the
    ///   demand asks for the union of the scopes granted so far and those
    ///   named (granted first, in order);
    /// - a 401 `insufficient_user_authentication` naming `acr_values` or
    ///   `max_age` (RFC 9470 §3): the demand asks for the scopes granted, with
    ///   that `acr_values` and `max_age`.
    ///
    /// `stepUp` is called at most once per call. Its credentials replace the
    /// session's (saved to the store before the retry) and the request is
    /// sent again.
    ///
    /// ```swift
    /// let response = try await session.send(request) { demand in
    ///     try await client.signIn(redirectURI: redirect, scopes: demand.scopes, options: demand.options(), userAgent: agent)
    /// }
    /// ```
    ///
    /// Any other refusal (a 403 without `insufficient_scope` or without a
    /// `scope`, a 401 without `insufficient_user_authentication` or naming
    /// neither `acr_values` nor `max_age`) is returned as it is: there is
    /// nothing to ask for.
    ///
    /// - Throws: ``AuthFlowError/Category/oauthError`` with the error
    ///   `insufficient_scope` when the resource still asks for scopes after
    ///   the step up, or asks only for scopes already granted (asking again
    ///   would change nothing, so `stepUp` is not called: it never loops);
    ///   the same category with `insufficient_user_authentication` when it
    ///   still refuses the authentication after the step up;
    ///   ``AuthFlowError/Category/invalidResponse`` for a challenge that
    ///   names more than ``maximumStepUpScopes`` scopes or
    ///   ``maximumStepUpACRValues`` `acr` values, or one that is not a token
    ///   (RFC 6749 §3.3); ``AuthFlowError/Category/configuration`` when
    ///   `stepUp` returns credentials of another client; whatever `stepUp`
    ///   and ``send(_:)`` throw.
    public nonisolated func send(_ request: HTTPTransportRequest, stepUp: StepUp) async throws -> HTTPTransportResponse {
        let response = try await send(request)
        let demand: StepUpDemand
        if let required = try AuthSession.requiredScopes(in: response) {
            let wanted = try AuthSession.stepUpScopes(granted: try await freshCredentials().scopes, required: required)
            client.logger.info(
                "the resource needs more scopes; authorizing again once", metadata: ["scope": "\(wanted.joined(separator: " "))"])
            demand = StepUpDemand(error: "insufficient_scope", scopes: wanted)
        } else if let required = try AuthSession.requiredAuthentication(in: response) {
            client.logger.info(
                "the resource needs another authentication; authorizing again once",
                metadata: [
                    "acr_values": "\(required.acrValues.joined(separator: " "))", "max_age": "\(required.maxAge.map(String.init) ?? "-")",
                ])
            demand = StepUpDemand(
                error: "insufficient_user_authentication", scopes: try await freshCredentials().scopes,
                acrValues: required.acrValues, maxAge: required.maxAge)
        } else {
            return response
        }
        try await adopt(try await stepUp(demand))
        let retried = try await send(request)
        if let still = try AuthSession.requiredScopes(in: retried) {
            throw AuthSession.insufficientScope(still, "the resource still needs more scopes after authorizing again")
        }
        if let still = try AuthSession.requiredAuthentication(in: retried) {
            throw AuthSession.insufficientUserAuthentication(
                still.acrValues, maxAge: still.maxAge, "the resource still needs another authentication after authorizing again")
        }
        return retried
    }

    /// The scopes a 403 `insufficient_scope` challenge names, nil for any
    /// other answer. Shared with AuthFlowMCP, whose transport sends the requests.
    package static func requiredScopes(in response: HTTPTransportResponse) throws -> [String]? {
        guard response.status == 403, let challenge = ResourceChallenge(response), challenge.isInsufficientScope,
            let scopes = challenge.scopes
        else { return nil }
        guard scopes.count <= maximumStepUpScopes else {
            throw AuthFlowError.invalidResponse("the resource's insufficient_scope challenge names more than \(maximumStepUpScopes) scopes")
        }
        guard scopes.allSatisfy({ $0.utf8.allSatisfy(isTokenByte) }) else {
            throw AuthFlowError.invalidResponse("the resource's insufficient_scope challenge names a scope that is not a scope token")
        }
        return scopes
    }

    /// The scopes a step-up asks for: those granted, then the required ones
    /// not granted yet. Shared with AuthFlowMCP.
    ///
    /// - Throws: `insufficient_scope` (``insufficientScope(_:_:)``) when
    ///   every required scope was granted already, so asking again cannot help.
    package static func stepUpScopes(granted: [String], required: [String]) throws -> [String] {
        let wanted = granted + required.filter { !granted.contains($0) }
        guard wanted.count > granted.count else {
            throw insufficientScope(required, "the resource asks for scopes that were granted already")
        }
        return wanted
    }

    /// Refuses the credentials of a step-up sign-in that are not of
    /// `client` (another client ID or issuer). Shared with AuthFlowMCP.
    package static func checkStepUp(_ credentials: OAuthCredentials, of client: OAuthClient) throws {
        guard credentials.clientID == client.clientID, credentials.issuer == client.metadata.issuer else {
            throw AuthFlowError(
                .configuration, "the step-up sign-in returned credentials of another client",
                recovery: "Sign in again with the session's own client.")
        }
    }

    /// The error of a step-up that cannot help (nothing new to ask for, or
    /// still refused after asking).
    package static func insufficientScope(_ scopes: [String], _ why: String) -> AuthFlowError {
        AuthFlowError(
            .oauthError, "\(why): \(scopes.joined(separator: " "))",
            oauth: OAuthErrorResponse(error: "insufficient_scope", errorDescription: "needs scope \(scopes.joined(separator: " "))"),
            recovery: "The account cannot get the scopes the resource needs; ask its administrator for access.")
    }

    /// Makes `credentials` (a new sign-in of the same client) the session's:
    /// saved to the store under its lock, then held. The tokens for other
    /// resources of the earlier sign-in are dropped (they carry its scopes
    /// and authentication), and expire on their own.
    func adopt(_ credentials: OAuthCredentials) async throws {
        try AuthSession.checkStepUp(credentials, of: client)
        let record = SessionRecord(credentials: credentials, client: client)
        let store = store
        try await exclusively {
            try await store.save(record)
            self.state.withLock { $0.resourceTokens = [:] }
        }
        unsaved = nil
        loaded = true
        state.withLock { fields in
            fields.credentials = HeldCredentials(credentials)
            fields.signedOut = false
            fields.pendingSave = nil
            fields.ready = true
        }
        emit(.signedIn)
    }
}
