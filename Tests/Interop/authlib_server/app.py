#!/usr/bin/env python3
"""Authlib (Flask) OAuth 2.0 / OpenID Connect authorization server for AuthFlow
interop tests.

    python app.py --port PORT --fixtures-out FILE

Everything lives in memory and is lost when the process exits. Features:

* authorization code grant, PKCE required with S256 only (no code_challenge, a
  missing code_challenge_method or "plain" are refused with invalid_request);
* OpenID Connect (OpenIDCode extension): RS256 ID tokens with nonce, ``aud`` as
  Authlib produces it by default (a JSON array holding the client id);
  AUTHLIB_ID_TOKEN_ALG=ES256 in the environment (opt-in, for
  Benchmarks/TokenEndpoint; the interop suites never set it) signs them with
  ES256 and a P-256 key instead;
* discovery at /.well-known/openid-configuration, issuer without trailing slash;
* JWKS, userinfo, refresh token (rotating), RFC 7009 revocation;
* RFC 9207 ``iss`` in authorization responses (Authlib's IssuerParameter extension,
  plus the early-error path that does not go through Authlib's hook);
* login form and consent page (approve / deny);
* RFC 8628 device authorization grant: ``/device_authorization``, a
  verification page at ``/device`` where the signed-in user approves or denies
  the user code, ``slow_down`` for polls closer together than the client's
  minimum gap, ``expired_token`` after the server-side lifetime, ID tokens for
  ``openid``; every poll is recorded and served at ``/interop/device-polls``;
* clients: public (none), confidential client_secret_basic, confidential
  client_secret_post; redirect URI http://127.0.0.1/callback with any port
  (RFC 8252 §7.3).
"""

import argparse
import base64
import binascii
import hmac
import os
import secrets
import sys
import threading
import time
from urllib.parse import unquote_plus, urlsplit

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

from flask import Flask, abort, jsonify, redirect, render_template_string, request, session, url_for  # noqa: E402
from joserfc.jwk import ECKey, RSAKey  # noqa: E402

from authlib.common.urls import add_params_to_uri  # noqa: E402
from authlib.integrations.flask_oauth2 import AuthorizationServer, ResourceProtector  # noqa: E402
from authlib.oauth2 import OAuth2Error  # noqa: E402
from authlib.oauth2.rfc6749 import ClientMixin, InvalidRequestError, TokenMixin, grants  # noqa: E402
from authlib.oauth2.rfc6749.errors import InvalidClientError  # noqa: E402
from authlib.oauth2.rfc6750 import BearerTokenValidator  # noqa: E402
from authlib.oauth2.rfc7009 import RevocationEndpoint  # noqa: E402
from authlib.oauth2.rfc7636 import CodeChallenge  # noqa: E402
from authlib.oauth2.rfc7662 import IntrospectionEndpoint  # noqa: E402
from authlib.oauth2.rfc8628 import DeviceAuthorizationEndpoint, DeviceCodeGrant, DeviceCredentialDict  # noqa: E402
from authlib.oauth2.rfc8628.device_code import DEVICE_CODE_GRANT_TYPE  # noqa: E402
from authlib.oauth2.rfc9207 import IssuerParameter  # noqa: E402
from authlib.oidc.core import UserInfo, UserInfoEndpoint  # noqa: E402
from authlib.oidc.core.grants import OpenIDCode, OpenIDToken  # noqa: E402

from interop_common import (  # noqa: E402
    AUTHLIB_BASIC_CLIENT_ID,
    AUTHLIB_BASIC_CLIENT_SECRET,
    AUTHLIB_DEVICE_CLIENT_ID,
    AUTHLIB_DEVICE_CONFIDENTIAL_CLIENT_ID,
    AUTHLIB_DEVICE_CONFIDENTIAL_CLIENT_SECRET,
    AUTHLIB_DEVICE_SHORT_CLIENT_ID,
    AUTHLIB_DEVICE_SLOW_CLIENT_ID,
    AUTHLIB_POST_CLIENT_ID,
    AUTHLIB_POST_CLIENT_SECRET,
    AUTHLIB_PUBLIC_CLIENT_ID,
    PASSWORD,
    REDIRECT_URI,
    USERNAME,
    generate_rsa_private_key_pem,
    write_json_atomic,
)

