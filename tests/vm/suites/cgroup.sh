#!/bin/sh
# tests/vm/suites/cgroup.sh: cgroup v2 limits under systemd's delegation,
# as root in a system unit (systemd-run -p Delegate=yes), as the user
# tester in a system unit (-p User=tester -p Delegate=yes) and in its
# systemd --user (systemd-run --user -p Delegate=yes, with linger); and
# one OOM run in a scope (systemd-run --scope -p Delegate=yes). In each
# of the three units: hutch probe says cgroup available; hutch moves itself
# into the leaf "supervisor" of the delegated cgroup and enables memory and
# pids there; a run that allocates past --memory in several processes is
# killed by memory.max (a 512 MiB mapping works: RLIMIT_AS is not 64 MiB;
# one 100 MiB allocation is an OOM kill, not a MemoryError) and reported
# (oom_killed, the limit, its own stderr line); a fork bomb stops at
# pids.max while the guest stays responsive; nothing is left in the
# cgroup tree after a run, after a SIGKILL of hutch and after hutch serve
# stops; the unit's cgroup goes when the unit ends. Outside a delegated
# unit, probe says exactly what is missing.
. "$HUTCH_SRCDIR/tests/integ/lib.sh"

tap_tmpdir vm-cgroup
scen=$tmp/scenario
envs="-E HUTCH=$HUTCH -E HUTCH_EXEC=$HUTCH_EXEC"
[ -n "${HUTCH_POLICY_PATH:-}" ] && envs="$envs -E HUTCH_POLICY_PATH=$HUTCH_POLICY_PATH"

# The scenario runs inside the delegated unit and prints "R ok TEXT",
# "R fail TEXT" and "D TEXT" (diagnostics) lines.
cat >"$scen" <<'EOF'
#!/bin/sh
r() { if [ "$1" = 0 ]; then echo "R ok $2"; else echo "R fail $2"; fi; }
d() { echo "D $*"; }
# j FILE EXPR: a Python expression on the JSON document in FILE.
j() { python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
v = eval(sys.argv[2])
print(v if isinstance(v, str) else json.dumps(v))' "$1" "$2" 2>&1; }
base=/sys/fs/cgroup$(sed -n 's/^0:://p' /proc/self/cgroup)
w=$(mktemp -d)
d "delegated cgroup $base, euid $(id -u)"

"$HUTCH" probe --json >"$w/probe"
got=$(j "$w/probe" '[m for m in d["mechanisms"] if m["mechanism"] == "cgroup"][0]')
case $got in *'"available": true'*) r 0 "probe: cgroup available" ;; *) r 1 "probe: cgroup available" ;; esac
d "probe: $got"

# The first run: probes (the canary has 10 s, which a loaded TCG guest
# may need; then it probes again) and arranges the subtree.
for i in 1 2 3; do
	"$HUTCH" run --json -- /bin/true >"$w/first"
	got=$(j "$w/first" '[d["status"], d["error"]]')
	d "first run, try $i: $got"
	case $got in '["exited", null]') break ;; esac
done

# Several processes, each below the limit, together past it.
"$HUTCH" run --json --memory 64M --timeout 120s -- /bin/sh -c \
	'for i in 1 2 3 4; do python3 -c "b = bytearray(30 << 20); import time; time.sleep(60)" & done; wait' >"$w/oom"
