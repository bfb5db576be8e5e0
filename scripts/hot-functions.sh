#!/usr/bin/env bash
# make hot-functions: writes scripts/hot-functions.order, the functions `airloc log run`
# runs, which scripts/build-release.sh lays out together (docs/performance.md, "The
# logger's resident code"). Run it again when the logger's code paths change much: a
# function missing from the order still works, it only costs the pages around it.
#   1. callgrind: `log run` for 40 s on the bench's 1 Hz feed (scripts/fixtures.sh),
#      without and with a local mosquitto: every function called, in first-seen order.
#   2. page faults (perf): the build ordered so far runs the same twice more; functions
#      whose code still faulted in outside the ordered ones are added (what callgrind
#      names under another alias, or a path its slower run did not reach).
set -euo pipefail
cd "$(dirname "$0")/.."
for tool in valgrind perf mosquitto gpsfake; do
    command -v "$tool" >/dev/null || { echo "Error: $tool is needed (make hot-functions installs it)" >&2; exit 69; }
done
source scripts/fixtures.sh
order=scripts/hot-functions.order
seconds=${SECONDS_EACH:-40}

MQTT_PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
printf 'listener %s 127.0.0.1\nallow_anonymous true\n' "$MQTT_PORT" >"$WORK/mosquitto.conf"
mosquitto -c "$WORK/mosquitto.conf" >/dev/null 2>&1 &
MOSQUITTO_PID=$!
trap 'kill -9 "$MOSQUITTO_PID" 2>/dev/null || true; fixtures_cleanup' EXIT

build() { # order file, copy to
    HOT_FUNCTIONS=$1 scripts/build-release.sh airloc >"$WORK/build.log" 2>&1 || { cat "$WORK/build.log" >&2; exit 70; }
    cp .build/release/airloc "$2"
}
run() { # label, broker (yes/no), command...: log run for $seconds, stopped as a service is
    local label=$1 broker=$2; shift 2
    rm -rf "$XDG_CACHE_HOME/airloc" "$WORK/log.sqlite"*
    if [ "$broker" = yes ]; then export AIRLOC_MQTT_URL="mqtt://127.0.0.1:$MQTT_PORT"; else unset AIRLOC_MQTT_URL; fi
    AIRLOC_LOG_DATABASE="$WORK/log.sqlite" "$@" >"$WORK/$label.out" 2>&1 &
    local pid=$!
    sleep "$seconds"
    # SIGTERM to airloc itself: valgrind's process is airloc's, perf's child is airloc;
    # perf record ends with its child, and valgrind writes its file at the exit.
    kill -TERM "$(pgrep -P "$pid" || echo "$pid")"; wait "$pid" 2>/dev/null || true
}

: >"$WORK/none.order"
build "$WORK/none.order" "$WORK/airloc"
"$WORK/airloc" auth grant --always >/dev/null
strip -g -o "$WORK/airloc-stripped" "$WORK/airloc"  # valgrind cannot read lld's DWARF 5
for broker in no yes; do
    run "callgrind-$broker" $broker valgrind --tool=callgrind --demangle=no \
        --callgrind-out-file="$WORK/callgrind-$broker.out" "$WORK/airloc-stripped" log run
done
scripts/hot-functions.py callgrind "$WORK/airloc" "$WORK"/callgrind-*.out >"$WORK/hot.order"
echo "callgrind: $(wc -l <"$WORK/hot.order") functions"
for round in 1 2; do
    build "$WORK/hot.order" "$WORK/airloc-ordered"
    for broker in no yes; do
        run "faults-$round-$broker" $broker perf record -q -e page-faults -c 1 -d -o "$WORK/faults-$broker.data" \
            "$WORK/airloc-ordered" log run
        scripts/hot-functions.py faults "$WORK/airloc-ordered" "$WORK/faults-$broker.data" "$WORK/hot.order" \
            >>"$WORK/hot.order"
    done
    echo "round $round: $(wc -l <"$WORK/hot.order") functions"
done
cp "$WORK/hot.order" "$order"
echo "$order: $(wc -l <"$order") functions"
