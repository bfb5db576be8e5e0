#!/usr/bin/env bash
# `make bench`: the figures in docs/performance.md, each printed with the command that
# measures it. In-process lookup rates come from the release-built airloc-bench; whole-
# process timings run the release airloc binary N times and print min / median / max.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${RUNS:-20}
swift build -c release --product airloc --product airloc-bench >/dev/null
bin=.build/release/airloc

echo "== machine: $(nproc) cores, $(uname -m), $(date -u +%Y-%m-%d)"
echo "== in-process: .build/release/airloc-bench data/gazetteer.bin"
taskset -c 0 .build/release/airloc-bench data/gazetteer.bin

timeit() { # label, command...
    local label=$1; shift
    local times=()
    "$@" >/dev/null 2>&1 || true  # warm-up
    for _ in $(seq "$runs"); do
        local start end
        start=$(date +%s%N)
        "$@" >/dev/null 2>&1 || true
        end=$(date +%s%N)
        times+=($(( (end - start) / 1000 )))
    done
    printf '%s\n' "${times[@]}" | sort -n | awk -v label="$label" -v n="$runs" '
        { t[NR] = $1 } END { printf "%s: min %.1f ms, median %.1f ms, max %.1f ms (%d runs)\n",
          label, t[1] / 1000, t[int((n + 1) / 2)] / 1000, t[n] / 1000, n }'
}

echo "== whole process, $runs runs each"
timeit "airloc reverse 52.52 13.40" "$bin" reverse 52.52 13.40

work=$(mktemp -d)
cleanup() {
    [ -n "${gpid:-}" ] && kill -9 -- -"$gpid" 2>/dev/null || true
    [ -n "${dpid:-}" ] && kill -9 "$dpid" 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT
python3 scripts/http-double.py >"$work/double.out" 2>/dev/null &
dpid=$!
disown "$dpid"
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
setsid gpsfake -q -n -c 0.1 -P "$port" data/demo/berlin.nmea >/dev/null 2>&1 &
gpid=$!
disown "$gpid"
for _ in $(seq 50); do grep -q PORT "$work/double.out" 2>/dev/null && break; sleep 0.1; done
sleep 1.5
export XDG_STATE_HOME="$work/state" XDG_CONFIG_HOME="$work/config" AIRLOC_SYSTEM_CONFIG="$work/none"
export AIRLOC_GPSD="127.0.0.1:$port" AIRLOC_AIR_QUALITY_URL="http://127.0.0.1:$(awk '/PORT/{print $2}' "$work/double.out")"
"$bin" auth grant >/dev/null
timeit "airloc now --json (gpsd holding a fix, local double)" "$bin" now --json
timeit "airloc now --lat 52.52 --lon 13.40 --json (manual, local double)" "$bin" now --lat 52.52 --lon 13.40 --json
