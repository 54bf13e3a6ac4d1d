"""The CLI's sender flags against the embedded provider: private_key_jwt
(`login --private-key/--key-id`), PAR (`login --par`, and a client that
requires it), DPoP (`login --dpop`, `token` refused, `request`; `login --device
--dpop`), and `request` with a bearer profile.

`authflow provider serve --config FILE` runs as a subprocess (binary from
AUTHFLOW_BIN; the module is skipped when unset) with automatic sign-in; the
$BROWSER is provider_fixtures/browser.py, which follows the provider's
redirect to the CLI's loopback listener. No interop servers, no Chromium.
"""

import json
import os
import signal
import subprocess
import sys
import urllib.request
from urllib.parse import parse_qs, urlencode, urlsplit

import pytest
from joserfc.jwk import ECKey, RSAKey

from test_provider import start

AUTHFLOW_BIN = os.environ.get("AUTHFLOW_BIN")
pytestmark = pytest.mark.skipif(not AUTHFLOW_BIN, reason="AUTHFLOW_BIN is not set")
BROWSER = f"{sys.executable} {os.path.join(os.path.dirname(os.path.abspath(__file__)), 'provider_fixtures', 'browser.py')}"
TIMEOUT = 60

EC_KEY = ECKey.generate_key("P-256", private=True)
RSA_KEY = RSAKey.generate_key(2048, private=True)
CALLBACK = ["http://127.0.0.1/callback"]
GRANTS = ["authorization_code", "refresh_token"]
SCOPE = "openid profile email offline_access"


def public_jwk(key, kid):
    return {**key.as_dict(private=False), "kid": kid}


CONFIG = {
    "port": 0,
    "sign_in": "automatic",
    "automatic_user": "alice-1",
    "clients": [
        {"client_id": "cli-public", "redirect_uris": CALLBACK, "grant_types": GRANTS, "scope": SCOPE},
        {"client_id": "cli-jwt", "token_endpoint_auth_method": "private_key_jwt", "redirect_uris": CALLBACK,
         "grant_types": GRANTS, "scope": SCOPE,
         "jwks": {"keys": [public_jwk(EC_KEY, "ec-1"), public_jwk(RSA_KEY, "rsa-1")]}},
        {"client_id": "cli-par", "redirect_uris": CALLBACK, "grant_types": GRANTS, "scope": SCOPE,
         "require_pushed_authorization_requests": True},
        {"client_id": "cli-device", "grant_types": ["urn:ietf:params:oauth:grant-type:device_code", "refresh_token"],
         "scope": SCOPE},
    ],
    "users": [{"sub": "alice-1", "username": "alice", "password": "pw",
               "claims": {"name": "Alice Example", "email": "alice@example.com", "email_verified": True}}],
}


@pytest.fixture(scope="module")
def provider(tmp_path_factory):
    path = tmp_path_factory.mktemp("provider") / "provider.json"
    path.write_text(json.dumps(CONFIG))
    process, issuer, lines = start(str(path))
    yield {"issuer": issuer, "lines": lines, "userinfo": issuer + "/userinfo"}
    process.send_signal(signal.SIGTERM)
    process.wait(timeout=10)


class CLI:
    def __init__(self, tmp_path):
        self.tmp_path = tmp_path
        self.env = dict(os.environ, XDG_CONFIG_HOME=str(tmp_path / "config"), HOME=str(tmp_path), BROWSER=BROWSER)

    def run(self, *args):
        return subprocess.run([AUTHFLOW_BIN, *args], env=self.env, capture_output=True, text=True, timeout=TIMEOUT,
                              stdin=subprocess.DEVNULL)

    def login(self, provider, client_id, *extra):
        return self.run("login", "--issuer", provider["issuer"], "--client-id", client_id, "--scope", SCOPE,
                        "--browser-timeout", "20", "--json", *extra)


def write_key(tmp_path, key, name):
    path = tmp_path / name
    path.write_bytes(key.as_pem(private=True))
    return str(path)


