#!/bin/sh
# net-proxy.sh: network "proxy" (hutch(1), hutch-policy(5)): real clients
# in the jail (curl, git, pip) reach servers this script starts on the
# host's loopback through the supervisor's proxy when the run lists them,
# and are refused, with the refusal in the result's network.connections,
# when it does not; names and IP literals in private ranges are refused
# without --allow-private; the proxy's caps hold against a jail that opens
# hundreds of connections or trickles a header.
#
# tests/policy/proxy.json is build with allow_private true: the servers a
# test can start are on the host's loopback, which no shipped policy lets
# a proxy reach. The clients run with NO_PROXY unset: hutch's NO_PROXY
# keeps 127.0.0.0/8 local to the jail, and here the host's loopback is the
# "remote" side.
. "$(dirname "$0")/lib.sh"

tap_tmpdir net-proxy
for p in "$here/../policy/proxy.json" ${HUTCH_SRCDIR:+"$HUTCH_SRCDIR/tests/policy/proxy.json"}; do
	[ -f "$p" ] && pol=$p && break
done
if [ -z "$pol" ]; then
	not_ok "tests/policy/proxy.json is next to the tests or under HUTCH_SRCDIR"
	tap_done
	exit
fi
cp "$pol" "$tmp/proxy.json"
pol=$tmp/proxy.json
chmod 644 "$pol"
if ! command -v curl >/dev/null 2>&1 || ! command -v openssl >/dev/null 2>&1; then
	skip "proxy clients" "curl or openssl is not installed"
	tap_done
	exit
fi

# --- servers on the host's loopback ---------------------------------------
www=$tmp/www
mkdir -p "$www"
echo "hello through the proxy" >"$www/hello.txt"
head -c 300000 /dev/urandom >"$www/blob"
openssl req -x509 -newkey rsa:2048 -nodes -keyout "$tmp/key.pem" -out "$tmp/cert.pem" -days 2 \
	-subj /CN=127.0.0.1 -addext subjectAltName=IP:127.0.0.1 >/dev/null 2>&1
chmod -R a+rX "$tmp"
cat >"$tmp/serve.py" <<'EOF'
import http.server, socket, ssl, sys, os
os.chdir(sys.argv[1])
class Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *a): pass
http.server.ThreadingHTTPServer.request_queue_size = 1024  # ten runs' connections at once
srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Quiet)
if len(sys.argv) > 3:
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(sys.argv[3], sys.argv[4])
    srv.socket = ctx.wrap_socket(srv.socket, server_side=True)
with open(sys.argv[2] + ".tmp", "w") as f:
    f.write(str(srv.server_address[1]))