SCOPES = ["openid", "profile", "email", "read"]
ACCESS_TOKEN_LIFETIME = 3600

# Device clients: the interval the server advertises, the expires_in it
# advertises, how long the code really lives on the server, and the minimum
# gap between two polls below which the server answers slow_down.
DEVICE_SETTINGS = {
    AUTHLIB_DEVICE_CLIENT_ID: {"interval": 1, "expires_in": 120, "lifetime": 120, "min_gap": 0.5},
    AUTHLIB_DEVICE_CONFIDENTIAL_CLIENT_ID: {"interval": 1, "expires_in": 120, "lifetime": 120, "min_gap": 0.5},
    # Advertises 1 s but wants 3 s between polls: the first poll gets slow_down.
    AUTHLIB_DEVICE_SLOW_CLIENT_ID: {"interval": 1, "expires_in": 120, "lifetime": 120, "min_gap": 3.0},
    # Advertises 4 s but the code dies after 2 s: polls then get expired_token.
    AUTHLIB_DEVICE_SHORT_CLIENT_ID: {"interval": 1, "expires_in": 4, "lifetime": 2, "min_gap": 0.5},
}


# --------------------------------------------------------------------------- store

class User:
    def __init__(self, user_id, username, password, name, email):
        self.id = user_id
        self.username = username
        self.password = password
        self.name = name
        self.email = email

    def get_user_id(self):
        return self.id


class Client(ClientMixin):
    def __init__(self, client_id, client_secret, auth_method, redirect_uris,
                 grant_types=("authorization_code", "refresh_token")):
        self.client_id = client_id
        self.grant_types = tuple(grant_types)
        self.client_secret = client_secret
        self.token_endpoint_auth_method = auth_method
        self.redirect_uris = redirect_uris
        self.client_metadata = {}  # read by Authlib's UserInfoEndpoint

    def get_client_id(self):
        return self.client_id

    def get_default_redirect_uri(self):
        # Force clients to send redirect_uri: the registered one has no port.
        return None

    def get_allowed_scope(self, scope):
        if not scope:
            return ""
        return " ".join(s for s in scope.split() if s in SCOPES)

    def check_redirect_uri(self, redirect_uri):
        """Exact match, except that the port of a loopback redirect URI may vary
        (RFC 8252 §7.3)."""
        try:
            got = urlsplit(redirect_uri)
            got_port = got.port
        except ValueError:
            return False
        for registered in self.redirect_uris:
            if redirect_uri == registered:
                return True
            want = urlsplit(registered)
            if (
                want.scheme == "http"
                and want.hostname in ("127.0.0.1", "::1")
                and got.scheme == "http"
                and got.hostname == want.hostname
                and got.username is None
                and got.password is None
                and (got_port is None or 0 < got_port < 65536)
                and got.path == want.path
                and got.query == want.query
                and got.fragment == "" and "#" not in redirect_uri
            ):
                return True
        return False

    def check_client_secret(self, client_secret):
        if self.client_secret is None or client_secret is None:
            return False
        return hmac.compare_digest(self.client_secret.encode(), client_secret.encode())

    def check_endpoint_auth_method(self, method, endpoint):
        return method == self.token_endpoint_auth_method

    def check_response_type(self, response_type):
        return response_type == "code"

    def check_grant_type(self, grant_type):
        return grant_type in self.grant_types


class AuthorizationCode:
    def __init__(self, **kw):
        self.__dict__.update(kw)

    # rfc6749.AuthorizationCodeMixin / oidc AuthorizationCodeMixin
    def get_redirect_uri(self):
        return self.redirect_uri

    def get_scope(self):
        return self.scope

    def get_nonce(self):
        return self.nonce

    def get_auth_time(self):
        return self.auth_time

    def get_acr(self):
        return None

    def get_amr(self):
        return ["pwd"]

    def is_expired(self):
        return time.time() > self.expires_at


class Token(TokenMixin):
    def __init__(self, client, user, scope, access_token, refresh_token, expires_in):
        self.client = client
        self.user = user
        self.scope = scope
        self.access_token = access_token
        self.refresh_token = refresh_token
        self.expires_in = expires_in
        self.issued_at = time.time()
        self.revoked = False

    def check_client(self, client):
        return client.client_id == self.client.client_id

    def get_scope(self):
        return self.scope

    def get_expires_in(self):
        return self.expires_in

    def is_expired(self):
        return time.time() >= self.issued_at + self.expires_in

    def is_revoked(self):
        return self.revoked

    def get_user(self):
        return self.user

    def get_client(self):
        return self.client


