#if CLI // the CLI package trait
import AuthFlow
import AuthFlowLoopback
import AuthFlowProvider
import ArgumentParser
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Logging

/// `authflow demo`: the whole sign-in against an embedded OpenID Provider.
struct Demo: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Sign in against an embedded OpenID Provider, step by step.",
        discussion: """
            Starts a provider on 127.0.0.1 (ephemeral port) and runs the real client \
            code path against it: discovery, authorization request, sign-in through \
            the loopback redirect, code exchange, ID-token verification, userinfo, \
            refresh and revocation. With --resource it starts from a protected API's URL \
            instead: the API's 401 challenge, its protected-resource metadata, the \
            authorization server's metadata, dynamic client registration, sign-in with the \
            RFC 8707 resource, and the API called with a token whose audience is the API. \
            Nothing is stored.
            """)

    @Flag(help: "Start from a protected API's URL: its metadata names the provider, and the client registers itself.")
    var resource = false
    @Flag(help: "Print one JSON object (the steps and the sign-in's outcome) instead of the steps as they run.")
    var json = false
    @OptionGroup var verboseOption: VerboseOption

    func run() async throws {
        guard #available(macOS 14, iOS 17, tvOS 17, watchOS 10, visionOS 1, *) else {
            throw Output.fail(AuthFlowError(.configuration, "the embedded provider needs macOS 14 or later"), json: json)
        }
        do {
            let logger = verboseOption.makeLogger()
            if resource {
                try await DemoResourceRun(logger: logger, json: json).run()
            } else {
                try await DemoRun(logger: logger, json: json).run()
            }
        } catch {
            throw Output.fail(error, json: json)
        }
    }
}

/// The steps of the demo, each timed and printed.
@available(macOS 14, iOS 17, tvOS 17, watchOS 10, visionOS 1, *)
struct DemoRun {
    let logger: Logger
    var json = false
    static let scopes = ["openid", "profile", "email", "offline_access"]

    func run() async throws {
        var printer = StepPrinter(printsLines: !json)
        if !json { Output.stdout("AuthFlow demo: the authorization code flow with PKCE against an embedded OpenID Provider\n") }
        let provider = try await printer.step("start provider") {
            try await EmbeddedProvider.start(.demo)
        } detail: {
            "\($0.issuer.identifier) (user \(DemoValues.user.username), client \(DemoValues.publicClient.id))"
        }
        let result = try await printer.stopping(provider) { printer in try await signIn(provider, printer: &printer) }
        if json {
            Output.json(
                DemoReport(
                    issuer: provider.issuer, clientID: DemoValues.publicClient.id, credentials: result.credentials, printer: printer,
                    userInfo: result.info))
            return
        }
        Output.stdout("\ntotal \(TextColumns.fixed(printer.total, decimals: 1)) ms")
        let claims = result.credentials.idToken?.all ?? [:]
        Output.stdout("\nverified ID-token claims:")
        for name in claims.keys.sorted() {
            Output.stdout("  \(TextColumns.left(name, width: 20)) \(DemoRun.show(claims[name]!, claim: name))")
        }
        Output.stdout("userinfo: \(result.info.name ?? "-") <\(result.info.email ?? "-")>")
    }

