"""`authflow login --resource` against hostile APIs: a small HTTP server on
127.0.0.1 serves protected resource metadata that must be refused — it
describes another resource, names no authorization server, names one on
plain http off loopback, is far too large, or never finishes — and
authorization servers whose metadata is far too large or never finishes, or
whose registration answer has no client_id. Each is a
clear error with its category and exit code, within the timeout, and no
profile is written."""

import http.server
import json
import os
import subprocess
import threading
import time

import pytest

AUTHFLOW_BIN = os.environ.get("AUTHFLOW_BIN")
pytestmark = pytest.mark.skipif(not AUTHFLOW_BIN, reason="AUTHFLOW_BIN is not set")


class Hostile(http.server.BaseHTTPRequestHandler):
    """Answers by the first path segment: the case under test."""

    def log_message(self, *args):
        pass

    def base(self):
        return f"http://127.0.0.1:{self.server.server_port}"

    def send_json(self, value, status=200):
        body = json.dumps(value).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def send_huge(self):
        body = b'{"issuer":"' + b"x" * (4 << 20) + b'"}'
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        try:
            self.wfile.write(body)
        except OSError:
            pass

    def send_slowly(self):
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", "1000")
        self.end_headers()
        self.wfile.write(b"{")
        self.wfile.flush()
        time.sleep(8)

    def do_GET(self):
        base = self.base()
        path = self.path
        if not path.startswith("/.well-known/"):
            # The API itself: a 401 naming its metadata.
            self.send_response(401)
            self.send_header("WWW-Authenticate", f'Bearer resource_metadata="{base}/.well-known/oauth-protected-resource{path}"')
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        case = path.split("/")[3] if path.count("/") >= 3 else ""
        servers = [f"{base}/as-{case}"]
        if path.startswith("/.well-known/oauth-protected-resource/"):
            if case == "other":
                return self.send_json({"resource": f"{base}/elsewhere", "authorization_servers": servers})
            if case == "empty":
                return self.send_json({"resource": f"{base}/empty", "authorization_servers": []})
            if case == "plain":
                return self.send_json({"resource": f"{base}/plain", "authorization_servers": ["http://as.example.com"]})
            if case == "huge":
                return self.send_huge()
            if case == "slow":
                return self.send_slowly()
            if case in ("noid", "ashuge", "asslow", "secret"):
                return self.send_json({"resource": f"{base}/{case}", "authorization_servers": servers})
        # The authorization server's metadata: far too large, or never finished.
        if path == "/.well-known/oauth-authorization-server/as-ashuge":
            return self.send_huge()
        if path == "/.well-known/oauth-authorization-server/as-asslow":
            return self.send_slowly()
        if path == "/.well-known/oauth-authorization-server/as-secret":
            # An authorization server of the resource's choosing that requires PAR: a
            # client with a secret would authenticate to it before any browser opens.
            return self.send_json({
                "issuer": f"{base}/as-secret", "authorization_endpoint": f"{base}/as-secret/authorize",
                "token_endpoint": f"{base}/as-secret/token", "pushed_authorization_request_endpoint": f"{base}/as-secret/par",
                "require_pushed_authorization_requests": True, "code_challenge_methods_supported": ["S256"]})
        if path == "/.well-known/oauth-authorization-server/as-noid":
            return self.send_json({
                "issuer": f"{base}/as-noid", "authorization_endpoint": f"{base}/as-noid/authorize",
                "token_endpoint": f"{base}/as-noid/token", "registration_endpoint": f"{base}/as-noid/register",
                "code_challenge_methods_supported": ["S256"]})
        self.send_json({"error": "not_found"}, status=404)

    def do_POST(self):
        length = int(self.headers.get("Content-Length", "0"))
        body = self.rfile.read(length)
        self.server.posts.append((self.path, self.headers.get("Authorization", ""), body.decode(errors="replace")))
        if self.path == "/as-noid/register":
            return self.send_json({"client_name": "authflow"}, status=201)
        self.send_json({"error": "invalid_request"}, status=400)


@pytest.fixture(scope="module")
def hostile():
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Hostile)
    server.daemon_threads = True
    server.posts = []
    Hostile.posts = server.posts
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_port}"
    server.shutdown()


