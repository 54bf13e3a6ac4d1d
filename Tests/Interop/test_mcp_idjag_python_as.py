"""Enterprise-managed MCP authorization (SEP-990) against a Python `mcp`
server whose own authorization server takes ID-JAGs (mcp_idjag_server.py),
from an enterprise identity provider that is `authflow provider serve`.

The identity provider signs the user in (automatic sign-in) and issues
ID-JAGs by token exchange (RFC 8693) as its `identity_assertion_policy`
allows: for the Python server's authorization server and for a second one
(`authflow provider serve` trusting the same identity provider), both for the
Python MCP server's URL and the client `mcp-tools-client`.

With the `mcp` package's own client (`IdentityAssertionOAuthProvider`): a
token from an ID-JAG and a `whoami` call naming the identity provider's user;
the package's server refuses a grant addressed to the other authorization
server (`aud`), a grant presented twice (`jti`), an ID token presented as a
grant (`typ`), a grant re-signed with another key (signature), another
resource (`invalid_target`, the grant not used up by it) and a wrong client
secret.

With AuthFlow's client (Examples/MCPClient, `authflow-mcp-example` in
enterprise mode, skipped when it is not built): the user signs in at the
identity provider once ($BROWSER), the example presents an ID-JAG at the
configured authorization server and calls `whoami`; later runs use the
stored identity provider session (no browser). Configured with
the other authorization server, the example presents its grant there only
(the Python server's token endpoint sees nothing) and the MCP server refuses
the other server's token.
"""

import json
import os
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request

import anyio
import httpx2
import pytest
from joserfc import jws
from joserfc.jwk import ECKey
from mcp import Client
from mcp.client.auth.extensions.identity_assertion import IdentityAssertionOAuthProvider
from mcp.client.streamable_http import streamable_http_client

from cli_fixtures import serve_provider, stop_provider
from interop_helpers import basic_auth_header, build_authorization_url, decode_jwt_unverified, pkce_pair
from mcp_fixtures import AUTHFLOW_BIN, HERE, MemoryTokenStorage, Output, free_port, stop, wait_for_line
# The identity provider's side as test_mcp_id_jag.py drives it: its clients, sign-in and token exchange.
from test_mcp_id_jag import (APP, APP_SECRET, ID_JAG, JWT_BEARER, TOKEN_EXCHANGE, TOOLS_CLIENT, TOOLS_SECRET, exchange_for_id_jag,
                             post, sign_in)

pytestmark = pytest.mark.skipif(not AUTHFLOW_BIN, reason="AUTHFLOW_BIN is not set")

EXAMPLE = os.environ.get("AUTHFLOW_MCP_EXAMPLE") or (
    os.path.join(os.path.dirname(AUTHFLOW_BIN), "authflow-mcp-example") if AUTHFLOW_BIN else None)
needs_example = pytest.mark.skipif(not EXAMPLE or not os.access(EXAMPLE, os.X_OK),
                                   reason="authflow-mcp-example is not built (swift build --traits CLI,MCP)")

SECRET_VARIABLE = "MCP_IDJAG_CLIENT_SECRET"
REFUSED = "the identity assertion was refused: "


