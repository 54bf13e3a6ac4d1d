"""Many tools at once: twenty git credential helpers that all find the
profile signed out share one sign-in (one browser opens; the others wait on
the profile's sign-in lock, then read the profile again and use its token),
and twenty that find the token expired get the same refreshed token."""

import json
import os
import subprocess

import pytest

from credential_fixtures import AUTHFLOW_BIN, CLI, browsers_opened, provider, token_accepted  # noqa: F401

pytestmark = pytest.mark.skipif(not AUTHFLOW_BIN, reason="AUTHFLOW_BIN is not set")
FILL = "protocol=https\nhost=forge.example.com\n\n"
HELPERS = 20


@pytest.fixture
def cli(provider, tmp_path):
    cli = CLI(tmp_path)
    cli.login(provider)
    return cli


def run_together(cli, count=HELPERS):
    processes = [subprocess.Popen([AUTHFLOW_BIN, "credential", "git", "--profile", "work", "get"], env=cli.env,
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
                 for _ in range(count)]
    results = []
    try:
        for process in processes:
            stdout, stderr = process.communicate(FILL, timeout=120)
            results.append((process.returncode, stdout, stderr))
    finally:
        for process in processes:
            if process.poll() is None:
                process.kill()
    return results


def passwords(results):
    found = set()
    for code, stdout, stderr in results:
        assert code == 0, stderr
        found.add(dict(line.split("=", 1) for line in stdout.splitlines())["password"])
    return found


def test_twenty_helpers_needing_a_sign_in_open_one_browser(cli, provider, tmp_path):
    cli.sign_out_locally()
    results = run_together(cli)
    tokens = passwords(results)
    assert len(tokens) == 1 and tokens == {cli.token()}
    assert browsers_opened(tmp_path) == 2  # the fixture's login, and one for all twenty helpers
    assert sum("Profile work needs a sign-in." in stderr for _, _, stderr in results) == 1
    assert token_accepted(provider, tokens.pop())


def test_twenty_helpers_with_an_expired_token_share_one_refresh(cli, provider, tmp_path):
    old = cli.token()
    cli.expire()
    tokens = passwords(run_together(cli))
    assert len(tokens) == 1 and old not in tokens
    stored = json.loads(cli.profile_path().read_text())["credentials"]["token"]["accessToken"]
    assert tokens == {stored} and token_accepted(provider, stored)
    assert browsers_opened(tmp_path) == 1


def test_logout_forget_removes_the_sign_in_lock_too(cli, tmp_path):
    cli.sign_out_locally()
    assert passwords(run_together(cli, 2))
    directory = cli.config / "authflow"
    assert (directory / "work.json.signin.lock").exists()
    forgot = cli.run("logout", "--profile", "work", "--forget", "--no-browser")
    assert forgot.returncode == 0, forgot.stderr
    assert not [name for name in os.listdir(directory) if name.startswith("work.")]
