#!/usr/bin/env bash
# Token-endpoint throughput of the embedded provider, Django OAuth Toolkit and
# Authlib, side by side, with one load generator (wrk + token.lua).
#
#   Benchmarks/TokenEndpoint/run.sh [-n N] [-c CONNECTIONS] [--out DIR] [--no-gunicorn] [--bin AUTHFLOW] [--es256]
#
# Starts on 127.0.0.1:
#   provider         .build/release/authflow provider serve --port 0 --config (demo client
#                    authflow-demo, automatic sign-in; code lifetime raised to 600 s)
#   provider-es256   with --es256 only: the same, but authflow-demo's ID tokens are signed
#                    with ES256 instead of RS256 (id_token_signed_response_alg), to show
#                    what the RSA signature costs
#   dot-runserver    \ Tests/Interop/servers.py start: the interop servers exactly as the
#   authlib-werkzeug / test suites run them (Django runserver threading; Flask/Werkzeug threaded)
#   dot-gunicorn     \ the same two applications under gunicorn: 1 worker process,
#   authlib-gunicorn / gthread, 16 threads (Authlib keeps its store in process memory,
#                      so it cannot use more processes; DOT gets the same for parity)
#   authlib-es256-gunicorn  with --es256 (and gunicorn) only: authlib-gunicorn again, on its
#                    own port, with AUTHLIB_ID_TOKEN_ALG=ES256: the Authlib app signs its ID
#                    tokens with ES256 and a fresh P-256 key, the same work as provider-es256
# then runs bench.py against each in turn, stops everything (trap) and prints the table.
# Needs: the release binary (built when missing), wrk (apt-get when missing),
# .venv (repository root) with Tests/Interop/requirements.txt, gunicorn (pip-installed into it when missing).
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
PY="$ROOT/.venv/bin/python"
N=2000 C=16 OUT="" GUNICORN=1 BIN="$ROOT/.build/release/authflow" ES256=0
while [ $# -gt 0 ]; do
  case "$1" in
    -n) N="$2"; shift 2 ;;
    -c) C="$2"; shift 2 ;;
    --out) OUT="$2"; shift 2 ;;
    --no-gunicorn) GUNICORN=0; shift ;;
    --bin) BIN="$2"; shift 2 ;;  # another authflow binary, e.g. a copy of an earlier build to compare
    --es256) ES256=1; shift ;;
    *) echo "usage: $0 [-n N] [-c C] [--out DIR] [--no-gunicorn] [--bin AUTHFLOW] [--es256]" >&2; exit 2 ;;
  esac
done

[ -x "$PY" ] || { echo "run.sh: no $PY (create the interop venv first: scripts/test does)" >&2; exit 1; }
if ! command -v wrk >/dev/null; then
  apt-get install -y wrk >/dev/null 2>&1 || { apt-get update >/dev/null && apt-get install -y wrk >/dev/null; }
fi
if [ "$GUNICORN" = 1 ] && [ ! -x "$ROOT/.venv/bin/gunicorn" ]; then
  "$ROOT/.venv/bin/pip" install -q gunicorn
fi
if [ ! -x "$BIN" ] && [ "$BIN" = "$ROOT/.build/release/authflow" ]; then
  (cd "$ROOT" && swift build -c release --traits CLI --product authflow)
fi

