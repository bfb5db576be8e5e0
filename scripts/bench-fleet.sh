#!/usr/bin/env bash
# `make bench`'s figures for the fleet page (docs/fleet.md, docs/performance.md): `airloc
# serve` with [serve] source = collector over a PostgreSQL holding 1,000 devices and one
# device's day of one-second fixes (86,400 points, scripts/fleet-fill.sql):
#   - GET /api/last and a day's GET /api/track under 10 concurrent clients for LOAD_SECONDS
#     each: p50 and p99 latency and requests/s, by wrk (Debian's, installed for the bench);
#   - each answer made afresh: the same requests one at a time, each after the device's
#     rows changed (its `devices` row updated, as a stored batch does) or in a new second,
#     so that nothing kept is reused: p50 and p99 of 20;
#   - serve's peak RSS after all of that.
#   scripts/bench-fleet.sh .build/release/airloc CONNINFO
# CONNINFO is a database of the bench's own at collector schema 5 or later (bench.sh's,
# after its collector ran): its collector rows are emptied first.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:?usage: $0 AIRLOC CONNINFO}
conninfo=${2:?usage: $0 AIRLOC CONNINFO}
load_seconds=${LOAD_SECONDS:-15}
scripts/install-deps.sh wrk >/dev/null
work=$(mktemp -d /tmp/airloc-bench-fleet.XXXXXX)
now=$(date -u +%Y-%m-%dT%H:%M:%SZ)
psql -X -q -v ON_ERROR_STOP=1 "$conninfo" -c "TRUNCATE track, air, sensor, acknowledged, shares, devices"
psql -X -q -v ON_ERROR_STOP=1 -v devices=1000 -v points=86400 -v now="'$now'" "$conninfo" -f scripts/fleet-fill.sql
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
mkdir -p "$work/config/airloc"
printf '[serve]\nsource = collector\nlisten = 127.0.0.1:%s\n' "$port" >"$work/config/airloc/airloc.conf"
HOME=$work XDG_CONFIG_HOME=$work/config XDG_STATE_HOME=$work/state XDG_CACHE_HOME=$work/cache \
    AIRLOC_SYSTEM_CONFIG=$work/none.conf AIRLOC_COLLECT_DATABASE="$conninfo" "$bin" serve >/dev/null 2>"$work/serve.err" &
pid=$!
trap 'kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; rm -rf "$work"' EXIT
for _ in $(seq 300); do curl -sf "http://127.0.0.1:$port/api/last" >/dev/null 2>&1 && break; sleep 0.1; done
curl -sf "http://127.0.0.1:$port/api/last" >/dev/null || { cat "$work/serve.err" >&2; exit 70; }

since=$(date -u -d "$now - 1 day" +%Y-%m-%dT%H:%M:%SZ)
until=$(date -u -d "$now + 1 second" +%Y-%m-%dT%H:%M:%SZ)
track="/api/track?device=fleet-0000&since=$since&until=$until"
devices=$(curl -sf "http://127.0.0.1:$port/api/last" | python3 -c 'import json,sys; print(len(json.load(sys.stdin)))')
points=$(curl -sf "http://127.0.0.1:$port$track" \
    | python3 -c 'import json,sys; print(sum(f["properties"].get("points", 1) for f in json.load(sys.stdin)["features"] if f["properties"].get("kind") == "track"))')
bytes=$(curl -sf "http://127.0.0.1:$port$track" | wc -c)
echo "fleet: $devices devices in /api/last; the day's /api/track of fleet-0000: $points points, $bytes bytes"

fresh() { # what, path, before-each command
    local what=$1 path=$2 before=$3
    for _ in $(seq 20); do
        eval "$before"
        curl -sf -o /dev/null -w '%{time_total}\n' "http://127.0.0.1:$port$path"
    done | sort -n | awk -v what="$what" '{ t[NR] = $1 * 1000 } END {
        printf "GET %s made afresh, one at a time: p50 %.1f ms, p99 %.1f ms (of %d)\n", what, t[int(NR / 2)], t[NR], NR }'
}
fresh /api/last /api/last "sleep 1"
fresh "/api/track (a day)" "$track" \
    "psql -X -q \"\$conninfo\" -c \"UPDATE devices SET last_seen = last_seen WHERE device_id = 'fleet-0000'\""

load() { # what, path
    wrk -t 2 -c 10 -d "${load_seconds}s" --latency "http://127.0.0.1:$port$2" >"$work/wrk.out" 2>&1
    awk -v what="$1" -v s="$load_seconds" '
        function ms(v) { if (v ~ /us$/) return v / 1000; if (v ~ /ms$/) return v + 0; if (v ~ /s$/) return v * 1000; return v }
        $1 == "50%" { p50 = ms($2) } $1 == "99%" { p99 = ms($2) }
        /^Requests\/sec/ { rate = $2 } /requests in/ { count = $1 } /Non-2xx/ { bad = $NF }
        END { printf "GET %s, 10 clients for %d s: p50 %.2f ms, p99 %.2f ms, %.0f requests/s (%d requests, %d not 2xx)\n",
              what, s, p50, p99, rate, count, bad + 0 }' "$work/wrk.out"
}
echo "== wrk -t 2 -c 10 -d ${load_seconds}s --latency (serve, PostgreSQL and wrk on the same 2 cores)"
load /api/last /api/last
load "/api/track (a day)" "$track"
# The live case: the device stores a batch every second, so the day is made again each second.
(while :; do
    psql -X -q "$conninfo" -c "UPDATE devices SET last_seen = last_seen WHERE device_id = 'fleet-0000'" || exit
    sleep 1
done) &
writer=$!
load "/api/track (a day, its device storing a batch every second)" "$track"
kill "$writer" 2>/dev/null || true
awk '/VmHWM/ { printf "airloc serve (fleet): peak RSS %.1f MB\n", $2 / 1024 }' "/proc/$pid/status"
