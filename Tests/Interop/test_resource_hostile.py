"""`authflow login --resource` against hostile APIs: a small HTTP server on
127.0.0.1 serves protected resource metadata that must be refused — it
describes another resource, names no authorization server, names one on
plain http off loopback, is far too large, or never finishes — and an
authorization server whose registration answer has no client_id. Each is a
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
                body = b'{"resource":"' + b"x" * (4 << 20) + b'"}'
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                try:
                    self.wfile.write(body)
                except OSError:
                    pass
                return
            if case == "slow":
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", "1000")
                self.end_headers()
                self.wfile.write(b"{")
                self.wfile.flush()
                time.sleep(8)
                return
            if case == "noid":
                return self.send_json({"resource": f"{base}/noid", "authorization_servers": servers})
        if path == "/.well-known/oauth-authorization-server/as-noid":
            return self.send_json({
                "issuer": f"{base}/as-noid", "authorization_endpoint": f"{base}/as-noid/authorize",
                "token_endpoint": f"{base}/as-noid/token", "registration_endpoint": f"{base}/as-noid/register",
                "code_challenge_methods_supported": ["S256"]})
        self.send_json({"error": "not_found"}, status=404)

    def do_POST(self):
        length = int(self.headers.get("Content-Length", "0"))
        self.rfile.read(length)
        if self.path == "/as-noid/register":
            return self.send_json({"client_name": "authflow"}, status=201)
        self.send_json({"error": "invalid_request"}, status=400)


@pytest.fixture(scope="module")
def hostile():
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Hostile)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_port}"
    server.shutdown()


def login(tmp_path, resource):
    env = dict(os.environ, XDG_CONFIG_HOME=str(tmp_path / "config"), HOME=str(tmp_path), BROWSER="/bin/false")
    return subprocess.run([AUTHFLOW_BIN, "login", "--resource", resource, "--timeout", "3", "--browser-timeout", "5", "--json"],
                          env=env, capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)


@pytest.mark.parametrize("case,code,category,words", [
    ("other", 1, "invalid_response", "describes"),
    ("empty", 1, "configuration", "names no authorization server"),
    ("plain", 1, "configuration", "must use https"),
    ("huge", 1, "invalid_response", "larger than"),
    ("slow", 5, "timeout", ""),
    ("noid", 1, "invalid_response", "client_id is missing"),
])
def test_hostile_resource_is_refused_and_nothing_is_stored(hostile, tmp_path, case, code, category, words):
    result = login(tmp_path, f"{hostile}/{case}")
    assert result.returncode == code, (result.stdout, result.stderr[-2000:])
    error = json.loads(result.stdout)["error"]
    assert error["category"] == category, error
    assert words in error["description"], error
    assert not (tmp_path / "config" / "authflow" / "default.json").exists()