os.rename(sys.argv[2] + ".tmp", sys.argv[2])
srv.serve_forever()
EOF
# start_server PORTFILE [CERT KEY]: in this shell, not in a $(...): the
# kill registered in a subshell was lost with it, and every run of this
# script left its two servers running.
start_server() {
	$py "$tmp/serve.py" "$www" "$@" </dev/null >/dev/null 2>&1 &
	tap_cleanup_add "kill $! 2>/dev/null"
	i=0
	while [ ! -s "$1" ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
}
start_server "$tmp/http.port"
start_server "$tmp/tls.port" "$tmp/cert.pem" "$tmp/key.pem"
http_port=$(cat "$tmp/http.port" 2>/dev/null)
tls_port=$(cat "$tmp/tls.port" 2>/dev/null)
same "the test's two servers are killed at its exit (nothing left running)" "2" \
	"$(printf '%s' "$tap_cleanups" | grep -c '^kill [0-9]')"
if [ -z "$http_port" ] || [ -z "$tls_port" ]; then
	not_ok "the test's HTTP and TLS servers start"
	tap_done
	exit
fi

# run ARGS...: hutch run --json under the proxy policy; the document in
# $tmp/doc.json.
run() { "$HUTCH" run --json --policy "$pol" "$@" >"$tmp/doc.json" 2>"$tmp/err"; }
# field EXPR: a Python expression over the document d.
field() { $py -c "import json,sys; d=json.load(open(sys.argv[1])); print($1)" "$tmp/doc.json" 2>/dev/null; }
conn0='d["network"]["connections"][0]'
curl_="/usr/bin/env -u NO_PROXY -u no_proxy /usr/bin/curl -sS"
url=http://127.0.0.1:$http_port

# --- plain HTTP (absolute form) -------------------------------------------
run --allow-host "127.0.0.1:$http_port" --allow-private -- $curl_ "$url/hello.txt"
same "plain HTTP: a listed host is reached through the proxy" "hello through the proxy" "$(field 'd["stdout"]["text"].strip()')"
same "plain HTTP: its connection is logged allowed, with its address" "allowed 127.0.0.1 $http_port" \
	"$(field "$conn0['verdict'], $conn0['address'], $conn0['port']" | tr -d '(),'"'")"
same "plain HTTP: bytes both ways are counted, and in usage" "True True" \
	"$(field "$conn0['bytes_in'] > 100, d['usage']['network_bytes'] == $conn0['bytes_in'] + $conn0['bytes_out']")"
run --allow-host "127.0.0.1:$http_port" --allow-private --collect blob -- $curl_ -o /work/blob "$url/blob"
same "plain HTTP: 300 KB arrive intact" "$(sha256sum <"$www/blob" | cut -c1-64)" \
	"$($py -c "import json,sys,hashlib,base64; d=json.load(open(sys.argv[1])); print(hashlib.sha256(base64.b64decode(d['files'][0]['base64'])).hexdigest())" "$tmp/doc.json")"
run --allow-host example.org -- $curl_ -o /dev/null -w '%{http_code}' "$url/hello.txt"
same "plain HTTP: a host not listed gets 403" "403" "$(field 'd["stdout"]["text"]')"
same "plain HTTP: ... and is logged refused, not_allowed, never connected" "refused not_allowed  0" \
	"$(field "$conn0['verdict'], $conn0['reason'], $conn0['address'], $conn0['bytes_out']" | tr -d '(),'"'")"
run --allow-host example.org --ro "$tmp:/t" -- $curl_ -o /dev/null -w '%{http_code}' \
	-H 'Expect:' --data-binary @/t/www/blob "$url/upload"
same "plain HTTP: a refused POST with a 300 KB body gets its 403" "403" "$(field 'd["stdout"]["text"]')"
long=$($py -c 'print(".".join(["a" * 60] * 4) + ".org")')
run --allow-host x.org -- $curl_ -o /dev/null -w '%{http_code}' "http://$long:65535/"
same "a refusal of the longest name still gets its whole answer" "403 not_allowed" \
	"$(field "d['stdout']['text'], $conn0['reason']" | tr -d '(),'"'")"
run -- $curl_ -o /dev/null -w '%{http_code}' "$url/hello.txt"
same "proxy with an empty list reaches nothing" "403 not_allowed" "$(field "d['stdout']['text'], $conn0['reason']" | tr -d '(),'"'")"

# --- address checks ----------------------------------------------------------
run --allow-host "localhost:$http_port" -- $curl_ -o /dev/null -w '%{http_code}' "http://localhost:$http_port/hello.txt"
same "localhost is refused without --allow-private" "403 refused address_loopback 127.0.0.1" \
	"$(field "d['stdout']['text'], $conn0['verdict'], $conn0['reason'], $conn0['address']" | tr -d '(),'"'")"
run --allow-host "localhost:$http_port" --allow-private -- $curl_ "http://localhost:$http_port/hello.txt"
same "... and reached with it" "hello through the proxy" "$(field 'd["stdout"]["text"].strip()')"
name=$(hostname)
if getent hosts "$name" | grep -q '^127\.'; then
	run --allow-host "$name" -- $curl_ -o /dev/null -w '%{http_code}' "http://$name:$http_port/hello.txt"
	same "a name resolving to 127.0.0.1 ($name) is refused without --allow-private" \
		"403 address_loopback" "$(field "d['stdout']['text'], $conn0['reason']" | tr -d '(),'"'")"
else
	run --allow-host "$name" -- $curl_ -o /dev/null -w '%{http_code}' "http://$name:$http_port/hello.txt"
	same "the host's own name ($name) is refused without --allow-private" "403 refused" \
		"$(field "d['stdout']['text'], $conn0['verdict']" | tr -d '(),'"'")"
fi
hostip=$(hostname -I 2>/dev/null | tr ' ' '\n' | grep -v -e '^127\.' -e ':' | head -1)
if [ -n "$hostip" ]; then
	run --allow-host '*' -- $curl_ -o /dev/null -w '%{http_code}' "http://$hostip:$http_port/"
	same "the host's own address ($hostip) is refused as the host's, never connected" \
		"403 refused address_host" "$(field "d['stdout']['text'], $conn0['verdict'], $conn0['reason']" | tr -d '(),'"'")"
	run --allow-host '*' -- $curl_ -o /dev/null -w '%{http_code}' "http://[::ffff:$hostip]:$http_port/"
	same "... and so is it written as IPv4-mapped IPv6 ([::ffff:$hostip])" \
		"403 refused address_host" "$(field "d['stdout']['text'], $conn0['verdict'], $conn0['reason']" | tr -d '(),'"'")"
else
	skip "the host's own address is refused" "hostname -I gives no address beyond loopback"
fi
for lit in 10.0.0.1 192.168.1.1 172.16.0.1 169.254.169.254 100.64.0.1 '[::1]' '[fd00::1]' '[::ffff:127.0.0.1]' 0.0.0.0; do
	run --allow-host '*' -- $curl_ -o /dev/null -w '%{http_code}' --max-time 5 "http://$lit:$http_port/"
	same "IP literal $lit is refused (never connected)" "403 refused" \
		"$(field "d['stdout']['text'], $conn0['verdict']" | tr -d '(),'"'")"
done

# --- the name checked is the name looked up: no search domain appended ------
# Root only: the host's resolver gets a search domain and a DNS server of
# the test's in a mount namespace of its own (/etc/resolv.conf bound over).
# The server answers x.allowed.test.evil.test only; the allow-list takes
# *.allowed.test, so x.allowed.test must fail to resolve rather than reach
# the search domain's name.
if is_root && command -v unshare >/dev/null 2>&1 && command -v getent >/dev/null 2>&1; then
	cat >"$tmp/dns.py" <<'EOF'
import socket, struct, sys
name, addr, log = sys.argv[1], sys.argv[2], sys.argv[3]
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("127.0.0.1", 53))
open(log, "w").close()
while True:
    q, peer = s.recvfrom(512)
    i, labels = 12, []
    while q[i]:
        labels.append(q[i + 1:i + 1 + q[i]].decode().lower())
        i += 1 + q[i]
    qtype = struct.unpack(">H", q[i + 1:i + 3])[0]
    hit = ".".join(labels) == name
    with open(log, "a") as f:
        f.write(".".join(labels) + "\n")
    ans = b""
    if hit and qtype == 1:
        ans = b"\xc0\x0c" + struct.pack(">HHIH", 1, 1, 60, 4) + socket.inet_aton(addr)
    s.sendto(q[:2] + struct.pack(">HHHHH", 0x8180 if hit else 0x8183, 1, 1 if ans else 0, 0, 0)
             + q[12:i + 5] + ans, peer)
