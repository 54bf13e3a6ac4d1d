import Crypto

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension AuthorizationRequest {
    /// Proof Key for Code Exchange (RFC 7636), S256 only: the code verifier of an
    /// authorization request and its challenge.
    ///
    /// There is deliberately no way to ask for the `plain` method: it protects
    /// nothing once the authorization request can be read.
    public struct PKCE: Sendable, Equatable, Codable {
        /// The code verifier, sent with the token request. Secret.
        public let verifier: String
        /// `BASE64URL(SHA256(ASCII(verifier)))`, sent with the authorization request.
        public let challenge: String
        /// Always `S256`.
        public var method: String { "S256" }

        /// A fresh verifier from 32 bytes of the system CSPRNG (43 characters).
        public init() {
            self.init(validVerifier: SecureRandom.token())
        }

        /// Uses a given verifier, for example one handed over by an app.
        ///
        /// - Throws: ``AuthFlowError/Category/configuration`` unless the verifier
        ///   has 43…128 characters from `[A-Z a-z 0-9 - . _ ~]` (RFC 7636 §4.1).
        public init(verifier: String) throws {
            guard PKCE.isValidVerifier(verifier) else {
                throw AuthFlowError.configuration("PKCE code verifier must be 43 to 128 unreserved characters")
            }
            self.init(validVerifier: verifier)
        }

        private init(validVerifier: String) {
            verifier = validVerifier
            challenge = PKCE.challenge(for: validVerifier)
        }

        /// The S256 challenge for a verifier.
        public static func challenge(for verifier: String) -> String {
            Base64URL.encode(SHA256.hash(data: Array(verifier.utf8)))
        }

        static func isValidVerifier(_ verifier: String) -> Bool {
            let bytes = verifier.utf8
            guard (43...128).contains(bytes.count) else { return false }
            return bytes.allSatisfy(FormEncoding.isUnreserved)
        }

        /// Whether `challenge` can be a S256 challenge: the base64url SHA-256
        /// of a verifier, 43 unreserved characters (an authorization server's check).
        package static func isValidChallenge(_ challenge: String) -> Bool {
            challenge.utf8.count == 43 && challenge.utf8.allSatisfy(FormEncoding.isUnreserved)
        }

        /// An authorization server's check of a code verifier against the
        /// challenge of its authorization request (RFC 7636 §4.6).
        package enum Verification: Sendable, Equatable {
            /// The verifier's S256 challenge is the challenge.
            case matches
            /// The verifier is not 43…128 unreserved characters (RFC 7636 §4.1).
            case malformedVerifier
            /// A well-formed verifier of another challenge.
            case mismatch
        }

        /// Checks `verifier` against `challenge` (S256), comparing in constant time.
        package static func verify(_ verifier: String, against challenge: String) -> Verification {
            guard isValidVerifier(verifier) else { return .malformedVerifier }
            return constantTimeEquals(PKCE.challenge(for: verifier), challenge) ? .matches : .mismatch
        }

        enum CodingKeys: String, CodingKey { case verifier }

        /// Decodes a pair stored with ``encode(to:)``, checking the verifier again.
        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            try self.init(verifier: container.decode(String.self, forKey: .verifier))
        }

        /// Encodes the verifier (the challenge is derived from it).
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(verifier, forKey: .verifier)
        }
    }
}

extension AuthorizationRequest.PKCE: CustomStringConvertible {
    /// Shows the method only; the verifier is secret.
    public var description: String { "PKCE(S256)" }
}
