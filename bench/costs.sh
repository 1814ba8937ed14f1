#!/bin/sh
# bench/costs.sh: the kernel's and the exec's own costs that bound issue
# 22's goals, each measured alone, as root and as nobody (steps.sh's
# companion; see bench/README):
#   1. process start-up alone, the part of `hutch run`'s and bubblewrap's
#      cost no jail code can change: posix_spawn + wait4 (bench-spawn,
#      run.sh's driver) of a no-op main() linked static with glibc, static
#      with musl (musl-gcc), dynamic with glibc; `hutch --version`;
#      `bwrap --version`; /bin/true; each with its CPU from wait4. Then
#      the price of one CPUID (cpuid-cost.c), which glibc's start-up runs
#      many times and which traps on a VM;
#   2. floor1 (floor.c one at a time, the pooled-latency goal's
#      reference) split: clone into the same namespaces, maps, pid 1's
#      exit and reaping, no exec (floor -t -x); fork + exec /bin/true +
#      wait with no namespaces (floor -t -F); the whole (floor -t);
#   3. a jail's teardown alone, what a pooled run pays after its command
#      exits: pid 1 in fresh namespaces exits after M mounts and
#      pivot_root, timed from its last clock read before _exit to our
#      wait4's return (kernel-steps -s teardown -W ...): M = 0, the
#      captured spec's tree, as many binds of /usr; the whole jail;
#   4. the steps that must follow a request's own mounts in a pooled jail,
#      alone, and their sum: pivot_root after the spec's mounts, Landlock
#      (the spec's rules), rlimits and user counts, privileges, seccomp
#      (both programs), fork of the target (kernel-steps -s STEP).
# Every value is the median over BENCH_COSTS_ROUNDS rounds of each round's
# median of BENCH_COSTS_RUNS runs; a round measures every row once.
#
# Environment: HUTCH, HUTCH_EXEC as for run.sh; BWRAP (default: bwrap on
# PATH); BENCH_COSTS_AS (users; as root "root nobody", the second through
# setpriv); BENCH_COSTS_RUNS (default 40); BENCH_COSTS_ROUNDS (default 5);
# BENCH_CPUID (CPUIDs timed a round, in batches of 100, default 2000); CC.
# Needs python3.
# Its aids compile this checkout's shared/spec-codec.c and
# helper/base-filter.c: run it on a tree that matches the binaries.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
bench=costs # steps-lib.sh: our name in messages and $tmp
# shellcheck source=SCRIPTDIR/steps-lib.sh
. "$here/steps-lib.sh"
runs=${BENCH_COSTS_RUNS:-40}
rounds=${BENCH_COSTS_ROUNDS:-5}
users=$(bench_users "${BENCH_COSTS_AS:-}")
bwrap=${BWRAP:-$(command -v bwrap || true)}

build_aids
$cc -O2 -o "$tmp/cpuid-cost" "$here/cpuid-cost.c"
printf 'int main(void) { return 0; }\n' >"$tmp/noop.c"
$cc -O2 -static -o "$tmp/noop-glibc-static" "$tmp/noop.c"
$cc -O2 -o "$tmp/noop-glibc-dynamic" "$tmp/noop.c"
# The start-up variants, "::"-separated, for bench-spawn.
set -- glibc-static "$tmp/noop-glibc-static"
if command -v musl-gcc >/dev/null 2>&1; then
	musl-gcc -O2 -static -o "$tmp/noop-musl-static" "$tmp/noop.c"
	set -- "$@" :: musl-static "$tmp/noop-musl-static"
else
	echo "musl-static: no musl-gcc" >"$tmp/skipped"
fi
set -- "$@" :: glibc-dynamic "$tmp/noop-glibc-dynamic" :: hutch--version "$hutch" --version
if [ -n "$bwrap" ] && [ -x "$bwrap" ]; then
	set -- "$@" :: bwrap--version "$bwrap" --version
else
	echo "bwrap--version: no bwrap" >>"$tmp/skipped"
fi
set -- "$@" :: true /bin/true
chmod -R a+rX "$tmp"