EOF
	printf 'nameserver 127.0.0.1\nsearch evil.test\n' >"$tmp/resolv.conf"
	cat >"$tmp/search.sh" <<EOF
mount --bind "$tmp/resolv.conf" /etc/resolv.conf || exit 1
$py "$tmp/dns.py" x.allowed.test.evil.test 127.0.0.1 "$tmp/dns.log" & dns=\$!
i=0; while [ ! -e "$tmp/dns.log" ] && [ \$i -lt 100 ]; do sleep 0.05; i=\$((i + 1)); done
getent ahosts x.allowed.test | head -1 | cut -d' ' -f1 >"$tmp/getent.out"
: >"$tmp/dns.log"
"$HUTCH" run --json --policy "$pol" --allow-host '*.allowed.test' --allow-private -- \
	/usr/bin/env -u NO_PROXY -u no_proxy /usr/bin/curl -sS -o /dev/null -w '%{http_code}' \
	"http://x.allowed.test:$http_port/hello.txt" >"$tmp/doc.json" 2>"$tmp/err"
kill \$dns
EOF
	unshare -m sh "$tmp/search.sh"
	same "control: in that namespace the host's own lookups append the search domain" \
		"127.0.0.1" "$(cat "$tmp/getent.out" 2>/dev/null)"
	same "an allowed name is looked up as itself, never with the host's search domain appended" \
		"502 resolve_failed 0" \
		"$(field "d['stdout']['text'], $conn0['reason']" | tr -d '(),'"'") $(grep -c evil "$tmp/dns.log")"
else
	skip "no search domain appended to an allowed name" \
		"needs root (a mount namespace to give the resolver a search domain and a DNS server of the test's)"
fi

# --- CONNECT: TLS end to end, the proxy never inside -----------------------
run --allow-host "127.0.0.1:$tls_port" --allow-private --ro "$tmp:/t" -- \
	$curl_ --cacert /t/cert.pem "https://127.0.0.1:$tls_port/hello.txt"
same "CONNECT: TLS to a listed host, verified end to end" "hello through the proxy" "$(field 'd["stdout"]["text"].strip()')"
same "CONNECT: logged allowed" "allowed" "$(field "$conn0['verdict']")"
run --allow-host "127.0.0.1:$http_port" --allow-private --ro "$tmp:/t" -- \
	$curl_ --cacert /t/cert.pem "https://127.0.0.1:$tls_port/hello.txt"
same "CONNECT: another port of the same host is refused" "refused not_allowed 56" \
	"$(field "$conn0['verdict'], $conn0['reason'], d['exit_code']" | tr -d '(),'"'")"

