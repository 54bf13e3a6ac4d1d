extension AuthFlowError {
    /// The verification rule a token broke, with ``Category/idTokenInvalid``
    /// (ID tokens) and ``Category/jwtInvalid`` (other JWTs).
    ///
    /// Like ``Category``, reasons are values that a later version can add
    /// to; a `switch` over them needs a `default:` branch. Encoded
    /// (`Codable`) as its raw string, such as `key_not_found`.
    public struct Reason: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible {
        /// The stable name, such as `key_not_found`.
        public let rawValue: String

        /// A reason with the given name.
        public init(rawValue: String) {
            self.rawValue = rawValue
        }

        /// The raw name.
        public var description: String { rawValue }

        /// True when `value` is `pattern`: lets a `switch` match reasons.
        public static func ~= (pattern: Reason, value: Reason) -> Bool {
            pattern == value
        }

        /// The signature does not verify.
        public static let signature = Reason(rawValue: "signature")
        /// The `alg` is not one the client accepts.
        public static let algorithm = Reason(rawValue: "algorithm")
        /// No key in the issuer's JWK Set matches, even after fetching it again.
        public static let keyNotFound = Reason(rawValue: "key_not_found")
        /// `iss` is not the expected issuer.
        public static let issuer = Reason(rawValue: "issuer")
        /// `aud` does not name the client (or the expected audience).
        public static let audience = Reason(rawValue: "audience")
        /// `azp` is missing or wrong where it is required.
        public static let authorizedParty = Reason(rawValue: "authorized_party")
        /// `exp` is missing or past.
        public static let expired = Reason(rawValue: "expired")
        /// `iat` is missing or in the future.
        public static let issuedAt = Reason(rawValue: "issued_at")
        /// `nbf` is in the future: the token is not valid yet.
        public static let notBefore = Reason(rawValue: "not_before")
        /// `nonce` does not match the one sent.
        public static let nonce = Reason(rawValue: "nonce")
        /// `at_hash` does not match the access token.
        public static let atHash = Reason(rawValue: "at_hash")
        /// `auth_time` is missing or older than `max_age` allows.
        public static let authTime = Reason(rawValue: "auth_time")
        /// `acr` is missing, or not one of the values the request required
        /// (``IDTokenRules/acrValues``).
        public static let authenticationContextClass = Reason(rawValue: "acr")
        /// `sub` is missing, or differs from the one the session had.
        public static let subject = Reason(rawValue: "subject")
        /// The token is not a well-formed JWS or its claims are not JSON of the right types.
        public static let malformed = Reason(rawValue: "malformed")

        /// A `client_secret_jwt` secret is shorter than the HMAC's hash
        /// output (RFC 7518 §3.2: 32 bytes for HS256), with
        /// ``Category/configuration``.
        public static let secretTooShort = Reason(rawValue: "secret_too_short")

        /// The reasons an ID token can be refused for (``Category/idTokenInvalid``).
        public static let idToken: [Reason] = [
            .signature, .algorithm, .keyNotFound, .issuer, .audience, .authorizedParty, .expired,
            .issuedAt, .nonce, .atHash, .authTime, .authenticationContextClass, .subject, .malformed,
        ]

        /// The reasons ``JWTVerifier`` refuses a token for (``Category/jwtInvalid``).
        public static let jwt: [Reason] = [
            .signature, .algorithm, .keyNotFound, .issuer, .audience, .expired, .notBefore, .issuedAt, .subject, .malformed,
        ]

        /// Every reason this version of AuthFlow reports.
        public static let known: [Reason] = idToken + [.notBefore]
    }
}
