"""Everything the CLI prints from a server is escaped for the terminal.

A scripted authorization server on 127.0.0.1 puts an escape sequence that
retitles the terminal and clears the screen (plus a C1 CSI and a bidi
override) into an error description, an extra authorization-response
parameter, userinfo values and discovery values. Neither stdout nor stderr
may carry a raw control character; with --json the output is valid JSON that
decodes to the server's text unchanged.

Needs AUTHFLOW_BIN (skipped otherwise); needs no other server.
"""

import json
import os
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlencode, urlsplit

import pytest

AUTHFLOW_BIN = os.environ.get("AUTHFLOW_BIN")
BROWSER = f"{sys.executable} {os.path.join(os.path.dirname(os.path.abspath(__file__)), 'provider_fixtures', 'browser.py')}"
HOSTILE = "\u001b]0;pwned\u0007\u001b[2J\u009b31m\u202eevil\nhint: fake line"
RAW = ["\u001b", "\u0007", "\u009b", "\u202e", "\r"]

pytestmark = pytest.mark.skipif(not AUTHFLOW_BIN, reason="AUTHFLOW_BIN is not set")


class Hostile(BaseHTTPRequestHandler):
    mode = "error"

    def log_message(self, *args):
        pass

    def answer(self, status, body, headers=()):
        data = body.encode() if isinstance(body, str) else body
        self.send_response(status)
        for name, value in headers:
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def json(self, value, status=200):
        self.answer(status, json.dumps(value), [("Content-Type", "application/json")])

    def do_GET(self):
        url = urlsplit(self.path)
        query = {k: v[0] for k, v in parse_qs(url.query).items()}
        base = f"http://127.0.0.1:{self.server.server_port}"
        if url.path == "/authorize":
            if self.server.mode == "error":
                back = {"error": "access_denied", "error_description": HOSTILE, "state": query["state"]}
            else:
                back = {"code": "the-code", "state": query["state"], "extra\u001b[2J": HOSTILE}
            self.answer(302, "", [("Location", query["redirect_uri"] + "?" + urlencode(back))])
        elif url.path == "/userinfo":
            self.json({"sub": "user-1", "name": HOSTILE, HOSTILE: "value"})
        elif url.path == "/.well-known/openid-configuration":
            self.json({"issuer": base, "authorization_endpoint": base + "/authorize", "token_endpoint": base + "/token",
                       "response_types_supported": ["code"], "code_challenge_methods_supported": ["S256", HOSTILE]})
        else:
            self.answer(404, "")

    def do_POST(self):
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        if self.server.mode == "token_error":
            self.json({"error": "invalid_grant", "error_description": HOSTILE}, status=400)
        else:
            self.json({"access_token": "at", "token_type": "Bearer", "expires_in": 3600, "scope": "profile"})


@pytest.fixture
def hostile():
    server = ThreadingHTTPServer(("127.0.0.1", 0), Hostile)
    server.mode = "error"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    server.base = f"http://127.0.0.1:{server.server_port}"
    yield server
    server.shutdown()
    server.server_close()


def run(tmp_path, *args):
    env = dict(os.environ, XDG_CONFIG_HOME=str(tmp_path), BROWSER=BROWSER)
    return subprocess.run([AUTHFLOW_BIN, *args], env=env, capture_output=True, text=True, timeout=60)


def login(server, tmp_path, *extra):
    return run(tmp_path, "login", "--authorization-endpoint", server.base + "/authorize",
               "--token-endpoint", server.base + "/token", "--userinfo-endpoint", server.base + "/userinfo",
               "--client-id", "app", "--scope", "profile", "--browser-timeout", "20", *extra)


def assert_clean(result):
    for stream in (result.stdout, result.stderr):
        for raw in RAW:
            assert raw not in stream, f"raw {raw!r} printed: {stream!r}"


def test_error_description_in_the_callback_is_escaped(hostile, tmp_path):
    human = login(hostile, tmp_path)
    assert human.returncode == 3, human.stderr
    assert_clean(human)
    assert "\\u001b]0;pwned\\u0007\\u001b[2J\\u009b31m\\u202eevil" in human.stderr
    # The error stays one line: the description's line feed cannot fake a hint.
    assert "\nhint: fake line" not in human.stderr and "evil\\u000ahint: fake line" in human.stderr

    machine = login(hostile, tmp_path, "--json")
    assert machine.returncode == 3, machine.stderr
    assert_clean(machine)
    assert json.loads(machine.stdout)["error"]["description"] == HOSTILE


def test_error_description_from_the_token_endpoint_is_escaped(hostile, tmp_path):
    hostile.mode = "token_error"
    human = login(hostile, tmp_path)
    assert human.returncode == 3, human.stderr
    assert_clean(human)
    assert "pwned" in human.stderr
    assert "\nhint: fake line" not in human.stderr
    machine = login(hostile, tmp_path, "--json")
    assert_clean(machine)
    assert json.loads(machine.stdout)["error"]["description"] == HOSTILE


def test_extra_parameters_and_userinfo_are_escaped(hostile, tmp_path):
    hostile.mode = "code"
    result = login(hostile, tmp_path)
    assert result.returncode == 0, result.stderr
    assert_clean(result)
    assert "The provider also sent extra\\u001b[2J: \\u001b]0;pwned" in result.stderr
    # A line feed inside a value cannot fake a line of output.
    assert "\nhint: fake line" not in result.stdout + result.stderr

    info = run(tmp_path, "userinfo")
    assert info.returncode == 0, info.stderr
    assert_clean(info)
    assert "name: \\u001b]0;pwned" in info.stdout
    info_json = run(tmp_path, "userinfo", "--json")
    assert_clean(info_json)
    assert json.loads(info_json.stdout)["name"] == HOSTILE


def test_discovery_values_are_escaped(hostile, tmp_path):
    human = run(tmp_path, "discover", hostile.base)
    assert human.returncode == 0, human.stderr
    assert_clean(human)
    assert "\\u001b]0;pwned" in human.stdout
    machine = run(tmp_path, "discover", hostile.base, "--json")
    assert_clean(machine)
    assert HOSTILE in json.loads(machine.stdout)["code_challenge_methods_supported"]