# --- git clone over HTTP (dumb protocol, a static server) ------------------
if command -v git >/dev/null 2>&1; then
	git init -q "$tmp/src" && (cd "$tmp/src" && echo proxied >file &&
		git -c user.email=t@t -c user.name=t add file &&
		git -c user.email=t@t -c user.name=t commit -qm one) &&
		git clone -q --bare "$tmp/src" "$www/repo.git" && (cd "$www/repo.git" && git update-server-info)
	chmod -R a+rX "$www"
	run --allow-host "127.0.0.1:$http_port" --allow-private -- /usr/bin/env -u NO_PROXY -u no_proxy \
		/bin/sh -c "git clone -q $url/repo.git /work/r && cat /work/r/file"
	same "git clone over HTTP through the proxy" "proxied" "$(field 'd["stdout"]["text"].strip()')"
	run --allow-host "example.org" -- /usr/bin/env -u NO_PROXY -u no_proxy \
		/bin/sh -c "git clone -q $url/repo.git /work/r"
	same "git clone from a host not listed fails, refused" "True refused" \
		"$(field "d['exit_code'] != 0, $conn0['verdict']" | tr -d '(),'"'")"
else
	skip "git clone through the proxy" "git is not installed"
fi

# --- pip download from a local index ---------------------------------------
if /usr/bin/python3 -m pip --version >/dev/null 2>&1; then
	mkdir -p "$tmp/wheel/hutchdemo-1.0.dist-info" "$www/simple/hutchdemo"
	echo 'X = 1' >"$tmp/wheel/hutchdemo.py"
	printf 'Metadata-Version: 2.1\nName: hutchdemo\nVersion: 1.0\n' >"$tmp/wheel/hutchdemo-1.0.dist-info/METADATA"
	printf 'Wheel-Version: 1.0\nGenerator: hand\nRoot-Is-Purelib: true\nTag: py3-none-any\n' \
		>"$tmp/wheel/hutchdemo-1.0.dist-info/WHEEL"
	: >"$tmp/wheel/hutchdemo-1.0.dist-info/RECORD"
	(cd "$tmp/wheel" && $py -m zipfile -c "$www/simple/hutchdemo/hutchdemo-1.0-py3-none-any.whl" \
		hutchdemo.py hutchdemo-1.0.dist-info)
	echo '<a href="hutchdemo-1.0-py3-none-any.whl">hutchdemo-1.0-py3-none-any.whl</a>' \
		>"$www/simple/hutchdemo/index.html"
	chmod -R a+rX "$www"
	pip="/usr/bin/env -u NO_PROXY -u no_proxy /usr/bin/python3 -m pip download -q --no-deps \
--disable-pip-version-check --no-cache-dir --index-url $url/simple/ -d /work/dl hutchdemo"
	run --allow-host "127.0.0.1:$http_port" --allow-private -- /bin/sh -c "$pip && ls /work/dl"
	same "pip download from a local index through the proxy" "hutchdemo-1.0-py3-none-any.whl" \
		"$(field 'd["stdout"]["text"].strip()')"
	run --allow-host "pypi.org:443" --timeout 60s -- /bin/sh -c "$pip --retries 0 --timeout 5"
	same "pip download from an index not listed fails, refused" "True refused" \
		"$(field "d['exit_code'] != 0, $conn0['verdict']" | tr -d '(),'"'")"
else
	skip "pip download through the proxy" "pip is not installed"
fi

# --- what the jail sees, and what narrowing refuses ------------------------
run --allow-host x.org -- /usr/bin/printenv HTTP_PROXY https_proxy ALL_PROXY NO_PROXY
same "the jail's proxy variables" "http://127.0.0.1:3128 http://127.0.0.1:3128 http://127.0.0.1:3128 localhost,127.0.0.0/8,::1" \
	"$(field 'd["stdout"]["text"]' | tr '\n' ' ' | sed 's/ *$//')"
run --allow-host x.org -- /usr/bin/curl -sS --noproxy '*' "$url/hello.txt"
same "a client ignoring the proxy variables fails at once (the jail's loopback has no server)" "7" "$(field 'd["exit_code"]')"
"$HUTCH" run --policy "$pol" --network loopback --allow-host x.org -- /bin/true 2>"$tmp/err"
same "--allow-host without --network proxy is refused" "125 hutch: policy_violation: --allow-host: only with network proxy" \
	"$? $(head -1 "$tmp/err")"
"$HUTCH" run --policy default --network proxy -- /bin/true 2>"$tmp/err"
same "the default policy does not offer proxy" "125" "$?"
cat >"$tmp/narrow.json" <<EOF
{"extends": "build", "description": "pypi only", "network": {"default": "proxy",
 "proxy": {"allow": ["pypi.org:443", "*.pythonhosted.org:443"]}}}
EOF
chmod 644 "$tmp/narrow.json"
"$HUTCH" run --policy "$tmp/narrow.json" --allow-host evil.example:443 -- /bin/true 2>"$tmp/err"
same "a pattern the policy does not cover is a policy_violation naming it" \
	"125 hutch: policy_violation: --allow-host: not covered by the policy's network.proxy.allow: evil.example:443" \
	"$? $(head -1 "$tmp/err")"
