"""Enterprise-managed MCP authorization (SEP-990) with the Python `mcp`
package's own client, `IdentityAssertionOAuthProvider`, against two
`authflow provider serve` processes: one the enterprise identity provider,
one the MCP server's authorization server.

The user signs in once at the identity provider (automatic sign-in, the
authorization code flow with PKCE done here over HTTP). The package's client
then calls the MCP server of mcp_server.py: on its 401 it reads the
configured authorization server's metadata, asks this test's
`assertion_provider` for an ID-JAG — a token exchange at the identity
provider, checked here — presents it with the JWT bearer grant, and calls
`echo` with the access token it gets. No authorization endpoint is visited
after the first sign-in. A second presentation of the same ID-JAG is
refused (jti), and the identity provider refuses a grant for an
authorization server its policy does not name.
"""

import json
import os
import subprocess
import sys
import urllib.error
import urllib.parse
import urllib.request

import anyio
import httpx2
import pytest
from mcp import Client
from mcp.client.auth.extensions.identity_assertion import IdentityAssertionOAuthProvider
from mcp.client.streamable_http import streamable_http_client

from cli_fixtures import serve_provider, stop_provider
from interop_helpers import basic_auth_header, build_authorization_url, decode_jwt_unverified, pkce_pair
from mcp_fixtures import AUTHFLOW_BIN, HERE, MemoryTokenStorage, free_port, stop, wait_for_line

pytestmark = pytest.mark.skipif(not AUTHFLOW_BIN, reason="AUTHFLOW_BIN is not set")

ID_JAG = "urn:ietf:params:oauth:token-type:id-jag"
TOKEN_EXCHANGE = "urn:ietf:params:oauth:grant-type:token-exchange"
JWT_BEARER = "urn:ietf:params:oauth:grant-type:jwt-bearer"
APP, APP_SECRET = "desktop-app", "desktop-secret-5c1e"
TOOLS_CLIENT, TOOLS_SECRET = "mcp-tools-client", "tools-secret-9a0f"


@pytest.fixture(scope="module")
def enterprise(tmp_path_factory):
    directory = tmp_path_factory.mktemp("enterprise")
    idp_port, server_port, mcp_port = free_port(), free_port(), free_port()
    idp_issuer, server_issuer = f"http://127.0.0.1:{idp_port}", f"http://127.0.0.1:{server_port}"
    resource = f"http://127.0.0.1:{mcp_port}/mcp"
    (directory / "idp.json").write_text(json.dumps({
        "port": idp_port,
        "clients": [{"client_id": APP, "client_secret": APP_SECRET, "token_endpoint_auth_method": "client_secret_basic",
                     "redirect_uris": ["http://127.0.0.1/callback"], "grant_types": ["authorization_code", TOKEN_EXCHANGE],
                     "scope": "openid profile"}],
        "identity_assertion_policy": {"rules": [{
            "client_id": APP, "authorization_server": server_issuer, "client_id_at_authorization_server": TOOLS_CLIENT,
            "resources": [resource], "scopes": ["mcp:tools"]}]},
        "protected_resources": [{"resource": "/api"}],
    }))
    (directory / "server.json").write_text(json.dumps({
        "port": server_port,
        "clients": [{"client_id": TOOLS_CLIENT, "client_secret": TOOLS_SECRET, "token_endpoint_auth_method": "client_secret_post",
                     "grant_types": [JWT_BEARER], "scope": "mcp:tools mcp:admin"}],
        "trusted_identity_providers": [idp_issuer],
        "protected_resources": [{"resource": "/api"}],
    }))
    idp = serve_provider(directory / "idp.json")
    server = serve_provider(directory / "server.json")
    mcp = subprocess.Popen([sys.executable, os.path.join(HERE, "mcp_server.py"), "--port", str(mcp_port), "--issuer",
                            server["issuer"], "--resource", resource],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, stdin=subprocess.DEVNULL)
    try:
        assert idp["issuer"] == idp_issuer and server["issuer"] == server_issuer
        if wait_for_line(mcp, "READY") is None:
            pytest.fail("mcp_server.py did not start")
        yield {"idp": idp_issuer, "server": server_issuer, "resource": resource}
    finally:
        stop(mcp)
        stop_provider(server)
        stop_provider(idp)


def post(url, form, basic=None):
    """A form POST; the status and the JSON answer."""
    headers = {"Content-Type": "application/x-www-form-urlencoded"}
    if basic:
        headers["Authorization"] = basic_auth_header(*basic)
    request = urllib.request.Request(url, data=urllib.parse.urlencode(form).encode(), headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=10) as answer:
            return answer.status, json.loads(answer.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args):
        return None


