#!/bin/bash
# The system test's steps inside the booted Debian (scripts/system-test.py runs it, one
# phase per boot; docs/packaging.md). Each step follows README "Real use on a Raspberry
# Pi" as a Pi owner types it. Its words go to the host on ttyS3, a line each:
#   STEP what        OK what        FAIL why        ROWS k=v...        ACK k=v...        DONE phase
# A FAIL ends the phase (the journal's last lines follow as LOG lines) and powers off.
set -uo pipefail
host=/mnt/host
phase=$(cat "$host/phase")
# The host's numbers from earlier boots (ROWS, ACK), as shell assignments.
[ -f "$host/vars" ] && . "$host/vars"
exec 3>/dev/ttyS3
export DEBIAN_FRONTEND=noninteractive LANG=C.UTF-8
db=/var/lib/airloc/logbook.sqlite
conf=/etc/airloc/airloc.conf

say() { echo "$*" >&3; }
step() { say "STEP $*"; }
ok() { say "OK $*"; }
fail() {
    say "FAIL $*"
    journalctl -b --no-pager -q -n 60 -u airloc-log -u airloc-serve -u gpsd 2>&1 | sed 's/^/LOG /' >&3
    say "DONE fail"
    systemctl poweroff
    exit 1
}
# wait_until SECONDS WHAT COMMAND...: the command's success, asked once a second (it reads
# what other processes keep: the logbook, systemd); the limit only bounds a hang.
wait_until() {
    local limit=$1 what=$2
    shift 2
    local deadline=$((SECONDS + limit))
    until "$@" >/dev/null 2>&1; do
        [ $SECONDS -lt $deadline ] || fail "$what: not within $limit s"
        sleep 1
    done
    ok "$what"
}
# As the logger's user (root would leave root's -wal and -shm files the logger cannot
# open), and never creating the file: before the logger made it there is nothing to read.
sql() { [ -f "$db" ] && sudo -u airloc sqlite3 -batch -noheader "$db" "$@"; }
count_since() { sql "select count(*) from $1 where t_ms >= $2"; }
at_least() { [ "$(sql "$1")" -ge "$2" ]; }
# As README: the service's user, with the service's state directory.
as_airloc() { sudo -u airloc env XDG_STATE_HOME=/var/lib "$@"; }
unit_is() { [ "$(systemctl show -p ActiveState --value "$1")" = "$2" ]; }
# active, never restarted by systemd since it was started
steady() {
    for unit in "$@"; do
        unit_is "$unit" active || fail "$unit is $(systemctl show -p ActiveState --value "$unit") ($(systemctl show -p Result --value "$unit"))"
        restarts=$(systemctl show -p NRestarts --value "$unit")
        [ "$restarts" = 0 ] || fail "$unit was restarted $restarts times by systemd"
    done
    ok "$* active, no restart"
}
now_ms() { echo $(($(date +%s) * 1000)); }
rows() {
    sql "select 'track_max=' || ifnull(max(id),0) || ' track_count=' || count(*) from track"
    sql "select 'sensor_max=' || ifnull(max(id),0) || ' sensor_count=' || count(*) from sensor"
}
# The rows up to an earlier boot's highest id are all still there.
kept() {
    local table=$1 max=$2 count=$3
    local now
    now=$(sql "select count(*) from $table where id <= $max")
    [ "$now" = "$count" ] || fail "$table: $count rows up to id $max were there, now $now"
    ok "$table: all $count rows up to id $max kept"
}
no_duplicates() {
    for table in track sensor; do
        twice=$(sql "select count(*) from (select t_ms from $table group by t_ms having count(*) > 1)")
        [ "$twice" = 0 ] || fail "$table: $twice times logged twice"
    done
    ok "no row logged twice"
}
# /api/now answers 200 with the sensor's measured reading (the host's double: PM2.5 17.4).
page_shows_measured() {
    local body
    body=$(curl -sf --max-time 20 http://127.0.0.1:8642/api/now) || return 1
    [ "$(jq -r '.measured.pm2_5' <<<"$body")" = "17.4" ]
}
doctor_clean() {
    local out
    if ! out=$(airloc doctor --service 2>&1); then
        sed 's/^/LOG doctor: /' <<<"$out" >&3
        fail "airloc doctor --service found problems (above)"
    fi
    ok "airloc doctor --service: clean"
}
# The journal of a healthy run: no line at priority err or worse from any service (the
# kernel's own, such as a wireless regulatory file this machine has no use for, aside),
# and no airloc unit failing, restarting or saying an error.
journal_clean() {
    local since=$1 errors
    errors=$(journalctl --no-pager -q -p err --since "@$since" _TRANSPORT=journal + _TRANSPORT=stdout \
        + _TRANSPORT=syslog 2>&1)
    errors+=$(journalctl --no-pager -q --since "@$since" -u airloc-log -u airloc-serve -u airloc-collect 2>&1 \
        | grep -E 'Failed to set thread priority|Failed with result|status=[0-9]+/|Error:' || true)
    [ -z "$errors" ] || fail "the journal has error lines: $(head -c 600 <<<"$errors")"
    ok "the journal holds no error line"
}

systemctl is-system-running --wait >/dev/null
say "BOOT $phase $(uname -r)"
case "$phase" in
install)
    step "the previous release, installed with apt"
    apt-get install -y -qq "$host/previous.deb" >/dev/null 2>&1 || fail "apt install the previous release"
    [ "$(airloc --version)" = "airloc $previous_version" ] || fail "airloc --version: $(airloc --version)"
    ok "$(airloc --version)"
    step "the administrator's file: the air service's address (the host's stand-in)"
    sed -i -e 's|^; air-quality-url = .*|air-quality-url = http://10.0.2.100|' \
        -e 's|^; archive-url = .*|archive-url = http://10.0.2.100|' "$conf"
    grep -qx 'air-quality-url = http://10.0.2.100' "$conf" || fail "no air-quality-url line to set in $conf"
    ok "[services] air-quality-url = http://10.0.2.100"
    step "the always grant (README step 5), the logger enabled"
    as_airloc airloc auth grant --always >/dev/null || fail "auth grant --always"
    systemctl enable --now airloc-log >/dev/null 2>&1 || fail "systemctl enable --now airloc-log"
    wait_until 300 "the previous release logs track rows from gpsd" at_least "select count(*) from track" 3
    # The administrator's own edit: the upgrade must keep it.
    echo "; the station by the window, as its administrator wrote it" >>"$conf"
    conf_sum=$(md5sum <"$conf")
    read -r before_max before_count < <(sql "select ifnull(max(id),0), count(*) from track" | tr '|' ' ')

    step "the upgrade: apt install of this release over the running logger"
    upgraded_at=$(date +%s)
    apt-get install -y -qq -o Dpkg::Options::=--force-confold "$host/airloc.deb" >/dev/null 2>&1 \
        || fail "apt install ./airloc.deb (upgrade)"
    [ "$(airloc --version)" = "airloc $version" ] || fail "after the upgrade airloc --version: $(airloc --version)"
    ok "$(airloc --version)"
    [ "$(md5sum <"$conf")" = "$conf_sum" ] || fail "the upgrade changed $conf"
    ok "$conf kept"
    as_airloc airloc auth status --json | jq -e '.status == "authorizedAlways"' >/dev/null \
        || fail "the grant is gone: $(as_airloc airloc auth status --json)"
    ok "the always grant kept"
    id -nG airloc | tr ' ' '\n' | grep -qx dialout || fail "airloc is not in dialout: $(id -nG airloc)"
    ok "airloc is in dialout"
    for package in libmicrohttpd12 libpq5 libmosquitto1; do
        dpkg -s "$package" >/dev/null 2>&1 || fail "$package was not installed with the package"
    done
    ok "libmicrohttpd12, libpq5, libmosquitto1 came with the package"
    pid=$(systemctl show -p MainPID --value airloc-log)
    [ "$(readlink "/proc/$pid/exe")" = /usr/bin/airloc ] || fail "the logger still runs the old binary"
    ok "the running logger was restarted on the new binary"
    wait_until 120 "the new binary logs on in the old logbook" \
        at_least "select count(*) from track where t_ms >= $((upgraded_at * 1000))" 2
    kept track "$before_max" "$before_count"

    step "the sensor (README step 6), the page"
    printf '\n[sensor]\nmodel = sds011\ndevice = /dev/ttyS2\nwarm-up-seconds = 5\nsample-seconds = 5\ninterval = 20\n' >>"$conf"
    systemctl restart airloc-log || fail "systemctl restart airloc-log"
    systemctl enable --now airloc-serve >/dev/null 2>&1 || fail "systemctl enable --now airloc-serve"
    since=$(now_ms)
    wait_until 300 "sensor rows from the serial sensor (as the airloc user)" at_least "select count(*) from sensor where t_ms >= $since" 2
    wait_until 120 "track rows go on" at_least "select count(*) from track where t_ms >= $since" 3
    wait_until 120 "/api/now answers 200 with the measured reading" page_shows_measured
    wait_until 120 "the model's air logged beside it" at_least "select count(*) from air where source <> 'pending'" 1
    # README step 5's look at the logbook, as the service's user.
    status=$(as_airloc airloc log status --json) || fail "log status: $status"
    jq -e '.sensor_rows > 0 and .track_rows > 0' <<<"$status" >/dev/null \
        || fail "log status does not show the rows: $(head -c 400 <<<"$status")"
    ok "airloc log status (as airloc) shows the track and the sensor rows"
    steady airloc-log airloc-serve
    doctor_clean
    journal_clean "$upgraded_at"
    say "ROWS $(rows | tr '\n' ' ')"
    say "DONE $phase"
    systemctl reboot
    exit 0
    ;;