WORK="$(mktemp -d /tmp/tokbench.XXXXXX)"
OUT="${OUT:-$WORK/results}"
mkdir -p "$OUT"
PIDS=() ES256_PID="" AUTHLIB_ES256_PID=""
cleanup() {
  set +e
  "$PY" "$ROOT/Tests/Interop/servers.py" stop --config "$WORK/interop/config.json" >/dev/null 2>&1
  for pid in "${PIDS[@]}" $ES256_PID $AUTHLIB_ES256_PID; do kill -TERM "$pid" 2>/dev/null; done
  for pid in "${PIDS[@]}" $ES256_PID $AUTHLIB_ES256_PID; do wait "$pid" 2>/dev/null; done
  rm -rf "$WORK/dot-gunicorn"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

free_port() { "$PY" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
wait_http() { # URL: wait up to 60 s for a 200
  for _ in $(seq 600); do curl -fs -o /dev/null "$1" && return 0; sleep 0.1; done
  echo "run.sh: $1 did not answer" >&2; return 1
}

# 1. The embedded provider (release build).
cat >"$WORK/provider.json" <<'EOF'
{ "sign_in": "automatic", "lifetimes": { "authorization_code": 600 } }
EOF
"$BIN" provider serve --port 0 --config "$WORK/provider.json" >"$WORK/provider.log" 2>&1 &
PIDS+=($!)
for _ in $(seq 300); do grep -q '^ready' "$WORK/provider.log" && break; sleep 0.1; done
PROVIDER="$(sed -n 's/^issuer: //p' "$WORK/provider.log")"
[ -n "$PROVIDER" ] || { cat "$WORK/provider.log" >&2; exit 1; }
if [ "$ES256" = 1 ]; then  # the demo client as ProviderConfiguration.demo has it, but ES256 ID tokens
  cat >"$WORK/provider-es256.json" <<'EOF'
{ "sign_in": "automatic", "lifetimes": { "authorization_code": 600 },
  "clients": [{ "client_id": "authflow-demo", "redirect_uris": ["http://127.0.0.1/callback", "http://[::1]/callback"],
                "grant_types": ["authorization_code", "refresh_token", "urn:ietf:params:oauth:grant-type:device_code"],
                "id_token_signed_response_alg": "ES256" }] }
EOF
  "$BIN" provider serve --port 0 --config "$WORK/provider-es256.json" >"$WORK/provider-es256.log" 2>&1 &
  ES256_PID=$!
  for _ in $(seq 300); do grep -q '^ready' "$WORK/provider-es256.log" && break; sleep 0.1; done
  PROVIDER_ES256="$(sed -n 's/^issuer: //p' "$WORK/provider-es256.log")"
  [ -n "$PROVIDER_ES256" ] || { cat "$WORK/provider-es256.log" >&2; exit 1; }
fi

# 2. DOT and Authlib as the interop suites run them.
"$PY" "$ROOT/Tests/Interop/servers.py" start --config "$WORK/interop/config.json" >&2

# 3. The same applications under gunicorn.
GUNICORN_ARGS=(--workers 1 --worker-class gthread --threads 16 --no-control-socket --log-level warning)
if [ "$GUNICORN" = 1 ]; then
  DOT_PORT="$(free_port)"
  mkdir -p "$WORK/dot-gunicorn"
  TOKBENCH_PORT="$DOT_PORT" TOKBENCH_DATA_DIR="$WORK/dot-gunicorn" \
    "$ROOT/.venv/bin/gunicorn" --preload "${GUNICORN_ARGS[@]}" --chdir "$HERE" \
    --bind "127.0.0.1:$DOT_PORT" wsgi_dot:application >"$WORK/dot-gunicorn.log" 2>&1 &
  PIDS+=($!)
  AUTHLIB_PORT="$(free_port)"
  TOKBENCH_PORT="$AUTHLIB_PORT" \
    "$ROOT/.venv/bin/gunicorn" "${GUNICORN_ARGS[@]}" --chdir "$HERE" \
    --bind "127.0.0.1:$AUTHLIB_PORT" wsgi_authlib:application >"$WORK/authlib-gunicorn.log" 2>&1 &
  PIDS+=($!)
  if [ "$ES256" = 1 ]; then  # the same Authlib app, ES256 ID tokens (opt-in read by authlib_server/app.py)
    AUTHLIB_ES256_PORT="$(free_port)"
    TOKBENCH_PORT="$AUTHLIB_ES256_PORT" AUTHLIB_ID_TOKEN_ALG=ES256 \
      "$ROOT/.venv/bin/gunicorn" "${GUNICORN_ARGS[@]}" --chdir "$HERE" \
      --bind "127.0.0.1:$AUTHLIB_ES256_PORT" wsgi_authlib:application >"$WORK/authlib-es256-gunicorn.log" 2>&1 &
    AUTHLIB_ES256_PID=$!
  fi
  wait_http "http://127.0.0.1:$DOT_PORT/o/.well-known/openid-configuration"
  wait_http "http://127.0.0.1:$AUTHLIB_PORT/.well-known/openid-configuration"
  if [ -n "$AUTHLIB_ES256_PID" ]; then
    wait_http "http://127.0.0.1:$AUTHLIB_ES256_PORT/.well-known/openid-configuration"
    curl -fs "http://127.0.0.1:$AUTHLIB_ES256_PORT/jwks" | grep -q '"alg":"ES256"' \
      || { echo "run.sh: authlib-es256-gunicorn does not publish an ES256 key" >&2; exit 1; }
  fi
fi

# 4. The targets, then the measurements.
PROVIDER="$PROVIDER" PROVIDER_ES256="${PROVIDER_ES256:-}" ES256_PID="$ES256_PID" DOT_PORT="${DOT_PORT:-}" AUTHLIB_PORT="${AUTHLIB_PORT:-}" WORK="$WORK" \
AUTHLIB_ES256_PORT="${AUTHLIB_ES256_PORT:-}" AUTHLIB_ES256_PID="$AUTHLIB_ES256_PID" \
GUNICORN="$GUNICORN" GUNICORN_DESC="gunicorn ${GUNICORN_ARGS[*]:0:6}" PIDS="${PIDS[*]}" "$PY" - <<'EOF'
import json, os
work = os.environ["WORK"]
cfg = json.load(open(os.path.join(work, "interop", "config.json")))["servers"]
interop_pids = json.load(open(os.path.join(work, "interop", "servers.pids.json")))["servers"]
pids = [int(p) for p in os.environ["PIDS"].split()]  # provider, then gunicorn DOT and Authlib masters
provider = os.environ["PROVIDER"].rstrip("/")
targets = [{
    "name": "provider", "kind": "provider", "base": provider,
    "authorize": f"{provider}/authorize", "token": f"{provider}/token", "client_id": "authflow-demo", "pid": pids[0],
    "id_token_alg": "RS256",
    "setup": "authflow provider serve, release build, demo client authflow-demo (public), automatic sign-in",
}]
if os.environ["PROVIDER_ES256"]:
    p = os.environ["PROVIDER_ES256"].rstrip("/")
    targets.append({
        "name": "provider-es256", "kind": "provider", "base": p,
        "authorize": f"{p}/authorize", "token": f"{p}/token", "client_id": "authflow-demo", "pid": int(os.environ["ES256_PID"]),
        "id_token_alg": "ES256",
        "setup": "the same, but authflow-demo's ID tokens are signed with ES256 (id_token_signed_response_alg), not RS256",
    })
def interop(name, kind, base, issuer, authorize, token, setup, pid, alg="RS256"):
    s = cfg[kind]
    return {"name": name, "kind": kind, "base": base, "authorize": authorize, "token": token, "pid": pid,
            "client_id": s["public_client_id"], "username": s["username"], "password": s["password"],
            "setup": setup, "id_token_alg": alg}
dot, authlib = cfg["dot"], cfg["authlib"]
dot_base = dot["issuer"].rsplit("/o", 1)[0]
targets.append(interop("dot-runserver", "dot", dot_base, dot["issuer"], dot["authorization_endpoint"],
                       dot["token_endpoint"],
                       "Tests/Interop/servers.py: Django runserver (threading=True), DEBUG=False, sqlite, "
                       "request log to a file", interop_pids["dot"]["pid"]))
targets.append(interop("authlib-werkzeug", "authlib", authlib["issuer"], authlib["issuer"],
                       authlib["authorization_endpoint"], authlib["token_endpoint"],
                       "Tests/Interop/servers.py: Flask app.run(threaded=True), debug=False, in-memory store",
                       interop_pids["authlib"]["pid"]))
if os.environ["GUNICORN"] == "1":
    g = os.environ["GUNICORN_DESC"]
    b = f"http://127.0.0.1:{os.environ['DOT_PORT']}"
    targets.append(interop("dot-gunicorn", "dot", b, f"{b}/o", f"{b}/o/authorize/", f"{b}/o/token/",
                           f"{g} --preload, DEBUG=False, sqlite with IMMEDIATE transactions and WAL "
                           "(otherwise the interop server's settings)", pids[1]))
    b = f"http://127.0.0.1:{os.environ['AUTHLIB_PORT']}"
    targets.append(interop("authlib-gunicorn", "authlib", b, b, f"{b}/authorize", f"{b}/token",
                           f"{g}, debug=False, in-memory store", pids[2]))
    if os.environ["AUTHLIB_ES256_PID"]:
        b = f"http://127.0.0.1:{os.environ['AUTHLIB_ES256_PORT']}"
        targets.append(interop("authlib-es256-gunicorn", "authlib", b, b, f"{b}/authorize", f"{b}/token",
                               f"{g}, debug=False, in-memory store; AUTHLIB_ID_TOKEN_ALG=ES256: ID tokens "
                               "signed with ES256 (fresh P-256 key) instead of RS256",
                               int(os.environ["AUTHLIB_ES256_PID"]), alg="ES256"))
json.dump(targets, open(os.path.join(work, "targets.json"), "w"), indent=2)
EOF

echo "run.sh: N=$N C=$C; load average now: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
STATUS=0
"$PY" "$HERE/bench.py" --targets "$WORK/targets.json" --out "$OUT" -n "$N" -c "$C" || STATUS=$?
echo "run.sh: details in $OUT (results.json, table.md, per-run wrk output)" >&2
exit "$STATUS"
