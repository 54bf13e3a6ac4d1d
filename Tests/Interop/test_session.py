"""Sessions through the CLI against the interop servers: refresh once across
parallel `authflow token` processes, rotation-safe storage under SIGKILL,
reauthentication after a revoked grant, and logout.

Both servers rotate refresh tokens. DOT also revokes the whole family when a
superseded refresh token is replayed outside its 120 s grace period.
"""

import json
import os
import random
import signal
import subprocess
import time

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


def test_logout_revokes_and_deletes(cli, server, server_name):
    first = login(cli, server)
    saved = stored(cli)
    before = token_requests(server, server_name)
    out = cli.run("logout", "--profile", "p", "--no-browser")
    assert out.returncode == 0, describe(out)
    assert out.stdout == ""
    assert not os.path.exists(cli.profile_path()), "logout deletes the profile"
    for secret in (first["access_token"], first["refresh_token"], first["id_token"]):
        assert secret not in out.stderr
    if saved["metadata"].get("revocationEndpoint"):
        assert "revoked" in out.stderr
        # Put the revoked tokens back, expired: refreshing must end the session.
        with open(cli.profile_path(), "w", encoding="utf-8") as f:
            json.dump(saved, f)
        expire_profile(cli)
        token = cli.run("token", "--profile", "p")
        assert token.returncode == 6, describe(token)
        assert "reauthentication_required" in token.stderr
        assert not os.path.exists(cli.profile_path())
    else:
        assert "no revocation endpoint" in out.stderr
    assert token_requests(server, server_name) >= before


def test_refused_refresh_token_requires_sign_in_again(cli, server, server_name):
    first = login(cli, server)
    revoke_directly(server, server_name, first["refresh_token"])
    expire_profile(cli)
    token = cli.run("token", "--profile", "p")
    assert token.returncode == 6, describe(token)
    assert "reauthentication_required" in token.stderr
    assert token.stdout == ""
    assert not os.path.exists(cli.profile_path()), "a refused refresh token deletes the credentials"
    assert first["refresh_token"] not in token.stderr
    status = cli.run("status", "--profile", "p", "--json")
    assert status.returncode == 6
    assert json.loads(status.stdout)["error"]["category"] == "reauthentication_required"


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