got=$(j "$w/oom" '[d["jail"]["cgroup"], d["status"], d["usage"]["oom_killed"], d["usage"]["memory_limit_bytes"]]')
[ "$got" = '["applied", "signaled", true, 67108864]' ]
r $? "4 processes of 30 MiB under --memory 64M: killed by memory.max, oom_killed, the limit reported"
[ "$got" = '["applied", "signaled", true, 67108864]' ] || d "oom: $(j "$w/oom" '[d["status"], d["error"]]')"
d "oom: $got; oom_kills $(j "$w/oom" 'd["usage"]["oom_kills"]'), peak $(j "$w/oom" 'd["usage"].get("memory_peak_bytes")'), wall $(j "$w/oom" 'd["usage"]["wall_ms"]') ms"
got=$(j "$w/oom" 'd.get("limit")')
[ "$got" = memory ]
r $? "... and the result says \"limit\": \"memory\" (run/memory-limit.c)"
case $(sed -n 's/^0:://p' /proc/self/cgroup) in
*/supervisor) r 0 "hutch moved itself (and this shell) into the leaf supervisor" ;;
*) r 1 "hutch moved itself (and this shell) into the leaf supervisor" ;;
esac
got=$(cat "$base/cgroup.subtree_control")
case " $got " in *" memory "*) case " $got " in *" pids "*) ok=0 ;; *) ok=1 ;; esac ;; *) ok=1 ;; esac
r $ok "memory and pids enabled for the runs ($got)"

"$HUTCH" run --json --memory 64M -- python3 -c \
	'import mmap; m = mmap.mmap(-1, 512 << 20); print("mapped")' >"$w/as"
got=$(j "$w/as" '[d["status"], d["exit_code"], d["stdout"]["text"]]')
[ "$got" = '["exited", 0, "mapped\n"]' ]
r $? "a 512 MiB mapping under --memory 64M works: RLIMIT_AS is not the limit"
[ "$got" = '["exited", 0, "mapped\n"]' ] || d "mmap: $got $(j "$w/as" 'd["stderr"]')"
"$HUTCH" run --json --memory 64M -- python3 -c 'b = bytearray(100 << 20)' >"$w/one"
got=$(j "$w/one" '[d["status"], d["signal"]["name"] if d["signal"] else None, d["usage"]["oom_killed"]]')
[ "$got" = '["signaled", "SIGKILL", true]' ]
r $? "one 100 MiB allocation: an OOM kill (SIGKILL), not a MemoryError"
[ "$got" = '["signaled", "SIGKILL", true]' ] || d "one: $got"
"$HUTCH" run --memory 64M -- python3 -c 'b = bytearray(100 << 20)' >/dev/null 2>"$w/err"
rc=$?
grep -q '^hutch: oom_killed: the jail reached its memory limit (memory_bytes 67108864, cgroup memory.max); the kernel killed [0-9]* process' "$w/err"
r $? "without --json: exit $rc, its own stderr line"
d "stderr: $(head -c 300 "$w/err")"

# A fork bomb (every process forks for ever, and retries at once when
# refused, so all of them want the CPU): pids.max holds it; the guest
# answers meanwhile; the timeout ends it.
"$HUTCH" run --json --processes 32 --timeout 30s -- python3 -c 'import os
while True:
    try:
        os.fork()
    except OSError:
        pass' >"$w/bomb" 2>&1 &
