#if CLI  // the CLI package trait
import AuthFlow
import Foundation
import Logging

/// `authflow login [--profile NAME]` with no provider flags: signs in again
/// with the settings the profile kept (issuer or endpoints, client and its
/// authentication, scopes, parameters, port, device grant).
extension Login {
    /// True when no flag names a provider or client: the profile's settings are used.
    var signsInAgain: Bool {
        issuer == nil && authorizationEndpoint == nil && tokenEndpoint == nil && deviceAuthorizationEndpoint == nil && clientID == nil
    }

    func signInAgain(logger: Logger) async throws {
        let name = profileOption.profile
        guard let stored = try Profile.loadIfPresent(name) else {
            throw AuthFlowError(.configuration, "there is no profile \(name) to sign in again with",
                                recovery: "Give the provider and client: authflow login --issuer URL --client-id ID\(name == "default" ? "" : " --profile \(name)").")
        }
        let client = try OAuthClient(metadata: stored.metadata, clientID: stored.clientID, authentication: stored.authentication(),
                                     timeout: timeout, logger: logger)
        let scopes = scope.map { $0.split(separator: " ").map(String.init) } ?? stored.scopes
        let parameters = params.isEmpty ? stored.parameters : try self.parameters()
        let credentials = stored.device || usesDevice
            ? try await deviceSignIn(client: client, scopes: scopes)
            : try await browserSignIn(client: client, scopes: scopes, parameters: parameters, port: port == 0 ? stored.port : port, logger: logger)
        var profile = stored
        profile.scopes = scopes
        profile.parameters = parameters
        profile.credentials = credentials
        try await finish(profile, client: client)
    }
}
#endif
