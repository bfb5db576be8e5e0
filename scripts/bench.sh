#!/usr/bin/env bash
# `make bench`: the figures in docs/performance.md, each printed with the command that
# measures it. In-process lookup rates come from the release-built airloc-bench; whole-
# process timings run the release airloc binary N times and print min / median / max.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${RUNS:-20}
# As it ships (scripts/build-release.sh: static Swift runtime, packed relocations).
scripts/build-release.sh airloc >/dev/null
scripts/build-release.sh airloc-bench >/dev/null
bin=.build/release/airloc

echo "== machine: $(nproc) cores, $(uname -m), $(date -u +%Y-%m-%d)"
queries=.build/bench-queries.txt
python3 scripts/bench-queries.py > "$queries"
echo "== in-process, one core: taskset -c 0 .build/release/airloc-bench data/gazetteer.bin $queries"
# This machine's speed before and after (it drifts): which figures came from a slow spell.
taskset -c 0 .build/release/airloc-bench speed
taskset -c 0 .build/release/airloc-bench data/gazetteer.bin "$queries"
taskset -c 0 .build/release/airloc-bench speed

# The Python peers, side by side on the same work, when pip can fetch them.
echo "== peers, one core: taskset -c 0 python3 scripts/peers.py $queries"
if [ -d .build/peers/localis ] || python3 -m pip install --quiet --disable-pip-version-check --target .build/peers \
        localis==2.1.0 reverse_geocoder==1.5.1 >/dev/null 2>&1; then
    PYTHONPATH=.build/peers taskset -c 0 python3 scripts/peers.py "$queries"
else
    echo "peers: not installed (pip could not fetch localis / reverse_geocoder)"
fi

