#!/usr/bin/env python3
"""Whole-process wall time of `authflow token` on a fresh token.

Runs the given `authflow` binary N times (after warm-up runs) against a
profile whose access token is valid until 2099 (profile.json: a profile
written by `authflow login` against Django OAuth Toolkit, expiry moved), so
no request is sent: what is measured is process start, dynamic linking,
argument parsing, reading and decoding the profile, and printing the token.
Prints median, p90, min and max in milliseconds, and the same for a
reference binary when --reference is given (e.g. a Foundation hello world).

    Benchmarks/CLIToken/bench.py .build/release/authflow [-n 200] [--reference BIN]
"""

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def measure(argv, env, runs, warmup):
    for _ in range(warmup):
        subprocess.run(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    samples = []
    for _ in range(runs):
        start = time.perf_counter_ns()
        subprocess.run(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
        samples.append((time.perf_counter_ns() - start) / 1e6)
    samples.sort()
    return {
        "median": statistics.median(samples),
        "p90": samples[int(len(samples) * 0.9) - 1],
        "min": samples[0],
        "max": samples[-1],
    }


def show(label, result):
    print(f"{label:<28} median {result['median']:6.2f} ms   p90 {result['p90']:6.2f} ms   "
          f"min {result['min']:6.2f} ms   max {result['max']:6.2f} ms")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("binary")
    parser.add_argument("-n", "--runs", type=int, default=200)
    parser.add_argument("--warmup", type=int, default=20)
    parser.add_argument("--reference", help="another binary to time the same way (no arguments)")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as xdg:
        os.makedirs(os.path.join(xdg, "authflow"), mode=0o700)
        target = os.path.join(xdg, "authflow", "default.json")
        shutil.copyfile(os.path.join(HERE, "profile.json"), target)
        os.chmod(target, 0o600)
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": xdg, "XDG_CONFIG_HOME": xdg}
        out = subprocess.run([args.binary, "token"], env=env, capture_output=True, text=True)
        if out.returncode != 0 or not out.stdout.strip():
            sys.exit(f"authflow token failed (exit {out.returncode}): {out.stderr}")
        show("authflow token", measure([args.binary, "token"], env, args.runs, args.warmup))
        if args.reference:
            show(os.path.basename(args.reference), measure([args.reference], env, args.runs, args.warmup))


if __name__ == "__main__":
    main()
