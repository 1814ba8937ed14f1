#!/bin/sh
# run-refusal.sh: the host refusing the jail at run time, after a probe
# passed and was cached (a mount denied, a namespace refused), is
# sandbox_unavailable naming the mechanism, exit 71, never spawn_error;
# the cached verdict is dropped, so the next run probes again (and is
# refused by the probe while the host stays so); once the host is back,
# runs pass and the verdict is cached again. The same for `hutch serve`,
# whose verdict is kept in memory. A failure of the request's own (--cwd
# that does not exist) is not sandbox_unavailable and keeps the verdict.
#
# The host change is simulated: HUTCH_EXEC is a wrapper that runs the real
# hutch-exec until a flag file exists, then answers as the helper does
# when the kernel denies it making mount propagation private: a status
# record (setup_failed, stage mount_private, EPERM) and exit 71. The
# policy digest names the wrapper, which never changes.
# Runs as root and as an unprivileged user.
. "$(dirname "$0")/lib.sh"

tap_tmpdir run-refusal
flag=$tmp/host-changed
wrap=$tmp/hutch-exec
real=$(cd "$(dirname "$HUTCH_EXEC")" && pwd)/$(basename "$HUTCH_EXEC")
# The record, little-endian: magic "HST1", code 1 (setup_failed), stage 11
# (mount_private), site 0 (propagation), errno 1 (EPERM); 16 bytes, one write.
cat >"$wrap" <<EOF
#!/bin/sh
if [ -e '$flag' ]; then
	printf '\061\124\123\110\001\000\013\000\000\000\000\000\001\000\000\000' >&4
	exit 71
fi
exec '$real' "\$@"
EOF
chmod 755 "$wrap"
export HUTCH_EXEC="$wrap"

# The cache entry of the default policy's verdict for this caller.
verdicts() { ls "$XDG_RUNTIME_DIR/hutch" 2>/dev/null | grep -c '^probe-'; }

"$HUTCH" run --json -- /bin/echo fine >"$tmp/doc" 2>"$tmp/err"
check "before the change: the run passes" \
	test "$(json_get '[d["status"], d["stdout"]["text"]]' <"$tmp/doc")" = '["exited", "fine\n"]'
check "its probe verdict is cached" test "$(verdicts)" = 1

touch "$flag"
"$HUTCH" run --json -- /bin/echo fine >"$tmp/doc" 2>"$tmp/err"
got=$(json_get '[d["status"], d["error"]["code"], d["error"]["stage"], d["error"]["errno"]]' <"$tmp/doc")
check "a refusal after a cached probe: sandbox_unavailable at mount_private, EPERM" \
	test "$got" = '["failed", "sandbox_unavailable", "mount_private", "EPERM"]'
[ "$got" = '["failed", "sandbox_unavailable", "mount_private", "EPERM"]' ] || diag "got: $got"
msg=$(json_get 'd["error"]["message"]' <"$tmp/doc")
check "the message names the mechanism and the step" \
	has "$msg" '^a mechanism the policy requires is not available: mounts: making mount propagation private: EPERM$'
[ -n "$msg" ] && diag "message: $msg"
check "the cached verdict is dropped" test "$(verdicts)" = 0

"$HUTCH" run --json -- /bin/echo fine >"$tmp/doc" 2>"$tmp/err"
got=$(json_get '[d["error"]["code"], d["error"]["message"]]' <"$tmp/doc")
check "the next run probes again: the canary is refused too (sandbox_unavailable), nothing cached" \
	test "$(verdicts)" = 0 -a "$got" = '["sandbox_unavailable", "a mechanism the policy requires is not available: canary: the jail was refused: mounts: making mount propagation private: EPERM"]'
diag "got: $got"
"$HUTCH" run -- /bin/echo fine >"$tmp/out" 2>"$tmp/err"
rc=$?
check "without --json: exit 71, 'hutch: sandbox_unavailable: ... mounts: ...' on stderr, no output" \
	test "$rc" = 71 -a ! -s "$tmp/out" -a -n "$(grep '^hutch: sandbox_unavailable: .*: mounts: ' "$tmp/err")"

