#!/bin/sh
# run-output.sh: the output path of `hutch run` against what a jail or a
# reader can do to it (issue 9): a reader that stops reading (pipe, FIFO,
# socket) does not stop the deadlines and our fd's description is left as
# it was; in --json mode the caps bound the rendered field (escaping and
# base64 counted), documents stay valid past them, and streams of hundreds
# of MiB come back with their true length.
. "$(dirname "$0")/lib.sh"

tap_tmpdir run-output
# tests/policy/truncate.json: the default policy, but a cap truncates and
# partial output is kept. An installed copy of the tests may lack it: then
# it is made the same way from the installed default.
truncate_policy="$here/../policy/truncate.json"
[ -f "$truncate_policy" ] || truncate_policy="${HUTCH_SRCDIR:-$here/../..}/tests/policy/truncate.json"
if [ ! -f "$truncate_policy" ]; then
	truncate_policy="$tmp/truncate.json"
	"$HUTCH" policy show default | "$py" -c 'import json, sys
d = json.load(sys.stdin)
d["on_limit"] = {"partial_output": True, "overflow": "truncate"}
json.dump(d, sys.stdout)' >"$truncate_policy"
fi

# --- a stalled reader (finding 7) ----------------------------------------------

marker="sleep 61.$$"
{
	t0=$(now_ms)
	"$HUTCH" run --timeout 2s -- sh -c "$marker & head -c 50M /dev/zero" 2>"$tmp/e"
	echo "$? $(($(now_ms) - t0))" >"$tmp/rc"
} | sleep 12 &
reader=$!
wait_for "$tmp/rc" '^[0-9]+ [0-9]+$' 10
set -- $(cat "$tmp/rc" 2>/dev/null)
check "| sleep 12 that never reads: --timeout 2s still ends the run: 124 ($*)" test "${1:-x}" = 124
check "... within the timeout + 1 s (${2:-?} ms)" test "${2:-99999}" -lt 3000
check "... and says timeout" has "$(cat "$tmp/e")" "^hutch: timeout"
check "... the jail's background sleep is gone" no_process "$marker"
kill "$reader" 2>/dev/null
wait "$reader" 2>/dev/null

# The same through a FIFO whose reader holds it open and never reads, with
# the idle limit: no output reaches us while the reader stalls.
mkfifo "$tmp/fifo"
sleep 12 <"$tmp/fifo" &
reader=$!
t0=$(now_ms)
"$HUTCH" run --idle-timeout 1 --timeout 30 --result-fd 3 -- head -c 50M /dev/zero \
	>"$tmp/fifo" 2>/dev/null 3>"$tmp/doc"
rc=$?
dt=$(($(now_ms) - t0))
check "a FIFO reader that never reads: --idle-timeout 1 fires (rc $rc, $dt ms)" \
	test "$rc" = 124 -a "$dt" -lt 3000
check "... the result says timeout, limit idle_ms" \
	test "$(json_get '[d["error"]["code"], d["error"]["limit"]]' <"$tmp/doc")" = '["timeout", "idle_ms"]'
kill "$reader" 2>/dev/null
wait "$reader" 2>/dev/null

# A socket that is never read (send with MSG_DONTWAIT; sockets cannot be
# reopened).
out=$("$py" - "$HUTCH" <<'EOF'
import socket, subprocess, sys, time
a, b = socket.socketpair()
t0 = time.monotonic()
p = subprocess.Popen([sys.argv[1], "run", "--timeout", "2s", "--", "head", "-c", "50M", "/dev/zero"],
                     stdout=b.fileno(), stderr=subprocess.DEVNULL)
b.close()
try:
    rc = p.wait(timeout=10)
except subprocess.TimeoutExpired:
    p.kill()
    rc = "hung"
print(rc, int((time.monotonic() - t0) * 1000))
EOF
)
set -- $out
check "a socket that is never read: --timeout 2s ends the run: 124 ($*)" \
	test "${1:-x}" = 124 -a "${2:-99999}" -lt 3000

