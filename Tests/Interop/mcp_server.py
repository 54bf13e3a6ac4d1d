#!/usr/bin/env python3
"""An MCP server built with the Python `mcp` package, protected by OAuth.

    mcp_server.py --port PORT --issuer ISSUER_URL --resource RESOURCE_URL

Serves the streamable HTTP transport at RESOURCE_URL (path /mcp) on
127.0.0.1:PORT, stateless with JSON responses: every POST stands alone (no
Mcp-Session-Id to carry between requests, no event stream to parse), so a
client that sends one request per process, such as `authflow request`, can
call a tool in one POST.

The package's own bearer-auth middleware guards it with a TokenVerifier that
accepts only the issuer's RFC 9068 JWT access tokens: signed with a key of
the issuer's JWK Set (found by discovery), `typ` at+jwt, `iss` the issuer,
`aud` RESOURCE_URL, not expired. Without such a token the answer is 401 with
`WWW-Authenticate: Bearer … resource_metadata="…"`, and the package serves
the RFC 9728 metadata (`scopes_supported` mcp:tools) at
/.well-known/oauth-protected-resource/mcp.

Tools: `echo(text)` needs scope mcp:tools; `admin_echo(text)` needs
mcp:tools and mcp:admin. A `tools/call` without the scopes its tool needs is
answered 403 with `WWW-Authenticate: Bearer error="insufficient_scope",
scope="mcp:tools mcp:admin"` by a small ASGI wrapper that reads the JSON-RPC
body (the package checks scopes only for the whole endpoint).

Prints `READY` on stdout once it listens; stops on SIGINT or SIGTERM. Never
logs tokens.
"""

import argparse
import asyncio
import json
import sys
import time
import urllib.request
from urllib.parse import urlsplit

import anyio
import uvicorn
from joserfc import jwt
from joserfc.errors import JoseError
from joserfc.jwk import KeySet

from mcp.server.auth.middleware.bearer_auth import AuthenticatedUser
from mcp.server.auth.provider import AccessToken
from mcp.server.auth.settings import AuthSettings
from mcp.server.mcpserver import MCPServer

