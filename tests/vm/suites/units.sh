#!/bin/sh
# tests/vm/suites/units.sh: the package's systemd units, live. hutch.socket
# started by systemctl; a member of group "hutch" (made by the package's
# sysusers entry) gets runs answered by the socket-activated `hutch serve`
# under hutch.service's own sandboxing; a user outside the group is refused
# by the socket's permissions; per-run cgroups appear under the service's
# delegated subtree; `systemctl stop` lets a run in flight finish.
. "$HUTCH_SRCDIR/tests/integ/lib.sh"
tap_tmpdir units
client=$HUTCH_SRCDIR/examples/hutch_client.py
sock=/run/hutch/hutch.sock
cg=/sys/fs/cgroup/system.slice/hutch.service

# as USER COMMAND...: COMMAND as USER with the user's groups, from /.
as() {
	u=$1
	shift
	(cd / && setpriv --reuid "$(id -u "$u")" --regid "$(id -g "$u")" --init-groups \
		env -i PATH=/usr/bin:/bin "$@")
}
# field FILE EXPR: EXPR on d, the result document of the final event the
# client's --json printed to FILE.
field() { "$py" -c "import json, sys; d = json.load(open(sys.argv[1]))['exit']; print($2)" "$1"; }

check "the package made group hutch" getent group hutch
useradd -M -N -G hutch -s /bin/sh hclient
check "systemctl start hutch.socket" systemctl start hutch.socket
same "the socket is root:hutch 0660" "srw-rw---- root hutch" "$(stat -c '%A %U %G' "$sock")"
same "hutch.service waits for a client" inactive "$(systemctl is-active hutch.service)"

as hclient "$py" "$client" --socket "$sock" --json run -- /bin/sh -c 'echo ran; id -u' \
	>"$tmp/r1" 2>"$tmp/e1"
same "a member of hutch: a run answered" "exited 0" "$(field "$tmp/r1" 'd["status"], d["exit_code"]' | tr -d "(),'")"
# Unprivileged, the service can map only its own uid into a jail's user
# namespace: the jail runs as hutch-serve (DESIGN.md: 65534 is for root).
same "... its output: the service's own uid, not root" "ran $(id -u hutch-serve)" "$(field "$tmp/r1" 'd["stdout"]["text"]' | tr '\n' ' ' | sed 's/ *$//')"
same "... the jail under the unit's sandboxing: namespaces, Landlock" \
	"7 True" "$(field "$tmp/r1" 'len(d["jail"]["namespaces"]), d["jail"]["landlock_abi"] > 0' | tr -d "(),")"
[ -s "$tmp/e1" ] && diag "client stderr ends: $(tail -n 2 "$tmp/e1" | tr "\n" " ")"
same "hutch.service was started by the socket" active "$(systemctl is-active hutch.service)"
svc_uid=$(stat -c %u "/proc/$(systemctl show -P MainPID hutch.service)")
same "... running as its own user hutch-serve, not root" hutch-serve "$(id -nu "$svc_uid")"

as nobody "$py" "$client" --socket "$sock" ping >"$tmp/r2" 2>"$tmp/e2"
rc=$?
check "nobody, outside group hutch: refused by the socket (rc $rc)" \
	test "$rc" != 0 -a ! -s "$tmp/r2"
check "... with EACCES" grep -q "Permission denied" "$tmp/e2"

# A run that lasts: its cgroup under the service's delegated subtree, and
# `systemctl stop` while it runs (drain: it finishes and is answered).
as hclient "$py" "$client" --socket "$sock" --json run -- /bin/sh -c 'sleep 4; echo late' \
	>"$tmp/r3" 2>"$tmp/e3" &
bg=$!
# Until the run's cgroup shows (bounded: under emulation on a loaded host
# the client's start alone has taken over 2 s); the run lasts 4 s more.
runs=0
for _ in $(seq 40); do
	runs=$(find "$cg" -mindepth 1 -type d | grep -v -x "$cg/supervisor" | wc -l)
	[ "$runs" -ge 1 ] && break
	sleep 0.25
done
check "a run's cgroup is under $cg ($runs found)" test "$runs" -ge 1
[ "$runs" -ge 1 ] || diag "under $cg: $(find "$cg" -mindepth 1 -type d | tr '\n' ' ')" \
	"probe in the unit: $(cat "$cg/cgroup.subtree_control" 2>&1)"
systemctl stop hutch.socket hutch.service
wait $bg
same "systemctl stop drains: the run in flight is answered" "exited late" \
	"$(field "$tmp/r3" 'd["status"], d["stdout"]["text"].strip()' | tr -d "(),'")"
same "... the service stopped cleanly" inactive "$(systemctl is-active hutch.service)"
check "... the socket is gone" test ! -e "$sock"
check "... nothing left under the service's cgroup" test ! -d "$cg"
journalctl -u hutch.service --no-pager -q -o cat 2>/dev/null | grep -v -E '^(Started|Stopped|Stopping|Scheduled|Start request)' | head -n 8 | sed 's/^/# journal: /'
userdel hclient
tap_done
