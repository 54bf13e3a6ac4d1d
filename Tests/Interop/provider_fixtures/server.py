"""A small OAuth 2.0 / OpenID Connect server on 127.0.0.1, shaped by a provider profile.

One server, parameterised by the data in ``profiles.py``: where discovery lives
and what it names, which client authentication the token endpoint demands, the
members of token responses, the ID-token claims, the error format and status,
the revocation answer, form_post. Each profile cites the documentation each
fact comes from. Written for AuthFlow's tests from the providers' public
documentation; it is a fixture, not an implementation of any provider.
"""

import base64
import hashlib
import html
import json
import secrets
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import padding, rsa


def b64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


class Signer:
    """An RS256 key and its JWK Set."""

    def __init__(self):
        self.key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        self.kid = "fixture-" + secrets.token_hex(4)

    def jwks(self):
        numbers = self.key.public_key().public_numbers()
        def encode(value):
            return b64url(value.to_bytes((value.bit_length() + 7) // 8, "big"))
        return {"keys": [{"kty": "RSA", "use": "sig", "alg": "RS256", "kid": self.kid,
                          "n": encode(numbers.n), "e": encode(numbers.e)}]}

    def sign(self, claims):
        header = {"alg": "RS256", "typ": "JWT", "kid": self.kid}
        signing_input = b64url(json.dumps(header).encode()) + "." + b64url(json.dumps(claims).encode())
        signature = self.key.sign(signing_input.encode(), padding.PKCS1v15(), hashes.SHA256())
        return signing_input + "." + b64url(signature)


class ProviderFixture:
    """Runs one profile on 127.0.0.1 (ephemeral port) until ``stop``.

    ``events`` records what clients did (token grants, revocations, userinfo
    calls), so tests can check that AuthFlow called what the guide promises.
    """

    def __init__(self, profile):
        self.profile = profile
        self.signer = Signer()
        self.codes = {}
        self.tokens = {}          # access or refresh token -> record
        self.events = []
        self.lock = threading.Lock()
        self.first_authorization = True
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.base = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    # ------------------------------------------------------------------ urls
    def url(self, name):
        return self.base + self.profile["paths"][name]

    @property
    def issuer(self):
        """The issuer a user types (for Entra multi-tenant: the `common` authority)."""
        return self.base + self.profile["issuer_path"]

    @property
    def document_issuer(self):
        """The issuer the discovery document names."""
        return self.base + self.profile.get("document_issuer_path", self.profile["issuer_path"])

    def token_issuer(self, tenant):
        return self.document_issuer.replace("{tenantid}", tenant) if tenant else self.document_issuer

    def start(self):
        self.thread.start()
        return self

    def stop(self):
        self.httpd.shutdown()
        self.httpd.server_close()

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()

    def event(self, kind, **details):
        with self.lock:
            self.events.append(dict(kind=kind, **details))

    def kinds(self):
        with self.lock:
            return [e["kind"] for e in self.events]

    # ------------------------------------------------------------ documents
    def discovery_document(self):
        p = self.profile
        doc = {"issuer": self.document_issuer}
        names = {"authorize": "authorization_endpoint", "token": "token_endpoint", "userinfo": "userinfo_endpoint",
                 "jwks": "jwks_uri", "revoke": "revocation_endpoint", "end_session": "end_session_endpoint"}
        for key, member in names.items():
            if key in p["paths"] and key in p.get("advertise", p["paths"].keys()):
                doc[member] = self.url(key)
        doc.update(p.get("discovery_extra", {}))
        return doc

    def id_token(self, client_id, nonce, scopes, tenant):
        p = self.profile
        now = int(time.time())
        claims = {"iss": self.token_issuer(tenant), "sub": p["subject"], "aud": client_id,
                  "iat": now, "exp": now + 600}
        if nonce and p.get("id_token_nonce", True):
            claims["nonce"] = nonce
        if tenant:
            claims["tid"] = tenant
        claims.update(p.get("id_token_claims", {}))
        return self.signer.sign(claims)

    # -------------------------------------------------------------- handler
    def _handler(self):
        fixture = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"  # every answer has a Content-Length

            def log_message(self, fmt, *args):  # keep codes and tokens out of test output
                pass

            # -- helpers
            def send(self, status, body=b"", content_type="application/json", headers=()):
                if isinstance(body, (dict, list)):
                    body = json.dumps(body).encode()
                elif isinstance(body, str):
                    body = body.encode()
                self.send_response(status)
                self.send_header("Content-Type", content_type)
                self.send_header("Content-Length", str(len(body)))
                self.send_header("Cache-Control", "no-store")
                for name, value in headers:
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(body)

            def form(self):
                length = int(self.headers.get("Content-Length") or 0)
                return dict(urllib.parse.parse_qsl(self.rfile.read(length).decode(), keep_blank_values=True))

            def oauth_error(self, error, description, status=None):
                p = fixture.profile
                body = {"error": error, "error_description": description}
                body.update(p.get("error_extra", {}))
                self.send(status or p.get("error_status", 400), body)

            def client_id(self, form):
                """The client, authenticated the way the profile demands."""
                p = fixture.profile
                auth = self.headers.get("Authorization", "")
                used, client, secret = "none", form.get("client_id"), None
                if auth.startswith("Basic "):
                    decoded = base64.b64decode(auth[6:]).decode()
                    client, _, secret = decoded.partition(":")
                    client, secret = urllib.parse.unquote(client), urllib.parse.unquote(secret)
                    used = "basic"
                elif "client_secret" in form:
                    secret, used = form["client_secret"], "post"
                if used not in p["client_auth"]:
                    return None, f"client authentication {used} is not accepted here"
                if client != p["client_id"] or (used != "none" and secret != p.get("client_secret")):
                    return None, "unknown client or wrong secret"
                return client, None

            # -- GET
            def do_GET(self):  # noqa: N802
                p = fixture.profile
                parsed = urllib.parse.urlsplit(self.path)
                query = dict(urllib.parse.parse_qsl(parsed.query, keep_blank_values=True))
                well_known = p["issuer_path"] + "/.well-known/openid-configuration"
                if parsed.path == well_known and p.get("discovery", True):
                    return self.send(200, fixture.discovery_document())
                paths = p["paths"]
                if parsed.path == paths.get("authorize"):
                    return self.authorize(query)
                if parsed.path == paths.get("jwks"):
                    return self.send(200, fixture.signer.jwks())
                if parsed.path == paths.get("userinfo"):
                    return self.userinfo()
                if parsed.path == paths.get("end_session"):
                    fixture.event("end_session")
                    return self.send(200, "signed out", "text/plain")
                self.send(404, {"error": "not_found"})

            def authorize(self, q):
                p = fixture.profile
                redirect = q.get("redirect_uri", "")
                host = urllib.parse.urlsplit(redirect).hostname
                if q.get("client_id") != p["client_id"] or host not in ("127.0.0.1", "localhost"):
                    return self.send(400, "unknown client or redirect URI", "text/plain")
                if q.get("response_type") != "code" or q.get("code_challenge_method") != "S256" or not q.get("code_challenge"):
                    return self.redirect_error(redirect, q, "invalid_request", "PKCE S256 and response_type=code are required")
                if p.get("authorize_error"):  # the user refused, or prompt=none found no session
                    return self.redirect_error(redirect, q, p["authorize_error"], p.get("authorize_error_description", "refused"))
                scopes = [s for s in q.get("scope", "").split(" ") if s]
                mode = q.get("response_mode", "query")
                needs_post = p.get("form_post_scopes")
                if needs_post and set(scopes) & set(needs_post) and mode != "form_post":
                    return self.redirect_error(redirect, q, "invalid_request",
                                               "response_mode must be form_post when name or email scope is requested")
                code = secrets.token_urlsafe(24)
                tenant = p.get("tenant_id")
                with fixture.lock:
                    fixture.codes[code] = dict(client_id=q["client_id"], redirect_uri=redirect, challenge=q["code_challenge"],
                                               nonce=q.get("nonce"), scopes=scopes, tenant=tenant)
                    first = fixture.first_authorization
                    fixture.first_authorization = False
                params = [("code", code), ("state", q.get("state", ""))]
                if p.get("callback_iss"):
                    params.append(("iss", fixture.token_issuer(tenant)))
                if mode == "form_post":
                    if first:
                        params += list(p.get("form_post_first_extra", {}).items())
                    return self.form_post(redirect, params)
                self.send_redirect(redirect, params)

            def redirect_error(self, redirect, q, error, description):
                params = [("error", error), ("error_description", description), ("state", q.get("state", ""))]
                if q.get("response_mode") == "form_post":
                    return self.form_post(redirect, params)
                self.send_redirect(redirect, params)

            def send_redirect(self, redirect, params):
                separator = "&" if "?" in redirect else "?"
                self.send(302, b"", "text/plain", [("Location", redirect + separator + urllib.parse.urlencode(params))])

            def form_post(self, redirect, params):
                inputs = "".join(f'<input type="hidden" name="{html.escape(n)}" value="{html.escape(v)}">' for n, v in params)
                page = (f'<!doctype html><html><body onload="document.forms[0].submit()">'
                        f'<form method="post" action="{html.escape(redirect)}">{inputs}</form></body></html>')
                self.send(200, page, "text/html; charset=utf-8")

            def userinfo(self):
                auth = self.headers.get("Authorization", "")
                record = fixture.tokens.get(auth[7:]) if auth.startswith("Bearer ") else None
                if not record or record.get("revoked") or record["kind"] != "access":
                    return self.send(401, b"", headers=[("WWW-Authenticate", 'Bearer error="invalid_token"')])
                fixture.event("userinfo")
                body = {"sub": fixture.profile["subject"]}
                body.update(fixture.profile.get("userinfo_extra", {}))
                self.send(200, body)

            # -- POST
            def do_POST(self):  # noqa: N802
                p = fixture.profile
                path = urllib.parse.urlsplit(self.path).path
                form = self.form()
                if path == p["paths"].get("token"):
                    return self.token(form)
                if path == p["paths"].get("revoke"):
                    return self.revoke(form)
                if path == p["paths"].get("end_session"):
                    # The provider's own "signed out" page, never a redirect back
                    # (Okta, Auth0, Entra ID, Cognito as their documentation describes).
                    fixture.event("end_session")
                    return self.send(200, "signed out", "text/plain")
                self.send(404, {"error": "not_found"})

            def token(self, form):
                p = fixture.profile
                client, problem = self.client_id(form)
                if not client:
                    return self.oauth_error(p.get("invalid_client_error", "invalid_client"), problem, p.get("invalid_client_status", 401))
                grant = form.get("grant_type")
                if grant == "authorization_code":
                    with fixture.lock:
                        record = fixture.codes.pop(form.get("code", ""), None)
                    if not record or record["redirect_uri"] != form.get("redirect_uri"):
                        return self.oauth_error(p.get("bad_code_error", "invalid_grant"), "The code passed is incorrect or expired.")
                    verifier = form.get("code_verifier", "")
                    if b64url(hashlib.sha256(verifier.encode()).digest()) != record["challenge"]:
                        return self.oauth_error("invalid_grant", "PKCE verification failed")
                    fixture.event("token", grant="authorization_code")
                    return self.issue(client, record["scopes"], record["nonce"], record["tenant"])
                if grant == "refresh_token" and p.get("refresh"):
                    with fixture.lock:
                        record = fixture.tokens.get(form.get("refresh_token", ""))
                    if not record or record["kind"] != "refresh" or record.get("revoked"):
                        return self.oauth_error("invalid_grant", "refresh token is invalid or revoked")
                    fixture.event("token", grant="refresh_token")
                    if p.get("rotate_refresh"):
                        record["revoked"] = True
                    return self.issue(client, record["scopes"], None, record["tenant"], refresh=p.get("rotate_refresh", False),
                                      id_token=p.get("id_token_on_refresh", False))
                self.oauth_error("unsupported_grant_type", f"grant_type {grant} is not supported")

            def issue(self, client, scopes, nonce, tenant, refresh=True, id_token=True):
                p = fixture.profile
                access = p.get("access_token_prefix", "") + secrets.token_urlsafe(24)
                body = {"access_token": access, "token_type": p.get("token_type", "Bearer")}
                with fixture.lock:
                    fixture.tokens[access] = dict(kind="access", scopes=scopes, tenant=tenant)
                if "expires_in" in p:
                    body["expires_in"] = p["expires_in"]
                if p.get("refresh") and refresh:
                    token = p.get("refresh_token_prefix", "") + secrets.token_urlsafe(24)
                    with fixture.lock:
                        fixture.tokens[token] = dict(kind="refresh", scopes=scopes, tenant=tenant)
                    body["refresh_token"] = token
                granted = p.get("granted_scopes", scopes)
                if granted is not None and p.get("scope_member", True):
                    body["scope"] = ("," if p.get("scope_separator") == "," else " ").join(granted)
                if id_token and "openid" in scopes and p.get("id_token", True):
                    body["id_token"] = fixture.id_token(client, nonce, scopes, tenant)
                body.update(p.get("token_extra", {}))
                self.send(200, body)

            def revoke(self, form):
                p = fixture.profile
                client, problem = self.client_id(form)
                if not client:
                    return self.oauth_error("invalid_client", problem, 401)
                with fixture.lock:
                    record = fixture.tokens.get(form.get("token", ""))
                    if record:
                        record["revoked"] = True
                fixture.event("revoke", hint=form.get("token_type_hint"), token_kind=record["kind"] if record else None)
                answer = p.get("revocation_answer", {"status": 200, "body": ""})
                self.send(answer["status"], answer["body"])

        return Handler
