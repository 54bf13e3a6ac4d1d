#!/usr/bin/env python3
"""An MCP server built with the Python `mcp` package whose own authorization
server takes Identity Assertion JWT Authorization Grants (ID-JAG) from one
trusted enterprise identity provider (MCP's enterprise-managed
authorization, SEP-990; draft-ietf-oauth-identity-assertion-authz-grant).

    mcp_idjag_server.py --port PORT --trusted-idp ISSUER --client-id ID \\
        --client-secret-env VARIABLE [--client-auth client_secret_post]

One process on 127.0.0.1:PORT is both the authorization server (issuer
http://127.0.0.1:PORT: RFC 8414 metadata, /token, /authorize) and the MCP
server (http://127.0.0.1:PORT/mcp, streamable HTTP, stateless with JSON
answers), with the package's own routes, handlers and bearer middleware; this
file adds the `OAuthAuthorizationServerProvider` (the package's
`exchange_identity_assertion` hook is where every rule below is checked: the
package itself only authenticates the client, checks that the client lists
the jwt-bearer grant and has a secret, and passes the assertion on unread).

One client is pre-registered: ID, with the secret read from the environment
variable VARIABLE, authenticating with client_secret_post (default) or
client_secret_basic, grant type urn:ietf:params:oauth:grant-type:jwt-bearer
only (the package refuses that grant in dynamic registration, and
registration is off). It never signs a user in here: /authorize refuses.

An ID-JAG presented with the JWT bearer grant (RFC 7523 §2.1) is accepted
when it is a JWS whose JOSE `typ` is `oauth-id-jag+jwt`, signed with a key of
the trusted identity provider's JWK Set (found by its discovery document,
fetched again at most every 10 s for an unknown key), `iss` the trusted
identity provider, `aud` this authorization server's issuer (a string, or a
one-element array), `client_id` the authenticated client, `resource` the MCP
server's URL, `exp` in the future, `iat` present and not in the future, `nbf`
(if any) passed, `sub` present, and a `jti` not presented before (kept until
`exp`). Anything else is 400 `invalid_grant` with an `error_description`
naming the rule (`aud`, `jti`, ...); a `resource` parameter naming another
resource is `invalid_target`, a scope the grant does not carry
`invalid_scope`. The access token is opaque (random), lives
--access-token-lifetime seconds (default 300), is bound to the client, the
grant's `sub` and the MCP server's URL, carries the grant's scopes (or those
asked for among them), and comes without a refresh token.

The MCP endpoint needs such a token with scope mcp:tools (401 / 403 from the
package's middleware otherwise; RFC 9728 metadata at
/.well-known/oauth-protected-resource/mcp). Tools: `whoami()` answers the
token's `sub`, client and scopes as JSON; `echo(text)` answers the text.

GET /interop/seen lists what happened, never a token: `requests` (method and
path of every HTTP request, no query) and `grants` (per JWT bearer grant: the
client, the outcome — `issued` or the error —, the description, the grant's
unverified `aud` and `jti`).

Prints `issuer: …`, `resource: …` and then `READY` on stdout once it listens;
stops on SIGINT or SIGTERM. Never logs a token or a secret.
"""

import argparse
import asyncio
import json
import os
import secrets
import sys
import threading
import time
import urllib.request

import anyio
from joserfc import jws
from joserfc.errors import JoseError
from joserfc.jwk import KeySet
from starlette.requests import Request
from starlette.responses import JSONResponse

from mcp.server.auth.middleware.auth_context import get_access_token
from mcp.server.auth.provider import AccessToken, AuthorizeError, IdentityAssertionParams, TokenError
from mcp.server.auth.settings import AuthSettings
from mcp.server.mcpserver import MCPServer
from mcp.shared.auth import JWT_BEARER_GRANT_TYPE, OAuthClientInformationFull, OAuthToken

from mcp_server import serve_app