# Peak resident memory of a whole process (the data is memory-mapped; RSS counts the
# pages a command touches).
peak_rss() { # label, command...
    local label=$1; shift
    python3 - "$label" "$@" <<'PY'
import resource, subprocess, sys
subprocess.run(sys.argv[2:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
print(f"{sys.argv[1]}: peak RSS {resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024:.1f} MB")
PY
}
echo "== peak memory"
peak_rss "airloc reverse 52.52 13.40" "$bin" reverse 52.52 13.40
peak_rss "airloc search Amsterdm (typo walk)" "$bin" search Amsterdm --offline
peak_rss "airloc-bench (every lookup and search above: all data touched)" .build/release/airloc-bench data/gazetteer.bin "$queries"

timeit() { # label, command...
    local label=$1; shift
    local times=()
    # Warm-up; a command that fails is not worth timing.
    "$@" >/dev/null 2>&1 || { echo "Error: '$*' failed; not timing it" >&2; exit 70; }
    for _ in $(seq "$runs"); do
        local start end
        start=$(date +%s%N)
        "$@" >/dev/null 2>&1
        end=$(date +%s%N)
        times+=($(( (end - start) / 1000 )))
    done
    printf '%s\n' "${times[@]}" | sort -n | awk -v label="$label" -v n="$runs" '
        { t[NR] = $1 } END { printf "%s: min %.1f ms, median %.1f ms, max %.1f ms (%d runs)\n",
          label, t[1] / 1000, t[int((n + 1) / 2)] / 1000, t[n] / 1000, n }'
}

echo "== whole process, $runs runs each"
timeit "airloc reverse 52.52 13.40" "$bin" reverse 52.52 13.40
timeit "airloc search Par --offline" "$bin" search Par --offline
timeit "airloc search Amsterdm --offline (typo)" "$bin" search Amsterdm --offline
timeit "airloc postal US 90210 (offline)" "$bin" postal US 90210 --offline

source scripts/fixtures.sh
"$bin" auth grant --always >/dev/null
# The report's requests and wall time by cache state (gpsd holding a fix, local double).
requests() { "$@" | python3 -c 'import json, sys; print(json.load(sys.stdin)["http_requests"])'; }
empty_cache_now() { rm -rf "$XDG_CACHE_HOME/airloc"; "$bin" now --json; }
echo "HTTP requests of airloc now --json: empty cache $(requests empty_cache_now)," \
    "--refresh (baseline cached) $(requests "$bin" now --json --refresh)," \
    "warm cache $(requests "$bin" now --json)"
timeit "airloc now --json, empty cache (air; baseline and recent climate in one archive request)" empty_cache_now
timeit "airloc now --json --refresh (baseline cached: the common cold case)" "$bin" now --json --refresh
timeit "airloc now --json, warm cache (no request)" "$bin" now --json
timeit "airloc now --lat 52.52 --lon 13.40 --json (manual, warm cache)" "$bin" now --lat 52.52 --lon 13.40 --json
timeit "airloc locate --json (gpsd holding a fix: answered by ?POLL)" "$bin" locate --json

# Idle CPU of a long-running watch: CPU ticks used over 30 s of streaming.
"$bin" locate --watch --json >/dev/null 2>&1 &
watch_pid=$!
sleep 2
ticks() { awk '{ print $14 + $15 }' "/proc/$watch_pid/stat"; }
before=$(ticks)
sleep 30
after=$(ticks)
kill "$watch_pid"; wait "$watch_pid" 2>/dev/null || true
hz=$(getconf CLK_TCK)
awk -v used=$((after - before)) -v hz="$hz" 'BEGIN { printf "airloc locate --watch --json: %.2f%% of one core over 30 s (%d ticks at %d Hz)\n", 100 * used / hz / 30, used, hz }'

# The logger beside gpsd's gpxlogger on the same gpsfake feed: CPU over 60 s and peak
# memory (gpxlogger writes GPX only; airloc also fetches the air and commits each row).
idle() { # label, command... (the command runs in the background for 60 s)
    local label=$1; shift
    "$@" >/dev/null 2>&1 &
    local pid=$!
    sleep 3
    local before after
    before=$(awk '{ print $14 + $15 }' "/proc/$pid/stat")
    sleep 60
    after=$(awk '{ print $14 + $15 }' "/proc/$pid/stat")
    local rss
    rss=$(awk '/VmHWM/ { print $2 / 1024 }' "/proc/$pid/status")
    kill -TERM "$pid"; wait "$pid" 2>/dev/null || true
    awk -v used=$((after - before)) -v hz="$(getconf CLK_TCK)" -v label="$label" -v rss="$rss" \
        'BEGIN { printf "%s: %.2f%% of one core over 60 s, peak RSS %.1f MB\n", label, 100 * used / hz / 60, rss }'
}
"$bin" auth grant --always >/dev/null
export AIRLOC_LOG_DATABASE="$WORK/bench-log.sqlite"
# An empty cache: the logger's first reading goes to the network, so the figure includes
# libcurl, which is loaded only then (a reading from the cache would leave it out).
rm -rf "$XDG_CACHE_HOME/airloc"
idle "airloc log run (track every 5 s, air hourly; 1 Hz receiver; first reading fetched)" "$bin" log run
idle "gpxlogger -f FILE (same feed)" gpxlogger -f "$WORK/bench.gpx" "127.0.0.1:$GPSD_PORT"
# Measured air (docs/sensors.md): the logger with a particulate sensor (the pty double,
# speaking SDS011) read at 1 Hz: no sleep between readings, a 9 s window every 10 s.
python3 scripts/sensor-double.py sds011 --link "$WORK/airloc-pm" >"$WORK/sensor.out" 2>&1 &
SENSOR_PID=$!
disown "$SENSOR_PID"
for _ in $(seq 100); do grep -q DEVICE "$WORK/sensor.out" 2>/dev/null && break; sleep 0.1; done
mkdir -p "$XDG_CONFIG_HOME/airloc"
printf '[sensor]\nmodel = sds011\nwarm-up-seconds = 0\nsample-seconds = 9\ninterval = 10\nsleep-between = no\n' \
    >"$XDG_CONFIG_HOME/airloc/airloc.conf"
AIRLOC_SENSOR_DEVICE="$WORK/airloc-pm" \
    idle "airloc log run with a sensor read at 1 Hz (SDS011 double; 1 Hz receiver)" "$bin" log run
# Three sensors at their default intervals (issue 43): the SDS011 double, an SCD30 double
# ([sensor.co2]) and a BME280 in a sysfs-shaped directory ([sensor.room]), every 60 s each,
# over 180 s so that three rounds of readings fall in it.
python3 scripts/sensor-double.py scd30 --co2 845 --link "$WORK/airloc-co2" >"$WORK/co2.out" 2>&1 &
CO2_PID=$!
disown "$CO2_PID"
for _ in $(seq 100); do grep -q DEVICE "$WORK/co2.out" 2>/dev/null && break; sleep 0.1; done
mkdir -p "$WORK/iio:device0"
printf 'bme280\n' >"$WORK/iio:device0/name"
printf '21375\n' >"$WORK/iio:device0/in_temp_input"
printf '45123\n' >"$WORK/iio:device0/in_humidityrelative_input"
printf '101.325\n' >"$WORK/iio:device0/in_pressure_input"
printf '[sensor]\nmodel = sds011\n[sensor.co2]\nmodel = scd30\ndevice = %s\n[sensor.room]\nmodel = bme280\niio = %s\n' \
    "$WORK/airloc-co2" "$WORK/iio:device0" >"$XDG_CONFIG_HOME/airloc/airloc.conf"
three_sensors() {
    AIRLOC_LOG_DATABASE="$WORK/bench-three.sqlite" AIRLOC_SENSOR_DEVICE="$WORK/airloc-pm" "$bin" log run \
        >/dev/null 2>&1 &
    local pid=$!
    sleep 3
    local before after rss
    before=$(awk '{ print $14 + $15 }' "/proc/$pid/stat")
    sleep 180
    after=$(awk '{ print $14 + $15 }' "/proc/$pid/stat")
    rss=$(awk '/VmHWM/ { print $2 / 1024 }' "/proc/$pid/status")
    kill -TERM "$pid"; wait "$pid" 2>/dev/null || true
    awk -v used=$((after - before)) -v hz="$(getconf CLK_TCK)" -v rss="$rss" \
        'BEGIN { printf "airloc log run with three sensors (SDS011, SCD30, BME280; default intervals; 1 Hz receiver): %.2f%% of one core over 180 s, peak RSS %.1f MB\n", 100 * used / hz / 180, rss }'
}
three_sensors
AIRLOC_LOG_DATABASE="$WORK/bench-three.sqlite" "$bin" log export --format csv --kind sensor 2>/dev/null \
    | awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "name") n = i; next } { count[$n]++ }
               END { printf "rows logged by name:"; for (k in count) printf " %s %d", k, count[k]; print "" }'