class Store:
    def __init__(self):
        self.lock = threading.RLock()
        self.users = {}
        self.clients = {}
        self.codes = {}
        self.access_tokens = {}
        self.refresh_tokens = {}
        self.nonces = set()
        self.device_credentials = {}  # device_code -> DeviceCredentialDict
        self.user_grants = {}  # user_code -> (user, approved)
        self.device_polls = {}  # user_code -> [{"t": time, "status": int, "error": str|None}]


STORE = Store()


def _add_fixtures():
    user = User("user-1", USERNAME, PASSWORD, "Alice Interop", f"{USERNAME}@example.test")
    STORE.users[user.username] = user
    for client in (
        Client(AUTHLIB_PUBLIC_CLIENT_ID, None, "none", [REDIRECT_URI]),
        Client(AUTHLIB_BASIC_CLIENT_ID, AUTHLIB_BASIC_CLIENT_SECRET, "client_secret_basic", [REDIRECT_URI]),
        Client(AUTHLIB_POST_CLIENT_ID, AUTHLIB_POST_CLIENT_SECRET, "client_secret_post", [REDIRECT_URI]),
        Client(AUTHLIB_DEVICE_CLIENT_ID, None, "none", [], grant_types=(DEVICE_CODE_GRANT_TYPE, "refresh_token")),
        Client(AUTHLIB_DEVICE_CONFIDENTIAL_CLIENT_ID, AUTHLIB_DEVICE_CONFIDENTIAL_CLIENT_SECRET, "client_secret_basic", [],
               grant_types=(DEVICE_CODE_GRANT_TYPE, "refresh_token")),
        Client(AUTHLIB_DEVICE_SLOW_CLIENT_ID, None, "none", [], grant_types=(DEVICE_CODE_GRANT_TYPE,)),
        Client(AUTHLIB_DEVICE_SHORT_CLIENT_ID, None, "none", [], grant_types=(DEVICE_CODE_GRANT_TYPE,)),
    ):
        STORE.clients[client.client_id] = client


# --------------------------------------------------------------------------- keys

class Keys:
    private = None  # joserfc RSAKey (ECKey with AUTHLIB_ID_TOKEN_ALG=ES256)
    kid = None
    alg = "RS256"  # the ID-token signing algorithm


def _init_keys():
    # Opt-in for Benchmarks/TokenEndpoint (run.sh --es256, row authlib-es256-gunicorn):
    # AUTHLIB_ID_TOKEN_ALG=ES256 signs ID tokens with a fresh P-256 key, published in
    # the JWKS and discovery, to compare with the provider's ES256 ID tokens. Unset
    # (as the interop suites run it) or RS256: the RSA key as always.
    Keys.alg = os.environ.get("AUTHLIB_ID_TOKEN_ALG", "RS256")
    if Keys.alg == "ES256":
        Keys.private = ECKey.generate_key("P-256")
    elif Keys.alg == "RS256":
        Keys.private = RSAKey.import_key(generate_rsa_private_key_pem())
    else:
        raise SystemExit(f"AUTHLIB_ID_TOKEN_ALG={Keys.alg!r}: only RS256 (default) or ES256")
    Keys.kid = Keys.private.thumbprint()


def public_jwks():
    data = Keys.private.as_dict(private=False)
    data.update({"kid": Keys.kid, "use": "sig", "alg": Keys.alg})
    return {"keys": [data]}


# --------------------------------------------------------------------------- grants

def _user_info(user, scope):
    scopes = (scope or "").split()
    info = UserInfo(sub=user.id)
    if "profile" in scopes:
        info["name"] = user.name
        info["preferred_username"] = user.username
    if "email" in scopes:
        info["email"] = user.email
        info["email_verified"] = True
    return info


