#!/bin/sh
# bench/run.sh: the benchmark table in one run. Start latency of a jailed
# /bin/true, hutch against plain fork/exec, unshare(1) and bubblewrap,
# interleaved; then 1 GiB of pass-through against a plain pipe
# (throughput.sh); then the serve rows (serve.sh, when the tree has it).
# Everything as ratios to a reference measured in the same run. See
# bench/README. Not a test: it never fails on slow numbers.
#
# Environment:
#   HUTCH         the frontend (default: hutch on PATH, else /tmp/b/hutch)
#   HUTCH_EXEC    the helper (default: hutch-exec next to $HUTCH, if any)
#   BWRAP         bubblewrap (default: bwrap on PATH)
#   UNSHARE       util-linux unshare (default: unshare on PATH)
#   BENCH_ITERS   timed rounds (default 300)
#   BENCH_WARMUP  untimed rounds first (default 20)
#   BENCH_JSON    1: JSON on stdout (table on stderr); a path: table on
#                 stdout and JSON written to that file
#   BENCH_RAW     1: include every sample in the JSON
#   BENCH_HELPER  0: leave out the hutch-exec-only variant
#   BENCH_PASS    0: leave out pass-through; BENCH_PASS_SIZE (default 1G)
#                 and BENCH_PASS_ROUNDS (default 5) go to throughput.sh
#   BENCH_SERVE   0: leave out the serve rows (bench/serve.sh)
#   CC            compiler for the driver (default cc)
set -eu

here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/hutch-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM

iters=${BENCH_ITERS:-300}
warmup=${BENCH_WARMUP:-20}
json=${BENCH_JSON:-}
true_bin=/bin/true

note() { printf '%s\n' "$*" >&2; }

${CC:-cc} -O2 -o "$tmp/bench-spawn" "$here/bench-spawn.c" -lm
sh "$here/build-floor.sh" "$tmp/floor"

# Absolute path of a tool: $1 = override, $2 = name, $3 = fallback path
# (passed on even if absent, so the driver reports the variant as skipped).
find_tool() {
	if [ -n "$1" ]; then
		printf '%s\n' "$1"
	elif command -v "$2" >/dev/null 2>&1; then
		command -v "$2"
	else
		printf '%s\n' "$3"
	fi
}

hutch=$(find_tool "${HUTCH:-}" hutch /tmp/b/hutch)
case $hutch in /*) ;; *) hutch=$(cd "$(dirname "$hutch")" && pwd)/$(basename "$hutch") ;; esac
if [ -z "${HUTCH_EXEC:-}" ] && [ -x "$(dirname "$hutch")/hutch-exec" ]; then
	HUTCH_EXEC=$(dirname "$hutch")/hutch-exec
	export HUTCH_EXEC
fi
unshare=$(find_tool "${UNSHARE:-}" unshare /usr/bin/unshare)
bwrap=$(find_tool "${BWRAP:-}" bwrap /usr/bin/bwrap)

# The helper the frontend will run: $HUTCH_EXEC, else the path compiled
# into the frontend.
helper=${HUTCH_EXEC:-}
if [ -z "$helper" ] && [ -r "$hutch" ]; then
	helper=$(grep -ao '/[[:alnum:]_./+-]*/hutch-exec' "$hutch" 2>/dev/null | head -n 1 || true)
fi

note "bench: $(date -u +%Y-%m-%dT%H:%M:%SZ) uid=$(id -u) kernel=$(uname -r) cpus=$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo '?')"
note "bench: hutch=$hutch helper=${helper:-?} unshare=$unshare bwrap=$bwrap"
note "bench: $iters rounds after $warmup warm-up rounds, interleaved"

# Variants, "::"-separated, built in the positional parameters.
set -- plain "$true_bin"

if [ -x "$unshare" ] && ! "$unshare" --version 2>/dev/null | grep -q util-linux; then
	note "bench: $unshare is not util-linux unshare; the unshare variant may fail"
fi
set -- "$@" :: unshare "$unshare" -Urnpf --mount-proc "$true_bin"

# bubblewrap, strict: every namespace, /usr read-only, the host's merged-/usr
# symlinks mirrored (a directory where the host has one), fresh /proc, /dev
# and /tmp.
set -- "$@" :: bwrap "$bwrap" --unshare-all --die-with-parent --new-session --cap-drop ALL \
	--ro-bind /usr /usr
for d in /bin /lib /lib32 /lib64 /libx32 /sbin; do
	if [ -L "$d" ]; then
		set -- "$@" --symlink "$(readlink "$d")" "$d"
	elif [ -d "$d" ]; then
		set -- "$@" --ro-bind "$d" "$d"
	fi
