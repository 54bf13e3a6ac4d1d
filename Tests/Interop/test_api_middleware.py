"""AuthFlowHummingbird's middleware protecting an API (`example-api`, built
next to AUTHFLOW_BIN) against tokens that other servers issue, and DPoP
proofs that another library makes.

- Django OAuth Toolkit and Authlib issue opaque access tokens: the API
  introspects them (RFC 7662) with the confidential client's credentials.
  DOT does not list its introspection endpoint in its metadata, so the API is
  told where it is; Authlib's test server lists it.
- The embedded provider (`authflow provider serve`) issues DPoP-bound JWT
  access tokens (RFC 9068) for the API's resource identifier: one to
  AuthFlow's own client (`authflow login --dpop`, then `authflow request`),
  one to a client whose proofs pydpop (PyPI) makes.
"""

import json
import os
import signal
import subprocess

import pytest
import requests
from pydpop import generate_key, generate_proof, jwk_thumbprint, public_jwk

from interop_helpers import read_until_ready
from test_cli import CLI, assert_success, describe
from test_provider import start as start_provider

AUTHFLOW_BIN = os.environ.get("AUTHFLOW_BIN")
EXAMPLE_API = os.path.join(os.path.dirname(AUTHFLOW_BIN), "example-api") if AUTHFLOW_BIN else None
HAVE_CHROMIUM = os.path.exists("/usr/bin/chromium") and os.path.exists("/usr/bin/chromedriver")
pytestmark = pytest.mark.skipif(not (EXAMPLE_API and os.access(EXAMPLE_API, os.X_OK)),
                                reason="AUTHFLOW_BIN is not set or example-api is not built next to it")


def start_api(issuer, env=None, *args):
    """Starts example-api for `issuer`; returns (process, resource URL)."""
    process = subprocess.Popen([EXAMPLE_API, "--issuer", issuer, "--scope", "read", *args],
                               env=dict(os.environ, **(env or {})), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True, stdin=subprocess.DEVNULL)
    lines, ready = read_until_ready(process)
    if ready:
        resource = next(entry.split(": ", 1)[1] for entry in lines if entry.startswith("resource: "))
        return process, resource
    process.kill()
    pytest.fail(f"example-api did not start: {lines} {process.stderr.read()[-2000:]}")


def stop(process):
    process.send_signal(signal.SIGTERM)
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(timeout=10)


def challenges(response):
    return response.headers.get("WWW-Authenticate", "")


# --------------------------------------------------------------- DOT and Authlib


@pytest.fixture
def introspecting_api(server, server_name):
    # As a user runs it: the client ID and the endpoint as flags, the secret only in the environment.
    flags = ["--introspection-client-id", server["confidential_client_id"]]
    if server_name == "dot":
        flags += ["--introspection-endpoint", server["issuer"] + "/introspect/"]
    process, resource = start_api(server["issuer"], {"EXAMPLE_API_CLIENT_SECRET": server["confidential_client_secret"]}, *flags)
    yield resource
    stop(process)


@pytest.mark.skipif(not HAVE_CHROMIUM, reason="headless Chromium is not installed")
def test_opaque_tokens_are_introspected(interop_config, tmp_path, server, server_name, introspecting_api):
    cli = CLI(interop_config, tmp_path / "xdg")
    (tmp_path / "xdg").mkdir()
    out = assert_success(cli.login(server, "--scope", "openid read", "--json", "--show-tokens"))
    token = out["access_token"]
    assert token.count(".") != 2, "an opaque token, checked by introspection"
    me = introspecting_api + "/me"

    answer = requests.get(me, headers={"Authorization": "Bearer " + token}, timeout=10)
    assert answer.status_code == 200, (answer.status_code, challenges(answer))
    seen = answer.json()
    assert seen["source"] == "introspection"
    assert seen["client_id"] == server["public_client_id"]
    assert "read" in seen["scopes"] and seen["jkt"] is None

    # AuthFlow's own client sends it too.
    request = cli.run("request", "--profile", "p", me)
    assert request.returncode == 0, describe(request)
    assert json.loads(request.stdout)["source"] == "introspection"

    # A token the server never issued is inactive.
    made_up = requests.get(me, headers={"Authorization": "Bearer not-issued-by-" + server_name}, timeout=10)
    assert made_up.status_code == 401
    assert challenges(made_up).startswith('Bearer error="invalid_token", error_description="the token is not active"')

    # No token: the challenges, without an error.
    no_token = requests.get(me, timeout=10)
    assert no_token.status_code == 401 and 'error=' not in challenges(no_token)