"$HUTCH" run --policy "$tmp/narrow.json" --allow-host files.pythonhosted.org:443 --allow-host pypi.org:443 --dry-run -- /bin/true >"$tmp/doc.json" 2>"$tmp/err"
same "patterns it covers narrow it" "['files.pythonhosted.org:443', 'pypi.org:443']" "$(field 'd["proxy"]["allow"]')"
"$HUTCH" run --policy "$tmp/narrow.json" --allow-private -- /bin/true 2>"$tmp/err"
same "--allow-private where the policy does not allow it is refused" "125" "$?"
"$HUTCH" run --policy "$pol" --allow-host 'a b' -- /bin/true 2>"$tmp/err"
same "a malformed pattern is a usage error naming the flag" "125 --allow-host" \
	"$? $(head -1 "$tmp/err" | grep -o -- '--allow-host')"

# --- --explain: what was refused and what would allow it -------------------
"$HUTCH" run --policy "$pol" --explain --allow-host x.org -- $curl_ -o /dev/null "$url/hello.txt" 2>"$tmp/err"
same "--explain names the refused host and the grant" \
	"hutch: explain: proxy refused 127.0.0.1:$http_port (not in the run's allow-list); grant: --allow-host 127.0.0.1:$http_port" \
	"$(grep 'proxy refused' "$tmp/err" | sed 's/, and where.*//')"
"$HUTCH" run --policy build --explain -- /usr/bin/python3 -c 'import socket; socket.getaddrinfo("pypi.org", 443)' 2>"$tmp/err" >/dev/null
same "--explain: a name looked up under loopback points at --network proxy, not at binding resolv.conf" \
	'1 grant: {"network":"proxy","allow_hosts":["NAME:443"]}' \
	"$(grep -c 'missing /etc/resolv.conf.*network is loopback.*--network proxy --allow-host NAME' "$tmp/err") $(grep 'resolv.conf' "$tmp/err" | sed 's/.*; grant/grant/')"
"$HUTCH" run --policy "$pol" --explain -- /usr/bin/python3 -c 'import socket; socket.getaddrinfo("pypi.org", 443)' 2>"$tmp/err" >/dev/null
same "--explain: ... and under proxy says there is no DNS in the jail" "1" \
	"$(grep -c 'resolv.conf.*there is no DNS under network proxy' "$tmp/err")"
"$HUTCH" run --policy build --timeout 1s -- /bin/sleep 5 2>"$tmp/err"
same "a timeout under loopback says how a host is reached" "1" "$(grep -c 'network proxy --allow-host' "$tmp/err")"

# --- caps: a header too large, a trickled header, 500 connections at once ---
cat >"$tmp/flood.py" <<'EOF'
import socket, sys, time, selectors
port, n = int(sys.argv[1]), int(sys.argv[2])
req = ("GET http://127.0.0.1:%d/hello.txt HTTP/1.1\r\nHost: x\r\n\r\n" % port).encode()
# A trickler: one header byte a second, never finishing.
t = socket.create_connection(("127.0.0.1", 3128))
t.setblocking(False)
sel = selectors.DefaultSelector()
socks = []
for i in range(n):
    s = socket.socket(); s.setblocking(False)
    s.connect_ex(("127.0.0.1", 3128))
    sel.register(s, selectors.EVENT_WRITE, [b"", False])
    socks.append(s)
ok = 0; done = 0; last = 0; end = time.time() + 60
while done < n and time.time() < end:
    if time.time() - last >= 1:
        try: t.send(b"G")
        except OSError: pass
        last = time.time()
    for key, ev in sel.select(0.2):
        s, st = key.fileobj, key.data
        if ev & selectors.EVENT_WRITE and not st[1]:
            try: s.send(req); st[1] = True
            except OSError: pass
            sel.modify(s, selectors.EVENT_READ, st); continue
        try: b = s.recv(65536)
        except OSError: b = b""
        if b: st[0] += b; continue
        sel.unregister(s); s.close(); done += 1
        ok += st[0].startswith(b"HTTP/1.0 200") and st[0].endswith(b"proxy\n")
t.setblocking(True); t.settimeout(20)
try: tb = t.recv(100)
except OSError: tb = b""
print(ok, done, tb.split(b" ")[1].decode() if tb.startswith(b"HTTP/1.1 ") else "none")
EOF
run --allow-host "127.0.0.1:$http_port" --allow-private --ro "$tmp:/t" -- /usr/bin/python3 /t/flood.py "$http_port" 500
same "500 connections at once from one jail: each answered in full, 16 at a time; a client trickling its header gets 408" \
	"500 500 408" "$(field 'd["stdout"]["text"].strip()')"
same "... each logged or counted (64 listed, the rest left out)" "64 501" \
	"$(field "len(d['network']['connections']), len(d['network']['connections']) + d['network']['left_out']" | tr -d '(),')"
