#!/bin/sh
# run-limits.sh: every limit `hutch run` enforces, crossed for real: wall
# and idle timeouts, stdout and stderr caps, CPU seconds, processes,
# address space, file size; limits above the policy's maximum refused.
# Nothing started in the jail may survive any of it.
. "$(dirname "$0")/lib.sh"

tap_tmpdir run-limits

# --- wall clock -------------------------------------------------------------

t0=$(now_ms)
"$HUTCH" run --timeout 1 -- sleep 30 2>"$tmp/e"
rc=$?
dt=$(($(now_ms) - t0))
check "--timeout 1 on sleep 30 -> 124" test "$rc" = 124
check "... after about a second (${dt} ms)" test "$dt" -ge 900 -a "$dt" -lt 10000
check "... with one line on stderr naming timeout" has "$(cat "$tmp/e")" "^hutch: timeout"
"$HUTCH" run --json --timeout 1 -- /bin/sh -c 'echo partial; echo partial-err >&2; sleep 30' >"$tmp/doc"
check "--json: error.code timeout, error.limit wall_ms" \
	test "$(json_get '[d["status"], d["error"]["code"], d["error"]["limit"]]' <"$tmp/doc")" = '["failed", "timeout", "wall_ms"]'
check "--json: partial stdout is discarded and marked truncated (default policy)" \
	test "$(json_get '[d["stdout"]["text"], d["stdout"]["truncated"], d["stdout"]["bytes"]]' <"$tmp/doc")" = '["", true, 8]'
check "--json: partial stderr likewise" \
	test "$(json_get '[d["stderr"]["text"], d["stderr"]["truncated"]]' <"$tmp/doc")" = '["", true]'
check "--json: usage.wall_ms is about the limit" \
	test "$(json_get '900 <= d["usage"]["wall_ms"] < 10000' <"$tmp/doc")" = true

marker="hutch-limits-timeout-$$"
t0=$(now_ms)
"$HUTCH" run --timeout 1 -- /bin/sh -c \
	"setsid /bin/sh -c '(trap \"\" TERM HUP INT; sleep 1000; :) & (trap \"\" TERM HUP INT; sleep 1000; :) & wait' $marker & trap '' TERM; sleep 1000; :" \
	>/dev/null 2>&1 </dev/null
rc=$?
dt=$(($(now_ms) - t0))
check "a TERM-ignoring setsid double-fork still ends at --timeout 1 (rc $rc, ${dt} ms)" \
	test "$rc" = 124 -a "$dt" -lt 10000
check "... and leaves no process behind" no_process "$marker"

# --- idle ---------------------------------------------------------------------

"$HUTCH" run --json --idle-timeout 1 --timeout 20 -- sleep 30 >"$tmp/doc"
check "--idle-timeout 1 on a silent sleep: timeout, limit idle_ms" \
	test "$(json_get '[d["error"]["code"], d["error"]["limit"]]' <"$tmp/doc")" = '["timeout", "idle_ms"]'
check "... ended by the idle limit, not the wall one" \
	test "$(json_get 'd["usage"]["wall_ms"] < 10000' <"$tmp/doc")" = true
"$HUTCH" run --idle-timeout 1 --timeout 20 -- /bin/sh -c \
	'i=0; while [ $i -lt 8 ]; do echo $i; sleep 0.2; i=$((i + 1)); done' >"$tmp/out"
rc=$?
check "output every 0.2 s for 1.6 s under --idle-timeout 1 runs to the end (rc $rc)" \
	test "$rc" = 0 -a "$(wc -l <"$tmp/out")" = 8
"$HUTCH" run --idle-timeout 1 --timeout 20 -- sleep 30 2>/dev/null
check "--idle-timeout without --json -> 124" test $? = 124

# --- output caps --------------------------------------------------------------

n=$("$HUTCH" run --max-output 1K -- head -c 100K /dev/zero 2>"$tmp/e" | wc -c)
"$HUTCH" run --max-output 1K -- head -c 100K /dev/zero >/dev/null 2>&1
rc=$?
check "--max-output 1K crossed mid-stream -> 125" test "$rc" = 125
check "... no more than the cap passes through ($n bytes)" test "$n" -le 1024
check "... with one line on stderr naming output_overflow" has "$(cat "$tmp/e")" "^hutch: output_overflow"
"$HUTCH" run --json --max-output 1K -- head -c 100K /dev/zero >"$tmp/doc"
check "--json: error.code output_overflow, limit stdout_bytes" \
	test "$(json_get '[d["error"]["code"], d["error"]["limit"]]' <"$tmp/doc")" = '["output_overflow", "stdout_bytes"]'
