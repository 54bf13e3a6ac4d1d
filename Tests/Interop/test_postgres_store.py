"""The CLI's shared store: `authflow login|token|logout --store postgresql://…`
against the PostgreSQL server scripts/postgres-for-tests starts (the URL in
AUTHFLOW_TEST_POSTGRES_URL; the module is skipped, saying so, without it) and
the embedded provider (`authflow provider serve`, 5-second access tokens,
rotating refresh tokens).

Twenty `authflow token` processes, each with a HOME of its own as if on
another machine, make exactly one refresh: a small proxy in front of the
provider's token endpoint counts the refresh grants. The database password
and the encryption key never appear in any output.
"""

import base64
import contextlib
import http.server
import json
import os
import secrets
import signal
import subprocess
import threading
import time
import urllib.parse
import urllib.request

import pytest

from interop_helpers import MANY_PROCESSES_MIN_TTL, wait_until_due

AUTHFLOW_BIN = os.environ.get("AUTHFLOW_BIN")
POSTGRES_URL = os.environ.get("AUTHFLOW_TEST_POSTGRES_URL")
pytestmark = [
    pytest.mark.skipif(not AUTHFLOW_BIN, reason="AUTHFLOW_BIN is not set"),
    pytest.mark.skipif(not POSTGRES_URL, reason="AUTHFLOW_TEST_POSTGRES_URL is unset: run scripts/postgres-for-tests start"),
]

KEY = base64.b64encode(secrets.token_bytes(32)).decode()


class TokenProxy:
    """Forwards POST /token to the provider and counts the refresh grants.
    While `hold` is set, a refresh grant waits for `release` before it is
    forwarded (`arrived` is set as it comes in)."""

    def __init__(self, target):
        self.target = target
        self.refreshes = 0
        self.lock = threading.Lock()
        self.hold = False
        self.arrived = threading.Event()
        self.release = threading.Event()
        self.forwarded = threading.Event()
        proxy = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                held = False
                if urllib.parse.parse_qs(body.decode()).get("grant_type") == ["refresh_token"]:
                    with proxy.lock:
                        proxy.refreshes += 1
                        held = proxy.hold
                    if held:
                        proxy.arrived.set()
                        proxy.release.wait(30)
                headers = {name: value for name, value in self.headers.items()
                           if name.lower() in ("content-type", "authorization", "accept", "dpop")}
                request = urllib.request.Request(proxy.target, data=body, headers=headers, method="POST")
                try:
                    with urllib.request.urlopen(request, timeout=30) as response:
                        status, payload, kind = response.status, response.read(), response.headers.get("Content-Type")
                except urllib.error.HTTPError as error:
                    status, payload, kind = error.code, error.read(), error.headers.get("Content-Type")
                if held:
                    proxy.forwarded.set()
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", kind or "application/json")
                    self.send_header("Content-Length", str(len(payload)))
                    self.send_header("Cache-Control", "no-store")
                    self.end_headers()
                    self.wfile.write(payload)
                except OSError:
                    pass  # the client is gone (the test killed it): its reply is lost

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/token"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    @contextlib.contextmanager
    def holding_refresh(self):
        """Holds the next refresh grants until the block ends (then forwards them)."""
        self.arrived.clear()
        self.release.clear()
        self.forwarded.clear()
        self.hold = True
        try:
            yield
        finally:
            self.hold = False
            self.release.set()

    def close(self):
        self.server.shutdown()


@pytest.fixture(scope="module")
def provider(tmp_path_factory):
    config = tmp_path_factory.mktemp("pg-provider") / "provider.json"
    config.write_text(json.dumps({"sign_in": "automatic", "lifetimes": {"access_token": 5}}))
    process = subprocess.Popen([AUTHFLOW_BIN, "provider", "serve", "--config", str(config)],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, stdin=subprocess.DEVNULL)
    lines, issuer = [], None
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        line = process.stdout.readline()
        if not line:
            break
        lines.append(line.strip())
        if line.startswith("issuer: "):
            issuer = line.split(": ", 1)[1].strip()
        if line.startswith("ready"):
            break
    if not issuer:
        process.kill()
        pytest.fail(f"provider did not start: {lines}")
    proxy = TokenProxy(issuer + "/token")
    yield {"issuer": issuer, "proxy": proxy}
    proxy.close()
    process.send_signal(signal.SIGTERM)
    process.wait(timeout=10)


