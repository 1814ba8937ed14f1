#!/bin/sh
# run-errors.sh: every error code `hutch run` can produce from the command
# line, each with its --json document (code, pointer or limit) and its exit
# status without --json; error messages never carry request content; and a
# dozen bad invocations leave no process, temporary file or mount behind.
. "$(dirname "$0")/lib.sh"

tap_tmpdir run-errors

# expect DESC CODE EXTRA STATUS ARGS...: `hutch run --json ARGS` gives error
# CODE, and EXTRA (a Python expression on d, "" for none) is true; `hutch
# run ARGS` exits STATUS with "hutch: CODE" on stderr.
expect() {
	desc=$1 code=$2 extra=${3:-True} want=$4
	shift 4
	"$HUTCH" run --json "$@" >"$tmp/doc" 2>"$tmp/doc.err" </dev/null
	rc=$?
	got=$(json_get '[d["status"], d["error"]["code"], bool('"$extra"')]' <"$tmp/doc" 2>/dev/null)
	check "$desc: --json says $code" test "$rc" = 0 -a "$got" = "[\"failed\", \"$code\", true]"
	[ "$got" = "[\"failed\", \"$code\", true]" ] || diag "got rc $rc: $(cut -c1-300 "$tmp/doc")"
	"$HUTCH" run "$@" >/dev/null 2>"$tmp/err" </dev/null
	rc=$?
	check "$desc: exit $want, 'hutch: $code' on stderr" test "$rc" = "$want" -a -n "$(grep "^hutch: $code" "$tmp/err")"
}

# request DESC POINTER JSON: the document is refused with invalid_request
# at POINTER (or, POINTER "-", with none).
request() {
	desc=$1 ptr=$2
	printf '%s' "$3" >"$tmp/req.json"
	"$HUTCH" run --request "$tmp/req.json" >"$tmp/doc" 2>/dev/null
	rc=$?
	[ "$ptr" = - ] && ptr=None
	got=$(json_get '[d["error"]["code"], str(d["error"].get("pointer"))]' <"$tmp/doc" 2>/dev/null)
	check "--request $desc: invalid_request at $ptr (exit $rc)" \
		test "$rc" = 0 -a "$got" = "[\"invalid_request\", \"$ptr\"]"
	[ "$got" = "[\"invalid_request\", \"$ptr\"]" ] || diag "got: $got"
}

# --- invalid_request ----------------------------------------------------------

for bad in abc 1x -1 "" 10q; do
	"$HUTCH" run --timeout "$bad" -- /bin/true >"$tmp/out" 2>"$tmp/err"
	rc=$?
	check "--timeout '$bad' is a usage error: 125, message on stderr, nothing on stdout" \
		test "$rc" = 125 -a -s "$tmp/err" -a ! -s "$tmp/out"
done
"$HUTCH" run --json --memory lots -- /bin/true >"$tmp/out" 2>"$tmp/err"
check "--json --memory lots: still a usage error (125, stderr)" test $? = 125 -a -s "$tmp/err"
request "unknown field" /bogus '{"version": 1, "argv": ["/bin/true"], "bogus": 1}'
request "duplicate key" /argv '{"version": 1, "argv": ["/bin/true"], "argv": ["/bin/false"]}'
request "argv not an array" /argv '{"version": 1, "argv": "/bin/true"}'
request "argv element not a string" /argv/1 '{"version": 1, "argv": ["/bin/echo", 1]}'
request "empty argv" /argv '{"version": 1, "argv": []}'
request "wall_ms a string" /limits/wall_ms '{"version": 1, "argv": ["/bin/true"], "limits": {"wall_ms": "1"}}'
request "wall_ms negative" /limits/wall_ms '{"version": 1, "argv": ["/bin/true"], "limits": {"wall_ms": -1}}'
request "unknown limit" /limits/bogus_ms '{"version": 1, "argv": ["/bin/true"], "limits": {"bogus_ms": 1}}'
request "version 2" /version '{"version": 2, "argv": ["/bin/true"]}'
request "no version" /version '{"argv": ["/bin/true"]}'
request "relative cwd" /cwd '{"version": 1, "argv": ["/bin/true"], "cwd": "work"}'
request "cwd with .." /cwd '{"version": 1, "argv": ["/bin/true"], "cwd": "/work/../etc"}'
request "mount source with .." /mounts/0/source \
	'{"version": 1, "argv": ["/bin/true"], "mounts": [{"source": "/tmp/../etc", "target": "/x", "mode": "ro"}]}'
