#if CLI // the CLI package trait
import AuthFlow
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The JWT client authentication a profile or `authflow login` names
/// (`private_key_jwt` with a key file, `client_secret_jwt` with the secret),
/// addressed to the issuer unless `token-endpoint` was chosen,
/// apart from the argument parser so that the stored-profile fuzz target can
/// compile ``Profile`` with it.
enum JWTClientAuthentication {
    /// The authentication for `method`, or nil when it is not a JWT method.
    static func make(
        method: String, secret: String?, privateKeyPath: String?, keyID: String?,
        audience: String?
    ) throws -> ClientAuthentication? {
        // The issuer unless the token endpoint was asked for (`token_endpoint` is the older spelling).
        let aud: ClientAssertionAudience = audience == "token-endpoint" || audience == "token_endpoint" ? .tokenEndpoint : .issuer
        switch method {
        case "private_key_jwt":
            guard let path = privateKeyPath else {
                throw AuthFlowError(.configuration, "private_key_jwt needs a private key file", recovery: "pass --private-key FILE")
            }
            guard let data = FileManager.default.contents(atPath: path) else {
                throw AuthFlowError(
                    .configuration, "cannot read the private key file \(path)",
                    recovery: "check the path given with --private-key and its permissions")
            }
            return .privateKeyJWT(key: try ClientAssertionKey(contents: data, keyID: keyID), audience: aud)
        case "client_secret_jwt":
            guard let secret else {
                throw AuthFlowError(
                    .configuration, "client_secret_jwt needs the client secret",
                    recovery: "pass --client-secret-env VARIABLE (or --client-secret)")
            }
            return .clientSecretJWT(secret: secret, audience: aud)
        default:
            return nil
        }
    }
}
#endif
