#!/bin/sh
# jobs-default.sh: ordinary programs under the shipped policies
# (hutch-policy(5)): no secret under /etc is ever in a shipped policy's
# jail; TIOCSTI and TIOCLINUX are refused everywhere; users, services,
# event loops, sessions and FIFOs work under default and strict; strict
# answers an ioctl it does not allow with ENOTTY; the environment rules.
. "$(dirname "$0")/lib.sh"

tap_tmpdir jobs-default
policies="default strict network build convert"
secrets="/etc/shadow /etc/shadow- /etc/gshadow /etc/gshadow- /etc/ssh /etc/sudoers
	/etc/sudoers.d /etc/krb5.keytab /etc/ssl/private /etc/security/opasswd
	/etc/subuid /etc/machine-id /root /etc"

for pol in $policies; do
	# Statically: no bind is a secret or a directory holding one ("/etc"
	# itself is in the list: binding all of /etc would hold them all).
	bad=$("$HUTCH" policy show "$pol" | "$py" -c 'import json, sys
secrets = sys.argv[1].split()
binds = [b["path"] for b in json.load(sys.stdin)["filesystem"]["binds"]]
print(" ".join(b for b in binds for s in secrets if s == b or s.startswith(b.rstrip("/") + "/")))' "$secrets")
	check "$pol: no bind is or holds a secret /etc path (${bad:-none})" test -z "$bad"
	# And in a run (the host has most of these):
	# shellcheck disable=SC2086
	out=$("$HUTCH" run --policy "$pol" -- /bin/sh -c 'for p in "$@"; do [ -e "$p" ] && [ "$p" != /etc ] && echo "$p"; done; :' sh $secrets 2>&1)
	check "$pol: no secret /etc path exists in the jail (${out:-none})" test -z "$out"
	out=$("$HUTCH" run --json --policy "$pol" -- "$py" -c 'import fcntl, termios, sys
for name in ("TIOCSTI", "TIOCLINUX"):
    try:
        fcntl.ioctl(0, getattr(termios, name, 0x541C), b"x"); print(name, "OK")
    except OSError as e:
        print(name, e.errno)' </dev/null | json_get 'd["stdout"]["text"].split() + sorted(e["syscall"] for e in d["denials"])')
	check "$pol: TIOCSTI and TIOCLINUX are refused by the filter (EPERM, a denial) ($out)" \
		test "$out" = '["TIOCSTI", "1", "TIOCLINUX", "1", "ioctl"]'
done

# --- what ordinary programs need, under default and strict --------------------------
cat >"$tmp/ordinary.py" <<'EOF'
import asyncio, fcntl, grp, os, pwd, signal, socket, subprocess, sys
def t(name, f):
    try:
        r = f(); print(name, "ok" if r is None else r)
    except OSError as e:
        print(name, "errno", e.errno)
    except Exception as e:
        print(name, "exception", type(e).__name__)
t("getpwuid0", lambda: pwd.getpwuid(0).pw_name)
t("getgrgid0", lambda: grp.getgrgid(0).gr_name)
t("getservbyname", lambda: socket.getservbyname("http", "tcp"))
r, w = os.pipe()
t("set_blocking", lambda: os.set_blocking(r, False))
t("set_inheritable", lambda: os.set_inheritable(r, True) or os.set_inheritable(r, False))
t("settimeout", lambda: socket.socket(socket.AF_UNIX).settimeout(1.5))
os.set_blocking(w, False)
t("set_wakeup_fd", lambda: signal.set_wakeup_fd(w) and None)
async def main(): await asyncio.sleep(0)
t("asyncio", lambda: asyncio.run(main()))
t("setsid", lambda: subprocess.run(["/bin/true"], start_new_session=True).returncode)
t("mkfifo", lambda: os.mkfifo("/tmp/fifo"))
t("mknod_chr", lambda: os.mknod("/tmp/chr", 0o600 | 0o020000, os.makedev(1, 3)))
fd = os.open("/tmp", os.O_RDONLY)
t("FIGETBSZ", lambda: fcntl.ioctl(fd, 2, b"\0" * 8) and None)
EOF
chmod 644 "$tmp/ordinary.py"
for pol in default strict; do
	"$HUTCH" run --policy "$pol" --input "ordinary.py=$tmp/ordinary.py" -- "$py" ordinary.py \
		>"$tmp/out" 2>"$tmp/err"
	r() { awk -v n="$1" '$1 == n { $1 = ""; print substr($0, 2) }' "$tmp/out"; }
	check "$pol: getpwuid(0) and getgrgid(0) name root" test "$(r getpwuid0) $(r getgrgid0)" = "root root"
	check "$pol: getservbyname(http) is 80 (/etc/services)" test "$(r getservbyname)" = 80
	for n in set_blocking set_inheritable settimeout set_wakeup_fd asyncio mkfifo; do
		check "$pol: $n works ($(r $n))" test "$(r $n)" = ok
	done
	check "$pol: subprocess start_new_session (setsid) works ($(r setsid))" test "$(r setsid)" = 0
	check "$pol: mknod of a character device is refused ($(r mknod_chr))" has "$(r mknod_chr)" '^errno (1|13)$'
done
"$HUTCH" run --policy default --input "ordinary.py=$tmp/ordinary.py" -- "$py" ordinary.py >"$tmp/out" 2>&1
check "default: FIGETBSZ is allowed ($(r FIGETBSZ))" test "$(r FIGETBSZ)" = ok
"$HUTCH" run --policy strict --input "ordinary.py=$tmp/ordinary.py" -- "$py" ordinary.py >"$tmp/out" 2>&1
check "strict: an ioctl outside the allow list fails with ENOTTY ($(r FIGETBSZ))" test "$(r FIGETBSZ)" = "errno 25"

# --- environment -----------------------------------------------------------------
for pol in default build convert; do
	out=$("$HUTCH" run --policy "$pol" --env CFLAGS=-O0 --env GIT_AUTHOR_NAME=x --env _X1=y \
		-- /bin/sh -c 'echo "$CFLAGS $GIT_AUTHOR_NAME $_X1"' 2>&1)
	check "$pol: any variable whose name is an identifier may be set ($out)" test "$out" = "-O0 x y"
done
"$HUTCH" run --policy strict --env CFLAGS=-O0 -- /bin/true 2>/dev/null
check "strict: a variable outside its short allow list is refused" test $? = 125
"$HUTCH" run --env 1X=y -- /bin/true 2>/dev/null
check "default: a name that is not an identifier is refused" test $? = 125

# --- network: loopback by default, TCP to itself ----------------------------------
out=$("$HUTCH" run -- "$py" -c 'import socket
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen()
c = socket.create_connection(s.getsockname()); a, _ = s.accept(); c.send(b"hi"); print(a.recv(2).decode())' 2>&1)
check "default: TCP over loopback to itself ($out)" test "$out" = hi
tap_done
