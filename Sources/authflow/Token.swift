#if CLI // the CLI package trait
import AuthFlow
import ArgumentParser
import AuthFlowLoopback
import Foundation

/// `authflow token`: a fresh access token on stdout, for scripts. Refreshes
/// when the stored one expires within a minute (at most half its lifetime),
/// within `--min-ttl` seconds, or always with `--force`; parallel invocations
/// refresh once (the profile is locked around the refresh and re-read after
/// waiting, and what another process refreshed meanwhile is used).
struct Token: AsyncParsableCommand {
    // An explicit name spares ArgumentParser deriving it from the type name
    // through reflection, which is measurable in a command run this often.
    static let configuration = CommandConfiguration(commandName: "token", abstract: "Print a fresh access token (refreshing when needed).")

    @OptionGroup var profileOption: ProfileOption
    @OptionGroup var storeOption: StoreOption
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
    }

    func run() async throws {
        do {
            if case .postgresql(let address) = try storeOption.kind() { return try await sharedToken(address) }
            let profile = try Profile.load(profileOption.profile)
            let credentials = try profile.signedInCredentials()
            if profile.holdsDPoPToken {
                throw AuthFlowError(
                    .configuration, "profile \(profile.name) holds a DPoP-bound token, which is useless without a proof from its key",
                    recovery: "use `authflow request [-X METHOD] URL` to send an authorized request with a fresh proof")
            }
            // The common case, a token valid long enough, needs no client and no session.
            if !force, !TokenValidity.needsRefresh(credentials, minimumValidity: minTTL, leeway: Profile.leeway, now: Date()) {
                Output.stdout(credentials.accessToken)
                return
            }
            let session = try profile.session(timeout: timeout, logger: verboseOption.makeLogger())
            let token = force ? try await session.refreshNow().accessToken : try await session.freshAccessToken(minimumValidity: minTTL)
            Output.stdout(token)
        } catch {
            throw Output.fail(error, json: false)
        }
    }
}

/// `authflow logout`: revoke (refresh token, then access token), end the
/// provider's session when it has an end-session endpoint, and forget the
/// credentials; the settings stay for the next `authflow login`, unless
/// `--forget`. The end-session flow is in `EndProviderSession.swift`.
struct Logout: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "logout",
        abstract: "Revoke the tokens, end the provider session and forget the credentials.",
        discussion: "The profile's settings stay, so 'authflow login' signs in again without flags; --forget deletes the whole profile.")

    @OptionGroup var profileOption: ProfileOption
    @OptionGroup var storeOption: StoreOption
    @Option(help: "Seconds each network request may take.")
    var timeout: Double = 30
    @Option(help: "Seconds to wait for the provider to redirect back after ending its session.")
    var browserTimeout: Double = 300
    @Flag(help: "Delete the whole profile (settings too), not only the credentials.")
    var forget = false
    @Flag(help: "Do not open the end-session page; only print it.")
    var noBrowser = false
    @Flag(help: "Show the ID token (id_token_hint) in the printed end-session URL.")
    var showTokens = false
    @Flag(help: "Print the result as JSON on stdout.")
    var json = false
    @OptionGroup var verboseOption: VerboseOption

    func validate() throws {
        guard timeout > 0, browserTimeout > 0 else { throw ValidationError("timeouts must be positive") }
    }

    func run() async throws {
        do {
            if case .postgresql(let address) = try storeOption.kind() { return try await sharedSignOut(address) }
            try await signOut()
        } catch {
            throw Output.fail(error, json: json)
        }
    }

    private func signOut() async throws {
        let name = profileOption.profile
        let profile = try Profile.load(name)
        guard let credentials = profile.credentials else {
            if forget { try Profile.forget(name) }
            if json {
                Output.json(LogoutReport(profile: name, signedIn: false, revoked: false, profileDeleted: forget, endSession: .notSignedIn))
            } else {
                Output.stderr(forget ? "Profile \(name) deleted (it was not signed in)." : "Profile \(name) is not signed in.")
            }
            return
        }
        let logger = verboseOption.makeLogger()
        let session = try profile.session(timeout: timeout, logger: logger)
        let result = try await session.signOut()
        if forget { try Profile.forget(name) }
        let what = forget ? "profile \(name) deleted" : "credentials of profile \(name) deleted (its settings stay)"
        let hasRevocation = session.client.metadata.revocationEndpoint != nil
        if !hasRevocation {
            Output.stderr("Signed out; \(what). The provider has no revocation endpoint, so the tokens stay valid until they expire.")
        } else if result.revocationFailures.isEmpty {
            Output.stderr("Tokens revoked; \(what).")
        } else {
            Output.stderr("Signed out locally; \(what).")
        }
        let ending = EndProviderSession(
            client: session.client, idToken: credentials.token.idToken, port: profile.port,
            browserTimeout: browserTimeout, noBrowser: noBrowser, showTokens: showTokens, logger: logger)
        let endSession = await ending.run(fallbackURL: result.endSessionURL)
        if let failure = result.revocationFailures.first {
            Output.stderr("Revocation failed, so the provider may accept the tokens until they expire:")
            throw failure
        }
        if json {
            Output.json(LogoutReport(profile: name, signedIn: true, revoked: hasRevocation, profileDeleted: forget, endSession: endSession))
        }
    }
}

/// `authflow status`: what the profile holds, without secrets.
struct Status: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "status", abstract: "Show the profile's sign-in state.")

    @OptionGroup var profileOption: ProfileOption
    @Flag(help: "Print JSON on stdout.")
    var json = false

    func run() async throws {
        do {
            let profile = try Profile.load(profileOption.profile)
            let summary = Summary(profile: profile, credentials: try profile.signedInCredentials(), showTokens: false, includeExpired: true)
            if json { Output.json(summary) } else { summary.printHuman(path: nil) }
        } catch {
            throw Output.fail(error, json: json)
        }
    }
}
#endif