def machine_env(tmp_path, name, extra=None):
    """The environment of one "machine": a HOME and config directory of its own."""
    home = tmp_path / name
    (home / "config").mkdir(parents=True, exist_ok=True)
    env = dict(os.environ)
    for variable in ("AUTHFLOW_STORE", "AUTHFLOW_STORE_PASSWORD", "AUTHFLOW_STORE_PASSWORD_FILE", "AUTHFLOW_STORE_KEY_FILE"):
        env.pop(variable, None)
    env.update(HOME=str(home), XDG_CONFIG_HOME=str(home / "config"), AUTHFLOW_STORE_KEY=KEY,
               BROWSER="curl -s -o /dev/null -L")
    env.update(extra or {})
    return env


def run(args, env, timeout=60):
    return subprocess.run([AUTHFLOW_BIN, *args], env=env, capture_output=True, text=True, timeout=timeout,
                          stdin=subprocess.DEVNULL)


def login(provider, env, store, profile):
    issuer = provider["issuer"]
    result = run(["login", "--authorization-endpoint", issuer + "/authorize", "--token-endpoint", provider["proxy"].url,
                  "--jwks-uri", issuer + "/jwks", "--id-token-issuer", issuer, "--client-id", "authflow-demo",
                  "--scope", "openid offline_access", "--profile", profile, "--store", store, "--json", "--show-tokens"], env)
    assert result.returncode == 0, result.stderr[-2000:]
    return json.loads(result.stdout)


def forced_token(profile, env):
    """`authflow token --force` over the shared store, started and not waited for (text output)."""
    return subprocess.Popen([AUTHFLOW_BIN, "token", "--profile", profile, "--store", POSTGRES_URL, "--force"], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, stdin=subprocess.DEVNULL)


def password():
    return urllib.parse.urlsplit(POSTGRES_URL).password


def assert_no_secrets(*texts):
    for text in texts:
        assert password() not in text, "the database password was printed"
        assert KEY not in text, "the encryption key was printed"


def test_twenty_token_processes_on_twenty_machines_refresh_once(provider, tmp_path):
    profile = "fleet-" + secrets.token_hex(4)
    first = login(provider, machine_env(tmp_path, "machine-0"), POSTGRES_URL, profile)
    local = tmp_path / "machine-0" / "config" / "authflow" / f"{profile}.json"
    assert json.loads(local.read_text()).get("credentials") is None, "the profile file keeps the settings only"
    assert first["refresh_token"] not in local.read_text()
    # The token printed at once while it is fresh, from another machine.
    fresh = run(["token", "--profile", profile], machine_env(tmp_path, "machine-x", {"AUTHFLOW_STORE": POSTGRES_URL}))
    assert fresh.returncode == 0 and fresh.stdout.strip() == first["access_token"], fresh.stderr[-2000:]
    wait_until_due(first["expires_at"])
    before = provider["proxy"].refreshes
    processes = [subprocess.Popen([AUTHFLOW_BIN, "token", "--profile", profile, "--store", POSTGRES_URL,
                                   "--min-ttl", MANY_PROCESSES_MIN_TTL],
                                  env=machine_env(tmp_path, f"machine-{index}"), stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, text=True, stdin=subprocess.DEVNULL)
                 for index in range(1, 21)]
    results = [(p.returncode, out, err) for p, (out, err) in ((p, p.communicate(timeout=120)) for p in processes)]
    for code, out, err in results:
        assert code == 0, f"exit {code}: {err[-2000:]}"
        assert_no_secrets(out, err)
    assert provider["proxy"].refreshes - before == 1, "exactly one refresh grant reached the provider"
    tokens = {out.strip() for _, out, _ in results}
    assert len(tokens) == 1, "all twenty processes print the same token"
    assert tokens.pop() != first["access_token"]


def test_logout_on_one_machine_signs_out_all(provider, tmp_path):
    profile = "shared-" + secrets.token_hex(4)
    login(provider, machine_env(tmp_path, "a"), POSTGRES_URL, profile)
    other = machine_env(tmp_path, "b", {"AUTHFLOW_STORE": POSTGRES_URL})
    out = run(["logout", "--profile", profile, "--no-browser"], other)
    assert out.returncode == 0, out.stderr[-2000:]
    assert_no_secrets(out.stdout, out.stderr)
    before = provider["proxy"].refreshes
    token = run(["token", "--profile", profile, "--store", POSTGRES_URL, "--force"], machine_env(tmp_path, "a"))
    assert token.returncode == 6, token.stderr[-2000:]
    assert "reauthentication_required" in token.stderr
    assert provider["proxy"].refreshes == before