@pytest.mark.parametrize("key,kid", [(EC_KEY, "ec-1"), (RSA_KEY, "rsa-1")], ids=["EC", "RSA"])
def test_login_with_a_private_key_then_token(provider, tmp_path, key, kid):
    cli = CLI(tmp_path)
    result = cli.login(provider, "cli-jwt", "--private-key", write_key(tmp_path, key, "client.pem"), "--key-id", kid)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["subject"] == "alice-1"
    token = cli.run("token")
    assert token.returncode == 0, token.stderr
    assert token.stdout.strip()
    userinfo = cli.run("request", provider["userinfo"])
    assert userinfo.returncode == 0, userinfo.stderr
    assert json.loads(userinfo.stdout)["sub"] == "alice-1"


def test_the_token_endpoint_audience_is_refused_unless_the_provider_opts_in(provider, tmp_path_factory, tmp_path):
    """`--assertion-audience token-endpoint` (also spelt token_endpoint): the
    provider refuses such assertions by default and accepts them with
    `token_endpoint_assertion_audience: true` in its configuration file."""
    key = write_key(tmp_path, EC_KEY, "client.pem")
    refused = CLI(tmp_path / "a").login(provider, "cli-jwt", "--private-key", key, "--key-id", "ec-1",
                                        "--assertion-audience", "token-endpoint")
    assert refused.returncode == 3, refused.stderr
    assert json.loads(refused.stdout)["error"]["oauth_error"] == "invalid_client"
    path = tmp_path_factory.mktemp("compat") / "provider.json"
    path.write_text(json.dumps({**CONFIG, "token_endpoint_assertion_audience": True}))
    process, issuer, _ = start(str(path))
    try:
        for spelling in ("token-endpoint", "token_endpoint"):
            accepted = CLI(tmp_path / spelling).login({"issuer": issuer}, "cli-jwt", "--private-key", key, "--key-id", "ec-1",
                                                      "--assertion-audience", spelling)
            assert accepted.returncode == 0, accepted.stderr
    finally:
        process.send_signal(signal.SIGTERM)
        process.wait(timeout=10)


def test_login_with_a_key_the_client_did_not_register_is_refused(provider, tmp_path):
    cli = CLI(tmp_path)
    other = ECKey.generate_key("P-256", private=True)
    result = cli.login(provider, "cli-jwt", "--private-key", write_key(tmp_path, other, "other.pem"), "--key-id", "ec-1")
    assert result.returncode != 0
    assert "invalid_client" in result.stdout + result.stderr


@pytest.mark.parametrize("contents", [b"not a key\n", b""], ids=["garbage", "empty"])
def test_a_bad_key_file_fails_with_a_clear_message(provider, tmp_path, contents):
    path = tmp_path / "bad.pem"
    path.write_bytes(contents)
    result = CLI(tmp_path).login(provider, "cli-jwt", "--private-key", str(path), "--key-id", "ec-1")
    assert result.returncode in (1, 2), result.stdout + result.stderr
    message = result.stdout + result.stderr
    assert "key" in message.lower()
    assert "Traceback" not in message and "Fatal error" not in message


def test_a_missing_key_file_fails_with_a_clear_message(provider, tmp_path):
    result = CLI(tmp_path).login(provider, "cli-jwt", "--private-key", str(tmp_path / "absent.pem"), "--key-id", "ec-1")
    assert result.returncode in (1, 2), result.stdout + result.stderr
    assert "absent.pem" in result.stdout + result.stderr


def test_login_with_par(provider, tmp_path):
    cli = CLI(tmp_path)
    result = cli.login(provider, "cli-public", "--par")
    assert result.returncode == 0, result.stderr
    url = next(line for line in result.stderr.splitlines() if "/authorize?" in line)
    assert sorted(parse_qs(urlsplit(url).query)) == ["client_id", "request_uri"], url
    assert json.loads(result.stdout)["subject"] == "alice-1"
    assert cli.run("token").returncode == 0


def test_a_client_that_requires_par(provider, tmp_path):
    """The client's registration requires PAR (RFC 9126 §6), which the
    provider's metadata cannot say: with --par it signs in; without, the
    provider's refusal comes back as an OAuth error whose recovery says to
    use --par."""
    cli = CLI(tmp_path)
    result = cli.login(provider, "cli-par", "--par")
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["subject"] == "alice-1"

    plain = cli.login(provider, "cli-par")
    assert plain.returncode == 3, plain.stdout + plain.stderr
    error = json.loads(plain.stdout)["error"]
    assert error["category"] == "oauth_error" and error["oauth_error"] == "invalid_request"
    assert error["description"] == "this client must push its authorization requests (PAR, RFC 9126)"
    human = cli.run("login", "--issuer", provider["issuer"], "--client-id", "cli-par", "--scope", SCOPE, "--browser-timeout", "20")
    assert human.returncode == 3, human.stdout + human.stderr
    assert ("hint: The provider may require pushed authorization requests (RFC 9126) for this client: "
            "run authflow login again with --par.") in human.stderr.splitlines()


