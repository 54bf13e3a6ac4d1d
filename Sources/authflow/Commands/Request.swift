#if CLI // the CLI package trait
import AuthFlow
import ArgumentParser
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Logging

/// `authflow request`: an authorized HTTP request with the profile's access
/// token — `Authorization: DPoP` and a fresh proof for a DPoP-bound profile,
/// `Authorization: Bearer` otherwise — refreshing once on a 401
/// `invalid_token`. For a profile signed in with `--resource`, a 403
/// `insufficient_scope` from the resource's origin naming the scopes the
/// API needs signs in again once (the browser flow, as `authflow login`)
/// with the profile's scopes and those, then retries once; any other
/// server's 403 is only reported. A profile signed in
/// with `--resource` whose registered client the server forgot
/// (`invalid_client`) signs in to the resource again once (registering
/// again) and retries once. The response body goes to stdout (headers first
/// with -i).
struct Request: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Send an authorized request with the profile's token and print the response body.",
        discussion: "A DPoP-bound profile gets a fresh DPoP proof per request; a bearer profile an Authorization: Bearer header.")

    @OptionGroup var profileOption: ProfileOption
    @OptionGroup var storeOption: StoreOption
    @Option(name: [.customShort("X"), .long], help: "The HTTP method (default GET, or POST with -d).")
    var method: String?
    @Option(name: [.customShort("H"), .customLong("header")], help: "A request header 'Name: value' (repeatable).")
    var headers: [String] = []
    @Option(name: [.customShort("d"), .long], help: "The request body (implies POST unless -X is given).")
    var data: String?
    @Flag(name: [.customShort("i"), .customLong("include")], help: "Print the status line and response headers before the body.")
    var include = false
    @Option(help: "Seconds the request may take.")
    var timeout: Double = 30
    @OptionGroup var verboseOption: VerboseOption
    @Argument(help: "The URL (https, or http on a loopback host).")
    var url: String

    func validate() throws {
        guard let parsed = URL(string: url), let scheme = parsed.scheme?.lowercased(), scheme == "https" || scheme == "http",
            parsed.host != nil
        else { throw ValidationError("the URL must be an absolute http(s) URL") }
        for header in headers {
            guard let colon = header.firstIndex(of: ":"), colon != header.startIndex else {
                throw ValidationError("-H takes 'Name: value'")
            }
            let name = header[..<colon].trimmingWhitespace()
            if ["authorization", "dpop"].contains(name.lowercased()) {
                throw ValidationError("-H \(name) is set by authflow from the profile")
            }
        }
        guard timeout > 0 else { throw ValidationError("--timeout must be positive") }
    }

    func run() async throws {
        do {
            try await send()
        } catch {
            throw Output.fail(error, json: false)
        }
    }

    private func send() async throws {
        let target = URL(string: url)!
        guard target.scheme?.lowercased() == "https" || ["127.0.0.1", "localhost", "::1", "[::1]"].contains(target.host ?? "") else {
            throw AuthFlowError(
                .configuration, "tokens are sent only over https (or http to a loopback host)", recovery: "use an https URL")
        }
        let makeLogger = verboseOption.makeLogger
        let logger = makeLogger()
        let name = try profileOption.profile(for: url)
        let profile = try Profile.load(name)
        var fields: [(name: String, value: String)] = headers.map { header in
            let colon = header.firstIndex(of: ":")!
            return (
                name: header[..<colon].trimmingWhitespace(),
                value: header[header.index(after: colon)...].trimmingWhitespace()
            )
        }
        let verb = method ?? (data == nil ? "GET" : "POST")
        if data != nil, !fields.contains(where: { $0.name.lowercased() == "content-type" }) {
            fields.append((name: "Content-Type", value: "application/x-www-form-urlencoded"))
        }
        let request = HTTPTransportRequest(
            method: verb.uppercased(), url: target, headers: fields, body: data.map { Data($0.utf8) }, timeout: timeout)
        let sessionStore = try storeOption.kind().keepingPlace(of: profile)
        let response = try await sessionStore.withStore(profile: name, logger: makeLogger) { store in
            do {
                return try await Request.send(request, profile: profile, store: store, timeout: timeout, logger: logger)
            } catch let error as AuthFlowError
                where error.oauth?.error == "invalid_client" && profile.registration != nil && profile.resource != nil
            {
                // The server forgot the registered client: sign in to the resource again (which registers
                // again when the kept registration is refused), then send once more.
                let renewed = try await Request.signInAgain(to: profile, store: store, timeout: timeout, logger: logger)
                return try await Request.send(request, profile: renewed, store: store, timeout: timeout, logger: logger)
            }
        }
        if include {
            var head = "HTTP \(response.status)\n"
            for header in response.headers { head += "\(header.name): \(header.value)\n" }
            Output.stdout(head)
        }
        Output.raw(response.body)
        if !(200..<400).contains(response.status) {
            throw AuthFlowError(.invalidResponse, "the server answered HTTP \(response.status)")
        }
    }

    /// `request` through the session in `store`, stepping up once on
    /// `insufficient_scope` or `insufficient_user_authentication` only at the origin of the profile's resource
    /// (``stepsUp(_:for:)``); elsewhere the 403 is the answer.
    static func send(
        _ request: HTTPTransportRequest, profile: Profile, store: any ProfileSessionStore, timeout: Double, logger: Logger
    ) async throws -> HTTPTransportResponse {
        let session = try await store.session(timeout: timeout, logger: logger)
        let name = profile.name
        if let token = try resourceToken(serving: request.url, in: try await store.load()?.resourceTokens ?? [], own: profile.resource) {
            // An API the profile holds a token for (`authflow token --resource`): that token, renewed the way it was got.
            guard let grant = ResourceTokenGrant(named: token.grant) else {
                throw AuthFlowError(
                    .configuration, "the token kept for \(token.resource) came from an identity assertion, which authflow cannot renew",
                    recovery: "Use the app that obtained it.")
            }
            return try await session.send(request, to: token.resource, using: grant)
        }
        guard stepsUp(profile, for: request.url) else {
            let response = try await session.send(request)
            if let scopes = try? AuthSession.requiredScopes(in: response) {
                Output.stderr(
                    "The server asks for more scopes (\(TerminalText.field(scopes.joined(separator: " ")))); "
                        + "authflow signs in again for more scopes only at the origin of a profile signed in with --resource. "
                        + "If you trust this server with them, run authflow login with --scope.")
            }
            if let required = try? AuthSession.requiredAuthentication(in: response) {
                Output.stderr(
                    "The server asks for another sign-in (acr_values \(TerminalText.field(required.acrValues.joined(separator: " "))), "
                        + "max_age \(required.maxAge.map(String.init) ?? "-")); authflow signs in again only at the origin of a "
                        + "profile signed in with --resource.")
            }
            return response
        }
        return try await session.send(request) { demand in
            try await Request.stepUp(profile: name, demand: demand, timeout: timeout, logger: logger)
        }
    }

    /// The profile's token for another API that serves `target`: the most
    /// specific resource URL that serves it, by the rule the credential
    /// helpers choose a profile by (``CredentialTarget/serves(_:)``), so a
    /// token for `https://api.example.com/billing` never goes to
    /// `https://api.example.com/mail`. A resource with a query serves only
    /// its own URL. The profile's `own` resource takes part: nil when it is
    /// the most specific (its own token then goes), and two resources as
    /// specific as each other are an error rather than a guess.
    static func resourceToken(serving target: URL, in tokens: [ResourceToken], own: ResourceIdentifier?) throws -> ResourceToken? {
        guard let wanted = CredentialTarget(url: target.absoluteString) else { return nil }
        var best: (token: ResourceToken?, resource: ResourceIdentifier, specificity: Int)?
        var tied: ResourceIdentifier?
        let candidates: [(ResourceToken?, ResourceIdentifier)] = tokens.map { ($0, $0.resource) } + (own.map { [(nil, $0)] } ?? [])
        for (token, resource) in candidates where resource != best?.resource {
            guard let pattern = CredentialTarget(url: resource.description),
                resource.url.query == nil ? pattern.serves(wanted) : resource.url.absoluteString == target.absoluteString
            else { continue }
            if let current = best, current.specificity == pattern.specificity {
                tied = resource
            } else if best.map({ pattern.specificity > $0.specificity }) ?? true {
                best = (token, resource, pattern.specificity)
                tied = nil
            }
        }
        if let tied, let best {
            throw AuthFlowError(
                .configuration, "the tokens kept for \(best.resource) and \(tied) both serve \(target.absoluteString)",
                recovery: "Sign out and get a token for one of them only.")
        }
        return best?.token
    }

    /// Whether a 403 `insufficient_scope` from `target` may make the profile
    /// sign in again for more scopes: only when the profile was signed in to
    /// a resource (`login --resource`) and `target` has that resource's
    /// origin. Any other server (for a plain profile, every server) could
    /// otherwise name scopes of its choosing, get the widened token and
    /// leave the profile with those scopes for every later request.
    static func stepsUp(_ profile: Profile, for target: URL) -> Bool {
        guard let resource = profile.resource else { return false }
        return resource.permitsRequest(to: target)
    }

    /// `login --resource` again for a profile whose registered client the
    /// server forgot; the profile is saved with the new client, and the
    /// tokens kept in `store`.
    static func signInAgain(
        to profile: Profile, store: any ProfileSessionStore, timeout: Double, logger: Logger
    ) async throws -> Profile {
        guard let resource = profile.resource else { return profile }
        Output.stderr("The authorization server no longer knows this client; signing in again.")
        var arguments = ["--profile", profile.name, "--resource", resource.description, "--timeout", String(timeout)]
        if !profile.scopes.isEmpty { arguments += ["--scope", profile.scopes.joined(separator: " ")] }
        let login = try Login.parse(arguments)
        let (signedIn, client) = try await login.resourceSignedIn(resource.description, logger: logger)
        _ = try await store.saveSignIn(signedIn, client: client)
        return signedIn
    }

    /// Signs the profile in again for `demand` (the browser flow, or the
    /// device grant for a device profile, which carries the scopes only),
    /// keeping its client, DPoP key and settings; the profile keeps the new
    /// scopes. The session saves the credentials.
    static func stepUp(
        profile name: String, demand: AuthSession.StepUpDemand, timeout: Double, logger: Logger
    ) async throws -> OAuthCredentials {
        let scopes = demand.scopes
        if demand.error == "insufficient_user_authentication" {
            let asked = AuthSession.authenticationAsked(acrValues: demand.acrValues, maxAge: demand.maxAge)
            Output.stderr("The API needs another sign-in (\(TerminalText.field(asked))); signing in again.")
        } else {
            Output.stderr("The API needs more scopes (\(TerminalText.field(scopes.joined(separator: " ")))); signing in again.")
        }
        let login = try Login.parse(["--profile", name, "--timeout", String(timeout)])
        let profile = try Profile.load(name)
        var client = try profile.client(timeout: timeout, logger: logger)
        client.usesPushedAuthorizationRequests = profile.par && !profile.device
        let credentials =
            profile.device
            ? try await login.deviceSignIn(client: client, scopes: scopes)
            : try await login.browserSignIn(
                client: client, scopes: scopes, parameters: profile.parameters, port: profile.port, demand: demand, logger: logger)
        try await ProfileStore(name: name).lock.withLock {
            var kept = try Profile.load(name)
            kept.scopes = scopes
            try kept.save()
        }
        return credentials
    }
}
#endif