@pytest.mark.skipif(not HAVE_CHROMIUM, reason="headless Chromium is not installed")
def test_an_introspection_answer_without_aud_is_refused_when_the_api_requires_one(interop_config, tmp_path, server, server_name):
    """DOT's introspection answers carry no `aud` (RFC 7662 makes it optional): an API that
    requires one refuses DOT's active token; the same API without the setting takes it."""
    if server_name != "dot":
        pytest.skip("Django OAuth Toolkit is the real server whose answers carry no aud")
    cli = CLI(interop_config, tmp_path / "xdg")
    (tmp_path / "xdg").mkdir()
    token = assert_success(cli.login(server, "--scope", "openid read", "--json", "--show-tokens"))["access_token"]
    env = {"EXAMPLE_API_CLIENT_SECRET": server["confidential_client_secret"]}
    flags = ["--introspection-client-id", server["confidential_client_id"],
             "--introspection-endpoint", server["issuer"] + "/introspect/"]
    for requires, status in ((True, 401), (False, 200)):
        process, resource = start_api(server["issuer"], env, *flags, *(["--introspection-requires-aud"] if requires else []))
        try:
            answer = requests.get(resource + "/me", headers={"Authorization": "Bearer " + token}, timeout=10)
        finally:
            stop(process)
        assert answer.status_code == status, (requires, answer.status_code, challenges(answer))
        if requires:
            assert challenges(answer).startswith(
                'Bearer error="invalid_token", error_description="the introspection answer names no aud"'), challenges(answer)


# ------------------------------------------------- DPoP: AuthFlow's client and pydpop


PROVIDER_CONFIG = {
    "port": 0,
    "sign_in": "automatic",
    "clients": [
        {"client_id": "api-cli", "redirect_uris": ["http://127.0.0.1/callback"],
         "grant_types": ["authorization_code", "refresh_token"], "scope": "openid read offline_access"},
        {"client_id": "api-robot", "client_secret": "robot-secret-0123456789", "token_endpoint_auth_method": "client_secret_basic",
         "grant_types": ["client_credentials"], "scope": "read"},
    ],
}


@pytest.fixture(scope="module")
def provider_and_api(tmp_path_factory):
    path = tmp_path_factory.mktemp("api-provider") / "provider.json"
    path.write_text(json.dumps(PROVIDER_CONFIG))
    provider, issuer, _ = start_provider(str(path))
    try:
        api, resource = start_api(issuer)
    except BaseException:
        stop(provider)
        raise
    metadata = requests.get(issuer + "/.well-known/openid-configuration", timeout=10).json()
    yield {"issuer": issuer, "metadata": metadata, "resource": resource}
    stop(api)
    stop(provider)


def test_pydpop_proofs(provider_and_api):
    resource, token_endpoint = provider_and_api["resource"], provider_and_api["metadata"]["token_endpoint"]
    key = generate_key()
    issued = requests.post(token_endpoint, data={"grant_type": "client_credentials", "scope": "read", "resource": resource},
                           auth=("api-robot", "robot-secret-0123456789"),
                           headers={"DPoP": generate_proof(private_key=key, htm="POST", htu=token_endpoint)}, timeout=10)
    assert issued.status_code == 200, issued.text
    token = issued.json()
    assert token["token_type"] == "DPoP"
    access_token = token["access_token"]
    me = resource + "/me"

    proof = generate_proof(private_key=key, htm="GET", htu=me, access_token=access_token)
    answer = requests.get(me, headers={"Authorization": "DPoP " + access_token, "DPoP": proof}, timeout=10)
    assert answer.status_code == 200, (answer.status_code, challenges(answer))
    seen = answer.json()
    assert seen["source"] == "jwt" and seen["client_id"] == "api-robot"
    assert seen["jkt"] == jwk_thumbprint(public_jwk(key))

    def refusal(response):
        assert response.status_code == 401, response.status_code
        return challenges(response)

    replayed = requests.get(me, headers={"Authorization": "DPoP " + access_token, "DPoP": proof}, timeout=10)
    assert 'DPoP error="invalid_dpop_proof", error_description="the DPoP proof was already used (jti replay)"' \
        in refusal(replayed)
    wrong_method = requests.get(me, headers={
        "Authorization": "DPoP " + access_token,
        "DPoP": generate_proof(private_key=key, htm="POST", htu=me, access_token=access_token)}, timeout=10)
    assert 'error_description="the DPoP proof\'s htm is not GET"' in refusal(wrong_method)
    other_key = generate_key()
    wrong_key = requests.get(me, headers={
        "Authorization": "DPoP " + access_token,
        "DPoP": generate_proof(private_key=other_key, htm="GET", htu=me, access_token=access_token)}, timeout=10)
    assert 'error_description="the DPoP proof\'s key is not the token\'s (cnf.jkt)"' in refusal(wrong_key)
    as_bearer = requests.get(me, headers={"Authorization": "Bearer " + access_token}, timeout=10)
    assert ('Bearer error="invalid_token", error_description="the access token is DPoP-bound: '
            'send it with the DPoP scheme and a proof"') in refusal(as_bearer)


