#!/bin/sh
# jail-user-counts.sh: the kernel charges some counts of a jail to the
# caller's user on the host (inotify instances and watches, pending
# signals, message-queue bytes, namespaces). A jail is bounded in each, so
# it cannot use up the caller's quota (root's, for a root caller) while it
# runs. Real attempts; the host's side is the control. Root and
# unprivileged.
. "$(dirname "$0")/lib.sh"

tap_tmpdir user-counts
tap_stderr="$tmp/err"

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
same "a jail gets at most 32 inotify instances" "32 Too many open files" "$out"

# While a jail holds all it may, the caller on the host still gets its own.
mkdir "$tmp/sig"
chmod 777 "$tmp/sig"
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
same "pending signals are bounded (RLIMIT_SIGPENDING 1024)" 1024 \
	"$(awk '/^Max pending signals/ { print $5 }' "$tmp/limits")"
same "message-queue bytes are bounded (RLIMIT_MSGQUEUE 65536)" 65536 \
	"$(awk '/^Max msgqueue size/ { print $5 }' "$tmp/limits")"
same "the jail's user namespace may make no user or mount namespaces" "0 0" \
	"$(awk '$1 == "userns" || $1 == "mntns" { printf "%s%s", sep, $2; sep = " " }' "$tmp/limits")"
same "inotify watches are bounded (16384)" 16384 "$(awk '$1 == "watches" { print $2 }' "$tmp/limits")"
check "control: the host's own limits are not the jail's" \
	test "$(cat /proc/sys/user/max_user_namespaces)" != 0 -a \
	"$(awk '/^Max pending signals/ { print $5 }' /proc/self/limits)" != 1024

tap_done
