#if EmbeddedProvider // the EmbeddedProvider package trait
public import AuthFlow
#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif
import Logging
import NIOConcurrencyHelpers
import ServiceLifecycle

/// An OpenID Provider that runs in-process on 127.0.0.1, for development,
/// tests and `authflow demo`.
///
/// ```swift
/// let provider = try await EmbeddedProvider.start(.demo)   // ephemeral port
/// let client = try await OAuthClient(issuer: provider.issuer, clientID: "authflow-demo")
/// …
/// await provider.stop()
/// ```
///
/// It serves OpenID Connect Discovery and RFC 8414 metadata, a JWK Set,
/// the authorization endpoint (PKCE S256 required), the token endpoint
/// (authorization code, rotating refresh tokens, client credentials, device
/// code), userinfo, revocation (RFC 7009), introspection (RFC 7662), end
/// session, device authorization (RFC 8628) with a verification page,
/// pushed authorization requests (RFC 9126), dynamic client registration
/// (RFC 7591) and client ID metadata documents. Access tokens are JWTs
/// (RFC 9068) whose `aud` is the RFC 8707 `resource` asked for; the demo
/// protected resources of ``ProviderConfiguration/protectedResources`` are
/// served on the same listener.
/// State lives in memory and ends with the provider.
@available(macOS 14, iOS 17, tvOS 17, watchOS 10, visionOS 1, *)
public final class EmbeddedProvider: Sendable {
    /// The issuer identifier: `http://127.0.0.1:PORT`.
    public let issuer: Issuer
    /// The port bound.
    public let port: Int
    /// The configuration it started from.
    public let configuration: ProviderConfiguration
    let state: ProviderState
    private let group: ServiceGroup
    private let running: Task<Void, Never>

    private init(port: Int, configuration: ProviderConfiguration, state: ProviderState, group: ServiceGroup, running: Task<Void, Never>) {
        self.port = port
        issuer = Issuer(loopbackPort: port)
        self.configuration = configuration
        self.state = state
        self.group = group
        self.running = running
    }

    /// Starts a provider and returns once it accepts connections.
    ///
    /// - Throws: ``ProviderConfigurationError`` for an invalid configuration,
    ///   ``ProviderStartError`` when the port cannot be bound.
    public static func start(_ configuration: ProviderConfiguration = .demo) async throws -> EmbeddedProvider {
        try configuration.validate()
        let state = try ProviderState(configuration: configuration)
        let (ports, continuation) = AsyncStream<Int>.makeStream()
        let application = HTTPServer.application(
            routes: ProviderRoutes(state: state), port: configuration.port,
            logger: configuration.logger
        ) { port in
            await state.setIssuer("http://127.0.0.1:\(port)")
            continuation.yield(port)
            continuation.finish()
        }
        let group = ServiceGroup(services: [application], logger: configuration.logger)
        let failure = NIOLockedValueBox<String?>(nil)
        let running = Task {
            do {
                try await group.run()
            } catch {
                failure.withLockedValue { $0 = String(describing: error) }
            }
            continuation.finish()
        }
        var iterator = ports.makeAsyncIterator()
        guard let port = await iterator.next() else {
            throw ProviderStartError(
                description: "could not listen on 127.0.0.1:\(configuration.port)"
                    + (failure.withLockedValue { $0 }.map { " (\($0))" } ?? ""))
        }
        configuration.logger.info("provider started", metadata: ["issuer": "http://127.0.0.1:\(port)"])
        return EmbeddedProvider(port: port, configuration: configuration, state: state, group: group, running: running)
    }

    /// Stops gracefully: no new connections, open ones finish, then the
    /// server's service group ends. Safe to call more than once.
    public func stop() async {
        await group.triggerGracefulShutdown()
        await running.value
    }

    /// Starts signing with a new RS256 and a new ES256 key. The replaced
    /// keys stay in the JWK Set, so tokens they signed still verify, until
    /// ``retireOldSigningKeys()``. Returns the new key ids.
    @discardableResult
    public func rotateSigningKeys() async throws -> [String] {
        try await state.rotateKeys()
    }

    /// Forgets every dynamically registered client and every client ID
    /// metadata document it keeps, as a server that lost its registrations
    /// would: their token requests are then `invalid_client`, and a client
    /// must register again. For tests of that recovery; returns how many
    /// clients were forgotten.
    @discardableResult
    public func forgetRegisteredClients() async -> Int {
        await state.forgetRegisteredClients()
    }

    /// How many client ID metadata documents the provider keeps now (for tests).
    package var cachedClientIDMetadataDocuments: Int {
        get async { await state.metadataDocumentClients.count }
    }

    /// The identifier of a protected resource it serves: the issuer followed by its path.
    public func identifier(of resource: ProviderProtectedResource) -> URL {
        URL(string: issuer.identifier + resource.path)!
    }

    /// Removes the keys replaced by earlier rotations from the JWK Set;
    /// returns their ids.
    @discardableResult
    public func retireOldSigningKeys() async -> [String] {
        await state.retireKeys()
    }
}

/// The provider could not start.
public struct ProviderStartError: Error, Sendable, CustomStringConvertible {
    /// What went wrong.
    public let description: String
}
#endif
