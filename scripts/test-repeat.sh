#!/usr/bin/env bash
# Runs the whole test suite N times in a row and says how many runs passed; with LOAD=K,
# K CPU-bound processes (`yes`) run beside it, as a busy CI machine would. A suite that
# depends on the machine's speed shows up here. Exit status: 0 when every run passed.
#   scripts/test-repeat.sh [N]          (make test-repeat N=10 LOAD=1)
# A run that takes longer than RUN_TIMEOUT seconds (default 1800; a run takes about 5
# minutes) is stopped and counted as HUNG, with the tests that started and never ended.
set -uo pipefail
cd "$(dirname "$0")/.."
runs=${1:-10}
load=${LOAD:-0}
swift=${SWIFT:-swift}
logs=$(mktemp -d /tmp/airloc-test-repeat.XXXXXX)
$swift build --build-tests >"$logs/build.log" 2>&1 || { cat "$logs/build.log"; exit 1; }
pids=()
trap 'for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done' EXIT
for _ in $(seq 1 "$load"); do
    yes >/dev/null &
    pids+=($!)
done
passed=0
failed=0
for i in $(seq 1 "$runs"); do
    start=$(date +%s)
    # A session of its own, so that a hung run is stopped with everything it started:
    # the test process and the servers its tests spawned each take a process group of
    # their own, but none leaves the session.
    setsid $swift test >"$logs/run-$i.log" 2>&1 &
    run=$!
    deadline=$((SECONDS + ${RUN_TIMEOUT:-1800}))
    while kill -0 "$run" 2>/dev/null && [ "$SECONDS" -lt "$deadline" ]; do sleep 5; done
    if kill -0 "$run" 2>/dev/null; then
        pkill -KILL -s "$run"
        wait "$run" 2>/dev/null
        status=124
    else
        wait "$run"
        status=$?
    fi
    if [ "$status" -eq 0 ]; then
        passed=$((passed + 1))
        verdict=passed
    else
        failed=$((failed + 1))
        verdict=FAILED
        [ "$status" -eq 124 ] && verdict="HUNG (stopped after ${RUN_TIMEOUT:-1800} s)"
    fi
    summary=$(grep -E "Test run with .* (passed|failed)" "$logs/run-$i.log" | tail -1 | sed 's/^[^A-Za-z]*//')
    echo "run $i/$runs: $verdict in $(($(date +%s) - start)) s — ${summary:-no summary}"
    grep -E "recorded an issue" "$logs/run-$i.log" | sed 's/^/    /' | head -10
    case $verdict in HUNG*)
        # Started and never ended: where the run hung.
        awk '/^◇ Test .* started/ { name = $3; open[name] = $0 } /^[✔✘] Test / { delete open[$3] }
             END { for (name in open) print "    still running: " open[name] }' "$logs/run-$i.log" | head -10 ;;
    esac
done
echo "$passed passed, $failed failed"
echo "logs: $logs (load: $load CPU-bound processes)"
[ "$failed" -eq 0 ]
