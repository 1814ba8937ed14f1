#!/bin/sh
# jail-pty.sh: every jail has pseudo-terminals of its own (a devpts
# instance, /dev/ptmx -> pts/ptmx), with or without --tty: os.openpty and
# pty.fork work as the jail's user, the host's terminals are not in it, the
# instance is bounded, and TIOCSTI and TIOCLINUX stay refused on a pty the
# jail owns and controls. Runs as root and as an unprivileged user.
. "$(dirname "$0")/lib.sh"

tap_tmpdir jail-pty
tap_stderr="$tmp/err"

# jpy POLICY PROGRAM: a Python program in a jail, its stdout.
jpy() { "$HUTCH" run --policy "$1" -- /usr/bin/python3 -c "$2" 2>"$tmp/err"; }

same "/dev/ptmx links to the instance's own ptmx" "pts/ptmx" \
	"$("$HUTCH" run -- /bin/readlink /dev/ptmx 2>"$tmp/err")"
same "/dev/pts is a devpts of the jail's own: only ptmx in it" "devpts ptmx" \
	"$("$HUTCH" run -- /bin/sh -c 'echo $(stat -f -c %T /dev/pts) $(ls /dev/pts)' 2>"$tmp/err")"
same "pts/ptmx is a character device the jail user may open (0666)" "c 666" \
	"$("$HUTCH" run -- /bin/sh -c 'stat -c "%F %a" /dev/pts/ptmx | sed "s/character special file/c/"' 2>"$tmp/err")"

openpty='
import os
m, s = os.openpty()
os.write(s, b"ping\n")
print(os.ttyname(s), os.read(m, 100).decode().strip(), os.stat(os.ttyname(s)).st_uid == os.getuid())'
same "os.openpty works in the jail, the slave is the jail user's" "/dev/pts/0 ping True" \
	"$(jpy default "$openpty")"
same "strict: os.openpty works too (its ioctl allow list has the pty requests)" \
	"/dev/pts/0 ping True" "$(jpy strict "$openpty")"

# In pty.fork's child the pty is the controlling terminal: TIOCSTI would
# push input into it (the host allows that when dev.tty.legacy_tiocsti=1).
ptyfork='
import errno, fcntl, os, pty, sys, termios
pid, fd = pty.fork()
if pid == 0:
    res = []
    for name, req in (("TIOCSTI", termios.TIOCSTI), ("TIOCLINUX", 0x541C)):
        try:
            fcntl.ioctl(0, req, b"\x0c")
            res.append(name + "=allowed")
        except OSError as e:
            res.append(name + "=" + errno.errorcode[e.errno])
    print("child", os.isatty(0), os.ttyname(0), *res)
    sys.stdout.flush()
    os._exit(0)
out = b""
while True:
    try:
        d = os.read(fd, 1024)
    except OSError:
        break
    if not d:
        break
    out += d
os.waitpid(pid, 0)
print(out.decode().replace("\r", "").replace("\x0c", "").strip())'
same "pty.fork works; TIOCSTI and TIOCLINUX on its controlling pty get EPERM" \
	"child True /dev/pts/0 TIOCSTI=EPERM TIOCLINUX=EPERM" "$(jpy default "$ptyfork")"

# The same program on the host shows the probe can tell: TIOCSTI goes
# through there when the kernel still allows it.
if [ "$(cat /proc/sys/dev/tty/legacy_tiocsti 2>/dev/null)" = 1 ]; then
	case $(/usr/bin/python3 -c "$ptyfork" 2>/dev/null) in
	*TIOCSTI=allowed*) ok "control: the same TIOCSTI succeeds on the host" ;;
	*) not_ok "control: the same TIOCSTI succeeds on the host" ;;
	esac
else
	skip "control: TIOCSTI on the host" "dev.tty.legacy_tiocsti is not 1"
fi

bound='
import os
n = 0
try:
    while n < 200:
        os.openpty()
        n += 1
except OSError as e:
    print(n, e.errno)'
same "a jail holds at most 64 terminals (the 65th: ENOSPC)" "64 28" "$(jpy default "$bound")"

# Each jail's instance is its own: a second jail's first pty is pts/0 again
# while another jail holds one open.
"$HUTCH" run -- /usr/bin/python3 -c 'import os, time; m, s = os.openpty(); time.sleep(3)' \
	>/dev/null 2>&1 &
sleep 1
same "a second jail's first pty is pts/0 while another jail holds one" "/dev/pts/0 ping True" \
	"$(jpy default "$openpty")"
wait

tap_done