@pytest.fixture(scope="module")
def enterprise(tmp_path_factory):
    directory = tmp_path_factory.mktemp("enterprise-python-as")
    idp_port, other_port, mcp_port = free_port(), free_port(), free_port()
    idp_issuer, other_issuer = f"http://127.0.0.1:{idp_port}", f"http://127.0.0.1:{other_port}"
    server_issuer, resource = f"http://127.0.0.1:{mcp_port}", f"http://127.0.0.1:{mcp_port}/mcp"
    rule = {"client_id": APP, "client_id_at_authorization_server": TOOLS_CLIENT, "resources": [resource],
            "scopes": ["mcp:tools"]}
    (directory / "idp.json").write_text(json.dumps({
        "port": idp_port,
        "clients": [{"client_id": APP, "client_secret": APP_SECRET, "token_endpoint_auth_method": "client_secret_basic",
                     "redirect_uris": ["http://127.0.0.1/callback"], "grant_types": ["authorization_code", TOKEN_EXCHANGE],
                     "scope": "openid profile"}],
        "identity_assertion_policy": {"rules": [dict(rule, authorization_server=server_issuer),
                                                dict(rule, authorization_server=other_issuer)]},
        "protected_resources": [{"resource": "/api"}],
    }))
    # The other authorization server: it would take the same client's grants for the same resource.
    (directory / "other.json").write_text(json.dumps({
        "port": other_port,
        "clients": [{"client_id": TOOLS_CLIENT, "client_secret": TOOLS_SECRET, "token_endpoint_auth_method": "client_secret_post",
                     "grant_types": [JWT_BEARER], "scope": "mcp:tools"}],
        "trusted_identity_providers": [idp_issuer],
        "protected_resources": [{"resource": "/api"}],
    }))
    idp = serve_provider(directory / "idp.json")
    other = serve_provider(directory / "other.json")
    server = subprocess.Popen(
        [sys.executable, os.path.join(HERE, "mcp_idjag_server.py"), "--port", str(mcp_port), "--trusted-idp", idp_issuer,
         "--client-id", TOOLS_CLIENT, "--client-secret-env", SECRET_VARIABLE],
        env=dict(os.environ, **{SECRET_VARIABLE: TOOLS_SECRET}),
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, stdin=subprocess.DEVNULL)
    server_log = Output(server.stderr)
    try:
        assert idp["issuer"] == idp_issuer and other["issuer"] == other_issuer
        lines = wait_for_line(server, "READY")
        if lines is None:
            pytest.fail(f"mcp_idjag_server.py did not start: {server_log.snapshot()[-20:]}")
        assert f"issuer: {server_issuer}" in lines and f"resource: {resource}" in lines
        yield {"idp": idp_issuer, "other": other_issuer, "server": server_issuer, "resource": resource}
    finally:
        stop(server)
        stop_provider(other)
        stop_provider(idp)


def get_json(url):
    with urllib.request.urlopen(url, timeout=10) as answer:
        return json.loads(answer.read())


def id_jag(enterprise, id_token, audience=None):
    """A new ID-JAG from the identity provider for `audience` (the Python server's authorization server)."""
    status, answer = exchange_for_id_jag(enterprise["idp"], id_token, audience or enterprise["server"], enterprise["resource"])
    assert status == 200, answer
    assert answer["issued_token_type"] == ID_JAG
    return answer["access_token"]


def present(issuer, assertion, secret=TOOLS_SECRET, **extra):
    """The JWT bearer grant at `issuer`'s token endpoint, client_secret_post."""
    return post(f"{issuer}/token", {"grant_type": JWT_BEARER, "assertion": assertion, "client_id": TOOLS_CLIENT,
                                    "client_secret": secret, **extra})


def seen(enterprise):
    return get_json(f"{enterprise['server']}/interop/seen")


def call_whoami(enterprise, token):
    """`tools/call` whoami with `token`: the status and the answer."""
    request = urllib.request.Request(
        enterprise["resource"], method="POST",
        data=json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                         "params": {"name": "whoami", "arguments": {}}}).encode(),
        headers={"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
                 "MCP-Protocol-Version": "2025-06-18", **({"Authorization": f"Bearer {token}"} if token else {})})
    try:
        with urllib.request.urlopen(request, timeout=10) as answer:
            return answer.status, json.loads(answer.read())
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers)


# The mcp package's client against the mcp package's authorization server.

