#!/usr/bin/env bash
# Memory under attack: peak resident memory (VmHWM, via /usr/bin/time) and wall
# time of `authflow discover` and `authflow login` against a provider that
# sends an endless body, a 4 GiB Content-Length or a body that drips, with
# --timeout 5. Prints one line per case; see docs/performance.md.
#
#   Benchmarks/HostileServer/run.sh [path/to/authflow]
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$HERE/../.."
AUTHFLOW="${1:-$(cd "$ROOT" && swift build -c release --traits CLI --product authflow >/dev/null && swift build -c release --traits CLI --show-bin-path)/authflow}"
TIMEOUT=5
WORK="$(mktemp -d)"
trap 'kill "${SERVER:-0}" 2>/dev/null || true; rm -rf "$WORK"' EXIT

printf '%-10s %-9s %-7s %9s %10s  %s\n' command target fault "wall (s)" "peak RSS" outcome
for command in discover login; do
    for fault in endless huge drip; do
        target=discovery
        [[ "$command" == login ]] && target=token
        python3 "$HERE/hostile_server.py" "$fault" "$target" > "$WORK/port" &
        SERVER=$!
        for _ in $(seq 50); do [[ -s "$WORK/port" ]] && break; sleep 0.1; done
        issuer="http://127.0.0.1:$(cat "$WORK/port")"
        if [[ "$command" == discover ]]; then
            args=(discover "$issuer" --timeout "$TIMEOUT")
        else
            args=(login --issuer "$issuer" --client-id bench --timeout "$TIMEOUT" --browser-timeout 30)
        fi
        set +e
        XDG_CONFIG_HOME="$WORK/config" BROWSER="curl -sL -o /dev/null %s" \
            /usr/bin/time -f "%e %M" -o "$WORK/time" "$AUTHFLOW" "${args[@]}" > "$WORK/out" 2> "$WORK/err"
        set -e
        read -r wall peak < <(tail -1 "$WORK/time")
        outcome="$(grep -E '^error' "$WORK/err" | head -1 | cut -c1-90)"
        printf '%-10s %-9s %-7s %9s %7d MB  %s\n' "$command" "$target" "$fault" "$wall" "$((peak / 1024))" "${outcome:-ok}"
        kill "$SERVER" 2>/dev/null || true
        wait "$SERVER" 2>/dev/null || true
        rm -f "$WORK/port"
    done
done
