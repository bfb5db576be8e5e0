#!/usr/bin/env bash
# `make bench`'s wake-up figure (docs/performance.md): context switches a minute of every
# thread of `airloc log run` on the 1 Hz gpsfake feed of scripts/fixtures.sh (no broker, no
# sensor), beside gpsd's gpxlogger on the same feed, measured the same way: perf counts
# the software event context-switches of the process and every thread it starts, per
# second, and the seconds from 3 to 3 + SECONDS_EACH are summed (start-up left out).
# With a second binary (BASELINE), both are measured, in turn.
#   scripts/bench-wakeups.sh .build/release/airloc [BASELINE]
set -euo pipefail
cd "$(dirname "$0")/.."
bins=("$@")
[ ${#bins[@]} -ge 1 ] || { echo "usage: $0 AIRLOC [BASELINE]" >&2; exit 64; }
seconds=${SECONDS_EACH:-60}
command -v perf >/dev/null || { echo "bench-wakeups: perf is missing (apt-get install linux-perf)" >&2; exit 69; }
source scripts/fixtures.sh

wakeups() { # label, command...
    local label=$1; shift
    local counts="$WORK/perf-$RANDOM.csv"
    perf stat -I 1000 -x, -e context-switches -o "$counts" -- "$@" >/dev/null 2>&1 &
    local perf_pid=$!
    sleep $((seconds + 4))
    # The program, not perf: perf ends with it and writes what it counted.
    pkill -TERM -P "$perf_pid" || true
    wait "$perf_pid" 2>/dev/null || true
    awk -F, -v from=3 -v to=$((3 + seconds)) -v s="$seconds" -v label="$label" '
        /^#/ || NF < 4 { next }
        $1 + 0 > from + 0.5 && $1 + 0 <= to + 0.5 { sum += $2; n++ }
        END { printf "%s: %.0f context switches a minute (%d s counted)\n", label, sum * 60 / s, n }' "$counts"
}

wakeups "gpxlogger -f FILE (same feed)" gpxlogger -f "$WORK/bench.gpx" "127.0.0.1:$GPSD_PORT"
for bin in "${bins[@]}"; do
    "$bin" auth grant --always >/dev/null
    export AIRLOC_LOG_DATABASE="$WORK/wakeups-$(basename "$bin")-$RANDOM.sqlite"
    wakeups "$bin log run (no broker, no sensor)" "$bin" log run
done