request "mount mode rwx" /mounts/0/mode \
	'{"version": 1, "argv": ["/bin/true"], "mounts": [{"source": "/usr", "target": "/x", "mode": "rwx"}]}'
request "network bogus" /network '{"version": 1, "argv": ["/bin/true"], "network": "bogus"}'
request "env name with =" "/env/A=B" '{"version": 1, "argv": ["/bin/true"], "env": {"A=B": "1"}}'
request "truncated document" - '{"version": 1, "argv": ["/bin/true"]'
request "empty document" - ''
request "not an object" - '[1, 2]'
"$HUTCH" run --request "$tmp/no-such-request.json" >"$tmp/doc"
check "--request of a missing file: invalid_request" \
	test "$(json_get 'd["error"]["code"]' <"$tmp/doc")" = invalid_request
"$HUTCH" run --request "$tmp/req.json" --timeout 1 -- /bin/true 2>/dev/null
check "--request with other request options: usage error 125" test $? = 125
expect "--cwd relative" invalid_request 'd["error"].get("pointer") == "/cwd"' 125 --cwd work -- /bin/true

# --- policy_violation ---------------------------------------------------------

expect "--network host under default" policy_violation 'd["error"].get("pointer") == "/network"' 125 \
	--network host -- /bin/true
expect "--rw /etc:/x" policy_violation 'd["error"].get("pointer") == "/mounts/0"' 125 --rw /etc:/x -- /bin/true
expect "--ro under strict (no request mounts)" policy_violation 'd["error"].get("pointer") == "/mounts/0"' 125 \
	--policy strict --ro /usr/share:/x -- /bin/true
expect "--env SECRET=1 under strict" policy_violation 'd["error"].get("pointer") == "/env/SECRET"' 125 \
	--policy strict --env SECRET=1 -- /bin/true
expect "--timeout 2h above the default maximum" policy_violation 'd["error"].get("pointer") == "/limits/wall_ms"' 125 \
	--timeout 2h -- /bin/true
printf '{"version": 1, "policy": "default", "argv": ["/bin/true"]}' >"$tmp/req.json"
"$HUTCH" run --policy strict --request "$tmp/req.json" >"$tmp/doc"
check "--policy strict and a document naming default: policy_violation at /policy" \
	test "$(json_get '[d["error"]["code"], d["error"].get("pointer")]' <"$tmp/doc")" = '["policy_violation", "/policy"]'

# --- policy_invalid -------------------------------------------------------------

"$HUTCH" policy show default | "$py" -c 'import json, sys
d = json.load(sys.stdin)
d["bogus"] = 1
json.dump(d, sys.stdout)' >"$tmp/bad.json"
expect "--policy FILE with an unknown field" policy_invalid 'd["error"].get("pointer") == "/bogus"' 125 \
	--policy "$tmp/bad.json" -- /bin/true
expect "--policy nosuchpolicy" policy_invalid True 125 --policy nosuchpolicy -- /bin/true
printf '{"version": 1' >"$tmp/trunc.json"
expect "--policy FILE that is not JSON" policy_invalid True 125 --policy "$tmp/trunc.json" -- /bin/true

# --- helper_not_found -------------------------------------------------------------

# HUTCH_EXEC is honoured by installed binaries as well (it only picks which
# of our binaries to run), so this applies under HUTCH_INSTALLED=1 too.
real_exec=$HUTCH_EXEC
HUTCH_EXEC=/nonexistent/hutch-exec
expect "HUTCH_EXEC=/nonexistent" helper_not_found True 125 -- /bin/true
chmod 644 "$tmp/bad.json"
HUTCH_EXEC=$tmp/bad.json
expect "HUTCH_EXEC naming a non-executable file" helper_not_found True 125 -- /bin/true
HUTCH_EXEC=$real_exec

# --- spawn_error, exec_failed -----------------------------------------------------