hp=$!
# Responsive: a CPU-bound loop outside the jail, run for 4 s of the bomb,
# gets a fair share of the CPU against the whole jail, in CPU time (the
# guest's own accounting, whatever the host's load does to wall time).
i=0
while [ $i -lt 100 ] && ! ls -d "$base"/hutch-$hp-* >/dev/null 2>&1; do sleep 0.2; i=$((i + 1)); done
jcg=$(ls -d "$base"/hutch-$hp-* 2>/dev/null | head -n 1)
sleep 3
u0=$(sed -n 's/^usage_usec //p' "$jcg/cpu.stat" 2>/dev/null)
mine=$(python3 -c 'import time
t, e = time.process_time(), time.monotonic() + 4
while time.monotonic() < e:
    pass
print(int((time.process_time() - t) * 1e6))')
u1=$(sed -n 's/^usage_usec //p' "$jcg/cpu.stat" 2>/dev/null)
maxcur=0 worst=0 i=0
while [ $i -lt 30 ] && kill -0 $hp 2>/dev/null; do
	for f in "$base"/hutch-*/pids.current; do
		[ -f "$f" ] || continue
		c=$(cat "$f" 2>/dev/null || echo 0)
		[ "$c" -gt "$maxcur" ] && maxcur=$c
	done
	t0=$(date +%s%N)
	/bin/ls / >/dev/null
	t=$((($(date +%s%N) - t0) / 1000000))
	[ $t -gt $worst ] && worst=$t
	sleep 0.5
	i=$((i + 1))
done
wait $hp
got=$(j "$w/bomb" '[d["jail"]["cgroup"], d["usage"]["forks_refused"] > 0]')
[ "$got" = '["applied", true]' ]
r $? "a fork bomb under --processes 32: pids.max refused forks ($(j "$w/bomb" 'd["usage"]["forks_refused"]') times)"
d "bomb: $(j "$w/bomb" '[d["status"], d["error"]]' | head -c 200)"
[ "$maxcur" -gt 0 ] && [ "$maxcur" -le 32 ]
r $? "pids.current never above pids.max 32 (highest seen: $maxcur)"
jail_us=$((${u1:-0} - ${u0:-0}))
[ -n "$u0" ] && [ -n "$mine" ] && [ $((mine * 100)) -ge $(((mine + jail_us) * 25)) ]
r $? "the guest stayed responsive: a loop outside got $((mine / 1000)) ms of CPU against the jail's $((jail_us / 1000)) ms (at least a quarter)"
d "during the bomb ls / took at most $worst ms (wall, under the host's load); cpu for the runs: $(cat "$base/cgroup.subtree_control")"

left=$(ls -d "$base"/hutch-* 2>/dev/null)
[ -z "$left" ]
r $? "no run's cgroup left after the runs"
[ -z "$left" ] || d "left: $left"

# SIGKILL of hutch mid-run: the jail dies with it; the next hutch removes
# the empty cgroup it left.
"$HUTCH" run -- /bin/sleep 300 >/dev/null 2>&1 &
hp=$!
i=0
while [ $i -lt 100 ] && ! ls -d "$base"/hutch-$hp-* >/dev/null 2>&1; do sleep 0.2; i=$((i + 1)); done
cg=$(ls -d "$base"/hutch-$hp-* 2>/dev/null | head -n 1)
[ -n "$cg" ] && sleep 1
kill -KILL $hp
wait $hp 2>/dev/null
i=0
while [ $i -lt 50 ] && [ -n "$cg" ] && grep -q '^populated 1' "$cg/cgroup.events" 2>/dev/null; do sleep 0.2; i=$((i + 1)); done
[ -n "$cg" ] && grep -q '^populated 0' "$cg/cgroup.events"
r $? "SIGKILL of hutch: its jail's cgroup empties (the jail died with it)"
"$HUTCH" run -- /bin/true
[ -n "$cg" ] && [ ! -d "$cg" ] && [ -z "$(ls -d "$base"/hutch-* 2>/dev/null)" ]
r $? "the next run removes the cgroup the killed hutch left"

# hutch serve: its supervisor in the leaf, a cgroup per run, none after.
"$HUTCH" serve --socket "$w/sock" 2>"$w/serve.err" &
sp=$!
i=0
while [ $i -lt 100 ] && [ ! -S "$w/sock" ]; do sleep 0.1; i=$((i + 1)); done
python3 - "$w/sock" >"$w/served" 2>&1 <<'PY'
import json, socket, struct, sys
s = socket.socket(socket.AF_UNIX)
s.connect(sys.argv[1])
def recv(n):
    b = b""
    while len(b) < n:
        c = s.recv(n - len(b))
        if not c:
            raise SystemExit("closed")
        b += c
    return b
body = json.dumps({"version": 1, "id": 1, "run": {"version": 1, "argv": ["/bin/echo", "served"],
                   "limits": {"memory_bytes": 67108864}}}).encode()
s.sendall(struct.pack(">I", len(body)) + body)
while True:
    ev = json.loads(recv(struct.unpack(">I", recv(4))[0]))
    if "live" not in ev:
        break
print(json.dumps(ev))
PY
got=$(python3 -c 'import json, sys; e = json.load(open(sys.argv[1])); d = e["exit"]; print(d["stdout"]["text"].strip(), d["jail"]["cgroup"])' "$w/served" 2>&1)
[ "$got" = "served applied" ]
r $? "serve: a run answered with the cgroup applied"
[ "$got" = "served applied" ] || d "served: $(head -c 300 "$w/served")"
case $(sed -n 's/^0:://p' /proc/$sp/cgroup) in */supervisor) r 0 "serve's supervisor is in the leaf" ;;
*) r 1 "serve's supervisor is in the leaf ($(cat /proc/$sp/cgroup))" ;; esac
[ -z "$(ls -d "$base"/hutch-* 2>/dev/null)" ]
r $? "serve: no run's cgroup left after its run"
kill -TERM $sp
wait $sp
rc=$?
[ $rc = 0 ] && [ -z "$(ls -d "$base"/hutch-* 2>/dev/null)" ]
r $? "serve stops (exit $rc), nothing of its runs left"
d "left in $base: $(cd "$base" && ls -d */ 2>/dev/null | tr '\n' ' ')"
rm -rf "$w"
EOF
chmod 755 "$tmp"
chmod 644 "$scen"

