"""`authflow credential git` with the real git: `git credential fill`,
`approve` and `reject`, and `git ls-remote` against a forge stub on
127.0.0.1 that demands the token (forge_stub.py). Profiles sign in against
the embedded provider (credential_fixtures.py)."""

import datetime
import json
import os
import shlex
import subprocess

import pytest

from credential_fixtures import AUTHFLOW_BIN, CLI, browsers_opened, describe, provider, token_accepted  # noqa: F401
from forge_stub import COMMIT, Forge

pytestmark = pytest.mark.skipif(not AUTHFLOW_BIN, reason="AUTHFLOW_BIN is not set")
FILL = "protocol=https\nhost=forge.example.com\n\n"


@pytest.fixture
def cli(provider, tmp_path):
    cli = CLI(tmp_path)
    cli.login(provider)
    return cli


@pytest.fixture
def forge(provider):
    forge = Forge(provider["userinfo"])
    yield forge
    forge.stop()


def helper(*args):
    return f"!{shlex.quote(AUTHFLOW_BIN)} credential git {' '.join(args)}"


def git(cli, *args, helpers=(helper("--profile", "work"),), input=None, env=None):
    config = ["-c", "credential.helper="]
    for command in helpers:
        config += ["-c", f"credential.helper={command}"]
    environment = {**cli.env, "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull, "GIT_TERMINAL_PROMPT": "0",
                   **(env or {})}
    return subprocess.run(["git", *config, *args], env=environment, capture_output=True, text=True, timeout=60,
                          input=input if input is not None else "", cwd=cli.tmp_path)


def attributes(text):
    return dict(line.split("=", 1) for line in text.splitlines() if line)


def test_fill_answers_the_profiles_token(cli):
    token = cli.token()
    filled = git(cli, "credential", "fill", input=FILL)
    assert filled.returncode == 0, describe(filled)
    assert attributes(filled.stdout) == {"protocol": "https", "host": "forge.example.com", "username": "oauth2", "password": token}
    assert token not in filled.stderr


def test_the_helper_answers_username_password_and_expiry(cli):
    token = cli.token()
    expiry = json.loads(cli.run("status", "--profile", "work", "--json").stdout)["expires_at"]
    answer = cli.run("credential", "git", "--profile", "work", "get", input=FILL)
    assert answer.returncode == 0 and answer.stderr == "", describe(answer)
    lines = answer.stdout.splitlines()
    assert lines[:2] == ["username=oauth2", f"password={token}"] and len(lines) == 3
    assert lines[2].startswith("password_expiry_utc=")
    assert int(lines[2].split("=")[1]) == int(datetime.datetime.fromisoformat(expiry.replace("Z", "+00:00")).timestamp())


def test_ls_remote_picks_the_profile_by_url_and_sends_its_token(cli, forge):
    added = cli.run("credential", "hosts", "--profile", "work", "--add", forge.url, "--username", "alice")
    assert added.returncode == 0, describe(added)
    assert added.stdout == f"{forge.url}\twork\talice\n"
    listed = git(cli, "ls-remote", f"{forge.url}/team/repo.git", helpers=(helper(),))
    assert listed.returncode == 0, describe(listed)
    assert listed.stdout == f"{COMMIT}\tHEAD\n{COMMIT}\trefs/heads/main\n"
    assert forge.seen[-1] == ("alice", cli.token())


def test_a_refused_token_is_erased_and_the_next_get_refreshes(cli, forge, provider):
    assert cli.run("credential", "hosts", "--profile", "work", "--add", forge.url).returncode == 0
    old = cli.token()
    forge.refused.add(old)
    refused = git(cli, "ls-remote", f"{forge.url}/team/repo.git", helpers=(helper(),))
    assert refused.returncode != 0 and "Authentication failed" in refused.stderr, describe(refused)
    assert old not in refused.stdout + refused.stderr
    # git erased the refused token: the next use refreshes first.
    listed = git(cli, "ls-remote", f"{forge.url}/team/repo.git", helpers=(helper(),))
    assert listed.returncode == 0, describe(listed)
    new = forge.seen[-1][1]
    assert new != old and new == cli.token() and token_accepted(provider, new)


def test_approve_is_ignored_and_reject_only_erases_our_token(cli):
    before = cli.profile_path().read_bytes()
    token = cli.token()
    approved = git(cli, "credential", "approve", input=f"protocol=https\nhost=forge.example.com\nusername=x\npassword={token}\n\n")
    assert approved.returncode == 0, describe(approved)
    other = git(cli, "credential", "reject", input="protocol=https\nhost=forge.example.com\nusername=x\npassword=not-ours\n\n")
    assert other.returncode == 0, describe(other)
    assert cli.profile_path().read_bytes() == before
    rejected = git(cli, "credential", "reject", input=f"protocol=https\nhost=forge.example.com\nusername=oauth2\npassword={token}\n\n")
    assert rejected.returncode == 0, describe(rejected)
    assert json.loads(cli.profile_path().read_text())["credentials"]["token"]["accessToken"] == token
    filled = git(cli, "credential", "fill", input=FILL)
    assert filled.returncode == 0, describe(filled)
    assert attributes(filled.stdout)["password"] not in (token, "")