    private func signIn(_ provider: EmbeddedProvider, printer: inout StepPrinter) async throws -> (
        credentials: OAuthCredentials, info: OpenIDUserInfo
    ) {
        let client = try await printer.step("discovery") {
            try await OAuthClient(issuer: provider.issuer, clientID: DemoValues.publicClient.id, logger: logger)
        } detail: {
            "\($0.metadata.endpointList.count) endpoints; PKCE \($0.metadata.codeChallengeMethodsSupported?.joined(separator: " ") ?? "-"); RFC 9207 iss \($0.metadata.authorizationResponseIssParameterSupported ? "promised" : "not promised")"
        }
        let listener = try await printer.loopbackListener(logger: logger)
        defer { Task { await listener.close() } }
        let request = try await printer.step("authorization request") {
            try client.authorizationRequest(redirectURI: listener.redirectURI, scopes: DemoRun.scopes)
        } detail: { _ in
            "response_type=code, S256 challenge, state, nonce; scope \(DemoRun.scopes.joined(separator: " "))"
        }
        let grant = try await printer.browserSignIn(request, listener: listener)
        let credentials = try await printer.step("code exchange + ID token") {
            try await client.exchange(grant)
        } detail: { credentials in
            let header = credentials.token.idToken.flatMap { try? CompactJWS($0) }
            return "\(header?.algorithm ?? "?") signature (kid \(header?.keyID ?? "-")); iss aud exp iat nonce at_hash verified"
        }
        let info = try await printer.step("userinfo") {
            try await client.userInfo(
                accessToken: credentials.accessToken, tokenType: credentials.token.tokenType, expectedSubject: credentials.subject)
        } detail: {
            "sub \($0.subject) matches the ID token; \($0.all.count) claims"
        }
        let refreshed = try await printer.step("refresh") {
            try await client.refresh(credentials)
        } detail: { new in
            let rotated = new.token.refreshToken != credentials.token.refreshToken
            return "new access token; refresh token \(rotated ? "rotated" : "kept"); new ID token verified (same sub, auth_time)"
        }
        let refusal = try await printer.step("revocation") {
            try await client.revokeAll(refreshed)
            do {
                _ = try await client.refresh(refreshed)
                return "refresh still worked"
            } catch let error as AuthFlowError where error.oauth != nil {
                return error.oauth?.error ?? "?"
            }
        } detail: {
            "refresh + access token revoked (RFC 7009); refreshing again → \($0)"
        }
        guard refusal == "invalid_grant" else { throw AuthFlowError(.invalidResponse, "the revoked refresh token still worked") }
        return (credentials, info)
    }

    /// A claim for the terminal; the nonce is never printed (it is one of the
    /// values AuthFlow keeps out of output), `at_hash` is shortened.
    static func show(_ value: JSONMemberValue, claim: String) -> String {
        switch value {
        case .string where claim == "nonce": return Summary.redactedNonce
        case .string(let text) where claim == "at_hash": return String(text.prefix(8)) + "…"
        case .string(let text): return text
        case .number(let number) where ["exp", "iat", "auth_time"].contains(claim):
            return "\(Int(number)) (\(InternetDateTime.string(from: Date(timeIntervalSince1970: number))))"
        case .number(let number): return number.rounded() == number ? String(Int(number)) : String(number)
        case .bool(let flag): return String(flag)
        default: return String(describing: value)
        }
    }
}

extension StepPrinter {
    /// The loopback listener of the demo's sign-in, started as the step that names its redirect URI.
    mutating func loopbackListener(logger: Logger) async throws -> LoopbackListener {
        try await step("loopback listener") {
            try await LoopbackListener.start(logger: logger)
        } detail: {
            "redirect URI \($0.redirectURI.absoluteString)"
        }
    }

    /// The demo's sign-in in the headless browser and the check of its
    /// callback, printed as two steps: the authorization code grant.
    mutating func browserSignIn(_ request: AuthorizationRequest, listener: LoopbackListener) async throws -> AuthorizationGrant {
        let callback = try await step("browser sign-in") {
            try await DemoBrowserAgent(listener: listener, browser: HeadlessBrowser()).authorize(request)
        } detail: { _ in
            "GET authorize → 302 → GET loopback callback (automatic sign-in of \(DemoValues.user.username))"
        }
        return try await step("callback validation") {
            try request.validateCallback(callback)
        } detail: { _ in
            "redirect URI, state (constant time), iss = issuer; code received"
        }
    }

    /// Runs `body`, then stops `provider`: as the step "stop provider" when
    /// `body` succeeded, quietly when it threw (its error is what is reported).
    mutating func stopping<T>(_ provider: EmbeddedProvider, _ body: (inout StepPrinter) async throws -> T) async throws -> T {
        let result: T
        do {
            result = try await body(&self)
        } catch {
            await provider.stop()
            throw error
        }
        await step("stop provider") {
            await provider.stop()
        } detail: {
            "graceful shutdown"
        }
        return result
    }
}
#endif
