#!/usr/bin/env bash
# `make demo`: the whole path once, with nothing from the internet. A synthetic Berlin
# GPS track (scripts/nmea-track.py) is replayed through a real gpsd by gpsfake; the air data comes
# from the local HTTP double (scripts/http-double.py) serving a response recorded from
# Open-Meteo. All airloc state lives in a temporary directory, removed afterwards.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-.build/debug/airloc}
source scripts/fixtures.sh

cat <<TXT
airloc demo — GPS: a Berlin NMEA track replayed through a real gpsd (gpsfake, port $GPSD_PORT)
             air:  a local test double at 127.0.0.1:$DOUBLE_PORT serving a recorded Open-Meteo answer

\$ airloc auth grant --always   # sensing the location needs your permission, once
                              # (--always: also runs without a terminal, like this script's)
TXT
"$bin" auth grant --always
echo
echo "\$ airloc locate --verbose"
"$bin" locate --verbose
echo
echo "\$ airloc now"
"$bin" now
echo
echo "\$ airloc now --json | grep -E '\"(us_aqi|difference_c|http_requests)\"'   # again: answered by the cache"
"$bin" now --json | grep -E '"(us_aqi|difference_c|http_requests)"'
echo
echo "\$ airloc air --postal 'US 90210' --format line   # any place; °F for a US place"
"$bin" air --postal 'US 90210' --format line
echo
echo "\$ airloc air Paris --scale eu --format line"
"$bin" air Paris --scale eu --format line
echo
echo "\$ airloc search Amsterdm --limit 3   # offline, as you type, typos forgiven"
"$bin" search Amsterdm --limit 3 --offline
echo
echo "\$ airloc reverse 48.33 11.95"
"$bin" reverse 48.33 11.95
