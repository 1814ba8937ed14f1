#!/bin/sh
# bench/serve.sh: `hutch serve` throughput, /bin/true per run, driven by
# the C client (hutch-client --count N --in-flight K): runs/s with 1, 8
# and 64 in flight on one connection, and with 8 and 64 connections of 1
# in flight each; beside it the CLI (`hutch run -- /bin/true`, one after
# the other) as ms per run, against serve's ms per run at 1 in flight.
# Rounds interleave the shapes (and the variants, with HUTCH_BASE), so a
# noisy minute hits all alike; medians are reported, and with floor8 among
# the shapes every row also as a ratio to the floor of the same round (the
# median of the per-round ratios; the CLI's microseconds as runs/s first),
# which is what stays comparable between a quiet and a loaded machine.
# With floor1 among the shapes (floor.c one at a time), serve's latency
# at 1 in flight is also given per run beside the floor's one-at-a-time
# latency, as the median of the per-round ratios (below 1.00x: a run
# through the server is faster than the bare clone it cannot avoid
# without a pool).
# Every serve shape is measured once per --pool value of BENCH_POOLS (a
# server each, same round): "unpooled" (--pool 0, every jail cloned for
# its request) and "pool N" (jails cloned before they are asked for,
# hutch-exec(8) FORKSERVER). A root server pools nothing: as root, set
# BENCH_SERVE_AS=nobody (setpriv) to measure the pool; the servers of
# every row then run as that user.
# A benchmark, not a test: it fails only when a run does not exit 0.
#   HUTCH          the frontend (default: hutch on PATH)
#   HUTCH_EXEC     its helper (default: hutch-exec next to it, if any)
#   HUTCH_CLIENT   the C client (default: next to HUTCH (build tree:
#                  examples/hutch-client), else hutch-client on PATH)
#   HUTCH_BASE     a second frontend to compare with (e.g. an older build);
#                  HUTCH_BASE_EXEC its helper (default: next to it)
#   BENCH_RUNS     runs per measurement (default 400)
#   BENCH_ROUNDS   rounds (default 5)
#   BENCH_POOLS    --pool values of the serve rows (default "0 4")
#   BENCH_SERVE_AS a user the servers run as (setpriv; root only)
#   BENCH_SHAPES   which, of: cli c1x1 c1x8 c1x64 c8x1 c64x1 floor8 floor1
#                  (default all; floor8 is floor.c's fresh namespaces
#                  and nothing else, 8 at a time: what no server that
#                  gives each run fresh namespaces can exceed here;
#                  floor1 the same one at a time, bench/run.sh's floor
#                  without the exec of floor itself per run)
set -eu
hutch=${HUTCH:-$(command -v hutch || true)}
[ -x "$hutch" ] || { echo "bench: no hutch (set HUTCH)" >&2; exit 1; }
next_to() { # next_to FRONTEND NAME: NAME beside FRONTEND, or empty
	d=$(dirname "$1")
	for f in "$d/$2" "$d/examples/$2" "$d/../libexec/hutch/$2"; do
		[ -x "$f" ] && { echo "$f"; return; }
	done
}
client=${HUTCH_CLIENT:-$(next_to "$hutch" hutch-client)}
client=${client:-$(command -v hutch-client || true)}
[ -x "$client" ] || { echo "bench: no hutch-client (set HUTCH_CLIENT)" >&2; exit 1; }
runs=${BENCH_RUNS:-400}
rounds=${BENCH_ROUNDS:-5}
shapes=${BENCH_SHAPES:-cli c1x1 c1x8 c1x64 c8x1 c64x1 floor8 floor1}
variants="new"
pools=${BENCH_POOLS:-0 4}
as_user=
client_as=
if [ -n "${BENCH_SERVE_AS:-}" ]; then
	uid=$(id -u "$BENCH_SERVE_AS") && gid=$(id -g "$BENCH_SERVE_AS") ||
		{ echo "bench: BENCH_SERVE_AS: no user $BENCH_SERVE_AS" >&2; exit 1; }
	as_user="setpriv --reuid=$uid --regid=$gid --clear-groups --"
	client_as="--expect-uid $uid"	# the server is that user, not us
fi
[ -n "${HUTCH_BASE:-}" ] && variants="base new"

tmp=$(mktemp -d)
mkdir "$tmp/s"	# the servers' sockets: theirs to create
if [ -n "$as_user" ]; then
	chmod 711 "$tmp"
	chown "$uid:$gid" "$tmp/s"
