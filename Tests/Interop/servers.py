#!/usr/bin/env python3
"""Start / stop the interop authorization servers.

    servers.py start --config .interop/config.json [--timeout 30]
    servers.py stop  --config .interop/config.json

``start`` launches the django-oauth-toolkit server, the Authlib server and the
idpyoidc providers (PAR, DPoP, JWT client authentication) in their own process
groups on free ports of 127.0.0.1, waits until every discovery document
answers, and writes the config JSON (see README in the brief / test_cli.py)
plus ``servers.pids.json`` next to it. Logs go to ``dot.log``, ``authlib.log``
and ``idpy.log`` next to the config. ``stop`` terminates the process groups and
removes the temporary data directory.

Run it with the interpreter of the virtualenv that has requirements.txt
installed: that interpreter is also used for the servers and put into the
``browser`` command line.
"""

import argparse
import json
import os
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from interop_common import write_json_atomic  # noqa: E402

PID_FILE_NAME = "servers.pids.json"


def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def log_tail(path, lines=40):
    try:
        with open(path, "r", encoding="utf-8", errors="replace") as f:
            content = f.readlines()
    except OSError as e:
        return f"(cannot read {path}: {e})"
    return "".join(content[-lines:])


def fetch_json(url, timeout=2.0):
    req = urllib.request.Request(url, headers={"Accept": "application/json"})
    with urllib.request.urlopen(req, timeout=timeout) as resp:
        if resp.status != 200:
            raise RuntimeError(f"HTTP {resp.status}")
        return json.loads(resp.read().decode("utf-8"))


def pid_alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def kill_group(pgid, name="", grace=5.0):
    """SIGTERM the process group, then SIGKILL it if still alive after grace."""
    try:
        os.killpg(pgid, signal.SIGTERM)
    except ProcessLookupError:
        return
    except PermissionError as e:
        print(f"servers.py: cannot signal {name} (pgid {pgid}): {e}", file=sys.stderr)
        return
    deadline = time.monotonic() + grace
    while time.monotonic() < deadline:
        try:
            os.killpg(pgid, 0)
        except ProcessLookupError:
            return
        # Reap if it is our child (start's failure path).
        try:
            os.waitpid(pgid, os.WNOHANG)
        except ChildProcessError:
            pass
        time.sleep(0.1)
    try:
        os.killpg(pgid, signal.SIGKILL)
    except ProcessLookupError:
        pass


class ServerSpec:
    def __init__(self, name, argv_fn, discovery_path, issuer_fn):
        self.name = name
        self.argv_fn = argv_fn
        self.discovery_path = discovery_path
        self.issuer_fn = issuer_fn


def server_specs(data_dir, state_dir):
    py = sys.executable
    return [
        ServerSpec(
            "dot",
            lambda port: [
                py, "-u", os.path.join(HERE, "dot_server", "run.py"),
                "--port", str(port),
                "--data-dir", os.path.join(data_dir, "dot"),
                "--fixtures-out", os.path.join(state_dir, "dot.fixtures.json"),
            ],
            "/o/.well-known/openid-configuration",
            lambda port: f"http://127.0.0.1:{port}/o",
        ),
        ServerSpec(
            "authlib",
            lambda port: [
                py, "-u", os.path.join(HERE, "authlib_server", "app.py"),
                "--port", str(port),
                "--fixtures-out", os.path.join(state_dir, "authlib.fixtures.json"),
            ],
            "/.well-known/openid-configuration",
            lambda port: f"http://127.0.0.1:{port}",
        ),
        ServerSpec(
            "idpy",
            lambda port: [
                py, "-u", os.path.join(HERE, "idpy_server.py"),
                "--port", str(port),
                "--data-dir", os.path.join(data_dir, "idpy"),
                "--fixtures-out", os.path.join(state_dir, "idpy.fixtures.json"),
            ],
            "/.well-known/openid-configuration",
            lambda port: f"http://127.0.0.1:{port}",
        ),
    ]


class StartError(Exception):
    pass


