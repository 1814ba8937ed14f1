#!/bin/sh
# bench/throughput.sh: bulk output through hutch's pass-through against a
# plain pipe, interleaved in one run: `head -c SIZE /dev/zero | wc -c` with
# and without `hutch run --` in front of head. Reports the median of each
# and the ratio. A benchmark, not a test.
#   HUTCH          the frontend (default: hutch on PATH)
#   BENCH_SIZE     bytes per run (default 1G)
#   BENCH_ROUNDS   rounds (default 7)
set -eu
hutch=${HUTCH:-$(command -v hutch || true)}
size=${BENCH_SIZE:-1G}
rounds=${BENCH_ROUNDS:-7}
[ -x "$hutch" ] || { echo "bench: no hutch (set HUTCH)" >&2; exit 1; }

now_us() { echo $(($(date +%s%N) / 1000)); }
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

plain=$(mktemp) jailed=$(mktemp)
trap 'rm -f "$plain" "$jailed"' EXIT
i=0
while [ "$i" -lt "$rounds" ]; do
	t=$(now_us)
	n=$(head -c "$size" /dev/zero | wc -c)
	echo $(($(now_us) - t)) >>"$plain"
	t=$(now_us)
	m=$("$hutch" run --max-output 64G -- head -c "$size" /dev/zero | wc -c)
	echo $(($(now_us) - t)) >>"$jailed"
	[ "$n" = "$m" ] || { echo "bench: byte counts differ: $n vs $m" >&2; exit 1; }
	i=$((i + 1))
done
p=$(median <"$plain")
j=$(median <"$jailed")
echo "plain pipe: median ${p}us for $size"
echo "hutch pass-through: median ${j}us for $size"
awk -v p="$p" -v j="$j" 'BEGIN { printf "hutch pass-through: %.2fx a plain pipe\n", j / p }'