fi
sh "$(dirname "$0")/build-floor.sh" "$tmp/floor"
srv_pid=
cleanup() {
	[ -n "$srv_pid" ] && kill "$srv_pid" 2>/dev/null && wait "$srv_pid" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT INT TERM

now_us() { echo $(($(date +%s%N) / 1000)); }
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

frontend_of() { if [ "$1" = base ]; then echo "$HUTCH_BASE"; else echo "$hutch"; fi; }
helper_of() {
	if [ "$1" = base ]; then
		echo "${HUTCH_BASE_EXEC:-$(next_to "$HUTCH_BASE" hutch-exec)}"
	else
		echo "${HUTCH_EXEC:-$(next_to "$hutch" hutch-exec)}"
	fi
}

# serve_up VARIANT POOL: a server on $tmp/VARIANT.sock with --pool POOL,
# bounds wide enough for 64 in flight on one connection and 64
# connections.
serve_up() {
	rm -f "$tmp/s/$1.sock"
	HUTCH_EXEC=$(helper_of "$1") $as_user "$(frontend_of "$1")" serve --socket "$tmp/s/$1.sock" \
		--mode 0666 --max-runs 64 --max-total 128 --max-conn-per-uid 64 --pool "$2" \
		2>>"$tmp/serve.log" &
	srv_pid=$!
	i=0
	until "$client" $client_as --socket "$tmp/s/$1.sock" ping >/dev/null 2>&1; do
		i=$((i + 1))
		[ "$i" -lt 100 ] || { echo "bench: $1: the server did not come up" >&2; exit 1; }
		sleep 0.05
	done
	# Warm up: the probe and the caches, outside the numbers.
	"$client" $client_as --socket "$tmp/s/$1.sock" --count 20 --in-flight 4 run -- /bin/true >/dev/null 2>&1
}

serve_down() {
	kill "$srv_pid" 2>/dev/null || true
	wait "$srv_pid" 2>/dev/null || true
	srv_pid=
}

# rate SOCK CONNS INFLIGHT: runs/s of $runs runs over CONNS connections.
rate() {
	per=$(($runs / $2))
	t=$(now_us)
	k=0
	pids=
	while [ "$k" -lt "$2" ]; do
		"$client" $client_as --socket "$1" --count "$per" --in-flight "$3" run -- /bin/true \
			>/dev/null 2>"$tmp/client.$k" &
		pids="$pids $!"
		k=$((k + 1))
	done
	for p in $pids; do
		wait "$p" || true
	done
	us=$(($(now_us) - t))
	ok=$(cat "$tmp"/client.* | sed -n 's/.*(\([0-9]*\) ok).*/\1/p' | awk '{s+=$1} END {print s+0}')
	[ "$ok" = $(($per * $2)) ] || { echo "bench: only $ok of $(($per * $2)) runs exited 0" >&2; cat "$tmp"/client.* >&2; exit 1; }
	rm -f "$tmp"/client.*
	echo $(($per * $2 * 1000000 / $us))
}

# cli VARIANT: microseconds per `hutch run -- /bin/true`, one after another.
cli() {
	n=$(($runs / 4))
	f=$(frontend_of "$1")
	h=$(helper_of "$1")
	t=$(now_us)
	i=0
	while [ "$i" -lt "$n" ]; do
		HUTCH_EXEC=$h "$f" run -- /bin/true || { echo "bench: hutch run failed" >&2; exit 1; }
		i=$((i + 1))
	done
	echo $((($(now_us) - t) / $n))
}

r=0
while [ "$r" -lt "$rounds" ]; do
	for v in $variants; do
		for s in $shapes; do
			[ "$s" = cli ] && cli "$v" >>"$tmp/$v.cli"
			[ "$s" = floor8 ] && "$tmp/floor" -n "$runs" -p 8 /bin/true >>"$tmp/$v.floor8"
			[ "$s" = floor1 ] && "$tmp/floor" -n "$runs" -p 1 /bin/true >>"$tmp/$v.floor1"
		done
		for pl in $pools; do
			serve_up "$v" "$pl"
			for s in $shapes; do
				case $s in
				c1x1) rate "$tmp/s/$v.sock" 1 1 ;;
				c1x8) rate "$tmp/s/$v.sock" 1 8 ;;
				c1x64) rate "$tmp/s/$v.sock" 1 64 ;;
				c8x1) rate "$tmp/s/$v.sock" 8 1 ;;
				c64x1) rate "$tmp/s/$v.sock" 64 1 ;;
				*) continue ;;
				esac >>"$tmp/$v.$s.p$pl"
			done
			serve_down
		done
	done
	r=$((r + 1))
