#!/bin/sh
# run-bugs.sh: fixed bugs of `hutch run` and `hutch serve`, each retried
# from outside against the binaries (in CI also the ASan + UBSan build's).
# Issue 10: a jail needing more mounts than a spec holds (a local policy
# that allows many input files) had its seccomp program freed twice, which
# also took `hutch serve` down; and the child that starts hutch-exec, when
# it could not move its descriptors into place, reported its failure
# through a slot it had not set.
. "$(dirname "$0")/lib.sh"

tap_tmpdir run-bugs

# tests/policy/many-files.json: the default policy with files.max_count
# 400. No shipped policy lets a request stage more files than a jail has
# mounts for, so the test brings a policy that does.
pol=
for p in "$here/../policy/many-files.json" \
	${HUTCH_SRCDIR:+"$HUTCH_SRCDIR/tests/policy/many-files.json"}; do
	[ -f "$p" ] && pol=$p && break
done
if [ -z "$pol" ]; then
	not_ok "tests/policy/many-files.json is next to the tests or under HUTCH_SRCDIR"
	tap_done
	exit
fi
cp "$pol" "$tmp/many-files.json"
chmod 644 "$tmp/many-files.json"
pol=$tmp/many-files.json

# Files f1..f300 of one line each; inputs N: $input_args, --input options
# staging the first N (the paths hold no white space: mktemp made them).
mkdir "$tmp/in"
i=1
while [ $i -le 300 ]; do
	echo "$i" >"$tmp/in/f$i"
	i=$((i + 1))
done
inputs() {
	input_args=
	i=1
	while [ $i -le "$1" ]; do
		input_args="$input_args --input f$i=$tmp/in/f$i"
		i=$((i + 1))
	done
}

# --- issue 10: more mounts than a jail holds ---------------------------------------

# Control: 200 files are within every limit and are staged (this also runs
# and caches the policy's canary).
inputs 200
out=$("$HUTCH" run --policy "$pol" $input_args -- /bin/sh -c 'ls /work | wc -l' 2>"$tmp/err" </dev/null)
rc=$?
check "control: 200 --input files under many-files.json run (exit $rc)" test "$rc" = 0
same "... and all 200 are in /work" 200 "$(echo $out)"

# 256 files, the most a request takes, and with the policy's binds, /etc,
# /proc, /dev, /tmp and /work that is past the 256 mounts of a spec.
inputs 256
"$HUTCH" run --policy "$pol" $input_args -- /bin/true >"$tmp/out" 2>"$tmp/err" </dev/null
rc=$?
check "256 --input files: exit 125, no crash (exit $rc)" test "$rc" = 125
same "... one line on stderr" 1 "$(wc -l <"$tmp/err")"
check "... invalid_request naming the jail's limit of 256 mounts" \
	has "$(cat "$tmp/err")" '^hutch: invalid_request: .*more than 256 mounts'
check "... nothing on stdout" test ! -s "$tmp/out"
[ "$rc" = 125 ] || diag "stderr: $(head -c 600 "$tmp/err")"

"$HUTCH" run --json --policy "$pol" $input_args -- /bin/true >"$tmp/doc" 2>"$tmp/err" </dev/null
rc=$?
got=$(json_get '[d["status"], d["error"]["code"], "256 mounts" in d["error"]["message"]]' \
	<"$tmp/doc" 2>/dev/null)
same "... --json: a failed document, invalid_request, the limit in its message (exit $rc)" \
	'["failed", "invalid_request", true]' "$got"
check "... --json: nothing on stderr" test ! -s "$tmp/err"

# 300 files: the request's own limit (256 files) refuses them first.
inputs 300
"$HUTCH" run --policy "$pol" $input_args -- /bin/true >"$tmp/out" 2>"$tmp/err" </dev/null
rc=$?
check "300 --input files: exit 125, one line: too many files at /files (exit $rc)" \
	test "$rc" = 125 -a "$(wc -l <"$tmp/err")" = 1
check "... said as the option typed: --input" has "$(cat "$tmp/err")" '^hutch: invalid_request: --input: '

# hutch serve: the same request fails alone, and the server goes on.
client_dir=$(tap_client_dir)
if [ -x "$py" ] && [ -n "$client_dir" ]; then
	got=$(CLIENT_DIR=$client_dir POL=$pol LOG="$tmp/serve.err" timeout 120 "$py" - <<'EOF'
import json, os, socket, subprocess, sys
sys.path.insert(0, os.environ["CLIENT_DIR"])
from hutch_client import HutchClient

ours, theirs = socket.socketpair()
with open(os.environ["LOG"], "wb") as log:
    proc = subprocess.Popen([os.environ["HUTCH"], "serve", "--policy", os.environ["POL"],
                             "--log-level", "error", "--fd", str(theirs.fileno())],
                            pass_fds=(theirs.fileno(),), stderr=log)
theirs.close()
ours.settimeout(60)
c = HutchClient(ours, proc)
files = [{"name": "f%d" % i, "text": "x"} for i in range(256)]
ev = c.wait_final(c.request("run", {"version": 1, "argv": ["/bin/true"], "files": files}))
print(ev.get("failed", {}).get("code"))
print(c.ping())
res = c.run({"version": 1, "argv": ["/bin/sh", "-c", "exit 3"]})
print(res["status"], res.get("exit_code"))
c.close()
print("server exit", proc.returncode)
EOF
)
	same "hutch serve: a run of 256 files fails with invalid_request; the server pings, runs, exits 0" \
		"invalid_request
True
exited 3
server exit 0" "$got"
	check "... and says nothing on stderr" test ! -s "$tmp/serve.err"
	[ -s "$tmp/serve.err" ] && diag "serve stderr: $(head -c 600 "$tmp/serve.err")"
else
	skip "hutch serve: a run of 256 files fails alone" "no $py or no hutch_client.py"
	skip "... and says nothing on stderr" "no $py or no hutch_client.py"
fi

# --- issue 10: the spawning child's failure path -----------------------------------

# With RLIMIT_NOFILE near 16, the child cannot move its 7 descriptors above
# 16 (EINVAL at 16, EMFILE past it) and must say so on the status pipe:
# spawn_error at stage helper_exec, every time. Its failure path once took
# the pipe from an unset slot, and a run could lose the record and end as
# "exited 71". Lower limits stop hutch itself first (spawn_error with no
# stage), higher ones a later step of the helper (spawn_error too).
found=0 bad=0
for n in 16 17 18 19 20 21 22; do
	for k in 1 2 3; do
		got=$( (ulimit -n $n && exec "$HUTCH" run --json --policy "$pol" -- /bin/true) \
			2>/dev/null </dev/null | json_get '[d["status"], d["error"] and d["error"]["code"],
d["error"] and d["error"].get("stage"), d["error"] and d["error"]["message"]]' 2>/dev/null)
		case $got in
		'["failed", "spawn_error", "helper_exec", "the jail could not be set up: executing hutch-exec: E'*)
			found=$((found + 1)) ;;
		'["failed", "spawn_error", "helper_exec"'*)
			bad=$((bad + 1))
			diag "ulimit -n $n: $got" ;;
		'["failed", "spawn_error", '*) ;;
		*)
			bad=$((bad + 1))
			diag "ulimit -n $n: $got" ;;
		esac
	done
done
check "a child that cannot place its fds: spawn_error at helper_exec, in words ($found runs), never a lost record ($bad)" \
	test "$found" -gt 0 -a "$bad" = 0

tap_done
