#!/bin/sh
# fuzz/run.sh: build the libFuzzer harnesses (`make fuzz`), run each for
# FUZZ_SECONDS over a scratch copy of its seed corpus (the committed corpus
# never grows), then replay fuzz/regressions/NAME/ once. Prints, per
# harness, the executions, exec/s and time; exits 1 on any crash, leak,
# timeout, out-of-memory or sanitizer report, keeping the input.
#
# Usage: sh fuzz/run.sh [BUILDDIR]
#   BUILDDIR  a configured build tree (default: the current directory when
#             it is one, else a fresh tree in a temporary directory)
# Environment:
#   FUZZ_SECONDS    per harness (default 60)
#   FUZZ_HARNESSES  which ones (default: request policy policy-extends spec status frame)
#   FUZZ_ARTIFACTS  where failing inputs and logs are kept (default: a new
#                   /tmp/hutch-fuzz-artifacts.XXXXXX, made only on failure)
#   FUZZ_CC         the clang to build with (default clang)
#   FUZZ_JOBS       harnesses run side by side (default: the online CPUs);
#                   each still gets FUZZ_SECONDS of its own
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
seconds=${FUZZ_SECONDS:-60}
harnesses=${FUZZ_HARNESSES:-request policy policy-extends spec status frame proxy-http}
scratch=$(mktemp -d /tmp/hutch-fuzz.XXXXXX)
trap 'rm -rf "$scratch"' EXIT
: "${UBSAN_OPTIONS:=print_stacktrace=1:halt_on_error=1}"
export UBSAN_OPTIONS

build=${1:-}
if [ -z "$build" ]; then
	if [ -f Makefile ] && grep -q '^fuzz:' Makefile; then
		build=.
	else
		build=$scratch/build
		mkdir "$build"
		(cd "$build" && "$top/configure" >"$scratch/configure.log" 2>&1) || {
			tail -20 "$scratch/configure.log"
			exit 1
		}
	fi
fi
build=$(cd "$build" && pwd)
if ! make -C "$build" fuzz ${FUZZ_CC:+FUZZ_CC="$FUZZ_CC"} >"$scratch/build.log" 2>&1; then
	tail -40 "$scratch/build.log"
	echo "fuzz: make fuzz FAILED"
	exit 1
fi

# Failing inputs and logs go here; made now (harnesses run side by side,
# each in a subshell) and removed at the end if nothing failed.
artifacts=${FUZZ_ARTIFACTS:-$(mktemp -d /tmp/hutch-fuzz-artifacts.XXXXXX)}
mkdir -p "$artifacts"
keep() { # keep NAME FILE...: copy a failing harness's inputs and log
	name=$1
	shift
	for f in "$@"; do
		[ -e "$f" ] && cp "$f" "$artifacts/$name-$(basename "$f")"
	done
	return 0
}

# reported LOG: did a sanitizer or libFuzzer itself report a problem?
reported() {
	grep -q -E '^==[0-9]+==ERROR|runtime error:|^SUMMARY: |ERROR: libFuzzer|deadly signal|-- (leak|timeout|oom)' "$1"
}

# fuzz_one NAME: one harness for FUZZ_SECONDS, then its regressions; its
# lines go to $scratch/NAME/out, and a FAILED file marks a failure.
fuzz_one() {
	h=$1
	bin=$build/fuzz/fuzz-$h
	work=$scratch/$h
	mkdir -p "$work/corpus"
	cp "$top/fuzz/corpus/$h/"* "$work/corpus/"
	dict=
	case $h in request | policy | policy-extends) dict=-dict=$top/fuzz/json.dict ;; esac
	start=$(date +%s)
	rc=0
	"$bin" -max_total_time="$seconds" -rss_limit_mb=2048 -detect_leaks=1 -timeout=10 \
		-print_final_stats=1 -artifact_prefix="$work/" $dict "$work/corpus" \
		>"$work/log" 2>&1 || rc=$?
	elapsed=$(($(date +%s) - start))
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/log" | tail -n 1)
	rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$work/log" | tail -n 1)
	corp=$(find "$work/corpus" -type f | wc -l)
	verdict=ok
	if [ "$rc" != 0 ] || reported "$work/log" || ls "$work"/crash-* "$work"/leak-* \
		"$work"/timeout-* "$work"/oom-* >/dev/null 2>&1; then
		verdict=FAILED
		touch "$work/FAILED"
		keep "fuzz-$h" "$work"/crash-* "$work"/leak-* "$work"/timeout-* "$work"/oom-* "$work/log"
		grep -E -A30 '^==[0-9]+==ERROR|runtime error:|ERROR: libFuzzer|deadly signal' \
			"$work/log" | head -60 || tail -30 "$work/log"
	fi
	echo "fuzz-$h: ${execs:-?} executions, ${rate:-?} exec/s, ${elapsed} s, corpus $corp: $verdict"

	# Inputs that once failed: each runs once, nothing is mutated or added.
	reg=$top/fuzz/regressions/$h
	if [ -d "$reg" ] && [ -n "$(ls -A "$reg")" ]; then
		rc=0
		"$bin" -runs=0 -rss_limit_mb=2048 -detect_leaks=1 -timeout=10 \
			-artifact_prefix="$work/reg-" "$reg" >"$work/reg.log" 2>&1 || rc=$?
		n=$(find "$reg" -type f | wc -l)
		if [ "$rc" != 0 ] || reported "$work/reg.log"; then
			touch "$work/FAILED"
			keep "fuzz-$h-regressions" "$work"/reg-* "$work/reg.log"
			tail -40 "$work/reg.log"
			echo "fuzz-$h regressions: $n inputs: FAILED"
		else
			echo "fuzz-$h regressions: $n inputs: ok"
		fi
	fi
}

# A harness whose subshell ends non-zero (set -e: a corpus that cannot be
# copied, a missing binary) failed too, FAILED file or not.
jobs=${FUZZ_JOBS:-$(nproc 2>/dev/null || echo 1)}
pids=
for h in $harnesses; do
	mkdir -p "$scratch/$h"
	(fuzz_one "$h" || touch "$scratch/$h/FAILED") >"$scratch/$h/out" 2>&1 &
	pids="$pids $!"
	if [ "$(echo $pids | wc -w)" -ge "$jobs" ]; then
		wait $pids
		pids=
	fi
done
wait $pids
failed=0
for h in $harnesses; do
	cat "$scratch/$h/out"
	if [ -e "$scratch/$h/FAILED" ]; then
		failed=1
		grep -q -E "^fuzz-$h: .*: FAILED$" "$scratch/$h/out" ||
			echo "fuzz-$h: did not run: FAILED"
	fi
done

if [ "$failed" != 0 ]; then
	echo "fuzz: FAILED; inputs and logs kept in $artifacts"
	exit 1
fi
[ -n "${FUZZ_ARTIFACTS:-}" ] || rmdir "$artifacts" 2>/dev/null || true
echo "fuzz: all clean"
