#!/bin/sh
# run-tty.sh: hutch run --tty, driven through a pty pair by python3's pty
# module (the driver holds the caller's terminal): an interactive bash gets
# a prompt on a terminal of the jail's own devpts with job control, the
# caller's TERM where the policy allows it, ^C
# reaches the jail's foreground job, the window size follows the caller's
# (initially and on SIGWINCH), the exit status passes through, the caller's
# terminal settings come back exactly after an exit, a timeout kill and a
# SIGTERM, TIOCSTI stays refused, and without --tty nothing changes.
# Runs as root and as an unprivileged user.
. "$(dirname "$0")/lib.sh"

tap_tmpdir run-tty
tap_stderr="$tmp/err"

if [ ! -x /bin/bash ] || ! "$py" -c 'import pty' 2>/dev/null; then
	skip "hutch run --tty" "needs /bin/bash and python3's pty module"
	tap_done
	exit
fi

# The driver: runs hutch on a new pty (40 rows, 100 columns), plays a
# script of "send TEXT" / "expect TEXT" / "resize R C" / "pause S" /
# "kill SIG" steps
# from its argv after "--", then prints the transcript, whether the
# terminal's settings came back as they were, and hutch's exit status.
cat >"$tmp/drive.py" <<'PYEOF'
import fcntl, os, pty, select, signal, struct, sys, termios, time

steps, argv = [], []
args = sys.argv[1:]
cut = args.index("--")
for s in args[:cut]:
    steps.append(s.split(" ", 1))
argv = args[cut + 1:]

# The caller's terminal, its size and settings fixed before hutch starts.
fd, slave = os.openpty()
fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 100, 0, 0))
before = termios.tcgetattr(slave)
pid = os.fork()
if pid == 0:
    os.close(fd)
    os.setsid()
    fcntl.ioctl(slave, termios.TIOCSCTTY, 0)
    for n in (0, 1, 2):
        os.dup2(slave, n)
    os.execvp(argv[0], argv)
os.close(slave)
out = b""

def read_until(want, t=10.0):
    global out
    end = time.time() + t
    while time.time() < end:
        if want is not None and want in out:
            return True
        r, _, _ = select.select([fd], [], [], 0.1)
        if r:
            try:
                d = os.read(fd, 4096)
            except OSError:
                return False
            if not d:
                return False
            out += d
    return want is None

ok = True
for op, arg in steps:
    arg = arg.encode().decode("unicode_escape").encode("latin-1")
    if op == "send":
        os.write(fd, arg)
    elif op == "expect":
        ok = read_until(arg) and ok
    elif op == "resize":
        r, c = arg.split()
        fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", int(r), int(c), 0, 0))
    elif op == "pause":
        time.sleep(float(arg))
    elif op == "kill":
        time.sleep(0.5)
        os.kill(pid, getattr(signal, arg.decode()))
read_until(None, 3.0)
_, st = os.waitpid(pid, 0)
after = termios.tcgetattr(fd)
sys.stdout.write(out.decode("utf-8", "replace").replace("\r", ""))
print("\n[expects %s] [restored %s] [status %d]" %
      ("met" if ok else "missed", before == after, os.waitstatus_to_exitcode(st)))
PYEOF

drive() { "$py" "$tmp/drive.py" "$@" 2>"$tmp/err"; }
has() { case $1 in *"$2"*) return 0 ;; *) return 1 ;; esac; }

out=$(drive "expect $ " "send stty size; tty; ls /dev/pts | tr '\\\\n' ' '; echo\\r" "expect ptmx" \
	"resize 33 111" "send stty size\\r" "expect 33 111" \
	"send echo s-\$((2*3)); sleep 30\\r" "expect s-6" "pause 1" "send \\x03" "send echo after-\$((6*7))\\r" "expect after-42" \
	"send exit 3\\r" -- "$HUTCH" run --tty -- /bin/bash --norc -i)
check "bash -i under --tty gets a prompt and every expected answer" has "$out" "[expects met]"
check "... the terminal is the jail's own pty: /dev/pts/0, the only one there" \
	has "$out" "/dev/pts/0
