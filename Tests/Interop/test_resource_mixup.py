"""`authflow login --resource` and the authorization-server mix-up
(RFC 9700 §4.4): a hostile API on one loopback port names its own
authorization server E, whose metadata sends the user to an honest server H
on another port (directly, or through E's own authorization endpoint with
the redirect URI rewritten) and whose registration answers with H's public
client ID. H, like many real servers, sends no `iss`. The browser is curl
following redirects. H's code and the PKCE verifier must never reach E's
token endpoint, and no profile is written."""

import http.server
import json
import os
import subprocess
import threading
import urllib.parse

import pytest

AUTHFLOW_BIN = os.environ.get("AUTHFLOW_BIN")
pytestmark = pytest.mark.skipif(not AUTHFLOW_BIN, reason="AUTHFLOW_BIN is not set")

# H's public client, registered (as an AuthFlow without the defence registered it) with the plain loopback URI.
H_CLIENT = "h-public"
H_REDIRECT = "http://127.0.0.1/callback"


def loopback_match(requested, registered):
    """Exact, except that a registered loopback URI without a port accepts any port (RFC 8252 §7.3)."""
    if requested == registered:
        return True
    want, got = urllib.parse.urlsplit(registered), urllib.parse.urlsplit(requested)
    return (want.scheme == got.scheme == "http" and want.port is None and want.hostname == got.hostname == "127.0.0.1"
            and want.path == got.path and want.query == got.query)


class Recorder:
    def __init__(self):
        self.token_requests = []
        self.authorize_requests = []


def json_reply(handler, value, status=200):
    body = json.dumps(value).encode()
    handler.send_response(status)
    handler.send_header("Content-Type", "application/json")
    handler.send_header("Content-Length", str(len(body)))
    handler.end_headers()
    handler.wfile.write(body)


def redirect(handler, location):
    handler.send_response(302)
    handler.send_header("Location", location)
    handler.send_header("Content-Length", "0")
    handler.end_headers()


def serve(handler_class):
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler_class)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


