#if CLI // the CLI package trait
import AuthFlow
import ArgumentParser
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `authflow exchange`: an OAuth 2.0 token exchange (RFC 8693) of the
/// profile's access token (refreshed first when it is about to expire) for a
/// token for another audience or resource, with the profile's client and
/// client authentication. The token response is printed as one JSON object
/// on stdout, the issued token included: like `authflow token`, this command
/// exists to hand a token to a script.
struct Exchange: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "exchange",
        abstract: "Exchange the profile's access token for a token for another audience or resource (RFC 8693); print it as JSON.",
        discussion:
            "The JSON object has the response's access_token (the issued token, whatever its type), issued_token_type, token_type, "
            + "and expires_in, scope and refresh_token when the server sent them.")

    @OptionGroup var profileOption: ProfileOption
    @OptionGroup var storeOption: StoreOption
    @Option(name: .customLong("audience"), help: ArgumentHelp("A service the token is for (repeatable).", valueName: "name"))
    var audiences: [String] = []
    @Option(name: .customLong("resource"), help: ArgumentHelp("A resource URL the token is for (repeatable; RFC 8707).", valueName: "url"))
    var resources: [String] = []
    @Option(
        name: .customLong("requested-token-type"),
        help: ArgumentHelp(
            "The token type wanted: a URI, or access_token, refresh_token, id_token, jwt, saml1, saml2, id-jag.", valueName: "type"))
    var requestedTokenType: String?
    @Option(help: ArgumentHelp("The scopes wanted, space-separated.", valueName: "scopes"))
    var scope: String?
    @Option(help: "Seconds each network request may take.")
    var timeout: Double = 30
    @OptionGroup var verboseOption: VerboseOption

    func validate() throws {
        guard !audiences.isEmpty || !resources.isEmpty else { throw ValidationError("give --audience or --resource") }
        if audiences.contains(where: \.isEmpty) { throw ValidationError("--audience takes a non-empty name") }
        _ = try resourceIdentifiers()
        if let requestedTokenType, Self.tokenType(requestedTokenType) == nil {
            throw ValidationError("--requested-token-type takes a URI or one of \(Self.shortNames.joined(separator: ", "))")
        }
        guard timeout > 0 else { throw ValidationError("--timeout must be positive") }
    }

    func run() async throws {
        let output: ExchangeOutput
        do {
            output = try await exchange()
        } catch {
            throw Output.fail(error, json: false)
        }
        Output.json(output)
    }

    /// The exchange, with the profile's access token as the subject token.
    func exchange() async throws -> ExchangeOutput {
        var request = TokenExchangeRequest(
            subject: .init("", type: .accessToken), requestedTokenType: requestedTokenType.flatMap(Self.tokenType),
            audiences: audiences, resources: try resourceIdentifiers(),
            scopes: scope.map { $0.split(separator: " ").map(String.init) } ?? [])
        return try await storeOption.kind().withStore(profile: profileOption.profile, logger: verboseOption.makeLogger) { store in
            let session = try await store.session(timeout: timeout, logger: verboseOption.makeLogger())
            request.subject.value = try await session.freshAccessToken(minimumValidity: nil)
            // A refresh on the way is kept before anything else can fail.
            try await session.savePendingCredentials()
            return ExchangeOutput(try await session.client.exchangeToken(request))
        }
    }

    private func resourceIdentifiers() throws -> [ResourceIdentifier] {
        try resources.map { text in
            guard let url = URL(string: text), let resource = try? ResourceIdentifier(url) else {
                throw ValidationError("--resource takes an absolute https URL (http only on a loopback host), without a fragment")
            }
            return resource
        }
    }

    /// The short names `--requested-token-type` accepts: the last part of each known identifier.
    static let shortNames = TokenTypeIdentifier.known.map { String($0.rawValue.split(separator: ":").last!) }

    /// A short name or a URI, as an identifier.
    static func tokenType(_ text: String) -> TokenTypeIdentifier? {
        if let known = TokenTypeIdentifier.known.first(where: { $0.rawValue.hasSuffix(":" + text) }) { return known }
        return text.contains(":") ? TokenTypeIdentifier(text) : nil
    }
}

/// What `authflow exchange` prints: the token exchange response's members
/// (RFC 8693 §2.2.1), under their wire names.
struct ExchangeOutput: Encodable {
    let accessToken: String
    let issuedTokenType: String
    let tokenType: String
    let expiresIn: Int?
    let scope: String?
    let refreshToken: String?

    init(_ response: TokenExchangeResponse) {
        accessToken = response.issuedToken
        issuedTokenType = response.issuedTokenType.rawValue
        tokenType = response.token.tokenType
        expiresIn = response.token.expiresIn
        scope = response.token.scopes.isEmpty ? nil : response.token.scopes.joined(separator: " ")
        refreshToken = response.token.refreshToken
    }

    enum CodingKeys: String, CodingKey {
        case accessToken = "access_token"
        case issuedTokenType = "issued_token_type"
        case tokenType = "token_type"
        case expiresIn = "expires_in"
        case scope
        case refreshToken = "refresh_token"
    }
}
#endif