rm -f "$flag"
"$HUTCH" run --json -- /bin/echo back >"$tmp/doc" 2>"$tmp/err"
check "the host back: the run passes, its verdict is cached again" \
	test "$(json_get 'd["stdout"]["text"]' <"$tmp/doc")" = back -a "$(verdicts)" = 1

# A failure of the request's own: not sandbox_unavailable, the verdict stays.
"$HUTCH" run --json --cwd /nonexistent -- /bin/true >"$tmp/doc" 2>"$tmp/err"
check "--cwd /nonexistent: invalid_request, the cached verdict kept" \
	test "$(json_get 'd["error"]["code"]' <"$tmp/doc")" = invalid_request -a "$(verdicts)" = 1

# ---- serve: its verdict in memory goes too ----
if [ -z "$py" ]; then
	skip "serve: a refused jail drops the verdict kept in memory" "no python3"
else
	rm -rf "$XDG_RUNTIME_DIR/hutch"
	cat >"$tmp/serve.py" <<'PYEOF'
import json, os, socket, struct, subprocess, sys
hutch, flag = sys.argv[1], sys.argv[2]
a, b = socket.socketpair()
# --no-forkserver: the wrapper decides per run only when each run execs
# it; a forkserver is exec'd once and forks every jail's helper itself.
p = subprocess.Popen([hutch, "serve", "--no-forkserver", "--fd", str(b.fileno())],
                     pass_fds=[b.fileno()])
b.close()
def recv_exact(n):
    buf = b""
    while len(buf) < n:
        chunk = a.recv(n - len(buf))
        if not chunk:
            raise SystemExit("server closed the connection")
        buf += chunk
    return buf
def call(i):
    body = json.dumps({"version": 1, "id": i, "run": {"version": 1, "argv": ["/bin/echo", "x"]}}).encode()
    a.sendall(struct.pack(">I", len(body)) + body)
    while True:
        ev = json.loads(recv_exact(struct.unpack(">I", recv_exact(4))[0]))
        if ev.get("id") == i and "live" not in ev:
            return ev
def show(ev):
    if "exit" in ev:
        d = ev["exit"]
        return d["status"] + (":" + d["error"]["code"] + ":" + d["error"]["message"] if d.get("error") else "")
    return "failed:" + ev["failed"]["code"] + ":" + ev["failed"]["message"]
print(show(call(1)))
open(flag, "w").close()
print(show(call(2)))
print(show(call(3)))
os.unlink(flag)
print(show(call(4)))
a.close()
p.wait(30)
print("rc", p.returncode)
PYEOF
	"$py" "$tmp/serve.py" "$HUTCH" "$flag" >"$tmp/serve.out" 2>"$tmp/serve.err"
	sed -n 1p "$tmp/serve.out" | grep -q '^exited$'
	check "serve: the first run passes" test $? = 0
	check "serve: the refused jail is sandbox_unavailable naming mounts" \
		has "$(sed -n 2p "$tmp/serve.out")" '^exited:sandbox_unavailable:.*: mounts: making mount propagation private: EPERM$|^failed:sandbox_unavailable:.*mounts: making'
	check "serve: the next run probes again (the canary is refused)" \
		has "$(sed -n 3p "$tmp/serve.out")" 'canary: the jail was refused: mounts: '
	check "serve: the host back, runs pass again; serve exits 0" \
		test "$(sed -n 4,5p "$tmp/serve.out" | tr '\n' ' ')" = "exited rc 0 "
	[ "$(sed -n 4,5p "$tmp/serve.out" | tr '\n' ' ')" = "exited rc 0 " ] ||
		diag "serve: $(tr '\n' '|' <"$tmp/serve.out") $(head -c 300 "$tmp/serve.err")"
fi

tap_done