cat >"$tmp/many.py" <<EOF
import socket
ss = [socket.create_connection(("127.0.0.1", 3128)) for _ in range(60)]
for s in ss: s.sendall(b"GET http://127.0.0.1:$http_port/blob HTTP/1.1\\r\\n\\r\\n")
n = 0
for s in ss:
    b = b""
    while True:
        c = s.recv(65536)
        if not c: break
        b += c
    n += b.startswith(b"HTTP/1.0 200")
print(n)
EOF
chmod 644 "$tmp/many.py"
(ulimit -n 100 && "$HUTCH" run --json --policy "$pol" --allow-host "127.0.0.1:$http_port" --allow-private \
	--ro "$tmp:/t" -- /usr/bin/python3 /t/many.py >"$tmp/doc.json" 2>"$tmp/err")
same "descriptors: hutch under RLIMIT_NOFILE 100 (the jail's python too): 60 connections of 300 KB each all answered" \
	"60" "$(field 'd["stdout"]["text"].strip()')"
$py - "$http_port" >"$tmp/big.py" <<'EOF'
import sys
print("import socket; s = socket.create_connection(('127.0.0.1', 3128)); "
      "s.sendall(b'GET http://127.0.0.1:%s/ HTTP/1.1\\r\\n' + b'X-Pad: ' + b'a' * 5000 + b'\\r\\n\\r\\n'); "
      "print(s.recv(100).split(b'\\r\\n')[0].decode())" % sys.argv[1])
EOF
chmod 644 "$tmp/big.py"
run --allow-host "127.0.0.1:$http_port" --allow-private --ro "$tmp:/t" -- /usr/bin/python3 /t/big.py
same "a request head past max_header_bytes gets 431, logged" "HTTP/1.1 431 Request Header Fields Too Large header_too_large" \
	"$(field "d['stdout']['text'].strip(), $conn0['reason']" | tr -d '(),'"'")"

# --- the run's byte cap and the idle timeout --------------------------------
cat >"$tmp/small.json" <<EOF
{"extends": "build", "description": "test: a small byte cap and a short idle time",
 "network": {"default": "proxy", "proxy": {"allow": ["*"], "allow_private": true,
  "idle_ms": 1000, "max_bytes": 100000}}}
EOF
chmod 644 "$tmp/small.json"
"$HUTCH" run --json --policy "$tmp/small.json" --allow-host "127.0.0.1:$http_port" --allow-private \
	-- $curl_ -o /dev/null "$url/blob" >"$tmp/doc.json" 2>"$tmp/err"
same "max_bytes: a download past the run's cap is cut, the run's network says capped" \
	"True True max_bytes True" \
	"$(field "d['exit_code'] != 0, d['network']['capped'], $conn0['reason'], d['network']['bytes'] < 400000" | tr -d '(),'"'")"
cat >"$tmp/idle.py" <<EOF
import socket, time
s = socket.create_connection(("127.0.0.1", 3128))
s.sendall(b"CONNECT 127.0.0.1:$http_port HTTP/1.1\\r\\n\\r\\n")
print(s.recv(100).split(b"\\r\\n")[0].decode())
t = time.monotonic()
print(s.recv(100) == b"", round(time.monotonic() - t))
EOF
chmod 644 "$tmp/idle.py"
"$HUTCH" run --json --policy "$tmp/small.json" --allow-host "127.0.0.1:$http_port" --allow-private \
	--ro "$tmp:/t" -- /usr/bin/python3 /t/idle.py >"$tmp/doc.json" 2>"$tmp/err"
same "idle_ms: a tunnel with no byte either way is closed after it, logged idle_timeout" \
	"HTTP/1.1 200 Connection established True 1 idle_timeout" \
	"$(field "d['stdout']['text'].replace(chr(10), ' ').strip(), $conn0['reason']" | tr -d '(),'"'")"

# --- hutch serve: ten proxy runs at once, a session, the server unharmed ----
client_dir=$(tap_client_dir)
if [ -z "$client_dir" ]; then
	skip "proxy under hutch serve" "no hutch_client.py (HUTCH_SRCDIR unset and none next to the tests)"
	tap_done
	exit
fi
cat >"$tmp/serve-proxy.py" <<'EOF'
import json, os, sys, time
sys.path.insert(0, sys.argv[1])
from hutch_client import HutchClient
hutch, pol, port = sys.argv[2], sys.argv[3], int(sys.argv[4])

def fds(pid):
    return len(os.listdir("/proc/%d/fd" % pid))

def rss_kb(pid):
    with open("/proc/%d/status" % pid) as f:
        return int([l for l in f if l.startswith("VmRSS:")][0].split()[1])