expect "--cwd /nonexistent: a request error before any jail" invalid_request 'd["error"].get("pointer") == "/cwd" and "stage" not in d["error"]' 125 \
	--cwd /nonexistent -- /bin/true
expect "--cwd /etc/passwd (not a directory)" invalid_request 'd["error"].get("pointer") == "/cwd"' 125 \
	--cwd /etc/passwd -- /bin/true
expect "a missing command" exec_failed 'd["error"].get("errno") == "ENOENT" and d["error"].get("stage") == "exec"' 127 \
	-- /no/such/command
expect "a directory as the command" exec_failed 'd["error"].get("errno") == "EACCES"' 126 -- /usr

# --- timeout, output_overflow -------------------------------------------------------

expect "--timeout 1" timeout 'd["error"].get("limit") == "wall_ms"' 124 --timeout 1 -- sleep 30
expect "--idle-timeout 1" timeout 'd["error"].get("limit") == "idle_ms"' 124 --idle-timeout 1 -- sleep 30
expect "--max-output 1K" output_overflow 'd["error"].get("limit") == "stdout_bytes"' 125 \
	--max-output 1K -- head -c 10K /dev/zero

# --- frames -------------------------------------------------------------------------

expect "--frame, header announcing 256 bytes over --max-output 10" frame_oversized \
	'd["error"].get("limit") == "stdout_bytes"' 125 \
	--frame --max-output 10 -- /bin/sh -c 'printf "\000\000\001\000"; head -c 256 /dev/zero'
# The header alone decides: no need to wait for the payload (or the timeout).
"$HUTCH" run --json --frame --max-output 10 --timeout 20 -- /bin/sh -c 'printf "\177\377\377\377"; sleep 30' >"$tmp/doc"
check "--frame: a 2 GiB header is refused at once, not after the timeout" \
	test "$(json_get '[d["error"]["code"], d["usage"]["wall_ms"] < 10000]' <"$tmp/doc")" = '["frame_oversized", true]'
expect "--frame, a short frame" protocol_error True 125 --frame -- /bin/sh -c 'printf "\000\000\000\005hel"'
expect "--frame, no output at all" protocol_error True 125 --frame -- /bin/true
expect "--frame, half a header" protocol_error True 125 --frame -- /bin/sh -c 'printf "\000\000"'
expect "--frame, a byte after the frame" output_overflow True 125 --frame -- /bin/sh -c 'printf "\000\000\000\001xy"'
expect "--frame, a valid frame but exit 1" crash True 125 --frame -- /bin/sh -c 'printf "\000\000\000\002ok"; exit 1'
expect "--frame, a valid frame but killed" crash True 125 --frame -- /bin/sh -c 'printf "\000\000\000\002ok"; kill -KILL $$'
out=$("$HUTCH" run --frame -- /bin/sh -c 'printf "\000\000\000\002ok"')
check "control: --frame with one valid frame and exit 0 passes the payload" test "$out" = ok

# --- sandbox_unavailable, sandbox_probe_failed -------------------------------------------

# User namespaces made unavailable: bubblewrap's --disable-userns leaves
# hutch in a user namespace that may not create another. As root, map to
# an unprivileged uid inside, as an unprivileged caller would be.
if command -v bwrap >/dev/null 2>&1 && bwrap --help 2>&1 | grep -q -- --disable-userns; then
	if is_root; then bw_uid=65534; else bw_uid=$(id -u); fi
	bw() {
		# A fresh probe cache: a verdict cached outside must not count.
		c=$(mktemp -d "$tap_rt/bw-cache.XXXXXX")
		XDG_RUNTIME_DIR=$c bwrap --unshare-user --uid "$bw_uid" --gid "$bw_uid" --disable-userns \
			--dev-bind / / -- "$HUTCH" "$@"
	}
	if bw probe --json >"$tmp/probe.json" 2>/dev/null; [ -s "$tmp/probe.json" ]; then
		bw run --json -- /bin/true >"$tmp/doc" 2>/dev/null
		check "no user namespaces: --json error.code sandbox_unavailable" \
			test "$(json_get 'd["error"]["code"]' <"$tmp/doc")" = sandbox_unavailable
		check "... and the message names user_namespaces" \
			has "$(json_get 'd["error"]["message"]' <"$tmp/doc")" "user_namespaces"
		bw run -- /bin/true 2>"$tmp/err"
		check "no user namespaces: exit 71" test $? = 71
		check "... with 'hutch: sandbox_unavailable' on stderr" grep -q "^hutch: sandbox_unavailable" "$tmp/err"
		check "hutch probe there says user_namespaces unavailable" \
			test "$(json_get '[m["available"] for m in d["mechanisms"] if m["mechanism"] == "user_namespaces"]' <"$tmp/probe.json")" = "[false]"
		bw probe >/dev/null 2>&1
		check "hutch probe there exits 71" test $? = 71
	else
		skip_feature "no user namespaces: sandbox_unavailable" "bwrap cannot create a user namespace here"
	fi
