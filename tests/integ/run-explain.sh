#!/bin/sh
# run-explain.sh: hutch run --explain reports what the jail withheld (a
# path the host has and the jail lacks, an exec refused by noexec, a
# seccomp denial, a write to a read-only mount), each with the fragment
# that would grant it; and it lets nothing through: every refusal of the
# policy happens the same with and without --explain, under default and
# strict, as whoever runs the test (ci.sh runs it as root and as nobody).
. "$(dirname "$0")/lib.sh"
: "${HUTCH_PROGS:?HUTCH_PROGS must name the directory of try-syscall}"

tap_tmpdir run-explain
probe=$HUTCH_PROGS/try-syscall

# A file the host has where the jail has nothing (/tmp is the jail's own).
mkdir -p "$tmp/hostonly"
echo host >"$tmp/hostonly/data"
chmod -R a+rX "$tmp/hostonly"

# ex DOC EXPR: the Python expression on the document d is true.
ex() { test "$(json_get "bool($2)" <"$1" 2>/dev/null)" = true; }

# --- what it reports -------------------------------------------------------------

S='cat '"$tmp"'/hostonly/data; cp /bin/true /tmp/t; /tmp/t; echo "exec=$?"; echo x >/usr/x; echo "write=$?"'
"$HUTCH" run --explain --json -- /bin/sh -c "$S; hostname h; echo done" >"$tmp/doc" 2>"$tmp/err"
check "--json: an explain member, its listener attached" ex "$tmp/doc" 'd["explain"]["attached"]'
check "a host path the jail lacks: missing, with a --ro bind of its directory as the grant" \
	ex "$tmp/doc" '[e for e in d["explain"]["events"] if e["kind"] == "missing" and e["path"] == "'"$tmp"'/hostonly/data" and e["grant"] == {"mounts": [{"source": "'"$tmp"'/hostonly", "target": "'"$tmp"'/hostonly", "mode": "ro"}]}]'
check "an exec from /tmp: noexec, granted by filesystem.writable_exec" \
	ex "$tmp/doc" '[e for e in d["explain"]["events"] if e["kind"] == "noexec" and e["path"] == "/tmp/t" and e["call"] == "execve" and e["grant"] == {"filesystem": {"writable_exec": True}}]'
check "a write to /usr: read_only, with no grant" \
	ex "$tmp/doc" '[e for e in d["explain"]["events"] if e["kind"] == "read_only" and e["path"] == "/usr/x" and e["grant"] is None]'
check "a seccomp denial: denied sethostname, on the built-in list" \
	ex "$tmp/doc" '[e for e in d["explain"]["events"] if e["kind"] == "denied" and e["call"] == "sethostname" and e["count"] >= 1]'
check "... still in the result's denials too" ex "$tmp/doc" '[x for x in d["denials"] if x["syscall"] == "sethostname"]'
check "the command's output is its own: the refusals happened" \
	ex "$tmp/doc" 'd["stdout"]["text"] == "exec=126\nwrite=2\ndone\n"'
check "without --explain there is no explain member" \
	ex "$("$HUTCH" run --json -- /bin/true >"$tmp/doc0"; echo "$tmp/doc0")" '"explain" not in d'

"$HUTCH" run --explain -- /bin/sh -c "$S" >"$tmp/out" 2>"$tmp/err"
check "stderr: one line per event, then the summary" \
	has "$(tail -n 1 "$tmp/err")" '^hutch: explain: [0-9]+ withheld, [0-9]+ more dropped, [0-9]+ calls watched$'
check "stderr: the missing path and its grant" \
	has "$(cat "$tmp/err")" "^hutch: explain: missing $tmp/hostonly/data \\(openat, 1 time\\): not in the jail; the host has it.*; grant: \\{\"mounts\":\\[\\{\"source\":\"$tmp/hostonly\""
check "stderr: the noexec exec and its grant" \
	has "$(cat "$tmp/err")" '^hutch: explain: noexec /tmp/t \(execve, 1 time\): executed from /tmp.*grant: \{"filesystem":\{"writable_exec":true\}\}$'

# exec of the command itself from a request bind, and the build policy.
cp /bin/true "$tmp/hostonly/prog"
chmod 755 "$tmp/hostonly/prog"
"$HUTCH" run --explain --json --ro "$tmp/hostonly:/data" -- /data/prog >"$tmp/doc" 2>/dev/null
check "the command on a request bind: exec_failed, and noexec with filesystem.request_exec" \
	ex "$tmp/doc" 'd["error"]["code"] == "exec_failed" and [e for e in d["explain"]["events"] if e["kind"] == "noexec" and e["path"] == "/data/prog" and e["grant"] == {"filesystem": {"request_exec": True}}]'

# --- it cannot be steered: no link the jail wrote is followed (issue 19) ------------

