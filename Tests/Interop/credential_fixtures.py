"""Shared by the credential-helper tests (git, Docker, kubectl, headless
login): the embedded provider with automatic sign-in, a CLI bound to its own
XDG_CONFIG_HOME, and a fixture $BROWSER that follows the provider's redirect
to the loopback listener and, when INTEROP_BROWSER_LOG is set, appends one
line per opened URL there (to count browsers)."""

import json
import os
import signal
import subprocess
import sys
import time

import pytest
import requests

from test_provider import start

AUTHFLOW_BIN = os.environ.get("AUTHFLOW_BIN")
HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURE_BROWSER = os.path.join(HERE, "provider_fixtures", "browser.py")
TIMEOUT = 60
SCOPE = "openid profile offline_access"
CALLBACK = ["http://127.0.0.1/callback"]

CONFIG = {
    "port": 0,
    "sign_in": "automatic",
    "automatic_user": "alice-1",
    "clients": [
        {"client_id": "cli-public", "redirect_uris": CALLBACK, "grant_types": ["authorization_code", "refresh_token"],
         "scope": SCOPE},
        {"client_id": "cli-device", "grant_types": ["urn:ietf:params:oauth:grant-type:device_code", "refresh_token"],
         "scope": SCOPE},
    ],
    "users": [{"sub": "alice-1", "username": "alice", "password": "pw", "claims": {"name": "Alice Example"}}],
}


def counting_browser(tmp_path):
    """A $BROWSER command line that logs each URL it opens, then follows it."""
    script = tmp_path / "browser.sh"
    script.write_text(f'#!/bin/sh\necho opened >> "{tmp_path}/browsers.log"\nexec {sys.executable} {FIXTURE_BROWSER} "$@"\n')
    script.chmod(0o755)
    return str(script)


def browsers_opened(tmp_path):
    path = tmp_path / "browsers.log"
    return len(path.read_text().splitlines()) if path.exists() else 0


@pytest.fixture(scope="module")
def provider(tmp_path_factory):
    path = tmp_path_factory.mktemp("provider") / "provider.json"
    path.write_text(json.dumps(CONFIG))
    process, issuer, lines = start(str(path))
    metadata = requests.get(issuer + "/.well-known/openid-configuration", timeout=10).json()
    yield {"issuer": issuer, "metadata": metadata, "userinfo": metadata["userinfo_endpoint"]}
    process.send_signal(signal.SIGTERM)
    process.wait(timeout=10)


class CLI:
    """`authflow` with its own profile directory and the counting browser."""

    def __init__(self, tmp_path):
        self.tmp_path = tmp_path
        self.config = tmp_path / "config"
        self.env = dict(os.environ, XDG_CONFIG_HOME=str(self.config), HOME=str(tmp_path), BROWSER=counting_browser(tmp_path))
        for name in ("GIT_TERMINAL_PROMPT", "KUBERNETES_EXEC_INFO", "AUTHFLOW_NO_SIGN_IN", "DISPLAY", "WAYLAND_DISPLAY",
                     "SSH_CONNECTION"):
            self.env.pop(name, None)
        # The fixture browser is what opens, display or not.
        self.env["DISPLAY"] = ":0"

    def run(self, *args, input=None, env=None, timeout=TIMEOUT, binary=None):
        return subprocess.run([binary or AUTHFLOW_BIN, *args], env={**self.env, **(env or {})}, capture_output=True,
                              text=True, timeout=timeout, input=input if input is not None else "")

    def login(self, provider, profile="work", client="cli-public", *extra):
        result = self.run("login", "--issuer", provider["issuer"], "--client-id", client, "--scope", SCOPE,
                          "--profile", profile, "--browser-timeout", "30", "--json", *extra)
        assert result.returncode == 0, describe(result)
        return json.loads(result.stdout)

    def token(self, profile="work"):
        result = self.run("token", "--profile", profile)
        assert result.returncode == 0, describe(result)
        return result.stdout.strip()

    def profile_path(self, profile="work"):
        return self.config / "authflow" / f"{profile}.json"

    def edit_profile(self, profile, change):
        path = self.profile_path(profile)
        data = json.loads(path.read_text())
        change(data)
        path.write_text(json.dumps(data))
        os.chmod(path, 0o600)

    def expire(self, profile="work"):
        def change(data):
            data["credentials"]["token"]["expiresAt"] = "2000-01-01T00:00:00.000"
        self.edit_profile(profile, change)

    def sign_out_locally(self, profile="work"):
        def change(data):
            data.pop("credentials", None)
        self.edit_profile(profile, change)


def describe(result):
    return f"exit {result.returncode}\n--- stdout ---\n{result.stdout}\n--- stderr ---\n{result.stderr[-3000:]}"


def token_accepted(provider, token):
    return requests.get(provider["userinfo"], headers={"Authorization": f"Bearer {token}"}, timeout=10).status_code == 200


def wait_for(predicate, seconds=30):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.05)
    return False