# Control: a reader that reads gets everything, and the description we
# share with the shell stays blocking, during the run and after it.
mkdir -m 755 "$tmp/sync" # a root caller may not lend a shared dir (hutch(1), --rw)
flags() { "$py" -c 'import fcntl, os, sys
os.write(2, b"nonblock\n" if fcntl.fcntl(1, fcntl.F_GETFL) & os.O_NONBLOCK else b"blocking\n")'; }
{
	"$HUTCH" run --rw "$tmp/sync" --timeout 20 -- /bin/sh -c \
		"echo up >$tmp/sync/started; while [ ! -e $tmp/sync/done ]; do sleep 0.05; done; head -c 5M /dev/zero" &
	wait_for "$tmp/sync/started" up 10
	flags 2>"$tmp/during"
	: >"$tmp/sync/done"
	wait
	flags 2>"$tmp/after"
} | wc -c >"$tmp/n"
check "control: a reader that reads gets all 5 MiB ($(cat "$tmp/n"))" test "$(cat "$tmp/n")" = 5242880
check "... our stdout's shared description is blocking during the run ($(cat "$tmp/during"))" \
	test "$(cat "$tmp/during")" = blocking
check "... and after it ($(cat "$tmp/after"))" test "$(cat "$tmp/after")" = blocking

# A pipe of another user cannot be reopened: the shared description is made
# non-blocking for the run, and its flags are restored.
if is_root && su nobody -s /bin/sh -c "test -x '$HUTCH' -a -x '$HUTCH_EXEC'" 2>/dev/null; then
	mkdir -m 777 "$tmp/nobody"
	{
		t0=$(now_ms)
		su nobody -s /bin/sh -c "XDG_CACHE_HOME='$tmp/nobody' HUTCH_EXEC='$HUTCH_EXEC' \
			HUTCH_POLICY_PATH='${HUTCH_POLICY_PATH:-}' '$HUTCH' run --timeout 2s -- head -c 50M /dev/zero" \
			2>/dev/null
		echo "$? $(($(now_ms) - t0))" >"$tmp/rc2"
		flags 2>"$tmp/after2"
	} | sleep 12 &
	reader=$!
	wait_for "$tmp/after2" . 10
	set -- $(cat "$tmp/rc2" 2>/dev/null)
	check "as nobody on root's pipe (no reopen): 124 within the timeout + 1 s ($*)" \
		test "${1:-x}" = 124 -a "${2:-99999}" -lt 3000
	check "... and the pipe's flags are restored ($(cat "$tmp/after2" 2>/dev/null))" \
		test "$(cat "$tmp/after2" 2>/dev/null)" = blocking
	kill "$reader" 2>/dev/null
	wait "$reader" 2>/dev/null
else
	skip "another user's pipe: flags made non-blocking and restored" "needs root and binaries nobody can run"
	skip "... and restored" "needs root"
fi

# --- rendered size in --json (finding 6) ------------------------------------------

# 400 MiB of \x01 is 2.4 GiB of JSON: once the document overflowed json-c.
ones() { printf '%s\n' "head -c $1 /dev/zero | tr '\\0' '\\1'"; }
t0=$(now_ms)
"$HUTCH" run --json --max-output 400M -- /bin/sh -c "$(ones 400M)" >"$tmp/doc"
rc=$?
dt=$(($(now_ms) - t0))
check "--json, 400 MiB of \\x01 under --max-output 400M: a document, exit 0 (rc $rc, $dt ms)" \
	test "$rc" = 0 -a -s "$tmp/doc"
check "... output_overflow at stdout_bytes, nothing kept (default: kill, no partial output)" \
	test "$(json_get '[d["error"]["code"], d["error"]["limit"], d["stdout"]["text"], d["stdout"]["truncated"]]' <"$tmp/doc")" = '["output_overflow", "stdout_bytes", "", true]'
check "... the document is small ($(wc -c <"$tmp/doc") bytes)" test "$(wc -c <"$tmp/doc")" -lt 65536
n=$("$HUTCH" run --max-output 400M -- /bin/sh -c "$(ones 400M)" | wc -c)
check "control: the same 400 MiB pass through without --json ($n bytes)" test "$n" = 419430400

"$HUTCH" run --json --policy "$truncate_policy" --max-output 64M -- /bin/sh -c "$(ones 100M)" >"$tmp/doc"
check "truncate policy, 100 MiB of \\x01 under 64M: exited, truncated, true byte count" \
	test "$(json_get '[d["status"], d["stdout"]["truncated"], d["stdout"]["bytes"]]' <"$tmp/doc")" = '["exited", true, 104857600]'
check "... the text kept renders within the cap (6 bytes each)" \
	test "$(json_get 'len(d["stdout"]["text"]) == 64 * 2**20 // 6 and set(d["stdout"]["text"]) == {"\x01"}' <"$tmp/doc")" = true
check "... the whole document is within the cap plus a little ($(wc -c <"$tmp/doc"))" \
	test "$(wc -c <"$tmp/doc")" -le $((64 * 1048576 + 4096))

"$HUTCH" run --json --policy "$truncate_policy" --max-output 1M -- /bin/sh -c \
	"head -c 3M /dev/zero | tr '\\0' '\\377'" >"$tmp/doc"
check "truncate policy, 3 MiB not UTF-8 under 1M: base64 of at most 1 MiB, 786432 bytes decoded" \
	test "$(json_get '[len(d["stdout"]["base64"]) <= 2**20, len(__import__("base64").b64decode(d["stdout"]["base64"])), d["stdout"]["truncated"]]' <"$tmp/doc")" = '[true, 786432, true]'
"$HUTCH" run --json --policy "$truncate_policy" --max-stderr 1K -- /bin/sh -c \
	'printf "\\001%.0s" $(seq 1000) >&2' >"$tmp/doc"
check "stderr too: 1000 bytes of \\x01 under 1K keep 170 (1020 rendered)" \
	test "$(json_get '[len(d["stderr"]["text"]), d["stderr"]["truncated"], d["stderr"]["bytes"]]' <"$tmp/doc")" = '[170, true, 1000]'

# --- lengths past what an int holds, scaled down (finding 10) -----------------------

# No stream renders past 256 MiB whatever the cap: 300 MiB of text under a
# 1G cap keep exactly 256 MiB, and bytes says 300 MiB.
"$HUTCH" run --json --policy "$truncate_policy" --max-output 1G -- /bin/sh -c \
	"head -c 300M /dev/zero | tr '\\0' a" >"$tmp/doc"
check "300 MiB of text under --max-output 1G: 256 MiB of text, truncated, bytes 314572800" \
	test "$(json_get '[len(d["stdout"]["text"]), d["stdout"]["truncated"], d["stdout"]["bytes"]]' <"$tmp/doc")" = '[268435456, true, 314572800]'
"$HUTCH" run --json --max-output 1G -- /bin/sh -c "head -c 300M /dev/zero | tr '\\0' a" >"$tmp/doc"
check "... under the default (kill) policy: output_overflow, not a 300 MiB document" \
	test "$(json_get '[d["error"]["code"], d["stdout"]["bytes"] >= 268435456]' <"$tmp/doc")" = '["output_overflow", true]'

tap_done
