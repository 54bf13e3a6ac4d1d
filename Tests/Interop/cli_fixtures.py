"""The authflow CLI as the embedded-provider tests run it (test_mcp_cli.py,
test_resource_login.py, test_resource_forgotten.py): its own config directory
and a $BROWSER that counts its launches, then runs the given browser script."""

import json
import os
import signal
import subprocess
import sys

import pytest

from interop_helpers import read_until_ready

AUTHFLOW_BIN = os.environ.get("AUTHFLOW_BIN")
HERE = os.path.dirname(os.path.abspath(__file__))
HAVE_CHROMIUM = os.path.exists("/usr/bin/chromium") and os.path.exists("/usr/bin/chromedriver")
# The marks of a test module that signs in through the CLI with browser.py (headless Chromium).
NEEDS_CLI_AND_CHROMIUM = [pytest.mark.skipif(not AUTHFLOW_BIN, reason="AUTHFLOW_BIN is not set"),
                          pytest.mark.skipif(not HAVE_CHROMIUM, reason="headless Chromium is not installed")]


class CLI:
    """The authflow CLI with its own config directory and a $BROWSER that counts its launches.

    `browser` is the $BROWSER script, relative to this folder (browser.py: headless Chromium on the provider's login
    page, user demo); `env` adds to the environment."""

    def __init__(self, tmp_path, browser="browser.py", **env):
        self.tmp_path = tmp_path
        script = tmp_path / "browser.sh"
        script.write_text(f'#!/bin/sh\necho opened >> "{tmp_path}/browsers.log"\n'
                          f'exec {sys.executable} {os.path.join(HERE, browser)} "$@"\n')
        script.chmod(0o755)
        self.env = dict(os.environ, XDG_CONFIG_HOME=str(tmp_path / "config"), HOME=str(tmp_path), BROWSER=str(script),
                        INTEROP_USERNAME="demo", INTEROP_PASSWORD="demo", DISPLAY=":0", **env)
        for name in ("INTEROP_BROWSER_ACTION", "SSH_CONNECTION", "WAYLAND_DISPLAY"):
            self.env.pop(name, None)

    def run(self, *args):
        return subprocess.run([AUTHFLOW_BIN, *args], env=self.env, capture_output=True, text=True, timeout=120,
                              stdin=subprocess.DEVNULL)

    def ok(self, *args):
        result = self.run(*args)
        assert result.returncode == 0, (args, result.stdout[-1000:], result.stderr[-2000:])
        return result

    def profile(self, name="default"):
        return json.loads((self.tmp_path / "config" / "authflow" / f"{name}.json").read_text())

    def browsers(self):
        path = self.tmp_path / "browsers.log"
        return len(path.read_text().splitlines()) if path.exists() else 0


def serve_provider(config, *args):
    """`authflow provider serve --config CONFIG ARGS...` until it is ready: its
    issuer, its demo API's URL and the process (stop it with stop_provider)."""
    process = subprocess.Popen([AUTHFLOW_BIN, "provider", "serve", "--config", str(config), *args],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, stdin=subprocess.DEVNULL)
    lines, _ = read_until_ready(process)
    found = {entry.split(": ", 1)[0]: entry.split(": ", 1)[1] for entry in lines if ": " in entry}
    if "issuer" not in found or "resource" not in found:
        process.kill()
        pytest.fail(f"provider did not start: {lines}")
    return {"issuer": found["issuer"], "api": found["resource"].split(" ")[0], "process": process}


def stop_provider(provider):
    provider["process"].send_signal(signal.SIGTERM)
    provider["process"].wait(timeout=10)
