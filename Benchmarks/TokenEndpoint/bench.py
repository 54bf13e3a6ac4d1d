#!/usr/bin/env python3
"""Token-endpoint throughput: mint codes, then time their exchange and refresh with wrk.

    bench.py --targets targets.json --out DIR [-n 2000] [-c 16]

targets.json is a list of servers (written by run.sh):
    {"name": ..., "kind": "provider" | "dot" | "authlib", "base": "http://127.0.0.1:PORT",
     "authorize": URL, "token": URL, "client_id": ..., "username": ..., "password": ...,
     "setup": "how it runs", "id_token_alg": "RS256" | "ES256" (optional; RS256 when absent)}

For each server, in order:
 1. mint N authorization codes (not timed): PKCE S256, one verifier per code.
    provider: GET /authorize (automatic sign-in) and read the code from the 302.
    DOT, Authlib: sign in once on their login form with a requests.Session, then
    POST their consent form ("Authorize" / "approve") once per code, from 8
    threads that share the signed-in cookies.
 2. exchange: wrk POSTs each code once (grant_type=authorization_code) over C
    keep-alive connections, one per wrk thread (token.lua); every answer must be
    200 with an access_token; the rotated refresh tokens are kept.
 3. refresh: wrk POSTs each of those refresh tokens once (grant_type=refresh_token).
req/s is HTTP 200 answers / (last answer - first request) on CLOCK_MONOTONIC;
latency is per request (token.lua hands it to wrk -> answer complete);
percentiles are nearest-rank over all N.
"""

import argparse
import base64
import concurrent.futures
import hashlib
import json
import os
import re
import secrets
import shutil
import signal
import subprocess
import sys
import threading
import time
from urllib.parse import parse_qs, urlencode, urlsplit

import requests

HERE = os.path.dirname(os.path.abspath(__file__))
REDIRECT_URI = "http://127.0.0.1/callback"
SCOPE = "openid profile email"
MINT_THREADS = 8


def pkce_pair():
    verifier = secrets.token_urlsafe(48)
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
    return verifier, challenge


def code_from(response):
    if response.status_code not in (302, 303):
        raise RuntimeError(f"expected a redirect, got {response.status_code}: {response.text[:300]}")
    query = parse_qs(urlsplit(response.headers["Location"]).query)
    if "code" not in query:
        raise RuntimeError(f"no code in {response.headers['Location']}")
    return query["code"][0]


def authorize_params(target, challenge):
    return {
        "response_type": "code", "client_id": target["client_id"], "redirect_uri": REDIRECT_URI,
        "scope": SCOPE, "state": secrets.token_urlsafe(12),
        "code_challenge": challenge, "code_challenge_method": "S256",
    }


def sign_in(target):
    """A requests.Session signed in on the server's login form; returns (session, csrf)."""
    s = requests.Session()
    base = target["base"]
    if target["kind"] == "dot":
        s.get(f"{base}/accounts/login/").raise_for_status()
        r = s.post(f"{base}/accounts/login/", allow_redirects=False, data={
            "username": target["username"], "password": target["password"],
            "csrfmiddlewaretoken": s.cookies["csrftoken"], "next": "/"})
        if r.status_code != 302:
            raise RuntimeError(f"DOT login failed: {r.status_code}")
        return s, s.cookies["csrftoken"]  # rotated at login; Django accepts the unmasked secret
    if target["kind"] == "authlib":
        page = s.get(f"{base}/login")
        page.raise_for_status()
        csrf = re.search(r'name="csrf_token" value="([^"]+)"', page.text).group(1)
        r = s.post(f"{base}/login", allow_redirects=False, data={
            "csrf_token": csrf, "username": target["username"], "password": target["password"], "next": ""})
        if r.status_code != 302:
            raise RuntimeError(f"Authlib login failed: {r.status_code}")
        return s, csrf
    return s, None


def mint(target, n):
    """N (code, verifier) pairs."""
    login, csrf = sign_in(target)
    local = threading.local()

    def session():
        if not hasattr(local, "s"):
            local.s = requests.Session()
            local.s.cookies.update(login.cookies)
        return local.s

    def one(_):
        verifier, challenge = pkce_pair()
        params = authorize_params(target, challenge)
        s = session()
        if target["kind"] == "provider":
            r = s.get(target["authorize"], params=params, allow_redirects=False)
        elif target["kind"] == "dot":
            r = s.post(target["authorize"], allow_redirects=False,
                       data=dict(params, csrfmiddlewaretoken=csrf, allow="Authorize"))
        else:
            r = s.post(f"{target['authorize']}?{urlencode(params)}", allow_redirects=False,
                       data={"csrf_token": csrf, "decision": "approve"})
        return code_from(r), verifier

    with concurrent.futures.ThreadPoolExecutor(MINT_THREADS) as pool:
        return list(pool.map(one, range(n)))