def test_login_with_dpop_then_token_is_refused_and_request_works(provider, tmp_path):
    cli = CLI(tmp_path)
    result = cli.login(provider, "cli-public", "--dpop")
    assert result.returncode == 0, result.stderr
    summary = json.loads(result.stdout)
    assert summary["subject"] == "alice-1"
    assert "warning" not in result.stderr

    token = cli.run("token")
    assert token.returncode == 1
    assert "authflow request" in token.stdout + token.stderr

    userinfo = cli.run("request", provider["userinfo"])
    assert userinfo.returncode == 0, userinfo.stderr
    assert json.loads(userinfo.stdout)["sub"] == "alice-1"

    posted = cli.run("request", "-X", "POST", provider["userinfo"])
    assert posted.returncode == 0, posted.stderr
    assert json.loads(posted.stdout)["sub"] == "alice-1"

    included = cli.run("request", "-i", provider["userinfo"])
    assert included.returncode == 0, included.stderr
    head, _, body = included.stdout.partition("\n\n")
    assert head.splitlines()[0].split()[1] == "200" if head.startswith("HTTP") else head.splitlines()[0].startswith("200")
    assert "content-type: application/json" in head.lower()
    assert json.loads(body)["sub"] == "alice-1"


def test_device_login_with_dpop_stores_a_bound_session(provider, tmp_path):
    cli = CLI(tmp_path)
    process = subprocess.Popen([AUTHFLOW_BIN, "login", "--device", "--dpop", "--no-qr", "--issuer", provider["issuer"],
                                "--client-id", "cli-device", "--scope", SCOPE, "--json"],
                               env=cli.env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True)
    try:
        code, seen = None, []
        for line in process.stderr:
            seen.append(line)
            if any("enter the code" in earlier for earlier in seen[:-1]) and line.strip():
                code = line.strip()
                break
        assert code, "".join(seen)
        approval = urllib.request.Request(provider["issuer"] + "/device", method="POST",
                                          data=urlencode({"user_code": code, "decision": "allow"}).encode())
        with urllib.request.urlopen(approval, timeout=10) as answer:
            assert answer.status == 200
        stdout, stderr = process.communicate(timeout=TIMEOUT)
    finally:
        if process.poll() is None:
            process.kill()
    assert process.returncode == 0, "".join(seen) + stderr
    assert json.loads(stdout)["subject"] == "alice-1"

    token = cli.run("token")
    assert token.returncode == 1
    assert "authflow request" in token.stdout + token.stderr
    userinfo = cli.run("request", provider["userinfo"])
    assert userinfo.returncode == 0, userinfo.stderr
    assert json.loads(userinfo.stdout)["sub"] == "alice-1"


def test_request_with_a_bearer_profile(provider, tmp_path):
    cli = CLI(tmp_path)
    assert cli.login(provider, "cli-public").returncode == 0
    userinfo = cli.run("request", provider["userinfo"])
    assert userinfo.returncode == 0, userinfo.stderr
    assert json.loads(userinfo.stdout)["sub"] == "alice-1"


def test_request_refuses_an_authorization_header(provider, tmp_path):
    cli = CLI(tmp_path)
    assert cli.login(provider, "cli-public", "--dpop").returncode == 0
    result = cli.run("request", "-H", "Authorization: Bearer x", provider["userinfo"])
    assert result.returncode == 2, result.stdout + result.stderr
    assert "Authorization" in result.stderr


def stored_profile(tmp_path, name="default"):
    with open(tmp_path / "config" / "authflow" / f"{name}.json", encoding="utf-8") as f:
        return json.load(f)


def sign_in_again(cli, *extra):
    return cli.run("login", "--browser-timeout", "20", "--json", *extra)


def authorization_url(result):
    return next(line for line in result.stderr.splitlines() if "/authorize?" in line)


