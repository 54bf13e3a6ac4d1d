"""The desktop keyring store: `authflow login|token|status|logout` and the
git helper with the credentials in a real gnome-keyring daemon, reached
through the Secret Service API on a private D-Bus session bus
(keyring_fixtures.py), against the embedded provider (5-second access
tokens, rotating refresh tokens) behind a proxy that counts refresh grants.

The keyring is chosen automatically when a Secret Service runs on the
session bus, or with `--store secret-service`; the profile file then holds
the settings only. Without a bus, or on a bus without a Secret Service, the
credentials go to the 0600 profile file, said once at sign-in; a bus that
never answers is given up on. A locked
collection is a clear error, since authflow shows no unlock prompt.
"""

import json
import os
import signal
import socket
import subprocess

import pytest

from interop_helpers import MANY_PROCESSES_MIN_TTL, wait_until_due
from keyring_fixtures import SessionBus, have_keyring_tools
from test_postgres_store import TokenProxy, provider  # noqa: F401  (the embedded provider, 5-second tokens, counting proxy)

AUTHFLOW_BIN = os.environ.get("AUTHFLOW_BIN")
NOTICE = "No desktop keyring (Secret Service) is running on the session bus"

pytestmark = [
    pytest.mark.skipif(not AUTHFLOW_BIN, reason="AUTHFLOW_BIN is not set"),
    pytest.mark.skipif(not have_keyring_tools(), reason="dbus-daemon, dbus-send or gnome-keyring-daemon is missing"),
]


@pytest.fixture(scope="module")
def lasting_provider(tmp_path_factory):
    """The embedded provider with its default token lifetimes (an hour), for
    tests that compare tokens across several commands."""
    config = tmp_path_factory.mktemp("keyring-provider") / "provider.json"
    config.write_text(json.dumps({"sign_in": "automatic"}))
    process = subprocess.Popen([AUTHFLOW_BIN, "provider", "serve", "--config", str(config)], stdout=subprocess.PIPE,
                               stderr=subprocess.DEVNULL, text=True, stdin=subprocess.DEVNULL)
    issuer = None
    for line in process.stdout:
        if line.startswith("issuer: "):
            issuer = line.split(": ", 1)[1].strip()
        if line.startswith("ready"):
            break
    assert issuer, "the provider did not start"
    proxy = TokenProxy(issuer + "/token")
    yield {"issuer": issuer, "proxy": proxy}
    proxy.close()
    process.send_signal(signal.SIGTERM)
    process.wait(timeout=10)


@pytest.fixture
def bus(tmp_path):
    bus = SessionBus(tmp_path)
    yield bus
    bus.close()


def environment(tmp_path, bus=None, extra=None):
    home = tmp_path / "home"
    (home / "config").mkdir(parents=True, exist_ok=True)
    env = {key: value for key, value in os.environ.items()
           if key not in ("AUTHFLOW_STORE", "DBUS_SESSION_BUS_ADDRESS", "SSH_CONNECTION", "SSH_TTY")}
    env.update(HOME=str(home), XDG_CONFIG_HOME=str(home / "config"), BROWSER="curl -s -o /dev/null -L")
    if bus is not None:
        env["DBUS_SESSION_BUS_ADDRESS"] = bus.address
    env.update(extra or {})
    return env


def run(args, env, timeout=60, input=""):
    return subprocess.run([AUTHFLOW_BIN, *args], env=env, capture_output=True, text=True, timeout=timeout, input=input)


def login(provider, env, *extra, profile="work"):
    issuer = provider["issuer"]
    result = run(["login", "--authorization-endpoint", issuer + "/authorize", "--token-endpoint", provider["proxy"].url,
                  "--jwks-uri", issuer + "/jwks", "--id-token-issuer", issuer, "--client-id", "authflow-demo",
                  "--scope", "openid offline_access", "--profile", profile, "--json", "--show-tokens", *extra], env)
    assert result.returncode == 0, result.stderr[-2000:]
    return json.loads(result.stdout), result.stderr


def profile_text(env, profile="work"):
    with open(os.path.join(env["XDG_CONFIG_HOME"], "authflow", f"{profile}.json"), encoding="utf-8") as f:
        return f.read()