else
	skip "no user namespaces: sandbox_unavailable" "bubblewrap with --disable-userns (0.8+) not installed"
fi

# A policy that requires a cgroup: sandbox_unavailable naming cgroup where
# no delegated cgroup v2 subtree is writable, a normal run where one is.
"$HUTCH" policy show default | "$py" -c 'import json, sys
d = json.load(sys.stdin)
d["requires"].append("cgroup")
json.dump(d, sys.stdout)' >"$tmp/cgroup.json"
cg=$("$HUTCH" probe --json 2>/dev/null | json_get '[m["available"] for m in d["mechanisms"] if m["mechanism"] == "cgroup"][0]')
if [ "$cg" = false ]; then
	expect "a policy requiring an unavailable cgroup" sandbox_unavailable '"cgroup" in d["error"]["message"]' 71 \
		--policy "$tmp/cgroup.json" -- /bin/true
else
	"$HUTCH" run --policy "$tmp/cgroup.json" -- /bin/true
	check "a policy requiring cgroup runs where one is delegated" test $? = 0
fi

# The canary itself refused: an allow-list without execve.
"$HUTCH" policy show strict | "$py" -c 'import json, sys
d = json.load(sys.stdin)
d["seccomp"]["syscalls"].remove("execve")
json.dump(d, sys.stdout)' >"$tmp/noexecve.json"
expect "a policy whose canary cannot run" sandbox_probe_failed '"canary" in d["error"]["message"]' 71 \
	--policy "$tmp/noexecve.json" -- /bin/true

# --- cancelled ----------------------------------------------------------------------

# The target reports through a writable bind, so --json can be used.
mkdir "$tmp/rw"
chmod 755 "$tmp/rw" # a root caller may not lend a shared dir (hutch(1), --rw)
"$py" -c 'import os, signal, sys
for s in (signal.SIGINT, signal.SIGTERM):
    signal.signal(s, signal.SIG_DFL)
os.execvp(sys.argv[1], sys.argv[1:])' "$HUTCH" run --json --rw "$tmp/rw:/out" -- /bin/sh -c \
	"trap 'echo got >> /out/log' TERM; echo ready >> /out/log; while :; do sleep 0.05; done" \
	>"$tmp/doc" 2>/dev/null </dev/null &
hp=$!
if wait_for "$tmp/rw/log" '^ready$'; then
	kill -TERM "$hp"
	wait_for "$tmp/rw/log" '^got$'
	kill -TERM "$hp"
	wait "$hp"
	rc=$?
	check "SIGTERM twice: --json error.code cancelled (exit $rc)" \
		test "$rc" = 0 -a "$(json_get '[d["status"], d["error"]["code"]]' <"$tmp/doc")" = '["failed", "cancelled"]'
else
	kill -KILL "$hp"
	wait "$hp"
	not_ok "SIGTERM twice: --json error.code cancelled (never ready)"
fi

skip "drain_timeout" "unreachable from the CLI: the helper's exit means the jail is empty, so both pipes close"
skip "internal" "no way to provoke an internal error from outside"

# --- messages never carry request content ----------------------------------------------

