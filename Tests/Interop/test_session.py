"""Sessions through the CLI against the interop servers: refresh once across
parallel `authflow token` processes (also on 5-second tokens), rotation-safe
storage under SIGKILL, reauthentication after a revoked grant or without a
refresh token (exit 6, settings kept, `authflow login` again without flags),
`token --min-ttl/--force`, and logout (`--forget`, end-session URL printing,
AWS Cognito's `unsupported_token_type`).

Both servers rotate refresh tokens. DOT also revokes the whole family when a
superseded refresh token is replayed outside its 120 s grace period.
"""

import datetime
import http.server
import json
import os
import random
import signal
import subprocess
import threading
import time
import urllib.parse

import pytest
import requests

from test_cli import AUTHFLOW_BIN, CLI, assert_success, describe  # noqa: F401  (cli fixture below)

pytestmark = pytest.mark.skipif(not AUTHFLOW_BIN, reason="AUTHFLOW_BIN is not set")

TOKEN_PATHS = {"dot": "POST /o/token/", "authlib": "POST /token"}


@pytest.fixture
def cli(interop_config, tmp_path):
    xdg = tmp_path / "xdg"
    xdg.mkdir()
    return CLI(interop_config, xdg)


def token_requests(server, name):
    """How many token-endpoint POSTs the server has logged so far."""
    with open(server["log"], encoding="utf-8", errors="replace") as f:
        return f.read().count(TOKEN_PATHS[name])


