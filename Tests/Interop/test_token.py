"""`authflow token`, the command scripts run most: a valid token is printed
as it is, without a request; an expired one is refreshed; a DPoP-bound one
is refused (whatever the case of its stored type); a profile that is not
private (mode, owner, symbolic link) is refused with the fix. `authflow` is
one file: a copy alone in a directory answers every command.

Profiles come from signing in against Django OAuth Toolkit (DOT), and, for a
DPoP-bound token, the embedded provider.
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
    """A copy of `authflow` alone in a directory: the whole install."""
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


def test_fresh_token_is_printed_without_a_request(cli, dot, tmp_path):
    first = login(cli, dot)
    requests_before = token_requests(dot)
    env = cli.env()
    copy = alone(tmp_path)
    for args in (["--profile", "p"], ["--profile=p"], ["--profile", "p", "--min-ttl", "60"], ["--min-ttl=0", "--profile", "p"],
                 ["--profile", "p", "--timeout", "5", "-v"], ["--verbose", "--timeout=0.5", "--profile=p"]):
        for binary in (AUTHFLOW_BIN, copy):
            assert outcome(run(binary, "token", *args, env=env)) == (0, (first["access_token"] + "\n").encode(), b""), args
    assert token_requests(dot) == requests_before, "no request for a valid token"


def test_default_profile(cli, dot, tmp_path):
    first = assert_success(cli.login(dot, "--scope", "openid profile", "--json", "--show-tokens", profile="default"))
    assert outcome(run(alone(tmp_path), "token", env=cli.env())) == (0, (first["access_token"] + "\n").encode(), b"")


def test_expired_token_is_refreshed(cli, dot, tmp_path):
    first = login(cli, dot)
    expire(cli)
    before = token_requests(dot)
    refreshed = run(AUTHFLOW_BIN, "token", "--profile", "p", env=cli.env())
    assert refreshed.returncode == 0, describe(refreshed)
    token = refreshed.stdout.decode().strip()
    assert token and token != first["access_token"]
    assert refreshed.stdout == (token + "\n").encode() and refreshed.stderr == b""
    assert token_requests(dot) == before + 1
    assert stored_token(cli)["accessToken"] == token

    # Fresh again: answered without a request.
    again = run(AUTHFLOW_BIN, "token", "--profile", "p", env=cli.env())
    assert outcome(again) == (0, (token + "\n").encode(), b"")
    assert token_requests(dot) == before + 1


def test_min_ttl_and_force_refresh(cli, dot):
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


def test_usage_version_help_and_errors(cli, dot, tmp_path):
    login(cli, dot)
    env = cli.env()
    copy = alone(tmp_path)
    version = run(copy, "--version", env=env)
    assert version.returncode == 0 and version.stdout.strip(), describe(version)
    for args in (["--help"], ["token", "--help"], ["help", "token"]):
        shown = run(copy, *args, env=env)
        assert shown.returncode == 0 and b"USAGE: authflow" in shown.stdout and b"authflow-core" not in shown.stdout, describe(shown)
    # `token` is parsed on a fast path of its own: help and completion-script
    # requests after it are answered exactly as the root answers them.
    for fast, root in ((["token", "-h"], ["help", "token"]), (["token", "--help"], ["help", "token"]),
                       (["token", "--generate-completion-script", "bash"], ["--generate-completion-script", "bash"])):
        a, b = run(copy, *fast, env=env), run(copy, *root, env=env)
        assert (a.returncode, a.stdout) == (b.returncode, b.stdout) and a.returncode == 0 and a.stdout, f"{fast}: {describe(a)}"
    for args in (["token", "--bogus"], ["token", "--min-ttl", "-1"], ["token", "--profile", "p", "--force", "--min-ttl", "5"],
                 ["token", "extra"], ["bogus"], ["token", "--timeout", "0"], ["token", "--min-ttl", "nan"]):
        usage = run(copy, *args, env=env)
        assert usage.returncode == 2 and usage.stdout == b"", f"{args}: {describe(usage)}"
    usage = run(copy, "token", "--bogus", env=env)
    assert b"Usage: authflow token" in usage.stderr and b"authflow-core" not in usage.stderr
    missing = run(copy, "token", "--profile", "nobody", env=env)
    assert missing.returncode == 6 and b"there is no profile nobody" in missing.stderr
    hidden = run(copy, "token", "--profile", ".hidden", env=env)
    assert hidden.returncode == 1 and b"profile names use letters" in hidden.stderr, describe(hidden)
    # The common forms (`token`, `token --profile NAME`) skip the parser; what
    # it validates (here the store named in the environment) is still usage.
    for args in (["token"], ["token", "--profile", "p"]):
        bad_store = run(copy, *args, env={**env, "AUTHFLOW_STORE": "bogus"})
        assert bad_store.returncode == 2 and bad_store.stdout == b"", f"{args}: {describe(bad_store)}"
        assert b"AUTHFLOW_STORE takes file, secret-service or a postgresql:// URL" in bad_store.stderr, describe(bad_store)


def private_token(cli, profile="p"):
    """The stored access token, read whatever the file's mode."""
    path = os.path.realpath(cli.profile_path(profile))
    mode = os.stat(path).st_mode & 0o7777
    os.chmod(path, 0o600)
    try:
        return stored_token(cli, profile)["accessToken"]
    finally:
        os.chmod(path, mode)


def refused(cli, profile="p"):
    """`authflow token` for a profile that is not private: exit 1, nothing on stdout, no token anywhere."""
    result = run(AUTHFLOW_BIN, "token", "--profile", profile, env=cli.env())
    assert result.returncode == 1 and result.stdout == b"", describe(result)
    assert private_token(cli, profile).encode() not in result.stderr
    return result.stderr.decode()


