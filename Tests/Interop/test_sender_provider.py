"""Third-party clients against the embedded provider's sender features:
Authlib's client with private_key_jwt and client_secret_jwt, and DPoP proofs
built with joserfc (RFC 9449) for a code flow, a refresh and userinfo.

`authflow provider serve` runs as a subprocess (AUTHFLOW_BIN; skipped when unset).
"""

import base64
import hashlib
import json
import os
import secrets
import signal
import time
import uuid
from urllib.parse import parse_qs, urlsplit

import pytest
import requests
from authlib.integrations.requests_client import OAuth2Session
from authlib.oauth2.rfc7523 import ClientSecretJWT, PrivateKeyJWT
from joserfc import jws
from joserfc.jwk import ECKey, RSAKey

from test_provider import start

AUTHFLOW_BIN = os.environ.get("AUTHFLOW_BIN")
pytestmark = pytest.mark.skipif(not AUTHFLOW_BIN, reason="AUTHFLOW_BIN is not set")
os.environ["AUTHLIB_INSECURE_TRANSPORT"] = "1"

CLIENT_KEY = RSAKey.generate_key(2048, parameters={"kid": "py-key", "alg": "RS256"})
HMAC_SECRET = "py-hmac-secret-0123456789-0123456789"
CONFIG = {
    "port": 0,
    "sign_in": "automatic",
    "clients": [
        {"client_id": "py-pkjwt", "token_endpoint_auth_method": "private_key_jwt",
         "jwks": {"keys": [CLIENT_KEY.as_dict(private=False)]}, "grant_types": ["client_credentials"], "scope": "api"},
        {"client_id": "py-csjwt", "client_secret": HMAC_SECRET, "token_endpoint_auth_method": "client_secret_jwt",
         "grant_types": ["client_credentials"], "scope": "api"},
        {"client_id": "py-dpop", "redirect_uris": ["http://127.0.0.1/callback"],
         "grant_types": ["authorization_code", "refresh_token"], "scope": "openid profile offline_access"},
    ],
}


@pytest.fixture(scope="module")
def provider(tmp_path_factory):
    path = tmp_path_factory.mktemp("sender") / "provider.json"
    path.write_text(json.dumps(CONFIG))
    process, issuer, _ = start(str(path))
    metadata = requests.get(issuer + "/.well-known/openid-configuration", timeout=10).json()
    yield {"issuer": issuer, "metadata": metadata}
    process.send_signal(signal.SIGTERM)
    process.wait(timeout=10)


# Authlib's auth classes take the assertion's audience as their first argument
# (their `token_endpoint`); the embedded provider accepts only its issuer there
# (draft-ietf-oauth-rfc7523bis), so the tests pass the issuer.


def test_authlib_private_key_jwt(provider):
    token_url = provider["metadata"]["token_endpoint"]
    session = OAuth2Session("py-pkjwt", CLIENT_KEY.as_pem(private=True).decode(),
                            token_endpoint_auth_method=PrivateKeyJWT(provider["issuer"]))
    token = session.fetch_token(token_url, grant_type="client_credentials", scope="api")
    assert token["token_type"] == "Bearer"


def test_authlib_token_endpoint_audience_is_refused(provider):
    """An assertion addressed to the token endpoint URL could have been captured
    by another server that named this endpoint as its own: refused by default."""
    token_url = provider["metadata"]["token_endpoint"]
    session = OAuth2Session("py-pkjwt", CLIENT_KEY.as_pem(private=True).decode(),
                            token_endpoint_auth_method=PrivateKeyJWT(token_url))
    with pytest.raises(Exception) as refused:
        session.fetch_token(token_url, grant_type="client_credentials", scope="api")
    assert "invalid_client" in str(refused.value)


def test_authlib_client_secret_jwt(provider):
    token_url = provider["metadata"]["token_endpoint"]
    session = OAuth2Session("py-csjwt", HMAC_SECRET, token_endpoint_auth_method=ClientSecretJWT(provider["issuer"]))
    assert session.fetch_token(token_url, grant_type="client_credentials", scope="api")["token_type"] == "Bearer"
    wrong = OAuth2Session("py-csjwt", "not-the-secret", token_endpoint_auth_method=ClientSecretJWT(provider["issuer"]))
    with pytest.raises(Exception) as refused:
        wrong.fetch_token(token_url, grant_type="client_credentials", scope="api")
    assert "invalid_client" in str(refused.value)


def b64(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def proof(key, method, url, access_token=None):
    claims = {"htm": method, "htu": url, "iat": int(time.time()), "jti": str(uuid.uuid4())}
    if access_token:
        claims["ath"] = b64(hashlib.sha256(access_token.encode()).digest())
    header = {"typ": "dpop+jwt", "alg": "ES256", "jwk": key.as_dict(private=False)}
    return jws.serialize_compact(header, json.dumps(claims).encode(), key)


def thumbprint(key):
    public = key.as_dict(private=False)
    canonical = json.dumps({name: public[name] for name in ("crv", "kty", "x", "y")}, separators=(",", ":"), sort_keys=True)
    return b64(hashlib.sha256(canonical.encode()).digest())


def test_joserfc_dpop_proofs(provider):
    metadata = provider["metadata"]
    key = ECKey.generate_key("P-256")
    verifier = secrets.token_urlsafe(48)
    challenge = b64(hashlib.sha256(verifier.encode()).digest())
    redirect = "http://127.0.0.1:9/callback"
    response = requests.get(metadata["authorization_endpoint"], params={
        "response_type": "code", "client_id": "py-dpop", "redirect_uri": redirect, "scope": "openid offline_access",
        "state": "s", "code_challenge": challenge, "code_challenge_method": "S256", "dpop_jkt": thumbprint(key)},
        allow_redirects=False, timeout=10)
    code = parse_qs(urlsplit(response.headers["Location"]).query)["code"][0]
    token_url = metadata["token_endpoint"]
    token = requests.post(token_url, data={"grant_type": "authorization_code", "code": code, "redirect_uri": redirect,
                                           "client_id": "py-dpop", "code_verifier": verifier},
                          headers={"DPoP": proof(key, "POST", token_url)}, timeout=10).json()
    assert token["token_type"] == "DPoP", token
    userinfo = metadata["userinfo_endpoint"]
    answer = requests.get(userinfo, headers={"Authorization": "DPoP " + token["access_token"],
                                             "DPoP": proof(key, "GET", userinfo, token["access_token"])}, timeout=10)
    assert answer.status_code == 200 and answer.json()["sub"]
    as_bearer = requests.get(userinfo, headers={"Authorization": "Bearer " + token["access_token"]}, timeout=10)
    assert as_bearer.status_code == 401
    refreshed = requests.post(token_url, data={"grant_type": "refresh_token", "refresh_token": token["refresh_token"],
                                               "client_id": "py-dpop"},
                              headers={"DPoP": proof(key, "POST", token_url)}, timeout=10).json()
    assert refreshed["token_type"] == "DPoP", refreshed