ID_JAG_TYPES = ("oauth-id-jag+jwt", "application/oauth-id-jag+jwt")
TOOLS_SCOPE = "mcp:tools"
ALGORITHMS = ["ES256", "ES384", "ES512", "RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "EdDSA"]
CLOCK_SKEW = 30  # seconds of leeway for iat and nbf; exp gets none
MAX_DOCUMENT = 1 << 20


def fetch_json(url, timeout=10):
    with urllib.request.urlopen(url, timeout=timeout) as answer:  # noqa: S310 - loopback test servers
        return json.loads(answer.read(MAX_DOCUMENT))


class TrustedIdentityProvider:
    """The trusted identity provider's JWK Set, by its discovery document."""

    def __init__(self, issuer):
        self.issuer = issuer
        self.keys = None
        self.fetched_at = 0.0

    def _load(self):
        for path in ("/.well-known/openid-configuration", "/.well-known/oauth-authorization-server"):
            try:
                metadata = fetch_json(self.issuer + path)
            except OSError:
                continue
            if metadata.get("issuer") != self.issuer:
                raise ValueError("the identity provider's metadata names another issuer")
            return KeySet.import_key_set(fetch_json(metadata["jwks_uri"]))
        raise ValueError("the identity provider has no discovery document")

    async def key_set(self, refresh=False):
        # Fetched on first use and again, at most every 10 s, when a grant names a key the set lacks.
        if self.keys is None or (refresh and time.monotonic() - self.fetched_at > 10):
            self.keys = await anyio.to_thread.run_sync(self._load)
            self.fetched_at = time.monotonic()
        return self.keys


def refuse(rule):
    return TokenError(error="invalid_grant", error_description=f"the identity assertion was refused: {rule}")


def unverified_claims(assertion):
    """The payload of a compact JWS without checking it (only for /interop/seen)."""
    try:
        claims = json.loads(jws.extract_compact(assertion.encode()).payload)
    except (JoseError, ValueError, TypeError):
        return {}
    return claims if isinstance(claims, dict) else {}


class IdentityAssertionProvider:
    """The authorization server: one pre-registered confidential client, ID-JAGs in, opaque access tokens out."""

    def __init__(self, issuer, resource, idp, client, token_lifetime):
        self.issuer = issuer
        self.resource = resource
        self.idp = idp
        self.client = client
        self.token_lifetime = token_lifetime
        self.tokens = {}
        self.used = {}  # (iss, jti) -> exp
        self.lock = threading.Lock()
        self.seen = {"requests": [], "grants": []}

    # The pre-registered client; nothing else exists and nothing registers.

    async def get_client(self, client_id):
        return self.client if client_id == self.client.client_id else None

    async def register_client(self, client_info):
        raise NotImplementedError("registration is off")

    # No user signs in here: the authorization code and refresh grants have nothing to redeem.

    async def authorize(self, client, params):
        raise AuthorizeError(error="unauthorized_client", error_description="this server takes identity assertions only")

    async def load_authorization_code(self, client, authorization_code):
        return None

    async def exchange_authorization_code(self, client, authorization_code):
        raise TokenError(error="invalid_grant", error_description="no authorization codes are issued here")

    async def load_refresh_token(self, client, refresh_token):
        return None

    async def exchange_refresh_token(self, client, refresh_token, scopes):
        raise TokenError(error="invalid_grant", error_description="no refresh tokens are issued here")

    async def revoke_token(self, token):
        with self.lock:
            self.tokens.pop(token.token, None)

    async def load_access_token(self, token):
        with self.lock:
            found = self.tokens.get(token)
        if found is None or (found.expires_at is not None and found.expires_at <= time.time()):
            return None
        return found

    # The JWT bearer grant with an ID-JAG.

    async def exchange_identity_assertion(self, client: OAuthClientInformationFull, params: IdentityAssertionParams):
        unverified = unverified_claims(params.assertion)
        record = {"client_id": client.client_id, "aud": unverified.get("aud"), "jti": unverified.get("jti")}
        try:
            claims = await self.verify(params.assertion, client)
            if params.resource is not None and params.resource.rstrip("/") != self.resource:
                raise TokenError(error="invalid_target",
                                 error_description=f"this authorization server issues tokens for {self.resource} only")
            scopes = self.granted_scopes(claims, params.scopes)
            # No await from verify() on: the replay check and the mark happen in one step of the event loop.
            self.use_once(claims)
            token = self.issue(claims, client, scopes)
        except TokenError as error:
            record.update(outcome=error.error, description=error.error_description)
            self.seen["grants"].append(record)
            raise
        record.update(outcome="issued", description=None)
        self.seen["grants"].append(record)
        return token

    async def verify(self, assertion, client):
        try:
            header = jws.extract_compact(assertion.encode()).protected
        except (JoseError, ValueError, TypeError):
            raise refuse("it is not a JWS in compact serialization") from None
        typ = header.get("typ")
        if not isinstance(typ, str) or typ.lower() not in ID_JAG_TYPES:
            raise refuse(f"its JOSE typ is {typ!r}, not oauth-id-jag+jwt (typ)")
        try:
            try:
                verified = jws.deserialize_compact(assertion, await self.idp.key_set(), algorithms=ALGORITHMS)
            except JoseError:
                verified = jws.deserialize_compact(assertion, await self.idp.key_set(refresh=True), algorithms=ALGORITHMS)
        except JoseError:
            raise refuse("the signature does not verify with the trusted identity provider's keys (signature)") from None
        except (ValueError, OSError, KeyError):
            raise TokenError(error="invalid_grant",
                             error_description="the trusted identity provider's keys could not be read") from None
        try:
            claims = json.loads(verified.payload)
        except (TypeError, ValueError):
            claims = None
        if not isinstance(claims, dict):
            raise refuse("its payload is not a JSON object")
        now = time.time()
        if claims.get("iss") != self.idp.issuer:
            raise refuse(f"it was issued by {claims.get('iss')!r}, not the trusted identity provider (iss)")
        audience = claims.get("aud")
        audiences = audience if isinstance(audience, list) else [audience]
        if audiences != [self.issuer]:
            raise refuse(f"it is for the authorization server {audience!r}, not {self.issuer} (aud)")
        if claims.get("client_id") != client.client_id:
            raise refuse(f"it is for the client {claims.get('client_id')!r}, not the authenticated client (client_id)")
        resource = claims.get("resource")
        resources = resource if isinstance(resource, list) else [resource]
        if self.resource not in [r.rstrip("/") if isinstance(r, str) else r for r in resources]:
            raise refuse(f"it is for the resource {resource!r}, not {self.resource} (resource)")
        expires = claims.get("exp")
        if not isinstance(expires, (int, float)) or isinstance(expires, bool) or expires <= now:
            raise refuse("it has expired (exp)")
        issued = claims.get("iat")
        if not isinstance(issued, (int, float)) or isinstance(issued, bool) or issued > now + CLOCK_SKEW:
            raise refuse("its issue time is missing or in the future (iat)")
        not_before = claims.get("nbf")
        if not_before is not None and (not isinstance(not_before, (int, float)) or not_before > now + CLOCK_SKEW):
            raise refuse("it is not valid yet (nbf)")
        if not isinstance(claims.get("sub"), str) or not claims["sub"]:
            raise refuse("it names no subject (sub)")
        jti = claims.get("jti")
        if not isinstance(jti, str) or not jti:
            raise refuse("it has no identifier (jti)")
        with self.lock:
            if (claims["iss"], jti) in self.used:
                raise refuse("it was already used (jti)")
        return claims

    def use_once(self, claims):
        """Remembers the grant's jti until its exp; a second presentation is refused above."""
        now = time.time()
        with self.lock:
            for key, until in list(self.used.items()):
                if until <= now:
                    del self.used[key]
            key = (claims["iss"], claims["jti"])
            if key in self.used:
                raise refuse("it was already used (jti)")
            self.used[key] = claims["exp"]

    @staticmethod
    def granted_scopes(claims, requested):
        carried = claims.get("scope", "")
        carried = carried.split() if isinstance(carried, str) else []
        if requested is None:
            return carried
        for scope in requested:
            if scope not in carried:
                raise TokenError(error="invalid_scope",
                                 error_description=f"the scope {scope} is not in the identity assertion")
        return list(dict.fromkeys(requested))

    def issue(self, claims, client, scopes):
        token = secrets.token_urlsafe(32)
        expires_at = int(time.time()) + self.token_lifetime
        with self.lock:
            self.tokens[token] = AccessToken(
                token=token, client_id=client.client_id, scopes=scopes, expires_at=expires_at, resource=self.resource,
                subject=claims["sub"], claims={"iss": self.issuer, "idp": claims["iss"]})
        return OAuthToken(access_token=token, token_type="Bearer", expires_in=self.token_lifetime,
                          scope=" ".join(scopes) if scopes else None)


class RequestLog:
    """Keeps the method and path (no query) of every HTTP request."""

    def __init__(self, app, seen):
        self.app = app
        self.seen = seen

    async def __call__(self, scope, receive, send):
        if scope["type"] == "http":
            self.seen["requests"].append([scope["method"], scope["path"]])
        await self.app(scope, receive, send)


def make_app(port, trusted_idp, client, token_lifetime):
    issuer = f"http://127.0.0.1:{port}"
    resource = f"{issuer}/mcp"
    provider = IdentityAssertionProvider(issuer, resource, TrustedIdentityProvider(trusted_idp), client, token_lifetime)
    server = MCPServer(
        name="authflow-interop-mcp-idjag",
        auth_server_provider=provider,
        auth=AuthSettings(issuer_url=issuer, resource_server_url=resource, required_scopes=[TOOLS_SCOPE],
                          validate_token_resource=True, identity_assertion_enabled=True),
        log_level="WARNING",
    )

    @server.tool(description="Who the access token names: its sub, client and scopes.")
    def whoami() -> str:
        token = get_access_token()
        if token is None:
            return json.dumps({})
        return json.dumps({"sub": token.subject, "client_id": token.client_id, "scopes": token.scopes,
                           "idp": (token.claims or {}).get("idp")}, sort_keys=True)

    @server.tool(description="Echoes the text.")
    def echo(text: str) -> str:
        return text

    @server.custom_route("/interop/seen", methods=["GET"])
    async def seen(request: Request):
        return JSONResponse(provider.seen)

    app = server.streamable_http_app(streamable_http_path="/mcp", stateless_http=True, json_response=True)
    return issuer, resource, RequestLog(app, provider.seen)


async def serve(port, trusted_idp, client, token_lifetime):
    issuer, resource, app = make_app(port, trusted_idp, client, token_lifetime)
    await serve_app(app, port, f"issuer: {issuer}\nresource: {resource}\nREADY")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--trusted-idp", required=True, help="the issuer of the identity provider whose ID-JAGs are taken")
    parser.add_argument("--client-id", required=True)
    parser.add_argument("--client-secret-env", required=True, metavar="VARIABLE",
                        help="the environment variable holding the client's secret")
    parser.add_argument("--client-auth", choices=["client_secret_post", "client_secret_basic"],
                        default="client_secret_post")
    parser.add_argument("--access-token-lifetime", type=int, default=300)
    args = parser.parse_args()
    secret = os.environ.get(args.client_secret_env)
    if not secret:
        parser.error(f"the environment variable {args.client_secret_env} is not set")
    if not args.trusted_idp.startswith(("http://127.0.0.1:", "https://")):
        parser.error("--trusted-idp must be https or http://127.0.0.1:PORT")
    client = OAuthClientInformationFull(
        client_id=args.client_id, client_secret=secret, redirect_uris=None, grant_types=[JWT_BEARER_GRANT_TYPE],
        token_endpoint_auth_method=args.client_auth, scope=TOOLS_SCOPE)
    asyncio.run(serve(args.port, args.trusted_idp, client, args.access_token_lifetime))
    return 0


if __name__ == "__main__":
    sys.exit(main())