rm -f "$XDG_CONFIG_HOME/airloc/airloc.conf"
kill "$SENSOR_PID" "$CO2_PID" 2>/dev/null || true
echo "== log plot: a 100,000-point day (airloc-bench logbook-write), farm-bench-style whole process"
.build/release/airloc-bench logbook-write "$WORK/plot-day.sqlite" 100000 >/dev/null
AIRLOC_LOG_DATABASE="$WORK/plot-day.sqlite" timeit "airloc log plot (100,000 points) --output FILE" \
    "$bin" log plot --output "$WORK/plot-day.svg"
AIRLOC_LOG_DATABASE="$WORK/plot-day.sqlite" peak_rss "airloc log plot (100,000 points)" \
    "$bin" log plot --output "$WORK/plot-day.svg"
echo "== sensor decoders, one core: taskset -c 0 .build/release/airloc-bench sensor-decode"
taskset -c 0 .build/release/airloc-bench sensor-decode
echo "== logbook: .build/release/airloc-bench logbook DIR 1000000"
mkdir -p "$WORK/logbook-bench"
.build/release/airloc-bench logbook "$WORK/logbook-bench" 1000000
echo "== a week offline: pending hours back-filled (see the in-process test aWeekOfflineIsOneRequest: 168 hours, 1 request)"

