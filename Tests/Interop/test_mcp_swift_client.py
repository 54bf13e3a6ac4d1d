"""The swift-sdk's MCP client (`Client` and `HTTPClientTransport`) signed in by
AuthFlowMCP's authorizer, run as Examples/MCPClient (`authflow-mcp-example`,
built with the MCP package trait), against the Python MCP server of
mcp_server.py whose authorization server is the embedded provider
(mcp_fixtures.py).

Nothing but the server's URL and a session file is given: the example reads
the server's RFC 9728 metadata from its 401, registers (RFC 7591), signs in
through headless Chromium ($BROWSER, as `authflow login` opens it) with the
RFC 8707 resource, lists the tools and calls one through the swift-sdk. Then
a relaunch uses the stored session, an expired access token is refreshed, a
403 insufficient_scope is answered by one step-up, and the provider sees one
registration in all. The negative tests: a denied sign-in or an authorization
response from another issuer stores no session; the stored registration is a
real client of the provider, bound to its issuer-specific redirect URIs (a
plain sign-in with it is refused); another origin never gets the token.
"""

import json
import os
import subprocess
import sys
import time

import pytest
import requests

from interop_helpers import decode_jwt_unverified
from mcp_fixtures import ACCESS_TOKEN_LIFETIME, AUTHFLOW_BIN, HAVE_CHROMIUM, HERE, mcp_service, wait_until  # noqa: F401

EXAMPLE = os.environ.get("AUTHFLOW_MCP_EXAMPLE") or (
    os.path.join(os.path.dirname(AUTHFLOW_BIN), "authflow-mcp-example") if AUTHFLOW_BIN else None)
pytestmark = pytest.mark.skipif(not EXAMPLE or not os.access(EXAMPLE, os.X_OK),
                                reason="authflow-mcp-example is not built (swift build --traits CLI,MCP)")
needs_chromium = pytest.mark.skipif(not HAVE_CHROMIUM, reason="headless Chromium is not installed")


class Example:
    """authflow-mcp-example with one session file and a $BROWSER that counts its launches."""

    def __init__(self, tmp_path, browser="browser.py", **env):
        self.tmp_path = tmp_path
        self.store = tmp_path / "mcp-session.json"
        script = tmp_path / "browser.sh"
        script.write_text(f'#!/bin/sh\necho opened >> "{tmp_path}/browsers.log"\n'
                          f'exec {sys.executable} {os.path.join(HERE, str(browser))} "$@"\n')
        script.chmod(0o755)
        self.env = dict(os.environ, HOME=str(tmp_path), BROWSER=str(script), INTEROP_USERNAME="demo",
                        INTEROP_PASSWORD="demo", **env)
        self.env.pop("INTEROP_BROWSER_ACTION", None)

    def run(self, server, tool=None, **arguments):
        command = [EXAMPLE, server, "--store", str(self.store)]
        if tool:
            command += ["--tool", tool, "--arguments", json.dumps(arguments)]
        return subprocess.run(command, env=self.env, capture_output=True, text=True, timeout=120,
                                            stdin=subprocess.DEVNULL)

    def call(self, server, tool, text):
        result = self.run(server, tool, text=text)
        assert result.returncode == 0, (result.stdout[-1000:], result.stderr[-2000:])
        report = json.loads(result.stdout)
        assert report["is_error"] is False, report
        return report

    def record(self):
        """The stored session (a SessionRecord), or None."""
        if not self.store.exists():
            return None
        stored = json.loads(self.store.read_text())
        return stored.get("record", stored)

    def token(self):
        return self.record()["credentials"]["token"]

    def browsers(self):
        path = self.tmp_path / "browsers.log"
        return len(path.read_text().splitlines()) if path.exists() else 0


def text_of(report):
    return report["content"][0]["text"]