reboot)
    step "after a reboot: the services back, the logbook continued"
    wait_until 180 "airloc-log and airloc-serve come back" bash -c 'systemctl is-active -q airloc-log && systemctl is-active -q airloc-serve'
    kept track "$track_max" "$track_count"
    kept sensor "$sensor_max" "$sensor_count"
    wait_until 120 "new track rows" at_least "select count(*) from track where id > $track_max" 2
    wait_until 300 "new sensor rows" at_least "select count(*) from sensor where id > $sensor_max" 1
    no_duplicates
    steady airloc-log airloc-serve

    step "[authorization] policy = allow instead of the grant"
    as_airloc airloc auth reset >/dev/null || fail "auth reset"
    as_airloc airloc auth status --json | jq -e '.status == "notDetermined"' >/dev/null || fail "the grant is not gone"
    printf '\n[authorization]\npolicy = allow\n' >>"$conf"
    systemctl restart airloc-log airloc-serve || fail "restart with policy = allow"
    since=$(now_ms)
    wait_until 120 "track rows with policy = allow" at_least "select count(*) from track where t_ms >= $since" 3
    wait_until 300 "sensor rows with policy = allow" at_least "select count(*) from sensor where t_ms >= $since" 2
    wait_until 120 "/api/now answers 200 with the measured reading" page_shows_measured
    steady airloc-log airloc-serve
    doctor_clean
    journal_clean "$(date -d "$(uptime -s)" +%s)"

    step "a power cut while the logger writes"
    # The host pulls the plug after a few of these: each names rows already committed.
    for _ in $(seq 1 120); do
        say "ACK $(rows | tr '\n' ' ')"
        sleep 2
    done
    fail "the host did not cut the power"
    ;;