def status(env, profile="work"):
    result = run(["status", "--profile", profile, "--json"], env)
    return result.returncode, json.loads(result.stdout)


def test_a_running_keyring_is_chosen_and_holds_the_secrets_until_logout(lasting_provider, bus, tmp_path):
    env = environment(tmp_path, bus)
    first, stderr = login(lasting_provider, env)
    assert NOTICE not in stderr
    assert first["store"] == "secret-service"
    text = profile_text(env)
    assert '"credential_store"' in text and "credentials" not in json.loads(text)
    for secret in (first["access_token"], first["refresh_token"], first["id_token"]):
        assert secret not in text, "the profile file holds no token"
    assert len(bus.items("work")) == 1
    # status (text and JSON) says where the credentials are.
    code, shown = status(env)
    assert code == 0 and shown["store"] == "secret-service" and shown["subject"] == first["subject"]
    human = run(["status", "--profile", "work"], env)
    assert "store:    the desktop keyring (secret-service)" in human.stdout
    token = run(["token", "--profile", "work"], env)
    assert token.returncode == 0 and token.stdout.strip() == first["access_token"] and token.stderr == ""
    # A token for another API is kept beside the profile's own: in the keyring item, never in the file.
    billing = run(["token", "--profile", "work", "--resource", "https://api.example.com/billing"], env)
    assert billing.returncode == 0, billing.stderr
    assert billing.stdout.strip() not in profile_text(env)
    assert json.loads(profile_text(env)).get("resource_tokens", []) == []
    assert run(["token", "--profile", "work", "--resource", "https://api.example.com/billing"], env).stdout == billing.stdout
    assert len(bus.items("work")) == 1
    code, shown = status(env)
    assert [kept["resource"] for kept in shown["resource_tokens"]] == ["https://api.example.com/billing"]
    # The git helper reads the same item.
    git = run(["credential", "git", "--profile", "work", "get"], env, input="protocol=https\nhost=forge.example.com\n\n")
    assert git.returncode == 0, git.stderr
    assert f"password={first['access_token']}" in git.stdout.splitlines()
    # And the kubectl and Docker helpers.
    exec_info = json.dumps({"kind": "ExecCredential", "apiVersion": "client.authentication.k8s.io/v1", "spec": {"interactive": False}})
    kubectl = run(["credential", "kubectl", "--profile", "work"], {**env, "KUBERNETES_EXEC_INFO": exec_info})
    assert kubectl.returncode == 0, kubectl.stderr
    assert json.loads(kubectl.stdout)["status"]["token"] == first["access_token"]
    docker = run(["credential", "docker", "--profile", "work", "get"], env, input="https://registry.example.com")
    assert docker.returncode == 0, docker.stderr
    assert json.loads(docker.stdout)["Secret"] == first["access_token"]
    out = run(["logout", "--profile", "work", "--no-browser"], env)
    assert out.returncode == 0, out.stderr
    assert bus.items("work") == [], "logout deletes the keyring item"
    after = run(["token", "--profile", "work"], env)
    assert after.returncode == 6, after.stderr
    assert json.loads(profile_text(env))["credential_store"] == "secret-service", "the settings stay"


def test_twenty_token_processes_refresh_once_through_the_keyring(provider, bus, tmp_path):
    env = environment(tmp_path, bus)
    first, _ = login(provider, env, "--store", "secret-service")
    wait_until_due(first["expires_at"])
    before = provider["proxy"].refreshes
    processes = [subprocess.Popen([AUTHFLOW_BIN, "token", "--profile", "work", "--min-ttl", MANY_PROCESSES_MIN_TTL],
                                  env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                  stdin=subprocess.DEVNULL) for _ in range(20)]
    results = [(p.returncode, out, err) for p, (out, err) in ((p, p.communicate(timeout=120)) for p in processes)]
    for code, out, err in results:
        assert code == 0, f"exit {code}: {err[-2000:]}"
        assert err == ""
    assert provider["proxy"].refreshes - before == 1, "exactly one refresh grant reached the provider"
    tokens = {out.strip() for _, out, _ in results}
    assert len(tokens) == 1, "all twenty processes print the same token"
    assert tokens.pop() != first["access_token"]
    assert "credentials" not in json.loads(profile_text(env))
    assert len(bus.items("work")) == 1