# gone DIR: true once DIR is gone, waiting up to 5 s (a unit's cgroup
# goes shortly after the unit ends).
gone() {
	i=0
	while [ $i -lt 50 ] && [ -d "$1" ]; do sleep 0.1; i=$((i + 1)); done
	[ ! -d "$1" ]
}

# report PREFIX FILE: the scenario's lines as TAP.
report() {
	if ! grep -q '^R ' "$2"; then
		not_ok "$1: the scenario ran"
		diag "$(head -c 1500 "$2")"
		return
	fi
	while IFS= read -r line; do
		case $line in
		"R ok "*) ok "$1: ${line#R ok }" ;;
		"R fail "*) not_ok "$1: ${line#R fail }" ;;
		"D "*) diag "$1: ${line#D }" ;;
		*) diag "$1: $line" ;;
		esac
	done <"$2"
}

# ---- root, in a system unit ----
# shellcheck disable=SC2086
systemd-run -q --wait --pipe --unit=hutch-vm-cgroup -p Delegate=yes $envs \
	/bin/sh "$scen" >"$tmp/system.out" 2>&1 </dev/null
report "system unit" "$tmp/system.out"
check "system unit: its cgroup is gone once it ended" \
	gone /sys/fs/cgroup/system.slice/hutch-vm-cgroup.service

# ---- the user tester, in a system unit (User=tester, Delegate=yes) ----
# systemd hands the unit's cgroup to tester; hutch, unprivileged, cannot
# read the system manager's trusted.delegate mark and relies on the
# user.delegate one.
# shellcheck disable=SC2086
systemd-run -q --wait --pipe --unit=hutch-vm-cgroup-as-user -p Delegate=yes -p User=tester \
	$envs /bin/sh "$scen" >"$tmp/sysuser.out" 2>&1 </dev/null
report "system unit, User=tester" "$tmp/sysuser.out"
check "system unit, User=tester: its cgroup is gone once it ended" \
	gone /sys/fs/cgroup/system.slice/hutch-vm-cgroup-as-user.service

