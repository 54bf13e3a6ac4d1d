"""A private D-Bus session bus, with or without a real gnome-keyring daemon
(the Secret Service) on it, for the keyring store's tests. Each bus lives in
the test's own directory and ends with the test."""

import os
import shutil
import subprocess
import time

KEYRING_PASSWORD = b"authflow-test"
SECRETS = "org.freedesktop.secrets"
SERVICE_PATH = "/org/freedesktop/secrets"


def have_keyring_tools():
    return all(shutil.which(tool) for tool in ("dbus-daemon", "dbus-send", "gnome-keyring-daemon"))


class SessionBus:
    """`dbus-daemon --session` on a socket of its own; `keyring=True` adds
    `gnome-keyring-daemon --unlock --components=secrets` with a new, unlocked
    login collection."""

    def __init__(self, tmp_path, keyring=True):
        self.home = tmp_path / "bus-home"
        for directory in (self.home / "data", self.home / "run"):
            directory.mkdir(parents=True, exist_ok=True)
        os.chmod(self.home / "run", 0o700)
        self.env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(self.home),
                    "XDG_DATA_HOME": str(self.home / "data"), "XDG_RUNTIME_DIR": str(self.home / "run")}
        started = subprocess.run(["dbus-daemon", "--session", "--fork", "--nopidfile", "--print-address=1", "--print-pid=1"],
                                 env=self.env, capture_output=True, text=True, timeout=20)
        assert started.returncode == 0, started.stderr
        self.address, pid = started.stdout.split()[:2]
        self.pid = int(pid)
        self.env["DBUS_SESSION_BUS_ADDRESS"] = self.address
        self.keyring = None
        if keyring:
            self.keyring = subprocess.Popen(["gnome-keyring-daemon", "--unlock", "--components=secrets", "--foreground"],
                                            env=self.env, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                                            stderr=subprocess.DEVNULL)
            self.keyring.stdin.write(KEYRING_PASSWORD)
            self.keyring.stdin.close()
            deadline = time.monotonic() + 20
            while not self.secret_service_running():
                assert time.monotonic() < deadline, "gnome-keyring-daemon did not take its name on the bus"
                time.sleep(0.05)

    def send(self, destination, path, method, *args):
        result = subprocess.run(["dbus-send", "--session", "--print-reply", f"--dest={destination}", path, method, *args],
                                env=self.env, capture_output=True, text=True, timeout=20)
        assert result.returncode == 0, result.stderr
        return result.stdout

    def secret_service_running(self):
        reply = self.send("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus.NameHasOwner",
                          f"string:{SECRETS}")
        return "boolean true" in reply

    def items(self, profile):
        """The object paths of authflow's items for `profile` (unlocked and locked)."""
        reply = self.send(SECRETS, SERVICE_PATH, "org.freedesktop.Secret.Service.SearchItems",
                          f"dict:string:string:application,authflow,profile,{profile}")
        return [line.split('"')[1] for line in reply.splitlines() if "object path" in line]

    def lock_login_collection(self):
        self.send(SECRETS, SERVICE_PATH, "org.freedesktop.Secret.Service.Lock",
                  "array:objpath:/org/freedesktop/secrets/collection/login")

    def close(self):
        if self.keyring is not None:
            self.keyring.terminate()
            try:
                self.keyring.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.keyring.kill()
        try:
            os.kill(self.pid, 15)
        except ProcessLookupError:
            pass