def wait_for_log(server, name, expected, timeout=5.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        count = token_requests(server, name)
        if count >= expected:
            return count
        time.sleep(0.1)
    return token_requests(server, name)


def expire_profile(cli, profile="p"):
    """Marks the stored access token as expired, as time would."""
    path = cli.profile_path(profile)
    with open(path, encoding="utf-8") as f:
        data = json.load(f)
    data["credentials"]["token"]["expiresAt"] = "2000-01-01T00:00:00Z"
    with open(path, "w", encoding="utf-8") as f:
        json.dump(data, f)
    os.chmod(path, 0o600)
    return data


def write_profile(cli, data, profile="p"):
    path = cli.profile_path(profile)
    with open(path, "w", encoding="utf-8") as f:
        json.dump(data, f)
    os.chmod(path, 0o600)


def stored(cli, profile="p"):
    with open(cli.profile_path(profile), encoding="utf-8") as f:
        return json.load(f)


def login(cli, server, scope="openid profile"):
    out = assert_success(cli.login(server, "--scope", scope, "--json", "--show-tokens"))
    assert out["has_refresh_token"], "the server issued no refresh token"
    return out


def start_token(cli, *args):
    return subprocess.Popen([AUTHFLOW_BIN, "token", "--profile", "p", *args], env=cli.env(), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, stdin=subprocess.DEVNULL)


def test_twenty_parallel_token_processes_refresh_once(cli, server, server_name):
    first = login(cli, server)
    expire_profile(cli)
    before = wait_for_log(server, server_name, 0)

    processes = [start_token(cli) for _ in range(20)]
    results = []
    for process in processes:
        out, err = process.communicate(timeout=120)
        results.append((process.returncode, out, err))
    for code, out, err in results:
        assert code == 0, f"exit {code}: {err[-2000:]}"
    tokens = {out.strip() for _, out, _ in results}
    assert len(tokens) == 1, "all processes print the same token"
    token = tokens.pop()
    assert token and token != first["access_token"]
    for _, out, _ in results:
        assert out == token + "\n", "stdout holds nothing but the token"

    after = wait_for_log(server, server_name, before + 1)
    assert after - before == 1, f"the server saw {after - before} token requests, expected one refresh"

    profile = stored(cli)
    assert profile["credentials"]["token"]["accessToken"] == token
    assert profile["credentials"]["token"]["refreshToken"] != first["refresh_token"], "the rotated refresh token was stored"
    assert oct(os.stat(cli.profile_path()).st_mode & 0o777) == "0o600"

    # The session still works: the stored token is fresh (no new refresh) and accepted.
    again = cli.run("token", "--profile", "p")
    assert again.returncode == 0 and again.stdout.strip() == token, describe(again)
    info = cli.run("userinfo", "--profile", "p", "--json")
    assert info.returncode == 0, describe(info)
    assert json.loads(info.stdout)["sub"] == first["subject"]
    assert token_requests(server, server_name) == after


def revoke_directly(server, server_name, refresh_token):
    """Revokes a refresh token at the server (RFC 7009), outside AuthFlow.
    DOT serves /o/revoke_token/ without publishing it in its metadata."""
    endpoint = server.get("revocation_endpoint") or server["issuer"] + "/revoke_token/"
    response = requests.post(endpoint, data={"token": refresh_token, "token_type_hint": "refresh_token",
                                             "client_id": server["public_client_id"]}, timeout=10)
    assert response.status_code == 200, response.text


def test_logout_revokes_and_keeps_the_settings(cli, server, server_name):
    first = login(cli, server)
    saved = stored(cli)
    out = cli.run("logout", "--profile", "p", "--no-browser")
    assert out.returncode == 0, describe(out)
    assert out.stdout == ""
    after = stored(cli)
    assert after.get("credentials") is None, "logout forgets the credentials"
    assert after["metadata"] == saved["metadata"] and after["client_id"] == saved["client_id"], "the settings stay"
    for secret in (first["access_token"], first["refresh_token"], first["id_token"]):
        assert secret not in out.stderr
    token = cli.run("token", "--profile", "p")
    assert token.returncode == 6, describe(token)
    assert "not signed in" in token.stderr and "authflow login" in token.stderr
    if saved["metadata"].get("revocationEndpoint"):
        assert "revoked" in out.stderr
        # Put the revoked tokens back, expired: refreshing must end the session.
        write_profile(cli, saved)
        expire_profile(cli)
        token = cli.run("token", "--profile", "p")
        assert token.returncode == 6, describe(token)
        assert "reauthentication_required" in token.stderr
        assert stored(cli).get("credentials") is None
    else:
        assert "no revocation endpoint" in out.stderr
    forget = cli.run("logout", "--profile", "p", "--forget")
    assert forget.returncode == 0, describe(forget)
    assert not os.path.exists(cli.profile_path()), "--forget deletes the whole profile"


def test_refused_refresh_token_requires_sign_in_again(cli, server, server_name):
    first = login(cli, server)
    settings = stored(cli)
    revoke_directly(server, server_name, first["refresh_token"])
    expire_profile(cli)
    token = cli.run("token", "--profile", "p")
    assert token.returncode == 6, describe(token)
    assert "reauthentication_required" in token.stderr
    assert "invalid_grant" in token.stderr
    assert token.stdout == ""
    assert first["refresh_token"] not in token.stderr
    kept = stored(cli)
    assert kept.get("credentials") is None, "a refused refresh token deletes the credentials"
    for key in ("metadata", "client_id", "client_auth", "scopes", "params", "port"):
        assert kept[key] == settings[key], f"the setting {key} stays"
    status = cli.run("status", "--profile", "p", "--json")
    assert status.returncode == 6
    assert json.loads(status.stdout)["error"]["category"] == "reauthentication_required"

    # Sign in again with the stored settings: no provider or client flags.
    again = cli.run("login", "--profile", "p", "--json")
    out = assert_success(again)
    assert out["subject"] == first["subject"]
    assert set(out["scope"].split()) == set(first["scope"].split())
    token = cli.run("token", "--profile", "p")
    assert token.returncode == 0 and token.stdout.strip(), describe(token)


def test_twenty_parallel_token_processes_on_a_five_second_token_refresh_once(cli, interop_config):
    """DOT issues 5-second access tokens for the `short` scope: shorter than
    the 60 s leeway. The leeway shrinks to half the lifetime, and every
    process that waited for the lock takes the token the first one got."""
    server = interop_config["servers"]["dot"]
    first = login(cli, server, scope="openid short")
    profile = stored(cli)
    assert profile["credentials"]["token"]["expiresIn"] == 5
    fresh = cli.run("token", "--profile", "p")
    assert fresh.returncode == 0 and fresh.stdout.strip() == first["access_token"], "a 5-second token is used at once"
    expiry = datetime.datetime.fromisoformat(profile["credentials"]["token"]["expiresAt"].replace("Z", "+00:00"))
    if expiry.tzinfo is None:  # stored in UTC
        expiry = expiry.replace(tzinfo=datetime.timezone.utc)
    # Wait until less than half its lifetime is left.
    while (expiry - datetime.datetime.now(datetime.timezone.utc)).total_seconds() > 2.0:
        time.sleep(0.1)
    before = wait_for_log(server, "dot", 0)
    processes = [start_token(cli) for _ in range(20)]
    outputs = [p.communicate(timeout=120) for p in processes]
    results = [(p.returncode, out, err) for p, (out, err) in zip(processes, outputs)]
    for code, out, err in results:
        assert code == 0, f"exit {code}: {err[-2000:]}"
    tokens = {out.strip() for _, out, _ in results}
    assert len(tokens) == 1, "all processes print the same token"
    assert tokens.pop() != first["access_token"]
    time.sleep(0.5)
    after = token_requests(server, "dot")
    assert after - before == 1, f"the server saw {after - before} token requests, expected one refresh"


def test_token_min_ttl_and_force(cli, server, server_name):
    first = login(cli, server)
    before = wait_for_log(server, server_name, 0)
    same = cli.run("token", "--profile", "p", "--min-ttl", "60")
    assert same.returncode == 0 and same.stdout.strip() == first["access_token"], describe(same)
    longer = cli.run("token", "--profile", "p", "--min-ttl", "7200")
    assert longer.returncode == 0, describe(longer)
    refreshed = longer.stdout.strip()
    assert refreshed and refreshed != first["access_token"], "--min-ttl beyond the lifetime refreshes"
    forced = cli.run("token", "--profile", "p", "--force")
    assert forced.returncode == 0, describe(forced)
    assert forced.stdout.strip() not in ("", refreshed), "--force refreshes"
    assert wait_for_log(server, server_name, before + 2) - before == 2
    usage = cli.run("token", "--profile", "p", "--min-ttl", "-1")
    assert usage.returncode == 2


def test_no_refresh_token_says_how_to_get_one(cli, interop_config):
    server = interop_config["servers"]["dot"]
    login(cli, server)
    data = stored(cli)
    data["credentials"]["token"]["refreshToken"] = None
    write_profile(cli, data)
    expire_profile(cli)
    before = wait_for_log(server, "dot", 0)
    token = cli.run("token", "--profile", "p")
    assert token.returncode == 6, describe(token)
    assert "issued no refresh token" in token.stderr
    assert "offline_access" in token.stderr
    assert "--param access_type=offline --param prompt=consent" in token.stderr
    time.sleep(0.3)
    assert token_requests(server, "dot") == before, "nothing was sent"
    kept = stored(cli)
    assert kept.get("credentials") is None and kept["metadata"] == data["metadata"], "the settings stay"


class StubRevocation:
    """A revocation and end-session endpoint on loopback that answers like
    AWS Cognito: refresh tokens are revoked, access tokens get 400
    `unsupported_token_type` (RFC 7009 §2.2.1; Cognito's RevokeToken
    revokes refresh tokens only)."""

    def __init__(self):
        self.requests = []
        outer = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self):
                length = int(self.headers.get("Content-Length") or 0)
                form = dict(urllib.parse.parse_qsl(self.rfile.read(length).decode()))
                outer.requests.append(form)
                if form.get("token_type_hint") == "access_token":
                    body = b'{"error":"unsupported_token_type"}'
                    self.send_response(400)
                else:
                    body = b""
                    self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.base = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def close(self):
        self.httpd.shutdown()