# The fleet (docs/scaling.md): a local mosquitto, airloc's own client code against it.
MQTT_PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
printf 'listener %s 127.0.0.1\nallow_anonymous true\nmax_queued_messages 100000\n' "$MQTT_PORT" >"$WORK/mosquitto.conf"
mosquitto -c "$WORK/mosquitto.conf" >/dev/null 2>&1 &
MOSQUITTO_PID=$!
disown "$MOSQUITTO_PID"
trap 'kill -9 "$MOSQUITTO_PID" 2>/dev/null || true; fixtures_cleanup' EXIT
for _ in $(seq 100); do (exec 3<>"/dev/tcp/127.0.0.1/$MQTT_PORT") 2>/dev/null && break; sleep 0.1; done
echo "== fleet: .build/release/airloc-bench mqtt-drain DIR mqtt://127.0.0.1:PORT 10000 (mosquitto $(mosquitto -h 2>/dev/null | awk 'NR==1 {print $3}'))"
.build/release/airloc-bench mqtt-drain "$WORK" "mqtt://127.0.0.1:$MQTT_PORT" 10000
echo "== fleet: .build/release/airloc-bench mqtt-load mqtt://127.0.0.1:PORT 200 10 30"
broker_ticks() { awk '{ print $14 + $15 }' "/proc/$MOSQUITTO_PID/stat"; }
before=$(broker_ticks)
load_start=$(date +%s%N)
.build/release/airloc-bench mqtt-load "mqtt://127.0.0.1:$MQTT_PORT" 200 10 30
awk -v used=$(($(broker_ticks) - before)) -v hz="$(getconf CLK_TCK)" -v ns=$(($(date +%s%N) - load_start)) \
    'BEGIN { printf "mosquitto during the load: %.1f%% of one core (%.1f s CPU over %.1f s)\n", 100 * used / hz / (ns / 1e9), used / hz, ns / 1e9 }'
rm -rf "$XDG_CACHE_HOME/airloc"
AIRLOC_MQTT_URL="mqtt://127.0.0.1:$MQTT_PORT" \
    idle "airloc log run publishing to a local mosquitto (AIRLOC_MQTT_URL, connected)" "$bin" log run

# The collector (docs/collector.md, docs/scaling.md): DEVICES simulated devices through
# this mosquitto into `airloc collect` and a PostgreSQL of the bench's own (as the postgres
# user when run as root: PostgreSQL refuses root). COLLECT_SECONDS=600 is the issue's
# 10 minutes; shorten it for a quick look.
pg_bin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)
pg_dir=$(mktemp -d /tmp/airloc-bench-pg.XXXXXX)
as_pg() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
[ "$(id -u)" = 0 ] && chown postgres:postgres "$pg_dir"
PG_PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
as_pg "$pg_bin/initdb" -D "$pg_dir/data" -U postgres -A trust -E UTF8 >/dev/null
printf "listen_addresses = ''\nunix_socket_directories = '%s'\nport = %s\n" "$pg_dir" "$PG_PORT" \
    | as_pg tee -a "$pg_dir/data/postgresql.conf" >/dev/null
as_pg "$pg_bin/pg_ctl" -D "$pg_dir/data" -l "$pg_dir/log" -w start >/dev/null
conninfo="host=$pg_dir port=$PG_PORT dbname=postgres user=postgres"
AIRLOC_COLLECT_BROKER="mqtt://127.0.0.1:$MQTT_PORT" AIRLOC_COLLECT_DATABASE="$conninfo" "$bin" collect \
    >/dev/null 2>"$WORK/collect.err" &
COLLECT_PID=$!
trap 'kill "$COLLECT_PID" 2>/dev/null || true; as_pg "$pg_bin/pg_ctl" -D "$pg_dir/data" -m fast stop >/dev/null 2>&1 || true;
      rm -rf "$pg_dir"; kill -9 "$MOSQUITTO_PID" 2>/dev/null || true; fixtures_cleanup' EXIT
for _ in $(seq 100); do grep -q "subscribed to" "$WORK/collect.err" 2>/dev/null && break; sleep 0.1; done
echo "== collector: .build/release/airloc-bench collect-load mqtt://127.0.0.1:PORT CONNINFO PID 200 1 ${COLLECT_SECONDS:-600} (PostgreSQL $("$pg_bin/postgres" --version | awk '{print $3}'))"
.build/release/airloc-bench collect-load "mqtt://127.0.0.1:$MQTT_PORT" "$conninfo" "$COLLECT_PID" 200 1 "${COLLECT_SECONDS:-600}"
kill "$COLLECT_PID"; wait "$COLLECT_PID" 2>/dev/null || true

