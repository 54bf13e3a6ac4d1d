"""Provider profiles: the documented behaviour each fixture reproduces.

Every profile is data for ``server.ProviderFixture``; ``sources`` maps each
fact the profile encodes to the page it comes from. Where a value is only a
choice the fixture needs (a path, a key size), ``sources`` says so instead of
citing anything. ``command`` is the guide's `authflow login` command
(docs/providers.md), with {base} for the fixture's address; ``expect`` is what
the guide promises for it.
"""

ENTRA_TENANT = "9188040d-6c67-4c5b-b112-36a304b66dad"
APPLE_USER = '{"name":{"firstName":"Ada","lastName":"Lovelace"},"email":"ada@example.com"}'

PROFILES = {
    "google": {
        "sources": {
            "desktop apps are public clients that open the system browser with a loopback redirect URI":
                "https://developers.google.com/identity/protocols/oauth2/native-app",
            "the loopback IP address flow stays supported for desktop clients":
                "https://developers.google.com/identity/protocols/oauth2/resources/loopback-migration",
            "paths": "fixture choice (AuthFlow reads them from discovery)",
        },
        "issuer_path": "",
        "paths": {"authorize": "/o/oauth2/v2/auth", "token": "/token", "userinfo": "/v1/userinfo",
                  "jwks": "/oauth2/v3/certs", "revoke": "/revoke"},
        "client_id": "1234-desktop.apps.googleusercontent.example", "client_secret": "GOCSPX-desktop-secret",
        "client_auth": {"basic", "post"},
        "subject": "110169484474386276334", "expires_in": 3599, "refresh": True,
        "id_token_claims": {"email": "ada@example.com", "email_verified": True},
        "userinfo_extra": {"email": "ada@example.com"},
        "command": ["--issuer", "{base}", "--client-id", "1234-desktop.apps.googleusercontent.example",
                    "--client-secret-env", "PROVIDER_SECRET", "--scope", "openid email",
                    "--param", "access_type=offline"],
        "expect": {"subject": "110169484474386276334", "scopes": ["openid", "email"],
                   "userinfo": True, "refresh": True, "revoke": True},
    },
    "entra-single-tenant": {
        "sources": {
            "v2.0 endpoints and ID-token claims (iss names the tenant, tid is the tenant ID)":
                "https://learn.microsoft.com/entra/identity-platform/id-token-claims-reference",
            "paths": "fixture choice in the shape of the v2.0 endpoints",
        },
        "issuer_path": f"/{ENTRA_TENANT}/v2.0",
        "paths": {"authorize": f"/{ENTRA_TENANT}/oauth2/v2.0/authorize", "token": f"/{ENTRA_TENANT}/oauth2/v2.0/token",
                  "jwks": f"/{ENTRA_TENANT}/discovery/v2.0/keys", "userinfo": "/oidc/userinfo",
                  "end_session": f"/{ENTRA_TENANT}/oauth2/v2.0/logout"},
        "client_id": "6731de76-14a6-49ae-97bc-6eba6914391e", "client_auth": {"none"},
        "subject": "AAAAAAAAAAAAAAAAAAAAAIkzqFVrSaSaFHy782bbtaQ", "expires_in": 3599, "refresh": True, "rotate_refresh": True,
        "id_token_claims": {"tid": ENTRA_TENANT, "oid": "00000000-0000-0000-66f3-3332eca7ea81"},
        "command": ["--issuer", f"{{base}}/{ENTRA_TENANT}/v2.0", "--client-id", "6731de76-14a6-49ae-97bc-6eba6914391e",
                    "--scope", "openid profile offline_access"],
        "expect": {"subject": "AAAAAAAAAAAAAAAAAAAAAIkzqFVrSaSaFHy782bbtaQ", "scopes": ["openid", "profile", "offline_access"],
                   "userinfo": True, "refresh": True, "revoke": False},
    },
    "entra-multi-tenant": {
        "sources": {
            "the common authority's metadata names the issuer template https://login.microsoftonline.com/{tenantid}/v2.0":
                "https://github.com/MicrosoftDocs/azure-docs/issues/38427",
            "tokens from /common carry the user's tenant in iss; validate against tid":
                "https://learn.microsoft.com/en-us/answers/questions/303897/why-doesn-t-the-https-login-microsoftonline-com-co",
            "ID-token claims (tid)": "https://learn.microsoft.com/entra/identity-platform/id-token-claims-reference",
        },
        "issuer_path": "/common/v2.0", "document_issuer_path": "/{tenantid}/v2.0", "tenant_id": ENTRA_TENANT,
        "paths": {"authorize": "/common/oauth2/v2.0/authorize", "token": "/common/oauth2/v2.0/token",
                  "jwks": "/common/discovery/v2.0/keys", "userinfo": "/oidc/userinfo",
                  "end_session": "/common/oauth2/v2.0/logout"},
        "client_id": "6731de76-14a6-49ae-97bc-6eba6914391e", "client_auth": {"none"},
        "subject": "AAAAAAAAAAAAAAAAAAAAAIkzqFVrSaSaFHy782bbtaQ", "expires_in": 3599, "refresh": True, "rotate_refresh": True,
        "command": ["--issuer", "{base}/common/v2.0", "--tenant", "any", "--client-id", "6731de76-14a6-49ae-97bc-6eba6914391e",
                    "--scope", "openid profile offline_access"],
        "expect": {"subject": "AAAAAAAAAAAAAAAAAAAAAIkzqFVrSaSaFHy782bbtaQ", "scopes": ["openid", "profile", "offline_access"],
                   "userinfo": True, "refresh": True, "revoke": False},
    },
    "auth0": {
        "sources": {
            "Auth0's issuer (and iss) always ends with a slash":
                "https://github.com/spring-projects/spring-boot/issues/15324",
            "issuer written https://TENANT.auth0.com/ ; refresh tokens with offline_access":
                "https://manfredsteyer.github.io/angular-oauth2-oidc/docs/additional-documentation/authorization-servers/auth0.html",
            "paths": "fixture choice",
        },
        "issuer_path": "", "document_issuer_path": "/",
        "paths": {"authorize": "/authorize", "token": "/oauth/token", "userinfo": "/userinfo",
                  "jwks": "/.well-known/jwks.json", "revoke": "/oauth/revoke", "end_session": "/oidc/logout"},
        "client_id": "opHt1Tkt9E9fVQTZPBVF1tHVhjrxvyVX", "client_auth": {"none"},
        "subject": "auth0|64f1c2a9e4b0d1", "expires_in": 86400, "refresh": True, "rotate_refresh": True,
        "command": ["--issuer", "{base}/", "--client-id", "opHt1Tkt9E9fVQTZPBVF1tHVhjrxvyVX",
                    "--scope", "openid profile email offline_access"],
        "expect": {"subject": "auth0|64f1c2a9e4b0d1", "scopes": ["openid", "profile", "email", "offline_access"],
                   "userinfo": True, "refresh": True, "revoke": True},
    },
    "okta-org": {
        "sources": {
            "two kinds of authorization server: the org server and custom servers, each with its own issuer":
                "https://developer.okta.com/docs/concepts/auth-servers",
            "paths": "fixture choice in the shape of the org server's /oauth2/v1 endpoints",
        },
        "issuer_path": "",
        "paths": {"authorize": "/oauth2/v1/authorize", "token": "/oauth2/v1/token", "userinfo": "/oauth2/v1/userinfo",
                  "jwks": "/oauth2/v1/keys", "revoke": "/oauth2/v1/revoke", "end_session": "/oauth2/v1/logout"},
        "client_id": "0oa1okta", "client_auth": {"none"},
        "subject": "00u1okta", "expires_in": 3600, "refresh": True,
        "command": ["--issuer", "{base}", "--client-id", "0oa1okta", "--scope", "openid profile offline_access"],
        "expect": {"subject": "00u1okta", "scopes": ["openid", "profile", "offline_access"],
                   "userinfo": True, "refresh": True, "revoke": True},
    },
    "okta-custom": {
        "sources": {
            "custom authorization servers, 'default' preconfigured; metadata at /oauth2/{authorizationServerId}/.well-known":
                "https://developer.okta.com/docs/api/openapi/okta-oauth/oauth/customas",
            "Default Authorization Server": "https://developer.okta.com/docs/reference/api/authorization-servers/",
        },
        "issuer_path": "/oauth2/default",
        "paths": {"authorize": "/oauth2/default/v1/authorize", "token": "/oauth2/default/v1/token",
                  "userinfo": "/oauth2/default/v1/userinfo", "jwks": "/oauth2/default/v1/keys",
                  "revoke": "/oauth2/default/v1/revoke", "end_session": "/oauth2/default/v1/logout"},
        "client_id": "0oa1okta", "client_auth": {"none"},
        "subject": "00u1okta", "expires_in": 3600, "refresh": True,
        "command": ["--issuer", "{base}/oauth2/default", "--client-id", "0oa1okta", "--scope", "openid profile offline_access"],
        "expect": {"subject": "00u1okta", "scopes": ["openid", "profile", "offline_access"],
                   "userinfo": True, "refresh": True, "revoke": True},
    },
    "keycloak": {
        "sources": {
            "/realms/{realm}/.well-known/openid-configuration and the protocol/openid-connect endpoints (auth, token, userinfo, logout, certs)":
                "https://keycloak.org/securing-apps/oidc-layers",
        },
        "issuer_path": "/realms/demo",
        "paths": {"authorize": "/realms/demo/protocol/openid-connect/auth", "token": "/realms/demo/protocol/openid-connect/token",
                  "userinfo": "/realms/demo/protocol/openid-connect/userinfo", "jwks": "/realms/demo/protocol/openid-connect/certs",
                  "revoke": "/realms/demo/protocol/openid-connect/revoke", "end_session": "/realms/demo/protocol/openid-connect/logout"},
        "client_id": "cli", "client_auth": {"none"},
        "subject": "f:1b2c:ada", "expires_in": 300, "refresh": True, "rotate_refresh": True, "id_token_on_refresh": True,
        "command": ["--issuer", "{base}/realms/demo", "--client-id", "cli", "--scope", "openid profile"],
        "expect": {"subject": "f:1b2c:ada", "scopes": ["openid", "profile"], "userinfo": True, "refresh": True, "revoke": True},
    },
    "cognito": {
        "sources": {
            "the user pool domain serves /oauth2/authorize, /oauth2/token, /oauth2/userInfo (and the other federation endpoints)":
                "https://docs.aws.amazon.com/ru_ru/cognito/latest/developerguide/federation-endpoints.html",
            "revocation left out of discovery": "fixture choice, so that the guide's --revocation-endpoint is exercised",
        },
        "issuer_path": "/us-east-1_Example",
        "paths": {"authorize": "/oauth2/authorize", "token": "/oauth2/token", "userinfo": "/oauth2/userInfo",
                  "jwks": "/us-east-1_Example/.well-known/jwks.json", "revoke": "/oauth2/revoke", "end_session": "/logout"},
        "advertise": ["authorize", "token", "userinfo", "jwks"],
        "client_id": "3n4b5urk1ft4fl3mg5e62d9ado", "client_auth": {"none"},
        "subject": "94f8b4a8-0021-70c3-6f2b-3f3c4d5e6f70", "expires_in": 3600, "refresh": True,
        "command": ["--issuer", "{base}/us-east-1_Example", "--client-id", "3n4b5urk1ft4fl3mg5e62d9ado",
                    "--scope", "openid email", "--revocation-endpoint", "{base}/oauth2/revoke"],
        "expect": {"subject": "94f8b4a8-0021-70c3-6f2b-3f3c4d5e6f70", "scopes": ["openid", "email"],
                   "userinfo": True, "refresh": True, "revoke": True},
    },
    "github-oauth-app": {
        "sources": {
            "errors of the token request (bad_verification_code, incorrect_client_credentials) as JSON, format chosen by Accept":
                "https://docs.github.com/apps/managing-oauth-apps/troubleshooting-oauth-app-access-token-request-errors/",
            "authorize at /login/oauth/authorize; scope is a comma-separated list":
                "https://docs.github.com/enterprise/2.1/developer/v3/oauth",
            "errors answered with HTTP 200": "https://github.com/orgs/octokit/discussions/23",
        },
        "discovery": False, "issuer_path": "",
        "paths": {"authorize": "/login/oauth/authorize", "token": "/login/oauth/access_token"},
        "client_id": "Iv1.8a61f9b3a7aba766", "client_secret": "gh-oauth-app-secret", "client_auth": {"post", "basic"},
        "subject": "583231", "id_token": False, "scope_separator": ",", "error_status": 200,
        "bad_code_error": "bad_verification_code", "invalid_client_error": "incorrect_client_credentials", "invalid_client_status": 200,
        "access_token_prefix": "gho_",
        "command": ["--authorization-endpoint", "{base}/login/oauth/authorize", "--token-endpoint", "{base}/login/oauth/access_token",
                    "--client-id", "Iv1.8a61f9b3a7aba766", "--client-secret-env", "PROVIDER_SECRET", "--scope", "read:user user:email"],
        "expect": {"subject": None, "scopes": ["read:user", "user:email"], "userinfo": False, "refresh": False, "revoke": False},
    },
    "github-app": {
        "sources": {
            "user access tokens expire after eight hours, refresh tokens after six months; using a refresh token retires it":
                "https://docs.github.com/en/developers/apps/refreshing-user-to-server-access-tokens",
            "response members expires_in 28800, refresh_token, refresh_token_expires_in, scope \"\"":
                "https://github.com/omniauth/omniauth-github/issues/99",
        },
        "discovery": False, "issuer_path": "",
        "paths": {"authorize": "/login/oauth/authorize", "token": "/login/oauth/access_token"},
        "client_id": "Iv23liGitHubApp", "client_secret": "gh-app-secret", "client_auth": {"post", "basic"},
        "subject": "583231", "id_token": False, "error_status": 200, "bad_code_error": "bad_verification_code",
        "expires_in": 28800, "refresh": True, "rotate_refresh": True, "granted_scopes": [],
        "token_extra": {"refresh_token_expires_in": 15811200},
        "access_token_prefix": "ghu_", "refresh_token_prefix": "ghr_",
        "command": ["--authorization-endpoint", "{base}/login/oauth/authorize", "--token-endpoint", "{base}/login/oauth/access_token",
                    "--client-id", "Iv23liGitHubApp", "--client-secret-env", "PROVIDER_SECRET"],
        "expect": {"subject": None, "scopes": [], "userinfo": False, "refresh": True, "revoke": False},
    },
    "gitlab": {
        "sources": {
            "discovery at https://gitlab.com/.well-known/openid-configuration; openid scope enables OIDC":
                "https://docs.gitlab.com/integration/openid_connect_provider",
            "endpoints /oauth/authorize, /oauth/token, /oauth/userinfo, /oauth/discovery/keys, /oauth/revoke; issuer https://gitlab.com":
                "https://logto.io/oauth-providers-explorer/gitlab",
        },
        "issuer_path": "",
        "paths": {"authorize": "/oauth/authorize", "token": "/oauth/token", "userinfo": "/oauth/userinfo",
                  "jwks": "/oauth/discovery/keys", "revoke": "/oauth/revoke"},
        "client_id": "gitlab-app", "client_auth": {"none"},
        "subject": "1234567", "expires_in": 7200, "refresh": True, "rotate_refresh": True,
        "command": ["--issuer", "{base}", "--client-id", "gitlab-app", "--scope", "openid profile read_user"],
        "expect": {"subject": "1234567", "scopes": ["openid", "profile", "read_user"], "userinfo": True, "refresh": True, "revoke": True},
    },
    "apple": {
        "sources": {
            "response_mode must be form_post when name or email scope is requested":
                "https://developer.apple.com/forums/thread/704197",
            "the user's name arrives only on the first authorization, in the form post":
                "https://docs.rs/pylon-auth/0.3.21/pylon_auth/provider/builtin/static.APPLE.html",
            "scopes name and email, space-separated": "https://developer.apple.com/forums/thread/118209?answerId=413866022",
            "authorization endpoint and response handling":
                "https://developer.apple.com/tutorials/data/documentation/signinwithapplerestapi/request-an-authorization-to-the-sign-in-with-apple-server..md",
            "paths": "fixture choice",
        },
        "issuer_path": "",
        "paths": {"authorize": "/auth/authorize", "token": "/auth/token", "jwks": "/auth/keys", "revoke": "/auth/revoke"},
        "client_id": "com.example.web", "client_secret": "eyJhbGciOiJFUzI1NiJ9.client-secret-jwt.sig", "client_auth": {"post", "basic"},
        "subject": "001234.0123456789abcdef.1234", "expires_in": 3600, "refresh": True,
        "form_post_scopes": ["name", "email"], "form_post_first_extra": {"user": APPLE_USER},
        "id_token_claims": {"email": "ada@example.com"}, "scope_member": False,
        "command": ["--issuer", "{base}", "--client-id", "com.example.web", "--client-secret-env", "PROVIDER_SECRET",
                    "--scope", "openid name email", "--param", "response_mode=form_post"],
        "expect": {"subject": "001234.0123456789abcdef.1234", "scopes": ["openid", "name", "email"],
                   "userinfo": False, "refresh": True, "revoke": True, "stderr": "The provider also sent user: " + APPLE_USER},
    },
    "zoom": {
        "sources": {
            "POST https://zoom.us/oauth/revoke with Basic client authentication answers {\"status\": \"success\"}; access tokens last one hour":
                "https://developers.qodex.ai/zoom-public/get-started-fast-with-zoom-apis/f/api-authorization-authentication-legacy-applications-oauth-app-oauth-2-0-with-pkce",
            "token URL https://zoom.us/oauth/token; refresh tokens rotate":
                "https://documentation.sailpoint.com/connectors/saas/zoom/help/saas_connectivity/zoom/grant_type_refresh_token.html",
        },
        "discovery": False, "issuer_path": "",
        "paths": {"authorize": "/oauth/authorize", "token": "/oauth/token", "revoke": "/oauth/revoke"},
        "client_id": "zoom-client", "client_secret": "zoom-secret", "client_auth": {"basic"},
        "subject": "zoom-user", "id_token": False, "expires_in": 3599, "refresh": True, "rotate_refresh": True,
        "revocation_answer": {"status": 200, "body": {"status": "success"}},
        "command": ["--authorization-endpoint", "{base}/oauth/authorize", "--token-endpoint", "{base}/oauth/token",
                    "--revocation-endpoint", "{base}/oauth/revoke", "--client-id", "zoom-client",
                    "--client-secret-env", "PROVIDER_SECRET", "--client-auth", "basic"],
        "expect": {"subject": None, "scopes": [], "userinfo": False, "refresh": True, "revoke": True},
    },
    "slack": {
        "sources": {
            "the discovery document (issuer https://slack.com, response_modes query, grant_types authorization_code only, no revocation endpoint)":
                "https://api.slack.com/.well-known/openid-configuration",
            "openid.connect.token: form body, returns ok with the tokens":
                "https://docs.slack.dev/reference/methods/openid.connect.token",
        },
        "issuer_path": "",
        "paths": {"authorize": "/openid/connect/authorize", "token": "/api/openid.connect.token",
                  "userinfo": "/api/openid.connect.userInfo", "jwks": "/openid/connect/keys"},
        "discovery_extra": {"scopes_supported": ["openid", "profile", "email"], "response_types_supported": ["code"],
                            "response_modes_supported": ["query"], "grant_types_supported": ["authorization_code"],
                            "id_token_signing_alg_values_supported": ["RS256"],
                            "token_endpoint_auth_methods_supported": ["client_secret_post", "client_secret_basic"]},
        "client_id": "2141029472.691202649728", "client_secret": "slack-secret", "client_auth": {"post", "basic"},
        "subject": "U0R7JM", "token_extra": {"ok": True}, "error_status": 200, "bad_code_error": "invalid_code",
        "id_token_claims": {"https://slack.com/team_id": "T0R7GR"},
        "command": ["--issuer", "{base}", "--client-id", "2141029472.691202649728", "--client-secret-env", "PROVIDER_SECRET",
                    "--scope", "openid profile email"],
        "expect": {"subject": "U0R7JM", "scopes": ["openid", "profile", "email"], "userinfo": True, "refresh": False, "revoke": False},
    },
    "salesforce": {
        "sources": {
            "token response members access_token, id, instance_url, issued_at, signature, token_type (no expires_in)":
                "https://jsforce.github.io/jsforce/types/oauth2.TokenResponse.html",
            "signature is an HMAC-SHA256 of id + issued_at keyed with the consumer secret; id_token with openid":
                "https://docs.rs/cirrus-auth/latest/cirrus_auth/token_exchange/struct.TokenExchangeSession.html",
            "paths": "fixture choice in the shape of /services/oauth2",
        },
        "issuer_path": "",
        "paths": {"authorize": "/services/oauth2/authorize", "token": "/services/oauth2/token",
                  "userinfo": "/services/oauth2/userinfo", "jwks": "/id/keys", "revoke": "/services/oauth2/revoke"},
        "client_id": "3MVG9salesforce", "client_auth": {"none"},
        "subject": "https://login.salesforce.com/id/00Dx0000000BV7z/005x00000012Q9P", "refresh": True,
        "token_extra": {"instance_url": "https://yourInstance.my.salesforce.example", "id": "https://login.salesforce.com/id/00Dx0000000BV7z/005x00000012Q9P",
                        "issued_at": "1278448832702", "signature": "0CmxinZir53Yex7nE0TD+zMpvIWYGb/bdJh6XfOH6EQ="},
        "command": ["--issuer", "{base}", "--client-id", "3MVG9salesforce", "--scope", "openid api refresh_token"],
        "expect": {"subject": "https://login.salesforce.com/id/00Dx0000000BV7z/005x00000012Q9P",
                   "scopes": ["openid", "api", "refresh_token"], "userinfo": True, "refresh": False, "revoke": True},
    },
}
