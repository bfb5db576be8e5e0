#!/usr/bin/env bash
# `make bench`'s logger figures (docs/performance.md): `airloc log run` on the 1 Hz gpsfake
# feed of scripts/fixtures.sh, 60 s each, CPU (utime+stime from /proc) and peak RSS
# (VmHWM): without a broker, beside gpsd's gpxlogger on the same feed, and publishing to a
# local mosquitto. With a second binary (BASELINE), each figure is taken for both, in turn.
#   scripts/bench-logger.sh .build/release/airloc [BASELINE]
set -euo pipefail
cd "$(dirname "$0")/.."
bins=("$@")
[ ${#bins[@]} -ge 1 ] || { echo "usage: $0 AIRLOC [BASELINE]" >&2; exit 64; }
seconds=${SECONDS_EACH:-60}
source scripts/fixtures.sh

measure() { # label, command... (runs in the background for $seconds)
    local label=$1; shift
    # An empty cache: the first reading goes to the network, so libcurl is loaded too.
    rm -rf "$XDG_CACHE_HOME/airloc"
    "$@" >/dev/null 2>&1 &
    local pid=$!
    sleep 3
    local before after rss
    before=$(awk '{ print $14 + $15 }' "/proc/$pid/stat")
    sleep "$seconds"
    after=$(awk '{ print $14 + $15 }' "/proc/$pid/stat")
    rss=$(awk '/VmHWM/ { print $2 / 1024 }' "/proc/$pid/status")
    kill -TERM "$pid"; wait "$pid" 2>/dev/null || true
    awk -v used=$((after - before)) -v hz="$(getconf CLK_TCK)" -v label="$label" -v rss="$rss" -v s="$seconds" \
        'BEGIN { printf "%s: %.2f%% of one core over %d s, peak RSS %.1f MB\n", label, 100 * used / hz / s, s, rss }'
}

MQTT_PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
printf 'listener %s 127.0.0.1\nallow_anonymous true\n' "$MQTT_PORT" >"$WORK/mosquitto.conf"
mosquitto -c "$WORK/mosquitto.conf" >/dev/null 2>&1 &
MOSQUITTO_PID=$!
trap 'kill -9 "$MOSQUITTO_PID" 2>/dev/null || true; fixtures_cleanup' EXIT
for _ in $(seq 100); do (exec 3<>"/dev/tcp/127.0.0.1/$MQTT_PORT") 2>/dev/null && break; sleep 0.1; done

for bin in "${bins[@]}"; do
    "$bin" auth grant --always >/dev/null
    export AIRLOC_LOG_DATABASE="$WORK/bench-log-$(basename "$bin").sqlite"
    measure "$bin log run (no broker, no sensor)" "$bin" log run
    gpxlogger -f "$WORK/bench.gpx" "127.0.0.1:$GPSD_PORT" >/dev/null 2>&1 &
    GPX_PID=$!
    measure "$bin log run beside gpxlogger (same feed)" "$bin" log run
    kill "$GPX_PID" 2>/dev/null || true
    AIRLOC_MQTT_URL="mqtt://127.0.0.1:$MQTT_PORT" measure "$bin log run publishing to mosquitto" "$bin" log run
done
