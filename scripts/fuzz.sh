#!/bin/sh
# make fuzz / make fuzz-list: every parser of outside bytes under libFuzzer and
# AddressSanitizer (Sources/FuzzTargets, docs/testing.md).
#
#   scripts/fuzz.sh list            the targets, one a line
#   scripts/fuzz.sh run [SECONDS]   each target for SECONDS (default 60); FUZZ_TARGETS
#                                   ("sds011 config") picks some; FUZZ_SEED fixes libFuzzer's
#                                   seed (CI: 1, so a landing never depends on a draw; 0, the
#                                   default, draws one)
#
# A crash, a leak, a broken promise or an input that takes over 10 s fails the run; its
# reproducer is kept in Fuzz/found/ (make it a regression test: copy it into the
# target's Fuzz/corpus/ directory, which the suite replays). What the fuzzer learns goes
# to .build/fuzz-corpus/, never into the checked-in seeds.
set -eu
cd "$(dirname "$0")/.."
mode=${1:-run}
seconds=${2:-${FUZZ_SECONDS:-60}}
scratch=.build/fuzz
export AIRLOC_FUZZ=1
build() {
	swift build --scratch-path "$scratch" --sanitize=fuzzer --sanitize=address --product airloc-fuzz \
		2>&1 | grep -v "Cannot export local symbol" >&2 || true
	binary=$scratch/debug/airloc-fuzz
	[ -x "$binary" ] || { echo "fuzz: the fuzzer did not build" >&2; exit 70; }
}
# Swift's own backtracer would stop a crashed run for a minute; libFuzzer reports it.
export SWIFT_BACKTRACE=enable=no
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:allocator_may_return_null=1}
export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$PWD/Fuzz/lsan.supp:print_suppressions=0}
export AIRLOC_FUZZ_GAZETTEER=${AIRLOC_FUZZ_GAZETTEER:-$PWD/data/gazetteer.bin}
case $mode in
list)
	build
	AIRLOC_FUZZ_TARGET=list "$binary" | cut -f1
	;;
run)
	build
	targets=${FUZZ_TARGETS:-$(AIRLOC_FUZZ_TARGET=list "$binary" | cut -f1)}
	mkdir -p Fuzz/found
	failed=""
	for target in $targets; do
		learned=.build/fuzz-corpus/$target
		mkdir -p "$learned"
		log=.build/fuzz-corpus/$target.log
		start=$(date +%s)
		if AIRLOC_FUZZ_TARGET=$target "$binary" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=3072 \
			-seed="${FUZZ_SEED:-0}" \
			-print_final_stats=1 -artifact_prefix="Fuzz/found/$target-" "$learned" "Fuzz/corpus/$target" \
			>"$log" 2>&1; then
			runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
			echo "fuzz: $target: ${runs:-?} inputs in $(($(date +%s) - start)) s, nothing found"
		else
			echo "fuzz: $target FAILED (log: $log, reproducer in Fuzz/found/):" >&2
			grep -E "ERROR|Fatal error|precondition|SUMMARY|Test unit written" "$log" | head -8 >&2
			failed="$failed $target"
		fi
	done
	[ -z "$failed" ] || { echo "fuzz: failed:$failed" >&2; exit 1; }
	;;
*) echo "usage: scripts/fuzz.sh list | run [SECONDS]" >&2; exit 64 ;;
esac
