"""The CLI against a third-party OpenID Provider with PAR, DPoP and JWT client
authentication: idpyoidc 5.0.0 (`idpy_server.py`, started by servers.py).

Each test signs in with `authflow login`, then reads what the provider saw
and issued from its `/interop/seen` log: the client authentication method
idpyoidc accepted at each endpoint, whether a pushed request was used, the
`dpop_jkt` it bound, the `token_type` it answered and the `cnf.jkt` inside
the access token it signed.

What idpyoidc 5.0.0 cannot serve, and how the test bed deals with it (each
pinned by a test below, so a fixed idpyoidc shows up as a failure here):

* PAR, RFC 9126 §4: its authorization endpoint verifies the front-channel
  message, where `response_type` is required, before it resolves the
  `request_uri`; the request a PAR client sends (only `client_id` and
  `request_uri`) is refused. The web layer of idpy_server.py adds the pushed
  parameters again, as idpyoidc's own tests do, and idpyoidc then uses the
  request it stored.
* DPoP at userinfo: the add-on compares `ath` with the hex SHA-256 of the
  token, not its base64url (RFC 9449 §4.2), so every conforming proof is
  refused there. DPoP-bound tokens are used at `/dpop/resource`, which checks
  proofs with pydpop (PyPI) and the token's `cnf.jkt`.
* DPoP refresh: idpyoidc binds a refresh to the key of whatever proof comes
  with it (it overwrites the grant's `dpop_jkt`), where RFC 9449 §5 wants
  a public client's refresh token bound to the original key.
* The add-on's `dpop_signing_alg_values_supported` is lost from the
  metadata when the server is built, and the refresh grant only binds when
  it is there: idpy_server.py puts it back.
* Loopback redirect URIs are compared exactly (no RFC 8252 §7.3 any-port
  rule), so the clients are registered with a few fixed ports and the CLI
  gets one with `--port`.
* The add-on makes DPoP mandatory at the endpoints it is attached to, so
  the DPoP provider (`/dpop`) takes no bearer client; the bearer tests use
  the first one.
* A revoked refresh token is answered `invalid_request`, not
  `invalid_grant` (RFC 6749 §5.2).

`$BROWSER` is provider_fixtures/browser.py (the provider signs `alice` in
without a page, so following the redirect is all a browser does), except
for one test that drives headless Chromium through browser.py.
"""

import base64
import hashlib
import json
import os
import secrets
import socket
import subprocess
import sys
import time
from urllib.parse import parse_qs, urlencode, urlsplit

import pytest
import requests
from joserfc import jwt
from joserfc.jwk import ECKey

AUTHFLOW_BIN = os.environ.get("AUTHFLOW_BIN")
pytestmark = pytest.mark.skipif(not AUTHFLOW_BIN, reason="AUTHFLOW_BIN is not set")
HERE = os.path.dirname(os.path.abspath(__file__))
FOLLOW_BROWSER = f"{sys.executable} {os.path.join(HERE, 'provider_fixtures', 'browser.py')}"
TIMEOUT = 60
SCOPE = "openid profile email offline_access"


@pytest.fixture(scope="module")
def idpy(interop_config):
    server = interop_config["servers"]["idpy"]
    return {**server, "browser": interop_config["browser"]}


class Ports:
    """The loopback ports the provider registered, handed out in turn (one
    that is busy right now is skipped)."""

    def __init__(self, ports):
        self.ports = list(ports)
        self.next = 0

    def take(self):
        for _ in range(len(self.ports)):
            port = self.ports[self.next % len(self.ports)]
            self.next += 1
            with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
                try:
                    s.bind(("127.0.0.1", port))
                except OSError:
                    continue
            return port
        pytest.fail("every registered loopback port is busy")


@pytest.fixture(scope="module")
def ports(idpy):
    return Ports(idpy["loopback_ports"])


class Seen:
    """The provider's log of what it decided, read after a command."""

    def __init__(self, issuer):
        self.url = issuer + "/interop/seen"
        self.start = len(self.all())

    def all(self):
        return requests.get(self.url, timeout=5).json()

    def since(self, endpoint=None):
        entries = self.all()[self.start:]
        return [e for e in entries if endpoint is None or e["endpoint"] == endpoint]

    def one(self, endpoint, **match):
        entries = [e for e in self.since(endpoint) if all(e.get(k) == v for k, v in match.items())]
        assert len(entries) == 1, f"expected one {endpoint} {match}, the provider saw {self.since(endpoint)}"
        return entries[0]