secret=hutch-secret-$$-value
"$HUTCH" run --json --policy strict --env "SECRET=$secret" -- /bin/true >"$tmp/doc" 2>"$tmp/err"
"$HUTCH" run --policy strict --env "SECRET=$secret" -- /bin/true >>"$tmp/doc" 2>>"$tmp/err"
check "a refused --env value appears in neither the document nor stderr" not grep -q "$secret" "$tmp/doc" "$tmp/err"
"$HUTCH" run --json -- "/no/such/$secret" >"$tmp/doc" 2>"$tmp/err"
"$HUTCH" run -- "/no/such/$secret" >>"$tmp/doc" 2>>"$tmp/err"
check "a failed command's path is in neither the document nor stderr" not grep -q "$secret" "$tmp/doc" "$tmp/err"
printf '{"version": 1, "argv": ["/bin/true"], "bogus": "%s"}' "$secret" >"$tmp/req.json"
"$HUTCH" run --request "$tmp/req.json" >"$tmp/doc" 2>"$tmp/err"
check "an invalid request's values are not echoed" not grep -q "$secret" "$tmp/doc" "$tmp/err"

# --- bad input leaves nothing behind ------------------------------------------------------

# Names that other tests' mktemp or a compiler running alongside may create
# meanwhile are left out.
tmp_snapshot() {
	# Left out: other tests' mktemp names, other tools' temporary names
	# (a linker's "NAME-XXXXXXXX"), and /tmp/hutch-UID, where hutch 0.1
	# kept its per-user cache. hutch itself makes no name in /tmp.
	ls -A /tmp | grep -v -E '(^tmp\.[A-Za-z0-9]{10}$|\.[A-Za-z0-9]{6}$|-[A-Za-z0-9]{8}$|^cc[A-Za-z0-9]{6}\.[a-z]+$|^hutch-[0-9]+$)' | sort
}
marker="hutch-errors-leak-$$"
mkdir "$tmp/tmpdir"
chmod 777 "$tmp/tmpdir"
tmp_snapshot >"$tmp/tmp.before"
mounts_before=$(wc -l </proc/self/mountinfo)
printf '{"version": 1, "argv": ["/bin/true", "%s"], "bogus": 1}' "$marker" >"$tmp/req.json"
(
	export TMPDIR="$tmp/tmpdir"
	S="/bin/sh -c :"
	"$HUTCH" run --timeout abc -- $S "$marker"
	"$HUTCH" run --request "$tmp/req.json"
	"$HUTCH" run --network host -- $S "$marker"
	"$HUTCH" run --rw /etc:/x -- $S "$marker"
	"$HUTCH" run --policy strict --env SECRET=1 -- $S "$marker"
	"$HUTCH" run --policy "$tmp/bad.json" -- $S "$marker"
	"$HUTCH" run --policy nosuchpolicy -- $S "$marker"
	HUTCH_EXEC=/nonexistent "$HUTCH" run -- $S "$marker"
	"$HUTCH" run --cwd /nonexistent -- $S "$marker"
	"$HUTCH" run -- "/no/such/$marker"
	"$HUTCH" run --input a/b="$tmp/bad.json" -- $S "$marker"
	"$HUTCH" run --collect ../x -- $S "$marker"
	"$HUTCH" run --frame -- /bin/sh -c 'sleep 30 & printf "\177\377\377\377"; sleep 30' "$marker"
	"$HUTCH" run --max-output 1 -- /bin/sh -c 'sleep 30 & echo overflow; sleep 30' "$marker"
	"$HUTCH" run --policy "$tmp/noexecve.json" -- $S "$marker"
) >/dev/null 2>&1 </dev/null
left=
for c in /proc/[0-9]*/cmdline; do
	tr '\0' ' ' 2>/dev/null <"$c" | grep -qF -- "$marker" && left="$left ${c%/cmdline}"
done
check "fifteen bad invocations leave no process behind" test -z "$left"
[ -z "$left" ] || diag "left:$left"
tmp_snapshot >"$tmp/tmp.after"
# Only what appeared counts: a name another process removed meanwhile
# (a tool's own temporary file) is not ours.
comm -13 "$tmp/tmp.before" "$tmp/tmp.after" >"$tmp/tmp.new"
check "... nothing new in /tmp" test ! -s "$tmp/tmp.new"
[ -s "$tmp/tmp.new" ] && diag "new in /tmp: $(tr '\n' ' ' <"$tmp/tmp.new")"
check "... nothing in their TMPDIR" test -z "$(ls -A "$tmp/tmpdir")"
check "... and no mount left in our namespace" test "$(wc -l </proc/self/mountinfo)" = "$mounts_before"

tap_done
