"""Checks of the interop servers and browser.py themselves, without the Swift CLI.

A Python stand-in for the client runs the whole authorization code + PKCE flow
against each server through browser.py (headless Chromium), so a failure in the
CLI tests can be told apart from a broken test bed.

    .venv/bin/python -m pytest Tests/Interop/test_servers.py
"""

import secrets
import time
from urllib.parse import parse_qs, urlsplit

import pytest
import requests

from interop_helpers import (
    LoopbackListener,
    basic_auth_header,
    build_authorization_url,
    pkce_pair,
    run_browser,
    verify_rs256,
)

HTTP_TIMEOUT = 15


# --------------------------------------------------------------------------- helpers

def discovery(server):
    resp = requests.get(server["discovery_url"], timeout=HTTP_TIMEOUT)
    resp.raise_for_status()
    return resp.json()


def browser_authorize(config, server, client_id, action="approve", scope="openid profile email"):
    """Run the front channel through browser.py; return (callback params, ctx)."""
    verifier, challenge = pkce_pair()
    state = secrets.token_urlsafe(16)
    nonce = secrets.token_urlsafe(16)
    with LoopbackListener() as listener:
        url = build_authorization_url(
            server["authorization_endpoint"], client_id, listener.redirect_uri,
            challenge, state, nonce, scope=scope,
        )
        proc = run_browser(config["browser"], url, action=action)
        assert proc.returncode == 0, f"browser.py failed:\n{proc.stderr}"
        assert listener.event.wait(5), "the browser never reached the loopback listener"
        params = listener.params
    # browser.py must never leak what the redirect carried.
    for value in params.values():
        assert value not in proc.stdout and value not in proc.stderr
    assert params.get("state") == state
    return params, {"verifier": verifier, "nonce": nonce, "redirect_uri": listener.redirect_uri}


def token_request(server, data, auth=None, client_id=None, client_secret=None):
    headers = {"Accept": "application/json"}
    data = dict(data)
    if auth == "basic":
        headers["Authorization"] = basic_auth_header(client_id, client_secret)
    elif auth == "basic-unencoded":
        headers["Authorization"] = basic_auth_header(client_id, client_secret, encode=False)
    elif auth == "post":
        data["client_id"] = client_id
        data["client_secret"] = client_secret
    else:
        data["client_id"] = client_id
    return requests.post(server["token_endpoint"], data=data, headers=headers, timeout=HTTP_TIMEOUT)


def code_exchange(server, params, ctx, client_id, auth=None, client_secret=None):
    return token_request(
        server,
        {
            "grant_type": "authorization_code",
            "code": params["code"],
            "redirect_uri": ctx["redirect_uri"],
            "code_verifier": ctx["verifier"],
        },
        auth=auth, client_id=client_id, client_secret=client_secret,
    )


def check_tokens(server, body, client_id, nonce):
    assert body.get("access_token")
    assert body.get("token_type", "").lower() == "bearer"
    assert body.get("id_token")
    jwks = requests.get(discovery(server)["jwks_uri"], timeout=HTTP_TIMEOUT).json()
    _header, claims = verify_rs256(body["id_token"], jwks)
    assert claims["iss"] == server["issuer"]
    aud = claims["aud"]
    assert aud == client_id or (isinstance(aud, list) and client_id in aud), aud
    assert claims["nonce"] == nonce
    assert claims["sub"]
    assert claims["exp"] > time.time()
    return claims


def logged_in_session(server):
    """A requests session signed in on the server (for requests-only checks)."""
    s = requests.Session()
    issuer = server["issuer"]
    if issuer.endswith("/o"):  # DOT
        base = issuer[: -len("/o")]
        s.get(f"{base}/accounts/login/", timeout=HTTP_TIMEOUT).raise_for_status()
        resp = s.post(
            f"{base}/accounts/login/",
            data={
                "username": server["username"],
                "password": server["password"],
                "csrfmiddlewaretoken": s.cookies["csrftoken"],
                "next": "/",
            },
            allow_redirects=False, timeout=HTTP_TIMEOUT,
        )
    else:  # Authlib server
        page = s.get(f"{issuer}/login", timeout=HTTP_TIMEOUT).text
        csrf = page.split('name="csrf_token" value="', 1)[1].split('"', 1)[0]
        resp = s.post(
            f"{issuer}/login",
            data={"username": server["username"], "password": server["password"], "csrf_token": csrf},
            allow_redirects=False, timeout=HTTP_TIMEOUT,
        )
    assert resp.status_code == 302, f"login failed: HTTP {resp.status_code}"
    return s


