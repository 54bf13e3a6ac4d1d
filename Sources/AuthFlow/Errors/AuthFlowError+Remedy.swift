extension AuthFlowError {
    /// What can be done about an error, as a value: the fix that a program
    /// shows in its own terms.
    ///
    /// An error's ``AuthFlowError/recovery`` says what to do in the engine's
    /// API terms (`OAuthClient.usesPushedAuthorizationRequests`). A program
    /// with other terms — a command-line tool's flags, an app's settings
    /// screen — reads the remedy instead and says it its own way:
    ///
    /// ```swift
    /// switch error.remedy {
    /// case .usePushedAuthorizationRequests?: "Turn on “Pushed requests” in Settings."
    /// case .useIssuer?: "Use the issuer \(error.remedy?.value ?? "")."
    /// default: error.recoverySuggestion
    /// }
    /// ```
    ///
    /// Like ``Category``, remedies are values, not enum cases: a later
    /// version can add one without breaking code that branches on them, a
    /// `switch` over them needs a `default:` branch, and a module built on
    /// the engine declares its own as static members in an extension (the
    /// loopback listener's `chooseAnotherPort`, in AuthFlowLoopback, is one). A remedy has a
    /// stable ``name`` and, for some, a ``value`` it names (the issuer to
    /// use, the tenant to allow). In a `switch`, a remedy without a value
    /// matches that remedy whatever its value: `case .useIssuer:` matches
    /// the ``useIssuer`` of any issuer.
    public struct Remedy: Hashable, Sendable, CustomStringConvertible {
        /// The stable name, such as `use_pushed_authorization_requests`.
        public let name: String
        /// What the remedy names, for those that name something: the issuer
        /// of ``useIssuer``, the tenant ID of ``allowTenant``; otherwise nil.
        public let value: String?

        /// A remedy with the given name, naming `value` when it needs one.
        public init(name: String, value: String? = nil) {
            self.name = name
            self.value = value
        }

        /// This remedy naming `value`: `.useIssuer.with("https://id.example.com/")`.
        public func with(_ value: String) -> Remedy {
            Remedy(name: name, value: value)
        }

        /// The name, and the value in parentheses when there is one.
        public var description: String {
            value.map { "\(name)(\($0))" } ?? name
        }

        /// True when `value` is `pattern`, or `pattern` has no value and
        /// names the same remedy: lets a `switch` match remedies.
        public static func ~= (pattern: Remedy, value: Remedy) -> Bool {
            pattern.name == value.name && (pattern.value == nil || pattern.value == value.value)
        }

        // MARK: Signing in

        /// Sign in again: the session ended, or the sign-in expired before it finished.
        public static let signInAgain = Remedy(name: "sign_in_again")
        /// The provider may require pushed authorization requests (RFC 9126)
        /// for this client: set ``OAuthClient/usesPushedAuthorizationRequests``
        /// and sign in again.
        public static let usePushedAuthorizationRequests = Remedy(name: "use_pushed_authorization_requests")
        /// The provider has no pushed authorization request endpoint: sign in
        /// without ``OAuthClient/usesPushedAuthorizationRequests``.
        public static let signInWithoutPushedAuthorizationRequests = Remedy(
            name: "sign_in_without_pushed_authorization_requests")
        /// No refresh token was issued: sign in again asking for one (the
        /// `offline_access` scope, or the provider's own parameters).
        public static let requestOfflineAccess = Remedy(name: "request_offline_access")
        /// Give scopes as scopes (`scopes:`), not as an extra authorization parameter.
        public static let passScopesSeparately = Remedy(name: "pass_scopes_separately")
        /// A request took too long: try again, or allow a longer timeout.
        public static let allowMoreTime = Remedy(name: "allow_more_time")

        // MARK: The provider and the client

        /// Give the issuer as an absolute URL without query or fragment.
        public static let giveTheIssuerURL = Remedy(name: "give_the_issuer_url")
        /// No metadata was found, or it names no issuer: check the issuer
        /// URL, or give the provider's endpoints instead of discovering them.
        public static let checkTheIssuer = Remedy(name: "check_the_issuer")
        /// The provider's metadata names another issuer, the ``value``: use
        /// it if that is the provider meant.
        public static let useIssuer = Remedy(name: "use_issuer")
        /// The account to find the provider from is not `user@host`, an
        /// `acct:` URI or an https URL (``WebFingerResource``).
        public static let giveAnAccount = Remedy(name: "give_an_account")
        /// The account's host names no OpenID Connect issuer by WebFinger:
        /// give the provider's issuer instead of the account.
        public static let giveTheIssuerInstead = Remedy(name: "give_the_issuer_instead")
        /// The issuer serves many tenants: say which may sign in
        /// (``IssuerTenants``).
        public static let chooseTenants = Remedy(name: "choose_tenants")
        /// A tenant list is not `any` or tenant IDs separated by commas.
        public static let fixTheTenantList = Remedy(name: "fix_the_tenant_list")
        /// The ID token comes from the tenant in ``value``, which is not
        /// allowed: add it to the allowed tenants if it may sign in.
        public static let allowTenant = Remedy(name: "allow_tenant")
        /// Give the client ID the provider registered.
        public static let giveTheClientID = Remedy(name: "give_the_client_id")
        /// The provider's metadata has no userinfo endpoint: name it, if the provider has one.
        public static let giveTheUserInfoEndpoint = Remedy(name: "give_the_userinfo_endpoint")
        /// Give a private key in a supported form (PKCS #8, PKCS #1 or SEC 1
        /// PEM, or a private JWK).
        public static let giveASupportedPrivateKey = Remedy(name: "give_a_supported_private_key")

        // MARK: Apple app site association

        /// Give at least one app ID (`TEAMID.bundle.identifier`).
        public static let giveAnAppID = Remedy(name: "give_an_app_id")
        /// Give at least one callback path.
        public static let giveACallbackPath = Remedy(name: "give_a_callback_path")
    }
}
