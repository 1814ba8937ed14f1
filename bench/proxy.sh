#!/bin/sh
# bench/proxy.sh: bulk download through network "proxy" (the supervisor's
# proxy, CONNECT-less plain HTTP) against the same download straight over
# the host's loopback and through relay-floor.c (the least relay of the
# proxy's shape: accept, connect, splice both ways, epoll; the kernel's
# floor for any two-hop proxy), interleaved in one run: curl fetches SIZE
# bytes from a server that writes them from memory. Reports curl's own
# transfer rate (start-up of the jail excluded) as medians and their
# ratios. A benchmark, not a test. Needs curl, cc, and python3 for the
# python server.
#   HUTCH          the frontend (default: hutch on PATH)
#   BENCH_POLICY   a policy offering proxy with allow_private (default:
#                  tests/policy/proxy.json next to this script)
#   BENCH_SIZE     bytes per transfer (default 1073741824)
#   BENCH_ROUNDS   rounds (default 3)
#   BENCH_SERVER   c (default: blob-server.c, one copy per byte) or
#                  python (a threaded Python server, the earlier default)
#   CC             compiler for the floor and the server (default cc)
set -eu
hutch=${HUTCH:-$(command -v hutch || true)}
here=$(cd "$(dirname "$0")" && pwd)
pol=${BENCH_POLICY:-$here/../tests/policy/proxy.json}
size=${BENCH_SIZE:-1073741824}
rounds=${BENCH_ROUNDS:-3}
server=${BENCH_SERVER:-c}
[ -x "$hutch" ] || { echo "bench: no hutch (set HUTCH)" >&2; exit 1; }
command -v curl >/dev/null || { echo "bench: no curl" >&2; exit 1; }
case $server in
c | python) ;;
*) echo "bench: BENCH_SERVER is '$server'; accepted: c, python" >&2; exit 1 ;;
esac

dir=$(mktemp -d)
chmod 755 "$dir"
srv=
floor=
trap 'kill $srv $floor 2>/dev/null; rm -rf "$dir"' EXIT
${CC:-cc} -O2 -o "$dir/relay-floor" "$here/relay-floor.c"
${CC:-cc} -O2 -o "$dir/blob-server" "$here/blob-server.c"
cat >"$dir/srv.py" <<'PYEOF'
import os, socket, sys, threading
size = int(sys.argv[1])
chunk = b"\0" * (1 << 20)
ls = socket.socket(); ls.bind(("127.0.0.1", 0)); ls.listen(64)
with open(sys.argv[2] + ".tmp", "w") as f:
    f.write(str(ls.getsockname()[1]))
os.rename(sys.argv[2] + ".tmp", sys.argv[2])
def serve(s):
    s.recv(65536)
    s.sendall(b"HTTP/1.0 200 OK\r\nContent-Length: %d\r\n\r\n" % size)
    left = size
    while left:
        n = min(left, len(chunk)); s.sendall(chunk[:n]); left -= n
    s.close()
while True:
    s, _ = ls.accept()
    threading.Thread(target=serve, args=(s,), daemon=True).start()
PYEOF

wait_file() {
	i=0
	while [ ! -s "$1" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
	[ -s "$1" ] || { echo "bench: $2 did not start" >&2; exit 1; }
}
if [ "$server" = c ]; then
	"$dir/blob-server" "$size" "$dir/port" &
else
	python3 "$dir/srv.py" "$size" "$dir/port" &
fi
srv=$!
wait_file "$dir/port" server
port=$(cat "$dir/port")
"$dir/relay-floor" "$dir/fport" 127.0.0.1 "$port" &
floor=$!
wait_file "$dir/fport" relay-floor
fport=$(cat "$dir/fport")
url=http://127.0.0.1:$port/blob
curl_="curl -s -o /dev/null -w %{speed_download}"

median() { sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
: >"$dir/direct"
: >"$dir/floor"
: >"$dir/proxied"
i=0
while [ "$i" -lt "$rounds" ]; do
	$curl_ --noproxy '*' "$url" >>"$dir/direct"
	echo >>"$dir/direct"
	$curl_ --noproxy '' -x "http://127.0.0.1:$fport" "$url" >>"$dir/floor"
	echo >>"$dir/floor"
	"$hutch" run --policy "$pol" --allow-host "127.0.0.1:$port" --allow-private --timeout 10m \
		-- /usr/bin/env -u NO_PROXY -u no_proxy $curl_ "$url" >>"$dir/proxied"
	echo >>"$dir/proxied"
	i=$((i + 1))
done
d=$(median <"$dir/direct")
f=$(median <"$dir/floor")
p=$(median <"$dir/proxied")
awk -v d="$d" -v f="$f" -v p="$p" -v n="$rounds" -v s="$size" -v srv="$server" 'BEGIN {
	printf "download of %d bytes from the %s server, median of %d rounds\n", s, srv, n
	printf "  direct (host loopback)       %8.0f MiB/s\n", d / 1048576
	printf "  through relay-floor.c        %8.0f MiB/s  %5.2fx direct\n", f / 1048576, f / d
	printf "  through the proxy            %8.0f MiB/s  %5.2fx direct  %5.2fx the floor\n", p / 1048576, p / d, p / f
}'
