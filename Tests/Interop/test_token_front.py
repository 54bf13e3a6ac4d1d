"""The `authflow` front end: it answers `authflow token` for a valid token
itself, byte for byte as `authflow-core` would, and runs `authflow-core`
(installed beside it) for everything else.

AUTHFLOW_BIN is the front end; `authflow-core` is the file of that name in
the same directory. Profiles come from signing in against Django OAuth
Toolkit (DOT), and, for a DPoP-bound token, the embedded provider.
"""

import json
import os
import shutil
import signal
import subprocess
import sys

import pytest

from test_cli import AUTHFLOW_BIN, CLI, assert_success, describe

pytestmark = pytest.mark.skipif(not AUTHFLOW_BIN, reason="AUTHFLOW_BIN is not set")
CORE_BIN = os.path.join(os.path.dirname(AUTHFLOW_BIN or ""), "authflow-core")
TIMEOUT = 120


@pytest.fixture
def cli(interop_config, tmp_path):
    xdg = tmp_path / "xdg"
    xdg.mkdir()
    return CLI(interop_config, xdg)


@pytest.fixture
def dot(interop_config):
    return interop_config["servers"]["dot"]


def run(binary, *args, env=None):
    """Runs `binary` with bytes kept as they are (no text decoding)."""
    return subprocess.run([binary, *args], env=env, capture_output=True, timeout=TIMEOUT, stdin=subprocess.DEVNULL)


def outcome(proc):
    return proc.returncode, proc.stdout, proc.stderr


def alone(tmp_path):
    """A copy of the front end in a directory without `authflow-core`."""
    directory = tmp_path / "alone"
    directory.mkdir()
    copy = directory / "authflow"
    shutil.copy2(AUTHFLOW_BIN, copy)
    return str(copy)


def token_requests(server):
    with open(server["log"], encoding="utf-8", errors="replace") as f:
        return f.read().count("POST /o/token/")


def stored_token(cli, profile="p"):
    with open(cli.profile_path(profile), encoding="utf-8") as f:
        return json.load(f)["credentials"]["token"]


def expire(cli, profile="p"):
    path = cli.profile_path(profile)
    with open(path, encoding="utf-8") as f:
        data = json.load(f)
    data["credentials"]["token"]["expiresAt"] = "2000-01-01T00:00:00.000"
    with open(path, "w", encoding="utf-8") as f:
        json.dump(data, f)
    os.chmod(path, 0o600)


def login(cli, server):
    out = assert_success(cli.login(server, "--scope", "openid profile", "--json", "--show-tokens"))
    assert out["has_refresh_token"], "the server issued no refresh token"
    return out


@pytest.mark.skipif(not sys.platform.startswith("linux") or not shutil.which("ldd"), reason="ldd on Linux")
def test_front_end_maps_neither_foundation_nor_libcurl():
    assert os.access(CORE_BIN, os.X_OK), f"no {CORE_BIN} beside {AUTHFLOW_BIN}"
    libraries = subprocess.run(["ldd", AUTHFLOW_BIN], capture_output=True, text=True, check=True).stdout
    names = {line.split()[0] for line in libraries.splitlines() if line.strip()}
    for name in ("libFoundation.so", "libFoundationNetworking.so", "libFoundationInternationalization.so", "libcurl.so.4"):
        assert name not in names, f"{AUTHFLOW_BIN} links {name}:\n{libraries}"
    core = subprocess.run(["ldd", CORE_BIN], capture_output=True, text=True, check=True).stdout
    assert "libFoundationNetworking.so" in core, "the check above looks at the right names"


def test_fresh_token_is_printed_as_the_core_prints_it(cli, dot, tmp_path):
    first = login(cli, dot)
    requests_before = token_requests(dot)
    env = cli.env()
    front_alone = alone(tmp_path)
    for args in (["--profile", "p"], ["--profile=p"], ["--profile", "p", "--min-ttl", "60"], ["--min-ttl=0", "--profile", "p"],
                 ["--profile", "p", "--timeout", "5", "-v"], ["--verbose", "--timeout=0.5", "--profile=p"]):
        core = run(CORE_BIN, "token", *args, env=env)
        assert core.returncode == 0, describe(core)
        assert core.stdout == (first["access_token"] + "\n").encode() and core.stderr == b""
        assert outcome(run(AUTHFLOW_BIN, "token", *args, env=env)) == outcome(core), args
        # Without authflow-core beside it the front end still answers: it did not run the core.
        assert outcome(run(front_alone, "token", *args, env=env)) == outcome(core), args
    assert token_requests(dot) == requests_before, "no request for a valid token"


def test_default_profile(cli, dot, tmp_path):
    first = assert_success(cli.login(dot, "--scope", "openid profile", "--json", "--show-tokens", profile="default"))
    front = run(alone(tmp_path), "token", env=cli.env())
    assert outcome(front) == (0, (first["access_token"] + "\n").encode(), b"")
    assert outcome(front) == outcome(run(CORE_BIN, "token", env=cli.env()))


def test_expired_token_is_refreshed_by_the_core(cli, dot, tmp_path):
    first = login(cli, dot)
    expire(cli)
    # The front end alone cannot refresh: it says so and changes nothing.
    stranded = run(alone(tmp_path), "token", "--profile", "p", env=cli.env())
    assert stranded.returncode == 1 and stranded.stdout == b"", describe(stranded)
    assert stored_token(cli)["accessToken"] == first["access_token"]

    before = token_requests(dot)
    refreshed = run(AUTHFLOW_BIN, "token", "--profile", "p", env=cli.env())
    assert refreshed.returncode == 0, describe(refreshed)
    token = refreshed.stdout.decode().strip()
    assert token and token != first["access_token"]
    assert refreshed.stdout == (token + "\n").encode() and refreshed.stderr == b""
    assert token_requests(dot) == before + 1
    assert stored_token(cli)["accessToken"] == token

    # Fresh again: answered without a request, the same bytes as the core.
    again = run(AUTHFLOW_BIN, "token", "--profile", "p", env=cli.env())
    assert outcome(again) == (0, (token + "\n").encode(), b"")
    assert token_requests(dot) == before + 1


