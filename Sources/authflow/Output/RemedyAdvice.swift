#if CLI // the CLI package trait
import AuthFlow
import AuthFlowLoopback

/// The library's remedies in the command line's terms: the one place that
/// turns an ``AuthFlowError/Remedy`` into the flags to give. The library's
/// own ``AuthFlowError/recovery`` speaks in API terms and names no flag.
extension AuthFlowError.Remedy {
    /// This remedy as advice naming `authflow`'s flags; nil for a remedy
    /// the command line has no flag for (the error's recovery is shown then).
    var commandLineAdvice: String? {
        switch self {
        case .usePushedAuthorizationRequests:
            "The provider may require pushed authorization requests (RFC 9126) for this client: run authflow login again with --par."
        case .signInWithoutPushedAuthorizationRequests:
            "Sign in without --par, or use a provider that supports PAR (RFC 9126)."
        case .requestOfflineAccess:
            "Sign in again. To get a refresh token, request the offline_access scope (Auth0, Okta, most OpenID providers); "
                + "for Google add --param access_type=offline --param prompt=consent."
        case .passScopesSeparately:
            "Give scopes with --scope, not as a --param."
        case .allowMoreTime:
            "The server is slow or not answering; try again later, or allow more time with a longer --timeout."
        case .giveTheIssuerURL:
            "Give --issuer as the provider's full issuer URL without ?… or #…, such as https://accounts.google.com."
        case .checkTheIssuer:
            "Check the --issuer URL (authflow discover ISSUER shows what is found). A provider without discovery "
                + "(GitHub, Zoom) is used with --authorization-endpoint and --token-endpoint instead."
        case .useIssuer:
            value.map { "The provider's metadata names the issuer \($0): use --issuer \($0) if that is the provider you mean." }
        case .giveAnAccount:
            "Give --account as user@host (such as alice@example.com), an acct: URI or an https URL."
        case .giveTheIssuerInstead:
            "The account's domain does not name its OpenID provider (WebFinger): give --issuer instead of --account."
        case .chooseTenants:
            "This issuer serves many tenants (its metadata names a {tenantid} template). "
                + "Say which are accepted: --tenant any, or --tenant ID[,ID]."
        case .fixTheTenantList:
            "Give --tenant any, or tenant IDs separated by commas (letters, digits, '-', '.', '_')."
        case .allowTenant:
            value.map { "Add \($0) to --tenant if that organisation may sign in." }
        case .giveTheClientID:
            "Give the client ID the provider registered for this app (--client-id)."
        case .giveTheUserInfoEndpoint:
            "If the provider has an OpenID Connect userinfo endpoint, name it: authflow login --userinfo-endpoint URL. "
                + "OAuth-only providers (GitHub, Zoom) have none; call their user API instead."
        case .giveASupportedPrivateKey:
            "Give a PKCS #8, PKCS #1 or SEC 1 PEM file (or a private JWK) with --private-key."
        case .giveAnAppID:
            "Pass --app-id TEAMID.bundle.identifier."
        case .giveACallbackPath:
            "Pass --path /callback."
        case .chooseAnotherPort:
            "Choose another port with --port, or leave it out for an ephemeral port (when the provider allows any loopback port)."
        case .chooseAnUnprivilegedPort:
            "Choose a port above 1023 with --port, or leave it out for an ephemeral port."
        default:
            nil
        }
    }
}

extension AuthFlowError {
    /// What the command line tells the user to do about this error: its
    /// remedy as flags, else the error's own recovery (nil without either).
    var commandLineRecovery: String? {
        remedy?.commandLineAdvice ?? recovery
    }

    /// The `hint:` line: ``commandLineRecovery``, else the category's general advice.
    var commandLineHint: String? {
        commandLineRecovery ?? recoverySuggestion
    }
}
#endif