done
set -- "$@" --proc /proc --dev /dev --tmpfs /tmp "$true_bin"

# The floor: the same fresh namespaces, nothing else (floor.c).
set -- "$@" :: floor "$tmp/floor" "$true_bin"

set -- "$@" :: hutch "$hutch" run -- "$true_bin"

# hutch-exec alone: the spec the frontend sends for this very command,
# captured once by standing in for the helper (which then runs the real
# one), then replayed on fd 3 with
# the status pipe (fd 4) to /dev/null and a fresh control socket on fd 6
# (the helper sends its seccomp listener there). The difference to "hutch" is the
# frontend's own cost (loading, seccomp compilation, pipes, supervision).
if [ "${BENCH_HELPER:-1}" != 0 ]; then
	if [ -n "$helper" ] && [ -x "$helper" ] && [ -x "$hutch" ]; then
		# A stand-in that keeps a copy of each spec and hands it on to the
		# real helper, so the frontend's probe passes and the last spec
		# kept is the one for the command itself (hutch starts its helper
		# before it knows whether the canary runs: copies may overlap).
		cat >"$tmp/capture" <<EOF
#!/bin/sh
/bin/cat <&3 >'$tmp/spec.'\$\$ && /bin/mv '$tmp/spec.'\$\$ '$tmp/spec.bin'
exec '$helper' 3<'$tmp/spec.bin'
EOF
		chmod 755 "$tmp/capture"
		XDG_CACHE_HOME="$tmp" HUTCH_EXEC="$tmp/capture" "$hutch" run -- "$true_bin" \
			</dev/null >/dev/null 2>&1 || true
		if [ -s "$tmp/spec.bin" ]; then
			set -- "$@" :: hutch-exec "3<$tmp/spec.bin" "4>/dev/null" "6=socket" "$helper"
		else
			note "bench: hutch-exec: skipped (could not capture a spec from $hutch)"
		fi
	else
		note "bench: hutch-exec: skipped (no helper found; set HUTCH_EXEC)"
	fi
fi

opts="-n $iters -w $warmup"
spawn_json=$tmp/spawn.json
case $json in
'' | 0) opts="$opts -j $spawn_json" ;;
1) opts="$opts -j -" spawn_json= ;;
*) opts="$opts -j $json" spawn_json=$json ;;
esac
[ "${BENCH_RAW:-0}" = 1 ] && opts="$opts -r"

(
	cd "$tmp"
	# shellcheck disable=SC2086 # opts is split on purpose
	"$tmp/bench-spawn" $opts -b plain "$@"
)

# The medians of one run, side by side: the issue's ratios.
median_of() { # variant name -> its median in the JSON, or nothing
	[ -n "$spawn_json" ] && [ -r "$spawn_json" ] || return 0
	sed -n "s/.*\"name\": \"$1\",.*\"median\": \([0-9.]*\),.*/\1/p" "$spawn_json"
}
p=$(median_of plain) b=$(median_of bwrap) h=$(median_of hutch) x=$(median_of hutch-exec)
f=$(median_of floor)
{
	printf '\nstart-up, same run:'
	[ -n "$h" ] && [ -n "$b" ] && awk -v h="$h" -v b="$b" 'BEGIN { printf " hutch %.2fx bwrap strict;", h / b }'
	[ -n "$f" ] && [ -n "$b" ] && awk -v f="$f" -v b="$b" 'BEGIN { printf " the namespace floor %.2fx bwrap strict;", f / b }'
	[ -n "$x" ] && [ -n "$p" ] && awk -v x="$x" -v p="$p" 'BEGIN { printf " hutch-exec alone %.1fx plain;", x / p }'
	[ -n "$h" ] && [ -n "$x" ] && awk -v h="$h" -v x="$x" 'BEGIN { printf " the frontend adds %.0f us", h - x }'
	printf '\n'
} >&2

if [ "${BENCH_PASS:-1}" != 0 ]; then
	note ""
	note "pass-through (throughput.sh):"
	HUTCH=$hutch BENCH_SIZE=${BENCH_PASS_SIZE:-1G} BENCH_ROUNDS=${BENCH_PASS_ROUNDS:-5} \
		sh "$here/throughput.sh" >&2 || note "bench: pass-through failed"
fi

if [ "${BENCH_SERVE:-1}" != 0 ]; then
	note ""
	if [ -r "$here/serve.sh" ]; then
		note "serve (serve.sh):"
		HUTCH=$hutch sh "$here/serve.sh" >&2 || note "bench: serve.sh failed"
	else
		note "serve: skipped (no bench/serve.sh in this tree)"
	fi
fi