@pytest.fixture
def cognito_like():
    stub = StubRevocation()
    yield stub
    stub.close()


def test_logout_with_unsupported_token_type_and_end_session_url(cli, interop_config, cognito_like):
    server = interop_config["servers"]["dot"]
    first = login(cli, server)
    data = stored(cli)
    data["metadata"]["revocationEndpoint"] = cognito_like.base + "/revoke"
    data["metadata"]["endSessionEndpoint"] = cognito_like.base + "/logout"
    write_profile(cli, data)

    # The browser command `true` exits without loading the listener's one-time
    # page: the end-session URL is printed (without the ID token) for the user
    # to open, and the logout does not wait for a confirmation.
    opened = cli.run("logout", "--profile", "p", "--browser-timeout", "1", env={"BROWSER": "true"})
    assert opened.returncode == 0, describe(opened)
    assert "The browser did not load the end-session page." in opened.stderr
    assert cognito_like.base + "/logout?" in opened.stderr and first["id_token"] not in opened.stderr
    assert [r.get("token_type_hint") for r in cognito_like.requests] == ["refresh_token", "access_token"]
    assert "revoked" in opened.stderr

    # --no-browser: printed, without the ID token.
    write_profile(cli, data)
    printed = cli.run("logout", "--profile", "p", "--no-browser")
    assert printed.returncode == 0, describe(printed)
    assert cognito_like.base + "/logout?" in printed.stderr
    assert "id_token_hint" not in printed.stderr and first["id_token"] not in printed.stderr

    # --show-tokens: the whole URL.
    write_profile(cli, data)
    shown = cli.run("logout", "--profile", "p", "--no-browser", "--show-tokens")
    assert shown.returncode == 0, describe(shown)
    assert "id_token_hint=" + first["id_token"] in shown.stderr


