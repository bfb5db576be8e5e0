#!/usr/bin/env bash
# `make bench`'s figures for `airloc serve` (docs/performance.md): beside a live logger (the
# gpsfake feed and air double of scripts/fixtures.sh, an SDS011 double read every 10 s),
#   - its idle CPU over IDLE_SECONDS (no client: what the service costs a Pi all day);
#   - /metrics and /api/now under 50 concurrent clients for LOAD_SECONDS each: p50 and p99
#     latency and requests/s, measured by wrk (Debian's, installed here for the bench only);
#   - its peak RSS (VmHWM) after all of that.
#   scripts/bench-serve.sh .build/release/airloc
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:?usage: $0 AIRLOC}
idle_seconds=${IDLE_SECONDS:-60}
load_seconds=${LOAD_SECONDS:-15}
scripts/install-deps.sh wrk >/dev/null
source scripts/fixtures.sh

"$bin" auth grant --always >/dev/null
export AIRLOC_LOG_DATABASE="$WORK/serve-log.sqlite"
python3 scripts/sensor-double.py sds011 --link "$WORK/airloc-pm" >"$WORK/sensor.out" 2>&1 &
SENSOR_PID=$!
disown "$SENSOR_PID"
for _ in $(seq 100); do grep -q DEVICE "$WORK/sensor.out" 2>/dev/null && break; sleep 0.1; done
SERVE_PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
mkdir -p "$XDG_CONFIG_HOME/airloc"
printf '[sensor]\nmodel = sds011\nwarm-up-seconds = 0\nsample-seconds = 5\ninterval = 10\n[serve]\nlisten = 127.0.0.1:%s\n' \
    "$SERVE_PORT" >"$XDG_CONFIG_HOME/airloc/airloc.conf"
AIRLOC_SENSOR_DEVICE="$WORK/airloc-pm" "$bin" log run >/dev/null 2>"$WORK/logger.err" &
LOGGER_PID=$!
"$bin" serve >/dev/null 2>"$WORK/serve.err" &
SERVE_PID=$!
trap 'kill "$SERVE_PID" "$LOGGER_PID" "$SENSOR_PID" 2>/dev/null || true; wait "$LOGGER_PID" 2>/dev/null || true; fixtures_cleanup' EXIT
# Ready when the logger has a measured reading and serve answers with it.
for _ in $(seq 600); do
    curl -sf "http://127.0.0.1:$SERVE_PORT/metrics" 2>/dev/null | grep -q 'airloc_pm2_5{source="measured"}' && break
    sleep 0.1
done
curl -sf "http://127.0.0.1:$SERVE_PORT/metrics" | grep -q 'airloc_pm2_5{source="measured"}' \
    || { echo "Error: serve did not show the logger's reading" >&2; cat "$WORK/serve.err" "$WORK/logger.err" >&2; exit 70; }

ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }
hz=$(getconf CLK_TCK)
serve_before=$(ticks "$SERVE_PID")
logger_before=$(ticks "$LOGGER_PID")
sleep "$idle_seconds"
awk -v used=$(($(ticks "$SERVE_PID") - serve_before)) -v logger=$(($(ticks "$LOGGER_PID") - logger_before)) \
    -v hz="$hz" -v s="$idle_seconds" 'BEGIN {
        printf "airloc serve, idle beside a logger: %.2f%% of one core over %d s (%d ticks at %d Hz; the logger %.2f%%)\n",
            100 * used / hz / s, s, used, hz, 100 * logger / hz / s }'

# wrk's latency distribution: p50 and p99 in ms, and requests/s.
load() { # path, [header]
    local path=$1; shift
    wrk -t 2 -c 50 -d "${load_seconds}s" --latency "$@" "http://127.0.0.1:$SERVE_PORT$path" >"$WORK/wrk.out" 2>&1
    awk -v path="$path" -v s="$load_seconds" '
        function ms(v) { if (v ~ /us$/) return v / 1000; if (v ~ /ms$/) return v + 0; if (v ~ /s$/) return v * 1000; return v }
        $1 == "50%" { p50 = ms($2) } $1 == "99%" { p99 = ms($2) }
        /^Requests\/sec/ { rate = $2 } /requests in/ { count = $1 } /Non-2xx/ { bad = $NF }
        END { printf "GET %s, 50 clients for %d s: p50 %.2f ms, p99 %.2f ms, %.0f requests/s (%d requests, %d not 2xx)\n",
              path, s, p50, p99, rate, count, bad + 0 }' "$WORK/wrk.out"
}
echo "== wrk -t 2 -c 50 -d ${load_seconds}s --latency (on the same 2 cores as serve and the logger)"
load /metrics
load /metrics -H 'Accept: application/openmetrics-text;version=1.0.0'
load /api/now
load /data.json
awk '/VmHWM/ { printf "airloc serve: peak RSS %.1f MB (after the loads above)\n", $2 / 1024 }' "/proc/$SERVE_PID/status"
kill -0 "$LOGGER_PID" 2>/dev/null && echo "the logger was running throughout" || echo "Error: the logger stopped" >&2
