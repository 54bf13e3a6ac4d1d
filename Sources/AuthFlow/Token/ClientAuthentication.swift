import Foundation

/// How the client authenticates at the token endpoint (RFC 6749 §2.3,
/// OIDC Core §9).
public enum ClientAuthentication: Sendable, Equatable {
    /// A public client: `client_id` in the body, no secret (native apps).
    case none
    /// HTTP Basic with the id and secret each form-urlencoded first (RFC 6749 §2.3.1).
    case clientSecretBasic(secret: String)
    /// `client_id` and `client_secret` in the form body.
    case clientSecretPost(secret: String)

    /// The OIDC name of the method (`none`, `client_secret_basic`, `client_secret_post`).
    public var methodName: String {
        switch self {
        case .none: "none"
        case .clientSecretBasic: "client_secret_basic"
        case .clientSecretPost: "client_secret_post"
        }
    }

    /// Whether a secret is available (HMAC ID tokens need one).
    public var secret: String? {
        switch self {
        case .none: nil
        case .clientSecretBasic(let secret), .clientSecretPost(let secret): secret
        }
    }

    /// Adds this authentication to a token-endpoint request.
    func apply(clientID: String, to form: inout [(String, String)], headers: inout [(name: String, value: String)]) {
        switch self {
        case .none:
            form.append(("client_id", clientID))
        case .clientSecretPost(let secret):
            form.append(("client_id", clientID))
            form.append(("client_secret", secret))
        case .clientSecretBasic(let secret):
            let pair = "\(FormEncoding.escape(clientID)):\(FormEncoding.escape(secret))"
            headers.append((name: "Authorization", value: "Basic \(Data(pair.utf8).base64EncodedString())"))
        }
    }
}

extension ClientAuthentication: CustomStringConvertible {
    /// The method name only; the secret is never shown.
    public var description: String { methodName }
}