def test_a_profile_others_can_read_or_write_is_refused(cli, dot):
    login(cli, dot)
    path = cli.profile_path("p")
    os.chmod(path, 0o666)
    stderr = refused(cli)
    assert f"error: storage: {path} is accessible by other users (mode 666)" in stderr
    assert f"hint: Make it private: chmod 600 {path}" in stderr
    os.chmod(path, 0o600)
    assert run(AUTHFLOW_BIN, "token", "--profile", "p", env=cli.env()).returncode == 0


def test_a_directory_others_can_use_is_refused_and_repaired_by_login(cli, dot):
    login(cli, dot)
    directory = os.path.dirname(cli.profile_path("p"))
    os.chmod(directory, 0o777)
    stderr = refused(cli)
    assert f"error: storage: {directory} is accessible by other users (mode 777)" in stderr
    assert f"hint: Make it private: chmod 700 {directory}" in stderr
    # Saving a profile (a new sign-in) repairs the directory's mode.
    login(cli, dot)
    assert os.stat(directory).st_mode & 0o777 == 0o700
    assert run(AUTHFLOW_BIN, "token", "--profile", "p", env=cli.env()).returncode == 0


def test_a_symlinked_profile_is_refused(cli, dot, tmp_path):
    login(cli, dot)
    path = cli.profile_path("p")
    elsewhere = tmp_path / "elsewhere.json"
    shutil.move(path, elsewhere)
    os.symlink(elsewhere, path)
    for mode in (0o644, 0o600):
        os.chmod(elsewhere, mode)
        assert f"error: storage: {path} is a symbolic link, and profiles are not read through links" in refused(cli)


@pytest.mark.skipif(os.geteuid() != 0, reason="chown to another user needs root")
def test_a_profile_another_user_owns_is_refused(cli, dot):
    login(cli, dot)
    path = cli.profile_path("p")
    os.chown(path, 12345, 12345)
    assert f"error: storage: {path} belongs to another user (uid 12345), so it is not used" in refused(cli)
    os.chown(path, 0, 0)
    directory = os.path.dirname(path)
    os.chown(directory, 12345, 12345)
    assert f"error: storage: {directory} belongs to another user (uid 12345), so it is not used" in refused(cli)


DPOP_CONFIG = {
    "port": 0,
    "sign_in": "automatic",
    "automatic_user": "alice-1",
    "clients": [{"client_id": "cli-public", "redirect_uris": ["http://127.0.0.1/callback"],
                 "grant_types": ["authorization_code", "refresh_token"], "scope": "openid offline_access"}],
    "users": [{"sub": "alice-1", "username": "alice", "password": "pw", "claims": {"name": "Alice Example"}}],
}


def test_dpop_bound_token_is_refused_whatever_the_case_of_its_type(tmp_path):
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
        path = tmp_path / "config" / "authflow" / "default.json"
        for spelling in ("DPoP", "dpop", "DPOP"):
            with open(path, encoding="utf-8") as f:
                profile = json.load(f)
            profile["credentials"]["token"]["tokenType"] = spelling
            with open(path, "w", encoding="utf-8") as f:
                json.dump(profile, f)
            os.chmod(path, 0o600)
            result = run(AUTHFLOW_BIN, "token", env=env)
            assert result.returncode == 1 and result.stdout == b"", describe(result)
            assert b"DPoP-bound" in result.stderr and b"authflow request" in result.stderr, spelling
            assert profile["credentials"]["token"]["accessToken"].encode() not in result.stderr
    finally:
        process.send_signal(signal.SIGTERM)
        process.wait(timeout=10)


def test_a_refresh_that_cannot_be_saved_fails_instead_of_printing_a_token(tmp_path):
    """The profile directory made immutable: the refresh rotates the refresh
    token but cannot store it. `token` says so and prints nothing, rather than
    hand out a token whose rotated refresh token dies with the process."""
    from test_provider import start

    config = tmp_path / "provider.json"
    config.write_text(json.dumps(DPOP_CONFIG))
    process, issuer, _ = start(str(config))
    directory = tmp_path / "config" / "authflow"
    try:
        browser = f"{sys.executable} {os.path.join(os.path.dirname(os.path.abspath(__file__)), 'provider_fixtures', 'browser.py')}"
        env = dict(os.environ, XDG_CONFIG_HOME=str(tmp_path / "config"), HOME=str(tmp_path), BROWSER=browser)
        signed_in = run(AUTHFLOW_BIN, "login", "--issuer", issuer, "--client-id", "cli-public", "--scope", "openid offline_access",
                        "--browser-timeout", "20", "--json", env=env)
        assert signed_in.returncode == 0, describe(signed_in)
        with open(directory / "default.json", encoding="utf-8") as f:
            before = json.load(f)["credentials"]["token"]
        if subprocess.run(["chattr", "+i", str(directory)], capture_output=True).returncode != 0:
            pytest.skip("chattr +i is not supported on this file system")
        result = run(AUTHFLOW_BIN, "token", "--force", env=env)
        assert result.returncode == 1 and result.stdout == b"", describe(result)
        assert result.stderr.decode().startswith("error: storage: "), describe(result)
        assert before["refreshToken"].encode() not in result.stderr
    finally:
        subprocess.run(["chattr", "-i", str(directory)], capture_output=True)
        process.send_signal(signal.SIGTERM)
        process.wait(timeout=10)