# The collector's burst ceiling: 100,000 rows queued at a broker of its own while it was
# stopped, then drained (docs/scaling.md).
echo "== collector burst: scripts/bench-collect-burst.sh $bin CONNINFO 100000"
scripts/bench-collect-burst.sh "$bin" "$conninfo" 100000
echo "== collector burst of readings (the hourly roll-up kept too): scripts/bench-collect-burst.sh $bin CONNINFO 100000 sensor"
scripts/bench-collect-burst.sh "$bin" "$conninfo" 100000 sensor
# Made-up device ids on a broker without ACLs: the collector's memory and an honest row's delay.
echo "== collector, made-up ids: scripts/bench-collect-junk.sh $bin CONNINFO 100000"
scripts/bench-collect-junk.sh "$bin" "$conninfo" 100000
# Several collectors ([collect] share): the same rows published while 1, then 3, run.
for members in 1 3; do
    echo "== collector burst, live, $members member(s): scripts/bench-collect-burst.sh $bin CONNINFO 100000 track $members"
    scripts/bench-collect-burst.sh "$bin" "$conninfo" 100000 track "$members"
done

# `[collect] keep`'s drop of a month of 200 devices (docs/collector.md): the same round
# of the retention at two sizes of the month, to show the drop does not grow with its rows.
for spacing in 600 60; do
    echo "== retention drop: .build/release/airloc-bench retention-drop CONNINFO 200 $spacing"
    .build/release/airloc-bench retention-drop "$conninfo" 200 "$spacing"
done

# The fleet page (docs/fleet.md) over the same PostgreSQL, refilled with 1,000 devices and a
# day of one-second fixes: /api/last and a day's /api/track, made afresh and under 10 clients.
echo "== fleet page: scripts/bench-fleet.sh $bin CONNINFO"
scripts/bench-fleet.sh "$bin" "$conninfo"

# The uploads (docs/uploads.md): a week's backlog drained by each type in turn into the
# servers' double, through airloc's own Uploader and libcurl.
python3 scripts/upload-double.py --traccar-id bench --user field --password s3cret --token s3cret \
    --sensor s-pm25 --sensor s-pm10 >"$WORK/upload-double.out" 2>&1 &
UPLOAD_PID=$!
disown "$UPLOAD_PID"
for _ in $(seq 100); do grep -q PORT "$WORK/upload-double.out" 2>/dev/null && break; sleep 0.1; done
UPLOAD_PORT=$(awk '/PORT/ { print $2 }' "$WORK/upload-double.out")
echo "== uploads: .build/release/airloc-bench upload-drain DIR http://127.0.0.1:PORT 10000"
.build/release/airloc-bench upload-drain "$WORK" "http://127.0.0.1:$UPLOAD_PORT" 10000
kill "$UPLOAD_PID" 2>/dev/null || true

# airloc serve beside a logger (docs/serve.md): idle CPU, p99 latency under 50 clients, peak RSS.
echo "== serve: scripts/bench-serve.sh $bin"
scripts/bench-serve.sh "$bin"

# The logger's CPU and peak RSS without a broker, beside gpxlogger and publishing to a
# local mosquitto; with BASELINE=path/to/an/older/airloc, both in turn (docs/performance.md).
echo "== log run: scripts/bench-logger.sh $bin ${BASELINE:-}"
scripts/bench-logger.sh "$bin" ${BASELINE:+"$BASELINE"}

# The logger's wake-ups (context switches a minute) beside gpxlogger on the same feed; perf
# is installed for this alone, as for make hot-functions.
scripts/install-deps.sh linux-perf >/dev/null
echo "== log run wake-ups: scripts/bench-wakeups.sh $bin ${BASELINE:-}"
scripts/bench-wakeups.sh "$bin" ${BASELINE:+"$BASELINE"}

# The machine speed at the end, to compare with the start.
taskset -c 0 .build/release/airloc-bench speed
