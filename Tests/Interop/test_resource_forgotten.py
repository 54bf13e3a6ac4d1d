"""`authflow request` and `authflow login --resource` when the authorization
server has forgotten the client it registered (SIGUSR1 to `authflow provider
serve`), and `authflow request` against an API that keeps asking for more
scope. The provider signs in automatically (the fixture browser follows its
redirect, no Chromium) and logs each registration (-v), so that the tests
count registrations and browser sign-ins exactly."""

import datetime
import http.server
import json
import os
import signal
import subprocess
import threading
import time

import pytest

from cli_fixtures import CLI
from interop_helpers import read_until_ready
from test_resource_login import forgotten

AUTHFLOW_BIN = os.environ.get("AUTHFLOW_BIN")
# The $BROWSER: follows the provider's automatic sign-in to the loopback listener (no Chromium).
FIXTURE_BROWSER = os.path.join("provider_fixtures", "browser.py")
pytestmark = pytest.mark.skipif(not AUTHFLOW_BIN, reason="AUTHFLOW_BIN is not set")
# Short enough that a token needs refreshing a second after it was issued
# (the session refreshes within half a token's lifetime of its expiry).
ACCESS_TOKEN_LIFETIME = 2


@pytest.fixture(scope="module")
def provider(tmp_path_factory):
    directory = tmp_path_factory.mktemp("provider")
    config = directory / "provider.json"
    config.write_text(json.dumps({"lifetimes": {"access_token": ACCESS_TOKEN_LIFETIME}}))
    log = directory / "provider.log"
    with open(log, "w") as stderr:
        process = subprocess.Popen([AUTHFLOW_BIN, "provider", "serve", "-v", "--config", str(config), "--resource", "/api"],
                                   stdout=subprocess.PIPE, stderr=stderr, text=True, stdin=subprocess.DEVNULL)
    lines, _ = read_until_ready(process)
    found = {entry.split(": ", 1)[0]: entry.split(": ", 1)[1] for entry in lines if ": " in entry}
    if "resource" not in found:
        process.kill()
        pytest.fail(f"provider did not start: {lines} {log.read_text()[-2000:]}")
    yield {"issuer": found["issuer"], "api": found["resource"].split(" ")[0], "process": process, "log": log}
    process.send_signal(signal.SIGTERM)
    process.wait(timeout=10)


def registrations(provider):
    """How many clients the provider has registered so far (its -v log)."""
    return provider["log"].read_text().count("client registered")


def forget(provider, client_id):
    """SIGUSR1, then waits (bounded) until the provider's PAR endpoint no longer knows `client_id`."""
    provider["process"].send_signal(signal.SIGUSR1)
    forgotten(provider, client_id)


def wait_until_stale(cli):
    """Waits (bounded) until the profile's access token is due for a refresh: past the expiry `status`
    shows (whole seconds, so up to a second before the real one, within the refresh margin)."""
    expiry = datetime.datetime.fromisoformat(json.loads(cli.ok("status", "--json").stdout)["expires_at"].replace("Z", "+00:00"))
    for _ in range(100):
        if datetime.datetime.now(datetime.timezone.utc) > expiry:
            return
        time.sleep(0.05)
    pytest.fail("the access token did not become due for a refresh")


def test_request_whose_refresh_finds_the_client_forgotten_registers_and_signs_in_again_once(provider, tmp_path):
    cli = CLI(tmp_path, browser=FIXTURE_BROWSER)
    before = registrations(provider)
    cli.ok("login", "--resource", provider["api"], "--json")
    first = cli.profile()["client_id"]
    assert registrations(provider) == before + 1 and cli.browsers() == 1
    forget(provider, first)
    wait_until_stale(cli)

    # The refresh is invalid_client: the registration is replaced once, the user signs in once more,
    # and the request goes through with the new client's token.
    result = cli.ok("request", provider["api"])
    assert "The authorization server no longer knows this client; signing in again." in result.stderr
    second = cli.profile()["client_id"]
    assert second != first and cli.profile()["registration"]["clientID"] == second
    assert json.loads(result.stdout)["client_id"] == second
    assert registrations(provider) == before + 2 and cli.browsers() == 2

    # The new client refreshes normally: no further registration or sign-in.
    wait_until_stale(cli)
    assert json.loads(cli.ok("request", provider["api"]).stdout)["client_id"] == second
    assert registrations(provider) == before + 2 and cli.browsers() == 2


