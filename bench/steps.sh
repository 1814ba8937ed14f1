#!/bin/sh
# bench/steps.sh: each step of hutch's jail.timings beside the kernel's own
# cost of that step, measured alone (bench/kernel-steps.c), so that what is
# hutch's own overhead and what any jail with the same properties pays can
# be told apart. A benchmark, not a test; see bench/README.
#
# For each user (BENCH_STEPS_AS; as root the default is "root nobody", the
# second through setpriv, as serve.sh's BENCH_SERVE_AS does):
#   1. the spec hutch sends its helper for `hutch run -- /bin/true` is
#      captured (a stand-in helper copies fd 3, as profile.sh does) and
#      turned into kernel-steps' plan and filters (spec-plan.c): the same
#      mounts of the same host paths, the same Landlock rules, the same
#      seccomp programs (the spec's and the helper's base filter);
#   2. BENCH_STEPS_ROUNDS rounds, each: BENCH_STEPS_RUNS runs of
#      `hutch run --json -- /bin/true` (their jail.timings), as many of
#      hutch-exec alone replaying the spec (replay-timings.py: the same
#      record without the frontend running beside it), then every
#      step alone in kernel-steps (BENCH_STEPS_RUNS fresh jails per step),
#      then the whole minimal jail (kernel-steps -a), then the namespace
#      sets one by one (clone and teardown); a value is the median over
#      the rounds of each round's median, so a noisy minute lands on both
#      sides;
#   3. the totals: bench-spawn (run.sh's driver) of floor.c, hutch and
#      hutch-exec replaying the captured spec, interleaved, BENCH_ITERS
#      rounds.
# Then one table per user.
#
# Environment: HUTCH, HUTCH_EXEC as for run.sh; BENCH_STEPS_AS (users);
# BENCH_STEPS_RUNS (default 40); BENCH_STEPS_ROUNDS (default 5);
# BENCH_ITERS (default 100), BENCH_WARMUP (default 10) for the totals;
# CC. Needs python3 for the tables. Its aids compile this checkout's
# shared/spec-codec.c and helper/base-filter.c: run it on a tree that
# matches the binaries measured.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
bench=steps # steps-lib.sh: our name in messages and $tmp
# shellcheck source=SCRIPTDIR/steps-lib.sh
. "$here/steps-lib.sh"
runs=${BENCH_STEPS_RUNS:-40}
rounds=${BENCH_STEPS_ROUNDS:-5}
users=$(bench_users "${BENCH_STEPS_AS:-}")
build_aids

# The steps in jail.timings' order; teardown is kernel-steps' own.
steps="prepare clone id_maps mount_private binds_dir binds_file root tmpfs proc devpts files
pivot_root network landlock rlimits privileges session seccomp fork exec teardown"
# CLONE_NEW*: user 0x10000000, mnt 0x20000, pid 0x20000000, net 0x40000000,
# ipc 0x8000000, uts 0x4000000, cgroup 0x2000000
nsets="user:0x10000000 user+mnt:0x10020000 user+pid:0x30000000 user+net:0x50000000
user+ipc:0x18000000 user+uts:0x14000000 user+cgroup:0x12000000
all-but-net:0x3e020000 all:0x7e020000"

measure() { # user: leaves $dir/{timings,helper}.jsonl, ks.txt, totals.json
	user=$1
	dir=$tmp/$user
	mkdir "$dir"
	bench_user steps "$user" "$dir" || return 1
	# python3 for that user: a root's one may live where nobody can read
	py=$(command -v python3)
	if ! $as "$py" -c '' 2>/dev/null; then
		py=/usr/bin/python3
	fi
	cd "$dir"
	capture_plan "steps: $user" "$dir" "$tmp/spec-plan" || return 1
	ks="$as $tmp/kernel-steps -p $dir/plan.txt -f $dir/filter.bin -b $dir/base.bin -n $runs -w 3"
	r=1
	while [ "$r" -le "$rounds" ]; do
		note "steps: $user: round $r of $rounds"
		i=0
		while [ "$i" -lt "$runs" ]; do
			$as "$hutch" run --json -- /bin/true </dev/null >"$dir/one.json" || return 1
			printf '%s ' "$r" >>"$dir/timings.jsonl"
			cat "$dir/one.json" >>"$dir/timings.jsonl"
			i=$((i + 1))
		done
		$as "$py" "$here/replay-timings.py" "$dir/spec.bin" "$helper" "$runs" \
			>"$dir/replay.jsonl" || return 1
		sed "s/^/$r /" "$dir/replay.jsonl" >>"$dir/helper.jsonl"
		{
			for s in $steps; do
				$ks -s "$s" | sed "s/^/$r alone /"
			done
			$ks -a | sed "s/^/$r seq /"
			for ns in $nsets; do
				for s in clone teardown; do
					$ks -s "$s" -c "${ns#*:}" | sed "s/^/$r ns:${ns%%:*} /"
				done
			done
		} >>"$dir/ks.txt"
		r=$((r + 1))
	done
	note "steps: $user: totals, ${BENCH_ITERS:-100} interleaved rounds"
	# shellcheck disable=SC2086 # $as is words
	$as "$tmp/bench-spawn" -q -n "${BENCH_ITERS:-100}" -w "${BENCH_WARMUP:-10}" \
		-j "$dir/totals.json" \
		floor "$tmp/floor" /bin/true \
		:: hutch "$hutch" run -- /bin/true \
		:: hutch-exec "3<$dir/spec.bin" "4>/dev/null" 6=socket "$helper" >/dev/null
	cd "$tmp"
}

for u in $users; do
	measure "$u" || exit 1
done

note "steps: $(date -u +%Y-%m-%dT%H:%M:%SZ) kernel=$(uname -r) cpus=$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo '?') load=$(cut -d' ' -f1-3 /proc/loadavg)"
note "steps: hutch=$hutch helper=$helper"
for u in $users; do
	python3 "$here/steps-table.py" "$u" "$tmp/$u"
done