def test_sigkill_during_refresh_never_tears_or_loses_the_profile(cli, interop_config):
    """Kills `authflow token` at random points of a refresh, many times. The
    profile must always parse and hold either the set from before or the set
    from after a refresh; DOT's grace period lets a superseded refresh token be
    used once more, so the stored set stays usable either way.

    The scope is `read`, not `openid`: in its grace path DOT returns the
    already issued access token with a NEW ID token whose at_hash was computed
    over another access token, which AuthFlow rightly refuses (see
    test_dot_grace_period_id_token_is_refused)."""
    server = interop_config["servers"]["dot"]
    login(cli, server, scope="read")
    rng = random.Random(1234)
    seen_refresh_tokens = [stored(cli)["credentials"]["token"]["refreshToken"]]
    killed = 0
    for _ in range(30):
        expire_profile(cli)
        process = start_token(cli)
        time.sleep(rng.uniform(0.0, 0.25))
        if process.poll() is None:
            process.send_signal(signal.SIGKILL)
            killed += 1
        process.communicate(timeout=30)
        profile = stored(cli)  # parses: never torn
        refresh_token = profile["credentials"]["token"]["refreshToken"]
        assert refresh_token, "the refresh token is never lost"
        if refresh_token != seen_refresh_tokens[-1]:
            seen_refresh_tokens.append(refresh_token)
        leftovers = [n for n in os.listdir(os.path.dirname(cli.profile_path())) if n.endswith(".tmp")]
        assert len(leftovers) <= 1, leftovers  # at most the one a killed writer left behind
    assert killed > 0, "the test killed at least one refresh"
    expire_profile(cli)
    final = cli.run("token", "--profile", "p")
    assert final.returncode == 0, describe(final)
    assert final.stdout.strip()


def test_dot_grace_period_id_token_is_refused(cli, interop_config):
    """DOT's refresh-token grace path answers with the access token it issued
    before and an ID token whose at_hash does not match it: a real server
    producing a bad at_hash, which AuthFlow must refuse (exit 4, at_hash)."""
    server = interop_config["servers"]["dot"]
    first = login(cli, server)
    rotated = requests.post(server["token_endpoint"], data={
        "grant_type": "refresh_token", "refresh_token": first["refresh_token"],
        "client_id": server["public_client_id"]}, timeout=10)
    assert rotated.status_code == 200, rotated.text
    expire_profile(cli)  # the profile still holds the superseded refresh token
    token = cli.run("token", "--profile", "p")
    assert token.returncode == 4, describe(token)
    assert "id_token_invalid (at_hash)" in token.stderr
    assert token.stdout == ""


def test_device_profile_signs_in_again_without_flags(cli, interop_config):
    """A profile made with --device (DOT: the endpoint is given by flag, not
    discovered) signs in again with the device grant and that endpoint."""
    from test_device import device_login

    server = interop_config["servers"]["dot"]
    first = assert_success(device_login(cli, server, "--scope", "openid"))
    assert stored(cli)["device"] is True
    out = cli.run("logout", "--profile", "p", "--no-browser")
    assert out.returncode == 0, describe(out)
    again = cli.run("login", "--profile", "p", "--json")
    result = assert_success(again)
    assert result["subject"] == first["subject"]
    assert "and enter the code:" in again.stderr, "the device grant was used again"
