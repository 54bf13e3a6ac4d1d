"""`authflow login --resource URL` and `authflow request` against an MCP server
built with the Python `mcp` package (mcp_server.py), whose authorization
server is the embedded provider (mcp_fixtures.py).

Nothing but the MCP server's URL is given: AuthFlow reads its RFC 9728
metadata, registers (RFC 7591) and signs in through headless Chromium on the
provider's login page with the RFC 8707 resource. Then MCP JSON-RPC calls go
out as `authflow request` POSTs; the server runs stateless with JSON
responses, so each POST stands alone (one `authflow request` process per
call, no Mcp-Session-Id to carry). The access token expires and is refreshed;
`admin_echo` answers 403 insufficient_scope and AuthFlow steps up once; a
second login reuses the stored registration.

The negative tests make the positive ones meaningful: a token without the
server's `aud` (no `resource` sent) is refused by the server, and an
authorization response naming another issuer (RFC 9207 mix-up) is refused by
AuthFlow. The provider's log counts registrations.
"""

import json
import time

import pytest
import requests

import cli_fixtures
from interop_helpers import decode_jwt_unverified
from mcp_fixtures import ACCESS_TOKEN_LIFETIME, AUTHFLOW_BIN, HAVE_CHROMIUM, mcp_service, wait_until  # noqa: F401

pytestmark = pytest.mark.skipif(not AUTHFLOW_BIN, reason="AUTHFLOW_BIN is not set")
needs_chromium = pytest.mark.skipif(not HAVE_CHROMIUM, reason="headless Chromium is not installed")
MCP_HEADERS = ["-H", "Accept: application/json, text/event-stream", "-H", "Content-Type: application/json"]


class CLI(cli_fixtures.CLI):
    """The shared CLI (cli_fixtures.py), and MCP JSON-RPC calls as `authflow request` POSTs."""

    def __init__(self, tmp_path, browser="browser.py", **env):
        super().__init__(tmp_path, browser, **env)
        self.ids = 0

    def rpc(self, url, method, params=None):
        """One JSON-RPC request as one `authflow request` POST; returns (the process, the answer)."""
        self.ids += 1
        body = {"jsonrpc": "2.0", "id": self.ids, "method": method}
        if params is not None:
            body["params"] = params
        result = self.run("request", *MCP_HEADERS, "-d", json.dumps(body), url)
        answer = json.loads(result.stdout) if result.returncode == 0 else None
        return result, answer

    def call(self, url, tool, text):
        result, answer = self.rpc(url, "tools/call", {"name": tool, "arguments": {"text": text}})
        assert result.returncode == 0, (result.stdout[-1000:], result.stderr[-2000:])
        assert answer["result"]["isError"] is False, answer
        return answer["result"]["content"][0]["text"], result


def access_token(profile):
    """The header and claims of the profile's access token (an RFC 9068 JWT)."""
    return decode_jwt_unverified(profile["credentials"]["token"]["accessToken"])