0 ptmx"
check "... its size is the caller's (40 100) from the start" has "$out" "40 100"
check "... and follows a resize (SIGWINCH: 33 111)" has "$out" "33 111"
check "... with job control (no 'no job control' warning) and ^C reaching sleep" \
	sh -c "! printf '%s' \"\$1\" | grep -q 'no job control' && printf '%s' \"\$1\" | grep -q after-42" - "$out"
check "... the exit status passes through (3)" has "$out" "[status 3]"
check "... the caller's terminal settings are restored after the exit" has "$out" "[restored True]"
[ "${out#*\[expects met\]}" != "$out" ] || diag "$(printf '%s' "$out" | tail -c 600)"

# TERM: the caller's, unless the request sets one or the policy refuses it.
out=$(TERM=xterm-256color drive -- "$HUTCH" run --tty -- /bin/sh -c 'echo "term=[$TERM]"; stty size')
check "--tty passes the caller's TERM (xterm-256color)" has "$out" "term=[xterm-256color]"
check "... with the caller's window size (40 100)" has "$out" "40 100"
out=$(TERM=xterm-256color drive -- "$HUTCH" run --tty --env TERM=vt100 -- /bin/sh -c 'echo "term=[$TERM]"')
check "... --env TERM=vt100 wins over the caller's" has "$out" "term=[vt100]"
out=$(TERM=xterm-256color drive -- "$HUTCH" run --tty --policy strict -- /bin/sh -c 'echo "term=[$TERM]"')
check "... strict, which does not allow TERM: the jail goes without, and runs" has "$out" "term=[]"
check "... (exit 0)" has "$out" "[status 0]"
out=$(TERM=xterm-256color "$HUTCH" run -- /bin/sh -c 'echo "term=[$TERM]"' </dev/null 2>&1)
same "without --tty the caller's TERM stays out" "term=[]" "$out"

out=$(drive -- "$HUTCH" run --tty --timeout 2s -- /bin/sleep 30)
check "a timeout kill under --tty: exit 124" has "$out" "[status 124]"
check "... and the terminal is restored after it" has "$out" "[restored True]"

out=$(drive "kill SIGTERM" -- "$HUTCH" run --tty -- /bin/sleep 30)
check "SIGTERM to hutch under --tty: the run ends (143 or 125)" \
	sh -c 'case "$1" in *"[status 143]"*|*"[status 125]"*) exit 0;; esac; exit 1' - "$out"
check "... and the terminal is restored after it" has "$out" "[restored True]"

out=$(drive -- "$HUTCH" run --tty -- /usr/bin/python3 -c '
import errno, fcntl, os, termios
try:
    fcntl.ioctl(0, termios.TIOCSTI, b"x"); print("TIOCSTI allowed")
except OSError as e:
    print("TIOCSTI", errno.errorcode[e.errno])
print("ctty", os.ttyname(0), os.tcgetpgrp(0) == os.getpgrp())')
check "TIOCSTI on the jail's controlling terminal: EPERM" has "$out" "TIOCSTI EPERM"
check "... the command is in the terminal's foreground group" has "$out" "ctty /dev/pts/0 True"

out=$(drive -- "$HUTCH" run -- /bin/sh -c 'tty; ls /dev/pts | tr "\n" " "')
check "without --tty: the command has no terminal (its stdin is a pipe)" has "$out" "not a tty"
check "... and no pty of the jail is open" has "$out" "ptmx 
"

rc=0
"$HUTCH" run --tty -- /bin/true </dev/null >/dev/null 2>"$tmp/err" || rc=$?
cp "$tmp/err" "$tmp/msgs"
same "--tty with stdin not a terminal: usage error (125)" "125" "$rc"
check "... naming --tty" grep -q '^hutch run: --tty: standard input is not a terminal' "$tmp/msgs"
rc=0
"$HUTCH" run --tty --json -- /bin/true </dev/null >/dev/null 2>"$tmp/err" || rc=$?
same "--tty with --json: usage error (125)" "125" "$rc"

tap_done
