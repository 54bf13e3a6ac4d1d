"""`authflow login` checks where the credentials will be kept before any
browser opens, and the PostgreSQL store's connection requires TLS unless the
URL says otherwise or the host is a loopback IP literal.

A fake PostgreSQL server on 127.0.0.1 (and ::1) records what a client sends
and answers the TLS request (SSLRequest) with "N", as a server without TLS,
or someone in the path, would. Each test counts the browsers the CLI opened
(credential_fixtures' counting $BROWSER): a store that will refuse the
credentials must end the command with none opened.

Needs AUTHFLOW_BIN (skipped otherwise); the keyring test needs dbus-daemon
and gnome-keyring-daemon (skipped otherwise).
"""

import base64
import json
import os
import secrets
import socket
import struct
import threading

import pytest

from credential_fixtures import AUTHFLOW_BIN, CLI, browsers_opened, describe, provider  # noqa: F401
from keyring_fixtures import SessionBus, have_keyring_tools

pytestmark = pytest.mark.skipif(not AUTHFLOW_BIN, reason="AUTHFLOW_BIN is not set")

KEY = base64.b64encode(secrets.token_bytes(32)).decode()
PASSWORD = "pg-" + secrets.token_hex(8)
SSL_REQUEST = struct.pack("!II", 8, 80877103)


class FakePostgres:
    """Listens on 127.0.0.1 and ::1 (one port); answers an SSLRequest with
    "N" and closes any connection after the client's next message. `received`
    holds every connection's bytes."""

    def __init__(self):
        self.received = []
        self.lock = threading.Lock()
        self.sockets = []
        first = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        first.bind(("127.0.0.1", 0))
        self.port = first.getsockname()[1]
        self.sockets.append(first)
        try:
            second = socket.socket(socket.AF_INET6, socket.SOCK_STREAM)
            second.bind(("::1", self.port))
            self.sockets.append(second)
        except OSError:
            pass
        for listening in self.sockets:
            listening.listen(16)
            listening.settimeout(0.2)
            threading.Thread(target=self.serve, args=(listening,), daemon=True).start()
        self.stopped = False

    def serve(self, listening):
        while not getattr(self, "stopped", False):
            try:
                connection, _ = listening.accept()
            except (socket.timeout, OSError):
                continue
            threading.Thread(target=self.handle, args=(connection,), daemon=True).start()

    def handle(self, connection):
        data = b""
        connection.settimeout(5)
        try:
            data = connection.recv(8)
            if data == SSL_REQUEST:
                connection.sendall(b"N")
                data += connection.recv(4096)
        except OSError:
            pass
        finally:
            with self.lock:
                self.received.append(data)
            connection.close()

    def everything(self):
        with self.lock:
            return b"".join(self.received)

    def stop(self):
        self.stopped = True
        for listening in self.sockets:
            listening.close()


@pytest.fixture
def fake_postgres():
    server = FakePostgres()
    yield server
    server.stop()


def closed_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def login(cli, provider, store, env=None, *extra):
    return cli.run("login", "--issuer", provider["issuer"], "--client-id", "cli-public", "--scope", "openid",
                   "--store", store, "--json", *extra, env=env, timeout=90)


def test_a_postgresql_store_without_its_key_fails_before_the_browser_opens(provider, tmp_path):
    cli = CLI(tmp_path)
    result = login(cli, provider, f"postgresql://alice:{PASSWORD}@127.0.0.1:{closed_port()}/db",
                   {"AUTHFLOW_STORE_KEY": "", "AUTHFLOW_STORE_KEY_FILE": ""})
    assert result.returncode == 1, describe(result)
    error = json.loads(result.stdout)["error"]
    assert error["category"] == "configuration" and error["description"] == "a PostgreSQL store needs an encryption key"
    assert browsers_opened(tmp_path) == 0
    assert PASSWORD not in result.stdout + result.stderr


def test_a_postgresql_store_with_a_malformed_key_fails_before_the_browser_opens(provider, tmp_path):
    cli = CLI(tmp_path)
    result = login(cli, provider, f"postgresql://alice@127.0.0.1:{closed_port()}/db", {"AUTHFLOW_STORE_KEY": "c2hvcnQ="})
    assert result.returncode == 1, describe(result)
    assert json.loads(result.stdout)["error"]["category"] == "configuration"
    assert browsers_opened(tmp_path) == 0


def test_an_unreachable_postgresql_store_fails_before_the_browser_opens(provider, tmp_path):
    cli = CLI(tmp_path)
    result = login(cli, provider, f"postgresql://alice:{PASSWORD}@127.0.0.1:{closed_port()}/db?sslmode=disable",
                   {"AUTHFLOW_STORE_KEY": KEY})
    assert result.returncode == 5, describe(result)
    error = json.loads(result.stdout)["error"]
    assert error["category"] == "network"
    # At once and with its cause (one direct connection before the pool, which would retry until its deadline).
    assert error["description"].startswith("PostgreSQL: cannot connect to the server: connection refused ("), error
    assert browsers_opened(tmp_path) == 0
    assert PASSWORD not in result.stdout + result.stderr and KEY not in result.stdout + result.stderr


