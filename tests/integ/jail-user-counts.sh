#!/bin/sh
# jail-user-counts.sh: the kernel charges some counts of a jail to the
# caller's user on the host (inotify instances and watches, pending
# signals, message-queue bytes, namespaces). A jail is bounded in each,
# and the bounds are sized so that four jails at once (hutch(1)'s bound
# for concurrent runs) leave the caller half its quota; a root caller's
# jails are charged to host ids of their own and leave root's alone.
# Real attempts, four jails holding all they may while the caller on the
# host tries; the host's side is the control; a server's jails get the
# share of all it may run at once. Root and unprivileged.
. "$(dirname "$0")/lib.sh"

tap_tmpdir user-counts
tap_stderr="$tmp/err"

# What one jail may take: the ceiling for a root caller (its own host
# ids), else min(ceiling, quota / 8): four concurrent runs, half the quota.
cap() {
	if is_root; then echo "$1"; else echo $(($2 / 8 < $1 ? $2 / 8 : $1)); fi
}
min2() { echo $(($1 < $2 ? $1 : $2)); }
limit() { awk -v n="$1" 'index($0, n) == 1 { print $(NF - 2) }' /proc/self/limits; }
n_inst=$(cap 32 "$(min2 "$(cat /proc/sys/user/max_inotify_instances)" "$(cat /proc/sys/fs/inotify/max_user_instances)")")
n_watch=$(cap 16384 "$(min2 "$(cat /proc/sys/user/max_inotify_watches)" "$(cat /proc/sys/fs/inotify/max_user_watches)")")
n_sig=$(cap 1024 "$(limit "Max pending signals")")
n_mq=$(cap 65536 "$(limit "Max msgqueue size")")
diag "caps expected: inotify $n_inst instances, $n_watch watches; $n_sig signals; $n_mq mqueue bytes"

cat >"$tmp/inotify.py" <<'EOF'
import ctypes, os, sys, time
libc = ctypes.CDLL(None, use_errno=True)
n = 0
while libc.inotify_init1(0) >= 0:
    n += 1
print(n, os.strerror(ctypes.get_errno()), flush=True)
if len(sys.argv) > 1:
    open(sys.argv[1], "w").close()   # holding them: the host may try now
    time.sleep(float(sys.argv[2]))
EOF
out=$("$HUTCH" run --input i.py="$tmp/inotify.py" -- /usr/bin/python3 /work/i.py 2>"$tmp/err")
same "a jail gets at most $n_inst inotify instances" "$n_inst Too many open files" "$out"

# While a jail holds all it may, the caller on the host still gets its own.
mkdir "$tmp/sig"
"$HUTCH" run --rw "$tmp/sig:/sig" --input i.py="$tmp/inotify.py" -- \
	/usr/bin/python3 /work/i.py /sig/holding 3 >/dev/null 2>&1 &
held=$!
i=0
while [ ! -e "$tmp/sig/holding" ] && [ $i -lt 200 ]; do
	sleep 0.05
	i=$((i + 1))