def test_login_again_after_the_client_was_forgotten_registers_exactly_once(provider, tmp_path):
    cli = CLI(tmp_path, browser=FIXTURE_BROWSER)
    before = registrations(provider)
    cli.ok("login", "--resource", provider["api"], "--json")
    first = cli.profile()["client_id"]
    forget(provider, first)
    result = cli.ok("login", "--resource", provider["api"], "--json")
    assert "The authorization server had forgotten this client; it was registered again." in result.stderr
    assert cli.profile()["client_id"] != first
    # The forgotten client is found out by a pushed authorization request, before any browser opens.
    assert registrations(provider) == before + 2 and cli.browsers() == 2


class EndlessStepUp(http.server.BaseHTTPRequestHandler):
    """An API that answers every request 403 insufficient_scope, asking for `email`
    (at /more) or for `openid`, which the token has (at /granted)."""

    def log_message(self, *args):
        pass

    def do_GET(self):
        self.server.hits += 1
        scope = "openid email" if self.path == "/more" else "openid"
        self.send_response(403)
        self.send_header("WWW-Authenticate", f'Bearer error="insufficient_scope", scope="{scope}"')
        self.send_header("Content-Length", "0")
        self.end_headers()


@pytest.fixture(scope="module")
def endless():
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), EndlessStepUp)
    server.daemon_threads = True
    server.hits = 0
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server
    server.shutdown()


def test_another_servers_403_never_widens_a_plain_profiles_scopes(provider, endless, tmp_path):
    """A profile signed in without --resource sends a request to a server that
    answers 403 insufficient_scope asking for more (`email`): no sign-in, no
    widened token for that server, the profile keeps its scopes. (Before, it
    signed in again for openid email and the server got the wider token.)"""
    cli = CLI(tmp_path, browser=FIXTURE_BROWSER)
    cli.ok("login", "--issuer", provider["issuer"], "--client-id", "authflow-demo", "--scope", "openid", "--json")
    token = cli.profile()["credentials"]["token"]["accessToken"]
    base = f"http://127.0.0.1:{endless.server_port}"
    for path in ("/more", "/granted"):
        endless.hits = 0
        result = cli.run("request", base + path)
        assert result.returncode == 1, (result.stdout, result.stderr[-2000:])
        assert "error: invalid_response: the server answered HTTP 403" in result.stderr, result.stderr
        assert "signs in again for more scopes only at the origin of a profile signed in with --resource" in result.stderr
        assert "signing in again" not in result.stderr
        assert endless.hits == 1 and cli.browsers() == 1
    assert cli.profile()["scopes"] == ["openid"]
    assert cli.profile()["credentials"]["token"]["accessToken"] == token


def test_token_whose_refresh_finds_the_client_forgotten_asks_for_a_sign_in(provider, tmp_path):
    cli = CLI(tmp_path, browser=FIXTURE_BROWSER)
    cli.ok("login", "--resource", provider["api"], "--json")
    first = cli.profile()["client_id"]
    forget(provider, first)
    wait_until_stale(cli)
    # A script cannot repair a forgotten registration: exit 6, the command that can.
    result = cli.run("token")
    assert result.returncode == 6 and result.stdout == "", (result.stdout, result.stderr[-2000:])
    assert (f"error: reauthentication_required: the authorization server no longer knows the client registered for profile default\n"
            f"hint: Sign in again (it registers the client again): authflow login --profile default --resource {provider['api']}\n"
            in result.stderr), result.stderr
    assert cli.browsers() == 1