def test_signing_in_again_keeps_dpop_with_a_new_key(provider, tmp_path):
    cli = CLI(tmp_path)
    assert cli.login(provider, "cli-public", "--dpop").returncode == 0
    first = stored_profile(tmp_path)
    assert first["dpop"] and first["credentials"]["token"]["tokenType"] == "DPoP" and first["dpop_key"]

    again = sign_in_again(cli)
    assert again.returncode == 0, again.stderr
    second = stored_profile(tmp_path)
    assert second["dpop"] and second["credentials"]["token"]["tokenType"] == "DPoP"
    assert second["dpop_key"] and second["dpop_key"] != first["dpop_key"], "a new sign-in binds to a new key"
    # The stored key is the one the new tokens are bound to: a request with a proof from it works.
    userinfo = cli.run("request", provider["userinfo"])
    assert userinfo.returncode == 0, userinfo.stderr
    assert json.loads(userinfo.stdout)["sub"] == "alice-1"


def test_dpop_given_when_signing_in_again_is_used(provider, tmp_path):
    cli = CLI(tmp_path)
    assert cli.login(provider, "cli-public").returncode == 0
    assert stored_profile(tmp_path)["credentials"]["token"]["tokenType"] == "Bearer"
    again = sign_in_again(cli, "--dpop")
    assert again.returncode == 0, again.stderr
    profile = stored_profile(tmp_path)
    assert profile["dpop"] and profile["dpop_key"] and profile["credentials"]["token"]["tokenType"] == "DPoP"


def test_logout_drops_the_dpop_key_and_keeps_the_setting(provider, tmp_path):
    cli = CLI(tmp_path)
    assert cli.login(provider, "cli-public", "--dpop").returncode == 0
    assert cli.run("logout", "--no-browser").returncode == 0
    profile = stored_profile(tmp_path)
    assert profile.get("credentials") is None and "dpop_key" not in profile and profile["dpop"]


def test_par_given_when_signing_in_again_is_used_and_kept(provider, tmp_path):
    cli = CLI(tmp_path)
    assert cli.login(provider, "cli-public").returncode == 0
    again = sign_in_again(cli, "--par")
    assert again.returncode == 0, again.stderr
    assert sorted(parse_qs(urlsplit(authorization_url(again)).query)) == ["client_id", "request_uri"]
    assert stored_profile(tmp_path)["par"]
    # Kept: the next sign-in without flags pushes its request too.
    third = sign_in_again(cli)
    assert third.returncode == 0, third.stderr
    assert sorted(parse_qs(urlsplit(authorization_url(third)).query)) == ["client_id", "request_uri"]


def test_a_client_that_requires_par_signs_in_again(provider, tmp_path):
    cli = CLI(tmp_path)
    assert cli.login(provider, "cli-par", "--par").returncode == 0
    again = sign_in_again(cli)
    assert again.returncode == 0, again.stdout + again.stderr
    assert json.loads(again.stdout)["subject"] == "alice-1"


@pytest.mark.parametrize("flag", [["--client-secret", "s"], ["--client-auth", "basic"], ["--private-key", "k.pem"],
                                  ["--jwks-uri", "https://id.example/jwks"]])
def test_signing_in_again_refuses_flags_that_change_the_client(provider, tmp_path, flag):
    cli = CLI(tmp_path)
    assert cli.login(provider, "cli-public").returncode == 0
    result = sign_in_again(cli, *flag)
    assert result.returncode == 2, result.stdout + result.stderr
    assert f"{flag[0]} changes the client or the provider" in result.stderr


def test_tenant_for_an_issuer_that_is_not_a_template_is_a_usage_error(provider, tmp_path):
    cli = CLI(tmp_path)
    result = cli.login(provider, "cli-public", "--tenant", "any")
    assert result.returncode == 2, result.stdout + result.stderr
    assert "--tenant applies only to a multi-tenant issuer" in result.stderr
    assert not (tmp_path / "config" / "authflow" / "default.json").exists()
    assert cli.login(provider, "cli-public").returncode == 0
    again = sign_in_again(cli, "--tenant", "organizations")
    assert again.returncode == 2, again.stdout + again.stderr
    assert "--tenant applies only to a multi-tenant issuer" in again.stderr
