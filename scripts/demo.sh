#!/usr/bin/env bash
# `make demo`: the whole path once, with nothing from the internet. A recorded GPS track
# (data/demo/berlin.nmea) is replayed through a real gpsd by gpsfake; the air data comes
# from the local HTTP double (scripts/http-double.py) serving a response recorded from
# Open-Meteo. All airloc state lives in a temporary directory, removed afterwards.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-.build/debug/airloc}
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
for _ in $(seq 100); do grep -q PORT "$work/double.out" 2>/dev/null && break; sleep 0.1; done
double=$(awk '/PORT/{print $2}' "$work/double.out")
[ -n "$double" ] || { echo "Error: the local HTTP double did not start" >&2; exit 69; }
for _ in $(seq 100); do (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break; sleep 0.1; done
sleep 1

export XDG_STATE_HOME="$work/state" XDG_CONFIG_HOME="$work/config" XDG_CACHE_HOME="$work/cache"
export AIRLOC_SYSTEM_CONFIG="$work/no-system-config"
export AIRLOC_GPSD="127.0.0.1:$port" AIRLOC_AIR_QUALITY_URL="http://127.0.0.1:$double"

cat <<TXT
airloc demo — GPS: data/demo/berlin.nmea replayed through a real gpsd (gpsfake, port $port)
             air:  a local test double at 127.0.0.1:$double serving a recorded Open-Meteo answer

\$ airloc auth grant        # sensing the location needs your permission, once
TXT
"$bin" auth grant
echo
echo "\$ airloc now"
"$bin" now
echo
echo "\$ airloc now --json | head -12"
"$bin" now --json | head -12
