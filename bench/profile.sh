#!/bin/sh
# bench/profile.sh: where does `hutch run -- /bin/true` spend its time?
# Attribution by ablation, measured the same way as bench/run.sh (one
# interleaved run, medians), plus the frontend's seccomp compilation timed
# in-process. A profiling aid, not a test; see bench/README.
#
# Variants (all side by side):
#   plain, static     /bin/true, and a static no-op (the cost of one exec)
#   frontend          hutch with a static stand-in for hutch-exec that
#                     exits at once: the frontend alone plus one exec
#   hutch             the whole thing
#   helper            hutch-exec alone, replaying the frontend's spec
#   helper-X          the same spec with feature X switched off
#                     (bench/spec-ablate.c): -net -seccomp -landlock -dev
#                     -etc -ipc/uts/cgroup, min-mounts (only /usr, the
#                     merged-/usr links, /proc and the working directory),
#                     bare (min-mounts and no net, seccomp, Landlock)
#   unshare, unshare-nonet  util-linux references
# The builds of the aids compile the tree's shared/spec-codec.c and
# frontend/jail/filter.c unchanged, so they follow the sources in this checkout
# (which must match the binaries measured).
#
# Then the breakdown the runs report themselves: the median of each step of
# jail.timings (hutch(1), RESULT DOCUMENT) over BENCH_TIMINGS_RUNS runs of
# `hutch run --json -- /bin/true` (default 50), with its share of their sum;
# measured inside the run on CLOCK_MONOTONIC, so it needs no ablation and
# holds on a loaded machine better than whole-process wall times do.
#
# Environment: HUTCH, HUTCH_EXEC, BENCH_ITERS (default 200), BENCH_WARMUP,
# BENCH_JSON as for run.sh; CC; BENCH_TIMINGS_RUNS; BENCH_TIMINGS_ONLY=1 for
# the breakdown alone.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
src=$(dirname "$here")
tmp=$(mktemp -d "${TMPDIR:-/tmp}/hutch-profile.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM
cc=${CC:-cc}
note() { printf '%s\n' "$*" >&2; }

. "$here/find-hutch.sh"
find_hutch profile

# breakdown: medians of jail.timings over BENCH_TIMINGS_RUNS runs.
breakdown() {
	runs=${BENCH_TIMINGS_RUNS:-50}
	if ! command -v python3 >/dev/null 2>&1; then
		note "profile: no python3: no jail.timings breakdown"
		return 0
	fi
	i=0
	while [ "$i" -lt "$runs" ]; do
		"$hutch" run --json -- /bin/true </dev/null || return 1
		i=$((i + 1))
	done >"$tmp/timings.jsonl"
	python3 - "$tmp/timings.jsonl" >&2 <<'PYEOF'
import json, statistics, sys
rows = [json.loads(l)["jail"].get("timings") or {} for l in open(sys.argv[1])]
rows = [r for r in rows if r]
if not rows:
    sys.exit("profile: no run reported jail.timings (an older hutch?)")
keys = list(rows[0])
med = {k: statistics.median(r.get(k, 0) for r in rows) for k in keys}
# the probe gate reads a cached verdict except on a digest's first run
total = sum(med.values())
print("profile: jail.timings of `hutch run -- /bin/true`, median of %d runs (us):" % len(rows))
for k in keys:
    print("  %-18s %8.0f  %5.1f%%" % (k[:-3], med[k], 100.0 * med[k] / total if total else 0))
print("  %-18s %8.0f" % ("sum of medians", total))
PYEOF
}
if [ "${BENCH_TIMINGS_ONLY:-0}" = 1 ]; then
	breakdown
	exit
fi

mkdir "$tmp/inc"
echo '#define _GNU_SOURCE 1' >"$tmp/inc/config.h"
$cc -O2 -o "$tmp/bench-spawn" "$here/bench-spawn.c" -lm
printf 'int main(void) { return 0; }\n' >"$tmp/noop.c"
$cc -O2 -static -o "$tmp/noop-static" "$tmp/noop.c" 2>/dev/null ||
	$cc -O2 -o "$tmp/noop-static" "$tmp/noop.c"
$cc -O2 -I"$tmp/inc" -I"$src/shared" -o "$tmp/spec-ablate" "$here/spec-ablate.c" \
	"$src/shared/spec-codec.c"
have_filter_cost=1
$cc -O2 -I"$tmp/inc" -I"$src/shared" -I"$src/frontend" -DHUTCH_VERSION='"bench"' \
	-o "$tmp/filter-cost" "$here/filter-cost.c" "$src/frontend/jail/filter.c" \
	"$src/frontend/jail/filter-prefix.c" "$src/frontend/jail/cache.c" \
	"$src/frontend/doc/path-util.c" "$src/frontend/doc/syscall-names.c" \
	"$src/shared/fd-util.c" -lseccomp -lnettle || have_filter_cost=0

# The spec, captured by standing in for the helper (see run.sh): each
# copy is handed on to the real helper, so the probe's canary passes, and
# the last one kept is the command's own (the canary may run meanwhile:
# hutch starts its helper before it knows whether a canary is due).
cat >"$tmp/capture" <<EOF
#!/bin/sh
/bin/cat <&3 >'$tmp/spec.'\$\$ && /bin/mv '$tmp/spec.'\$\$ '$tmp/spec.bin'
exec '$helper' 3<'$tmp/spec.bin'
EOF
chmod 755 "$tmp/capture"
HUTCH_EXEC="$tmp/capture" "$hutch" run -- /bin/true </dev/null >/dev/null 2>&1 || true
if [ ! -s "$tmp/spec.bin" ]; then
	note "profile: could not capture a spec from $hutch"
	exit 1
fi

# "frontend": a static stand-in for hutch-exec that exits 0 at once. The
# probe verdict is per digest, which names the helper, so the stand-in
# first hands everything to the real helper (the canary, the command) and
# stops doing so only once $tmp/standin.off exists.
cat >"$tmp/standin.c" <<EOF
#include <unistd.h>
int main(void)
{
	char *argv[] = { "hutch-exec", 0 }, *envp[] = { 0 };

	if (access("$tmp/standin.off", F_OK) == 0)
		return 0;
	execve("$helper", argv, envp);
	return 71;
}
EOF
$cc -O2 -static -o "$tmp/standin" "$tmp/standin.c" 2>/dev/null ||
	$cc -O2 -o "$tmp/standin" "$tmp/standin.c"
HUTCH_EXEC="$tmp/standin" "$hutch" run -- /bin/true </dev/null >/dev/null 2>&1 ||
	note "profile: frontend: the stand-in's first run failed; that variant will be skipped"
: >"$tmp/standin.off"

note "profile: $(date -u +%Y-%m-%dT%H:%M:%SZ) uid=$(id -u) kernel=$(uname -r) cpus=$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo '?')"
note "profile: hutch=$hutch helper=$helper"
"$tmp/spec-ablate" -v <"$tmp/spec.bin" >/dev/null

ablate() { # name flags...
	name=$1
	shift
	"$tmp/spec-ablate" "$@" <"$tmp/spec.bin" >"$tmp/$name.bin"
}
ablate net -n
ablate seccomp -s
ablate landlock -l
ablate dev -d
ablate etc -e
ablate iuc -i -u -c
ablate min -m
ablate bare -m -n -s -l

h() { # variant name, spec file; fd 6: the control socket, on which the
	# helper sends its seccomp listener
	echo ":: $1 3<$2 4>/dev/null 6=socket $helper"
}

opts="-n ${BENCH_ITERS:-200} -w ${BENCH_WARMUP:-20}"
case ${BENCH_JSON:-} in
'' | 0) ;;
1) opts="$opts -j -" ;;
*) opts="$opts -j $BENCH_JSON" ;;
esac