check "--json: stdout.bytes >= 1024, truncated, nothing kept" \
	test "$(json_get '[d["stdout"]["bytes"] >= 1024, d["stdout"]["truncated"], d["stdout"].get("text", d["stdout"].get("base64"))]' <"$tmp/doc")" = '[true, true, ""]'
"$HUTCH" run --json --max-stderr 1K -- /bin/sh -c 'head -c 100K /dev/zero >&2' >"$tmp/doc"
check "--max-stderr 1K: output_overflow, limit stderr_bytes" \
	test "$(json_get '[d["error"]["code"], d["error"]["limit"]]' <"$tmp/doc")" = '["output_overflow", "stderr_bytes"]'
check "--max-stderr 1K: stderr.bytes >= 1024, truncated" \
	test "$(json_get '[d["stderr"]["bytes"] >= 1024, d["stderr"]["truncated"]]' <"$tmp/doc")" = '[true, true]'
"$HUTCH" run --max-stderr 1K -- /bin/sh -c 'head -c 100K /dev/zero >&2' 2>/dev/null
check "--max-stderr crossed without --json -> 125" test $? = 125
"$HUTCH" run --json --max-output 1K -- /bin/sh -c 'head -c 1024 /dev/zero | tr "\\0" a' >"$tmp/doc"
check "exactly at the cap (1024 bytes of text, 1K) is not an overflow" \
	test "$(json_get '[d["status"], d["stdout"]["bytes"], d["stdout"]["truncated"], len(d["stdout"]["text"])]' <"$tmp/doc")" = '["exited", 1024, false, 1024]'
# --json: the cap bounds the rendered field; 1024 NUL bytes are 1368 of base64.
"$HUTCH" run --json --max-output 1K -- head -c 1024 /dev/zero >"$tmp/doc"
check "--json: 1024 NUL bytes under 1K render past the cap: output_overflow" \
	test "$(json_get '[d["error"]["code"], d["error"]["limit"], d["stdout"]["bytes"]]' <"$tmp/doc")" = '["output_overflow", "stdout_bytes", 1024]'
n=$("$HUTCH" run --max-output 1K -- head -c 1024 /dev/zero | wc -c)
check "control: the same 1024 bytes pass through without --json ($n)" test "$n" = 1024
marker="hutch-limits-overflow-$$"
"$HUTCH" run --max-output 1K -- /bin/sh -c "(trap '' TERM; sleep 1000; :) & exec head -c 100K /dev/zero" "$marker" \
	>/dev/null 2>&1 </dev/null
check "an overflow kills what the target started too" no_process "$marker"

# --- CPU ------------------------------------------------------------------------

t0=$(now_ms)
"$HUTCH" run --cpu 1 --timeout 30 -- /bin/sh -c 'while :; do :; done' 2>/dev/null
rc=$?
dt=$(($(now_ms) - t0))
check "--cpu 1 on a busy loop: reported as the CPU limit, exit 124 (rc $rc, ${dt} ms)" \
	test "$rc" = 124
check "... well before the wall limit" test "$dt" -lt 15000
"$HUTCH" run --json --cpu 1 --timeout 30 -- /bin/sh -c 'while :; do :; done' >"$tmp/doc"
check "--json: status failed, error timeout with limit cpu_ms" \
	test "$(json_get '[d["status"], d["error"]["code"], d["error"]["limit"]]' <"$tmp/doc")" = '["failed", "timeout", "cpu_ms"]'
check "--json: usage.cpu_user_ms + cpu_sys_ms is about a second" \
	test "$(json_get '800 <= d["usage"]["cpu_user_ms"] + d["usage"]["cpu_sys_ms"] < 5000' <"$tmp/doc")" = true

# --- processes ------------------------------------------------------------------

marker="hutch-limits-forkbomb-$$"
"$HUTCH" run --processes 5 --timeout 20 -- /bin/sh -c \
	'for i in $(seq 50); do sleep 5 & done; wait' "$marker" >"$tmp/out" 2>"$tmp/e" </dev/null
rc=$?
check "--processes 5: a shell starting 50 sleeps fails to fork (rc $rc)" \
	test "$rc" != 0 -a "$rc" != 124
check "... and says so ('fork' on stderr)" grep -q -i fork "$tmp/e"
check "... nothing of it is left" no_process "$marker"
"$HUTCH" run --processes 5 --timeout 20 -- "$py" -c 'import os, sys, time
n = 0
while n < 100:
    try:
        pid = os.fork()
    except OSError as e:
        print(n, e.errno)
        break
    if pid == 0:
        time.sleep(30)
        os._exit(0)
    n += 1