class CLI:
    def __init__(self, tmp_path, idpy, ports, browser=FOLLOW_BROWSER):
        self.idpy = idpy
        self.ports = ports
        self.env = dict(os.environ, XDG_CONFIG_HOME=str(tmp_path / "config"), HOME=str(tmp_path), BROWSER=browser,
                        IDPY_SECRET=idpy["client_secret_jwt_secret"])
        self.tmp_path = tmp_path

    def run(self, *args):
        return subprocess.run([AUTHFLOW_BIN, *args], env=self.env, capture_output=True, text=True, timeout=TIMEOUT,
                              stdin=subprocess.DEVNULL)

    def login(self, issuer, client_id, *extra):
        # prompt=consent: idpyoidc grants offline_access (a refresh token)
        # only with it (OIDC Core §11).
        return self.run("login", "--issuer", issuer, "--client-id", client_id, "--scope", SCOPE,
                        "--param", "prompt=consent", "--port", str(self.ports.take()),
                        "--browser-timeout", "20", "--json", *extra)

    def key_file(self, kid):
        key = next(k for k in self.idpy["client_private_jwks"]["keys"] if k["kid"] == kid)
        path = self.tmp_path / f"{kid}.jwk"
        path.write_text(json.dumps(key))
        return str(path)


def signed_in(result):
    assert result.returncode == 0, result.stdout + result.stderr
    summary = json.loads(result.stdout)
    assert summary["id_token_claims"]["sub"] == summary["subject"]
    return summary


def wait_for_refresh_window():
    """AuthFlow refreshes a token within half its lifetime of expiry; the
    DPoP provider's access tokens live 6 s (idpy_server.py)."""
    time.sleep(3.5)


def refreshes_seen(seen):
    """The refreshes the provider answered: at least the one after the wait
    (a slow machine may add one before the first request too)."""
    refreshes = [e for e in seen.since("token") if e.get("grant_type") == "refresh_token"]
    assert refreshes and all(r["outcome"] == "ok" for r in refreshes), seen.since("token")
    return refreshes


# --------------------------------------------------------------------- bearer


def test_public_client_with_pkce_in_headless_chromium(idpy, ports, tmp_path):
    """(a) A public client with PKCE S256, signed in through a real browser;
    userinfo; a refresh; `request` with the bearer token."""
    cli = CLI(tmp_path, idpy, ports, browser=idpy["browser"])
    seen = Seen(idpy["issuer"])
    summary = signed_in(cli.login(idpy["issuer"], idpy["public_client_id"]))
    assert summary["token_type"] == "Bearer" and summary["has_refresh_token"]

    authorization = seen.one("authorization", outcome="ok")
    assert {"code_challenge", "code_challenge_method", "nonce", "state"} <= set(authorization["parameters"])
    token = seen.one("token", grant_type="authorization_code")
    assert token["client_authn"] == "none" and token["token_type"] == "Bearer" and token["access_token_cnf"] is None
    assert seen.one("userinfo")["outcome"] == "ok"

    refreshed = cli.run("token", "--force")
    assert refreshed.returncode == 0, refreshed.stderr
    assert seen.one("token", grant_type="refresh_token")["outcome"] == "ok"

    userinfo = cli.run("request", idpy["issuer"] + "/userinfo")
    assert userinfo.returncode == 0, userinfo.stderr
    assert json.loads(userinfo.stdout)["sub"] == summary["subject"]
    assert json.loads(userinfo.stdout)["email"] == "alice@example.com"


def test_pkce_is_required_and_plain_is_refused(idpy):
    """The provider refuses what AuthFlow never sends: no PKCE, or plain."""
    base = {"response_type": "code", "client_id": idpy["public_client_id"], "scope": "openid",
            "redirect_uri": f"http://127.0.0.1:{idpy['loopback_ports'][0]}/callback", "state": "s"}
    for extra, description in [({}, "Missing required code_challenge"),
                               ({"code_challenge": "x" * 43, "code_challenge_method": "plain"},
                                "Unsupported code_challenge_method=plain")]:
        answer = requests.get(idpy["issuer"] + "/authorization?" + urlencode({**base, **extra}),
                              allow_redirects=False, timeout=5)
        assert answer.status_code == 400
        assert answer.json() == {"error": "invalid_request", "error_description": description}