tree=mount_private,binds_dir,binds_file,root,tmpfs,proc,devpts,files,pivot_root

# usr_plan PLAN M: PLAN's ids, limits and cwd with M read-only binds of
# /usr in place of its mounts.
usr_plan() {
	grep -v '^mount ' "$1"
	i=0
	while [ "$i" -lt "$2" ]; do
		echo "mount 1 2 0 0 0 0 /usr /u/$i"
		i=$((i + 1))
	done
}

# row R GROUP NAME COMMAND...: "R GROUP NAME WALL CPU" from a command that
# prints "WALL CPU" (floor -t) or "STEP WALL CPU" (kernel-steps)
row() {
	r=$1 g=$2 n=$3
	shift 3
	"$@" | awk -v p="$r $g $n" 'NF == 2 { print p, $1, $2 } NF == 3 { print p, $2, $3 }'
}

measure() { # user variants...: leaves $dir/spawn.R.json, costs.txt
	user=$1
	shift
	dir=$tmp/$user
	mkdir "$dir"
	bench_user costs "$user" "$dir" || return 1
	cd "$dir"
	capture_plan "costs: $user" "$dir" "$tmp/spec-plan" || return 1
	# the mounts the kernel makes for the spec: binds whose source is
	# there, tmpfs, proc, devpts
	m=$(awk '$1 == "mount" && ($2 == 2 || $2 == 3 || $2 == 7) { n++ }
		$1 == "mount" && $2 == 1 { print $8 }
		END { print "count", n + 0 }' "$dir/plan.txt" | {
		n=0
		while read -r p c; do
			if [ "$p" = count ]; then echo $((n + c)); elif [ -e "$p" ]; then n=$((n + 1)); fi
		done
	})
	echo "$m" >"$dir/mounts"
	usr_plan "$dir/plan.txt" "$m" >"$dir/usr-plan.txt"
	ks="$as $tmp/kernel-steps -f $dir/filter.bin -b $dir/base.bin -n $runs -w 3 -p"
	r=1
	while [ "$r" -le "$rounds" ]; do
		note "costs: $user: round $r of $rounds"
		# shellcheck disable=SC2086 # $as is words
		$as "$tmp/bench-spawn" -q -n "$runs" -w 3 -j "$dir/spawn.$r.json" "$@" >/dev/null
		# shellcheck disable=SC2086 # $as and $ks are words
		{
			echo "$r cpuid leaf4 $("$tmp/cpuid-cost" "${BENCH_CPUID:-2000}") -"
			row "$r" floor clone $as "$tmp/floor" -t -x -n "$runs" /bin/true
			row "$r" floor exec $as "$tmp/floor" -t -F -n "$runs" /bin/true
			row "$r" floor floor1 $as "$tmp/floor" -t -n "$runs" /bin/true
			row "$r" teardown bare $ks "$dir/plan.txt" -s teardown
			row "$r" teardown empty $ks "$dir/plan.txt" -s teardown -W mount_private,root,pivot_root
			row "$r" teardown spec $ks "$dir/plan.txt" -s teardown -W "$tree"
			row "$r" teardown usr $ks "$dir/usr-plan.txt" -s teardown -W "$tree"
			$ks "$dir/plan.txt" -a | sed -n "s/^teardown /$r teardown jail /p"
			row "$r" tail pivot_root $ks "$dir/plan.txt" -s pivot_root -W "$tree"
			for s in landlock rlimits privileges seccomp fork; do
				row "$r" tail "$s" $ks "$dir/plan.txt" -s "$s"
			done
		} >>"$dir/costs.txt"
		r=$((r + 1))
	done
	cd "$tmp"
}

for u in $users; do
	measure "$u" "$@" || exit 1
done

note "costs: $(date -u +%Y-%m-%dT%H:%M:%SZ) kernel=$(uname -r) cpus=$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo '?') load=$(cut -d' ' -f1-3 /proc/loadavg)"
note "costs: hutch=$hutch bwrap=${bwrap:-none}; $rounds rounds of $runs runs"
for u in $users; do
	python3 "$here/costs-table.py" "$u" "$tmp/$u" "$tmp/skipped"
done