def tree_cpu_s(root):
    """CPU seconds (user + system) used so far by process ROOT and its descendants."""
    if not root:
        return 0.0
    children, cpu = {}, {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        children.setdefault(int(fields[1]), []).append(int(entry))
        cpu[int(entry)] = int(fields[11]) + int(fields[12])
    total, stack = 0, [root]
    while stack:
        pid = stack.pop()
        total += cpu.get(pid, 0)
        stack += children.get(pid, [])
    return total / os.sysconf("SC_CLK_TCK")


def percentile(sorted_values, p):
    """Nearest-rank percentile."""
    if not sorted_values:
        return 0.0
    rank = max(1, -(-len(sorted_values) * p // 100))
    return sorted_values[int(rank) - 1]


def run_wrk(url, bodies, work_dir, connections, timeout, server_pid=None):
    """POST each body once over C connections (one per wrk thread).

    Returns (result dict, refresh tokens from the answers)."""
    shutil.rmtree(work_dir, ignore_errors=True)
    os.makedirs(work_dir)
    for i in range(connections):
        with open(os.path.join(work_dir, f"body.{i + 1}"), "w") as f:
            f.writelines(b + "\n" for b in bodies[i::connections])
    env = dict(os.environ, TOKBENCH_DIR=work_dir)
    cmd = ["wrk", "-t", str(connections), "-c", str(connections), "-d", "600s", "--timeout", "30s",
           "-s", os.path.join(HERE, "token.lua"), url, "--", work_dir]
    server_cpu_before = tree_cpu_s(server_pid)
    with open(os.path.join(work_dir, "wrk.stdout"), "w") as log:
        proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, env=env)
    deadline = time.monotonic() + timeout
    markers = [os.path.join(work_dir, f"done.{i + 1}") for i in range(connections)]
    while time.monotonic() < deadline and proc.poll() is None:
        if all(os.path.exists(m) for m in markers):
            break
        time.sleep(0.02)
    if proc.poll() is None:
        proc.send_signal(signal.SIGINT)  # wrk stops its threads, reports, runs done()
    _, status, usage = os.wait4(proc.pid, 0)
    server_cpu = tree_cpu_s(server_pid) - server_cpu_before
    proc.returncode = os.waitstatus_to_exitcode(status)
    result = {"bodies": len(bodies), "answered": 0, "ok": 0, "errors": 0, "lost": 0,
              "with_refresh": 0, "with_id_token": 0, "unfinished_threads": 0}
    first, last, latencies, tokens, error_lines = None, 0.0, [], [], []
    for i in range(1, connections + 1):
        try:
            with open(os.path.join(work_dir, f"done.{i}")) as f:
                d = json.load(f)
        except OSError:
            result["unfinished_threads"] += 1
            continue
        for k in ("answered", "ok", "errors", "lost", "with_refresh", "with_id_token"):
            result[k] += d[k]
        if d["first_ns"]:
            first = d["first_ns"] if first is None else min(first, d["first_ns"])
        last = max(last, d["last_ns"])
        with open(os.path.join(work_dir, f"lat.{i}")) as f:
            latencies += [float(x) for x in f]
        with open(os.path.join(work_dir, f"out.{i}")) as f:
            tokens += [line.strip() for line in f if line.strip()]
        with open(os.path.join(work_dir, f"errors.{i}")) as f:
            error_lines += f.readlines()
    try:
        with open(os.path.join(work_dir, "wrk.json")) as f:
            result["wrk"] = json.load(f)
    except OSError:
        result["wrk"] = None
    latencies.sort()
    elapsed = (last - first) / 1e9 if first is not None else 0.0
    result.update({
        "elapsed_s": elapsed,
        "latency_ms": {p: percentile(latencies, q) / 1000 for p, q in (("p50", 50), ("p90", 90), ("p99", 99))}
        | {"max": latencies[-1] / 1000 if latencies else 0.0,
           "mean": sum(latencies) / len(latencies) / 1000 if latencies else 0.0},
        "wrk_cpu_s": usage.ru_utime + usage.ru_stime,
        "server_cpu_s": server_cpu,
        "error_samples": error_lines[:3],
        # Everything not answered with a 200 + access_token counts as failed.
        "failed": len(bodies) - result["ok"],
        "rps": result["ok"] / elapsed if elapsed else 0.0,
    })
    result["wrk_cpu_pct"] = 100.0 * result["wrk_cpu_s"] / elapsed if elapsed else 0.0
    result["server_cpu_pct"] = 100.0 * server_cpu / elapsed if elapsed else 0.0
    result["server_cpu_ms_per_ok"] = 1000.0 * server_cpu / result["ok"] if result["ok"] else 0.0
    return result, tokens


def bench_target(target, n, connections, out_dir, log):
    name = target["name"]
    form = lambda d: urlencode(d)  # noqa: E731
    t0 = time.monotonic()
    pairs = mint(target, n)
    minted = time.monotonic()
    log(f"{name}: minted {len(pairs)} codes in {minted - t0:.1f} s")
    bodies = [form({"grant_type": "authorization_code", "code": code, "redirect_uri": REDIRECT_URI,
                    "client_id": target["client_id"], "code_verifier": verifier}) for code, verifier in pairs]
    exchange, refresh_tokens = run_wrk(target["token"], bodies, os.path.join(out_dir, name, "exchange"),
                                       connections, timeout=300, server_pid=target.get("pid"))
    exchange["oldest_code_age_at_end_s"] = time.monotonic() - t0
    log(f"{name}: exchange {exchange['rps']:.0f}/s p50 {exchange['latency_ms']['p50']:.2f} ms "
        f"p99 {exchange['latency_ms']['p99']:.2f} ms, failed {exchange['failed']}, "
        f"{len(refresh_tokens)} refresh tokens")
    for line in exchange["error_samples"]:
        log(f"  error: {line.strip()}")
    bodies = [form({"grant_type": "refresh_token", "refresh_token": token, "client_id": target["client_id"]})
              for token in refresh_tokens]
    refresh, _ = run_wrk(target["token"], bodies, os.path.join(out_dir, name, "refresh"),
                         connections, timeout=300, server_pid=target.get("pid"))
    refresh["failed"] += n - len(refresh_tokens)  # codes that gave no refresh token count here too
    log(f"{name}: refresh  {refresh['rps']:.0f}/s p50 {refresh['latency_ms']['p50']:.2f} ms "
        f"p99 {refresh['latency_ms']['p99']:.2f} ms, failed {refresh['failed']}")
    for line in refresh["error_samples"]:
        log(f"  error: {line.strip()}")
    return {"name": name, "kind": target["kind"], "setup": target.get("setup", ""),
            "id_token_alg": target.get("id_token_alg", "RS256"),
            "mint_s": minted - t0, "exchange": exchange, "refresh": refresh}


def table(results, n, connections):
    lines = [
        f"N = {n} requests per grant and server, C = {connections} keep-alive connections, "
        f"(wrk -t {connections} -c {connections}); req/s = HTTP 200 answers / (last answer - first request)",
        "",
        "| server | grant | req/s | p50 ms | p99 ms | errors | ID token in answer | server CPU | server CPU ms/req | wrk CPU |",
        "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for r in results:
        for grant in ("exchange", "refresh"):
            g = r[grant]
            lines.append(
                f"| {r['name']} | {'authorization_code' if grant == 'exchange' else 'refresh_token'} "
                f"| {g['rps']:,.0f} | {g['latency_ms']['p50']:.2f} | {g['latency_ms']['p99']:.2f} "
                f"| {g['failed']} | {g['with_id_token']}/{g['ok']} | {g['server_cpu_pct']:.0f} % "
                f"| {g['server_cpu_ms_per_ok']:.2f} | {g['wrk_cpu_pct']:.0f} % |")
    lines.append("")
    for p in (r for r in results if r["kind"] == "provider"):
        for grant, label in (("exchange", "authorization_code"), ("refresh", "refresh_token")):
            # A server that failed requests is left out of the comparison (flagged below).
            others = [r for r in results if r["kind"] != "provider" and r[grant]["failed"] == 0]
            # Compare like with like: Python servers signing ID tokens with the provider's
            # algorithm (authlib-es256-gunicorn for provider-es256); any when there is none.
            alg = p.get("id_token_alg", "RS256")
            same = [r for r in others if r.get("id_token_alg", "RS256") == alg]
            note = f"{alg} ID tokens on both sides" if same else f"no Python server with {alg} ID tokens here"
            others = same or others
            if not others:
                continue
            best = max(others, key=lambda r: r[grant]["rps"])
            ratio = p[grant]["rps"] / best[grant]["rps"] if best[grant]["rps"] else float("inf")
            lines.append(f"{label}: {p['name']} {p[grant]['rps']:,.0f}/s vs fastest Python server "
                         f"{best['name']} {best[grant]['rps']:,.0f}/s = {ratio:.1f}x "
                         f"(goal >= 10x: {'met' if ratio >= 10 else 'NOT met'}; {note})")
    lines.append("")
    for r in results:
        flag = ""
        if r["exchange"]["failed"] or r["refresh"]["failed"]:
            flag = (f" -- FAILED {r['exchange']['failed']} exchanges and {r['refresh']['failed']} refreshes "
                    f"(e.g. {(r['exchange']['error_samples'] or r['refresh']['error_samples'] or [''])[0].strip()[:80]}); "
                    "not used for the ratio")
        lines.append(f"{r['name']}: {r['setup']}{flag}")
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--targets", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("-n", type=int, default=2000)
    parser.add_argument("-c", type=int, default=16)
    args = parser.parse_args()
    with open(args.targets) as f:
        targets = json.load(f)

    def log(msg):
        print(msg, file=sys.stderr, flush=True)

    if args.n < args.c:
        parser.error("-n must be at least -c")
    results = [bench_target(t, args.n, args.c, args.out, log) for t in targets]
    with open(os.path.join(args.out, "results.json"), "w") as f:
        json.dump({"n": args.n, "c": args.c, "results": results}, f, indent=2)
    report = table(results, args.n, args.c)
    with open(os.path.join(args.out, "table.md"), "w") as f:
        f.write(report + "\n")
    print(report)
    # Exit 1 when the provider failed any request (Python servers' failures are reported above).
    failed = sum(r[g]["failed"] for r in results if r["kind"] == "provider" for g in ("exchange", "refresh"))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
