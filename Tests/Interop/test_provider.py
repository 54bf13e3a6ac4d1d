"""The embedded provider checked the other way round: third-party clients must accept it.

`authflow provider serve` runs as a subprocess (binary from AUTHFLOW_BIN; the
module is skipped when unset) with a config file written here. Authlib's
OAuth2Session is the client (authorization code with PKCE S256, refresh,
revocation, client credentials with client_secret_basic and _post), and
joserfc verifies the ID tokens against the provider's JWK Set.
"""

import base64
import hashlib
import json
import os
import re
import secrets
import signal
import sys
import subprocess
from urllib.parse import parse_qs, quote, urlsplit

import pytest
import requests
from authlib.integrations.requests_client import OAuth2Session
from joserfc import jwt
from joserfc.jwk import KeySet

from interop_helpers import read_until_ready

AUTHFLOW_BIN = os.environ.get("AUTHFLOW_BIN")
pytestmark = pytest.mark.skipif(not AUTHFLOW_BIN, reason="AUTHFLOW_BIN is not set")

# Authlib refuses plain http unless told that this is a development setup.
os.environ["AUTHLIB_INSECURE_TRANSPORT"] = "1"

ODD_ID = "odd+id/=%"
ODD_SECRET = "s3cret+/= %x"
REDIRECT = "http://127.0.0.1:8765/callback"
CONFIG = {
    "port": 0,
    "sign_in": "automatic",
    "automatic_user": "alice-1",
    "clients": [
        {"client_id": "py-public", "redirect_uris": ["http://127.0.0.1/callback"],
         "grant_types": ["authorization_code", "refresh_token"], "scope": "openid profile email offline_access"},
        {"client_id": "py-es256", "redirect_uris": ["http://127.0.0.1/callback"], "id_token_signed_response_alg": "ES256"},
        {"client_id": ODD_ID, "client_secret": ODD_SECRET, "token_endpoint_auth_method": "client_secret_basic",
         "redirect_uris": ["http://127.0.0.1/callback"],
         "grant_types": ["authorization_code", "refresh_token", "client_credentials"], "scope": "openid profile api"},
        {"client_id": "py-post", "client_secret": "post-secret", "token_endpoint_auth_method": "client_secret_post",
         "grant_types": ["client_credentials"], "scope": "api"},
    ],
    "users": [{"sub": "alice-1", "username": "alice", "password": "pw",
               "claims": {"name": "Alice Example", "email": "alice@example.com", "email_verified": True}}],
}


def start(config_path):
    process = subprocess.Popen([AUTHFLOW_BIN, "provider", "serve", "--config", config_path],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, stdin=subprocess.DEVNULL)
    lines, ready = read_until_ready(process)
    if ready:
        issuer = next(entry.split(": ", 1)[1] for entry in lines if entry.startswith("issuer: "))
        return process, issuer, lines
    process.kill()
    pytest.fail(f"provider did not start: {lines} {process.stderr.read()[-2000:]}")


@pytest.fixture(scope="module")
def provider(tmp_path_factory):
    path = tmp_path_factory.mktemp("provider") / "provider.json"
    path.write_text(json.dumps(CONFIG))
    process, issuer, lines = start(str(path))
    metadata = requests.get(issuer + "/.well-known/openid-configuration", timeout=10).json()
    yield {"issuer": issuer, "metadata": metadata, "lines": lines}
    process.send_signal(signal.SIGTERM)
    assert process.wait(timeout=10) == 0, "SIGTERM must stop the provider cleanly"


def jwks(provider):
    return KeySet.import_key_set(requests.get(provider["metadata"]["jwks_uri"], timeout=10).json())


def verify_id_token(provider, token, client_id, nonce, algorithms):
    decoded = jwt.decode(token["id_token"], jwks(provider), algorithms=algorithms)
    rules = {"iss": {"essential": True, "value": provider["issuer"]}, "aud": {"essential": True, "value": client_id},
             "sub": {"essential": True}, "exp": {"essential": True}, "iat": {"essential": True}}
    if nonce:  # a refreshed ID token carries no nonce (OIDC Core §12.2)
        rules["nonce"] = {"essential": True, "value": nonce}
    jwt.JWTClaimsRegistry(**rules).validate(decoded.claims)
    digest = hashlib.sha256(token["access_token"].encode()).digest()
    expected = base64.urlsafe_b64encode(digest[:16]).rstrip(b"=").decode()
    assert decoded.claims["at_hash"] == expected
    assert "auth_time" in decoded.claims
    return decoded


def authorize(provider, session, nonce):
    verifier = secrets.token_urlsafe(48)
    url, state = session.create_authorization_url(provider["metadata"]["authorization_endpoint"],
                                                  code_verifier=verifier, nonce=nonce)
    response = requests.get(url, allow_redirects=False, timeout=10)
    assert response.status_code == 302, response.text
    location = response.headers["Location"]
    params = parse_qs(urlsplit(location).query)
    assert params["state"] == [state]
    assert params["iss"] == [provider["issuer"]]
    return location, verifier


