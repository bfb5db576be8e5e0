# Sourced by demo.sh and bench.sh: starts the local HTTP double and gpsfake replaying a
# Berlin track time-stamped from now (scripts/nmea-track.py --now, played in real time:
# three sentences a second), and points airloc at them through its documented overrides.
# Sets WORK, GPSD_PORT, DOUBLE_PORT; cleans up on exit. All airloc state lives in WORK.
WORK=$(mktemp -d)
fixtures_cleanup() {
    [ -n "${GPSFAKE_PID:-}" ] && kill -9 -- -"$GPSFAKE_PID" 2>/dev/null || true
    [ -n "${DOUBLE_PID:-}" ] && kill -9 "$DOUBLE_PID" 2>/dev/null || true
    rm -rf "$WORK"
}
trap fixtures_cleanup EXIT

python3 scripts/http-double.py >"$WORK/double.out" 2>/dev/null &
DOUBLE_PID=$!
disown "$DOUBLE_PID"
GPSD_PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
# setsid: gpsfake ignores SIGTERM, so it and its gpsd are killed as one process group.
python3 scripts/nmea-track.py fix 52.5200 13.4050 --now --seconds 3600 >"$WORK/berlin.nmea"
setsid gpsfake -q -n -c 0.333 -P "$GPSD_PORT" "$WORK/berlin.nmea" >/dev/null 2>&1 &
GPSFAKE_PID=$!
disown "$GPSFAKE_PID"
for _ in $(seq 100); do grep -q PORT "$WORK/double.out" 2>/dev/null && break; sleep 0.1; done
DOUBLE_PORT=$(awk '/PORT/{print $2}' "$WORK/double.out")
[ -n "$DOUBLE_PORT" ] || { echo "Error: the local HTTP double did not start" >&2; exit 69; }
# gpsd up with gpsfake's pty as its device (registered again if gpsfake's request was lost).
python3 scripts/gpsd-device.py "$GPSFAKE_PID" "$GPSD_PORT" || exit 69
sleep 1  # let the first sentences arrive

export XDG_STATE_HOME="$WORK/state" XDG_CONFIG_HOME="$WORK/config" XDG_CACHE_HOME="$WORK/cache"
export AIRLOC_SYSTEM_CONFIG="$WORK/no-system-config"
export AIRLOC_GPSD="127.0.0.1:$GPSD_PORT" AIRLOC_AIR_QUALITY_URL="http://127.0.0.1:$DOUBLE_PORT" \
    AIRLOC_ARCHIVE_URL="http://127.0.0.1:$DOUBLE_PORT"
