"""A credential helper's sign-in on a headless machine, as git runs it: `git
credential fill` gives the helper pipes for stdin and stdout, so the helper
prints the authorization URL on stderr (the terminal) and reads the pasted
redirect from /dev/tty. Here the terminal is a pseudo-terminal the test
holds: it reads the URL, lets the embedded provider sign in, pastes the
redirect, and git gets the token, which never appears on the terminal."""

import json
import os
import pty
import select
import shlex
import subprocess
import time

import pytest
import requests

from credential_fixtures import AUTHFLOW_BIN, CLI, describe, provider, token_accepted  # noqa: F401

pytestmark = pytest.mark.skipif(not AUTHFLOW_BIN, reason="AUTHFLOW_BIN is not set")
FILL = "protocol=https\nhost=forge.example.com\n\n"


def read_terminal(master, until, seconds=30):
    """What the terminal shows until `until(text)` holds (bounded by `seconds`)."""
    text = ""
    deadline = time.monotonic() + seconds
    while not until(text):
        left = deadline - time.monotonic()
        assert left > 0, "the terminal showed: " + text
        ready, _, _ = select.select([master], [], [], left)
        if ready:
            try:
                chunk = os.read(master, 4096)
            except OSError:
                break
            if not chunk:
                break
            text += chunk.decode(errors="replace")
    return text


def drain(master):
    """Whatever the terminal still holds, without waiting."""
    text = ""
    while select.select([master], [], [], 0)[0]:
        try:
            chunk = os.read(master, 4096)
        except OSError:
            break
        if not chunk:
            break
        text += chunk.decode(errors="replace")
    return text


def test_git_fill_signs_in_with_a_redirect_pasted_on_the_terminal(provider, tmp_path):
    cli = CLI(tmp_path)
    cli.login(provider)
    cli.sign_out_locally()
    env = {key: value for key, value in cli.env.items() if key not in ("BROWSER", "DISPLAY", "WAYLAND_DISPLAY")}
    env.update(SSH_CONNECTION="192.0.2.1 50000 192.0.2.2 22", GIT_CONFIG_NOSYSTEM="1", GIT_CONFIG_GLOBAL=os.devnull)
    env.pop("DBUS_SESSION_BUS_ADDRESS", None)
    helper = f"!{shlex.quote(AUTHFLOW_BIN)} credential git --profile work"
    master, slave = pty.openpty()
    terminal = os.ttyname(slave)

    def controlling_terminal():
        # In the new session, opening the terminal makes it the controlling one: /dev/tty for git and the helper.
        os.close(os.open(terminal, os.O_RDWR))

    git = subprocess.Popen(["git", "-c", "credential.helper=", "-c", f"credential.helper={helper}", "credential", "fill"],
                           env=env, cwd=tmp_path, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=slave,
                           start_new_session=True, preexec_fn=controlling_terminal, text=True)
    os.close(slave)
    try:
        git.stdin.write(FILL)
        git.stdin.close()
        shown = read_terminal(master, lambda text: "Paste that whole address here." in text)
        url = next(line.strip() for line in shown.splitlines() if line.strip().startswith("http") and "code_challenge=" in line)
        answer = requests.get(url, allow_redirects=False, timeout=10)
        assert answer.status_code == 302, answer.text
        os.write(master, (answer.headers["Location"] + "\n").encode())
        stdout = git.stdout.read()
        assert git.wait(timeout=60) == 0, stdout
    finally:
        if git.poll() is None:
            git.kill()
    answered = dict(line.split("=", 1) for line in stdout.splitlines() if line)
    token = answered["password"]
    assert answered["username"] == "oauth2" and token_accepted(provider, token)
    assert token == cli.token()
    assert token not in shown, "no token on the terminal"
    assert token not in drain(master)
    assert "Profile work needs a sign-in." in shown
    os.close(master)
    assert json.loads(cli.profile_path().read_text())["credentials"]["token"]["accessToken"] == token
