#if CLI // the CLI package trait
import AuthFlow
import ArgumentParser
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Logging

/// Which token a helper hands out.
enum HelperTokenKind: String, ExpressibleByArgument, CaseIterable {
    /// The access token (git, Docker, kubectl with an OAuth-aware API server).
    case access
    /// The ID token (Kubernetes' OIDC authenticator).
    case id
}

/// A token for a client, with its expiry when known.
struct HelperToken {
    let value: String
    let expiresAt: Date?
}

/// The token a credential helper hands out: the profile's, refreshed when it
/// expires within a minute (at most half its lifetime), like `authflow
/// token`; when the profile is not signed in or its session ended, a new
/// sign-in with the profile's settings, if the helper may interact
/// (``HelperSignIn``), else `reauthentication_required` at once. The
/// credentials are where the profile keeps them, or in the shared store
/// `AUTHFLOW_STORE` names (the helpers take no `--store`: git, Docker and
/// kubectl start them with arguments of their own).
struct HelperTokenSource {
    let profileName: String
    let interactive: Bool
    /// Why the helper may not interact, for the error ("kubectl asked for a non-interactive credential").
    /// `AUTHFLOW_NO_SIGN_IN=1` forbids every helper to sign in.
    let nonInteractiveReason: String
    var timeout: TimeInterval = 30
    var logger: Logger

    func token(_ kind: HelperTokenKind) async throws -> HelperToken {
        let place = try StoreOption.parse([]).kind().keepingPlace(of: try Profile.load(profileName))
        func storeLogger() -> Logger { logger }
        return try await place.withStore(profile: profileName, logger: storeLogger) { store in
            // At most one sign-in: after it, the token is used or the failure reported.
            var signedIn = false
            while true {
                let credentials: OAuthCredentials
                do {
                    credentials = try await store.signedInCredentials()
                } catch let error as AuthFlowError where error.category == .reauthenticationRequired && !signedIn {
                    try await signIn(to: store, replacing: nil)
                    signedIn = true
                    continue
                }
                do {
                    return try await fresh(credentials, in: store, kind)
                } catch let error as AuthFlowError where error.category == .reauthenticationRequired && !signedIn {
                    try await signIn(to: store, replacing: credentials.accessToken)
                    signedIn = true
                }
            }
        }
    }

    private func signIn(to store: any ProfileSessionStore, replacing token: String?) async throws {
        let disabled = HelperInput.environment("AUTHFLOW_NO_SIGN_IN") == "1"
        guard interactive, !disabled else {
            throw AuthFlowError(
                .reauthenticationRequired,
                "profile \(profileName) needs a sign-in, and this helper does not sign in without a user "
                    + "(\(disabled ? "AUTHFLOW_NO_SIGN_IN=1" : nonInteractiveReason))",
                recovery: "Sign in with authflow login\(profileName == "default" ? "" : " --profile \(profileName)"), then try again.")
        }
        try await HelperSignIn(profileName: profileName, store: store, timeout: timeout, logger: logger).run(replacing: token)
    }

    /// The profile's token, refreshed under the store's lock when needed.
    private func fresh(_ credentials: OAuthCredentials, in store: any ProfileSessionStore, _ kind: HelperTokenKind) async throws
        -> HelperToken
    {
        let name = profileName
        if ProfileCredentials(name: name, credentials: credentials).holdsDPoPToken {
            throw AuthFlowError(
                .configuration, "profile \(name) holds a DPoP-bound token, which a credential helper cannot hand out",
                recovery: "Sign in to this profile without --dpop, or use another profile for git, Docker and kubectl.")
        }
        switch kind {
        case .access:
            if !TokenValidity.needsRefresh(credentials, minimumValidity: nil, leeway: Profile.leeway, now: Date()) {
                return HelperToken(value: credentials.accessToken, expiresAt: credentials.expiresAt)
            }
            let session = try await store.session(timeout: timeout, logger: logger)
            let refreshed = try await session.freshCredentials()
            // As `authflow token`: no token whose rotated refresh token the profile could not take.
            try await session.savePendingCredentials()
            return HelperToken(value: refreshed.accessToken, expiresAt: refreshed.expiresAt)
        case .id:
            if let token = Self.validIDToken(credentials) { return token }
            guard credentials.token.idToken != nil else {
                throw AuthFlowError(
                    .configuration, "profile \(name) holds no ID token",
                    recovery: "Sign in with the openid scope: authflow login --profile \(name) --scope \"openid offline_access\"")
            }
            // Refreshed even when the access token is still valid: the ID token is what expires.
            let session = try await store.session(timeout: timeout, logger: logger)
            let refreshed = try await session.freshCredentials(rejecting: credentials.accessToken)
            try await session.savePendingCredentials()
            if let token = Self.validIDToken(refreshed) { return token }
            throw AuthFlowError(
                .reauthenticationRequired, "the provider sent no new ID token when refreshing profile \(name)",
                recovery: "Sign in again with authflow login --profile \(name).")
        }
    }

    /// The raw ID token when it stays valid beyond the leeway (at most half its lifetime).
    static func validIDToken(_ credentials: OAuthCredentials, now: Date = Date()) -> HelperToken? {
        guard let raw = credentials.token.idToken, let claims = credentials.idToken else { return nil }
        let lifetime = Int(claims.expiresAt.timeIntervalSince(claims.issuedAt))
        let margin = TokenValidity.effectiveLeeway(Profile.leeway, lifetime: lifetime)
        guard claims.expiresAt.timeIntervalSince(now) > margin else { return nil }
        return HelperToken(value: raw, expiresAt: claims.expiresAt)
    }
}
#endif