# The jail puts cfg -> a secret directory in its rw bind and opens through
# it; the grant must never name the secret (the issue's attack gave
# {"mounts":[{"source":"/some/secret/dir",...}]}).
mkdir -p "$tmp/secret/dir" "$tmp/proj"
echo secret >"$tmp/secret/dir/settings.ini"
chmod -R a+rX "$tmp/secret"
chmod 755 "$tmp/proj"	# the caller's own, not shared: a root caller's --rw of it is idmapped
steer() {
	"$HUTCH" run --explain --json "$@" >"$tmp/doc" 2>"$tmp/err"
	check "$desc: the run happened" ex "$tmp/doc" 'd["status"] == "exited" and d["explain"]["attached"]'
	check "$desc: no event or grant names the secret" \
		ex "$tmp/doc" 'not [e for e in d["explain"]["events"] if "secret" in json.dumps(e)]'
	[ "$(json_get '[e for e in d["explain"]["events"] if "secret" in json.dumps(e)]' <"$tmp/doc")" = "[]" ] ||
		diag "$(json_get '[e for e in d["explain"]["events"] if "secret" in json.dumps(e)]' <"$tmp/doc")"
}
L="ln -sfn $tmp/secret/dir $tmp/proj/cfg"
desc="a link in the bind, opened through"
steer --rw "$tmp/proj:$tmp/proj" -- /bin/sh -c "$L; cat $tmp/proj/cfg/settings.ini; true"
desc="the link itself opened"
steer --rw "$tmp/proj:$tmp/proj" -- /bin/sh -c "$L; cat $tmp/proj/cfg; ls $tmp/proj/cfg/; true"
desc="a link in a bind mounted elsewhere, named by its host path"
steer --rw "$tmp/proj:/p" -- /bin/sh -c "ln -sfn $tmp/secret/dir /p/cfg; cat $tmp/proj/cfg/settings.ini; true"
desc="a link to a file"
steer --rw "$tmp/proj:$tmp/proj" -- /bin/sh -c "ln -sfn $tmp/secret/dir/settings.ini $tmp/proj/f; cat $tmp/proj/f; true"
rm -f "$tmp/proj/cfg" "$tmp/proj/f"
# Control: the same file named as it is on the host is reported, and
# granted by its own directory, never wider.
"$HUTCH" run --explain --json -- /bin/sh -c "cat $tmp/secret/dir/settings.ini; true" >"$tmp/doc" 2>/dev/null
check "control: the secret named directly is missing, granted by its own directory" \
	ex "$tmp/doc" '[e for e in d["explain"]["events"] if e["kind"] == "missing" and e["grant"] == {"mounts": [{"source": "'"$tmp"'/secret/dir", "target": "'"$tmp"'/secret/dir", "mode": "ro"}]}]'

# --- it lets nothing through ------------------------------------------------------

# same_both DESC ARGS...: the run's exit status and output are the same
# with and without --explain (everything the policy refuses, refused).
same_both() {
	desc=$1
	shift
	"$HUTCH" run "$@" >"$tmp/a.out" 2>/dev/null </dev/null
	a=$?
	"$HUTCH" run --explain "$@" >"$tmp/b.out" 2>/dev/null </dev/null
	b=$?
	check "$desc: the same with --explain (exit $a / $b)" \
		test "$a" = "$b" -a "$(cat "$tmp/a.out")" = "$(cat "$tmp/b.out")"
	[ "$(cat "$tmp/a.out")" = "$(cat "$tmp/b.out")" ] || diag "without: $(cat "$tmp/a.out")" "with: $(cat "$tmp/b.out")"
}

for pol in default strict; do
	R="--policy $pol"
	same_both "$pol: an open outside the binds fails" $R -- /bin/sh -c "cat $tmp/hostonly/data; echo rc=\$?"
	check "$pol: ... and fails under --explain" \
		has "$("$HUTCH" run --explain $R -- /bin/sh -c "cat $tmp/hostonly/data >/dev/null 2>&1; echo rc=\$?" 2>/dev/null)" '^rc=1$'
	same_both "$pol: an exec from /tmp fails" $R -- /bin/sh -c 'cp /bin/true /tmp/t 2>/dev/null || cat /bin/true >/tmp/t; chmod 755 /tmp/t; /tmp/t 2>/dev/null; echo rc=$?'
	check "$pol: ... with 126 under --explain" \
		has "$("$HUTCH" run --explain $R -- /bin/sh -c 'cat /bin/true >/tmp/t; chmod 755 /tmp/t; /tmp/t 2>/dev/null; echo rc=$?' 2>/dev/null)" '^rc=126$'
	same_both "$pol: a write to /usr fails" $R -- /bin/sh -c 'echo x >/usr/x 2>/dev/null; echo rc=$?'
	same_both "$pol: /etc/shadow is not there" $R -- /bin/sh -c 'cat /etc/shadow 2>/dev/null; echo rc=$?'
	same_both "$pol: the host root's home is not there" $R -- /bin/sh -c 'ls /root 2>/dev/null; echo rc=$?'
	same_both "$pol: an exec of a host-only path fails" $R -- /bin/sh -c "$tmp/hostonly/prog; echo rc=\$?"