class S256OnlyCodeChallenge(CodeChallenge):
    """PKCE required on every authorization request, S256 only.

    Authlib's stock CodeChallenge(required=True) only insists on a code_verifier
    from public clients at the token endpoint and accepts "plain" (also as the
    default when code_challenge_method is absent)."""

    DEFAULT_CODE_CHALLENGE_METHOD = "S256"
    SUPPORTED_CODE_CHALLENGE_METHOD = ["S256"]
    CODE_CHALLENGE_METHODS = {"S256": CodeChallenge.CODE_CHALLENGE_METHODS["S256"]}

    def validate_code_challenge(self, grant, redirect_uri):
        data = grant.request.payload.data
        if not data.get("code_challenge"):
            raise InvalidRequestError("PKCE is required: missing 'code_challenge'.")
        method = data.get("code_challenge_method")
        if method != "S256":
            raise InvalidRequestError(
                "Unsupported 'code_challenge_method': only 'S256' is accepted."
            )
        super().validate_code_challenge(grant, redirect_uri)

    def validate_code_verifier(self, grant, result):
        if not grant.request.form.get("code_verifier"):
            raise InvalidRequestError("Missing 'code_verifier'")
        super().validate_code_verifier(grant, result)


class AuthorizationCodeGrant(grants.AuthorizationCodeGrant):
    TOKEN_ENDPOINT_AUTH_METHODS = ["client_secret_basic", "client_secret_post", "none"]

    def save_authorization_code(self, code, request):
        data = request.payload.data
        item = AuthorizationCode(
            code=code,
            client_id=request.client.client_id,
            redirect_uri=request.payload.redirect_uri,
            scope=request.scope,
            user=request.user,
            nonce=data.get("nonce"),
            code_challenge=data.get("code_challenge"),
            code_challenge_method=data.get("code_challenge_method"),
            auth_time=session.get("auth_time") or int(time.time()),
            expires_at=time.time() + 300,
        )
        with STORE.lock:
            STORE.codes[code] = item
            if item.nonce:
                STORE.nonces.add((item.client_id, item.nonce))

    def query_authorization_code(self, code, client):
        with STORE.lock:
            item = STORE.codes.get(code)
        if item and item.client_id == client.client_id and not item.is_expired():
            return item
        return None

    def delete_authorization_code(self, authorization_code):
        with STORE.lock:
            STORE.codes.pop(authorization_code.code, None)

    def authenticate_user(self, authorization_code):
        return authorization_code.user


class RefreshTokenGrant(grants.RefreshTokenGrant):
    TOKEN_ENDPOINT_AUTH_METHODS = ["client_secret_basic", "client_secret_post", "none"]
    INCLUDE_NEW_REFRESH_TOKEN = True

    def authenticate_refresh_token(self, refresh_token):
        with STORE.lock:
            token = STORE.refresh_tokens.get(refresh_token)
        if token and not token.revoked:
            return token
        return None

    def authenticate_user(self, refresh_token):
        return refresh_token.user

    def revoke_old_credential(self, refresh_token):
        with STORE.lock:
            refresh_token.revoked = True


class InteropIDTokenMixin:
    def generate_user_info(self, user, scope):
        return _user_info(user, scope)

    def resolve_client_private_key(self, client):
        return Keys.private

    def get_client_algorithm(self, client):
        return Keys.alg

    def get_client_claims(self, client):
        # No "aud" here on purpose: Authlib then sends its default, a JSON array
        # holding the client id.
        return {"iss": ISSUER.value}

    def get_encode_header(self, client):
        return {"alg": Keys.alg, "kid": Keys.kid, "typ": "JWT"}


class InteropOpenIDCode(InteropIDTokenMixin, OpenIDCode):
    def exists_nonce(self, nonce, request):
        with STORE.lock:
            return (request.payload.client_id, nonce) in STORE.nonces


class InteropDeviceOpenID(InteropIDTokenMixin, OpenIDToken):
    """ID tokens for the device code grant when openid is granted (no nonce)."""


class InteropDeviceAuthorizationEndpoint(DeviceAuthorizationEndpoint):
    def get_verification_uri(self):
        return f"{ISSUER.value}/device"

    def save_device_credential(self, client_id, scope, data):
        settings = DEVICE_SETTINGS.get(client_id, DEVICE_SETTINGS[AUTHLIB_DEVICE_CLIENT_ID])
        # `data` is the response body too: advertise this client's values.
        data["interval"] = settings["interval"]
        data["expires_in"] = settings["expires_in"]
        now = time.time()
        credential = DeviceCredentialDict(
            client_id=client_id, scope=scope, user_code=data["user_code"], device_code=data["device_code"],
            expires_at=now + settings["lifetime"], last_poll=now, min_gap=settings["min_gap"],
        )
        with STORE.lock:
            STORE.device_credentials[data["device_code"]] = credential
            STORE.device_polls[data["user_code"]] = []