done

# label SHAPE [POOL]
label() {
	if [ "${2:-0}" = 0 ]; then pool=unpooled; else pool="pool $2"; fi
	case $1 in
	cli) echo "hutch run, one after another (us per run)" ;;
	c1x1) echo "serve $pool, 1 connection, 1 in flight (runs/s)" ;;
	c1x8) echo "serve $pool, 1 connection, 8 in flight (runs/s)" ;;
	c1x64) echo "serve $pool, 1 connection, 64 in flight (runs/s)" ;;
	c8x1) echo "serve $pool, 8 connections, 1 in flight each (runs/s)" ;;
	c64x1) echo "serve $pool, 64 connections, 1 in flight each (runs/s)" ;;
	floor8) echo "the namespace floor, 8 at a time (runs/s, floor.c)" ;;
	floor1) echo "the namespace floor, one at a time (runs/s, floor.c)" ;;
	esac
}
# floor_ratio VARIANT FILE: the median over rounds of the shape's runs/s
# (file $tmp/VARIANT.FILE) over floor8's of the same round; empty
# without floor8.
floor_ratio() {
	[ -s "$tmp/$1.floor8" ] || return 0
	paste "$tmp/$1.$2" "$tmp/$1.floor8" | awk -v cli="$([ "$2" = cli ] && echo 1)" '
		$1 > 0 && $2 > 0 { print (cli ? 1e6 / $1 : $1) / $2 }' | median
}
# row SHAPE FILE [POOL]: one line, every variant.
row() {
	line="$(label "$1" "${3:-}"):"
	for v in $variants; do
		m=$(median <"$tmp/$v.$2")
		eval "med_$v=$m"
		line="$line $v $m"
		f=$(floor_ratio "$v" "$2")
		[ -n "$f" ] && [ "$1" != floor8 ] && line="$line ($(awk -v f="$f" 'BEGIN { printf "%.2fx", f }') floor)"
	done
	if [ -n "${HUTCH_BASE:-}" ]; then
		line="$line ($(awk -v a="$med_base" -v b="$med_new" 'BEGIN { printf "%.2fx", b / a }') base)"
	fi
	echo "$line"
}
echo "hutch serve benchmark: /bin/true, $runs runs per measurement, median of $rounds rounds"
case " $shapes " in *" floor8 "*) ;; *) echo "(no floor8 among the shapes: no ratios to the floor)" ;; esac
if [ "$(id -u)" = 0 ] && [ -z "$as_user" ]; then
	echo "(servers run as root, which pools nothing: the pool rows are unpooled; set BENCH_SERVE_AS=nobody)"
elif [ -n "$as_user" ]; then
	echo "(servers run as $BENCH_SERVE_AS)"
fi
for s in $shapes; do
	case $s in
	cli | floor8 | floor1) row "$s" "$s" ;;
	*) for p in $pools; do row "$s" "$s.p$p" "$p"; done ;;
	esac
done
has() { case " $shapes " in *" $1 "*) return 0 ;; esac; return 1; }
if has cli && has c1x1; then
	for v in $variants; do
		c=$(median <"$tmp/$v.cli")
		for p in $pools; do
			s=$(median <"$tmp/$v.c1x1.p$p")
			awk -v v="$v" -v c="$c" -v s="$s" -v l="$(label c1x1 "$p" | sed 's/,.*//')" 'BEGIN { printf "%s: per run, %s at 1 in flight %.0f us, the CLI %.0f us: %.2fx\n", v, l, 1e6 / s, c, 1e6 / s / c }'
		done
	done
fi
# Per run at 1 in flight against the floor one at a time: the issue's
# goal for a pooled jail is below 1.00x.
if has floor1 && has c1x1; then
	for v in $variants; do
		f=$(median <"$tmp/$v.floor1")
		for p in $pools; do
			s=$(median <"$tmp/$v.c1x1.p$p")
			r=$(paste "$tmp/$v.c1x1.p$p" "$tmp/$v.floor1" | awk '$1 > 0 && $2 > 0 { print $2 / $1 }' | median)
			awk -v v="$v" -v f="$f" -v s="$s" -v r="$r" -v l="$(label c1x1 "$p" | sed 's/,.*//')" 'BEGIN { printf "%s: per run, %s at 1 in flight %.0f us, the floor one at a time %.0f us: %.2fx\n", v, l, 1e6 / s, 1e6 / f, r }'
		done
	done
fi