def launch(spec, state_dir, timeout):
    """Start one server; return (proc, port). Retries once on a port race."""
    log_path = os.path.join(state_dir, f"{spec.name}.log")
    fixtures = os.path.join(state_dir, f"{spec.name}.fixtures.json")
    last_error = None
    for attempt in range(3):
        if os.path.exists(fixtures):
            os.unlink(fixtures)
        port = free_port()
        log = open(log_path, "a" if attempt else "w", encoding="utf-8")
        env = dict(os.environ)
        env["PYTHONUNBUFFERED"] = "1"
        env.pop("DJANGO_SETTINGS_MODULE", None)
        try:
            proc = subprocess.Popen(
                spec.argv_fn(port),
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                cwd=HERE,
                env=env,
                start_new_session=True,  # own process group: stop kills it whole
            )
        finally:
            log.close()
        url = f"http://127.0.0.1:{port}{spec.discovery_path}"
        expected_issuer = spec.issuer_fn(port)
        deadline = time.monotonic() + timeout
        while True:
            code = proc.poll()
            if code is not None:
                tail = log_tail(log_path)
                last_error = f"{spec.name} server exited with status {code} during start-up"
                if "Address already in use" in tail or "address already in use" in tail:
                    break  # port race: retry with another port
                raise StartError(f"{last_error}. Last lines of {log_path}:\n{tail}")
            try:
                doc = fetch_json(url)
                if doc.get("issuer") != expected_issuer:
                    kill_group(proc.pid, spec.name)
                    raise StartError(
                        f"{spec.name} server answered with issuer {doc.get('issuer')!r}, "
                        f"expected {expected_issuer!r}"
                    )
                if os.path.exists(fixtures):
                    return proc, port
            except (urllib.error.URLError, ConnectionError, socket.timeout, OSError, ValueError, RuntimeError):
                pass
            if time.monotonic() > deadline:
                kill_group(proc.pid, spec.name)
                raise StartError(
                    f"{spec.name} server did not answer {url} within {timeout:.0f} s. "
                    f"Last lines of {log_path}:\n{log_tail(log_path)}"
                )
            time.sleep(0.2)
    raise StartError(f"{last_error}. Last lines of {log_path}:\n{log_tail(log_path)}")


def read_pids(state_dir):
    path = os.path.join(state_dir, PID_FILE_NAME)
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def stop(config_path, quiet=False):
    state_dir = os.path.dirname(os.path.abspath(config_path))
    info = read_pids(state_dir)
    if not info:
        if not quiet:
            print(f"servers.py: no {PID_FILE_NAME} in {state_dir}; nothing to stop")
        return 0
    for name, entry in info.get("servers", {}).items():
        pgid = entry.get("pgid")
        if pgid and pid_alive(entry.get("pid", pgid)):
            kill_group(pgid, name)
            if not quiet:
                print(f"servers.py: stopped {name} (pid {entry.get('pid')})")
    data_dir = info.get("data_dir")
    if data_dir and os.path.basename(data_dir).startswith("authflow-interop-"):
        shutil.rmtree(data_dir, ignore_errors=True)
    try:
        os.unlink(os.path.join(state_dir, PID_FILE_NAME))
    except OSError:
        pass
    return 0


def start(config_path, timeout):
    config_path = os.path.abspath(config_path)
    state_dir = os.path.dirname(config_path)
    os.makedirs(state_dir, exist_ok=True)
    # A previous run that was not stopped: stop it first.
    stop(config_path, quiet=True)
    try:
        os.unlink(config_path)
    except OSError:
        pass

    data_dir = tempfile.mkdtemp(prefix="authflow-interop-")
    pids = {"data_dir": data_dir, "servers": {}}
    pid_path = os.path.join(state_dir, PID_FILE_NAME)
    started = []
    servers = {}
    try:
        for spec in server_specs(data_dir, state_dir):
            t0 = time.monotonic()
            proc, port = launch(spec, state_dir, timeout)
            started.append((spec.name, proc))
            pids["servers"][spec.name] = {"pid": proc.pid, "pgid": proc.pid, "port": port}
            write_json_atomic(pid_path, pids)
            with open(os.path.join(state_dir, f"{spec.name}.fixtures.json"), encoding="utf-8") as f:
                fixtures = json.load(f)
            fixtures.pop("pid", None)
            fixtures["discovery_url"] = f"http://127.0.0.1:{port}{spec.discovery_path}"
            fixtures["log"] = os.path.join(state_dir, f"{spec.name}.log")
            servers[spec.name] = fixtures
            print(f"servers.py: {spec.name} ready at {fixtures['issuer']} "
                  f"(pid {proc.pid}, {time.monotonic() - t0:.1f} s)")
    except StartError as e:
        print(f"servers.py: ERROR: {e}", file=sys.stderr)
        for name, proc in started:
            kill_group(proc.pid, name)
        shutil.rmtree(data_dir, ignore_errors=True)
        try:
            os.unlink(pid_path)
        except OSError:
            pass
        return 1

    browser = " ".join(shlex.quote(p) for p in (sys.executable, os.path.join(HERE, "browser.py")))
    config = {"browser": browser, "servers": servers}
    write_json_atomic(config_path, config)
    print(f"servers.py: wrote {config_path}")
    return 0


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    p_start = sub.add_parser("start", help="start both servers and write the config")
    p_start.add_argument("--config", required=True)
    p_start.add_argument("--timeout", type=float, default=30.0,
                         help="seconds to wait for each server (default 30)")
    p_stop = sub.add_parser("stop", help="stop the servers started with this config")
    p_stop.add_argument("--config", required=True)
    args = parser.parse_args()
    if args.command == "start":
        return start(args.config, args.timeout)
    return stop(args.config)


if __name__ == "__main__":
    sys.exit(main())