def authorization_error(server, client_id, challenge, method, port=45678, path="/callback"):
    """Send an authorization request as a signed-in user; return (status, callback params)."""
    s = logged_in_session(server)
    url = build_authorization_url(
        server["authorization_endpoint"], client_id, f"http://127.0.0.1:{port}{path}",
        challenge, "st4te", "n0nce", scope="openid", method=method,
    )
    resp = s.get(url, allow_redirects=False, timeout=HTTP_TIMEOUT)
    location = resp.headers.get("Location", "")
    params = {}
    if location.startswith(f"http://127.0.0.1:{port}{path}"):
        params = {k: v[0] for k, v in parse_qs(urlsplit(location).query).items()}
    return resp, params


# --------------------------------------------------------------------------- tests

def test_config_shape(interop_config):
    assert interop_config["browser"]
    for name in ("dot", "authlib"):
        srv = interop_config["servers"][name]
        for key in ("issuer", "username", "password", "public_client_id", "confidential_client_id",
                    "confidential_client_secret", "confidential_client_auth", "token_endpoint",
                    "authorization_endpoint"):
            assert srv.get(key), (name, key)
    assert interop_config["servers"]["authlib"]["post_client_id"]
    assert interop_config["servers"]["authlib"]["post_client_secret"]


def test_discovery(server):
    doc = discovery(server)
    assert doc["issuer"] == server["issuer"]
    assert doc["authorization_endpoint"] == server["authorization_endpoint"]
    assert doc["token_endpoint"] == server["token_endpoint"]
    assert doc["code_challenge_methods_supported"] == ["S256"]
    assert doc["authorization_response_iss_parameter_supported"] is True
    assert "RS256" in doc["id_token_signing_alg_values_supported"]
    jwks = requests.get(doc["jwks_uri"], timeout=HTTP_TIMEOUT).json()
    assert jwks["keys"] and jwks["keys"][0]["kty"] == "RSA"


def test_public_client_flow(interop_config, server):
    client_id = server["public_client_id"]
    params, ctx = browser_authorize(interop_config, server, client_id)
    assert params.get("code")
    assert params.get("iss") == server["issuer"]  # RFC 9207 on both servers
    resp = code_exchange(server, params, ctx, client_id)
    assert resp.status_code == 200, resp.text
    body = resp.json()
    claims = check_tokens(server, body, client_id, ctx["nonce"])
    assert "openid" in body["scope"].split()
    assert body.get("refresh_token")

    # userinfo agrees on the subject
    userinfo_url = discovery(server)["userinfo_endpoint"]
    info = requests.get(userinfo_url, headers={"Authorization": f"Bearer {body['access_token']}"},
                        timeout=HTTP_TIMEOUT)
    assert info.status_code == 200, info.text
    assert info.json()["sub"] == claims["sub"]

    # code replay is refused
    replay = code_exchange(server, params, ctx, client_id)
    assert replay.status_code == 400 and replay.json()["error"] == "invalid_grant"

    # refresh token grant
    refreshed = token_request(server, {"grant_type": "refresh_token", "refresh_token": body["refresh_token"]},
                              client_id=client_id)
    assert refreshed.status_code == 200, refreshed.text
    new = refreshed.json()
    assert new["access_token"] and new["access_token"] != body["access_token"]

    # revocation (Authlib advertises a revocation endpoint)
    revocation = discovery(server).get("revocation_endpoint")
    if revocation and new.get("refresh_token"):
        r = requests.post(revocation, data={"token": new["refresh_token"], "token_type_hint": "refresh_token",
                                            "client_id": client_id}, timeout=HTTP_TIMEOUT)
        assert r.status_code == 200, r.text
        again = token_request(server, {"grant_type": "refresh_token", "refresh_token": new["refresh_token"]},
                              client_id=client_id)
        assert again.status_code == 400 and again.json()["error"] == "invalid_grant"