def test_par(idpy, ports, tmp_path):
    """(b) `--par`: the pushed request carries the parameters, the browser
    URL only client_id and request_uri; then a refresh."""
    cli = CLI(tmp_path, idpy, ports)
    seen = Seen(idpy["issuer"])
    result = cli.login(idpy["issuer"], idpy["public_client_id"], "--par")
    signed_in(result)
    url = next(line for line in result.stderr.splitlines() if "/authorization?" in line)
    assert sorted(parse_qs(urlsplit(url).query)) == ["client_id", "request_uri"], url

    pushed = seen.one("pushed_authorization")
    assert pushed["outcome"] == "ok" and pushed["client_authn"] == "none"
    authorization = seen.one("authorization")
    assert authorization["pushed"] and authorization["parameters"] == ["client_id", "request_uri"]
    assert seen.one("token", grant_type="authorization_code")["outcome"] == "ok"

    assert cli.run("token", "--force").returncode == 0
    assert seen.one("token", grant_type="refresh_token")["outcome"] == "ok"


def test_idpyoidc_refuses_an_rfc9126_authorization_request_as_is(idpy):
    """Pins idpyoidc 5.0.0: a pushed request followed by the RFC 9126 §4
    authorization request (client_id and request_uri only), given to
    idpyoidc without the web layer's fill-in, is refused for a missing
    response_type."""
    verifier = secrets.token_urlsafe(32)
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
    pushed = requests.post(idpy["issuer"] + "/par", data={
        "response_type": "code", "client_id": idpy["public_client_id"], "scope": "openid", "state": "s",
        "redirect_uri": f"http://127.0.0.1:{idpy['loopback_ports'][0]}/callback",
        "code_challenge": challenge, "code_challenge_method": "S256"}, timeout=5)
    assert pushed.status_code == 201, pushed.text
    request_uri = pushed.json()["request_uri"]
    answer = requests.get(idpy["issuer"] + "/authorization-as-is?" + urlencode(
        {"client_id": idpy["public_client_id"], "request_uri": request_uri}), allow_redirects=False, timeout=5)
    assert answer.status_code == 400
    assert "response_type" in answer.json()["error_description"]


@pytest.mark.parametrize("kid", ["idpy-ec-1", "idpy-rsa-1"], ids=["ES256", "RS256"])
def test_private_key_jwt(idpy, ports, tmp_path, kid):
    """(d) `--private-key` (a private JWK; the kid comes from it): idpyoidc
    accepts private_key_jwt at the token endpoint, at login and refresh."""
    cli = CLI(tmp_path, idpy, ports)
    seen = Seen(idpy["issuer"])
    signed_in(cli.login(idpy["issuer"], idpy["private_key_jwt_client_id"], "--private-key", cli.key_file(kid)))
    assert seen.one("token", grant_type="authorization_code")["client_authn"] == "private_key_jwt"

    assert cli.run("token", "--force").returncode == 0
    assert seen.one("token", grant_type="refresh_token")["client_authn"] == "private_key_jwt"


def test_private_key_jwt_with_a_key_the_client_did_not_register(idpy, ports, tmp_path):
    cli = CLI(tmp_path, idpy, ports)
    seen = Seen(idpy["issuer"])
    stranger = json.loads(open(cli.key_file("idpy-ec-1")).read())
    from cryptojwt.jwk.ec import new_ec_key
    other = new_ec_key(crv="P-256", kid=stranger["kid"]).serialize(private=True)
    path = tmp_path / "other.jwk"
    path.write_text(json.dumps(other))
    result = cli.login(idpy["issuer"], idpy["private_key_jwt_client_id"], "--private-key", str(path))
    assert result.returncode == 3, result.stdout + result.stderr
    assert json.loads(result.stdout)["error"]["oauth_error"] == "invalid_client"
    assert seen.one("token")["outcome"] == "refused"