@needs_chromium
def test_sign_in_by_the_servers_url_then_relaunch_refresh_and_step_up(mcp_service, tmp_path):
    example = Example(tmp_path)
    before = len(mcp_service.registrations())
    report = example.call(mcp_service.resource, "echo", "hello")
    assert set(report["tools"]) == {"echo", "admin_echo"}
    assert text_of(report) == "hello"
    assert example.browsers() == 1

    # The session file keeps the registration and the resource with the tokens.
    record = example.record()
    registration = record["registration"]
    client_id = registration["clientID"]
    assert registration["issuer"] == mcp_service.issuer and record["resource"]["url"] == mcp_service.resource
    assert mcp_service.registrations()[before:] == [client_id]
    header, claims = decode_jwt_unverified(example.token()["accessToken"])
    assert header["typ"] == "at+jwt" and claims["aud"] == mcp_service.resource and claims["client_id"] == client_id
    assert "mcp:admin" not in claims["scope"].split()

    # A relaunch uses the stored session: no browser.
    assert text_of(example.call(mcp_service.resource, "echo", "again")) == "again"
    assert example.browsers() == 1
    first = example.token()

    # The access token expires: the next launch refreshes it (the rotated refresh token is stored), no browser.
    expires_at = decode_jwt_unverified(first["accessToken"])[1]["exp"]
    wait_until(lambda: time.time() > expires_at + 1, timeout=ACCESS_TOKEN_LIFETIME + 10)
    assert text_of(example.call(mcp_service.resource, "echo", "later")) == "later"
    refreshed = example.token()
    assert refreshed["accessToken"] != first["accessToken"] and refreshed["refreshToken"] != first["refreshToken"]
    assert decode_jwt_unverified(refreshed["accessToken"])[1]["aud"] == mcp_service.resource
    assert example.browsers() == 1

    # admin_echo needs mcp:admin: 403 insufficient_scope, one step-up in the browser, then the call succeeds.
    assert text_of(example.call(mcp_service.resource, "admin_echo", "root")) == "admin: root"
    assert example.browsers() == 2
    scopes = decode_jwt_unverified(example.token()["accessToken"])[1]["scope"].split()
    assert {"mcp:tools", "mcp:admin"} <= set(scopes)
    # Granted now, and kept: a relaunch needs no browser.
    assert text_of(example.call(mcp_service.resource, "admin_echo", "again")) == "admin: again"
    assert example.browsers() == 2

    # The grant is revoked elsewhere and the access token expires: the next launch's refresh is refused
    # (invalid_grant), so it signs in again in the browser, with the stored registration.
    token = example.token()
    metadata = requests.get(mcp_service.issuer + "/.well-known/oauth-authorization-server", timeout=10).json()
    revoked = requests.post(metadata["revocation_endpoint"], timeout=10, data={
        "token": token["refreshToken"], "token_type_hint": "refresh_token", "client_id": client_id})
    assert revoked.status_code == 200, revoked.text
    expires_at = decode_jwt_unverified(token["accessToken"])[1]["exp"]
    wait_until(lambda: time.time() > expires_at + 1, timeout=ACCESS_TOKEN_LIFETIME + 10)
    assert text_of(example.call(mcp_service.resource, "echo", "back")) == "back"
    assert example.browsers() == 3
    assert example.record()["registration"]["clientID"] == client_id
    # One registration in all.
    assert mcp_service.registrations()[before:] == [client_id]


DENYING_BROWSER = """
import html, re, sys, urllib.parse
sys.path.insert(0, %r)
from form_browser import fetch
url = sys.argv[-1]
status, _, page = fetch(url)
form = re.search(r'<form method="post" action="([^"]+)">(.*?)</form>', page, re.S)
fields = [(html.unescape(n), html.unescape(v)) for n, v in
          re.findall(r'<input type="hidden" name="([^"]*)" value="([^"]*)">', form.group(2))]
fields += [("username", "demo"), ("password", "demo"), ("decision", "deny")]
status, headers, _ = fetch(urllib.parse.urljoin(url, html.unescape(form.group(1))), urllib.parse.urlencode(fields).encode())
fetch(headers["Location"])
"""