cd "$tmp"
# shellcheck disable=SC2046,SC2086 # word splitting wanted
"$tmp/bench-spawn" $opts -b plain \
	plain /bin/true \
	:: static "$tmp/noop-static" \
	:: frontend "HUTCH_EXEC=$tmp/standin" "$hutch" run -- /bin/true \
	:: hutch "$hutch" run -- /bin/true \
	$(h helper "$tmp/spec.bin") \
	$(h helper-net "$tmp/net.bin") \
	$(h helper-seccomp "$tmp/seccomp.bin") \
	$(h helper-landlock "$tmp/landlock.bin") \
	$(h helper-dev "$tmp/dev.bin") \
	$(h helper-etc "$tmp/etc.bin") \
	$(h helper-iuc "$tmp/iuc.bin") \
	$(h helper-minmnt "$tmp/min.bin") \
	$(h helper-bare "$tmp/bare.bin") \
	:: unshare /usr/bin/unshare -Urnpf --mount-proc /bin/true \
	:: unshare-nonet /usr/bin/unshare -Urpf --mount-proc /bin/true

if [ "$have_filter_cost" = 1 ]; then
	"$tmp/filter-cost" 100 >&2
else
	note "profile: filter-cost not built (libseccomp headers missing?)"
fi
breakdown || note "profile: the jail.timings breakdown failed"
cat >&2 <<'EOF'
profile: reading it: hutch - frontend = the helper's share plus one exec;
frontend - static = the frontend's own work; helper - helper-X = the cost
of feature X in the helper.
EOF