def test_confidential_basic_flow(interop_config, server):
    client_id = server["confidential_client_id"]
    secret = server["confidential_client_secret"]
    params, ctx = browser_authorize(interop_config, server, client_id)
    # Without the RFC 6749 §2.3.1 form-urlencoding the credentials do not match.
    wrong = code_exchange(server, params, ctx, client_id, auth="basic-unencoded", client_secret=secret)
    assert wrong.status_code in (400, 401) and wrong.json()["error"] == "invalid_client", wrong.text
    resp = code_exchange(server, params, ctx, client_id, auth="basic", client_secret=secret)
    assert resp.status_code == 200, resp.text
    check_tokens(server, resp.json(), client_id, ctx["nonce"])


def test_confidential_post_flow(interop_config):
    server = interop_config["servers"]["authlib"]
    client_id = server["post_client_id"]
    secret = server["post_client_secret"]
    params, ctx = browser_authorize(interop_config, server, client_id)
    resp = code_exchange(server, params, ctx, client_id, auth="post", client_secret=secret)
    assert resp.status_code == 200, resp.text
    check_tokens(server, resp.json(), client_id, ctx["nonce"])


def test_wrong_client_secret_is_invalid_client(server):
    resp = token_request(
        server,
        {"grant_type": "authorization_code", "code": "bogus", "redirect_uri": "http://127.0.0.1:1/callback",
         "code_verifier": "x" * 43},
        auth="basic", client_id=server["confidential_client_id"], client_secret="wrong-secret",
    )
    assert resp.status_code == 401, resp.text
    assert resp.json()["error"] == "invalid_client"


def test_deny(interop_config, server):
    params, _ctx = browser_authorize(interop_config, server, server["public_client_id"], action="deny")
    assert params.get("error") == "access_denied"
    assert "code" not in params


def test_plain_pkce_refused(server):
    verifier = "p" * 50
    resp, params = authorization_error(server, server["public_client_id"], verifier, "plain")
    assert resp.status_code == 302, resp.status_code
    assert params.get("error") == "invalid_request", params
    assert params.get("state") == "st4te"


def test_missing_code_challenge_refused(server):
    resp, params = authorization_error(server, server["public_client_id"], None, None)
    assert resp.status_code == 302, resp.status_code
    assert params.get("error") == "invalid_request", params


def test_missing_code_challenge_method_refused(server):
    # RFC 7636 defaults a missing method to "plain", which is refused.
    _verifier, challenge = pkce_pair()
    resp, params = authorization_error(server, server["public_client_id"], challenge, None)
    assert resp.status_code == 302, resp.status_code
    assert params.get("error") == "invalid_request", params


def test_s256_accepted_on_any_loopback_port(server):
    _verifier, challenge = pkce_pair()
    for port in (1024, 45678, 65000):
        resp, params = authorization_error(server, server["public_client_id"], challenge, "S256", port=port)
        # Valid request: the consent page is shown (no redirect to the client).
        assert resp.status_code == 200, (port, resp.status_code, resp.headers.get("Location", "")[:60])
        assert not params


def test_other_redirect_path_refused(server):
    _verifier, challenge = pkce_pair()
    resp, params = authorization_error(server, server["public_client_id"], challenge, "S256", path="/other")
    # Never redirected to an unregistered URI.
    assert not resp.headers.get("Location", "").startswith("http://127.0.0.1:45678/other")
    assert resp.status_code in (200, 400), resp.status_code
    if resp.status_code == 200:  # DOT renders its error page with status 200
        assert "Error" in resp.text and "consent-form" not in resp.text and "authorizationForm" not in resp.text