@pytest.fixture
def servers():
    """H (honest, no iss) and E (hostile): (H base, E base, E's recorder, H's recorder, mode setter)."""
    h_seen, e_seen = Recorder(), Recorder()
    mode = {"rewrite": False}

    class Honest(http.server.BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def do_GET(self):
            base = f"http://127.0.0.1:{self.server.server_port}"
            url = urllib.parse.urlsplit(self.path)
            if url.path == "/.well-known/oauth-authorization-server":
                return json_reply(self, {
                    "issuer": base, "authorization_endpoint": f"{base}/authorize", "token_endpoint": f"{base}/token",
                    "code_challenge_methods_supported": ["S256"], "response_types_supported": ["code"]})
            if url.path == "/authorize":
                query = dict(urllib.parse.parse_qsl(url.query))
                h_seen.authorize_requests.append(query)
                if query.get("client_id") != H_CLIENT or not loopback_match(query.get("redirect_uri", ""), H_REDIRECT):
                    # An unregistered redirect URI: an error page, never a redirect.
                    body = b"invalid redirect_uri"
                    self.send_response(400)
                    self.send_header("Content-Length", str(len(body)))
                    self.end_headers()
                    return self.wfile.write(body)
                # The user signs in; the code goes back without iss, as many servers do.
                separator = "&" if "?" in query["redirect_uri"] else "?"
                return redirect(self, query["redirect_uri"] + separator
                                + urllib.parse.urlencode({"code": "H-CODE", "state": query.get("state", "")}))
            json_reply(self, {"error": "not_found"}, 404)

        def do_POST(self):
            length = int(self.headers.get("Content-Length", "0"))
            h_seen.token_requests.append(self.rfile.read(length).decode())
            json_reply(self, {"error": "invalid_grant"}, 400)

    honest = serve(Honest)
    h_base = f"http://127.0.0.1:{honest.server_port}"

    class Hostile(http.server.BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def do_GET(self):
            base = f"http://127.0.0.1:{self.server.server_port}"
            url = urllib.parse.urlsplit(self.path)
            if url.path == "/api":
                self.send_response(401)
                self.send_header("WWW-Authenticate", f'Bearer resource_metadata="{base}/.well-known/oauth-protected-resource/api"')
                self.send_header("Content-Length", "0")
                return self.end_headers()
            if url.path == "/.well-known/oauth-protected-resource/api":
                return json_reply(self, {"resource": f"{base}/api", "authorization_servers": [f"{base}/as"]})
            if url.path == "/.well-known/oauth-authorization-server/as":
                authorize = f"{base}/as/authorize" if mode["rewrite"] else f"{h_base}/authorize"
                return json_reply(self, {
                    "issuer": f"{base}/as", "authorization_endpoint": authorize, "token_endpoint": f"{base}/as/token",
                    "registration_endpoint": f"{base}/as/register", "code_challenge_methods_supported": ["S256"],
                    "response_types_supported": ["code"]})
            if url.path == "/as/authorize":
                # Forward to H with the redirect URI rewritten to the one H's client has (the listener's port kept).
                e_seen.authorize_requests.append(url.query)
                pairs = []
                for name, value in urllib.parse.parse_qsl(url.query):
                    if name == "redirect_uri":
                        value = f"http://127.0.0.1:{urllib.parse.urlsplit(value).port}/callback"
                    pairs.append((name, value))
                return redirect(self, f"{h_base}/authorize?" + urllib.parse.urlencode(pairs))
            json_reply(self, {"error": "not_found"}, 404)

        def do_POST(self):
            length = int(self.headers.get("Content-Length", "0"))
            body = self.rfile.read(length).decode()
            if self.path == "/as/register":
                return json_reply(self, {"client_id": H_CLIENT}, 201)
            if self.path == "/as/token":
                e_seen.token_requests.append(body)
            json_reply(self, {"error": "invalid_grant"}, 400)

    hostile = serve(Hostile)
    e_base = f"http://127.0.0.1:{hostile.server_port}"
    yield h_base, e_base, e_seen, h_seen, mode
    hostile.shutdown()
    honest.shutdown()


def login(tmp_path, resource):
    env = dict(os.environ, XDG_CONFIG_HOME=str(tmp_path / "config"), HOME=str(tmp_path), BROWSER="curl -s -o /dev/null -L")
    return subprocess.run([AUTHFLOW_BIN, "login", "--resource", resource, "--timeout", "3", "--browser-timeout", "5", "--json"],
                          env=env, capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)


def test_hostile_metadata_naming_the_honest_authorization_endpoint_gets_no_code(servers, tmp_path):
    h_base, e_base, e_seen, h_seen, mode = servers
    result = login(tmp_path, f"{e_base}/api")
    assert e_seen.token_requests == []
    assert result.returncode == 5, (result.stdout, result.stderr[-2000:])
    assert json.loads(result.stdout)["error"]["category"] == "timeout"
    # H saw the request with E's issuer-specific redirect URI, which its client does not have: no code was issued.
    assert len(h_seen.authorize_requests) == 1
    assert "/callback/as-" in h_seen.authorize_requests[0]["redirect_uri"]
    assert e_seen.token_requests == []
    assert not (tmp_path / "config" / "authflow" / "default.json").exists()


def test_hostile_authorization_endpoint_rewriting_the_redirect_uri_gets_no_code(servers, tmp_path):
    h_base, e_base, e_seen, h_seen, mode = servers
    mode["rewrite"] = True
    result = login(tmp_path, f"{e_base}/api")
    assert e_seen.token_requests == []
    assert result.returncode == 1, (result.stdout, result.stderr[-2000:])
    error = json.loads(result.stdout)["error"]
    assert error["category"] == "invalid_response", error
    assert error["description"] == "callback is not for the redirect URI that was sent", error
    assert len(e_seen.authorize_requests) == 1 and len(h_seen.authorize_requests) == 1
    assert e_seen.token_requests == []
    assert not (tmp_path / "config" / "authflow" / "default.json").exists()