@pytest.mark.parametrize("audience", ["token-endpoint", "issuer"])
def test_client_secret_jwt(idpy, ports, tmp_path, audience):
    """(e) `--client-auth client_secret_jwt`: HS256 with the client secret,
    addressed to the issuer (the default) or the token endpoint."""
    cli = CLI(tmp_path, idpy, ports)
    seen = Seen(idpy["issuer"])
    signed_in(cli.login(idpy["issuer"], idpy["client_secret_jwt_client_id"], "--client-auth", "client_secret_jwt",
                        "--client-secret-env", "IDPY_SECRET", "--assertion-audience", audience))
    assert seen.one("token", grant_type="authorization_code")["client_authn"] == "client_secret_jwt"

    assert cli.run("token", "--force").returncode == 0
    assert seen.one("token", grant_type="refresh_token")["client_authn"] == "client_secret_jwt"


def test_client_secret_jwt_with_a_wrong_secret(idpy, ports, tmp_path):
    cli = CLI(tmp_path, idpy, ports)
    cli.env["IDPY_SECRET"] = "not-the-secret-" + "x" * 32
    seen = Seen(idpy["issuer"])
    result = cli.login(idpy["issuer"], idpy["client_secret_jwt_client_id"], "--client-auth", "client_secret_jwt",
                       "--client-secret-env", "IDPY_SECRET")
    assert result.returncode == 3, result.stdout + result.stderr
    assert json.loads(result.stdout)["error"]["oauth_error"] == "invalid_client"
    assert seen.one("token")["outcome"] == "refused"


def test_logout_revokes_with_private_key_jwt(idpy, ports, tmp_path):
    """`authflow logout` authenticates at the revocation endpoint (RFC 7009)
    as at the token endpoint."""
    cli = CLI(tmp_path, idpy, ports)
    seen = Seen(idpy["issuer"])
    signed_in(cli.login(idpy["issuer"], idpy["private_key_jwt_client_id"], "--private-key", cli.key_file("idpy-ec-1")))
    result = cli.run("logout", "--no-browser")
    assert result.returncode == 0, result.stderr
    revocations = seen.since("token_revocation")
    assert [(r["client_authn"], r["outcome"]) for r in revocations] == [("private_key_jwt", "ok")] * 2


def test_logout_revokes_the_refresh_token(idpy, ports, tmp_path):
    """After `authflow logout` the refresh token is dead. idpyoidc answers
    `invalid_request` for it, where RFC 6749 §5.2 says `invalid_grant`."""
    cli = CLI(tmp_path, idpy, ports)
    summary = signed_in(cli.login(idpy["issuer"], idpy["public_client_id"], "--show-tokens"))
    assert cli.run("logout", "--no-browser").returncode == 0
    answer = requests.post(idpy["issuer"] + "/token", data={
        "grant_type": "refresh_token", "refresh_token": summary["refresh_token"],
        "client_id": idpy["public_client_id"]}, timeout=5)
    assert answer.status_code == 400, answer.text
    assert answer.json() == {"error": "invalid_request", "error_description": "Refresh token inactive"}


# ----------------------------------------------------------------------- DPoP


def test_dpop(idpy, ports, tmp_path):
    """(c) `--dpop`: dpop_jkt in the authorization request, a DPoP token
    bound to that key (`cnf.jkt`), `token` refused, `request` with a proof
    accepted, and a refresh bound to the same key."""
    issuer = idpy["dpop_issuer"]
    cli = CLI(tmp_path, idpy, ports)
    seen = Seen(issuer)
    result = cli.login(issuer, idpy["public_client_id"], "--dpop")
    summary = signed_in(result)
    assert summary["token_type"] == "DPoP"

    jkt = seen.one("authorization")["dpop_jkt"]
    assert jkt
    token = seen.one("token", grant_type="authorization_code")
    assert token["dpop_proof"] and token["token_type"] == "DPoP"
    assert token["dpop_jkt"] == jkt and token["access_token_cnf"] == {"jkt": jkt}
    # idpyoidc's userinfo refuses every conforming proof (hex `ath`): login
    # says so and goes on.
    assert "'ath' in DPoP does not match the token hash" in result.stderr
    assert seen.one("userinfo")["outcome"] == "refused"

    printed = cli.run("token")
    assert printed.returncode == 1
    assert "authflow request" in printed.stdout + printed.stderr

    resource = cli.run("request", issuer + "/resource")
    assert resource.returncode == 0, resource.stderr
    assert json.loads(resource.stdout) == {"sub": summary["subject"], "bound": True, "jkt": jkt}

    wait_for_refresh_window()
    again = cli.run("request", "-X", "POST", issuer + "/resource")
    assert again.returncode == 0, again.stderr
    refreshes = refreshes_seen(seen)
    assert all(r["dpop_proof"] and r["token_type"] == "DPoP" and r["access_token_cnf"] == {"jkt": jkt}
               for r in refreshes), refreshes
    assert [e["outcome"] for e in seen.since("resource")] == ["ok", "ok"]