def test_the_python_client_calls_whoami_with_an_id_jag(enterprise):
    id_token = sign_in(enterprise["idp"])
    before = seen(enterprise)
    issued = []

    async def assertion_provider(audience, resource):
        # The package's client asks for the configured issuer and the server's URL.
        assert audience == enterprise["server"] and resource == enterprise["resource"]
        issued.append(id_jag(enterprise, id_token))
        return issued[-1]

    async def run():
        oauth = IdentityAssertionOAuthProvider(
            server_url=enterprise["resource"], storage=MemoryTokenStorage(), client_id=TOOLS_CLIENT,
            client_secret=TOOLS_SECRET, issuer=enterprise["server"], assertion_provider=assertion_provider, scope="mcp:tools")
        async with httpx2.AsyncClient(auth=oauth, timeout=60) as http:
            async with Client(streamable_http_client(enterprise["resource"], http_client=http)) as client:
                return await client.call_tool("whoami", {})

    result = anyio.run(run)
    assert result.is_error is False, result
    assert json.loads(result.content[0].text) == {"sub": "demo", "client_id": TOOLS_CLIENT, "scopes": ["mcp:tools"],
                                                   "idp": enterprise["idp"]}
    assert len(issued) == 1
    header, claims = decode_jwt_unverified(issued[0])
    assert header["typ"] == "oauth-id-jag+jwt" and claims["aud"] == enterprise["server"]
    after = seen(enterprise)
    grants = after["grants"][len(before["grants"]):]
    assert grants == [{"client_id": TOOLS_CLIENT, "aud": enterprise["server"], "jti": claims["jti"], "outcome": "issued",
                       "description": None}]
    requests = after["requests"][len(before["requests"]):]
    assert ["POST", "/token"] in requests and ["GET", "/.well-known/oauth-authorization-server"] in requests
    assert not any(path == "/authorize" for _, path in after["requests"])

    # The same grant again: used.
    status, answer = present(enterprise["server"], issued[0])
    assert (status, answer) == (400, {"error": "invalid_grant", "error_description": REFUSED + "it was already used (jti)"})


def test_an_id_jag_for_another_authorization_server_is_refused(enterprise):
    id_token = sign_in(enterprise["idp"])
    grant = id_jag(enterprise, id_token, audience=enterprise["other"])
    status, answer = present(enterprise["server"], grant)
    assert (status, answer) == (400, {
        "error": "invalid_grant",
        "error_description": REFUSED + f"it is for the authorization server '{enterprise['other']}', not {enterprise['server']} (aud)"})
    # The grant itself is good, for the server it names: the other authorization server takes it.
    status, answer = present(enterprise["other"], grant)
    assert status == 200, answer
    assert decode_jwt_unverified(answer["access_token"])[1]["aud"] == enterprise["resource"]
    # That server's token is not one the Python MCP server knows.
    status, headers = call_whoami(enterprise, answer["access_token"])
    assert status == 401 and 'error="invalid_token"' in headers["www-authenticate"]


def test_a_replayed_id_jag_is_refused(enterprise):
    grant = id_jag(enterprise, sign_in(enterprise["idp"]))
    status, answer = present(enterprise["server"], grant)
    assert status == 200, answer
    assert answer["token_type"] == "Bearer" and answer["scope"] == "mcp:tools" and "refresh_token" not in answer
    status, result = call_whoami(enterprise, answer["access_token"])
    assert status == 200 and json.loads(result["result"]["content"][0]["text"])["sub"] == "demo", result
    status, again = present(enterprise["server"], grant)
    assert (status, again) == (400, {"error": "invalid_grant", "error_description": REFUSED + "it was already used (jti)"})


def test_an_id_token_is_not_an_id_jag(enterprise):
    id_token = sign_in(enterprise["idp"])
    typ = jws.extract_compact(id_token.encode()).protected.get("typ")
    status, answer = present(enterprise["server"], id_token)
    assert (status, answer) == (400, {"error": "invalid_grant",
                                      "error_description": REFUSED + f"its JOSE typ is {typ!r}, not oauth-id-jag+jwt (typ)"})


def test_an_id_jag_signed_with_another_key_is_refused(enterprise):
    grant = id_jag(enterprise, sign_in(enterprise["idp"]))
    header, claims = decode_jwt_unverified(grant)
    forged = jws.serialize_compact(header, json.dumps(claims).encode(), ECKey.generate_key("P-256"), algorithms=["ES256"])
    status, answer = present(enterprise["server"], forged)
    assert (status, answer) == (400, {
        "error": "invalid_grant",
        "error_description": REFUSED + "the signature does not verify with the trusted identity provider's keys (signature)"})
    # The genuine grant is not used up by the forgery that copied its jti.
    status, answer = present(enterprise["server"], grant)
    assert status == 200, answer


def test_another_resource_is_refused_without_using_the_grant_up(enterprise):
    grant = id_jag(enterprise, sign_in(enterprise["idp"]))
    elsewhere = f"{enterprise['server']}/elsewhere"
    status, answer = present(enterprise["server"], grant, resource=elsewhere)
    assert (status, answer) == (400, {"error": "invalid_target",
                                      "error_description": f"this authorization server issues tokens for {enterprise['resource']} only"})
    status, answer = present(enterprise["server"], grant, resource=enterprise["resource"])
    assert status == 200, answer


