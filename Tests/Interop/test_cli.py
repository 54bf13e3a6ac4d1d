"""End-to-end tests of the `authflow` CLI against the interop servers.

Environment:
    AUTHFLOW_BIN              path to the built `authflow` executable (required;
                              the module is skipped when unset)
    AUTHFLOW_INTEROP_CONFIG   config written by `servers.py start` (optional:
                              without it conftest.py starts the servers itself)

Every test gets its own XDG_CONFIG_HOME; $BROWSER is the config's browser.py
command line, which signs in and approves in headless Chromium.

The CLI contract these tests hold it to:
    exit 0 ok, 1 other failure, 2 usage, 3 OAuth error response,
    4 security check failed, 5 network failure / timeout,
    6 not signed in / sign in again (reauthentication_required);
    `--json` success: one object with profile, issuer, subject, scope,
    expires_at, token_type, has_refresh_token, id_token_claims (raw tokens only
    with --show-tokens); `--json` failure: {"error": {category, reason,
    oauth_error, description}}.
"""

import base64
import datetime
import json
import os
import stat
import subprocess
import time

import pytest
import requests

from interop_helpers import form_urlencode

AUTHFLOW_BIN = os.environ.get("AUTHFLOW_BIN")
CALL_TIMEOUT = 120
TOKEN_KEYS = ("access_token", "refresh_token", "id_token")
SUCCESS_KEYS = ("profile", "issuer", "subject", "scope", "expires_at", "token_type",
                "has_refresh_token", "id_token_claims")
CATEGORIES = {"oauth_error", "state_mismatch", "issuer_mismatch", "id_token_invalid",
              "invalid_response", "configuration", "network", "timeout", "cancelled",
              "reauthentication_required", "storage"}

pytestmark = pytest.mark.skipif(not AUTHFLOW_BIN, reason="AUTHFLOW_BIN is not set")


# --------------------------------------------------------------------------- helpers

class CLI:
    def __init__(self, config, xdg):
        self.config = config
        self.xdg = str(xdg)

    def env(self, extra=None):
        env = dict(os.environ)
        for name in ("INTEROP_BROWSER_ACTION", "INTEROP_USERNAME", "INTEROP_PASSWORD"):
            env.pop(name, None)
        env["XDG_CONFIG_HOME"] = self.xdg
        env["BROWSER"] = self.config["browser"]
        env.update(extra or {})
        return env

    def run(self, *args, env=None, timeout=CALL_TIMEOUT):
        if not os.access(AUTHFLOW_BIN, os.X_OK):
            pytest.fail(f"AUTHFLOW_BIN={AUTHFLOW_BIN} is not an executable file")
        try:
            return subprocess.run(
                [AUTHFLOW_BIN, *args], env=self.env(env), capture_output=True, text=True,
                timeout=timeout, stdin=subprocess.DEVNULL,
            )
        except subprocess.TimeoutExpired as e:
            pytest.fail(f"authflow {' '.join(args[:1])} did not finish within {timeout} s; "
                        f"stderr so far:\n{(e.stderr or b'')[-2000:]!r}")

    def login(self, server, *args, client="public", profile="p", env=None):
        cmd = ["login", "--issuer", server["issuer"], "--profile", profile]
        if client == "public":
            cmd += ["--client-id", server["public_client_id"]]
        cmd += list(args)
        return self.run(*cmd, env=env)

    def profile_path(self, profile="p"):
        return os.path.join(self.xdg, "authflow", f"{profile}.json")


@pytest.fixture
def cli(interop_config, tmp_path):
    xdg = tmp_path / "xdg"
    xdg.mkdir()
    return CLI(interop_config, xdg)


def describe(proc):
    return f"exit {proc.returncode}\n--- stdout ---\n{proc.stdout}\n--- stderr ---\n{proc.stderr[-4000:]}"


def json_out(proc):
    try:
        value = json.loads(proc.stdout)
    except ValueError:
        pytest.fail(f"stdout is not one JSON value:\n{describe(proc)}")
    assert isinstance(value, dict), describe(proc)
    return value


def assert_success(proc):
    assert proc.returncode == 0, describe(proc)
    out = json_out(proc)
    for key in SUCCESS_KEYS:
        assert key in out, f"missing {key!r} in {sorted(out)}"
    return out


def assert_failure(proc, code, category, oauth_error=None):
    assert proc.returncode == code, describe(proc)
    out = json_out(proc)
    assert set(out) == {"error"}, out
    err = out["error"]
    for key in ("category", "reason", "oauth_error", "description"):
        assert key in err, f"missing error.{key}: {err}"
    assert err["category"] in CATEGORIES, err
    assert err["category"] == category, err
    if oauth_error is not None:
        assert err["oauth_error"] == oauth_error, err
    assert isinstance(err["description"], str) and err["description"], err
    return err


