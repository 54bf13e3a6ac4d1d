#if CLI // the CLI package trait
import AuthFlow
import ArgumentParser
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Logging

/// `authflow login --resource URL`: signs in to an API by its URL alone.
/// The API's 401 challenge and its RFC 9728 metadata name the authorization
/// server; the client is `--client-id` (a client ID registered by hand, or
/// an https URL serving a Client ID Metadata Document), else the profile's
/// stored registration with that issuer, else a new dynamic registration
/// (RFC 7591, `application_type` `native`, the loopback redirect without a
/// port). A stored registration the server forgot (`invalid_client`) is
/// replaced once. Then the browser and loopback flow as without `--resource`.
extension Login {
    /// The flags `--resource` finds by itself.
    var resourceConflicts: [String] {
        let given: [(String, Bool)] = [
            ("--issuer", issuer != nil && !hasClientSecret), ("--account", account != nil),
            ("--authorization-endpoint", authorizationEndpoint != nil),
            ("--token-endpoint", tokenEndpoint != nil), ("--device", usesDevice),
            ("--client-auth", clientAuth != nil && clientAuth != ClientAuth.none && clientAuth != .basic && clientAuth != .post),
            ("--private-key", senderOptions.privateKey != nil),
            ("--revocation-endpoint", providerOptions.revocationEndpoint != nil),
            ("--userinfo-endpoint", providerOptions.userinfoEndpoint != nil),
            ("--end-session-endpoint", providerOptions.endSessionEndpoint != nil), ("--jwks-uri", providerOptions.jwksURI != nil),
            ("--id-token-issuer", providerOptions.idTokenIssuer != nil),
        ]
        return given.filter(\.1).map(\.0)
    }

    func validateResource(_ resource: String) throws {
        if let flag = resourceConflicts.first {
            throw ValidationError("\(flag) does not go with --resource, which finds the provider and the client by itself")
        }
        guard let url = URL(string: resource), let scheme = url.scheme?.lowercased(), scheme == "https" || scheme == "http",
            url.host?.isEmpty == false
        else { throw ValidationError("--resource must be an absolute https URL (http only on a loopback host)") }
        if clientSecret != nil, clientSecretEnv != nil { throw ValidationError("use either --client-secret or --client-secret-env") }
        if clientSecret != nil || clientSecretEnv != nil, clientID == nil {
            throw ValidationError("a client secret needs --client-id")
        }
        try validateSecretIssuer()
        _ = try parameters()
        guard (0...65535).contains(port) else { throw ValidationError("--port must be 0…65535") }
        guard timeout > 0, browserTimeout > 0 else { throw ValidationError("timeouts must be positive") }
    }

    /// How the client identifies itself: `--client-id` (a metadata document
    /// when it is an https URL with a path), else the stored registration
    /// and a new one.
    func resourceIdentity(stored: Profile?, port: Int) throws -> ClientIdentity {
        if let clientID {
            if let url = URL(string: clientID), url.scheme?.lowercased() == "https", url.path.count > 1 {
                return ClientIdentity(metadataDocument: url)
            }
            let secret = try secretForResource()
            let authentication: ClientAuthentication =
                switch (clientAuth, secret) {
                case (_, nil): .none
                case (.post?, let secret?): .clientSecretPost(secret: secret)
                case (_, let secret?): .clientSecretBasic(secret: secret)
                }
            // A secret goes only to the issuer the user named (ResourceLogin+Secret.swift).
            return ClientIdentity(
                preRegistered: .init(
                    clientID: clientID, issuer: try secretIssuer.map { try Issuer(commandLine: $0, flag: "--issuer") },
                    authentication: authentication))
        }
        let redirect = URL(string: "http://127.0.0.1\(port == 0 ? "" : ":\(port)")/callback")!
        let request = ClientRegistrationRequest(
            redirectURIs: [redirect], clientName: "authflow", softwareID: "authflow", softwareVersion: Authflow.version)
        return ClientIdentity(registration: request, storedRegistration: stored?.registration)
    }

    private func secretForResource() throws -> String? {
        if let clientSecret { return clientSecret }
        guard let variable = clientSecretEnv else { return nil }
        guard let value = ProcessInfo.processInfo.environment[variable], !value.isEmpty else {
            throw AuthFlowError(.configuration, "environment variable \(variable) is not set", recovery: "Export \(variable).")
        }
        return value
    }

    /// What the API's answer without a token says: its challenge, when it
    /// is a 401 (the metadata URL, the scopes it needs).
    static func probe(_ resource: URL, timeout: TimeInterval) async throws -> ResourceChallenge? {
        let response = try await URLSessionTransport().send(
            HTTPTransportRequest(method: "GET", url: resource, headers: [], timeout: timeout, purpose: .discovery))
        return response.status == 401 ? ResourceChallenge(response) : nil
    }

    func resourceSignIn(_ resource: String, logger: Logger) async throws {
        let (profile, client) = try await resourceSignedIn(resource, logger: logger)
        try await finish(profile, client: client)
    }

    /// Signs in to `resource` and returns the profile holding the new
    /// credentials (not yet saved) and the client.
    func resourceSignedIn(_ resource: String, logger: Logger) async throws -> (Profile, OAuthClient) {
        guard let url = URL(string: resource) else { throw ValidationError("--resource must be a URL") }
        let name = profileOption.profile
        // A profile that cannot be read (another's, corrupt) is not reused, only replaced by the new sign-in.
        let stored = try? Profile.loadIfPresent(name)
        // Checked before the API is asked anything: https, or http on a loopback host.
        _ = try ResourceIdentifier(url)
        let challenge = try await Login.probe(url, timeout: timeout)
        let identity = try resourceIdentity(stored: stored ?? nil, port: port)
        let requested = scope.map { $0.split(separator: " ").map(String.init) }
        let parameters = try parameters()
        let dpop = senderOptions.dpop
        let par = senderOptions.par
        let port = port
        let login = self
        let signedIn = try await refusingAnotherSecretIssuer {
            try await OAuthClient.signIn(
                toResource: url, challenge: challenge, identity: identity, timeout: timeout, logger: logger
            ) { access in
                var client = access.client
                if par { client.usesPushedAuthorizationRequests = true }
                if dpop { client.dpop = DPoPBinding() }
                let scopes = requested ?? challenge?.scopes ?? access.resourceMetadata.scopesSupported ?? []
                let credentials = try await login.browserSignIn(
                    client: client, scopes: scopes, parameters: parameters, port: port, logger: logger)
                return (client, scopes, credentials)
            }
        }
        let (client, scopes, credentials) = signedIn.result
        if signedIn.registeredAgain { Output.stderr("The authorization server had forgotten this client; it was registered again.") }
        var profile = Profile(
            name: name, metadata: client.metadata, clientID: client.clientID, clientAuthentication: client.authentication.methodName,
            clientSecret: signedIn.access.registration?.clientSecret ?? (clientSecretEnv == nil ? clientSecret : nil),
            clientSecretEnv: signedIn.access.registration == nil ? clientSecretEnv : nil, scopes: scopes, parameters: parameters,
            port: port, device: false, credentials: credentials)
        profile.resource = signedIn.access.resourceMetadata.resource
        profile.registration = signedIn.access.registration
        profile.dpopKey = client.dpop?.key as? DPoPKey
        profile.dpop = dpop
        profile.par = par
        return (profile, client)
    }
}
#endif
