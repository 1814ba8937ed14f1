#!/bin/sh
# jail-host-ids.sh: whose ids a jail holds on the host, and whose it may
# borrow. A root caller's jails each run as a host uid and gid of their own
# from hutch's range (hutch(1), "Host ids"): two at once differ, and
# neither can signal the other or read the other's private files on a
# bind they share. A root caller's --rw bind is idmapped to its owner, so
# a source others share (sticky, group- or world-writable) is refused
# rather than lent: the sticky-directory attack (clear the sticky bit,
# read the owner's 0600 file) cannot start; a directory only its owner
# writes still works. A single file in a 0700 directory binds --rw.
# What a jail leaves behind (stopped, signal-deaf, zombie-holding and
# daemon processes) is gone when hutch returns, CLI or serve, which the
# clean mark that lets a root caller's next run reuse the id at once
# rests on; the lock file holding the marks is hutch's alone, and a file
# size limit (whose SIGXFSZ a mark's write would draw) changes nothing.
# Real attempts, checked from the host. Root and unprivileged.
. "$(dirname "$0")/lib.sh"

tap_tmpdir host-ids
tap_stderr="$tmp/err"

# ---- a single file inside a 0700 directory ----

mkdir "$tmp/private"
chmod 700 "$tmp/private"
echo one >"$tmp/private/f"
rc=0
"$HUTCH" run --rw "$tmp/private/f:/f" -- /bin/sh -c 'cat /f && echo two >>/f' \
	>"$tmp/out" 2>"$tmp/err" || rc=$?
same "--rw of one file in a 0700 directory: the jail reads and appends to it" "0 one" \
	"$rc $(cat "$tmp/out")"
same "... the host's file has both lines and its owner" "one two $(id -u)" \
	"$(tr '\n' ' ' <"$tmp/private/f")$(stat -c %u "$tmp/private/f")"

# ---- the sticky-directory attack ----

attack='cat /x/mine 2>/dev/null || echo unread; chmod 0777 /x 2>/dev/null || echo kept'
if is_root; then
	mkdir "$tmp/shared"
	chmod 1777 "$tmp/shared"
	echo secret >"$tmp/shared/mine"
	chmod 600 "$tmp/shared/mine"
	rc=0
	"$HUTCH" run --rw "$tmp/shared:/x" -- /bin/sh -c "$attack" >"$tmp/out" 2>"$tmp/err" || rc=$?
	cp "$tmp/err" "$tmp/msg"
	same "root: --rw of a sticky world-writable directory is refused before anything runs" \
		"125 " "$rc $(cat "$tmp/out")"
	same "... in one line naming the flag and why" \
		"hutch: policy_violation: --rw $tmp/shared:/x: source: is a sticky directory others share (as /tmp is): a root caller's jail would act as its owner there; bind a directory below it that only its owner may write" \
		"$(cat "$tmp/msg")"
	same "... the directory keeps its mode (1777), the file its (600)" "1777 600" \
		"$(stat -c %a "$tmp/shared" "$tmp/shared/mine" | tr '\n' ' ' | sed 's/ $//')"
	# An overlay's lower layer is idmapped the same way: refused too,
	# or the jail would read the owner's 0600 file through it.
	rc=0
	"$HUTCH" run --overlay "$tmp/shared:/x" -- /bin/sh -c "$attack" >"$tmp/out" 2>"$tmp/err" || rc=$?
	cp "$tmp/err" "$tmp/msg"
	same "root: --overlay of a sticky world-writable directory is refused, the file unread" \
		"125 " "$rc $(cat "$tmp/out")"
	check "... naming the flag and why" grep -q "^hutch: policy_violation: --overlay $tmp/shared:/x: source: is a sticky directory others share" "$tmp/msg"
	mkdir "$tmp/group"
	chmod 2775 "$tmp/group"
	rc=0
	"$HUTCH" run --rw "$tmp/group:/x" -- /bin/true 2>"$tmp/err" || rc=$?
	cp "$tmp/err" "$tmp/msg"
	same "root: --rw of a group-writable directory is refused too" 125 "$rc"
	check "... saying why" grep -q "source: is writable by its group or by others" "$tmp/msg"
	rc=0
	"$HUTCH" run --rw "$tmp/shared/mine:/m" -- /bin/true 2>/dev/null || rc=$?
	chmod 666 "$tmp/shared/mine"
	"$HUTCH" run --rw "$tmp/shared/mine:/m" -- /bin/true 2>/dev/null || rc="$rc $?"
	chmod 600 "$tmp/shared/mine"
	same "... a file of its own there binds; one others may write is refused" "0 125" "$rc"
	# What still works: a directory of its own below the shared one.
	mkdir "$tmp/shared/own"
	rc=0
	"$HUTCH" run --rw "$tmp/shared/own:/x" -- /bin/sh -c \
		'echo made >/x/f && cat /x/f && stat -c %u:%g /x /x/f && id -u' \
		>"$tmp/out" 2>"$tmp/err" || rc=$?
	same "... a directory below it that only its owner writes: the jail writes there, owning it" \
		"0 made 65534:65534 65534:65534 65534" "$rc $(tr '\n' ' ' <"$tmp/out" | sed 's/ $//')"
	same "... as that owner on the host" "0:0" "$(stat -c %u:%g "$tmp/shared/own/f")"