def test_a_postgresql_store_without_its_helper_says_how_to_install_it(provider, tmp_path):
    """`authflow` alone, as the Debian package `authflow` without
    `authflow-postgresql`: the store is a configuration error that names the
    helper and how to get it, before any browser opens, and the key and the
    password stay out of it."""
    alone = tmp_path / "bin" / "authflow"
    alone.parent.mkdir()
    alone.write_bytes(open(AUTHFLOW_BIN, "rb").read())
    alone.chmod(0o755)
    cli = CLI(tmp_path)
    result = cli.run("login", "--issuer", provider["issuer"], "--client-id", "cli-public", "--scope", "openid",
                     "--store", f"postgresql://alice:{PASSWORD}@127.0.0.1:{closed_port()}/db", "--json",
                     env={"AUTHFLOW_STORE_KEY": KEY}, timeout=90, binary=str(alone))
    assert result.returncode == 1, describe(result)
    error = json.loads(result.stdout)["error"]
    assert error["category"] == "configuration", error
    assert error["description"] == "a PostgreSQL store needs authflow-postgresql, which is not installed beside authflow", error
    said = cli.run("token", "--store", f"postgresql://alice:{PASSWORD}@127.0.0.1:{closed_port()}/db",
                   env={"AUTHFLOW_STORE_KEY": KEY}, timeout=90, binary=str(alone))
    assert said.returncode == 1, describe(said)
    assert "hint: Install the authflow-postgresql package" in said.stderr, describe(said)
    assert browsers_opened(tmp_path) == 0
    everything = result.stdout + result.stderr + said.stdout + said.stderr
    assert PASSWORD not in everything and KEY not in everything


def test_a_host_name_requires_tls_and_a_server_without_it_never_gets_the_password(provider, fake_postgres, tmp_path):
    """localhost is a name, not a loopback literal: TLS is required. The
    server answers "no TLS"; the CLI stops there (exit 5) with no StartupMessage
    (user, database) and no password sent, and no browser opened."""
    cli = CLI(tmp_path)
    result = login(cli, provider, f"postgresql://alice:{PASSWORD}@localhost:{fake_postgres.port}/db",
                   {"AUTHFLOW_STORE_KEY": KEY})
    assert result.returncode == 5, describe(result)
    error = json.loads(result.stdout)["error"]
    assert error["category"] == "network"
    assert error["description"] == "PostgreSQL: cannot connect to the server: the server does not offer TLS, which this store requires"
    assert browsers_opened(tmp_path) == 0
    sent = fake_postgres.everything()
    assert sent and set(fake_postgres.received) == {SSL_REQUEST}, sent
    assert b"alice" not in sent and PASSWORD.encode() not in sent


@pytest.mark.parametrize("address", ["localhost:{port}/db?sslmode=prefer", "127.0.0.1:{port}/db"])
def test_plain_text_only_when_the_url_says_so_or_the_host_is_a_loopback_literal(provider, fake_postgres, tmp_path,
                                                                                  address):
    """With sslmode=prefer, or on 127.0.0.1 by default, a server without TLS
    gets the StartupMessage in plain text (the documented exceptions)."""
    cli = CLI(tmp_path)
    result = login(cli, provider, f"postgresql://alice:{PASSWORD}@" + address.format(port=fake_postgres.port),
                   {"AUTHFLOW_STORE_KEY": KEY})
    assert result.returncode == 5, describe(result)
    assert browsers_opened(tmp_path) == 0
    assert b"alice" in fake_postgres.everything()


@pytest.mark.skipif(not have_keyring_tools(), reason="dbus-daemon or gnome-keyring-daemon is not installed")
@pytest.mark.parametrize("store", [["--store", "secret-service"], []])
def test_a_locked_keyring_fails_before_the_browser_opens(provider, tmp_path, store):
    """Named, or chosen because it runs: a locked keyring is keyring_locked
    before the sign-in, not after the user signed in."""
    bus = SessionBus(tmp_path)
    try:
        bus.lock_login_collection()
        cli = CLI(tmp_path)
        env = {"DBUS_SESSION_BUS_ADDRESS": bus.address}
        result = cli.run("login", "--issuer", provider["issuer"], "--client-id", "cli-public", "--scope", "openid", "--json",
                         *store, env=env, timeout=90)
        assert result.returncode == 1, describe(result)
        error = json.loads(result.stdout)["error"]
        assert error["category"] == "storage" and error["reason"] == "keyring_locked", error
        assert browsers_opened(tmp_path) == 0
    finally:
        bus.close()


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root to give the directory to another user")
def test_a_profile_directory_of_another_user_fails_before_the_browser_opens(provider, tmp_path):
    """The profile file keeps the settings whatever the store: a directory the
    user does not own is refused before the sign-in, not after it."""
    cli = CLI(tmp_path)
    directory = cli.config / "authflow"
    directory.mkdir(parents=True)
    os.chown(directory, 65534, 65534)
    result = cli.run("login", "--issuer", provider["issuer"], "--client-id", "cli-public", "--scope", "openid", "--json",
                     "--store", "file")
    assert result.returncode == 1, describe(result)
    error = json.loads(result.stdout)["error"]
    assert error["category"] == "storage" and str(directory) in error["description"], error
    assert browsers_opened(tmp_path) == 0