def test_without_a_bus_the_file_is_used_and_said_once(lasting_provider, tmp_path):
    env = environment(tmp_path)
    first, stderr = login(lasting_provider, env)
    assert stderr.count(NOTICE) == 1
    assert first["store"] == "file"
    assert json.loads(profile_text(env))["credentials"]["token"]["accessToken"] == first["access_token"]
    assert os.stat(os.path.join(env["XDG_CONFIG_HOME"], "authflow", "work.json")).st_mode & 0o777 == 0o600
    token = run(["token", "--profile", "work"], env)
    assert token.returncode == 0 and token.stderr == "", "the notice is given at sign-in only"
    assert status(env)[1]["store"] == "file"


def test_a_bus_without_a_secret_service_means_the_file(lasting_provider, tmp_path):
    bus = SessionBus(tmp_path, keyring=False)
    try:
        env = environment(tmp_path, bus)
        first, stderr = login(lasting_provider, env)
        assert stderr.count(NOTICE) == 1
        assert first["store"] == "file"
        assert "credentials" in json.loads(profile_text(env))
    finally:
        bus.close()


def test_a_bus_that_never_answers_does_not_hang_the_sign_in(lasting_provider, tmp_path):
    # A socket that accepts connections and never says a word: the probe gives up (2 s), the file is used.
    path = str(tmp_path / "hung-bus")
    hung = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        hung.bind(path)
        hung.listen(8)
        env = environment(tmp_path, extra={"DBUS_SESSION_BUS_ADDRESS": f"unix:path={path},guid=0123"})
        first, stderr = login(lasting_provider, env)
        assert stderr.count(NOTICE) == 1
        assert first["store"] == "file"
    finally:
        hung.close()


def test_an_explicit_file_store_wins_over_a_running_keyring(lasting_provider, bus, tmp_path):
    for name, extra, variables in (("flag", ["--store", "file"], None), ("variable", [], {"AUTHFLOW_STORE": "file"})):
        env = environment(tmp_path, bus, variables)
        first, stderr = login(lasting_provider, env, *extra, profile=name)
        assert NOTICE not in stderr
        assert first["store"] == "file"
        assert json.loads(profile_text(env, name))["credentials"]["token"]["accessToken"] == first["access_token"]
        assert bus.items(name) == []


def test_signing_in_again_into_the_file_removes_the_keyring_item(lasting_provider, bus, tmp_path):
    env = environment(tmp_path, bus)
    login(lasting_provider, env)
    assert len(bus.items("work")) == 1
    login(lasting_provider, env, "--store", "file")
    assert bus.items("work") == []
    assert "credentials" in json.loads(profile_text(env))


def test_a_locked_keyring_is_a_clear_error(lasting_provider, bus, tmp_path):
    env = environment(tmp_path, bus)
    first, _ = login(lasting_provider, env)
    bus.lock_login_collection()
    token = run(["token", "--profile", "work"], env)
    assert token.returncode == 1, token.stderr
    assert token.stdout == ""
    assert "the desktop keyring is locked, and authflow cannot ask for its password" in token.stderr
    code, shown = status(env)
    assert code == 1
    assert shown["error"]["category"] == "storage" and shown["error"]["reason"] == "keyring_locked"
    assert first["access_token"] not in token.stderr + json.dumps(shown)


def test_an_explicit_keyring_without_a_bus_is_a_clear_error(lasting_provider, tmp_path):
    env = environment(tmp_path)
    issuer = lasting_provider["issuer"]
    result = run(["login", "--authorization-endpoint", issuer + "/authorize", "--token-endpoint", lasting_provider["proxy"].url,
                  "--jwks-uri", issuer + "/jwks", "--id-token-issuer", issuer, "--client-id", "authflow-demo",
                  "--scope", "openid offline_access", "--profile", "work", "--store", "secret-service", "--json"], env)
    assert result.returncode == 1, result.stderr
    error = json.loads(result.stdout)["error"]
    assert error["category"] == "storage"
    assert "there is no session bus (DBUS_SESSION_BUS_ADDRESS)" in error["description"]
    # Before the sign-in: no browser was sent to the lasting_provider, no profile written.
    assert "Open this URL" not in result.stderr
    assert not os.path.exists(os.path.join(env["XDG_CONFIG_HOME"], "authflow", "work.json"))