# A unit whose main process is hutch, killed with SIGKILL mid-run: the
# jail dies with it, and systemd removes the unit's whole tree.
# shellcheck disable=SC2086
systemd-run -q --unit=hutch-vm-kill -p Delegate=yes $envs "$HUTCH" run -- /bin/sleep 300
u=/sys/fs/cgroup/system.slice/hutch-vm-kill.service
i=0
while [ $i -lt 100 ] && ! ls -d "$u"/hutch-* >/dev/null 2>&1; do sleep 0.2; i=$((i + 1)); done
check "a unit running hutch: the run's cgroup is made beside the leaf" ls -d "$u"/hutch-*
systemctl kill -s KILL --kill-who=main hutch-vm-kill.service
i=0
while [ $i -lt 100 ] && [ -d "$u" ]; do sleep 0.2; i=$((i + 1)); done
check "SIGKILL of the unit's hutch: the unit's cgroup tree is gone" test ! -d "$u"
check "... and no process of its jail is left" no_process "/bin/sleep 300" 5
systemctl reset-failed hutch-vm-kill.service 2>/dev/null

# A scope (systemd-run --scope: hutch itself is the unit's process, in
# the caller's session): the same delegation, the same limit.
systemd-run -q --scope --unit=hutch-vm-scope -p Delegate=yes "$HUTCH" run --json --memory 64M \
	-- python3 -c 'b = bytearray(100 << 20)' >"$tmp/scope" 2>&1 </dev/null
got=$(json_get '[d["jail"]["cgroup"], d["status"], d["usage"]["oom_killed"]]' <"$tmp/scope" 2>&1)
check "a scope with Delegate=yes: 100 MiB under --memory 64M is an OOM kill in the run's cgroup" \
	test "$got" = '["applied", "signaled", true]'
diag "scope: $got"
check "the scope's cgroup is gone once it ended" \
	test -z "$(find /sys/fs/cgroup -name hutch-vm-scope.scope 2>/dev/null)"

# Not delegated: probe says exactly what is missing, runs go on rlimits.
systemd-run -q --wait --pipe --unit=hutch-vm-nodel $envs "$HUTCH" probe --json \
	>"$tmp/nodel" 2>&1 </dev/null
got=$(json_get '[[m["available"], m["detail"]] for m in d["mechanisms"] if m["mechanism"] == "cgroup"][0]' <"$tmp/nodel" 2>&1)
check "no Delegate=: probe says the unit's cgroup is not delegated, and the remedy" \
	has "$got" '^\[false, "cgroup: /sys/fs/cgroup/system.slice/hutch-vm-nodel.service is not delegated \(no Delegate=yes\): run hutch in a unit with Delegate=yes'
diag "not delegated: $got"

# ---- the user tester, in its systemd --user ----
loginctl enable-linger tester
i=0
while [ $i -lt 100 ] && [ ! -S /run/user/1000/bus ]; do sleep 0.1; i=$((i + 1)); done
as_tester() {
	setpriv --reuid 1000 --regid 1000 --init-groups env HOME=/home/tester \
		XDG_RUNTIME_DIR=/run/user/1000 DBUS_SESSION_BUS_ADDRESS=unix:path=/run/user/1000/bus "$@"
}
# shellcheck disable=SC2086
as_tester systemd-run --user -q --wait --pipe --unit=hutch-vm-cgroup -p Delegate=yes $envs \
	/bin/sh "$scen" >"$tmp/user.out" 2>&1 </dev/null
report "user unit" "$tmp/user.out"
uu=/sys/fs/cgroup/user.slice/user-1000.slice/user@1000.service/app.slice/hutch-vm-cgroup.service
check "user unit: its cgroup is gone once it ended" gone "$uu"
# shellcheck disable=SC2086
as_tester systemd-run --user -q --wait --pipe --unit=hutch-vm-nodel $envs "$HUTCH" probe --json \
	>"$tmp/unodel" 2>&1 </dev/null
got=$(json_get '[[m["available"], m["detail"]] for m in d["mechanisms"] if m["mechanism"] == "cgroup"][0]' <"$tmp/unodel" 2>&1)
check "user unit without Delegate=: probe says it is not delegated" \
	has "$got" '^\[false, "cgroup: /sys/fs/cgroup/user.slice/.*/hutch-vm-nodel.service is not delegated'
diag "user, not delegated: $got"
loginctl disable-linger tester

tap_done