else:
    print(n, 0)' "$marker-py" >"$tmp/out" 2>&1 </dev/null
set -- $(cat "$tmp/out")
check "--processes 5: fork fails with EAGAIN after at most 4 children ($*)" \
	test "${2:-x}" = 11 -a "${1:-99}" -le 4
check "... the sleeping children do not outlive the run" no_process "$marker-py"

# --- memory -----------------------------------------------------------------------

"$HUTCH" run --memory 64M -- "$py" -c 'b = bytearray(200 << 20); print("allocated")' >"$tmp/out" 2>"$tmp/e"
rc=$?
check "--memory 64M: allocating 200 MB fails (rc $rc)" test "$rc" != 0 -a ! -s "$tmp/out"
check "... with MemoryError" grep -q MemoryError "$tmp/e"
check "--memory 64M: allocating 16 MB works" \
	test "$("$HUTCH" run --memory 64M -- "$py" -c 'b = bytearray(16 << 20); print("allocated")')" = allocated

# --- file size --------------------------------------------------------------------

"$HUTCH" run --file-size 1M -- dd if=/dev/zero of=/work/f bs=1M count=2 2>/dev/null
check "--file-size 1M: dd writing 2M dies of SIGXFSZ (153)" test $? = 153
"$HUTCH" run --json --file-size 1M -- dd if=/dev/zero of=/work/f bs=1M count=2 >"$tmp/doc"
check "--json: signal SIGXFSZ" test "$(json_get 'd["signal"]["name"]' <"$tmp/doc")" = SIGXFSZ
out=$("$HUTCH" run --file-size 1M -- "$py" -c 'import errno, os, signal
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
fd = os.open("/work/f", os.O_WRONLY | os.O_CREAT, 0o644)
print(os.write(fd, bytes(2 << 20)))
try:
    os.write(fd, b"x")
    print("wrote past the limit")
except OSError as e:
    print(errno.errorcode[e.errno])
print(os.fstat(fd).st_size)' 2>&1)
check "--file-size 1M with SIGXFSZ ignored: EFBIG, the file stops at 1 MiB" \
	test "$(printf '%s\n' "$out" | tr '\n' ' ')" = "1048576 EFBIG 1048576 "
check "the same write to /tmp is limited too" \
	has "$("$HUTCH" run --file-size 1M -- /bin/sh -c 'dd if=/dev/zero of=/tmp/f bs=1M count=2 2>/dev/null; echo "rc=$?"')" '^rc=153$'

# --- above the policy's maximum -----------------------------------------------------

# limit_violation DESC POINTER ARGS...: policy_violation at POINTER, 125.
limit_violation() {
	desc=$1
	p=$2
	shift 2
	"$HUTCH" run --json "$@" -- /bin/true >"$tmp/doc" 2>/dev/null
	check "$desc: policy_violation at $p" \
		test "$(json_get '[d["error"]["code"], d["error"].get("pointer")]' <"$tmp/doc")" = "[\"policy_violation\", \"$p\"]"
	"$HUTCH" run "$@" -- /bin/true 2>"$tmp/e"
	rc=$?
	# Without --json the line names the flag and value as typed, and the
	# maximum in the same units (not the field: wall_ms).
	typed=
	for a in "$@"; do prev=$last last=$a; done
	typed="$prev $last"
	check "$desc: exit 125, '$typed is above the policy's maximum of' on stderr" \
		test "$rc" = 125 -a -n "$(grep -F -e "$typed is above the policy's maximum of " "$tmp/e")"
}
limit_violation "strict --timeout 1h" /limits/wall_ms --policy strict --timeout 1h
limit_violation "strict --cpu 31s" /limits/cpu_ms --policy strict --cpu 31s
limit_violation "strict --memory 2G" /limits/memory_bytes --policy strict --memory 2G
limit_violation "strict --max-output 17M" /limits/stdout_bytes --policy strict --max-output 17M
limit_violation "strict --max-stderr 5M" /limits/stderr_bytes --policy strict --max-stderr 5M
limit_violation "strict --processes 65" /limits/processes --policy strict --processes 65
limit_violation "strict --open-files 257" /limits/open_files --policy strict --open-files 257
limit_violation "strict --file-size 65M" /limits/file_size_bytes --policy strict --file-size 65M
limit_violation "strict --idle-timeout 61s" /limits/idle_ms --policy strict --idle-timeout 61s
limit_violation "default --timeout 2h" /limits/wall_ms --timeout 2h
limit_violation "default --processes 5000" /limits/processes --processes 5000
"$HUTCH" run --policy strict --timeout 1m -- /bin/true
check "strict --timeout 1m (exactly the maximum) is allowed" test $? = 0

tap_done