done
host=$("$py" -c '
import ctypes
libc = ctypes.CDLL(None, use_errno=True)
print("ok" if libc.inotify_init1(0) >= 0 else "refused")')
check "... and while it holds them (it said so)" test -e "$tmp/sig/holding"
same "... the caller can still make one on the host" ok "$host"
wait "$held"

"$HUTCH" run -- /bin/sh -c 'cat /proc/self/limits
	echo "userns $(cat /proc/sys/user/max_user_namespaces)"
	echo "mntns $(cat /proc/sys/user/max_mnt_namespaces)"
	echo "watches $(cat /proc/sys/user/max_inotify_watches)"' >"$tmp/limits" 2>"$tmp/err"
same "pending signals are bounded (RLIMIT_SIGPENDING $n_sig)" "$n_sig" \
	"$(awk '/^Max pending signals/ { print $5 }' "$tmp/limits")"
same "message-queue bytes are bounded (RLIMIT_MSGQUEUE $n_mq)" "$n_mq" \
	"$(awk '/^Max msgqueue size/ { print $5 }' "$tmp/limits")"
same "the jail's user namespace may make no user or mount namespaces" "0 0" \
	"$(awk '$1 == "userns" || $1 == "mntns" { printf "%s%s", sep, $2; sep = " " }' "$tmp/limits")"
same "inotify watches are bounded ($n_watch)" "$n_watch" "$(awk '$1 == "watches" { print $2 }' "$tmp/limits")"
check "control: the host's own limits are not the jail's" \
	test "$(cat /proc/sys/user/max_user_namespaces)" != 0 -a \
	"$(awk '/^Max pending signals/ { print $5 }' /proc/self/limits)" != "$n_sig"

# ---- four jails at once, each holding all it may: the caller keeps its own ----

# A jail takes every inotify instance or message queue it can, says how
# many on the shared bind, and holds them until the host says "release".
cat >"$tmp/hold.py" <<'EOF'
import ctypes, os, sys, time
kind, mark = sys.argv[1], sys.argv[2]
libc = ctypes.CDLL(None, use_errno=True)
class attr(ctypes.Structure):
    _fields_ = [("flags", ctypes.c_long), ("maxmsg", ctypes.c_long),
                ("msgsize", ctypes.c_long), ("curmsgs", ctypes.c_long),
                ("pad", ctypes.c_long * 4)]
n = 0
if kind == "inotify":
    while libc.inotify_init1(0) >= 0:
        n += 1
else:
    a = attr(0, 1, 1024, 0)
    while libc.mq_open(b"/q%d" % n, os.O_CREAT | os.O_RDWR, ctypes.c_uint(0o600),
                       ctypes.byref(a)) >= 0:
        n += 1
with open(mark + ".tmp", "w") as f:
    f.write("%d %s\n" % (n, os.strerror(ctypes.get_errno())))
os.rename(mark + ".tmp", mark)
end = time.monotonic() + 30
while not os.path.exists("/sig/release") and time.monotonic() < end:
    time.sleep(0.02)
EOF
# The caller on the host meanwhile: one inotify instance, or a queue of
# 8 x 8 KiB (about 66 000 bytes of its quota), under the quota given.
cat >"$tmp/host.py" <<'EOF'
import ctypes, os, resource, sys
resource.setrlimit(resource.RLIMIT_MSGQUEUE, (int(sys.argv[2]), int(sys.argv[2])))
libc = ctypes.CDLL(None, use_errno=True)
class attr(ctypes.Structure):
    _fields_ = [("flags", ctypes.c_long), ("maxmsg", ctypes.c_long),
                ("msgsize", ctypes.c_long), ("curmsgs", ctypes.c_long),
                ("pad", ctypes.c_long * 4)]
if sys.argv[1] == "inotify":
    ok = libc.inotify_init1(0) >= 0
else:
    name = b"/hutch-user-counts-%d" % os.getpid()
    ok = libc.mq_open(name, os.O_CREAT | os.O_RDWR, ctypes.c_uint(0o600),
                      ctypes.byref(attr(0, 8, 8192, 0))) >= 0
    if ok:
        libc.mq_unlink(name)
print("ok" if ok else "refused: " + os.strerror(ctypes.get_errno()))
EOF
# Landlock refuses mq_open in the default jail (a file of the jail's
# mqueue filesystem, under no rule): the caps matter where it is off, so
# the message-queue half runs under a test policy without it.
printf '{"version": 1, "extends": "default", "landlock": "off", "description": %s}\n' \
	'"default without Landlock, for jail-user-counts.sh: POSIX message queues reachable"' \
	>"$tmp/no-landlock.json"
# The caller's message-queue quota for this part: 256 KiB, which the old
# fixed 64 KiB a jail, times four, took whole.
mq_quota=262144
n_mq4=$(cap 65536 "$mq_quota")
with_quota() {
	"$py" -c 'import os, resource, sys
q = int(sys.argv[1])
resource.setrlimit(resource.RLIMIT_MSGQUEUE, (q, q))
os.execv(sys.argv[2], sys.argv[2:])' "$mq_quota" "$@"
}

# four KIND: four jails holding all they may; $got says what each holds,
# $host what the caller got meanwhile; then they are let go.
four() {
	rm -f "$tmp/sig"/*
	pids=
	for j in 1 2 3 4; do
		with_quota "$HUTCH" run --policy "$tmp/no-landlock.json" --rw "$tmp/sig:/sig" \
			--input h.py="$tmp/hold.py" -- /usr/bin/python3 /work/h.py "$1" "/sig/$j" \
			>/dev/null 2>>"$tmp/four.err" &
		pids="$pids $!"
	done
	for j in 1 2 3 4; do
		wait_for "$tmp/sig/$j" . 20 || diag "jail $j never said what it holds"
	done
	got=$(cat "$tmp/sig/1" "$tmp/sig/2" "$tmp/sig/3" "$tmp/sig/4" 2>/dev/null | tr '\n' ' ')
	host=$("$py" "$tmp/host.py" "$1" "$mq_quota")
	: >"$tmp/sig/release"
	for p in $pids; do wait "$p"; done
}

four inotify
e="$n_inst Too many open files"
same "four jails at once each hold their $n_inst inotify instances" "$e $e $e $e " "$got"
same "... and meanwhile the caller can still make one on the host" ok "$host"

four mqueue
# Each queue of 1 x 1 KiB costs a little over 1 KiB of the cap.
same "four jails at once each hold message queues to their cap of $n_mq4 bytes" "4" \
	"$(cat "$tmp/sig/1" "$tmp/sig/2" "$tmp/sig/3" "$tmp/sig/4" |
		awk -v cap="$n_mq4" '$1 > 0 && $1 <= cap / 1024 { n++ } END { print n + 0 }')"
same "... and meanwhile the caller can still open an 8 x 8 KiB queue on the host" ok "$host"
same "control: with no jail holding any, that queue opens under the same quota" ok \
	"$("$py" "$tmp/host.py" mqueue "$mq_quota")"
[ -s "$tmp/four.err" ] && diag "stderr of the four: $(head -c 300 "$tmp/four.err")"

# ---- hutch serve: its jails are sized for all it may run at once ----

# One run through `hutch serve --fd N --max-total 2` (two runs and its 64
# session workers at once): the jail counts the inotify instances it gets.
cat >"$tmp/serve-run.py" <<'EOF'
import json, os, socket, struct, subprocess, sys
ours, theirs = socket.socketpair()
ours.settimeout(30)
p = subprocess.Popen([sys.argv[1], "serve", "--fd", str(theirs.fileno()), "--max-total", "2"],
                     pass_fds=(theirs.fileno(),), stdin=subprocess.DEVNULL)
theirs.close()
code = sys.argv[2]
req = {"version": 1, "id": 1, "run": {"version": 1,
       "argv": ["/usr/bin/python3", "-c", code]}}
body = json.dumps(req).encode()
ours.sendall(struct.pack(">I", len(body)) + body)
buf = b""
def frame():
    global buf
    while True:
        if len(buf) >= 4:
            n = struct.unpack(">I", buf[:4])[0]
            if len(buf) >= 4 + n:
                f, buf = buf[4:4 + n], buf[4 + n:]
                return json.loads(f)
        chunk = ours.recv(65536)
        if not chunk:
            return None
        buf += chunk
out = "no exit event"
while True:
    f = frame()
    if f is None:
        break
    if f.get("id") == 1 and "exit" in f:
        out = f["exit"]["stdout"].get("text", "").strip()
        break
    if f.get("id") == 1 and "failed" in f:
        out = "failed: " + f["failed"]["code"]
        break
ours.close()
p.wait(timeout=30)
print(out)
EOF
count='import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
n = 0
while libc.inotify_init1(0) >= 0:
    n += 1
print(n)'
if is_root; then n_srv=32; else
	q=$(min2 "$(cat /proc/sys/user/max_inotify_instances)" "$(cat /proc/sys/fs/inotify/max_user_instances)")
	n_srv=$((q / 132 < 32 ? q / 132 : 32))
fi
same "hutch serve --max-total 2: a run's jail gets $n_srv inotify instances (its share for 66 jails)" \
	"$n_srv" "$("$py" "$tmp/serve-run.py" "$HUTCH" "$count" 2>"$tmp/err")"

tap_done
