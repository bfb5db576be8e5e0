#!/usr/bin/env bash
# `make bench`'s burst figure for the collector (docs/scaling.md, docs/performance.md):
# ROWS rows (default 100,000) of 200 devices queued at a mosquitto of the bench's own while
# `airloc collect` is stopped, then drained into PostgreSQL: rows/s from its start, its
# CPU per row, rows lost and stored twice.
#   scripts/bench-collect-burst.sh .build/release/airloc CONNINFO [ROWS [KIND [MEMBERS]]]
# KIND: track (default) or sensor (particulate readings: the hourly roll-up is kept too).
# MEMBERS: the rows are published while that many collectors run, one `[collect] share`
# group when more than one (a member keeps no session, so nothing is queued for a group
# whose members are all stopped and the backlog arrives live); rows/s then count from the
# first row published.
# The broker queues that many for the collector's persistent session only when told to
# (mosquitto's default max_queued_messages is 1,000: docs/scaling.md says what to set).
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:?usage: $0 AIRLOC CONNINFO [ROWS]}
conninfo=${2:?usage: $0 AIRLOC CONNINFO [ROWS]}
rows=${3:-100000}
kind=${4:-track}
members=${5:-}
work=$(mktemp -d /tmp/airloc-bench-burst.XXXXXX)
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
printf 'listener %s 127.0.0.1\nallow_anonymous true\npersistence false\nmax_queued_messages 0\nmax_inflight_messages 1000\n' \
    "$port" >"$work/mosquitto.conf"
mosquitto -c "$work/mosquitto.conf" >"$work/mosquitto.log" 2>&1 &
broker=$!
pids=()
trap 'kill "${pids[@]}" "$broker" 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$work"' EXIT
for _ in $(seq 100); do (echo >"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break; sleep 0.1; done
run=$(python3 -c 'import uuid; print(uuid.uuid4().hex[:6])')
# A collector whose state and configuration live under $1, its pid appended to pids.
start() {
    HOME=$1 XDG_STATE_HOME=$1/state XDG_CONFIG_HOME=$1/config AIRLOC_SYSTEM_CONFIG=$work/none.conf \
        AIRLOC_COLLECT_BROKER="mqtt://127.0.0.1:$port" AIRLOC_COLLECT_DATABASE="$conninfo" "$bin" collect \
        >/dev/null 2>"$1/collect.err" &
    pids+=($!)
}
subscribed() {
    for _ in $(seq 300); do grep -q "subscribed to" "$1/collect.err" 2>/dev/null && break; sleep 0.1; done
}
if [ -n "$members" ]; then
    for index in $(seq "$members"); do
        home=$work/member-$index
        mkdir -p "$home/config/airloc"
        if [ "$members" -gt 1 ]; then
            printf '[collect]\nshare = bench\nclient-id = bench-member-%s\n' "$index" >"$home/config/airloc/airloc.conf"
        fi
        start "$home"
    done
    for index in $(seq "$members"); do subscribed "$work/member-$index"; done
    started=$(date +%s.%N)
    .build/release/airloc-bench collect-burst-publish "mqtt://127.0.0.1:$port" "$run" 200 "$rows" "$kind"
    .build/release/airloc-bench collect-burst-drain "$conninfo" "$run" "$rows" "$(IFS=,; echo "${pids[*]}")" \
        "$started" "$kind"
    exit 0
fi
# Its persistent session first, then stopped: what is published now waits at the broker.
start "$work"
subscribed "$work"
kill "${pids[0]}"; wait "${pids[0]}" 2>/dev/null || true
pids=()
: >"$work/collect.err"
.build/release/airloc-bench collect-burst-publish "mqtt://127.0.0.1:$port" "$run" 200 "$rows" "$kind"
started=$(date +%s.%N)
start "$work"
subscribed "$work"
.build/release/airloc-bench collect-burst-drain "$conninfo" "$run" "$rows" "${pids[0]}" "$started" "$kind"
