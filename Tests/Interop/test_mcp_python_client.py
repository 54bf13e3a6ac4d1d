"""The Python `mcp` package's own OAuth client (`OAuthClientProvider`) against
the embedded provider, calling the MCP server of mcp_server.py.

The client starts from the server's URL alone: the 401 names the RFC 9728
metadata, which names the provider; the client registers (RFC 7591), sends
the user to the authorization URL — headless Chromium signs in on the
provider's login page — and receives the code on a loopback listener, then
exchanges it with PKCE and the RFC 8707 resource and calls `echo`. `admin_echo`
answers 403 insufficient_scope, and the client tries to sign in again for
`mcp:tools mcp:admin` — which the provider refuses, because the client
registered for `mcp:tools` only (see the test). Every HTTP exchange is recorded (httpx2 event hooks),
so the test checks what the provider was sent and answered.
"""

import base64
import hashlib
import json
import os
import subprocess
import sys
from urllib.parse import parse_qs, urlsplit

import anyio
import httpx2
import pytest
from mcp import Client
from mcp.client.auth import OAuthClientProvider
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.auth import AuthorizationCodeResult, OAuthClientMetadata

from interop_helpers import LoopbackListener, decode_jwt_unverified
from mcp_fixtures import AUTHFLOW_BIN, HAVE_CHROMIUM, HERE, MemoryTokenStorage, mcp_service  # noqa: F401

pytestmark = [pytest.mark.skipif(not AUTHFLOW_BIN, reason="AUTHFLOW_BIN is not set"),
              pytest.mark.skipif(not HAVE_CHROMIUM, reason="headless Chromium is not installed")]


class Recorder:
    """Every request the client sends and the answer to it, in order."""

    def __init__(self):
        self.exchanges = []

    async def response(self, response):
        await response.aread()
        request = response.request
        self.exchanges.append((request.method, str(request.url), request.content, response.status_code, response.content))

    def to(self, url, method="POST"):
        return [(body, status, answer) for m, u, body, status, answer in self.exchanges if m == method and u == url]


class AuthorizationRefused(Exception):
    """The provider redirected back with an error instead of a code."""


class Browser:
    """The redirect handler (headless Chromium, browser.py) and the callback handler (the loopback listener)."""

    def __init__(self, listener):
        self.listener = listener
        self.authorization_urls = []
        self.refusals = []

    async def redirect(self, url):
        self.authorization_urls.append(url)
        self.listener.params = None
        self.listener.event.clear()
        env = dict(os.environ, INTEROP_USERNAME="demo", INTEROP_PASSWORD="demo")
        env.pop("INTEROP_BROWSER_ACTION", None)
        done = await anyio.to_thread.run_sync(lambda: subprocess.run(
            [sys.executable, os.path.join(HERE, "browser.py"), url], env=env, capture_output=True, text=True, timeout=120))
        assert done.returncode == 0, done.stderr[-2000:]

    async def callback(self):
        assert await anyio.to_thread.run_sync(lambda: self.listener.event.wait(60)), "no callback reached the listener"
        params = self.listener.params
        if "code" not in params:
            self.refusals.append(params)
            raise AuthorizationRefused(params.get("error"))
        return AuthorizationCodeResult(code=params["code"], state=params.get("state"), iss=params.get("iss"))


def b64url_sha256(text):
    return base64.urlsafe_b64encode(hashlib.sha256(text.encode()).digest()).rstrip(b"=").decode()


async def session(service, listener):
    storage, recorder, browser = MemoryTokenStorage(), Recorder(), Browser(listener)
    sent_metadata = {"client_name": "mcp-python-interop", "redirect_uris": [listener.redirect_uri],
                     "grant_types": ["authorization_code", "refresh_token"], "response_types": ["code"],
                     "token_endpoint_auth_method": "none"}
    oauth = OAuthClientProvider(service.resource, OAuthClientMetadata(**sent_metadata), storage,
                                redirect_handler=browser.redirect, callback_handler=browser.callback)
    outcome = dict(storage=storage, recorder=recorder, browser=browser, sent=sent_metadata, step_up_error=None)
    try:
        async with httpx2.AsyncClient(auth=oauth, event_hooks={"response": [recorder.response]}, timeout=60) as http:
            async with Client(streamable_http_client(service.resource, http_client=http)) as client:
                outcome["echoed"] = await client.call_tool("echo", {"text": "hello"})
                outcome["tokens"] = storage.tokens
                outcome["admin"] = await client.call_tool("admin_echo", {"text": "root"})
    except* AuthorizationRefused as group:
        outcome["step_up_error"] = group.exceptions[0]
    return outcome


def test_the_python_mcp_client_registers_signs_in_and_calls_a_tool(mcp_service):
    before = len(mcp_service.registrations())
    with LoopbackListener() as listener:
        outcome = anyio.run(session, mcp_service, listener)
    recorder, browser = outcome["recorder"], outcome["browser"]
    assert outcome["echoed"].is_error is False and outcome["echoed"].content[0].text == "hello"

    # One RFC 7591 registration: the provider registered what the client sent.
    registrations = recorder.to(mcp_service.issuer + "/register")
    assert len(registrations) == 1
    body, status, answer = registrations[0]
    sent, registered = json.loads(body), json.loads(answer)
    assert status == 201
    for name, value in outcome["sent"].items():
        assert sent[name] == value, name
        assert registered[name] == value, name
    assert set(registered["scope"].split()) == set(sent["scope"].split()) == {"mcp:tools", "offline_access"}
    assert "client_secret" not in registered
    assert outcome["storage"].client_info.client_id == registered["client_id"]
    assert mcp_service.registrations()[before:] == [registered["client_id"]]

    # The sign-in: PKCE S256 (the verifier sent to the token endpoint matches the challenge) and the resource.
    url = browser.authorization_urls[0]
    query = parse_qs(urlsplit(url).query)
    exchanges = [(status, parse_qs(body.decode())) for body, status, _ in recorder.to(mcp_service.issuer + "/token")]
    codes = [(status, form) for status, form in exchanges if form["grant_type"] == ["authorization_code"]]
    assert len(codes) == 1
    status, form = codes[0]
    assert status == 200
    assert query["code_challenge_method"] == ["S256"]
    assert query["code_challenge"] == [b64url_sha256(form["code_verifier"][0])]
    assert query["resource"] == [mcp_service.resource] and form["resource"] == [mcp_service.resource]

    # The token is an RFC 9068 JWT for the MCP server.
    header, claims = decode_jwt_unverified(outcome["tokens"].access_token)
    assert header["typ"] == "at+jwt"
    assert claims["aud"] == mcp_service.resource and claims["iss"] == mcp_service.issuer
    assert claims["client_id"] == registered["client_id"] and set(claims["scope"].split()) == {"mcp:tools", "offline_access"}

    # admin_echo's 403 insufficient_scope makes the client sign in again for mcp:tools mcp:admin. It
    # registered for the first challenge's scopes only and does not register again, so the provider,
    # which holds a client to its registered scope (RFC 7591 §2), refuses: a limitation of the client.
    assert len(browser.authorization_urls) == 2
    assert {"mcp:tools", "mcp:admin"} <= set(parse_qs(urlsplit(browser.authorization_urls[1]).query)["scope"][0].split())
    assert str(outcome["step_up_error"]) == "invalid_scope"
    assert browser.refusals[0]["error_description"] == "the client may not request the scope mcp:admin"
    assert mcp_service.registrations()[before:] == [registered["client_id"]]
