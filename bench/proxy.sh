#!/bin/sh
# bench/proxy.sh: bulk download through network "proxy" (the supervisor's
# proxy, CONNECT-less plain HTTP) against the same download straight over
# the host's loopback, interleaved in one run: curl fetches SIZE bytes
# from a server that writes them from memory. Reports curl's own transfer
# rate (start-up of the jail excluded) as medians and their ratio. A
# benchmark, not a test. Needs curl and python3.
#   HUTCH          the frontend (default: hutch on PATH)
#   BENCH_POLICY   a policy offering proxy with allow_private (default:
#                  tests/policy/proxy.json next to this script)
#   BENCH_SIZE     bytes per transfer (default 1073741824)
#   BENCH_ROUNDS   rounds (default 3)
set -eu
hutch=${HUTCH:-$(command -v hutch || true)}
here=$(cd "$(dirname "$0")" && pwd)
pol=${BENCH_POLICY:-$here/../tests/policy/proxy.json}
size=${BENCH_SIZE:-1073741824}
rounds=${BENCH_ROUNDS:-3}
[ -x "$hutch" ] || { echo "bench: no hutch (set HUTCH)" >&2; exit 1; }
command -v curl >/dev/null || { echo "bench: no curl" >&2; exit 1; }

dir=$(mktemp -d)
chmod 755 "$dir"
cat >"$dir/srv.py" <<'EOF'
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
EOF
python3 "$dir/srv.py" "$size" "$dir/port" &
srv=$!
trap 'kill $srv 2>/dev/null; rm -rf "$dir"' EXIT
i=0
while [ ! -s "$dir/port" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
port=$(cat "$dir/port")
url=http://127.0.0.1:$port/blob
curl_="curl -s -o /dev/null -w %{speed_download}"

median() { sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
: >"$dir/direct"
: >"$dir/proxied"
i=0
while [ "$i" -lt "$rounds" ]; do
	$curl_ --noproxy '*' "$url" >>"$dir/direct"
	echo >>"$dir/direct"
	"$hutch" run --policy "$pol" --allow-host "127.0.0.1:$port" --allow-private --timeout 10m \
		-- /usr/bin/env -u NO_PROXY -u no_proxy $curl_ "$url" >>"$dir/proxied"
	echo >>"$dir/proxied"
	i=$((i + 1))
done
d=$(median <"$dir/direct")
p=$(median <"$dir/proxied")
awk -v d="$d" -v p="$p" -v n="$rounds" -v s="$size" 'BEGIN {
	printf "download of %d bytes, median of %d rounds\n", s, n
	printf "  direct (host loopback)   %8.0f MiB/s\n", d / 1048576
	printf "  through the proxy        %8.0f MiB/s\n", p / 1048576
	printf "  ratio                    %8.2fx\n", p / d
}'