def test_a_denied_sign_in_stores_no_session(mcp_service, tmp_path):
    browser = tmp_path / "deny_browser.py"
    browser.write_text(DENYING_BROWSER % HERE)
    example = Example(tmp_path, browser=browser)
    result = example.run(mcp_service.resource, "echo", text="no")
    assert result.returncode == 1, (result.stdout, result.stderr[-2000:])
    assert result.stdout == ""
    assert "error: oauth_error" in result.stderr and "access_denied" in result.stderr, result.stderr[-2000:]
    assert example.browsers() == 1
    assert example.record() is None


def test_an_authorization_response_from_another_issuer_stores_no_session(mcp_service, tmp_path):
    evil = "http://127.0.0.1:9/evil"
    example = Example(tmp_path, browser="form_browser.py", FORM_BROWSER_ISS=evil)
    result = example.run(mcp_service.resource, "echo", text="mixed up")
    assert result.returncode == 1, (result.stdout, result.stderr[-2000:])
    assert "error: issuer_mismatch" in result.stderr and evil in result.stderr, result.stderr[-2000:]
    assert example.record() is None
    # The same sign-in with the provider's own iss goes through.
    example.env.pop("FORM_BROWSER_ISS")
    assert text_of(example.call(mcp_service.resource, "echo", "fine")) == "fine"


def test_the_stored_registration_is_a_client_bound_to_its_issuer_specific_redirect_uris(mcp_service, tmp_path):
    example = Example(tmp_path, browser="form_browser.py")
    assert text_of(example.call(mcp_service.resource, "echo", "mine")) == "mine"
    client_id = example.record()["registration"]["clientID"]
    # The example's own token (with the resource) is accepted by the same server.
    own = requests.post(mcp_service.resource, timeout=10, json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
                        headers={"Authorization": f"Bearer {example.token()['accessToken']}",
                                 "Accept": "application/json, text/event-stream"})
    assert own.status_code == 200, own.text
    # The registered client is bound to this issuer's redirect URIs (RFC 9700 §4.4.2.2: they name the issuer):
    # a plain sign-in with it (`authflow login --issuer`, redirect http://127.0.0.1:PORT/callback) is refused by
    # the provider, which shows its error page and never redirects, so no token without the resource is issued.
    cli_env = dict(example.env, XDG_CONFIG_HOME=str(tmp_path / "config"), DISPLAY=":0")
    for name in ("SSH_CONNECTION", "WAYLAND_DISPLAY"):
        cli_env.pop(name, None)
    login = subprocess.run(
        # A generated ID may begin with '-' at other providers: "--client-id=ID" reads it as the value.
        [AUTHFLOW_BIN, "login", "--issuer", mcp_service.issuer, f"--client-id={client_id}", "--scope", "mcp:tools",
         "--browser-timeout", "10"],
        env=cli_env, capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL)
    assert login.returncode == 5, login.stderr[-2000:]
    assert not (tmp_path / "config" / "authflow" / "default.json").exists() or \
        "accessToken" not in (tmp_path / "config" / "authflow" / "default.json").read_text()


def test_another_origin_gets_no_token_and_its_sign_in_is_refused(mcp_service, tmp_path):
    example = Example(tmp_path, browser="form_browser.py")
    assert text_of(example.call(mcp_service.resource, "echo", "home")) == "home"
    stored = example.store.read_text()
    browsers = example.browsers()
    # The same server under another name is another origin: the stored session is not used there, and
    # the server's metadata names the 127.0.0.1 resource, which is not the URL asked for.
    elsewhere = mcp_service.resource.replace("127.0.0.1", "localhost")
    result = example.run(elsewhere, "echo", text="away")
    assert result.returncode == 1, (result.stdout, result.stderr[-2000:])
    assert "error: invalid_response" in result.stderr and "resource" in result.stderr, result.stderr[-2000:]
    assert example.browsers() == browsers
    assert example.store.read_text() == stored