def parse_iso8601(value):
    text = value.replace("Z", "+00:00")
    parsed = datetime.datetime.fromisoformat(text)
    assert parsed.tzinfo is not None, f"expires_at without a time zone: {value}"
    return parsed


def check_login_output(out, server, profile="p"):
    assert out["profile"] == profile
    assert out["issuer"] == server["issuer"]
    assert isinstance(out["subject"], str) and out["subject"]
    assert isinstance(out["scope"], str) and "openid" in out["scope"].split()
    assert out["token_type"].lower() == "bearer"
    assert isinstance(out["has_refresh_token"], bool)
    if out["expires_at"] is not None:
        assert parse_iso8601(out["expires_at"]) > datetime.datetime.now(datetime.timezone.utc)
    claims = out["id_token_claims"]
    assert isinstance(claims, dict), out
    assert claims["sub"] == out["subject"]
    assert claims["iss"] == server["issuer"]
    for key in TOKEN_KEYS:
        assert key not in out, f"raw {key} printed without --show-tokens"


def userinfo_ok(server, access_token):
    doc = requests.get(server["discovery_url"], timeout=15).json()
    resp = requests.get(doc["userinfo_endpoint"], headers={"Authorization": f"Bearer {access_token}"}, timeout=15)
    return resp.status_code == 200, resp


# --------------------------------------------------------------------------- login

def test_public_login_token_status(cli, server):
    proc = cli.login(server, "--scope", "openid profile email", "--json")
    out = assert_success(proc)
    check_login_output(out, server)
    # The authorization URL is always printed on stderr.
    assert server["authorization_endpoint"] in proc.stderr, proc.stderr[-2000:]

    path = cli.profile_path()
    assert os.path.isfile(path), f"no profile file at {path}"
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600

    tok = cli.run("token", "--profile", "p")
    assert tok.returncode == 0, describe(tok)
    access_token = tok.stdout.strip()
    assert access_token and "\n" not in access_token
    assert access_token not in proc.stdout and access_token not in proc.stderr
    ok, resp = userinfo_ok(server, access_token)
    assert ok, f"the access token from `authflow token` is refused by userinfo: HTTP {resp.status_code}"
    assert resp.json()["sub"] == out["subject"]

    st = cli.run("status", "--profile", "p", "--json")
    assert st.returncode == 0, describe(st)
    status = json_out(st)
    for key in ("profile", "issuer", "subject", "scope", "expires_at", "expired", "has_refresh_token"):
        assert key in status, f"status --json lacks {key}"
    assert status["profile"] == "p"
    assert status["issuer"] == out["issuer"]
    assert status["subject"] == out["subject"]
    assert set(status["scope"].split()) == set(out["scope"].split())
    assert status["expires_at"] == out["expires_at"]
    assert status["expired"] is False
    assert status["has_refresh_token"] == out["has_refresh_token"]
    for key in TOKEN_KEYS:
        assert key not in status


def test_confidential_basic_login(cli, server):
    proc = cli.login(
        server, "--client-id", server["confidential_client_id"],
        "--client-secret", server["confidential_client_secret"], "--json",
        client="confidential",
    )
    check_login_output(assert_success(proc), server)


def test_confidential_basic_login_secret_from_env(cli, server):
    proc = cli.login(
        server, "--client-id", server["confidential_client_id"],
        "--client-secret-env", "INTEROP_TEST_SECRET", "--client-auth", "basic", "--json",
        client="confidential", env={"INTEROP_TEST_SECRET": server["confidential_client_secret"]},
    )
    check_login_output(assert_success(proc), server)


def test_confidential_post_login(cli, interop_config):
    server = interop_config["servers"]["authlib"]
    proc = cli.login(
        server, "--client-id", server["post_client_id"],
        "--client-secret-env", "INTEROP_TEST_SECRET", "--client-auth", "post", "--json",
        client="confidential", env={"INTEROP_TEST_SECRET": server["post_client_secret"]},
    )
    check_login_output(assert_success(proc), server)


def test_show_tokens_and_decode(cli, server):
    proc = cli.login(server, "--json", "--show-tokens")
    out = assert_success(proc)
    for key in ("access_token", "id_token"):
        assert isinstance(out.get(key), str) and out[key], f"--show-tokens lacks {key}"
    assert out["has_refresh_token"] == bool(out.get("refresh_token"))

    tok = cli.run("token", "--profile", "p")
    assert tok.returncode == 0, describe(tok)
    assert tok.stdout.strip() == out["access_token"]

    dec = cli.run("decode", out["id_token"])
    assert dec.returncode == 0, describe(dec)
    assert out["subject"] in dec.stdout
    assert server["issuer"] in dec.stdout