class InteropDeviceCodeGrant(DeviceCodeGrant):
    TOKEN_ENDPOINT_AUTH_METHODS = ["client_secret_basic", "client_secret_post", "none"]

    def query_device_credential(self, device_code):
        with STORE.lock:
            return STORE.device_credentials.get(device_code)

    def query_user_grant(self, user_code):
        with STORE.lock:
            return STORE.user_grants.get(user_code)

    def should_slow_down(self, credential):
        now = time.time()
        with STORE.lock:
            too_soon = now - credential["last_poll"] < credential["min_gap"]
            credential["last_poll"] = now
        return too_soon


class InteropIssuerParameter(IssuerParameter):
    def get_issuer(self):
        return ISSUER.value


class InteropRevocationEndpoint(RevocationEndpoint):
    CLIENT_AUTH_METHODS = ["client_secret_basic", "client_secret_post", "none"]

    def query_token(self, token_string, token_type_hint):
        with STORE.lock:
            if token_type_hint == "access_token":
                return STORE.access_tokens.get(token_string)
            if token_type_hint == "refresh_token":
                return STORE.refresh_tokens.get(token_string)
            return STORE.access_tokens.get(token_string) or STORE.refresh_tokens.get(token_string)

    def revoke_token(self, token, request):
        with STORE.lock:
            token.revoked = True


class InteropIntrospectionEndpoint(IntrospectionEndpoint):
    """RFC 7662, for APIs that check Authlib's opaque access tokens
    (AuthFlowHummingbird's middleware): any confidential client may ask."""

    CLIENT_AUTH_METHODS = ["client_secret_basic"]

    def query_token(self, token_string, token_type_hint):
        with STORE.lock:
            return STORE.access_tokens.get(token_string)

    def check_permission(self, token, client, request):
        return client.client_secret is not None

    def introspect_token(self, token):
        return {
            "active": True,
            "iss": ISSUER.value,
            "client_id": token.client.client_id,
            "token_type": "Bearer",
            "scope": token.get_scope(),
            "sub": token.user.get_user_id() if token.user else token.client.client_id,
            "exp": int(token.issued_at + token.expires_in),
            "iat": int(token.issued_at),
        }


class InteropUserInfoEndpoint(UserInfoEndpoint):
    def get_issuer(self):
        return ISSUER.value

    def generate_user_info(self, user, scope):
        return _user_info(user, scope)

    def resolve_private_key(self):
        return Keys.private


class InteropBearerTokenValidator(BearerTokenValidator):
    def authenticate_token(self, token_string):
        with STORE.lock:
            return STORE.access_tokens.get(token_string)


def authenticate_client_secret_basic_strict(query_client, request):
    """client_secret_basic with RFC 6749 §2.3.1 decoding.

    The id and secret are application/x-www-form-urlencoded before base64, so they
    are decoded with unquote_plus ("+" is a space). Authlib 1.9's built-in method
    uses urllib's unquote, which leaves "+" alone."""
    auth = request.headers.get("Authorization")
    if not auth or " " not in auth:
        return None
    scheme, value = auth.split(None, 1)
    if scheme.lower() != "basic":
        return None
    try:
        decoded = base64.b64decode(value.strip(), validate=True).decode("utf-8")
    except (binascii.Error, UnicodeDecodeError, ValueError):
        return None
    if ":" not in decoded:
        return None
    raw_id, raw_secret = decoded.split(":", 1)
    client_id, client_secret = unquote_plus(raw_id), unquote_plus(raw_secret)
    client = query_client(client_id)
    if not client:
        raise InvalidClientError(status_code=401, description="Unknown client.")
    if client.check_client_secret(client_secret):
        return client
    return None


class _Issuer:
    value = None


ISSUER = _Issuer()


# --------------------------------------------------------------------------- app