flood = ("import socket\n"
         "socks = [socket.create_connection(('127.0.0.1', 3128)) for _ in range(40)]\n"
         "for s in socks: s.sendall(b'GET http://127.0.0.1:%d/hello.txt HTTP/1.1\\r\\nHost: x\\r\\n\\r\\n')\n"
         "n = 0\n"
         "for s in socks:\n"
         "    b = b''\n"
         "    while True:\n"
         "        c = s.recv(65536)\n"
         "        if not c: break\n"
         "        b += c\n"
         "    n += b.endswith(b'proxy\\n')\n"
         "print(n)\n" % port)
req = {"version": 1, "network": "proxy", "allow_hosts": ["127.0.0.1:%d" % port],
       "allow_private": True, "argv": ["/usr/bin/python3", "-c", flood]}
worker = {"version": 1, "network": "proxy", "allow_hosts": ["127.0.0.1:%d" % port],
          "allow_private": True, "argv": ["/usr/bin/python3", "-c",
          "import os, struct, sys, urllib.request\n"
          "os.environ.pop('no_proxy'); os.environ.pop('NO_PROXY')\n"
          "while True:\n"
          "    h = sys.stdin.buffer.read(4)\n"
          "    if len(h) < 4: break\n"
          "    url = sys.stdin.buffer.read(struct.unpack('>I', h)[0]).decode()\n"
          "    body = urllib.request.urlopen(url, timeout=10).read()\n"
          "    sys.stdout.buffer.write(struct.pack('>I', len(body)) + body); sys.stdout.buffer.flush()\n"]}
with HutchClient.spawn([hutch, "serve", "--policy", pol, "--max-runs", "12"]) as c:
    assert c.ping()
    pid = c.proc.pid
    # A first run warms the forkserver, the caches and the allocator.
    c.run(dict(req, argv=["/bin/true"]))
    fd0, rss0 = fds(pid), rss_kb(pid)
    ids = [c.start(req) for _ in range(10)]
    t0 = time.monotonic()
    assert c.ping()
    pong_ms = (time.monotonic() - t0) * 1000
    docs = [c.result(i) for i in ids]
    ok = sum(d["stdout"]["text"].strip() == "40" for d in docs)
    logged = sum(len(d["network"]["connections"]) + d["network"]["left_out"] == 40 and
                 all(x["verdict"] == "allowed" for x in d["network"]["connections"]) for d in docs)
    reply = c.session("s1", worker, ("http://127.0.0.1:%d/hello.txt" % port).encode())
    again = c.session("s1", worker, ("http://127.0.0.1:%d/hello.txt" % port).encode())
    c.wait_final(c.request("session_close", {"name": "s1"}))
    print("runs %d logged %d pong %s session %s %s" % (ok, logged, pong_ms < 1000,
          reply.decode().strip(), again == reply))
    time.sleep(0.2)
    print("fds %s rss %s" % (fds(pid) <= fd0 + 4, rss_kb(pid) - rss0 < 32768))
    sys.stdout.flush()
EOF
chmod 644 "$tmp/serve-proxy.py"
$py "$tmp/serve-proxy.py" "$client_dir" "$HUTCH" "$pol" "$http_port" >"$tmp/serve.out" 2>"$tmp/err"
same "hutch serve: ten proxy runs of 40 connections at once, each logged; a ping answered meanwhile; a session's worker through its proxy" \
	"runs 10 logged 10 pong True session hello through the proxy True" "$(head -1 "$tmp/serve.out")"
same "hutch serve: descriptors and memory come back after them" "fds True rss True" "$(sed -n 2p "$tmp/serve.out")"
[ -s "$tmp/err" ] && diag "$(tail -5 "$tmp/err")"

# Twelve proxy runs under one server whose RLIMIT_NOFILE is 400, each
# jail opening 16 connections that sit in their head state (one
# descriptor each) and then all turning into tunnels at once (six each):
# every proxy must count the others' connections, or together they take
# the server's last descriptors (EMFILE for its accepts and spawns, and
# for their own tunnels' sockets and pipes).
cat >"$tmp/serve-fds.py" <<'EOF'
import os, resource, sys, threading, time
sys.path.insert(0, sys.argv[1])
from hutch_client import HutchClient
hutch, pol, port = sys.argv[2], sys.argv[3], int(sys.argv[4])
NOFILE, RUNS = 400, 12
jail = ("import socket, time\n"
        "ss = [socket.create_connection(('127.0.0.1', 3128)) for _ in range(16)]\n"
        "time.sleep(1)\n"
        "for s in ss: s.sendall(b'CONNECT 127.0.0.1:%d HTTP/1.1\\r\\n\\r\\n')\n"
        "for s in ss:\n"
        "    s.settimeout(5)\n"
        "    try: s.recv(100)\n"
        "    except OSError: pass\n"
        "time.sleep(0.5)\n" % port)
req = {"version": 1, "network": "proxy", "allow_hosts": ["127.0.0.1:%d" % port],
       "allow_private": True, "argv": ["/usr/bin/python3", "-c", jail]}