def test_status_userinfo_and_request_read_the_shared_session(provider, tmp_path):
    profile = "readers-" + secrets.token_hex(4)
    issuer = provider["issuer"]
    env = machine_env(tmp_path, "a")
    result = run(["login", "--issuer", issuer, "--client-id", "authflow-demo", "--scope", "openid offline_access",
                  "--profile", profile, "--store", POSTGRES_URL, "--json", "--show-tokens"], env)
    assert result.returncode == 0, result.stderr[-2000:]
    tokens = json.loads(result.stdout)
    # Another machine, without the profile's file: the record says what status shows, never a token.
    status = run(["status", "--profile", profile, "--json"], machine_env(tmp_path, "b", {"AUTHFLOW_STORE": POSTGRES_URL}))
    assert status.returncode == 0, status.stderr[-2000:]
    summary = json.loads(status.stdout)
    assert summary["store"] == "postgresql" and summary["issuer"] == issuer and summary["expired"] is False
    assert summary["subject"] == tokens["subject"]
    assert tokens["access_token"] not in status.stdout and tokens["refresh_token"] not in status.stdout
    # The same machine with the store in the environment: userinfo and request use the shared session.
    shared = machine_env(tmp_path, "a", {"AUTHFLOW_STORE": POSTGRES_URL})
    info = run(["userinfo", "--profile", profile, "--json"], shared)
    assert info.returncode == 0, info.stderr[-2000:]
    assert json.loads(info.stdout)["sub"] == tokens["subject"]
    answer = run(["request", "--profile", profile, issuer + "/userinfo"], shared)
    assert answer.returncode == 0, answer.stderr[-2000:]
    assert json.loads(answer.stdout)["sub"] == tokens["subject"]
    for out in (status, info, answer):
        assert_no_secrets(out.stdout, out.stderr)
    # Signed out everywhere: status says so with the sign-in exit code.
    assert run(["logout", "--profile", profile, "--no-browser"], shared).returncode == 0
    after = run(["status", "--profile", profile], machine_env(tmp_path, "b", {"AUTHFLOW_STORE": POSTGRES_URL}))
    assert after.returncode == 6 and "not signed in in the PostgreSQL store" in after.stderr, after.stderr[-2000:]