LOGIN_PAGE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>Sign in - Authlib interop server</title></head>
<body>
<h1>Sign in to the Authlib interop server</h1>
{% if error %}<p id="login-error">{{ error }}</p>{% endif %}
<form id="login-form" method="post" action="{{ url_for('login') }}">
  <input type="hidden" name="csrf_token" value="{{ csrf }}">
  <input type="hidden" name="next" value="{{ next }}">
  <p><label for="username">Username</label>
     <input type="text" id="username" name="username" autocomplete="username" autofocus required></p>
  <p><label for="password">Password</label>
     <input type="password" id="password" name="password" autocomplete="current-password" required></p>
  <button type="submit" id="login-submit">Sign in</button>
</form>
</body></html>
"""

DEVICE_PAGE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>Device sign-in - Authlib interop server</title></head>
<body>
<h1>Sign in on a device</h1>
<p>Signed in as {{ user.username }}. Enter the code shown on the device.</p>
{% if error %}<p id="device-error">{{ error }}</p>{% endif %}
<form id="device-form" method="post" action="/device">
  <input type="hidden" name="csrf_token" value="{{ csrf }}">
  <p><label for="user_code">Code</label>
     <input type="text" id="user_code" name="user_code" value="{{ user_code }}" autocomplete="off" required></p>
  <button type="submit" id="approve" name="decision" value="approve">Approve</button>
  <button type="submit" id="deny" name="decision" value="deny">Deny</button>
</form>
</body></html>
"""

DEVICE_DONE_PAGE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>Device {{ outcome }} - Authlib interop server</title></head>
<body><h1 id="device-done" data-outcome="{{ outcome }}">Device {{ outcome }}</h1>
<p>You can return to your device.</p></body></html>
"""

CONSENT_PAGE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>Authorize - Authlib interop server</title></head>
<body>
<h1>Authorize {{ client_id }}?</h1>
<p>Signed in as {{ user.username }}. The application asks for: {{ scope }}</p>
<form id="consent-form" method="post">
  <input type="hidden" name="csrf_token" value="{{ csrf }}">
  <button type="submit" id="approve" name="decision" value="approve">Approve</button>
  <button type="submit" id="deny" name="decision" value="deny">Deny</button>
</form>
</body></html>
"""


def _csrf_token():
    token = session.get("csrf")
    if not token:
        token = secrets.token_urlsafe(24)
        session["csrf"] = token
    return token


def _check_csrf():
    expected = session.get("csrf")
    got = request.form.get("csrf_token", "")
    if not expected or not hmac.compare_digest(expected, got):
        abort(400, "CSRF check failed")


def _current_user():
    username = session.get("user")
    return STORE.users.get(username) if username else None