def test_serve_prints_issuer_and_credentials(provider):
    text = "\n".join(provider["lines"])
    assert provider["issuer"].startswith("http://127.0.0.1:")
    assert "client: py-public (public)" in text
    assert "user: alice password=pw" in text


def test_metadata(provider):
    metadata = provider["metadata"]
    assert metadata["issuer"] == provider["issuer"]
    assert metadata["code_challenge_methods_supported"] == ["S256"]
    assert metadata["authorization_response_iss_parameter_supported"] is True
    for name in ("revocation_endpoint", "introspection_endpoint", "device_authorization_endpoint", "end_session_endpoint"):
        assert metadata[name].startswith(provider["issuer"])
    oauth = requests.get(provider["issuer"] + "/.well-known/oauth-authorization-server", timeout=10).json()
    assert oauth == metadata


def test_authlib_code_flow_with_pkce_and_joserfc(provider):
    session = OAuth2Session("py-public", redirect_uri=REDIRECT, scope="openid profile email offline_access",
                            code_challenge_method="S256", token_endpoint_auth_method="none")
    nonce = secrets.token_urlsafe(16)
    location, verifier = authorize(provider, session, nonce)
    token = session.fetch_token(provider["metadata"]["token_endpoint"], authorization_response=location,
                                code_verifier=verifier)
    decoded = verify_id_token(provider, token, "py-public", nonce, ["RS256"])
    assert decoded.claims["sub"] == "alice-1"
    assert decoded.header["kid"]
    userinfo = session.get(provider["metadata"]["userinfo_endpoint"], timeout=10).json()
    assert userinfo["sub"] == "alice-1" and userinfo["email"] == "alice@example.com"

    # Refresh rotates the refresh token and brings a new ID token.
    old_refresh = token["refresh_token"]
    refreshed = session.refresh_token(provider["metadata"]["token_endpoint"], refresh_token=old_refresh)
    assert refreshed["refresh_token"] != old_refresh
    verify_id_token(provider, refreshed, "py-public", None, ["RS256"])

    # Revocation (RFC 7009) ends the grant: the refresh token no longer works.
    response = session.revoke_token(provider["metadata"]["revocation_endpoint"], refreshed["refresh_token"],
                                    token_type_hint="refresh_token")
    assert response.status_code == 200
    again = requests.post(provider["metadata"]["token_endpoint"], data={
        "grant_type": "refresh_token", "refresh_token": refreshed["refresh_token"], "client_id": "py-public"}, timeout=10)
    assert again.status_code == 400 and again.json()["error"] == "invalid_grant"
    assert again.headers["Cache-Control"] == "no-store"


def test_plain_pkce_is_refused(provider):
    session = OAuth2Session("py-public", redirect_uri=REDIRECT, scope="openid", code_challenge_method="plain")
    url, state = session.create_authorization_url(provider["metadata"]["authorization_endpoint"],
                                                  code_verifier=secrets.token_urlsafe(48))
    response = requests.get(url, allow_redirects=False, timeout=10)
    params = parse_qs(urlsplit(response.headers["Location"]).query)
    assert params["error"] == ["invalid_request"] and params["state"] == [state]


def test_es256_id_token_verifies_with_joserfc(provider):
    session = OAuth2Session("py-es256", redirect_uri=REDIRECT, scope="openid profile", code_challenge_method="S256",
                            token_endpoint_auth_method="none")
    nonce = secrets.token_urlsafe(16)
    location, verifier = authorize(provider, session, nonce)
    token = session.fetch_token(provider["metadata"]["token_endpoint"], authorization_response=location,
                                code_verifier=verifier)
    decoded = verify_id_token(provider, token, "py-es256", nonce, ["ES256"])
    assert decoded.header["alg"] == "ES256"


def form_encoded(value):
    return quote(value, safe="")


def test_client_secret_basic_with_reserved_characters(provider):
    # RFC 6749 §2.3.1: id and secret are form-encoded before base64. Authlib
    # 1.9.9 sends them raw, so it is given the encoded values.
    session = OAuth2Session(form_encoded(ODD_ID), form_encoded(ODD_SECRET), scope="api",
                            token_endpoint_auth_method="client_secret_basic")
    token = session.fetch_token(provider["metadata"]["token_endpoint"], grant_type="client_credentials")
    assert token["token_type"] == "Bearer" and "refresh_token" not in token and "id_token" not in token
    introspection = requests.post(provider["metadata"]["introspection_endpoint"], data={"token": token["access_token"]},
                                  auth=(form_encoded(ODD_ID), form_encoded(ODD_SECRET).replace("%20", "+")), timeout=10).json()
    assert introspection["active"] is True and introspection["client_id"] == ODD_ID
    # Unencoded, the `%` is a malformed escape: refused, not guessed at.
    raw = requests.post(provider["metadata"]["token_endpoint"], auth=(ODD_ID, ODD_SECRET),
                        data={"grant_type": "client_credentials"}, timeout=10)
    assert raw.status_code == 401 and raw.json()["error"] == "invalid_client"


