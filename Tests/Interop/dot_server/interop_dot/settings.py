"""Django settings for the interop DOT authorization server.

Everything that differs per run comes from environment variables set by
``dot_server/run.py``: the port, the data directory (sqlite database) and the
RSA private key used for ID tokens.
"""

import os

PORT = int(os.environ["INTEROP_DOT_PORT"])
DATA_DIR = os.environ["INTEROP_DOT_DATA_DIR"]
ISSUER = f"http://127.0.0.1:{PORT}/o"

BASE_DIR = os.path.dirname(os.path.abspath(__file__))

SECRET_KEY = os.environ.get("INTEROP_DOT_SECRET_KEY", "interop-only-not-a-secret")
DEBUG = False
ALLOWED_HOSTS = ["127.0.0.1", "localhost"]

INSTALLED_APPS = [
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "oauth2_provider",
    "interop_dot",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
]

ROOT_URLCONF = "interop_dot.urls"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [os.path.join(BASE_DIR, "templates")],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

DATABASES = {
    "default": {
        "ENGINE": "django.db.backends.sqlite3",
        "NAME": os.path.join(DATA_DIR, "dot.sqlite3"),
    }
}

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"
USE_TZ = True
TIME_ZONE = "UTC"
STATIC_URL = "/static/"
LOGIN_URL = "/accounts/login/"
# Cheap hashing: the test user and the hashed client secrets are created at every start.
PASSWORD_HASHERS = ["django.contrib.auth.hashers.PBKDF2PasswordHasher"]

with open(os.environ["INTEROP_DOT_RSA_KEY_FILE"], encoding="ascii") as _f:
    _RSA_PRIVATE_KEY = _f.read()

def _access_token_lifetime(request):
    """Seconds an access token lives: 5 for grants whose scope includes
    `short` (test_session.py's refresh-storm test needs tokens shorter than
    the client's 60 s leeway), an hour otherwise. oauthlib accepts a callable."""
    return 5 if "short" in (getattr(request, "scopes", None) or []) else 3600


OAUTH2_PROVIDER = {
    "OIDC_ENABLED": True,
    "OIDC_RSA_PRIVATE_KEY": _RSA_PRIVATE_KEY,
    # Pin the issuer so the discovery document, ID tokens and the RFC 9207 `iss`
    # authorization-response parameter all agree byte for byte.
    "OIDC_ISS_ENDPOINT": ISSUER,
    "PKCE_REQUIRED": True,
    # Refuse the PKCE "plain" method. The server class below removes "plain" from
    # oauthlib's table so the authorization request itself is refused (before the
    # login/consent pages); this flag additionally makes DOT refuse it when the
    # code is created and drops it from code_challenge_methods_supported.
    "COMPLIANT_BCP_RFC9700_PKCE_METHOD": True,
    # RFC 9207: add `iss` to authorization responses and advertise it in discovery.
    "COMPLIANT_BCP_RFC9700_AUTHZ_RESPONSE_ISS": True,
    "OAUTH2_SERVER_CLASS": "interop_dot.oauth.S256OnlyServer",
    "OAUTH2_VALIDATOR_CLASS": "interop_dot.oauth.InteropValidator",
    "SCOPES": {
        "openid": "OpenID Connect",
        "profile": "Your profile",
        "email": "Your email address",
        "read": "Read access",
        "short": "Five-second access tokens (tests)",
    },
    "DEFAULT_SCOPES": ["openid"],
    # Only the authorization code flow is used (and allowed for the clients).
    "OIDC_RESPONSE_TYPES_SUPPORTED": ["code"],
    "ACCESS_TOKEN_EXPIRE_SECONDS": _access_token_lifetime,
    "REFRESH_TOKEN_EXPIRE_SECONDS": 86400,
    "ROTATE_REFRESH_TOKEN": True,
    # A replayed refresh token revokes its whole family, except the one just
    # superseded within the grace period (a client killed before it could save
    # the rotated token retries with the old one).
    "REFRESH_TOKEN_REUSE_PROTECTION": True,
    "REFRESH_TOKEN_GRACE_PERIOD_SECONDS": 120,
    "ALLOWED_REDIRECT_URI_SCHEMES": ["http", "https"],
    # RFC 8628 device authorization grant. DOT 3.4 serves the endpoint at
    # /o/device-authorization/ but does not publish it in its discovery
    # document, never answers slow_down, and ignores any expires_in setting
    # (oauthlib's 1800 s; see urls.py for the short-lived endpoint).
    "OAUTH_DEVICE_VERIFICATION_URI": f"http://127.0.0.1:{PORT}/o/device/",
    "OAUTH_DEVICE_VERIFICATION_URI_COMPLETE": f"http://127.0.0.1:{PORT}/o/device/?user_code={{user_code}}",
    "DEVICE_FLOW_INTERVAL": 1,
}

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "loggers": {
        "django": {"handlers": ["console"], "level": "INFO"},
        "oauth2_provider": {"handlers": ["console"], "level": "INFO"},
        "oauthlib": {"handlers": ["console"], "level": "INFO"},
    },
}