powercut)
    step "after the power cut: the logbook whole, every acknowledged row there"
    [ "$(sql 'PRAGMA integrity_check')" = ok ] || fail "integrity_check: $(sql 'PRAGMA integrity_check' | head -3)"
    ok "PRAGMA integrity_check: ok"
    kept track "$track_max" "$track_count"
    kept sensor "$sensor_max" "$sensor_count"
    wait_until 180 "airloc-log and airloc-serve come back" bash -c 'systemctl is-active -q airloc-log && systemctl is-active -q airloc-serve'
    wait_until 120 "the logger logs on" at_least "select count(*) from track where id > $track_max" 2
    no_duplicates

    step "apt purge"
    apt-get purge -y -qq airloc >/dev/null 2>&1 || fail "apt purge airloc"
    for path in /usr/bin/airloc /var/lib/airloc /var/cache/airloc /etc/airloc /usr/lib/systemd/system/airloc-log.service \
        /etc/systemd/system/multi-user.target.wants/airloc-log.service \
        /etc/systemd/system/multi-user.target.wants/airloc-serve.service; do
        [ ! -e "$path" ] && [ ! -L "$path" ] || fail "$path is left after the purge"
    done
    pgrep -x airloc >/dev/null && fail "an airloc process runs after the purge"
    systemctl is-failed -q airloc-log airloc-serve && fail "a unit is left failed after the purge"
    ok "nothing of the package is left (the airloc user stays, as Debian does)"
    ;;
*)
    fail "unknown phase $phase"
    ;;
esac
say "DONE $phase"
systemctl poweroff
