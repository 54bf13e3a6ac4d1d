#if CLI // the CLI package trait
import AuthFlow
import ArgumentParser
import AuthFlowLoopback
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `authflow token`: a fresh access token on stdout, for scripts. Refreshes
/// when the stored one expires within a minute (at most half its lifetime),
/// within `--min-ttl` seconds, or always with `--force`; parallel invocations
/// refresh once (the profile is locked around the refresh and re-read after
/// waiting, and what another process refreshed meanwhile is used).
struct Token: AsyncParsableCommand {
    // An explicit name spares ArgumentParser deriving it from the type name
    // through reflection, which is measurable in a command run this often.
    // `authflow token` is parsed by this command alone (`Authflow.parseCommand`);
    // whatever it does not accept there (help, `--generate-completion-script`,
    // errors) is parsed again from the root.
    static let configuration = CommandConfiguration(
        commandName: "token", abstract: "Print a fresh access token (refreshing when needed).")

    @OptionGroup var profileOption: ProfileOption
    @Option(
        name: .customLong("for"),
        help: ArgumentHelp("Use the profile whose URLs serve this URL (unless --profile or AUTHFLOW_PROFILE names one).", valueName: "url"))
    var forURL: String?
    @OptionGroup var storeOption: StoreOption
    @Option(
        help: ArgumentHelp(
            "Print the session's token for this API (RFC 8707) instead of its own: held per API, renewed without a browser.",
            valueName: "url"))
    var resource: String?
    @Flag(help: "With --resource: get the token by token exchange (RFC 8693) instead of the refresh token.")
    var exchange = false
    @Flag(help: "With --resource: name the API in `audience` (Auth0's Multi-Resource Refresh Token) instead of `resource`.")
    var audience = false
    @Option(help: ArgumentHelp("With --resource: the scopes to ask for (space-separated).", valueName: "scopes"))
    var scope: String?
    @Option(
        name: .customLong("min-ttl"), help: ArgumentHelp("Refresh when the token expires within this many seconds.", valueName: "seconds"))
    var minTTL: Double?
    @Flag(help: "Refresh now, whatever the expiry.")
    var force = false
    @Option(help: "Seconds each network request may take.")
    var timeout: Double = 30
    @OptionGroup var verboseOption: VerboseOption

    func validate() throws {
        if let minTTL, !(minTTL >= 0 && minTTL.isFinite) { throw ValidationError("--min-ttl takes a number of seconds, 0 or more") }
        if force, minTTL != nil { throw ValidationError("use either --force or --min-ttl") }
        guard timeout > 0 else { throw ValidationError("--timeout must be positive") }
        if let forURL, URL(string: forURL)?.host == nil { throw ValidationError("--for takes an absolute URL") }
        if resource == nil, exchange || audience || scope != nil {
            throw ValidationError("--exchange, --audience and --scope go with --resource")
        }
        if exchange, audience { throw ValidationError("use either --exchange or --audience") }
        if let resource {
            guard let url = URL(string: resource), url.host != nil else { throw ValidationError("--resource takes an absolute URL") }
            do { _ = try ResourceIdentifier(url) } catch { throw ValidationError("--resource: \(error)") }
        }
    }

    func run() async throws {
        if let forURL {
            // The profile is chosen once, then the command runs as if it had been named.
            var chosen = self
            chosen.forURL = nil
            do {
                chosen.profileOption.explicitProfile = try profileOption.profile(for: forURL)
            } catch {
                throw Output.fail(error, json: false)
            }
            return try await chosen.run()
        }
        do {
            let name = profileOption.profile
            try await storeOption.kind().withStore(profile: name, logger: verboseOption.makeLogger) { store in
                // The common case, a token valid long enough, needs the credentials only:
                // no client, no session, no provider metadata.
                let credentials = try await store.signedInCredentials()
                if ProfileCredentials(name: name, credentials: credentials).holdsDPoPToken {
                    throw AuthFlowError(
                        .configuration, "profile \(name) holds a DPoP-bound token, which is useless without a proof from its key",
                        recovery: "use `authflow request [-X METHOD] URL` to send an authorized request with a fresh proof")
                }
                if let resource {
                    return try await printResourceToken(resource, store: store)
                }
                if !force, !TokenValidity.needsRefresh(credentials, minimumValidity: minTTL, leeway: Profile.leeway, now: Date()) {
                    Output.stdout(credentials.accessToken)
                    return
                }
                // One refresh across every process (and, in a shared store, every machine):
                // the others wait for the store's lock and take its result.
                let session = try await store.session(timeout: timeout, logger: verboseOption.makeLogger())
                let token: String
                do {
                    token =
                        force ? try await session.refreshNow().accessToken : try await session.freshAccessToken(minimumValidity: minTTL)
                } catch let error as AuthFlowError where error.oauth?.error == "invalid_client" && session.client.registration != nil {
                    throw Self.forgottenRegistration(name, resource: session.client.resource, error)
                }
                // A refresh whose result the store could not take (a full disk,
                // a read-only directory, a database lost even on a new connection):
                // one more try, else fail rather than print a token whose rotated
                // refresh token dies with this process.
                try await session.savePendingCredentials()
                Output.stdout(token)
            }
        } catch {
            throw Output.fail(error, json: false)
        }
    }

    /// `--resource`: the session's token for that API, renewed (once across
    /// processes, under the profile's lock) with the refresh token or, with
    /// `--exchange`, by token exchange, and kept in the profile beside its
    /// own token.
    private func printResourceToken(_ resource: String, store: any ProfileSessionStore) async throws {
        let target = try ResourceIdentifier(URL(string: resource)!)
        let session = try await store.session(timeout: timeout, logger: verboseOption.makeLogger())
        let scopes = scope.map { TokenResponse.scopes(from: $0) } ?? []
        let grant: ResourceTokenGrant =
            exchange
            ? .tokenExchange(scopes: scopes) : audience ? .refreshTokenNamingAudience(scopes: scopes) : .refreshToken(scopes: scopes)
        // --force: the kept token is rejected, so one request replaces it (none kept: the one request gets one).
        let kept = force ? try await store.load()?.resourceToken(for: target)?.accessToken : nil
        let token = try await session.resourceToken(for: target, using: grant, minimumValidity: minTTL, rejecting: kept)
        try await session.savePendingCredentials()
        Output.stdout(token.accessToken)
    }

    /// The server no longer knows the client this profile registered (RFC 7591):
    /// a script cannot repair that, a sign-in can (it registers again).
    static func forgottenRegistration(_ name: String, resource: ResourceIdentifier?, _ error: AuthFlowError) -> AuthFlowError {
        let resource = resource.map { " --resource \($0.description)" } ?? ""
        return AuthFlowError(
            .reauthenticationRequired, "the authorization server no longer knows the client registered for profile \(name)",
            recovery: "Sign in again (it registers the client again): authflow login --profile \(name)\(resource)",
            underlyingError: error)
    }
}
#endif