BASE_SCOPE = "mcp:tools"
ADMIN_SCOPE = "mcp:admin"
# The scopes each tool needs; a tool not listed needs BASE_SCOPE.
TOOL_SCOPES = {"echo": [BASE_SCOPE], "admin_echo": [BASE_SCOPE, ADMIN_SCOPE]}
MAX_BODY = 4 << 20  # the transport's own limit (DEFAULT_MAX_REQUEST_BODY_SIZE)
ALGORITHMS = ["ES256", "ES384", "ES512", "RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "EdDSA"]


def fetch_json(url, timeout=10):
    with urllib.request.urlopen(url, timeout=timeout) as answer:  # noqa: S310 - loopback test server
        return json.loads(answer.read(1 << 20))


class JWTAccessTokenVerifier:
    """A TokenVerifier for the issuer's RFC 9068 JWT access tokens meant for `resource`."""

    def __init__(self, issuer, resource):
        self.issuer = issuer
        self.resource = resource
        self.keys = None
        self.fetched_at = 0.0

    def _load_keys(self):
        metadata = fetch_json(self.issuer + "/.well-known/oauth-authorization-server")
        if metadata.get("issuer") != self.issuer:
            raise ValueError("the authorization server metadata names another issuer")
        return KeySet.import_key_set(fetch_json(metadata["jwks_uri"]))

    async def _key_set(self, refresh=False):
        # Fetched on first use (the provider may start after this server) and again, at most
        # every 10 s, when a token names a key the set lacks.
        if self.keys is None or (refresh and time.monotonic() - self.fetched_at > 10):
            self.keys = await anyio.to_thread.run_sync(self._load_keys)
            self.fetched_at = time.monotonic()
        return self.keys

    async def verify_token(self, token):
        try:
            keys = await self._key_set()
            try:
                decoded = jwt.decode(token, keys, algorithms=ALGORITHMS)
            except JoseError:
                decoded = jwt.decode(token, await self._key_set(refresh=True), algorithms=ALGORITHMS)
        except (JoseError, ValueError, OSError, KeyError):
            return None
        typ = str(decoded.header.get("typ", "")).lower()
        if typ not in ("at+jwt", "application/at+jwt"):
            return None
        claims = decoded.claims
        if claims.get("iss") != self.issuer:
            return None
        audience = claims.get("aud")
        audiences = audience if isinstance(audience, list) else [audience]
        if self.resource not in audiences:
            return None
        expires = claims.get("exp")
        if not isinstance(expires, (int, float)) or expires <= time.time():
            return None
        client_id = claims.get("client_id")
        if not isinstance(client_id, str):
            return None
        scope = claims.get("scope", "")
        scopes = scope.split() if isinstance(scope, str) else []
        return AccessToken(token=token, client_id=client_id, scopes=scopes, expires_at=int(expires),
                           resource=self.resource, subject=claims.get("sub"), claims={"iss": self.issuer})


class ToolScopes:
    """Answers a `tools/call` whose tool needs scopes the token lacks with 403 insufficient_scope.

    Runs after the package's authentication middleware (scope["user"] is set);
    leaves everything else, including a request without a valid token, to the
    package's RequireAuthMiddleware inside it.
    """

    def __init__(self, app, metadata_url):
        self.app = app
        self.metadata_url = metadata_url

    async def __call__(self, scope, receive, send):
        user = scope.get("user")
        if scope["type"] != "http" or scope["method"] != "POST" or not isinstance(user, AuthenticatedUser):
            return await self.app(scope, receive, send)
        messages, body = [], b""
        while True:
            message = await receive()
            messages.append(message)
            if message["type"] != "http.request":
                break
            body += message.get("body", b"")
            if len(body) > MAX_BODY:  # never pass on a body whose calls were not read
                return await self.answer(send, 413, {"error": "request_too_large"})
            if not message.get("more_body", False):
                break

        async def replay():
            if messages:
                return messages.pop(0)
            return await receive()

        needed = self.needed_scopes(body)
        if any(s not in user.scopes for s in needed):
            challenge = (f'Bearer error="insufficient_scope", scope="{" ".join(needed)}", '
                         f'resource_metadata="{self.metadata_url}"')
            return await self.answer(send, 403, {"error": "insufficient_scope",
                                                 "error_description": "this tool needs scope " + " ".join(needed)},
                                     challenge)
        await self.app(scope, replay, send)

    @staticmethod
    def needed_scopes(body):
        try:
            request = json.loads(body)
        except ValueError:
            return []
        needed = []
        for call in request if isinstance(request, list) else [request]:
            if isinstance(call, dict) and call.get("method") == "tools/call" and isinstance(call.get("params"), dict):
                name = call["params"].get("name")
                for scope in TOOL_SCOPES.get(name, [BASE_SCOPE]) if isinstance(name, str) else [BASE_SCOPE]:
                    if scope not in needed:
                        needed.append(scope)
        return needed

    @staticmethod
    async def answer(send, status, value, challenge=None):
        body = json.dumps(value).encode()
        headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
        if challenge:
            headers.append((b"www-authenticate", challenge.encode()))
        await send({"type": "http.response.start", "status": status, "headers": headers})
        await send({"type": "http.response.body", "body": body})


def make_app(issuer, resource):
    path = urlsplit(resource).path
    server = MCPServer(
        name="authflow-interop-mcp",
        token_verifier=JWTAccessTokenVerifier(issuer, resource),
        auth=AuthSettings(issuer_url=issuer, resource_server_url=resource, required_scopes=[BASE_SCOPE],
                          validate_token_resource=True),
        log_level="WARNING",
    )

    @server.tool(description="Echoes the text (needs scope mcp:tools).")
    def echo(text: str) -> str:
        return text

    @server.tool(description="Echoes the text (needs scopes mcp:tools and mcp:admin).")
    def admin_echo(text: str) -> str:
        return "admin: " + text

    app = server.streamable_http_app(streamable_http_path=path, stateless_http=True, json_response=True)
    parts = urlsplit(resource)
    metadata_url = f"{parts.scheme}://{parts.netloc}/.well-known/oauth-protected-resource{path}"
    for route in app.routes:
        if getattr(route, "path", None) == path:
            route.app = ToolScopes(route.app, metadata_url)
            break
    else:
        raise SystemExit(f"no route at {path}")
    return app


async def serve_app(app, port, ready):
    """Serves `app` on 127.0.0.1:`port`, printing the lines `ready` once it listens (the tests wait for READY)."""
    config = uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", lifespan="on", access_log=False)
    server = uvicorn.Server(config)
    task = asyncio.create_task(server.serve())
    for _ in range(600):  # bounded: 30 s
        if server.started or task.done():
            break
        await asyncio.sleep(0.05)
    if server.started:
        print(ready, flush=True)
    await task


async def serve(port, issuer, resource):
    await serve_app(make_app(issuer, resource), port, "READY")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--issuer", required=True)
    parser.add_argument("--resource", required=True, help="the MCP endpoint's URL, http://127.0.0.1:PORT/mcp")
    args = parser.parse_args()
    parts = urlsplit(args.resource)
    if parts.hostname != "127.0.0.1" or parts.port != args.port or not parts.path.startswith("/"):
        parser.error("--resource must be http://127.0.0.1:PORT/PATH with the --port given")
    asyncio.run(serve(args.port, args.issuer, args.resource))
    return 0


if __name__ == "__main__":
    sys.exit(main())