def test_logout_of_a_dpop_profile_sends_proofs(idpy, ports, tmp_path):
    """Revoking DPoP-bound tokens carries a proof from the session's key."""
    issuer = idpy["dpop_issuer"]
    cli = CLI(tmp_path, idpy, ports)
    seen = Seen(issuer)
    signed_in(cli.login(issuer, idpy["public_client_id"], "--dpop"))
    result = cli.run("logout", "--no-browser")
    assert result.returncode == 0, result.stderr
    revocations = seen.since("token_revocation")
    assert [(r["client_authn"], r["dpop_proof"], r["outcome"]) for r in revocations] == [("none", True, "ok")] * 2


def test_a_dpop_token_without_its_proof_is_refused(idpy, ports, tmp_path):
    """The resource endpoint is not a pushover: the bound token sent as a
    bearer token (no proof) is refused."""
    issuer = idpy["dpop_issuer"]
    cli = CLI(tmp_path, idpy, ports)
    result = cli.run("login", "--issuer", issuer, "--client-id", idpy["public_client_id"], "--scope", SCOPE,
                     "--param", "prompt=consent", "--port", str(ports.take()), "--browser-timeout", "20",
                     "--json", "--dpop", "--show-tokens")
    summary = signed_in(result)
    access_token = summary["access_token"]
    answer = requests.get(issuer + "/resource", headers={"Authorization": f"Bearer {access_token}"}, timeout=5)
    assert answer.status_code == 401
    answer = requests.get(issuer + "/resource", headers={"Authorization": f"DPoP {access_token}"}, timeout=5)
    assert answer.status_code == 401 and answer.json()["error_description"] == "no DPoP proof"


def dpop_proof(key, method, url):
    header = {"typ": "dpop+jwt", "alg": "ES256", "jwk": key.as_dict(private=False)}
    claims = {"jti": secrets.token_urlsafe(16), "htm": method, "htu": url, "iat": int(time.time())}
    return jwt.encode(header, claims, key)


def code_exchange(idpy, issuer):
    """The form of a code exchange for the public client, after an
    authorization request sent from Python."""
    verifier = secrets.token_urlsafe(32)
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
    redirect_uri = f"http://127.0.0.1:{idpy['loopback_ports'][0]}/callback"
    answer = requests.get(issuer + "/authorization?" + urlencode({
        "response_type": "code", "client_id": idpy["public_client_id"], "scope": SCOPE, "prompt": "consent",
        "redirect_uri": redirect_uri, "state": "s", "nonce": "n", "code_challenge": challenge,
        "code_challenge_method": "S256"}), allow_redirects=False, timeout=5)
    assert answer.status_code in (302, 303), answer.text
    code = parse_qs(urlsplit(answer.headers["Location"]).query)["code"][0]
    return {"grant_type": "authorization_code", "code": code, "code_verifier": verifier,
            "client_id": idpy["public_client_id"], "redirect_uri": redirect_uri}


def test_idpyoidc_rebinds_a_refresh_to_any_proof_key(idpy):
    """Pins idpyoidc 5.0.0: a public client's DPoP refresh with a proof from
    another key is answered, and the new access token is bound to that other
    key (RFC 9449 §5 wants the refresh token bound to the first key). Driven
    from Python with joserfc-built proofs, as AuthFlow never does this."""
    issuer = idpy["dpop_issuer"]
    seen = Seen(issuer)
    first, second = ECKey.generate_key("P-256", private=True), ECKey.generate_key("P-256", private=True)
    token_url = issuer + "/token"
    tokens = requests.post(token_url, headers={"DPoP": dpop_proof(first, "POST", token_url)},
                           data=code_exchange(idpy, issuer), timeout=5).json()
    assert tokens["token_type"] == "DPoP", tokens
    refreshed = requests.post(token_url, headers={"DPoP": dpop_proof(second, "POST", token_url)}, data={
        "grant_type": "refresh_token", "refresh_token": tokens["refresh_token"],
        "client_id": idpy["public_client_id"]}, timeout=5)
    assert refreshed.status_code == 200, refreshed.text
    assert refreshed.json()["token_type"] == "DPoP"
    issued = [e["access_token_cnf"]["jkt"] for e in seen.since("token")]
    assert issued == [first.thumbprint(), second.thumbprint()]


