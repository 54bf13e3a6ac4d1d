#if CLI // the CLI package trait
import AuthFlow
import ArgumentParser
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `authflow login` options for JWT client authentication (RFC 7523,
/// OIDC Core §9: `--private-key`, `--key-id`, `--assertion-audience`) and
/// pushed authorization requests (RFC 9126: `--par`).
struct SenderOptions: ParsableArguments {
    /// The `aud` of client assertions; `token_endpoint`, the spelling of
    /// earlier versions, is still read.
    enum Audience: String, ExpressibleByArgument, CaseIterable {
        case issuer
        case tokenEndpoint = "token-endpoint"

        init?(argument: String) {
            self.init(rawValue: argument == "token_endpoint" ? Audience.tokenEndpoint.rawValue : argument)
        }
    }

    @Option(
        help: ArgumentHelp(
            "private_key_jwt: the client's private key file, PEM or a private JWK (implies --client-auth private_key_jwt).",
            valueName: "FILE"))
    var privateKey: String?
    @Option(help: "private_key_jwt: the kid to put in the assertion header (default: the JWK's kid).")
    var keyID: String?
    @Option(
        help:
            "The aud of client assertions: issuer (the default) or token-endpoint (compatibility: an assertion a hostile server captures can then be replayed)."
    )
    var assertionAudience: Audience?
    @Flag(help: "Bind the tokens to a new DPoP key (RFC 9449), kept in the profile; browser or --device sign-in.")
    var dpop = false
    @Flag(help: "Push the authorization request first (RFC 9126 PAR); automatic when the provider requires it.")
    var par = false

    func validate(method: String?, hasSecret: Bool, device: Bool) throws {
        if par, device { throw ValidationError("--par applies to the browser flow, not to --device") }
        switch method {
        case "private_key_jwt"?:
            guard privateKey != nil else { throw ValidationError("--client-auth private_key_jwt needs --private-key FILE") }
            if hasSecret { throw ValidationError("--client-auth private_key_jwt takes no client secret") }
        case nil where privateKey != nil:
            if hasSecret { throw ValidationError("--private-key (private_key_jwt) takes no client secret") }
        case let other?:
            if privateKey != nil || keyID != nil {
                throw ValidationError("--private-key and --key-id go with --client-auth private_key_jwt, not \(other)")
            }
        case nil:
            if keyID != nil { throw ValidationError("--key-id goes with --private-key") }
        }
        if assertionAudience != nil, privateKey == nil, method != "client_secret_jwt" {
            throw ValidationError("--assertion-audience goes with --client-auth private_key_jwt or client_secret_jwt")
        }
    }

    /// The absolute path of `--private-key`, as the profile keeps it.
    var privateKeyPath: String? {
        privateKey.map { URL(fileURLWithPath: $0, relativeTo: URL(fileURLWithPath: FileManager.default.currentDirectoryPath)).path }
    }

    /// JWT client authentication from a method name and what goes with it;
    /// nil for the other methods. Also used for a stored profile.
    static func jwtAuthentication(
        method: String, secret: String?, privateKeyPath: String?, keyID: String?,
        audience: String?
    ) throws -> ClientAuthentication? {
        try JWTClientAuthentication.make(method: method, secret: secret, privateKeyPath: privateKeyPath, keyID: keyID, audience: audience)
    }
}
#endif