def test_client_secret_post(provider):
    session = OAuth2Session("py-post", "post-secret", scope="api", token_endpoint_auth_method="client_secret_post")
    token = session.fetch_token(provider["metadata"]["token_endpoint"], grant_type="client_credentials")
    assert token["scope"] == "api"
    wrong = requests.post(provider["metadata"]["token_endpoint"], auth=("py-post", "post-secret"),
                          data={"grant_type": "client_credentials"}, timeout=10)
    assert wrong.status_code == 401 and wrong.json()["error"] == "invalid_client"
    assert wrong.headers["WWW-Authenticate"].startswith("Basic")


def test_demo_runs_every_step():
    result = subprocess.run([AUTHFLOW_BIN, "demo"], capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
    assert result.returncode == 0, result.stderr
    for step in ("discovery", "browser sign-in", "code exchange + ID token", "userinfo", "refresh", "revocation"):
        assert step in result.stdout
    assert "refreshing again → invalid_grant" in result.stdout
    assert "sub                  demo" in result.stdout


def demo(*args):
    return subprocess.run([AUTHFLOW_BIN, "demo", *args], capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)


def test_demo_resource_starts_from_the_apis_url():
    result = demo("--resource")
    assert result.returncode == 0, result.stderr
    names = [match.group(1).strip() for match in re.finditer(r"^ ?\d+\. (.{26}) ", result.stdout, re.MULTILINE)]
    assert names == ["start provider + API", "API without a token", "resource metadata", "authorization server",
                     "client registration", "loopback listener", "authorization request", "browser sign-in",
                     "callback validation", "code exchange + ID token", "API with the token", "stop provider"], names
    api = re.search(r"API (http://127\.0\.0\.1:\d+/api) ", result.stdout).group(1)
    issuer = api[: -len("/api")]
    assert f'GET → 401, WWW-Authenticate: Bearer resource_metadata="{issuer}/.well-known/oauth-protected-resource/api"' in result.stdout
    assert f"resource {api} covers the API; authorization server {issuer}" in result.stdout
    assert f"resource {api}; scope openid api.read" in result.stdout
    assert f"access token at+jwt with aud {api}" in result.stdout
    client = re.search(r"RFC 7591: client_id (\S+) \(native, none\)", result.stdout).group(1)
    assert client != "authflow-demo"
    assert f"the API saw sub demo, client {client}" in result.stdout
    assert "eyJ" not in result.stdout


def test_demo_json_is_one_object_with_the_steps():
    result = demo("--resource", "--json")
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    api = report["resource"]
    assert api == report["issuer"] + "/api" and report["access_token_audience"] == api
    assert report["api_response"]["client_id"] == report["client_id"] != "authflow-demo"
    assert report["api_response"]["sub"] == report["subject"] == "demo"
    assert report["scope"].split() == ["openid", "api.read"] and report["token_type"] == "Bearer"
    assert report["id_token_claims"]["nonce"] == "<verified, not shown>"
    assert [step["step"] for step in report["steps"]][4] == "client registration"
    assert all(step["ms"] >= 0 for step in report["steps"]) and "eyJ" not in result.stdout
    plain = json.loads(demo("--json").stdout)
    assert plain["client_id"] == "authflow-demo" and plain["userinfo"]["sub"] == "demo" and "resource" not in plain
    assert [step["step"] for step in plain["steps"]][-2:] == ["revocation", "stop provider"]


@pytest.mark.skipif(not (os.path.exists("/usr/bin/chromium") and os.path.exists("/usr/bin/chromedriver")),
                    reason="headless Chromium is not installed")
def test_cli_login_through_the_login_page_in_chromium(tmp_path):
    # The real browser path: authflow login opens browser.py (headless Chromium),
    # which fills in the provider's login page and follows the redirect to the
    # CLI's loopback listener.
    config = tmp_path / "login-page.json"
    config.write_text(json.dumps({"sign_in": "login_page"}))
    process, issuer, _ = start(str(config))
    try:
        env = dict(os.environ, XDG_CONFIG_HOME=str(tmp_path / "xdg"), INTEROP_USERNAME="demo", INTEROP_PASSWORD="demo",
                   BROWSER=f"{sys.executable} {os.path.join(os.path.dirname(os.path.abspath(__file__)), 'browser.py')}")
        env.pop("INTEROP_BROWSER_ACTION", None)
        result = subprocess.run([AUTHFLOW_BIN, "login", "--issuer", issuer, "--client-id", "authflow-demo",
                                 "--scope", "openid profile email offline_access", "--json"],
                                env=env, capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL)
        assert result.returncode == 0, result.stderr[-2000:]
        summary = json.loads(result.stdout)
        assert summary["subject"] == "demo" and summary["id_token_claims"]["iss"] == issuer
        token = subprocess.run([AUTHFLOW_BIN, "token"], env=env, capture_output=True, text=True, timeout=60)
        assert token.returncode == 0 and token.stdout.strip()
    finally:
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=10) == 0