resource.setrlimit(resource.RLIMIT_NOFILE, (NOFILE, NOFILE))
with HutchClient.spawn([hutch, "serve", "--policy", pol, "--max-runs", str(RUNS + 1)]) as c:
    pid, peak, done = c.proc.pid, [0], threading.Event()
    def sample():
        while not done.is_set():
            try:
                peak[0] = max(peak[0], len(os.listdir("/proc/%d/fd" % pid)))
            except OSError:
                pass
            time.sleep(0.01)
    t = threading.Thread(target=sample, daemon=True)
    t.start()
    ids = [c.start(req) for _ in range(RUNS)]
    time.sleep(1.5)  # the tunnels are up: a jail started now needs descriptors
    try:
        late = c.result(c.start({"version": 1, "argv": ["/bin/true"]}))
    except Exception as e:  # a failed event: "internal" when out of descriptors
        late = {"exit_code": str(e)}
    docs = [c.result(i) for i in ids]
    done.set()
    t.join()
    print("limit reached %s, runs %d, a run started meanwhile %s" % (peak[0] >= NOFILE,
          sum(d.get("exit_code") == 0 for d in docs), late.get("exit_code")))
    print("peak: %d descriptors of %d" % (peak[0], NOFILE), file=sys.stderr)
EOF
chmod 644 "$tmp/serve-fds.py"
$py "$tmp/serve-fds.py" "$client_dir" "$HUTCH" "$pol" "$http_port" >"$tmp/serve.out" 2>"$tmp/err"
same "hutch serve: twelve proxy runs' tunnels together never take the server's last descriptors; a jail starts meanwhile" \
	"limit reached False, runs 12, a run started meanwhile 0" "$(cat "$tmp/serve.out")"
[ -s "$tmp/err" ] && diag "$(grep -v 'hutch serve:' "$tmp/err" | tail -5)"

# Lookups that never end (a DNS server that never answers) from runs that
# do: their threads outlive them, and hutch serve starts runs without end.
# Ten runs of eight such lookups each, one after the other: the server's
# lookup threads stay within RESOLVE_THREADS_MAX (64), not 80 and growing.
if is_root && command -v unshare >/dev/null 2>&1 && [ -n "$client_dir" ]; then
	cat >"$tmp/blackhole.py" <<'EOF'
import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("127.0.0.1", 53))
open(sys.argv[1], "w").close()
while True:
    s.recvfrom(512)
EOF
	cat >"$tmp/threads.py" <<'EOF'
import os, sys
sys.path.insert(0, sys.argv[1])
from hutch_client import HutchClient
hutch, pol = sys.argv[2], sys.argv[3]
jail = ("import socket, time\n"
        "ss = [socket.create_connection(('127.0.0.1', 3128)) for _ in range(8)]\n"
        "for i, s in enumerate(ss): s.sendall(b'CONNECT n%d.slow.test:443 HTTP/1.1\\r\\n\\r\\n' % i)\n"
        "time.sleep(0.3)\n")
req = {"version": 1, "network": "proxy", "allow_hosts": ["*.slow.test:443"],
       "argv": ["/usr/bin/python3", "-c", jail]}
with HutchClient.spawn([hutch, "serve", "--policy", pol, "--log-level", "none"]) as c:
    base = len(os.listdir("/proc/%d/task" % c.proc.pid))
    ok = sum(c.run(req).get("exit_code") == 0 for _ in range(10))
    extra = len(os.listdir("/proc/%d/task" % c.proc.pid)) - base
    print("runs %d, lookup threads within 64 %s" % (ok, extra <= 64))
    print("lookup threads after the runs: %d" % extra, file=sys.stderr)
EOF
	printf 'nameserver 127.0.0.1\n' >"$tmp/resolv-hole.conf"
	cat >"$tmp/threads.sh" <<EOF
mount --bind "$tmp/resolv-hole.conf" /etc/resolv.conf || exit 1
$py "$tmp/blackhole.py" "$tmp/hole.up" & hole=\$!
i=0; while [ ! -e "$tmp/hole.up" ] && [ \$i -lt 100 ]; do sleep 0.05; i=\$((i + 1)); done
$py "$tmp/threads.py" "$client_dir" "$HUTCH" "$pol" >"$tmp/threads.out" 2>"$tmp/err"
kill \$hole
EOF
	unshare -m sh "$tmp/threads.sh"
	same "hutch serve: lookups that never end, of ten runs that did, hold at most 64 threads" \
		"runs 10, lookup threads within 64 True" "$(cat "$tmp/threads.out")"
	diag "$(grep -v 'hutch serve:' "$tmp/err" | tail -3)"
else
	skip "lookup threads of ended runs are bounded" \
		"needs root (a mount namespace to give the resolver a DNS server that never answers)"
fi

tap_done
