"""End-to-end tests of `authflow login --device` (RFC 8628) against the
interop servers, approved or denied in headless Chromium by browser.py.

Config keys used (written by the servers, collected by servers.py):
    device_client_id, device_authorization_endpoint, device_publishes_endpoint,
    device_issues_id_token; DOT: device_short_authorization_endpoint (codes
    live 3 s); Authlib: device_slow_client_id (slow_down below 3 s),
    device_short_client_id (expired_token after 2 s),
    device_confidential_client_id/_secret (client_secret_basic),
    device_polls_url (poll timestamps seen by the server).
"""

import os
import re
import shutil
import stat
import subprocess
import tempfile

import pytest
import requests

from test_cli import AUTHFLOW_BIN, CLI, assert_failure, assert_success, describe

pytestmark = pytest.mark.skipif(not AUTHFLOW_BIN, reason="AUTHFLOW_BIN is not set")

QR_BLOCKS = ("\u2588", "\u2580", "\u2584")


@pytest.fixture
def cli(interop_config, tmp_path):
    xdg = tmp_path / "xdg"
    xdg.mkdir()
    return CLI(interop_config, xdg)


def device_login(cli, server, *args, client_id=None, endpoint=None, env=None):
    cmd = ["login", "--device", "--issuer", server["issuer"], "--profile", "p",
           "--client-id", client_id or server["device_client_id"], "--json"]
    endpoint = endpoint or (None if server["device_publishes_endpoint"] else server["device_authorization_endpoint"])
    if endpoint:
        cmd += ["--device-authorization-endpoint", endpoint]
    return cli.run(*cmd, *args, env=env)


def user_code(proc):
    match = re.search(r"and enter the code:\s*\n\s*\n\s+(\S+)", proc.stderr)
    assert match, f"no user code on stderr:\n{describe(proc)}"
    return match.group(1)


def decode_terminal_qr(stderr):
    """Reads the half-block QR code on stderr back with zbarimg: each
    character is two modules, a drawn (light) half is white, the rest black,
    as a light-on-dark terminal shows it."""
    lines = [line for line in stderr.splitlines() if line and set(line) <= set(QR_BLOCKS + (" ",))]
    assert lines, "no QR code lines on stderr"
    width = max(len(line) for line in lines)
    rows = []
    for line in lines:
        line = line.ljust(width)
        rows.append([ch in ("\u2588", "\u2580") for ch in line])
        rows.append([ch in ("\u2588", "\u2584") for ch in line])
    # A black margin stands for the terminal background; the drawn quiet zone is inside it.
    scale, margin = 4, 4
    side_w, side_h = (width + 2 * margin) * scale, (len(rows) + 2 * margin) * scale
    pixels = bytearray(side_w * side_h)
    for y, row in enumerate(rows):
        for x, light in enumerate(row):
            if light:
                for dy in range(scale):
                    start = ((y + margin) * scale + dy) * side_w + (x + margin) * scale
                    pixels[start:start + scale] = b"\xff" * scale
    with tempfile.NamedTemporaryFile(suffix=".pgm", delete=False) as f:
        f.write(f"P5\n{side_w} {side_h}\n255\n".encode() + bytes(pixels))
        path = f.name
    try:
        result = subprocess.run(["zbarimg", "--raw", "-q", path], capture_output=True, text=True, timeout=30)
    finally:
        os.unlink(path)
    assert result.returncode == 0, "zbarimg cannot read the terminal QR code"
    return result.stdout.strip()


def test_device_login_approved(cli, server):
    proc = device_login(cli, server, "--scope", "openid profile")
    out = assert_success(proc)
    assert out["profile"] == "p"
    assert out["issuer"] == server["issuer"]
    assert out["token_type"].lower() == "bearer"
    assert "openid" in out["scope"].split()
    for key in ("access_token", "refresh_token", "id_token"):
        assert key not in out
    if server["device_issues_id_token"]:
        # Authlib: a verified ID token, without a nonce (there is none in this flow).
        assert out["subject"] and out["id_token_claims"]["sub"] == out["subject"]
        assert "nonce" not in out["id_token_claims"]
    else:
        # DOT's device grant is plain OAuth: no ID token even for openid.
        assert out["subject"] is None and out["id_token_claims"] is None

    # What the user is shown: the verification URI, the code, a QR code.
    code = user_code(proc)
    assert re.search(r"open this URL on any device:\s*\n\s*\n\s+http://127\.0\.0\.1:\d+/", proc.stderr), proc.stderr
    assert any(block in proc.stderr for block in QR_BLOCKS), "no QR code drawn"
    assert code not in proc.stdout
    if shutil.which("zbarimg"):
        link = re.search(r"Or scan this QR code \(it opens (\S+)\):", proc.stderr).group(1)
        assert code in link
        assert decode_terminal_qr(proc.stderr) == link

    path = cli.profile_path()
    assert os.path.isfile(path)
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    tok = cli.run("token", "--profile", "p")
    assert tok.returncode == 0 and tok.stdout.strip(), describe(tok)
    assert tok.stdout.strip() not in proc.stderr + proc.stdout


