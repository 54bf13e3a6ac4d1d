"""Helpers shared by the interop pytest modules (no Swift needed here)."""

import base64
import datetime
import hashlib
import json
import os
import queue
import secrets
import subprocess
import sys
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, quote, urlencode, urlsplit

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))


def b64url_decode(data):
    return base64.urlsafe_b64decode(data + "=" * (-len(data) % 4))


def b64url_encode(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def pkce_pair():
    verifier = b64url_encode(secrets.token_bytes(32))
    challenge = b64url_encode(hashlib.sha256(verifier.encode("ascii")).digest())
    return verifier, challenge


def form_urlencode(value):
    """application/x-www-form-urlencoded encoding of one value (RFC 6749 §2.3.1)."""
    return quote(value, safe="").replace("%20", "+")


def basic_auth_header(client_id, client_secret, encode=True):
    if encode:
        client_id, client_secret = form_urlencode(client_id), form_urlencode(client_secret)
    raw = f"{client_id}:{client_secret}".encode("utf-8")
    return "Basic " + base64.b64encode(raw).decode("ascii")


def decode_jwt_unverified(token):
    header, payload, _sig = token.split(".")
    return json.loads(b64url_decode(header)), json.loads(b64url_decode(payload))


def verify_rs256(token, jwks):
    """Verify an RS256 JWS against a JWKS; return (header, claims)."""
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.asymmetric import padding, rsa

    header, claims = decode_jwt_unverified(token)
    assert header.get("alg") == "RS256", header
    keys = [k for k in jwks["keys"] if k.get("kty") == "RSA"]
    if header.get("kid"):
        keys = [k for k in keys if k.get("kid") == header["kid"]]
    assert keys, f"no RSA key for kid {header.get('kid')!r} in JWKS"
    key = keys[0]
    public_key = rsa.RSAPublicNumbers(
        int.from_bytes(b64url_decode(key["e"]), "big"),
        int.from_bytes(b64url_decode(key["n"]), "big"),
    ).public_key()
    signing_input, _, sig = token.rpartition(".")
    public_key.verify(b64url_decode(sig), signing_input.encode("ascii"), padding.PKCS1v15(), hashes.SHA256())
    return header, claims


class LoopbackListener:
    """A tiny stand-in for the CLI's loopback redirect listener."""

    def __init__(self):
        self.params = None
        self.event = threading.Event()
        listener = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):  # noqa: N802
                parts = urlsplit(self.path)
                if parts.path != "/callback":
                    self.send_error(404)
                    return
                if listener.params is None:
                    listener.params = {k: v[0] for k, v in parse_qs(parts.query).items()}
                    listener.event.set()
                body = b"<!DOCTYPE html><html><head><title>Done</title></head><body>You can close this window.</body></html>"
                self.send_response(200)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, fmt, *args):  # keep codes out of the test output
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        self.redirect_uri = f"http://127.0.0.1:{self.port}/callback"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.server.shutdown()
        self.server.server_close()


def build_authorization_url(endpoint, client_id, redirect_uri, challenge, state, nonce,
                            scope="openid profile email", method="S256", extra=None):
    params = {
        "response_type": "code",
        "client_id": client_id,
        "redirect_uri": redirect_uri,
        "scope": scope,
        "state": state,
        "nonce": nonce,
    }
    if challenge is not None:
        params["code_challenge"] = challenge
    if method is not None:
        params["code_challenge_method"] = method
    params.update(extra or {})
    sep = "&" if "?" in endpoint else "?"
    return endpoint + sep + urlencode(params)


def run_browser(browser_cmd, url, action="approve", timeout=120):
    """Run the $BROWSER command like the CLI would (URL as last argument)."""
    import shlex

    env = dict(os.environ)
    env["INTEROP_BROWSER_ACTION"] = action
    argv = shlex.split(browser_cmd) + [url]
    return subprocess.run(argv, env=env, capture_output=True, text=True, timeout=timeout)


def start_servers_for_tests(tmpdir):
    config = os.path.join(tmpdir, "config.json")
    proc = subprocess.run(
        [sys.executable, os.path.join(HERE, "servers.py"), "start", "--config", config],
        capture_output=True, text=True, timeout=180,
    )
    if proc.returncode != 0:
        raise RuntimeError(f"servers.py start failed:\n{proc.stdout}\n{proc.stderr}")
    return config


def stop_servers_for_tests(config):
    subprocess.run(
        [sys.executable, os.path.join(HERE, "servers.py"), "stop", "--config", config],
        capture_output=True, text=True, timeout=60,
    )


def load_config(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def tempdir(prefix):
    return tempfile.mkdtemp(prefix=prefix)


# The `--min-ttl` of the "many processes, one refresh" tests, and how long
# before expiry they start. A 5-second token is due at once (it expires
# within the margin), and the one refreshed token stays valid beyond the
# margin for 4.5 s: the window in which every process must reach the store's
# lock and take it. With the default margin (half the lifetime) that window
# was 2.5 s, which twenty processes on a loaded machine once overran, so a
# late one refreshed again (correctly), failing the count.
MANY_PROCESSES_MIN_TTL = "0.5"


def wait_until_due(expires_at, margin=float(MANY_PROCESSES_MIN_TTL)):
    """Sleeps until the token whose ISO 8601 `expires_at` is given has less
    than `margin` seconds left. `expires_at` as printed is whole seconds (the
    stored expiry is up to a second later), so this waits until the printed
    expiry is a second closer: a process that read the stored expiry earlier
    would find the token still valid and print it."""
    expiry = datetime.datetime.fromisoformat(expires_at.replace("Z", "+00:00"))
    if expiry.tzinfo is None:  # stored in UTC
        expiry = expiry.replace(tzinfo=datetime.timezone.utc)
    while (expiry - datetime.datetime.now(datetime.timezone.utc)).total_seconds() > margin - 1.0:
        time.sleep(0.05)


def read_until_ready(process, timeout=30):
    """Reads `process`'s stdout up to its "ready" line, for at most `timeout`
    seconds, a process that hangs without printing included. Returns the
    lines read, stripped, and whether "ready" came before the process exited
    or the time ran out. Reading stops at "ready": what the process prints
    later stays in the pipe."""
    lines = queue.Queue()

    def read():
        for line in iter(process.stdout.readline, ""):
            lines.put(line)
            if line.startswith("ready"):
                return
        lines.put(None)

    threading.Thread(target=read, daemon=True).start()
    seen, deadline = [], time.monotonic() + timeout
    while True:
        try:
            line = lines.get(timeout=max(0.0, deadline - time.monotonic()))
        except queue.Empty:
            return seen, False
        if line is None:
            return seen, False
        seen.append(line.strip())
        if line.startswith("ready"):
            return seen, True
