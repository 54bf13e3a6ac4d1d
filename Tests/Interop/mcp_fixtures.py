"""Fixtures of the MCP interop tests: the embedded provider (`authflow provider
serve`) and the Python MCP server of mcp_server.py in front of it.

The provider signs in on its login page (user demo, password demo), accepts
dynamic registration, and issues access tokens that live ACCESS_TOKEN_LIFETIME
seconds, so that a test sees one expire. It offers the scopes of its
configured clients; the one configured client (`mcp-scopes`, used by no test)
is there so that mcp:tools and mcp:admin are among them, and
`scopes_for_dynamic_clients` lets registered clients be granted them. It runs with
--verbose: its log lines (stderr) are kept, and `registrations()` counts its
"client registered" lines, so a test can tell how often a client registered.

An access token's `aud` is the RFC 8707 `resource` the client sent, and the
provider's userinfo endpoint when none was sent: the MCP server accepts only
tokens whose `aud` is its own URL.
"""

import json
import os
import socket
import subprocess
import sys
import threading
import time

import pytest

AUTHFLOW_BIN = os.environ.get("AUTHFLOW_BIN")
HERE = os.path.dirname(os.path.abspath(__file__))
HAVE_CHROMIUM = os.path.exists("/usr/bin/chromium") and os.path.exists("/usr/bin/chromedriver")
ACCESS_TOKEN_LIFETIME = 8
MCP_SCOPES = ["mcp:tools", "mcp:admin"]


class Output:
    """The lines of a child's stream, read by a thread so the child never blocks on a full pipe."""

    def __init__(self, stream):
        self.lines = []
        self.lock = threading.Lock()
        self.thread = threading.Thread(target=self.drain, args=(stream,), daemon=True)
        self.thread.start()

    def drain(self, stream):
        for line in stream:
            with self.lock:
                self.lines.append(line.rstrip("\n"))

    def snapshot(self):
        with self.lock:
            return list(self.lines)


def free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wait_for_line(process, prefix, timeout=60):
    """Reads `process`'s stdout until a line starts with `prefix` (bounded); returns the lines read."""
    lines = []
    found = threading.Event()

    def read():
        for line in process.stdout:
            lines.append(line.strip())
            if line.startswith(prefix):
                found.set()
                return

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    reader.join(timeout)
    return lines if found.is_set() else None


def stop(process):
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10)


class MemoryTokenStorage:
    """An `mcp` client's TokenStorage: tokens and registration in memory."""

    def __init__(self):
        self.tokens = None
        self.client_info = None

    async def get_tokens(self):
        return self.tokens

    async def set_tokens(self, tokens):
        self.tokens = tokens

    async def get_client_info(self):
        return self.client_info

    async def set_client_info(self, client_info):
        self.client_info = client_info


class MCPProvider:
    """The running provider and MCP server of one test module."""

    def __init__(self, issuer, resource, provider_log):
        self.issuer = issuer
        self.resource = resource
        self.provider_log = provider_log

    def registrations(self):
        """The client_ids of the registrations the provider logged so far, in order."""
        ids = []
        for line in self.provider_log.snapshot():
            if line.endswith("client registered") and "client_id=" in line:
                ids.append(line.split("client_id=", 1)[1].split(" ", 1)[0])
        return ids


@pytest.fixture(scope="module")
def mcp_service(tmp_path_factory):
    if not AUTHFLOW_BIN:
        pytest.skip("AUTHFLOW_BIN is not set")
    directory = tmp_path_factory.mktemp("mcp-provider")
    config = directory / "provider.json"
    config.write_text(json.dumps({
        "sign_in": "login_page",
        "users": [{"sub": "demo", "username": "demo", "password": "demo"}],
        "clients": [{"client_id": "mcp-scopes", "redirect_uris": ["http://127.0.0.1/callback"],
                     "scope": " ".join(["openid", "offline_access", *MCP_SCOPES])}],
        # Registered clients may be granted the MCP scopes (by default only profile, email, offline_access).
        "scopes_for_dynamic_clients": " ".join(["offline_access", *MCP_SCOPES]),
        "lifetimes": {"access_token": ACCESS_TOKEN_LIFETIME},
    }))
    provider = subprocess.Popen([AUTHFLOW_BIN, "provider", "serve", "--config", str(config), "--verbose"],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, stdin=subprocess.DEVNULL)
    provider_log = Output(provider.stderr)
    lines = wait_for_line(provider, "ready")
    listing = dict(line.split(": ", 1) for line in lines or [] if ": " in line)
    if "issuer" not in listing:
        stop(provider)
        pytest.fail(f"the provider did not start: {lines} {provider_log.snapshot()[-20:]}")
    issuer = listing["issuer"]
    port = free_port()
    resource = f"http://127.0.0.1:{port}/mcp"
    server = subprocess.Popen([sys.executable, os.path.join(HERE, "mcp_server.py"), "--port", str(port), "--issuer", issuer,
                               "--resource", resource],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, stdin=subprocess.DEVNULL)
    server_log = Output(server.stderr)
    if wait_for_line(server, "READY") is None:
        stop(server)
        stop(provider)
        pytest.fail(f"mcp_server.py did not start: {server_log.snapshot()[-20:]}")
    try:
        yield MCPProvider(issuer, resource, provider_log)
    finally:
        stop(server)
        stop(provider)


def wait_until(condition, timeout=60, step=0.2):
    """Polls `condition` (bounded by `timeout` seconds); fails the test if it never holds."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return
        time.sleep(step)
    pytest.fail("the condition did not come true in time")
