#!/bin/sh
# bench/memory.sh: the frontend's own private memory (Private_Dirty of
# hutch itself, not of the jail: what it allocated or wrote; its clean
# text pages are page cache shared with every other hutch, and are shown
# apart) while a run goes on: a
# small run passing output through, then --json runs writing 1 MiB, 16 MiB
# and 256 MiB under a 32 MiB stdout cap, to show that memory follows the
# cap, not the output. A benchmark, not a test.
#   HUTCH   the frontend (default: hutch on PATH)
set -eu
hutch=${HUTCH:-$(command -v hutch || true)}
[ -x "$hutch" ] || { echo "bench: no hutch (set HUTCH)" >&2; exit 1; }

# private_kb PID [FIELD]: the frontend's private memory now.
private_kb() {
	awk -v f="${2:-Private_Dirty}:" '$1 == f {s += $2} END {print s + 0}' "/proc/$1/smaps_rollup"
}

# measure LABEL ARGS...: start hutch with ARGS, sample it at its peak (the
# jailed command holds its output back until it is all written, then
# sleeps), report.
measure() {
	label=$1
	shift
	"$hutch" "$@" >/dev/null 2>&1 &
	pid=$!
	peak=0
	clean=0
	while kill -0 "$pid" 2>/dev/null; do
		kb=$(private_kb "$pid" 2>/dev/null || echo 0)
		[ "${kb:-0}" -gt "$peak" ] && peak=$kb
		kb=$(private_kb "$pid" Private_Clean 2>/dev/null || echo 0)
		[ "${kb:-0}" -gt "$clean" ] && clean=$kb
		sleep 0.05
	done
	wait "$pid" || true
	echo "$label: frontend private memory peak ${peak} KiB (clean text pages ${clean} KiB)"
}

measure "small run, pass-through" run -- /bin/sh -c 'echo hi; sleep 1'
for size in 1M 16M 256M; do
	measure "--json, $size of output, 32M cap" run --json --max-output 32M -- \
		/bin/sh -c "head -c $size /dev/zero; sleep 1"
done