done

# Denied calls stay denied: try-syscall staged into a /work that may
# execute (a copy of each policy with only writable_exec changed).
if [ -x "$probe" ]; then
	mkdir -p "$tmp/pol"
	for pol in default strict; do
		"$HUTCH" policy show "$pol" | "$py" -c 'import json, sys
d = json.load(sys.stdin)
d["filesystem"]["writable_exec"] = True
json.dump(d, sys.stdout)' >"$tmp/pol/$pol.json"
		"$HUTCH" run --explain --json --policy "$tmp/pol/$pol.json" --input "t=$probe" -- \
			/bin/sh -c 'chmod 755 t && exec ./t "$@"' sh mount sethostname ptrace unshare getpid \
			>"$tmp/doc" 2>/dev/null
		check "$pol: denied calls fail with EPERM under --explain" \
			ex "$tmp/doc" 'all(l.split()[1] == "EPERM" for l in d["stdout"]["text"].splitlines() if l.split()[0] != "getpid")'
		check "$pol: ... getpid still works" \
			ex "$tmp/doc" '[l for l in d["stdout"]["text"].splitlines() if l.split()[:2] == ["getpid", "OK"]]'
		# mount and unshare: the helper's own base filter, which no
		# listener hears (helper/seccomp-load.c); the policy's are reported.
		check "$pol: ... the policy filter's denials reported as denied" \
			ex "$tmp/doc" 'set(["sethostname", "ptrace"]) <= set(e["call"] for e in d["explain"]["events"] if e["kind"] == "denied")'
	done
	check "strict: a denial's grant adds the call to the allow list" \
		ex "$tmp/doc" '[e for e in d["explain"]["events"] if e["call"] == "sethostname" and e["grant"] == {"seccomp": {"syscalls": ["sethostname"]}}]'
else
	not_ok "try-syscall is built ($probe)"
fi

# A watched call the policy denies stays a denial (creat, by number, so
# that libc's choice of openat cannot hide it).
"$HUTCH" policy show default | "$py" -c 'import json, sys
d = json.load(sys.stdin)
d["seccomp"]["syscalls"] = ["creat", "execveat"]
json.dump(d, sys.stdout)' >"$tmp/pol/nocreat.json"
C='import ctypes; c = ctypes.CDLL(None, use_errno=True); r = c.syscall(85, b"/tmp/c", 0o644); print(r, ctypes.get_errno())'
same_both "a policy denying creat: still EPERM (-1 1)" --policy "$tmp/pol/nocreat.json" -- /usr/bin/python3 -c "$C"
check "... that is -1 EPERM" test "$(cat "$tmp/b.out")" = "-1 1"
"$HUTCH" run --explain --json --policy "$tmp/pol/nocreat.json" -- /usr/bin/python3 -c "$C" >"$tmp/doc" 2>/dev/null
check "... reported as a denial, not as a watched call" \
	ex "$tmp/doc" '[e for e in d["explain"]["events"] if e["kind"] == "denied" and e["call"] == "creat" and e["grant"] == {"seccomp": {"syscalls": ["execveat"]}}]'
same_both "default: creat works" -- /usr/bin/python3 -c "$C"

# --- bounded ---------------------------------------------------------------------

mkdir -p "$tmp/many"
i=0
while [ $i -lt 100 ]; do : >"$tmp/many/f$i"; i=$((i + 1)); done
chmod -R a+rX "$tmp/many"
"$HUTCH" run --explain --json -- /bin/sh -c "for f in $(echo "$tmp"/many/*); do cat \$f 2>/dev/null; done; echo ok" \
	>"$tmp/doc" 2>/dev/null
check "100 distinct missing paths: at most 64 events, the rest counted as dropped" \
	ex "$tmp/doc" 'len(d["explain"]["events"]) == 64 and d["explain"]["dropped"] >= 36 and d["stdout"]["text"] == "ok\n"'
t0=$(now_ms)
"$HUTCH" run --explain --json --timeout 60s -- /usr/bin/python3 -c '
import os
for i in range(20000):
    os.close(os.open("/dev/null", os.O_RDONLY))
print("ok")' >"$tmp/doc" 2>/dev/null
dt=$(($(now_ms) - t0))
check "20000 opens under --explain complete (${dt} ms), each watched" \
	ex "$tmp/doc" 'd["stdout"]["text"] == "ok\n" and d["explain"]["calls_seen"] >= 20000'
diag "20000 watched opens took ${dt} ms"

tap_done