def login(tmp_path, resource, *extra, env=None):
    env = dict(os.environ, XDG_CONFIG_HOME=str(tmp_path / "config"), HOME=str(tmp_path), BROWSER="/bin/false", **(env or {}))
    return subprocess.run([AUTHFLOW_BIN, "login", "--resource", resource, "--timeout", "3", "--browser-timeout", "5", "--json",
                           *extra], env=env, capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)


SECRET = "s3cret-for-the-honest-server"


def test_a_client_secret_never_goes_to_the_server_the_resource_names(hostile, tmp_path):
    """The user registered honest-cli with https://id.honest.example and names
    it with --issuer; the resource names its own authorization server, which
    requires PAR (so the old code authenticated there before any browser).
    The secret is not sent: a configuration error naming both servers."""
    Hostile.posts.clear()
    result = login(tmp_path, f"{hostile}/secret", "--client-id", "honest-cli", "--client-secret-env", "HONEST_SECRET",
                   "--issuer", "https://id.honest.example", env={"HONEST_SECRET": SECRET})
    assert result.returncode == 1, (result.stdout, result.stderr[-2000:])
    error = json.loads(result.stdout)["error"]
    assert error["category"] == "configuration"
    assert error["description"] == (f"the resource's authorization server is {hostile}/as-secret, not https://id.honest.example: "
                                    "the client secret is sent only to the issuer given with --issuer, so nothing was sent")
    assert Hostile.posts == []
    assert SECRET not in result.stdout + result.stderr
    assert not (tmp_path / "config" / "authflow" / "default.json").exists()


def test_a_client_secret_with_resource_needs_the_issuer_it_belongs_to(hostile, tmp_path):
    Hostile.posts.clear()
    result = login(tmp_path, f"{hostile}/secret", "--client-id", "honest-cli", "--client-secret-env", "HONEST_SECRET",
                   env={"HONEST_SECRET": SECRET})
    assert result.returncode == 2, (result.stdout, result.stderr[-2000:])
    error = json.loads(result.stdout)["error"]
    assert error["category"] == "usage"
    assert error["description"] == ("a client secret with --resource needs --issuer: the authorization server that issued "
                                    "the secret, the only one it is sent to")
    assert Hostile.posts == []


def test_the_secret_goes_to_the_resources_server_when_it_is_the_named_issuer(hostile, tmp_path):
    """The control: naming the resource's own server as --issuer uses the
    client and its secret there (the PAR request carries them)."""
    Hostile.posts.clear()
    result = login(tmp_path, f"{hostile}/secret", "--client-id", "honest-cli", "--client-secret-env", "HONEST_SECRET",
                   "--issuer", f"{hostile}/as-secret", env={"HONEST_SECRET": SECRET})
    assert result.returncode != 0
    assert [path for path, _, _ in Hostile.posts] == ["/as-secret/par"], Hostile.posts
    assert Hostile.posts[0][1].startswith("Basic ")


@pytest.mark.parametrize("case,code,category,description", [
    ("other", 1, "invalid_response",
     "the protected resource metadata at {base}/.well-known/oauth-protected-resource/other describes {base}/elsewhere, not {base}/other"),
    ("empty", 1, "configuration", "the protected resource {base}/empty names no authorization server"),
    ("plain", 1, "configuration", "an authorization server of the resource must use https (http is allowed only for loopback hosts)"),
    ("huge", 1, "invalid_response",
     "the discovery document from {base}/.well-known/oauth-protected-resource/huge is larger than 1 MiB (Content-Length 4194317)"),
    ("slow", 5, "timeout", "the discovery document from {base}/.well-known/oauth-protected-resource/slow did not arrive within 3 s"),
    ("noid", 1, "invalid_response", "client registration response: client_id is missing"),
    ("ashuge", 1, "invalid_response",
     "the discovery document from {base}/.well-known/oauth-authorization-server/as-ashuge is larger than 1 MiB (Content-Length 4194317)"),
    ("asslow", 5, "timeout",
     "the discovery document from {base}/.well-known/oauth-authorization-server/as-asslow did not arrive within 3 s"),
])
def test_hostile_resource_is_refused_and_nothing_is_stored(hostile, tmp_path, case, code, category, description):
    result = login(tmp_path, f"{hostile}/{case}")
    assert result.returncode == code, (result.stdout, result.stderr[-2000:])
    error = json.loads(result.stdout)["error"]
    assert error["category"] == category, error
    assert error["description"] == description.format(base=hostile), error
    assert not (tmp_path / "config" / "authflow" / "default.json").exists()