def test_a_wrong_client_secret_is_refused_before_the_grant_is_read(enterprise):
    grant = id_jag(enterprise, sign_in(enterprise["idp"]))
    before = len(seen(enterprise)["grants"])
    status, answer = present(enterprise["server"], grant, secret="not-the-secret")
    assert (status, answer["error"]) == (401, "invalid_client")
    assert len(seen(enterprise)["grants"]) == before
    # The package reads client_id from the form even with HTTP Basic: Basic alone is not enough there.
    status, answer = post(f"{enterprise['server']}/token", {"grant_type": JWT_BEARER, "assertion": grant},
                          basic=(TOOLS_CLIENT, TOOLS_SECRET))
    assert (status, answer) == (401, {"error": "invalid_client", "error_description": "Missing client_id"})


def test_the_mcp_server_needs_a_token(enterprise):
    status, headers = call_whoami(enterprise, None)
    assert status == 401
    assert f'resource_metadata="{enterprise["server"]}/.well-known/oauth-protected-resource/mcp"' in headers["www-authenticate"]
    metadata = get_json(f"{enterprise['server']}/.well-known/oauth-authorization-server")
    assert metadata["issuer"] == enterprise["server"]
    assert JWT_BEARER in metadata["grant_types_supported"]
    assert metadata["authorization_grant_profiles_supported"] == ["urn:ietf:params:oauth:grant-profile:id-jag"]


# AuthFlow's client: authflow-mcp-example in enterprise mode (written, built only with the MCP trait).

IDP_SECRET_VARIABLE, CLIENT_SECRET_VARIABLE = "EXAMPLE_IDP_CLIENT_SECRET", "EXAMPLE_MCP_CLIENT_SECRET"


class EnterpriseExample:
    """authflow-mcp-example in enterprise mode: one file for the session at the identity provider, the
    secrets in the environment, and a $BROWSER (provider_fixtures/browser.py: the identity provider signs
    in at once) that logs each URL it is given without its query."""

    def __init__(self, tmp_path, enterprise):
        self.tmp_path = tmp_path
        self.enterprise = enterprise
        self.idp_store = tmp_path / "idp-session.json"
        script = tmp_path / "browser.sh"
        script.write_text('#!/bin/sh\nfor url in "$@"; do :; done\n'
                          f'echo "${{url%%\\?*}}" >> "{tmp_path}/browsers.log"\n'
                          f'exec {sys.executable} {os.path.join(HERE, "provider_fixtures", "browser.py")} "$@"\n')
        script.chmod(0o755)
        self.env = dict(os.environ, HOME=str(tmp_path), BROWSER=str(script),
                        **{IDP_SECRET_VARIABLE: APP_SECRET, CLIENT_SECRET_VARIABLE: TOOLS_SECRET})
        self.env.pop("INTEROP_BROWSER_ACTION", None)

    def options(self, authorization_server=None):
        return ["--idp", self.enterprise["idp"], "--idp-client-id", APP, "--idp-client-secret-env", IDP_SECRET_VARIABLE,
                "--idp-store", str(self.idp_store), "--authorization-server", authorization_server or self.enterprise["server"],
                "--client-id", TOOLS_CLIENT, "--client-secret-env", CLIENT_SECRET_VARIABLE]

    def run(self, *extra, authorization_server=None, tool="whoami", **arguments):
        command = [EXAMPLE, self.enterprise["resource"], *self.options(authorization_server), "--tool", tool,
                   "--arguments", json.dumps(arguments), *extra]
        return subprocess.run(command, env=self.env, capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL)

    def call(self, tool="whoami", **arguments):
        result = self.run(tool=tool, **arguments)
        assert result.returncode == 0, (result.stdout[-1000:], result.stderr[-2000:])
        report = json.loads(result.stdout)
        assert report["is_error"] is False, report
        return report

    def idp_record(self):
        """The stored session at the identity provider (a SessionRecord), or None."""
        if not self.idp_store.exists():
            return None
        stored = json.loads(self.idp_store.read_text())
        return stored.get("record", stored)

    def browsers(self):
        """The URLs (without query) the browser was sent to, in order."""
        path = self.tmp_path / "browsers.log"
        return path.read_text().splitlines() if path.exists() else []