def create_app(port):
    ISSUER.value = f"http://127.0.0.1:{port}"
    _init_keys()
    _add_fixtures()

    app = Flask(__name__)
    app.config.update(
        SECRET_KEY=secrets.token_bytes(32),
        SESSION_COOKIE_NAME="authlib_interop_session",
        OAUTH2_SCOPES_SUPPORTED=SCOPES,
        OAUTH2_REFRESH_TOKEN_GENERATOR=True,
        OAUTH2_TOKEN_EXPIRES_IN={
            "authorization_code": ACCESS_TOKEN_LIFETIME,
            "refresh_token": ACCESS_TOKEN_LIFETIME,
            DEVICE_CODE_GRANT_TYPE: ACCESS_TOKEN_LIFETIME,
        },
    )

    def query_client(client_id):
        return STORE.clients.get(client_id)

    def save_token(token, req):
        item = Token(
            client=req.client,
            user=req.user,
            scope=token.get("scope", ""),
            access_token=token["access_token"],
            refresh_token=token.get("refresh_token"),
            expires_in=token.get("expires_in", ACCESS_TOKEN_LIFETIME),
        )
        with STORE.lock:
            STORE.access_tokens[item.access_token] = item
            if item.refresh_token:
                STORE.refresh_tokens[item.refresh_token] = item

    server = AuthorizationServer(app, query_client=query_client, save_token=save_token)
    server.register_client_auth_method("client_secret_basic", authenticate_client_secret_basic_strict)
    server.register_grant(
        AuthorizationCodeGrant,
        [S256OnlyCodeChallenge(required=True), InteropOpenIDCode(require_nonce=False)],
    )
    server.register_grant(RefreshTokenGrant)
    server.register_grant(InteropDeviceCodeGrant, [InteropDeviceOpenID()])
    server.register_endpoint(InteropDeviceAuthorizationEndpoint)
    server.register_extension(InteropIssuerParameter())
    server.register_endpoint(InteropRevocationEndpoint)
    server.register_endpoint(InteropIntrospectionEndpoint)
    protector = ResourceProtector()
    protector.register_token_validator(InteropBearerTokenValidator())
    server.register_endpoint(InteropUserInfoEndpoint(resource_protector=protector))

    def error_redirect(error):
        """Like server.handle_error_response, plus RFC 9207 iss on redirects."""
        response = server.handle_error_response(None, error)
        location = response.headers.get("Location")
        if location and "iss=" not in location:
            response.headers["Location"] = add_params_to_uri(location, {"iss": ISSUER.value})
        return response

    @app.get("/")
    def index():
        return "AuthFlow interop Authlib server\n", 200, {"Content-Type": "text/plain"}

    @app.get("/.well-known/openid-configuration")
    def discovery():
        base = ISSUER.value
        return jsonify({
            "issuer": base,
            "authorization_endpoint": f"{base}/authorize",
            "token_endpoint": f"{base}/token",
            "userinfo_endpoint": f"{base}/userinfo",
            "jwks_uri": f"{base}/jwks",
            "revocation_endpoint": f"{base}/revoke",
            "introspection_endpoint": f"{base}/introspect",
            "scopes_supported": SCOPES,
            "response_types_supported": ["code"],
            "response_modes_supported": ["query"],
            "grant_types_supported": ["authorization_code", "refresh_token", DEVICE_CODE_GRANT_TYPE],
            "device_authorization_endpoint": f"{base}/device_authorization",
            "subject_types_supported": ["public"],
            "id_token_signing_alg_values_supported": [Keys.alg],
            "token_endpoint_auth_methods_supported": [
                "client_secret_basic", "client_secret_post", "none",
            ],
            "revocation_endpoint_auth_methods_supported": [
                "client_secret_basic", "client_secret_post", "none",
            ],
            "code_challenge_methods_supported": ["S256"],
            "claims_supported": [
                "sub", "iss", "aud", "exp", "iat", "auth_time", "nonce", "name",
                "preferred_username", "email", "email_verified",
            ],
            "authorization_response_iss_parameter_supported": True,
        })

    @app.get("/jwks")
    def jwks():
        return jsonify(public_jwks())

    @app.route("/login", methods=["GET", "POST"])
    def login():
        nxt = request.values.get("next", "")
        if not (nxt.startswith("/authorize?") or nxt == "/device" or nxt.startswith("/device?")):
            nxt = ""
        error = None
        if request.method == "POST":
            _check_csrf()
            user = STORE.users.get(request.form.get("username", ""))
            password = request.form.get("password", "")
            if user and hmac.compare_digest(user.password.encode(), password.encode()):
                session["user"] = user.username
                session["auth_time"] = int(time.time())
                return redirect(nxt or "/")
            error = "Invalid username or password."
        return render_template_string(LOGIN_PAGE, csrf=_csrf_token(), next=nxt, error=error)

    @app.route("/authorize", methods=["GET", "POST"])
    def authorize():
        user = _current_user()
        # Validate the request before anything else: errors after the client and
        # redirect URI are known go back to the client.
        try:
            grant = server.get_consent_grant(end_user=user)
        except OAuth2Error as error:
            if getattr(error, "redirect_uri", None):
                return error_redirect(error)
            return (
                f"Invalid authorization request: {error.error}: {error.description}\n",
                400,
                {"Content-Type": "text/plain"},
            )
        if user is None:
            # Path + query only: the login page redirects back here.
            nxt = request.full_path if request.query_string else request.path
            return redirect(url_for("login", next=nxt))
        if request.method == "GET":
            return render_template_string(
                CONSENT_PAGE,
                csrf=_csrf_token(),
                client_id=grant.client.client_id,
                scope=grant.request.scope,
                user=user,
            )
        _check_csrf()
        grant_user = user if request.form.get("decision") == "approve" else None
        return server.create_authorization_response(grant_user=grant_user, grant=grant)

    @app.post("/token")
    def issue_token():
        received = time.time()
        response = server.create_token_response()
        if request.form.get("grant_type") == DEVICE_CODE_GRANT_TYPE:
            with STORE.lock:
                credential = STORE.device_credentials.get(request.form.get("device_code", ""))
                if credential is not None:
                    body = response.get_json(silent=True) or {}
                    STORE.device_polls[credential["user_code"]].append(
                        {"t": received, "status": response.status_code, "error": body.get("error")})
        return response

    @app.post("/device_authorization")
    def device_authorization():
        return server.create_endpoint_response(InteropDeviceAuthorizationEndpoint.ENDPOINT_NAME)

    @app.route("/device", methods=["GET", "POST"])
    def device():
        user = _current_user()
        if user is None:
            nxt = request.full_path if request.query_string else request.path
            return redirect(url_for("login", next=nxt))
        if request.method == "GET":
            return render_template_string(DEVICE_PAGE, csrf=_csrf_token(), user=user,
                                          user_code=request.args.get("user_code", ""), error=None)
        _check_csrf()
        user_code = request.form.get("user_code", "").strip().upper()
        with STORE.lock:
            known = any(c["user_code"] == user_code and not c.is_expired() for c in STORE.device_credentials.values())
            if known and user_code not in STORE.user_grants:
                approved = request.form.get("decision") == "approve"
                STORE.user_grants[user_code] = (user, approved)
                outcome = "approved" if approved else "denied"
            else:
                outcome = None
        if outcome is None:
            return render_template_string(DEVICE_PAGE, csrf=_csrf_token(), user=user, user_code=user_code,
                                          error="Unknown, expired or already used code."), 400
        return render_template_string(DEVICE_DONE_PAGE, outcome=outcome)

    @app.get("/interop/device-polls")
    def device_polls():
        """Test hook: the token-endpoint polls seen for a user code."""
        with STORE.lock:
            polls = list(STORE.device_polls.get(request.args.get("user_code", ""), []))
        return jsonify({"polls": polls})

    @app.post("/revoke")
    def revoke():
        return server.create_endpoint_response(InteropRevocationEndpoint.ENDPOINT_NAME)

    @app.post("/introspect")
    def introspect():
        return server.create_endpoint_response(InteropIntrospectionEndpoint.ENDPOINT_NAME)

    @app.route("/userinfo", methods=["GET", "POST"])
    def userinfo():
        return server.create_endpoint_response("userinfo")

    return app


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--fixtures-out", required=True)
    args = parser.parse_args()

    app = create_app(args.port)
    base = f"http://127.0.0.1:{args.port}"
    write_json_atomic(args.fixtures_out, {
        "issuer": base,
        "username": USERNAME,
        "password": PASSWORD,
        "public_client_id": AUTHLIB_PUBLIC_CLIENT_ID,
        "confidential_client_id": AUTHLIB_BASIC_CLIENT_ID,
        "confidential_client_secret": AUTHLIB_BASIC_CLIENT_SECRET,
        "confidential_client_auth": "basic",
        "post_client_id": AUTHLIB_POST_CLIENT_ID,
        "post_client_secret": AUTHLIB_POST_CLIENT_SECRET,
        "authorization_endpoint": f"{base}/authorize",
        "token_endpoint": f"{base}/token",
        "revocation_endpoint": f"{base}/revoke",
        "userinfo_endpoint": f"{base}/userinfo",
        "redirect_uri": REDIRECT_URI,
        "supports_deny": True,
        "device_authorization_endpoint": f"{base}/device_authorization",
        "device_client_id": AUTHLIB_DEVICE_CLIENT_ID,
        "device_confidential_client_id": AUTHLIB_DEVICE_CONFIDENTIAL_CLIENT_ID,
        "device_confidential_client_secret": AUTHLIB_DEVICE_CONFIDENTIAL_CLIENT_SECRET,
        "device_slow_client_id": AUTHLIB_DEVICE_SLOW_CLIENT_ID,
        "device_short_client_id": AUTHLIB_DEVICE_SHORT_CLIENT_ID,
        "device_polls_url": f"{base}/interop/device-polls",
        "device_publishes_endpoint": True,
        "device_issues_id_token": True,
        "pid": os.getpid(),
    })
    print(f"Authlib interop server listening on {base}", flush=True)
    app.run(host="127.0.0.1", port=args.port, threaded=True, use_reloader=False, debug=False)


if __name__ == "__main__":
    main()