else
	# Nothing is lent: the jail is the caller, and /var/tmp (sticky,
	# root's) stays as the caller would find it.
	rc=0
	"$HUTCH" run --rw /var/tmp:/x -- /bin/sh -c 'chmod 0777 /x 2>/dev/null || echo kept' \
		>"$tmp/out" 2>"$tmp/err" || rc=$?
	same "unprivileged: --rw /var/tmp binds, and the jail cannot clear its sticky bit" \
		"0 kept" "$rc $(cat "$tmp/out")"
	same "... /var/tmp is still 1777" 1777 "$(stat -c %a /var/tmp)"
fi

# What a jail leaves behind as it ends (its command exits 0 at once):
# a process ignoring every catchable signal, a stopped one, one holding a
# zombie it never reaps, a session leader's daemon with its own child.
# Counted from inside first (so the attempt is known to have been made),
# then from the host once hutch returns: pid 1's namespace is empty
# before the helper can exit, which a root caller's clean mark rests on
# (hutch(1), "Host ids"). An unprivileged jail runs as the caller: the
# same must hold of its processes. $1: the host id the jail runs as.
# Their sleeps last $dur seconds, a number no other test's processes use.
dur="299.$$"
leave_behind='(trap "" HUP INT TERM QUIT USR1 USR2; exec /bin/sleep $D) </dev/null >/dev/null 2>&1 &
/bin/sleep $D </dev/null >/dev/null 2>&1 &
kill -STOP $!
/bin/sh -c "/bin/true & exec /bin/sleep $D" </dev/null >/dev/null 2>&1 &
(setsid /bin/sh -c "/bin/sleep $D & exec /bin/sleep $D" </dev/null >/dev/null 2>&1 &)
i=0
while [ $(grep -l "^State:	[TZ]" /proc/[0-9]*/status 2>/dev/null | wc -l) -lt 2 ] && [ $i -lt 100 ]; do
	sleep 0.05; i=$((i + 1))
done
echo $(grep -l "^State:	[TZ]" /proc/[0-9]*/status 2>/dev/null | wc -l) $(ls -d /proc/[0-9]* | wc -l)'
# Those sleeps, on the host (the pattern does not match its own grep).
left_behind() { grep -l -a "sleep.299[.]$$" /proc/[0-9]*/cmdline 2>/dev/null | wc -l; }

if ! is_root; then
	rc=0
	"$HUTCH" run -- /bin/sh -c "D=$dur; $leave_behind" >"$tmp/out" 2>"$tmp/err" || rc=$?
	read -r stopped procs <"$tmp/out"
	same "unprivileged: a jail's command exits, leaving stopped, signal-deaf, zombie-holding and daemon processes: all gone when hutch returns" \
		"0 yes yes 0" \
		"$rc $([ "${stopped:-0}" -ge 2 ] && echo yes) $([ "${procs:-0}" -ge 8 ] && echo yes) $(left_behind)"
	# A caller under a file size limit: an unprivileged run leases no
	# ids and writes no lock file; it runs as ever.
	rc=0
	out=$( (ulimit -f 64 && "$HUTCH" run -- /bin/echo limited) 2>"$tmp/err") || rc=$?
	same "unprivileged, under ulimit -f 64: the run and its output as ever" "0 limited" "$rc $out"
	tap_done
	exit
fi

# ---- root: two jails at once, two host users ----

mkdir "$tmp/sig" "$tmp/pub"
token="hutch-host-ids-$$"
cat >"$tmp/pair.py" <<'EOF'
import errno, os, sys, time
me, other = sys.argv[1], sys.argv[2]
open("/sig/ready-" + me, "w").close()
end = time.monotonic() + 30
while not os.path.exists("/pub/go") and time.monotonic() < end:
    time.sleep(0.02)
got = []
for who in (me, other):
    try:
        open("/pub/secret-" + who).read()
        got.append("read")
    except OSError as e:
        got.append(errno.errorcode[e.errno])