@needs_chromium
def test_sign_in_to_the_mcp_server_by_its_url_then_call_refresh_step_up_and_sign_in_again(mcp_service, tmp_path):
    cli = CLI(tmp_path)
    before = len(mcp_service.registrations())
    summary = json.loads(cli.ok("login", "--resource", mcp_service.resource, "--json").stdout)
    assert summary["resource"] == mcp_service.resource and summary["issuer"] == mcp_service.issuer
    assert "mcp:tools" in summary["scope"].split() and "mcp:admin" not in summary["scope"].split()
    profile = cli.profile()
    client_id = profile["client_id"]
    assert profile["registration"]["clientID"] == client_id
    assert mcp_service.registrations()[before:] == [client_id]
    # The token is for the MCP server (the RFC 8707 resource was sent).
    header, claims = access_token(profile)
    assert header["typ"] == "at+jwt"
    assert claims["aud"] == mcp_service.resource and claims["iss"] == mcp_service.issuer and claims["client_id"] == client_id

    result, answer = cli.rpc(mcp_service.resource, "initialize", {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "authflow-request", "version": "1"}})
    assert result.returncode == 0, result.stderr[-2000:]
    assert answer["result"]["serverInfo"]["name"] == "authflow-interop-mcp"
    result, answer = cli.rpc(mcp_service.resource, "tools/list", {})
    assert result.returncode == 0, result.stderr[-2000:]
    assert {tool["name"] for tool in answer["result"]["tools"]} == {"echo", "admin_echo"}
    assert cli.call(mcp_service.resource, "echo", "hello")[0] == "hello"

    # The access token expires; the next call refreshes it, and the new one is for the server too.
    expired = cli.profile()["credentials"]["token"]["accessToken"]
    expires_at = decode_jwt_unverified(expired)[1]["exp"]
    wait_until(lambda: time.time() > expires_at + 1, timeout=ACCESS_TOKEN_LIFETIME + 10)
    assert cli.call(mcp_service.resource, "echo", "again")[0] == "again"
    refreshed = cli.profile()
    assert refreshed["credentials"]["token"]["accessToken"] != expired
    assert access_token(refreshed)[1]["aud"] == mcp_service.resource
    assert cli.browsers() == 1

    # admin_echo needs mcp:admin: one step-up sign-in, then the call succeeds.
    text, result = cli.call(mcp_service.resource, "admin_echo", "root")
    assert text == "admin: root"
    assert "needs more scopes (mcp:tools mcp:admin)" in result.stderr
    assert cli.browsers() == 2
    assert set(cli.profile()["scopes"]) >= {"mcp:tools", "mcp:admin"}
    assert set(access_token(cli.profile())[1]["scope"].split()) >= {"mcp:tools", "mcp:admin"}
    # Now granted: no further sign-in.
    assert cli.call(mcp_service.resource, "admin_echo", "again")[0] == "admin: again"
    assert cli.browsers() == 2

    # Signing in again (a new process, as after a relaunch) reuses the stored registration.
    cli.ok("login", "--resource", mcp_service.resource, "--json")
    assert cli.profile()["client_id"] == client_id
    assert cli.browsers() == 3
    assert mcp_service.registrations()[before:] == [client_id]


def test_a_token_without_the_servers_audience_is_refused(mcp_service, tmp_path):
    # A client signed in without the resource: its token's aud is the provider's default.
    metadata = requests.get(mcp_service.issuer + "/.well-known/oauth-authorization-server", timeout=10).json()
    registered = requests.post(metadata["registration_endpoint"], timeout=10, json={
        "redirect_uris": ["http://127.0.0.1/callback"], "token_endpoint_auth_method": "none",
        "grant_types": ["authorization_code", "refresh_token"], "client_name": "no-resource"})
    assert registered.status_code == 201, registered.text
    cli = CLI(tmp_path, browser="form_browser.py")
    # A generated ID may begin with '-' at other providers: "--client-id=ID" reads it as the value.
    cli.ok("login", "--issuer", mcp_service.issuer, f"--client-id={registered.json()['client_id']}", "--scope", "mcp:tools")
    header, claims = access_token(cli.profile())
    assert header["typ"] == "at+jwt" and claims["iss"] == mcp_service.issuer and "mcp:tools" in claims["scope"].split()
    assert claims["aud"] != mcp_service.resource
    result, _ = cli.rpc(mcp_service.resource, "tools/list", {})
    assert result.returncode == 1, result.stdout
    assert "the server answered HTTP 401" in result.stderr
    assert json.loads(result.stdout)["error"] == "invalid_token"


def test_an_authorization_response_from_another_issuer_is_refused(mcp_service, tmp_path):
    evil = "http://127.0.0.1:9/evil"
    cli = CLI(tmp_path, browser="form_browser.py", FORM_BROWSER_ISS=evil)
    result = cli.run("login", "--resource", mcp_service.resource, "--json")
    assert result.returncode == 4, (result.stdout, result.stderr[-2000:])
    error = json.loads(result.stdout)["error"]
    assert error["category"] == "issuer_mismatch"
    assert error["description"] == f"callback comes from issuer {evil}, expected {mcp_service.issuer}"
    path = tmp_path / "config" / "authflow" / "default.json"
    assert not path.exists() or "credentials" not in json.loads(path.read_text())
    # The same sign-in with the provider's own iss goes through.
    cli.env.pop("FORM_BROWSER_ISS")
    cli.ok("login", "--resource", mcp_service.resource, "--json")
    assert access_token(cli.profile())[1]["aud"] == mcp_service.resource
    assert cli.call(mcp_service.resource, "echo", "fine")[0] == "fine"