def test_min_ttl_and_force_go_to_the_core(cli, dot):
    first = login(cli, dot)
    before = token_requests(dot)
    longer = run(AUTHFLOW_BIN, "token", "--profile", "p", "--min-ttl", "999999", env=cli.env())
    assert longer.returncode == 0, describe(longer)
    second = longer.stdout.decode().strip()
    assert second and second != first["access_token"]
    forced = run(AUTHFLOW_BIN, "token", "--profile=p", "--force", env=cli.env())
    assert forced.returncode == 0, describe(forced)
    assert forced.stdout.decode().strip() not in ("", second)
    assert token_requests(dot) == before + 2


def test_usage_version_help_and_errors_come_from_the_core(cli, dot):
    login(cli, dot)
    env = cli.env()
    version = run(AUTHFLOW_BIN, "--version", env=env)
    assert version.returncode == 0 and version.stdout.strip(), describe(version)
    for args in (["--version"], ["--help"], ["token", "--help"], ["help", "token"], ["token", "--bogus"],
                 ["token", "--min-ttl", "-1"], ["token", "--profile", "p", "--force", "--min-ttl", "5"],
                 ["token", "--profile", "nobody"], ["token", "--profile", ".hidden"], ["token", "extra"], ["bogus"], [],
                 ["token", "--timeout", "0"], ["token", "--min-ttl", "nan"], ["token", "--profile", "p", "--profile", "p"]):
        front, core = run(AUTHFLOW_BIN, *args, env=env), run(CORE_BIN, *args, env=env)
        assert outcome(front) == outcome(core), f"{args}\nfront: {describe(front)}\ncore: {describe(core)}"
    help_text = run(AUTHFLOW_BIN, "--help", env=env).stdout.decode()
    assert "USAGE: authflow <subcommand>" in help_text and "authflow-core" not in help_text
    usage = run(AUTHFLOW_BIN, "token", "--bogus", env=env)
    assert usage.returncode == 2 and b"Usage: authflow token" in usage.stderr and b"authflow-core" not in usage.stderr
    missing = run(AUTHFLOW_BIN, "token", "--profile", "nobody", env=env)
    assert missing.returncode == 6 and b"there is no profile nobody" in missing.stderr


def test_missing_core_is_a_clear_error(tmp_path):
    front = alone(tmp_path)
    expected = os.path.join(os.path.dirname(front), "authflow-core")
    for args in (["--version"], ["login", "--issuer", "https://id.example", "--client-id", "x"], ["token", "--force"]):
        result = run(front, *args, env={"PATH": os.environ.get("PATH", ""), "XDG_CONFIG_HOME": str(tmp_path)})
        assert result.returncode == 1 and result.stdout == b"", describe(result)
        lines = result.stderr.decode().splitlines()
        assert len(lines) == 1, lines
        assert lines[0].startswith("error: cannot run " + expected + " (No such file or directory)"), lines[0]
        assert "install both" in lines[0]


def test_a_symlink_to_the_front_end_finds_the_core(tmp_path):
    link = tmp_path / "bin" / "authflow"
    link.parent.mkdir()
    link.symlink_to(AUTHFLOW_BIN)
    result = run(str(link), "--version")
    assert outcome(result) == outcome(run(CORE_BIN, "--version"))
    assert result.returncode == 0


DPOP_CONFIG = {
    "port": 0,
    "sign_in": "automatic",
    "automatic_user": "alice-1",
    "clients": [{"client_id": "cli-public", "redirect_uris": ["http://127.0.0.1/callback"],
                 "grant_types": ["authorization_code", "refresh_token"], "scope": "openid offline_access"}],
    "users": [{"sub": "alice-1", "username": "alice", "password": "pw", "claims": {"name": "Alice Example"}}],
}


def test_dpop_bound_token_is_refused_by_the_core(tmp_path):
    from test_provider import start

    config = tmp_path / "provider.json"
    config.write_text(json.dumps(DPOP_CONFIG))
    process, issuer, _ = start(str(config))
    try:
        browser = f"{sys.executable} {os.path.join(os.path.dirname(os.path.abspath(__file__)), 'provider_fixtures', 'browser.py')}"
        env = dict(os.environ, XDG_CONFIG_HOME=str(tmp_path / "config"), HOME=str(tmp_path), BROWSER=browser)
        signed_in = run(AUTHFLOW_BIN, "login", "--issuer", issuer, "--client-id", "cli-public", "--scope", "openid offline_access",
                        "--browser-timeout", "20", "--json", "--dpop", env=env)
        assert signed_in.returncode == 0, describe(signed_in)
        with open(tmp_path / "config" / "authflow" / "default.json", encoding="utf-8") as f:
            assert json.load(f)["credentials"]["token"]["tokenType"] == "DPoP"
        front, core = run(AUTHFLOW_BIN, "token", env=env), run(CORE_BIN, "token", env=env)
        assert outcome(front) == outcome(core)
        assert front.returncode == 1 and front.stdout == b""
        assert b"DPoP-bound" in front.stderr and b"authflow request" in front.stderr
    finally:
        process.send_signal(signal.SIGTERM)
        process.wait(timeout=10)