def test_par_dpop_and_private_key_jwt_together(idpy, ports, tmp_path):
    """(g) PAR + DPoP + private_key_jwt: the pushed request is authenticated
    with the client's key and carries dpop_jkt; the code exchange and the
    refresh carry both the assertion and a proof."""
    issuer = idpy["dpop_issuer"]
    cli = CLI(tmp_path, idpy, ports)
    seen = Seen(issuer)
    result = cli.login(issuer, idpy["private_key_jwt_client_id"], "--private-key", cli.key_file("idpy-ec-1"),
                       "--par", "--dpop")
    signed_in(result)

    pushed = seen.one("pushed_authorization")
    jkt = pushed["dpop_jkt"]
    assert pushed["client_authn"] == "private_key_jwt" and jkt
    assert seen.one("authorization")["parameters"] == ["client_id", "request_uri"]
    token = seen.one("token", grant_type="authorization_code")
    assert token["client_authn"] == "private_key_jwt" and token["token_type"] == "DPoP"
    assert token["access_token_cnf"] == {"jkt": jkt}

    assert cli.run("request", issuer + "/resource").returncode == 0
    wait_for_refresh_window()
    assert cli.run("request", issuer + "/resource").returncode == 0
    refreshes = refreshes_seen(seen)
    assert all(r["client_authn"] == "private_key_jwt" and r["dpop_proof"] and r["access_token_cnf"] == {"jkt": jkt}
               for r in refreshes), refreshes


def test_discovery_of_the_dpop_provider(idpy):
    metadata = requests.get(idpy["dpop_issuer"] + "/.well-known/openid-configuration", timeout=5).json()
    assert metadata["pushed_authorization_request_endpoint"] == idpy["dpop_issuer"] + "/par"
    assert metadata["dpop_signing_alg_values_supported"] == ["ES256"]
    assert {"private_key_jwt", "client_secret_jwt"} <= set(metadata["token_endpoint_auth_methods_supported"])


# ------------------------------------------------- idpyoidc as it is shipped


def shipped_server(dpop, directory):
    """An idpyoidc Server built from idpy_server.py's configuration, without
    the adjustments idpy_server.py makes after building it."""
    from idpyoidc.server import Server
    from idpyoidc.server.configure import OPConfiguration

    import idpy_server

    issuer = "http://127.0.0.1:9/dpop"
    return Server(OPConfiguration(conf=idpy_server.server_conf(issuer, dpop, str(directory)), base_path=str(directory),
                                  domain="127.0.0.1", port=0), cwd=str(directory)), issuer


def test_idpyoidc_loses_the_dpop_metadata_and_takes_only_the_endpoint_url_as_assertion_audience(tmp_path):
    """Pins idpyoidc 5.0.0 as shipped: the DPoP add-on ran (its proof check
    is on the token endpoint) but its metadata member is gone, which turns
    off DPoP binding in the refresh grant; a client assertion's aud must be
    the endpoint's own URL."""
    server, issuer = shipped_server(True, tmp_path)
    context = server.context
    assert context.add_on["dpop"] == {"algs_supported": ["ES256"]}
    assert "dpop_signing_alg_values_supported" not in context.provider_info
    assert server.get_endpoint("pushed_authorization").allowed_target_uris() == {issuer + "/par"}
    assert server.get_endpoint("token").allowed_target_uris() == {issuer + "/token"}


def test_the_dpop_provider_takes_no_bearer_client(idpy):
    """Pins the add-on: a token request without a proof is refused."""
    issuer = idpy["dpop_issuer"]
    answer = requests.post(issuer + "/token", data=code_exchange(idpy, issuer), timeout=5)
    assert answer.status_code == 400
    assert answer.json()["error_description"] == "Expected DPoP header, none found"