def test_a_url_the_profile_does_not_serve_goes_to_the_next_helper(cli):
    assert cli.run("credential", "hosts", "--profile", "work", "--add", "https://forge.example.com/team").returncode == 0
    fallback = "!f() { echo username=next; echo password=fallback; }; f"
    for request in ("protocol=https\nhost=other.example.com\n\n", "protocol=http\nhost=forge.example.com\n\n",
                    "protocol=https\nhost=forge.example.com\npath=elsewhere/repo.git\n\n"):
        filled = git(cli, "credential", "fill", helpers=(helper("--profile", "work"), fallback), input=request)
        assert filled.returncode == 0, describe(filled)
        assert attributes(filled.stdout)["password"] == "fallback", request
        direct = cli.run("credential", "git", "--profile", "work", "get", input=request)
        assert (direct.returncode, direct.stdout, direct.stderr) == (0, "", ""), request
    served = cli.run("credential", "git", "--profile", "work", "get",
                     input="protocol=https\nhost=forge.example.com\npath=team/repo.git\n\n")
    assert served.returncode == 0 and f"password={cli.token()}\n" in served.stdout, describe(served)
    # Without --profile and without a profile claiming the URL: no answer.
    unclaimed = cli.run("credential", "git", "get", input="protocol=https\nhost=nobody.example.com\n\n")
    assert (unclaimed.returncode, unclaimed.stdout) == (0, ""), describe(unclaimed)


def test_a_non_interactive_helper_says_at_once_that_it_cannot_sign_in(cli, tmp_path):
    cli.sign_out_locally()
    answer = cli.run("credential", "git", "--profile", "work", "get", input=FILL, env={"GIT_TERMINAL_PROMPT": "0"})
    assert answer.returncode == 6 and answer.stdout == "", describe(answer)
    assert ("error: reauthentication_required: profile work needs a sign-in, and this helper does not sign in without a user "
            "(GIT_TERMINAL_PROMPT=0)") in answer.stderr
    assert "hint: Sign in with authflow login --profile work, then try again." in answer.stderr
    assert browsers_opened(tmp_path) == 1  # the login of the fixture only


def test_a_signed_out_profile_signs_in_from_the_helper(cli, provider, tmp_path):
    cli.sign_out_locally()
    answer = cli.run("credential", "git", "--profile", "work", "get", input=FILL)
    assert answer.returncode == 0, describe(answer)
    token = cli.token()
    assert answer.stdout.startswith(f"username=oauth2\npassword={token}\npassword_expiry_utc=")
    assert "Profile work needs a sign-in." in answer.stderr and token not in answer.stderr
    assert browsers_opened(tmp_path) == 2 and token_accepted(provider, token)


@pytest.mark.parametrize("request_text, error", [
    ("protocol=https\nsecret-garbage\n\n", "error: git credential input: line 2 is not key=value"),
    ("protocol=https\nhost=a\0b\n\n", "error: git credential input: line 2 contains a NUL byte"),
    ("host=a\nhost=b\n\n", "error: git credential input: the attribute host is given twice"),
    ("protocol=https\npassword=" + "x" * 70000 + "\n\n", "error: git credential input: line 2 is longer than 65536 bytes"),
    ("a=" + "x" * (1 << 20) + "\n", "error: git credential input is larger than 1048576 bytes"),
])
def test_bad_input_is_refused_without_a_token(cli, request_text, error):
    token = cli.token()
    for operation in ("get", "erase", "store"):
        answer = cli.run("credential", "git", "--profile", "work", operation, input=request_text)
        assert answer.returncode == 2 and answer.stdout == "", describe(answer)
        assert answer.stderr.splitlines()[0] == error
        assert "secret-garbage" not in answer.stderr and token not in answer.stderr


def test_unknown_operations_are_ignored(cli):
    answer = cli.run("credential", "git", "--profile", "work", "capabilities", input=FILL)
    assert (answer.returncode, answer.stdout, answer.stderr) == (0, "", "")


def test_a_new_login_keeps_the_urls_the_profile_serves(cli, provider):
    assert cli.run("credential", "hosts", "--profile", "work", "--add", "https://forge.example.com", "--username", "me").returncode == 0
    cli.login(provider)
    listed = cli.run("credential", "hosts", "--json")
    assert json.loads(listed.stdout) == [{"url": "https://forge.example.com", "profile": "work", "username": "me"}]
    removed = cli.run("credential", "hosts", "--profile", "work", "--remove", "https://FORGE.example.com:443/")
    assert removed.returncode == 0 and removed.stdout == "", removed.stderr
    assert "credential_urls" not in json.loads(cli.profile_path().read_text())


