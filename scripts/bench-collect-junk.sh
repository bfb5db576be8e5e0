#!/usr/bin/env bash
# `make bench`'s figure for made-up device ids at the collector (docs/collector.md, "What is
# refused"; docs/performance.md): on a broker without ACLs, IDS ids each publish one status,
# then IDS more each one row; the collector's resident memory before and after each, its CPU,
# and how long an honest row published right after the burst took to be stored.
#   scripts/bench-collect-junk.sh .build/release/airloc CONNINFO [IDS]
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:?usage: $0 AIRLOC CONNINFO [IDS]}
conninfo=${2:?usage: $0 AIRLOC CONNINFO [IDS]}
ids=${3:-100000}
work=$(mktemp -d /tmp/airloc-bench-junk.XXXXXX)
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
printf 'listener %s 127.0.0.1\nallow_anonymous true\npersistence false\nmax_queued_messages 0\n' "$port" \
    >"$work/mosquitto.conf"
mosquitto -c "$work/mosquitto.conf" >"$work/mosquitto.log" 2>&1 &
broker=$!
trap 'kill "${collector:-}" "$broker" 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$work"' EXIT
for _ in $(seq 100); do (echo >"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break; sleep 0.1; done
HOME=$work XDG_STATE_HOME=$work/state XDG_CONFIG_HOME=$work/config AIRLOC_SYSTEM_CONFIG=$work/none.conf \
    AIRLOC_COLLECT_BROKER="mqtt://127.0.0.1:$port" AIRLOC_COLLECT_DATABASE="$conninfo" "$bin" collect \
    >/dev/null 2>"$work/collect.err" &
collector=$!
for _ in $(seq 300); do grep -q "subscribed to" "$work/collect.err" 2>/dev/null && break; sleep 0.1; done
rss() { awk '/VmRSS/ { printf "%.1f MB", $2 / 1024 }' "/proc/$collector/status"; }
cpu() { awk '{ print $14 + $15 }' "/proc/$collector/stat"; }
# Waits until the collector's buffer is empty and its database quiet (its status file says so).
settled() {
    for _ in $(seq 600); do
        python3 - "$work/state/airloc/collect-status.json" <<'PY' && return 0
import json, sys
state = json.load(open(sys.argv[1]))
sys.exit(0 if state["buffered"] == 0 and state["database"] == "connected" else 1)
PY
        sleep 0.5
    done
}
honest() { # publish one honest row now; print how long until PostgreSQL holds it
    local id=$1 start
    start=$(date +%s.%N)
    mosquitto_pub -p "$port" -q 1 -t airloc/honest/history -m \
        "{\"schema\":\"airloc.log/1\",\"id\":\"t$id\",\"kind\":\"track\",\"time\":\"$(date -u +%FT%TZ)\"}"
    for _ in $(seq 1200); do
        [ "$(psql "$conninfo" -Atc "SELECT count(*) FROM track WHERE device_id = 'honest' AND id = 't$id'")" = 1 ] && break
        sleep 0.05
    done
    python3 -c "import sys, time; print(f'{time.time() - float(sys.argv[1]):.2f} s')" "$start"
}
echo "before: $(rss)"
for mode in ids rows; do
    before=$(cpu); start=$(date +%s.%N)
    python3 Tests/Clients/mqtt_battery.py "$port" "$mode" "$ids" junk >/dev/null
    delay=$(honest "$([ "$mode" = ids ] && echo 1 || echo 2)")
    settled
    seconds=$(python3 -c "import sys, time; print(f'{time.time() - float(sys.argv[1]):.1f}')" "$start")
    ticks=$(( $(cpu) - before ))
    echo "$ids made-up ids, one $([ "$mode" = ids ] && echo status || echo row) each: resident $(rss)," \
        "all handled in $seconds s, CPU $(python3 -c "print(f'{$ticks / $(getconf CLK_TCK):.1f}')") s;" \
        "an honest row published right after them stored in $delay"
done