def text_of(report):
    return report["content"][0]["text"]


@needs_example
def test_the_example_signs_in_at_the_identity_provider_once_and_calls_whoami(enterprise, tmp_path):
    example = EnterpriseExample(tmp_path, enterprise)
    before = seen(enterprise)
    report = example.call()
    assert set(report["tools"]) == {"whoami", "echo"}
    assert json.loads(text_of(report)) == {"sub": "demo", "client_id": TOOLS_CLIENT, "scopes": ["mcp:tools"],
                                           "idp": enterprise["idp"]}
    # One browser, for the identity provider's authorization endpoint; the session is kept for it.
    assert example.browsers() == [f"{enterprise['idp']}/authorize"]
    record = example.idp_record()
    assert record["credentials"]["issuer"] == enterprise["idp"] and record["credentials"]["clientID"] == APP

    # Two more runs: the session kept at the identity provider, no browser.
    assert json.loads(text_of(example.call()))["sub"] == "demo"
    assert text_of(example.call("echo", text="hello")) == "hello"
    assert example.browsers() == [f"{enterprise['idp']}/authorize"]

    # The MCP server's token is kept with the session at the identity provider (AuthSession's token per
    # resource; it lives 300 s here): one grant for the three runs, for this server and client, accepted.
    after = seen(enterprise)
    grants = after["grants"][len(before["grants"]):]
    assert len(grants) == 1 and grants[0]["outcome"] == "issued", grants
    assert grants[0]["aud"] == enterprise["server"] and grants[0]["client_id"] == TOOLS_CLIENT
    kept = example.idp_record()["resource_tokens"]
    assert [(token["resource"]["url"], token["grant"]) for token in kept] == [(enterprise["resource"], "identity_assertion")]
    # The Python server's authorization endpoint was never visited; its token endpoint once a grant.
    requests = after["requests"][len(before["requests"]):]
    assert not any(path == "/authorize" for _, path in requests)
    assert requests.count(["POST", "/token"]) == len(grants)


@needs_example
def test_the_example_presents_its_grant_only_at_the_configured_authorization_server(enterprise, tmp_path):
    # Configured with the other authorization server, which the identity provider's policy also names for
    # this client and resource: the grant is asked for that server and presented there, never at the Python
    # server's authorization server (which the MCP server's metadata names, and which would refuse it: aud).
    # The other server's token is then refused by the MCP server, once, after the new sign-in.
    example = EnterpriseExample(tmp_path, enterprise)
    before = seen(enterprise)
    result = example.run(authorization_server=enterprise["other"])
    assert result.returncode == 1, (result.stdout, result.stderr[-2000:])
    assert result.stdout == ""
    assert ("error: invalid_response: invalid_token [the MCP server refused the access token of a new sign-in]"
            in result.stderr.splitlines()), result.stderr[-2000:]
    after = seen(enterprise)
    assert after["grants"][len(before["grants"]):] == []
    assert ["POST", "/token"] not in after["requests"][len(before["requests"]):]
    # The sign-in at the identity provider happened (and is kept): the refusal is the MCP server's.
    assert example.browsers() == [f"{enterprise['idp']}/authorize"]


@needs_example
def test_the_example_takes_secrets_from_the_environment_only(enterprise, tmp_path):
    example = EnterpriseExample(tmp_path, enterprise)
    example.env.pop(CLIENT_SECRET_VARIABLE)
    result = example.run()
    assert result.returncode == 2, (result.stdout, result.stderr)
    assert result.stderr.splitlines()[0] == (
        f"error: the environment variable {CLIENT_SECRET_VARIABLE} that --client-secret-env names is not set")
    # The browser sign-in's --store does not go with the enterprise mode.
    example = EnterpriseExample(tmp_path, enterprise)
    result = example.run("--store", str(tmp_path / "mcp-session.json"))
    assert result.returncode == 2, (result.stdout, result.stderr)
    assert result.stderr.splitlines()[0] == (
        "error: --store goes with the browser sign-in; the enterprise mode keeps its session in --idp-store")
    assert example.browsers() == [] and example.idp_record() is None