def sign_in(idp):
    """The user's ID token from the identity provider: the code flow with PKCE (automatic sign-in)."""
    verifier, challenge = pkce_pair()
    redirect = "http://127.0.0.1:9/callback"
    url = build_authorization_url(f"{idp}/authorize", APP, redirect, challenge, "s1", "n1", scope="openid profile")
    opener = urllib.request.build_opener(NoRedirect)
    try:
        opener.open(url, timeout=10)
        pytest.fail("the authorization endpoint did not redirect")
    except urllib.error.HTTPError as error:
        location = error.headers["Location"]
    code = urllib.parse.parse_qs(urllib.parse.urlsplit(location).query)["code"][0]
    status, answer = post(f"{idp}/token", {"grant_type": "authorization_code", "code": code, "redirect_uri": redirect,
                                           "code_verifier": verifier}, basic=(APP, APP_SECRET))
    assert status == 200, answer
    return answer["id_token"]


def exchange_for_id_jag(idp, id_token, audience, resource):
    return post(f"{idp}/token", {"grant_type": TOKEN_EXCHANGE, "subject_token": id_token,
                                 "subject_token_type": "urn:ietf:params:oauth:token-type:id_token",
                                 "requested_token_type": ID_JAG, "audience": audience, "resource": resource,
                                 "scope": "mcp:tools"}, basic=(APP, APP_SECRET))


def test_the_python_client_calls_a_tool_with_an_id_jag_the_embedded_provider_issued(enterprise):
    id_token = sign_in(enterprise["idp"])
    issued = []

    async def assertion_provider(audience, resource):
        status, answer = exchange_for_id_jag(enterprise["idp"], id_token, audience, resource)
        assert status == 200, answer
        assert answer["issued_token_type"] == ID_JAG and answer["token_type"] == "N_A"
        issued.append(answer["access_token"])
        return answer["access_token"]

    sent = []

    async def record(request):
        sent.append((request.method, str(request.url).split("?")[0]))

    async def run():
        oauth = IdentityAssertionOAuthProvider(
            server_url=enterprise["resource"], storage=MemoryTokenStorage(), client_id=TOOLS_CLIENT, client_secret=TOOLS_SECRET,
            issuer=enterprise["server"], assertion_provider=assertion_provider, scope="mcp:tools")
        async with httpx2.AsyncClient(auth=oauth, event_hooks={"request": [record]}, timeout=60) as http:
            async with Client(streamable_http_client(enterprise["resource"], http_client=http)) as client:
                result = await client.call_tool("echo", {"text": "hello"})
        return oauth, result

    oauth, result = anyio.run(run)
    assert "hello" in json.dumps(result.model_dump(mode="json"))
    # The grant: the identity provider's, for this server, client and resource, short-lived.
    assert len(issued) == 1
    header, claims = decode_jwt_unverified(issued[0])
    assert header["typ"] == "oauth-id-jag+jwt"
    assert claims["iss"] == enterprise["idp"] and claims["aud"] == enterprise["server"]
    assert claims["client_id"] == TOOLS_CLIENT and claims["resource"] == enterprise["resource"] and claims["sub"] == "demo"
    assert claims["exp"] - claims["iat"] <= 300
    # The access token: the authorization server's, for the MCP server, naming the identity provider's user.
    token = oauth._tokens.access_token
    _, access = decode_jwt_unverified(token)
    assert access["iss"] == enterprise["server"] and access["aud"] == enterprise["resource"]
    assert access["sub"] == "demo" and access["client_id"] == TOOLS_CLIENT and access["scope"] == "mcp:tools"
    # No authorization endpoint after the sign-in: the token came from the JWT bearer grant at the configured server.
    assert (("POST", f"{enterprise['server']}/token")) in sent
    assert not any(url.endswith("/authorize") for _, url in sent)
    # The same grant again: used.
    status, answer = post(f"{enterprise['server']}/token", {"grant_type": JWT_BEARER, "assertion": issued[0],
                                                             "client_id": TOOLS_CLIENT, "client_secret": TOOLS_SECRET})
    assert status == 400 and answer["error"] == "invalid_grant" and "already used" in answer["error_description"]


def test_the_identity_provider_issues_no_grant_for_a_server_its_policy_does_not_name(enterprise):
    id_token = sign_in(enterprise["idp"])
    status, answer = exchange_for_id_jag(enterprise["idp"], id_token, "http://127.0.0.1:1", enterprise["resource"])
    assert status == 400 and answer["error"] == "invalid_target"
    # Nor for another resource of the named server.
    status, answer = exchange_for_id_jag(enterprise["idp"], id_token, enterprise["server"], "http://127.0.0.1:1/mcp")
    assert status == 400 and answer["error"] == "invalid_target"
