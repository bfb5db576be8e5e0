#!/bin/sh
# make test-tsan: the tests of the concurrent parts under ThreadSanitizer (docs/testing.md,
# "ThreadSanitizer"). Built in .build/tsan, apart from the normal build. Fails on any
# ThreadSanitizer report, as on any failed test. Suppressions, each with its reason, are
# in Tests/tsan.supp (none of airloc's own code).
set -eu
cd "$(dirname "$0")/.."
scratch=.build/tsan
# The modules whose tests run: the service runtime and workers (Platform), MQTT, the
# publisher and the fleet (Fleet), the collector, the uploads, the web server and pages
# (Serve, in-process), the logger's parts (FieldLog), gpsd and the sensors' threads.
modules=${TSAN_MODULES:-PlatformTests MQTTTests FleetTests CollectorTests UploadsTests ServeTests FieldLogTests LocationTests SensorsTests}
filter=$(printf '%s\\.|' $modules | sed 's/|$//')
swift build --build-tests --sanitize=thread --scratch-path "$scratch" >&2
export TSAN_OPTIONS="${TSAN_OPTIONS:-halt_on_error=0 second_deadlock_stack=1 suppressions=$PWD/Tests/tsan.supp}"
export SWIFT_BACKTRACE=enable=no
log=$scratch/test-tsan.log
status=0
swift test --skip-build --sanitize=thread --scratch-path "$scratch" --filter "$filter" >"$log" 2>&1 || status=$?
grep -E "Test run with|✘" "$log" | tail -20
reports=$(grep -c "WARNING: ThreadSanitizer" "$log" || true)
if [ "$reports" -gt 0 ]; then
	echo "test-tsan: $reports ThreadSanitizer report(s) (log: $log):" >&2
	grep -A12 "WARNING: ThreadSanitizer" "$log" | grep -E "WARNING|#[0-9]+ .*(/work|Sources)" | head -40 >&2
	exit 1
fi
[ "$status" -eq 0 ] || { echo "test-tsan: tests failed (log: $log)" >&2; exit "$status"; }
echo "test-tsan: no ThreadSanitizer report"