def test_credential_helpers_hand_out_the_shared_token(provider, tmp_path):
    profile = "helpers-" + secrets.token_hex(4)
    env = machine_env(tmp_path, "a", {"AUTHFLOW_STORE": POSTGRES_URL})
    result = run(["login", "--issuer", provider["issuer"], "--client-id", "authflow-demo", "--scope", "openid offline_access",
                  "--profile", profile, "--json", "--show-tokens"], env)
    assert result.returncode == 0, result.stderr[-2000:]
    first = json.loads(result.stdout)["access_token"]

    def git_fill():
        helper = f"!{AUTHFLOW_BIN} credential git --profile {profile}"
        filled = subprocess.run(
            ["git", "-c", "credential.helper=", "-c", f"credential.helper={helper}", "credential", "fill"],
            input="protocol=https\nhost=forge.example.com\n\n", capture_output=True, text=True, timeout=60,
            env={**env, "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull, "GIT_TERMINAL_PROMPT": "0"})
        assert filled.returncode == 0, filled.stderr[-2000:]
        assert_no_secrets(filled.stdout, filled.stderr)
        return dict(line.split("=", 1) for line in filled.stdout.splitlines() if line)["password"]

    assert git_fill() == first
    # Another machine refreshes the shared session; the helper hands out its token, not a copy of its own.
    renewed = run(["token", "--profile", profile, "--store", POSTGRES_URL, "--force"], machine_env(tmp_path, "b"))
    assert renewed.returncode == 0, renewed.stderr[-2000:]
    assert renewed.stdout.strip() != first
    assert git_fill() == renewed.stdout.strip()
    exec_info = json.dumps({"kind": "ExecCredential", "apiVersion": "client.authentication.k8s.io/v1",
                            "spec": {"interactive": False}})
    kube = run(["credential", "kubectl", "--profile", profile], {**env, "KUBERNETES_EXEC_INFO": exec_info})
    assert kube.returncode == 0, kube.stderr[-2000:]
    assert json.loads(kube.stdout)["status"]["token"] == renewed.stdout.strip()
    # Signed out everywhere: a helper that may not sign in says so at once.
    assert run(["logout", "--profile", profile, "--no-browser"], env).returncode == 0
    refused = run(["credential", "kubectl", "--profile", profile], {**env, "KUBERNETES_EXEC_INFO": exec_info})
    assert refused.returncode != 0 and "needs a sign-in" in refused.stderr, refused.stderr[-2000:]


def test_bad_store_urls_are_usage_errors_and_never_print_the_password(tmp_path):
    env = machine_env(tmp_path, "u")
    for url in ("postgresql://user:s3cret-pw@/db", "postgresql://user:s3cret-pw@host:5432/", "mysql://user:s3cret-pw@h/db",
                "postgresql://user:s3cret-pw@h/db?colour=blue"):
        result = run(["token", "--store", url], env)
        assert result.returncode == 2, f"{url}: {result.stderr[-2000:]}"
        assert "s3cret-pw" not in result.stdout + result.stderr
    from_env = run(["token"], dict(env, AUTHFLOW_STORE="postgresql://user:s3cret-pw@/db"))
    assert from_env.returncode == 2 and "AUTHFLOW_STORE" in from_env.stderr
    assert "s3cret-pw" not in from_env.stdout + from_env.stderr


def test_an_unreachable_database_is_a_network_error_without_the_password(tmp_path):
    parts = urllib.parse.urlsplit(POSTGRES_URL)
    with __import__("socket").socket() as s:
        s.bind(("127.0.0.1", 0))
        closed_port = s.getsockname()[1]
    url = f"postgresql://{parts.username}:{parts.password}@127.0.0.1:{closed_port}{parts.path}?sslmode=disable"
    result = run(["token", "--store", url, "--profile", "nobody"], machine_env(tmp_path, "n"), timeout=90)
    assert result.returncode == 5, result.stderr[-2000:]
    assert "network" in result.stderr
    assert_no_secrets(result.stdout, result.stderr)


def test_the_password_from_a_file_and_a_missing_key(provider, tmp_path):
    parts = urllib.parse.urlsplit(POSTGRES_URL)
    secret_file = tmp_path / "pw"
    secret_file.write_text(parts.password + "\n")
    url = f"postgresql://{parts.username}@{parts.hostname}:{parts.port}{parts.path}"
    env = machine_env(tmp_path, "f", {"AUTHFLOW_STORE_PASSWORD_FILE": str(secret_file)})
    result = run(["token", "--store", url, "--profile", "nobody-" + secrets.token_hex(3)], env)
    assert result.returncode == 6, result.stderr[-2000:]
    assert "not signed in" in result.stderr
    no_key = dict(env)
    no_key.pop("AUTHFLOW_STORE_KEY")
    missing = run(["token", "--store", url], no_key)
    assert missing.returncode == 1 and "encryption key" in missing.stderr
    assert_no_secrets(result.stdout, result.stderr, missing.stdout, missing.stderr)


def test_an_instance_killed_mid_refresh_ends_the_session_for_the_next_without_a_second_refresh(provider, tmp_path):
    """SIGKILL while the refresh request is out: the provider rotates the
    refresh token, the reply is lost with the process, and the next instance
    finds the refresh recorded in flight: reauthentication_required
    (refresh_reply_lost), sending nothing."""
    profile = "killed-" + secrets.token_hex(4)
    login(provider, machine_env(tmp_path, "k0"), POSTGRES_URL, profile)
    proxy = provider["proxy"]
    with proxy.holding_refresh():
        victim = forced_token(profile, machine_env(tmp_path, "k1"))
        assert proxy.arrived.wait(30), "the refresh request never reached the provider"
        victim.kill()
        victim.wait(timeout=10)
    assert proxy.forwarded.wait(30), "the held refresh was not forwarded"
    before = proxy.refreshes
    after = run(["token", "--profile", profile, "--store", POSTGRES_URL, "--force"], machine_env(tmp_path, "k2"))
    assert after.returncode == 6, after.stderr[-2000:]
    assert "refresh_reply_lost" in after.stderr and "never stored its result" in after.stderr, after.stderr[-2000:]
    assert proxy.refreshes == before, "no refresh token was sent after the lost reply"
    assert_no_secrets(after.stdout, after.stderr)
    again = run(["token", "--profile", profile, "--store", POSTGRES_URL], machine_env(tmp_path, "k3"))
    assert again.returncode == 6 and proxy.refreshes == before, again.stderr[-2000:]


def test_a_postgresql_restart_while_the_refresh_is_out_loses_no_write(provider, tmp_path):
    """The server restarts while the refresh request is out: the instance's
    transaction and lock are gone with it, and the refreshed record is
    written again on a new connection once the server is back; another
    machine then reads it without refreshing."""
    pg_dir = os.environ.get("AUTHFLOW_TEST_POSTGRES_DIR")
    if not pg_dir:
        pytest.skip("AUTHFLOW_TEST_POSTGRES_DIR is unset: the server was not started by scripts/postgres-for-tests")
    script = os.path.join(os.path.dirname(__file__), "..", "..", "scripts", "postgres-for-tests")
    profile = "restart-" + secrets.token_hex(4)
    login(provider, machine_env(tmp_path, "r0"), POSTGRES_URL, profile)
    proxy = provider["proxy"]
    with proxy.holding_refresh():
        instance = forced_token(profile, machine_env(tmp_path, "r1"))
        assert proxy.arrived.wait(30), "the refresh request never reached the provider"
        restarted = subprocess.run([script, "restart"], capture_output=True, text=True, timeout=60,
                                   env=dict(os.environ, AUTHFLOW_TEST_POSTGRES_DIR=pg_dir))
        assert restarted.returncode == 0, restarted.stderr[-2000:]
    out, err = instance.communicate(timeout=60)
    assert instance.returncode == 0, err[-2000:]
    assert_no_secrets(out, err)
    # The refreshed token may have expired meanwhile (5-second tokens, and a
    # write on the dead connection waits for its deadline): then the other
    # machine refreshes, which works only with the rotated refresh token the
    # instance stored. A lost write would leave the replaced one: invalid_grant.
    before = proxy.refreshes
    other = run(["token", "--profile", profile, "--store", POSTGRES_URL], machine_env(tmp_path, "r2"))
    assert other.returncode == 0, f"{other.stderr[-2000:]}\n--- the instance:\n{err[-3000:]}"
    assert other.stdout.strip() == out.strip() or proxy.refreshes == before + 1
    assert_no_secrets(other.stdout, other.stderr)


def test_twenty_machines_against_django_oauth_toolkit_with_reuse_protection_refresh_once(interop_config, tmp_path):
    """Django OAuth Toolkit rotates refresh tokens and, with
    REFRESH_TOKEN_REUSE_PROTECTION, revokes the whole family when a replaced
    refresh token comes back: two instances refreshing from one token would
    end the session. Twenty machines that find the token about to expire
    make one refresh grant, print one token, and the family stays alive."""
    from test_cli import CLI

    dot = interop_config["servers"]["dot"]

    def refresh_grants():
        with open(dot["log"], encoding="utf-8", errors="replace") as f:
            return f.read().count("POST /o/token/")

    profile = "dot-fleet-" + secrets.token_hex(4)
    first_machine = tmp_path / "d0"
    first_machine.mkdir()
    cli = CLI(interop_config, first_machine)
    store_env = {"AUTHFLOW_STORE_KEY": KEY, "AUTHFLOW_STORE": POSTGRES_URL}
    # The `short` scope: five-second access tokens.
    login = cli.login(dot, "--scope", "openid profile short", "--json", "--show-tokens", profile=profile, env=store_env)
    assert login.returncode == 0, login.stderr[-2000:]
    first = json.loads(login.stdout)
    wait_until_due(first["expires_at"])
    before = refresh_grants()
    processes = [subprocess.Popen([AUTHFLOW_BIN, "token", "--profile", profile, "--min-ttl", MANY_PROCESSES_MIN_TTL],
                                  env=machine_env(tmp_path, f"d{index}", {"AUTHFLOW_STORE": POSTGRES_URL}),
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, stdin=subprocess.DEVNULL)
                 for index in range(1, 21)]
    results = [(p.returncode, out, err) for p, (out, err) in ((p, p.communicate(timeout=120)) for p in processes)]
    for code, out, err in results:
        assert code == 0, f"exit {code}: {err[-2000:]}"
        assert_no_secrets(out, err)
    assert refresh_grants() - before == 1, "exactly one refresh grant reached Django OAuth Toolkit"
    tokens = {out.strip() for _, out, _ in results}
    assert len(tokens) == 1 and first["access_token"] not in tokens
    # The family was never replayed: a forced refresh still works.
    again = run(["token", "--profile", profile, "--force"], machine_env(tmp_path, "d21", {"AUTHFLOW_STORE": POSTGRES_URL}))
    assert again.returncode == 0, again.stderr[-2000:]
    assert again.stdout.strip() not in tokens