def test_device_login_denied(cli, server):
    proc = device_login(cli, server, "--no-qr", env={"INTEROP_BROWSER_ACTION": "deny"})
    assert_failure(proc, 3, "oauth_error", "access_denied")
    assert not os.path.exists(cli.profile_path())


def test_device_code_expired_dot_deadline(cli, interop_config):
    """DOT keeps answering authorization_pending after a code expired (it marks
    codes expired only on its verification page): the client's own expires_in
    deadline ends the wait."""
    server = interop_config["servers"]["dot"]
    proc = device_login(cli, server, "--no-browser", "--no-qr",
                        endpoint=server["device_short_authorization_endpoint"])
    err = assert_failure(proc, 5, "timeout")
    assert err["oauth_error"] is None
    assert not any(block in proc.stderr for block in QR_BLOCKS), "--no-qr still drew a QR code"
    assert not os.path.exists(cli.profile_path())


def test_device_code_expired_authlib_expired_token(cli, interop_config):
    server = interop_config["servers"]["authlib"]
    proc = device_login(cli, server, "--no-browser", client_id=server["device_short_client_id"])
    err = assert_failure(proc, 5, "timeout", "expired_token")
    assert err["category"] == "timeout"
    assert not os.path.exists(cli.profile_path())


def test_device_slow_down_widens_the_interval(cli, interop_config):
    """The slow client is told interval=1 but the server wants 3 s between
    polls: the first poll gets slow_down, the next one must come 1 + 5 s later."""
    server = interop_config["servers"]["authlib"]
    proc = device_login(cli, server, "--no-qr", client_id=server["device_slow_client_id"])
    assert_success(proc)
    polls = requests.get(server["device_polls_url"], params={"user_code": user_code(proc)}, timeout=15).json()["polls"]
    assert len(polls) >= 2, polls
    assert polls[0]["error"] == "slow_down", polls
    gap = polls[1]["t"] - polls[0]["t"]
    assert gap >= 5.9, f"poll after slow_down came {gap:.2f} s later, expected >= 6 s (1 s + 5 s)"
    assert polls[-1]["status"] == 200
    assert all(p["error"] in ("slow_down", "authorization_pending") for p in polls[:-1]), polls


def test_device_confidential_client_basic(cli, interop_config):
    """client_secret_basic at the device authorization and token endpoints,
    with + / = %41 in both id and secret (RFC 6749 §2.3.1 encoding)."""
    server = interop_config["servers"]["authlib"]
    proc = device_login(cli, server, "--no-qr", "--client-secret-env", "INTEROP_TEST_SECRET",
                        client_id=server["device_confidential_client_id"],
                        env={"INTEROP_TEST_SECRET": server["device_confidential_client_secret"]})
    out = assert_success(proc)
    assert out["subject"]
    assert server["device_confidential_client_secret"] not in proc.stderr + proc.stdout


def test_device_endpoint_required_when_not_published(cli, interop_config):
    server = interop_config["servers"]["dot"]
    proc = cli.run("login", "--device", "--issuer", server["issuer"], "--client-id", server["device_client_id"],
                   "--no-browser", "--json")
    assert_failure(proc, 1, "configuration")


def test_device_refuses_browser_only_flags(cli, interop_config):
    server = interop_config["servers"]["authlib"]
    proc = device_login(cli, server, "--no-browser", "--param", "prompt=login")
    assert proc.returncode == 2, describe(proc)


def test_device_with_explicit_endpoints_only(cli, interop_config):
    """No discovery: --token-endpoint and --device-authorization-endpoint are
    enough; the issuer is unknown, so an ID token's claims are not used."""
    server = interop_config["servers"]["authlib"]
    proc = cli.run("login", "--token-endpoint", server["token_endpoint"],
                   "--device-authorization-endpoint", server["device_authorization_endpoint"],
                   "--client-id", server["device_client_id"], "--scope", "openid read", "--no-qr",
                   "--profile", "p", "--json")
    out = assert_success(proc)
    assert out["issuer"] is None and out["subject"] is None and out["id_token_claims"] is None
    assert "read" in out["scope"].split()