print(" ".join(got), flush=True)
EOF
for j in a b; do
	o=$([ $j = a ] && echo b || echo a)
	"$HUTCH" run --rw "$tmp/sig:/sig" --ro "$tmp/pub:/pub" --input p.py="$tmp/pair.py" -- \
		/usr/bin/python3 /work/p.py $j $o "$token-$j" >"$tmp/$j.out" 2>"$tmp/$j.err" &
	eval "pid_$j=\$!"
done
wait_for_file() {
	i=0
	while [ ! -e "$1" ] && [ $i -lt 400 ]; do
		sleep 0.05
		i=$((i + 1))
	done
	[ -e "$1" ]
}
wait_for_file "$tmp/sig/ready-a" && wait_for_file "$tmp/sig/ready-b"
check "two root-caller jails run at once" test -e "$tmp/sig/ready-a" -a -e "$tmp/sig/ready-b"

# The jailed python of each, by the token in its command line (hutch's
# own command line has it too, but starts with hutch).
jailed() {
	for c in /proc/[0-9]*/cmdline; do
		if tr '\0' ' ' 2>/dev/null <"$c" | grep -q "^/usr/bin/python3 /work/p.py .* $token-$1 $"; then
			p=${c%/cmdline}
			echo "${p#/proc/}"
			return
		fi
	done
}
ja=$(jailed a)
jb=$(jailed b)
ids() { awk '/^Uid:/ { u = $2 " " $3 " " $4 " " $5 } /^Gid:/ { g = $2 " " $3 " " $4 " " $5 } END { print u "/" g }' "/proc/$1/status"; }
ia=$(ids "$ja")
ib=$(ids "$jb")
diag "jail a: pid $ja ids $ia; jail b: pid $jb ids $ib"
ua=${ia%% *}
ub=${ib%% *}
ga=${ia#*/}
ga=${ga%% *}
gb=${ib#*/}
gb=${gb%% *}
same "from the host: each jail's real, effective, saved and fs uid and gid are one id each" \
	"$ua $ua $ua $ua/$ga $ga $ga $ga $ub $ub $ub $ub/$gb $gb $gb $gb" "$ia $ib"
check "... the two jails' host uids and gids differ" test -n "$ua" -a "$ua" != "$ub" -a "$ga" != "$gb"
check "... and neither is root nor nobody" test "$ua" != 0 -a "$ub" != 0 -a "$ua" != 65534 -a "$ub" != 65534
if grep -q '^hutch:' /etc/subuid 2>/dev/null; then
	skip "... both from the default range" "/etc/subuid names a range for hutch"
else
	check "... both from the default range (1879048192-1879113727)" \
		test "$ua" -ge 1879048192 -a "$ua" -le 1879113727 -a "$ub" -ge 1879048192 -a "$ub" -le 1879113727
fi

# A signal from a's host user to b's process (the pid namespaces aside):
# refused; the control, from b's own, is allowed.
sig=$("$py" -c 'import errno, os, sys
def try_as(uid, gid, pid):
    child = os.fork()
    if child == 0:
        os.setgroups([])
        os.setresgid(gid, gid, gid)
        os.setresuid(uid, uid, uid)
        try:
            os.kill(pid, 0)
            os._exit(0)
        except OSError as e:
            os._exit(e.errno)
    return os.waitpid(child, 0)[1] >> 8
a, ga, b, gb, pb = map(int, sys.argv[1:])
r = [try_as(a, ga, pb), try_as(b, gb, pb)]
print(" ".join(errno.errorcode.get(x, "ok") if x else "ok" for x in r))' "$ua" "$ga" "$ub" "$gb" "$jb" 2>&1)
same "jail a's host user cannot signal jail b's process; b's own can (control)" "EPERM ok" "$sig"

# Each jail's private file on the bind they share, owned by its host ids.
for j in a b; do
	echo "secret of $j" >"$tmp/pub/secret-$j"
	chmod 600 "$tmp/pub/secret-$j"
done
chown "$ua:$ga" "$tmp/pub/secret-a"
chown "$ub:$gb" "$tmp/pub/secret-b"
: >"$tmp/pub/go"
wait "$pid_a"
wait "$pid_b"
same "on a shared bind, each jail reads its own 0600 file and not the other's" \
	"read EACCES/read EACCES" "$(cat "$tmp/a.out")/$(cat "$tmp/b.out")"
check "... and both are gone: no process holds either host uid" \
	sh -c "! grep -l -E '^Uid:	($ua|$ub)	' /proc/[0-9]*/status 2>/dev/null | grep -q ."

# ---- root: a range of one id, held by one jail at a time ----

one=1879200000 # outside the default block: no other jail takes it
rm -f "$tmp/sig"/*
HUTCH_HOST_IDS="$one:1" "$HUTCH" run --rw "$tmp/sig:/sig" -- /bin/sh -c \
	'cat /proc/self/uid_map >/sig/held.tmp && mv /sig/held.tmp /sig/held
	while [ ! -e /sig/release ]; do sleep 0.05; done' \
	>/dev/null 2>"$tmp/hold.err" &
holder=$!
wait_for_file "$tmp/sig/held"
same "HUTCH_HOST_IDS=$one:1: the jail runs as that one id" "65534 $one 1" \
	"$(cat "$tmp/sig/held" | tr -s ' \t' '  ' | sed 's/^ //')"
rc=0
HUTCH_HOST_IDS="$one:1" "$HUTCH" run -- /bin/true 2>"$tmp/err" || rc=$?
cp "$tmp/err" "$tmp/msg"
same "... a second jail while it lives is refused (71), nothing run under its id" 71 "$rc"
same "... saying so in one line" \
	"hutch: sandbox_unavailable: a mechanism the policy requires is not available: host ids: all 1 of the range $one-$one are in use (more jails of root callers at once than the range holds; see hutch(1), Host ids)" \
	"$(cat "$tmp/msg")"
: >"$tmp/sig/release"
wait "$holder"
same "... and once that jail is gone, the id is handed out again" "65534 $one 1" \
	"$(HUTCH_HOST_IDS="$one:1" "$HUTCH" run -- cat /proc/self/uid_map 2>"$tmp/err" | tr -s ' \t' '  ' | sed 's/^ //')"
# A process still holding an id (a jail whose hutch was killed, dying),
# lock or no lock, keeps it from being handed out. Such a process can only
# be about when the id's last jail was not seen to end (its mark unset:
# hutch(1), "Host ids"), so each case starts from one: a jail whose
# command died of a signal (which anyone may have sent to the helper).
unmark() {
	HUTCH_HOST_IDS="$1:1" "$HUTCH" run -- /bin/sh -c 'kill -KILL $$' >/dev/null 2>&1 || :
}
# A root process holding the id, standing in for a jail's process that
# outlived its hutch; it goes when $tmp/linger-ID/go-away appears.
linger() {
	mkdir -p "$tmp/linger-$1"
	chown "$1:$1" "$tmp/linger-$1"
	"$py" -c 'import os, sys, time
os.setgroups([])
os.setresgid(int(sys.argv[1]), int(sys.argv[1]), int(sys.argv[1]))
os.setresuid(int(sys.argv[1]), int(sys.argv[1]), int(sys.argv[1]))
open(sys.argv[2], "w").close()
end = time.monotonic() + 30
while not os.path.exists(sys.argv[3]) and time.monotonic() < end:
    time.sleep(0.05)' "$1" "$tmp/linger-$1/holding" "$tmp/linger-$1/go-away" &
	lingerer=$!
	wait_for_file "$tmp/linger-$1/holding"
}
two=$((one + 1))
unmark "$two"
linger "$two"
rc=0
HUTCH_HOST_IDS="$two:1" "$HUTCH" run -- /bin/true 2>"$tmp/err" || rc=$?
cp "$tmp/err" "$tmp/msg"
same "an id some process holds (no hutch's lock on it) is not handed out" "71 1" \
	"$rc $(grep -c "all 1 of the range $two-$two are in use" "$tmp/msg")"
: >"$tmp/linger-$two/go-away"
wait "$lingerer"
same "... and is once that process is gone" "65534 $two 1" \
	"$(HUTCH_HOST_IDS="$two:1" "$HUTCH" run -- cat /proc/self/uid_map 2>"$tmp/err" | tr -s ' \t' '  ' | sed 's/^ //')"
# A root process (its /proc entry root's) holding the id only as its
# saved uid, or only as its saved gid, holds it too: its ids are read
# (by pidfd where the kernel can, else from its status), not its owner.
unmark "$two"
for kind in uid gid; do
	rm -f "$tmp/linger-$two/holding" "$tmp/linger-$two/go-away"
	"$py" -c 'import os, sys, time
i = int(sys.argv[1])
if sys.argv[4] == "uid":
    os.setresuid(0, 0, i)
else:
    os.setresgid(0, 0, i)
open(sys.argv[2], "w").close()
end = time.monotonic() + 30
while not os.path.exists(sys.argv[3]) and time.monotonic() < end:
    time.sleep(0.05)' "$two" "$tmp/linger-$two/holding" "$tmp/linger-$two/go-away" "$kind" &
	lingerer=$!
	wait_for_file "$tmp/linger-$two/holding"
	rc=0
	HUTCH_HOST_IDS="$two:1" "$HUTCH" run -- /bin/true 2>"$tmp/err" || rc=$?
	cp "$tmp/err" "$tmp/msg"
	same "a root process whose saved $kind is the id: not handed out" "71 1" \
		"$rc $(grep -c "all 1 of the range $two-$two are in use" "$tmp/msg")"
	: >"$tmp/linger-$two/go-away"
	wait "$lingerer"
done
same "... and is once that process is gone" "65534 $two 1" \
	"$(HUTCH_HOST_IDS="$two:1" "$HUTCH" run -- cat /proc/self/uid_map 2>"$tmp/err" | tr -s ' \t' '  ' | sed 's/^ //')"
# hutch killed outright (SIGKILL: no cleanup of its own) while its jail
# has set off a daemon of its own (setsid, reparented to the jail's pid 1):
# pid 1 dies with hutch, the kernel kills the rest of its pid namespace,
# and no process is left holding the id when it is handed out again.
three=$((one + 2))
HUTCH_HOST_IDS="$three:1" "$HUTCH" run --rw "$tmp/sig:/sig" -- /bin/sh -c \
	'(setsid /bin/sleep 300 </dev/null >/dev/null 2>&1 &); : >/sig/daemon; /bin/sleep 300' \
	>/dev/null 2>&1 &
victim=$!
wait_for_file "$tmp/sig/daemon"
held_by() { grep -l -E "^Uid:	$1	" /proc/[0-9]*/status 2>/dev/null | wc -l; }
n=$(held_by "$three")
kill -9 "$victim"
wait "$victim" 2>/dev/null
i=0
while [ "$(held_by "$three")" != 0 ] && [ $i -lt 100 ]; do
	sleep 0.05
	i=$((i + 1))
done
same "SIGKILL of hutch: its jail and the daemon it set off (pid 1, the command, the daemon: 3 or more processes of its id) are gone" \
	"yes 0" "$([ "$n" -ge 3 ] && echo yes) $(held_by "$three")"
same "... and the id is handed out again" "65534 $three 1" \
	"$(HUTCH_HOST_IDS="$three:1" "$HUTCH" run -- cat /proc/self/uid_map 2>"$tmp/err" | tr -s ' \t' '  ' | sed 's/^ //')"
# ---- root: the clean mark, and what must leave it unset ----

# Any process holding the id (real, effective, saved or fs uid or gid).
holders() {
	grep -l -E "^(Uid|Gid):.*	$1(	|\$)" /proc/[0-9]*/status 2>/dev/null | wc -l
}
# rc and whether the refusal names the range of one id $1.
refused() {
	rc=0
	HUTCH_HOST_IDS="$1:1" "$HUTCH" run -- /bin/true 2>"$tmp/err" || rc=$?
	echo "$rc $(grep -c "all 1 of the range $1-$1 are in use" "$tmp/err")"
}
wait_gone() {
	i=0
	while [ "$(holders "$1")" != 0 ] && [ $i -lt 100 ]; do
		sleep 0.05
		i=$((i + 1))
	done
}

# A jail that set off a daemon and whose command then exited: when hutch
# returns, nothing holds the id any more (no waiting): pid 1's pid
# namespace is empty before the helper can exit, which is what the clean
# mark rests on.
four=$((one + 3))
rc=0
HUTCH_HOST_IDS="$four:1" "$HUTCH" run -- /bin/sh -c \
	'(setsid /bin/sleep 300 </dev/null >/dev/null 2>&1 &); /bin/sleep 0.2' 2>"$tmp/err" || rc=$?
same "a jail's command exits, its daemon left behind: gone by the time hutch returns" "0 0" \
	"$rc $(holders "$four")"
# Back to back, the id whose last jail ended is handed out again, without
# a look through /proc.
rc=0
HUTCH_HOST_IDS="$four:1" "$HUTCH" run -- /bin/true 2>"$tmp/err" || rc=$?
if command -v strace >/dev/null 2>&1; then
	strace -f -e trace=openat -o "$tmp/strace" env ASAN_OPTIONS=detect_leaks=0 HUTCH_HOST_IDS="$four:1" "$HUTCH" run -- \
		/bin/true 2>"$tmp/err" || rc="$rc $?"
	same "... and again, back to back, without reading /proc's processes" "0 0" \
		"$rc $(grep -c -E 'openat\(AT_FDCWD, "/proc", ' "$tmp/strace")"
else
	same "... and again, back to back" 0 "$rc"
	skip "... without reading /proc's processes" "no strace"
fi

# sleeping_on_clean ID: ID marked clean by a run that ends, then a hutch
# run with it whose jail sleeps, in the background as $victim, once up.
sleeping_on_clean() {
	HUTCH_HOST_IDS="$1:1" "$HUTCH" run -- /bin/true 2>/dev/null
	rm -f "$tmp/sig/up"
	HUTCH_HOST_IDS="$1:1" "$HUTCH" run --rw "$tmp/sig:/sig" -- /bin/sh -c \
		': >/sig/up; /bin/sleep 300' >/dev/null 2>&1 &
	victim=$!
	wait_for_file "$tmp/sig/up"
}

# hutch SIGKILLed mid-run, on an id marked clean: the mark was cleared
# when the run took the id, so a process still holding it afterwards
# keeps it from being handed out.
five=$((one + 4))
sleeping_on_clean "$five"
kill -9 "$victim"
wait "$victim" 2>/dev/null
wait_gone "$five"
linger "$five"
same "hutch SIGKILLed mid-run: a process holding its id after it keeps the id from a new jail" \
	"71 1" "$(refused "$five")"
: >"$tmp/linger-$five/go-away"
wait "$lingerer"
same "... which is handed out once that process is gone" 0 "$(refused "$five" | cut -d' ' -f1)"

# The helper SIGKILLed mid-run (hutch lives on and reaps it): hutch
# cannot tell that the jail is empty, so the id is not marked clean.
six=$((one + 5))
sleeping_on_clean "$six"
outer=$(awk -v p="$victim" '$4 == p && $2 == "(hutch-exec)" { print $1 }' /proc/[0-9]*/stat 2>/dev/null)
check "the helper's outer process, hutch's child, is found" test -n "$outer"
kill -9 $outer
rc=0
wait "$victim" 2>/dev/null || rc=$?
wait_gone "$six"
linger "$six"
same "helper SIGKILLed: hutch fails the run; a process holding the id after it keeps the id" \
	"yes 71 1" "$([ "$rc" != 0 ] && echo yes) $(refused "$six")"
: >"$tmp/linger-$six/go-away"
wait "$lingerer"
same "... which is handed out once that process is gone" 0 "$(refused "$six" | cut -d' ' -f1)"

# What a jail leaves behind (see leave_behind above), as a root caller's
# jail: the helper exits of its own accord, so the id is marked clean;
# nothing may hold it by then, and the next run gets it at once.
seven=$((one + 6))
unmark "$seven"
rc=0
HUTCH_HOST_IDS="$seven:1" "$HUTCH" run -- /bin/sh -c "D=$dur; $leave_behind" >"$tmp/out" \
	2>"$tmp/err" || rc=$?
read -r stopped procs <"$tmp/out"
same "root: a jail's command exits 0, leaving stopped, signal-deaf, zombie-holding and daemon processes: none left, none of its id, when hutch returns" \
	"0 yes yes 0 0" \
	"$rc $([ "${stopped:-0}" -ge 2 ] && echo yes) $([ "${procs:-0}" -ge 8 ] && echo yes) $(left_behind) $(holders "$seven")"
same "... and the id, marked clean, is handed out to the next jail" "65534 $seven 1" \
	"$(HUTCH_HOST_IDS="$seven:1" "$HUTCH" run -- cat /proc/self/uid_map 2>"$tmp/err" | tr -s ' \t' '  ' | sed 's/^ //')"

# The lock file, whose marks say which ids need no look through /proc,
# is open in hutch alone while its jail runs: not in the helper nor in
# the jail, which could otherwise mark any id clean (or hold its lock).
rm -f "$tmp/sig/up" "$tmp/sig/fds" "$tmp/sig/go"
HUTCH_HOST_IDS="$seven:1" "$HUTCH" run --rw "$tmp/sig:/sig" -- /bin/sh -c \
	'for f in /proc/self/fd/*; do readlink "$f"; done >/sig/fds; : >/sig/up
	while [ ! -e /sig/go ]; do sleep 0.05; done' >/dev/null 2>"$tmp/err" &
runner=$!
wait_for_file "$tmp/sig/up"
# hutch's children (the helper's outer process) and the jail's processes
# (its host id), counted as they are found; other hutch runs may hold the
# lock meanwhile.
ours=0 theirs=0 hutch_has=no
for p in /proc/[0-9]*; do
	ls -l "$p/fd" 2>/dev/null | grep -q 'host-ids[.]lock' || continue
	if [ "${p#/proc/}" = "$runner" ]; then
		hutch_has=yes
	elif [ "$(awk '{ print $4 }' "$p/stat" 2>/dev/null)" = "$runner" ] ||
		grep -q -E "^Uid:	$seven	" "$p/status" 2>/dev/null; then
		theirs=$((theirs + 1))
	fi
done
n=$(ps -o pid= --ppid "$runner" | wc -l)
n=$((n + $(holders "$seven")))
: >"$tmp/sig/go"
wait "$runner"
same "while a jail runs, its lock is open in its hutch alone: not in the helper nor in the jail's processes (2 or more), which see none of it" \
	"yes 0 yes 0" \
	"$hutch_has $theirs $([ "$n" -ge 3 ] && echo yes) $(grep -c host-ids "$tmp/sig/fds")"

# A root caller under a file size limit (ulimit -f, a unit's
# LimitFSIZE=): the marks lie gigabytes into the lock file, and a write
# there would be SIGXFSZ, killing hutch with the jail's output unread.
# It runs; it clears a clean mark without writing (a process holding the
# id after it is still seen) and sets none.
eight=$((one + 7))
HUTCH_HOST_IDS="$eight:1" "$HUTCH" run -- /bin/true 2>/dev/null
rc=0
out=$( (ulimit -f 64 && HUTCH_HOST_IDS="$eight:1" "$HUTCH" run -- /bin/echo limited) \
	2>"$tmp/err") || rc=$?
same "root, under ulimit -f 64, on an id marked clean: the run and its output as ever" \
	"0 limited" "$rc $out"
rc=0
out=$( (ulimit -f 64 && HUTCH_HOST_IDS="$eight:1" "$HUTCH" run -- /bin/echo again) \
	2>"$tmp/err") || rc=$?
same "... and again, on the id it could not mark" "0 again" "$rc $out"
linger "$eight"
same "... which it left unmarked: a process holding the id keeps it from a new jail" "71 1" \
	"$(refused "$eight")"
: >"$tmp/linger-$eight/go-away"
wait "$lingerer"

# The same through a root `hutch serve`, whose forkserver reaps the
# helper and passes its wait status on: a run that ends of its own
# accord marks its id clean (its byte in the lock file), with nothing of
# the jail left when the reply comes; one its --lifetime killed, or whose
# command exited 71, does not.
cclient=${HUTCH_CLIENT:-}
for f in ${HUTCH_PROGS:+"$HUTCH_PROGS/../../examples/hutch-client"} \
	"$here/../../examples/hutch-client" "$here/hutch-client"; do
	[ -z "$cclient" ] && [ -x "$f" ] && cclient=$f
done
nine=$((one + 8))
mark_of() { od -An -tu1 -j "$1" -N1 /run/hutch/host-ids.lock | tr -d ' '; }
if [ -n "$cclient" ]; then
	mkdir -m 700 "$tmp/srv"
	HUTCH_HOST_IDS="$nine:1" "$HUTCH" serve --socket "$tmp/srv/s" --lifetime 3s --pool 2 \
		--log-level error 2>"$tmp/srv.err" &
	server=$!
	wait_for_file "$tmp/srv/s"
	unmark "$nine"
	rc=0
	"$cclient" --socket "$tmp/srv/s" run -- /bin/sh -c "D=$dur; $leave_behind" \
		>"$tmp/out" 2>"$tmp/err" || rc=$?
	read -r stopped procs <"$tmp/out"
	same "hutch serve (root): a run leaves stopped, signal-deaf, zombie-holding and daemon processes: none left, none of its id, at the reply; the id marked clean" \
		"0 yes yes 0 0 1" \
		"$rc $([ "${stopped:-0}" -ge 2 ] && echo yes) $([ "${procs:-0}" -ge 8 ] && echo yes) $(left_behind) $(holders "$nine") $(mark_of "$nine")"
	rc=0
	"$cclient" --socket "$tmp/srv/s" run -- /bin/sh -c "D=$dur; $leave_behind; sleep 30" \
		>/dev/null 2>&1 || rc=$?
	same "... a run --lifetime kills: nothing left, the id not marked clean" "124 0 0 0" \
		"$rc $(left_behind) $(holders "$nine") $(mark_of "$nine")"
	"$cclient" --socket "$tmp/srv/s" run -- /bin/true >/dev/null 2>&1
	rc=0
	"$cclient" --socket "$tmp/srv/s" run -- /bin/sh -c 'exit 71' >/dev/null 2>&1 || rc=$?
	same "... a command exiting 71 (the helper's failure code): the id not marked clean" "71 0" \
		"$rc $(mark_of "$nine")"
	# Asked for a pool, a root server builds no jail ahead: one would
	# run as no leased id (and its end would mark none).
	sleep 0.3
	n=0
	for fs in $(ps -o pid= --ppid "$server"); do
		n=$((n + $(ps -o pid= --ppid "$fs" | wc -l)))
	done
	same "... and with --pool 2, between runs the server's helpers hold no jail built ahead" 0 "$n"
	kill "$server"
	wait "$server" 2>/dev/null || :
else
	skip "hutch serve (root): what a run leaves behind, and the marks" "no hutch-client (examples/)"
fi

# In turn: back to back, runs of one range get one id after another, not
# the one the run before gave back: counts a jail leaves charged to its id
# (a descriptor handed out over a socket) cannot pile up over a few runs
# onto the id of the next (hutch(1), "Host ids").
ten=$((one + 16))
got=
for i in 1 2 3 4; do
	got="$got $(HUTCH_HOST_IDS="$ten:8" "$HUTCH" run -- cat /proc/self/uid_map 2>/dev/null |
		awk '{print $2}')"
done
same "four runs back to back in a range of 8: four ids, one after another" 4 \
	"$(echo $got | tr ' ' '\n' | sort -u | grep -c -E '^[0-9]+$')"

# A new lock file is made whole: every id no process holds is marked clean
# before the file takes its name, so a host's first runs need no scan,
# and an id a process holds is not marked. A tmpfs of our own over
# /run/hutch (a mount namespace of our own) stands for a fresh boot.
eleven=$((one + 32))
if command -v unshare >/dev/null 2>&1 && command -v setpriv >/dev/null 2>&1; then
	setpriv --reuid "$eleven" --regid "$eleven" --clear-groups /bin/sleep 60 &
	holder=$!
	trace=
	# LeakSanitizer (a sanitizer build) cannot run under ptrace.
	command -v strace >/dev/null 2>&1 &&
		trace="strace -f -e trace=openat -o $tmp/strace-new env ASAN_OPTIONS=detect_leaks=0"
	out=$(unshare -m /bin/sh -c "mount -t tmpfs -o mode=755 hutch-test /run/hutch &&
		HUTCH_HOST_IDS=$eleven:2 $trace '$HUTCH' run -- cat /proc/self/uid_map &&
		ls -l /run/hutch" 2>&1)
	kill "$holder"
	wait "$holder" 2>/dev/null || :
	same "a new lock file: the id a process holds is skipped, the next taken" "$((eleven + 1))" \
		"$(printf '%s\n' "$out" | awk 'NR == 1 {print $2}')"
	check "... the file took its name, root's and 0600" \
		sh -c "printf '%s\n' \"\$1\" | grep -q -E '^-rw------- 1 root root .* host-ids.lock\$'" - "$out"
	if [ -n "$trace" ]; then
		# The file's own scan, made before it had its name, and one for
		# the held id, whose mark that scan left unset.
		same "... with two looks through /proc: the new file's, the held id's" 2 \
			"$(grep -c -E 'openat\(AT_FDCWD, "/proc", ' "$tmp/strace-new")"
		out=$(unshare -m /bin/sh -c "mount -t tmpfs -o mode=755 hutch-test /run/hutch &&
			HUTCH_HOST_IDS=$eleven:2 '$HUTCH' run -- /bin/true &&
			HUTCH_HOST_IDS=$eleven:2 $trace '$HUTCH' run -- cat /proc/self/uid_map" 2>&1)
		same "... and a first use of an id marked so needs no look at all" "0 $((eleven + 1))" \
			"$(grep -c -E 'openat\(AT_FDCWD, "/proc", ' "$tmp/strace-new") $(printf '%s\n' "$out" |
				awk 'NR == 1 {print $2}')"
	else
		skip "... with two looks through /proc: the new file's, the held id's" "no strace"
		skip "... and a first use of an id marked so needs no look at all" "no strace"
	fi
else
	skip "a new lock file made whole" "no unshare or setpriv"
fi

for bad in 0:5 60000:2000 2147483647:2 x:1; do
	rc=0
	HUTCH_HOST_IDS=$bad "$HUTCH" run -- /bin/true 2>"$tmp/err" || rc=$?
	cp "$tmp/err" "$tmp/msg"
	same "HUTCH_HOST_IDS=$bad: refused (71), in words" \
		"71 hutch: sandbox_unavailable: a mechanism the policy requires is not available: host ids: HUTCH_HOST_IDS must be START:COUNT, from 1 to 2147483647 and missing 61184-65535" \
		"$rc $(cat "$tmp/msg")"
done

tap_done
