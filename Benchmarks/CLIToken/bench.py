#!/usr/bin/env python3
"""Whole-process wall and CPU time of `authflow token` on a fresh token.

Runs the given `authflow` binary N times (after warm-up runs) against a
profile whose access token is valid until 2099 (profile.json: a profile
written by `authflow login` against Django OAuth Toolkit, expiry moved), so
no request is sent: what is measured is process start, dynamic linking,
reading and decoding the profile, and printing the token. Prints median,
p90, min and max wall time in milliseconds and the median CPU time (user +
system of the child, from wait4) of it, and of every --reference command
line (e.g. `gh auth token`, or `authflow --version`), timed the same way in
the same run. --env NAME=VALUE adds to the (otherwise minimal) environment
of every command, e.g. GH_TOKEN=… so that `gh auth token` answers offline.

    Benchmarks/CLIToken/bench.py .build/release/authflow [-n 200] [--env NAME=VALUE]... [--reference 'BIN [ARGS]']...
"""

import argparse
import os
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def run_once(argv, env):
    """Wall time and CPU time (user + system) of one run, in milliseconds."""
    start = time.perf_counter_ns()
    process = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                               stdin=subprocess.DEVNULL)
    _, status, usage = os.wait4(process.pid, 0)
    wall = (time.perf_counter_ns() - start) / 1e6
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode != 0:
        sys.exit(f"{' '.join(argv)} failed (exit {process.returncode})")
    return wall, (usage.ru_utime + usage.ru_stime) * 1e3


def measure(argv, env, runs, warmup):
    for _ in range(warmup):
        run_once(argv, env)
    samples = [run_once(argv, env) for _ in range(runs)]
    walls = sorted(wall for wall, _ in samples)
    return {
        "median": statistics.median(walls),
        "p90": walls[int(len(walls) * 0.9) - 1],
        "min": walls[0],
        "max": walls[-1],
        "cpu": statistics.median(cpu for _, cpu in samples),
    }


def show(label, result):
    print(f"{label:<28} wall median {result['median']:6.2f} ms   p90 {result['p90']:6.2f} ms   "
          f"min {result['min']:6.2f} ms   max {result['max']:6.2f} ms   CPU median {result['cpu']:6.2f} ms")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("binary")
    parser.add_argument("-n", "--runs", type=int, default=200)
    parser.add_argument("--warmup", type=int, default=20)
    parser.add_argument("--env", action="append", default=[], help="NAME=VALUE added to the environment of every command (repeatable)")
    parser.add_argument("--reference", action="append", default=[],
                        help="another command line to time the same way, e.g. a Foundation hello world or "
                             "'.build/release/authflow --version' (repeatable)")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as xdg:
        os.makedirs(os.path.join(xdg, "authflow"), mode=0o700)
        target = os.path.join(xdg, "authflow", "default.json")
        shutil.copyfile(os.path.join(HERE, "profile.json"), target)
        os.chmod(target, 0o600)
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": xdg, "XDG_CONFIG_HOME": xdg}
        env.update(item.split("=", 1) for item in args.env)
        out = subprocess.run([args.binary, "token"], env=env, capture_output=True, text=True)
        if out.returncode != 0 or not out.stdout.strip():
            sys.exit(f"authflow token failed (exit {out.returncode}): {out.stderr}")
        show("authflow token", measure([args.binary, "token"], env, args.runs, args.warmup))
        for reference in args.reference:
            argv = shlex.split(reference)
            label = " ".join([os.path.basename(argv[0]), *argv[1:]])
            show(label, measure(argv, env, args.runs, args.warmup))


if __name__ == "__main__":
    main()