def test_verbose_login_does_not_leak_secrets(cli, server):
    client_id = server["confidential_client_id"]
    secret = server["confidential_client_secret"]
    proc = cli.login(
        server, "-v", "--json", "--show-tokens",
        "--client-id", client_id, "--client-secret-env", "INTEROP_TEST_SECRET",
        client="confidential", env={"INTEROP_TEST_SECRET": secret},
    )
    out = assert_success(proc)
    basic = base64.b64encode(f"{form_urlencode(client_id)}:{form_urlencode(secret)}".encode()).decode()
    forbidden = {
        "client secret": secret,
        "form-encoded client secret": form_urlencode(secret),
        "Basic credentials": basic,
    }
    for key in TOKEN_KEYS:
        if out.get(key):
            forbidden[key] = out[key]
    assert proc.stderr.strip(), "-v printed nothing on stderr"
    for what, value in forbidden.items():
        assert value not in proc.stderr, f"verbose stderr contains the {what}"


def test_wrong_client_secret_is_oauth_error(cli, server):
    proc = cli.login(
        server, "--client-id", server["confidential_client_id"],
        "--client-secret", "definitely-wrong", "--json", client="confidential",
    )
    assert_failure(proc, 3, "oauth_error", "invalid_client")
    assert not os.path.exists(cli.profile_path())


def test_explicit_endpoints_without_discovery(cli, server):
    proc = cli.run(
        "login",
        "--authorization-endpoint", server["authorization_endpoint"],
        "--token-endpoint", server["token_endpoint"],
        "--client-id", server["public_client_id"],
        "--scope", "read", "--profile", "p", "--json",
    )
    out = assert_success(proc)
    assert out["profile"] == "p"
    assert "read" in out["scope"].split()
    assert out["id_token_claims"] is None
    assert server["authorization_endpoint"] in proc.stderr
    tok = cli.run("token", "--profile", "p")
    assert tok.returncode == 0 and tok.stdout.strip(), describe(tok)


# --------------------------------------------------------------------------- other commands

def test_discover(cli, server):
    proc = cli.run("discover", server["issuer"], "--json")
    assert proc.returncode == 0, describe(proc)
    doc = json_out(proc)
    assert doc["issuer"] == server["issuer"]
    assert doc["authorization_endpoint"] == server["authorization_endpoint"]
    assert doc["token_endpoint"] == server["token_endpoint"]


def test_token_for_unknown_profile_fails(cli):
    proc = cli.run("token", "--profile", "does-not-exist")
    assert proc.returncode == 6, describe(proc)
    assert proc.stdout.strip() == ""
    assert "authflow login" in proc.stderr


# --------------------------------------------------------------------------- failures

def test_browser_timeout(cli, server):
    # A browser that opens nothing (--no-browser would take the device grant where the provider offers it).
    proc = cli.login(server, "--browser-timeout", "2", "--json", env={"BROWSER": "true"})
    assert_failure(proc, 5, "timeout")
    assert server["authorization_endpoint"] in proc.stderr


def test_reserved_param_is_usage_error(cli, server):
    proc = cli.login(server, "--param", "state=x", "--no-browser", "--browser-timeout", "2")
    assert proc.returncode == 2, describe(proc)


def test_missing_client_id_is_usage_error(cli, server):
    proc = cli.run("login", "--issuer", server["issuer"], "--no-browser", "--browser-timeout", "2")
    assert proc.returncode == 2, describe(proc)


def test_unreachable_issuer_login(cli):
    proc = cli.run("login", "--issuer", "http://127.0.0.1:1", "--client-id", "x",
                   "--no-browser", "--browser-timeout", "5", "--timeout", "10", "--json")
    assert_failure(proc, 5, "network")


def test_unreachable_issuer_discover(cli):
    proc = cli.run("discover", "http://127.0.0.1:1", "--json")
    assert_failure(proc, 5, "network")


def test_deny_is_access_denied(cli, interop_config):
    server = interop_config["servers"]["authlib"]
    if not server.get("supports_deny"):
        pytest.skip("server has no deny button")
    title_file = os.path.join(cli.xdg, "browser-title")
    proc = cli.login(server, "--json", env={"INTEROP_BROWSER_ACTION": "deny", "INTEROP_BROWSER_TITLE_FILE": title_file})
    assert_failure(proc, 3, "oauth_error", "access_denied")
    assert not os.path.exists(cli.profile_path())
    # Chromium was shown the listener's error page, not "Signed in" (the
    # browser may still be writing the title when the CLI has returned).
    deadline = time.monotonic() + 60
    while not os.path.exists(title_file) and time.monotonic() < deadline:
        time.sleep(0.2)
    with open(title_file, encoding="utf-8") as recorded:
        assert recorded.read() == "Sign-in failed"
    os.remove(title_file)