def test_a_refused_refresh_after_erase_signs_in_again(cli, provider, tmp_path):
    token = cli.token()
    erased = cli.run("credential", "git", "--profile", "work", "erase",
                     input=f"protocol=https\nhost=forge.example.com\nusername=oauth2\npassword={token}\n\n")
    assert erased.returncode == 0, describe(erased)

    def revoke(data):
        data["credentials"]["token"]["refreshToken"] = "refused-by-the-provider"
    cli.edit_profile("work", revoke)
    answer = cli.run("credential", "git", "--profile", "work", "get", input=FILL)
    assert answer.returncode == 0, describe(answer)
    new = cli.token()
    assert new != token and f"password={new}\n" in answer.stdout and token_accepted(provider, new)
    assert "Profile work needs a sign-in." in answer.stderr and browsers_opened(tmp_path) == 2


def test_the_blank_line_ends_the_request_even_with_stdin_left_open(cli):
    process = subprocess.Popen([AUTHFLOW_BIN, "credential", "git", "--profile", "work", "get"], env=cli.env,
                               stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        process.stdin.write(FILL)
        process.stdin.flush()
        assert process.wait(timeout=30) == 0, process.stderr.read()
        assert f"password={cli.token()}\n" in process.stdout.read()
    finally:
        process.kill()
        process.stdin.close()


def test_hosts_refuses_plain_http_off_loopback_and_two_profiles_claiming_one_url(cli, provider):
    refused = cli.run("credential", "hosts", "--profile", "work", "--add", "http://forge.example.com")
    assert refused.returncode == 2 and "plain http is only for a loopback IP literal" in refused.stderr, describe(refused)
    cli.login(provider, "home")
    for profile in ("work", "home"):
        assert cli.run("credential", "hosts", "--profile", profile, "--add", "https://forge.example.com").returncode == 0
    tied = cli.run("credential", "git", "get", input=FILL)
    assert tied.returncode == 1 and tied.stdout == "", describe(tied)
    assert "profiles home and work both claim https://forge.example.com" in tied.stderr
    # A more specific URL wins over the host.
    assert cli.run("credential", "hosts", "--profile", "home", "--add", "https://forge.example.com/me").returncode == 0
    mine = cli.run("credential", "git", "get", input="protocol=https\nhost=forge.example.com\npath=me/repo.git\n\n")
    assert mine.returncode == 0 and f"password={cli.token('home')}\n" in mine.stdout, describe(mine)


@pytest.mark.parametrize("host", ["127.attacker.example", "127.0.0.1.nip.io", "localhost", "127.1", "0177.0.0.1",
                                  "[::ffff:127.0.0.1]"])
def test_a_host_name_that_looks_like_loopback_gets_no_token_over_plain_http(cli, host):
    """Loopback is an IP literal in 127.0.0.0/8 or ::1: a name is resolved by
    DNS and may be anywhere, so the token never goes to it over http."""
    answer = cli.run("credential", "git", "--profile", "work", "get", input=f"protocol=http\nhost={host}:8080\n\n")
    assert (answer.returncode, answer.stdout) == (0, ""), describe(answer)
    refused = cli.run("credential", "hosts", "--profile", "work", "--add", f"http://{host}:8080")
    assert refused.returncode == 2, describe(refused)
    assert "plain http is only for a loopback IP literal (127.0.0.0/8 or [::1]), not a host name" in refused.stderr


@pytest.mark.parametrize("host", ["127.0.0.1:8080", "127.9.8.7", "[::1]:8080"])
def test_a_loopback_ip_literal_gets_the_token_over_plain_http(cli, host):
    answer = cli.run("credential", "git", "--profile", "work", "get", input=f"protocol=http\nhost={host}\n\n")
    assert answer.returncode == 0 and f"password={cli.token()}\n" in answer.stdout, describe(answer)


@pytest.mark.parametrize("path", ["team/../other/repo.git", "team/%2e%2e/other/repo.git", "team/%2E%2E/other",
                                  "team/..%2Fother/repo.git", "team/..%5Cother", "team/x/../../other", "./team/../other"])
def test_a_path_pattern_does_not_serve_a_path_that_leaves_it(cli, path):
    """The profile serves https://forge.example.com/team only: a path that
    the server reads as outside team/ gets no token (the next helper answers)."""
    assert cli.run("credential", "hosts", "--profile", "work", "--add", "https://forge.example.com/team").returncode == 0
    request = f"protocol=https\nhost=forge.example.com\npath={path}\n\n"
    direct = cli.run("credential", "git", "--profile", "work", "get", input=request)
    assert (direct.returncode, direct.stdout) == (0, ""), (path, describe(direct))
    fallback = "!f() { echo username=next; echo password=fallback; }; f"
    filled = git(cli, "credential", "fill", helpers=(helper("--profile", "work"), fallback), input=request)
    assert filled.returncode == 0 and attributes(filled.stdout)["password"] == "fallback", describe(filled)


@pytest.mark.parametrize("path", ["team/repo.git", "team/./repo.git", "team/x/../repo.git", "%74eam/repo.git"])
def test_a_path_pattern_serves_its_normalised_paths(cli, path):
    assert cli.run("credential", "hosts", "--profile", "work", "--add", "https://forge.example.com/team").returncode == 0
    served = cli.run("credential", "git", "--profile", "work", "get",
                     input=f"protocol=https\nhost=forge.example.com\npath={path}\n\n")
    assert served.returncode == 0 and f"password={cli.token()}\n" in served.stdout, (path, describe(served))