def test_authflow_client_dpop(provider_and_api, tmp_path):
    resource, issuer = provider_and_api["resource"], provider_and_api["issuer"]
    env = dict(os.environ, XDG_CONFIG_HOME=str(tmp_path / "xdg"), BROWSER="curl -s -o /dev/null -L")
    login = subprocess.run([AUTHFLOW_BIN, "login", "--issuer", issuer, "--client-id", "api-cli", "--scope", "openid read",
                            "--param", "resource=" + resource, "--dpop", "--json"],
                           env=env, capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
    assert login.returncode == 0, describe(login)
    assert json.loads(login.stdout)["token_type"] == "DPoP"
    for _ in range(2):  # a fresh proof each time
        answer = subprocess.run([AUTHFLOW_BIN, "request", resource + "/me"], env=env, capture_output=True, text=True,
                                timeout=60, stdin=subprocess.DEVNULL)
        assert answer.returncode == 0, describe(answer)
        seen = json.loads(answer.stdout)
        assert seen["source"] == "jwt" and seen["client_id"] == "api-cli" and seen["jkt"]


# ------------------------------------------- every middleware option, as flags


@pytest.fixture(scope="module")
def flagged_api(tmp_path_factory):
    """The embedded provider signing with an RSA key this test also holds (to
    make logout tokens), and example-api started with every option a user
    turns on: a route that needs more scopes, DPoP nonces, introspection,
    back-channel logout and a resource name."""
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import rsa

    directory = tmp_path_factory.mktemp("flagged-api")
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    (directory / "rsa.pem").write_bytes(pem)
    config = dict(PROVIDER_CONFIG, signing_keys=[{"kid": "logout-k1", "alg": "RS256", "pem_file": str(directory / "rsa.pem")}])
    (directory / "provider.json").write_text(json.dumps(config))
    provider, issuer, _ = start_provider(str(directory / "provider.json"))
    try:
        api, resource = start_api(issuer, {"EXAMPLE_API_CLIENT_SECRET": "robot-secret-0123456789"},
                                  "--route", "admin=admin", "--dpop-nonce", "300",
                                  "--introspection-client-id", "api-robot",
                                  "--back-channel-logout", "/backchannel-logout", "--logout-client-id", "api-cli",
                                  "--resource-name", "Example API")
    except BaseException:
        stop(provider)
        raise
    metadata = requests.get(issuer + "/.well-known/openid-configuration", timeout=10).json()
    yield {"issuer": issuer, "metadata": metadata, "resource": resource, "api": api, "pem": pem}
    stop(api)
    stop(provider)


def dpop_token(flagged_api, key, scope="read"):
    token_endpoint = flagged_api["metadata"]["token_endpoint"]
    issued = requests.post(token_endpoint, data={"grant_type": "client_credentials", "scope": scope,
                                                 "resource": flagged_api["resource"]},
                           auth=("api-robot", "robot-secret-0123456789"),
                           headers={"DPoP": generate_proof(private_key=key, htm="POST", htu=token_endpoint)}, timeout=10)
    assert issued.status_code == 200, issued.text
    return issued.json()["access_token"]


def test_flags_serve_the_metadata_with_every_scope_and_the_name(flagged_api):
    origin = flagged_api["resource"].rsplit("/api", 1)[0]
    document = requests.get(origin + "/.well-known/oauth-protected-resource/api", timeout=10).json()
    assert document["resource"] == flagged_api["resource"]
    assert document["authorization_servers"] == [flagged_api["issuer"]]
    assert document["scopes_supported"] == ["admin", "read"]
    assert document["resource_name"] == "Example API"


def test_flag_dpop_nonce_asks_for_the_nonce_then_accepts_the_proof(flagged_api):
    key = generate_key()
    token = dpop_token(flagged_api, key)
    me = flagged_api["resource"] + "/me"
    first = requests.get(me, headers={"Authorization": "DPoP " + token,
                                      "DPoP": generate_proof(private_key=key, htm="GET", htu=me, access_token=token)}, timeout=10)
    assert first.status_code == 401 and 'error="use_dpop_nonce"' in challenges(first), challenges(first)
    nonce = first.headers["DPoP-Nonce"]
    second = requests.get(me, headers={"Authorization": "DPoP " + token,
                                       "DPoP": generate_proof(private_key=key, htm="GET", htu=me, access_token=token,
                                                              nonce=nonce)}, timeout=10)
    assert second.status_code == 200, challenges(second)
    assert second.json()["client_id"] == "api-robot"


def test_flag_route_needs_its_own_scope(flagged_api):
    key = generate_key()
    admin = flagged_api["resource"] + "/admin"

    def get(token):
        first = requests.get(admin, headers={"Authorization": "DPoP " + token, "DPoP": generate_proof(
            private_key=key, htm="GET", htu=admin, access_token=token)}, timeout=10)
        nonce = first.headers.get("DPoP-Nonce")
        return requests.get(admin, headers={"Authorization": "DPoP " + token, "DPoP": generate_proof(
            private_key=key, htm="GET", htu=admin, access_token=token, nonce=nonce)}, timeout=10)

    refused = get(dpop_token(flagged_api, key, "read"))
    assert refused.status_code == 403, challenges(refused)
    assert 'error="insufficient_scope"' in challenges(refused) and 'scope="read admin"' in challenges(refused)


def test_flag_introspection_checks_an_opaque_token_at_the_provider(flagged_api):
    answer = requests.get(flagged_api["resource"] + "/me", headers={"Authorization": "Bearer opaque-not-issued"}, timeout=10)
    assert answer.status_code == 401
    assert challenges(answer).startswith('Bearer error="invalid_token", error_description="the token is not active"'), \
        challenges(answer)


def test_flag_back_channel_logout_takes_a_signed_logout_token_once(flagged_api):
    import time
    import uuid

    from joserfc import jwt
    from joserfc.jwk import RSAKey

    key = RSAKey.import_key(flagged_api["pem"])
    claims = {"iss": flagged_api["issuer"], "aud": "api-cli", "iat": int(time.time()), "exp": int(time.time()) + 120,
              "jti": str(uuid.uuid4()), "sub": "alice", "sid": "session-7",
              "events": {"http://schemas.openid.net/event/backchannel-logout": {}}}
    token = jwt.encode({"alg": "RS256", "kid": "logout-k1", "typ": "logout+jwt"}, claims, key)
    origin = flagged_api["resource"].rsplit("/api", 1)[0]
    accepted = requests.post(origin + "/backchannel-logout", data={"logout_token": token}, timeout=10)
    assert accepted.status_code == 200, accepted.text
    assert flagged_api["api"].stdout.readline().strip() == "logout: sub=alice sid=session-7"
    replayed = requests.post(origin + "/backchannel-logout", data={"logout_token": token}, timeout=10)
    assert replayed.status_code == 400
    assert replayed.json()["error_description"] == "the logout token was already used (jti replay)"
    other_client = jwt.encode({"alg": "RS256", "kid": "logout-k1"}, dict(claims, aud="someone-else", jti=str(uuid.uuid4())), key)
    refused = requests.post(origin + "/backchannel-logout", data={"logout_token": other_client}, timeout=10)
    assert refused.status_code == 400


def test_flag_dpop_nonce_with_authflow_request_as_a_user_runs_it(flagged_api, tmp_path):
    """authflow login --dpop, then authflow request: the API's nonce challenge
    is answered by the client itself, and /admin's 403 names the scope."""
    resource, issuer = flagged_api["resource"], flagged_api["issuer"]
    env = dict(os.environ, XDG_CONFIG_HOME=str(tmp_path / "xdg"), BROWSER="curl -s -o /dev/null -L")
    login = subprocess.run([AUTHFLOW_BIN, "login", "--issuer", issuer, "--client-id", "api-cli", "--scope", "openid read",
                            "--param", "resource=" + resource, "--dpop", "--json"],
                           env=env, capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
    assert login.returncode == 0, describe(login)
    answer = subprocess.run([AUTHFLOW_BIN, "request", resource + "/me"], env=env, capture_output=True, text=True,
                            timeout=60, stdin=subprocess.DEVNULL)
    assert answer.returncode == 0, describe(answer)
    assert json.loads(answer.stdout)["client_id"] == "api-cli"
    admin = subprocess.run([AUTHFLOW_BIN, "request", resource + "/admin"], env=env, capture_output=True, text=True,
                           timeout=60, stdin=subprocess.DEVNULL)
    assert admin.returncode == 1, describe(admin)
    assert "the server answered HTTP 403" in admin.stderr


@pytest.mark.parametrize("args, env, message", [
    (["--back-channel-logout", "/logout"], {}, "--back-channel-logout /PATH and --logout-client-id ID go together"),
    (["--introspection-client-id", "api"], {"EXAMPLE_API_CLIENT_SECRET": ""},
     "introspection needs the API's client secret in EXAMPLE_API_CLIENT_SECRET"),
    (["--dpop-nonce", "soon"], {}, "--dpop-nonce takes a number of seconds"),
    (["--route", "admin"], {}, "--route takes NAME=SCOPE[,SCOPE]"),
])
def test_flag_mistakes_are_refused_before_the_api_starts(args, env, message):
    result = subprocess.run([EXAMPLE_API, "--issuer", "http://127.0.0.1:9", *args], env=dict(os.environ, **env),
                            capture_output=True, text=True, timeout=30, stdin=subprocess.DEVNULL)
    assert result.returncode == 1 and result.stdout == ""
    assert result.stderr == f"example-api: {message}\n"
