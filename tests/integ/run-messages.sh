#!/bin/sh
# run-messages.sh: failures that explain themselves (issue 11, section 5):
# each message `hutch run` prints for a mistake on its command line or a
# command the jail cannot run, with its exit status and, where there is one,
# the --json error; none echoes command text or environment values.
. "$(dirname "$0")/lib.sh"

tap_tmpdir run-messages

# msg DESC STATUS REGEX ARGS...: `hutch run ARGS` exits STATUS and its
# stderr matches the extended REGEX (fixed strings are escaped by callers).
msg() {
	desc=$1 want=$2 re=$3
	shift 3
	"$HUTCH" run "$@" >"$tmp/out" 2>"$tmp/err" </dev/null
	rc=$?
	check "$desc: exit $want (got $rc)" test "$rc" = "$want"
	check "$desc: says so" has "$(cat "$tmp/err")" "$re"
	has "$(cat "$tmp/err")" "$re" || diag "stderr: $(head -c 400 "$tmp/err")"
}

# doc DESC EXPR ARGS...: `hutch run --json ARGS` prints a document on
# which the Python expression EXPR (on d) is true.
doc() {
	desc=$1 expr=$2
	shift 2
	"$HUTCH" run --json "$@" >"$tmp/doc" 2>/dev/null </dev/null
	got=$(json_get "bool($expr)" <"$tmp/doc" 2>/dev/null)
	check "$desc" test "$got" = true
	[ "$got" = true ] || diag "doc: $(head -c 400 "$tmp/doc")"
}

# --- values on the command line: the flag as typed, the problem, the remedy -----

msg "--timeout 1.5s" 125 "^hutch run: --timeout 1\.5s: use 1500ms$" --timeout 1.5s -- /bin/true
msg "--cpu 0.25" 125 "^hutch run: --cpu 0\.25: use 250ms$" --cpu 0.25 -- /bin/true
msg "--memory 64m" 125 "^hutch run: --memory 64m: units are upper case: K, M, G, T" --memory 64m -- /bin/true
msg "--memory 1.5G" 125 "^hutch run: --memory 1\.5G: use a whole number: 1536M$" --memory 1.5G -- /bin/true
msg "--max-output lots" 125 "^hutch run: --max-output lots: a size is a whole number of bytes" \
	--max-output lots -- /bin/true
msg "--timeout 10x" 125 "^hutch run: --timeout 10x: a duration is a whole number of seconds, or one with ms, s, m or h" \
	--timeout 10x -- /bin/true
msg "--processes 5k" 125 "^hutch run: --processes 5k: a count is a whole number, without a unit$" \
	--processes 5k -- /bin/true
msg "--timeout 99999999999999999999" 125 "^hutch run: --timeout 99999999999999999999: too large$" \
	--timeout 99999999999999999999 -- /bin/true
check "... a usage error ends with the hint" has "$(tail -n 1 "$tmp/err")" "^Try 'hutch run --help'\.$"

# --- the limit exceeded, in the units typed ---------------------------------------

msg "--timeout 2h (default allows 1h)" 125 \
	"^hutch: policy_violation: --timeout 2h is above the policy's maximum of 1h$" --timeout 2h -- /bin/true
msg "--memory 100G (default allows 16G)" 125 \
	"^hutch: policy_violation: --memory 100G is above the policy's maximum of 16G$" --memory 100G -- /bin/true
msg "strict --timeout 90s (strict allows 1m)" 125 \
	"^hutch: policy_violation: --timeout 90s is above the policy's maximum of 1m$" \
	--policy strict --timeout 90s -- /bin/true
check "... names the flag, not the field" not grep -q wall_ms "$tmp/err"
doc "--json: the maximum in the message, the field in the pointer, the range accepted" \
	'd["error"]["pointer"] == "/limits/wall_ms" and d["error"]["message"].endswith("maximum (given 7200000): 3600000; accepted: 1 to 3600000") and d["error"]["accepted"] == ["1 to 3600000"]' \
	--timeout 2h -- /bin/true

# --- options and subcommands hutch does not know --------------------------------

msg "an unknown long option" 125 "^hutch run: unknown option '--frobnicate'$" --frobnicate -- /bin/true
check "... then the hint" has "$(tail -n 1 "$tmp/err")" "^Try 'hutch run --help'\.$"
msg "an unknown option's value is not echoed" 125 "^hutch run: unknown option '--frob'$" \
	--frob=SECRET-VALUE -- /bin/true
check "... (the value after = stays out)" not grep -q SECRET-VALUE "$tmp/err"
msg "an unknown short option" 125 "^hutch run: unknown option '-x'$" -x /bin/true
msg "a missing value" 125 "^hutch run: --timeout: needs a value$" --timeout
check "... then the hint" has "$(tail -n 1 "$tmp/err")" "^Try 'hutch run --help'\.$"
msg "no command" 125 "^hutch run: COMMAND: missing" --timeout 1s
check "no 'hutch run: run:' doubling" not grep -q "run: run:" "$tmp/err"
"$HUTCH" frobnicate >/dev/null 2>"$tmp/err"
rc=$?
check "an unknown subcommand: exit 125 (got $rc)" test "$rc" = 125
check "... names it, then the hint" \
	test "$(cat "$tmp/err")" = "hutch: unknown command 'frobnicate'
Try 'hutch --help'."
"$HUTCH" policy frobnicate x >/dev/null 2>"$tmp/err"
check "hutch policy with an unknown subcommand ends with its hint" \
	has "$(tail -n 1 "$tmp/err")" "^Try 'hutch policy --help'\.$"
"$HUTCH" probe --frobnicate >/dev/null 2>"$tmp/err"
check "hutch probe with an unknown option ends with its hint" \
	has "$(tail -n 1 "$tmp/err")" "^Try 'hutch probe --help'\.$"
check "... and says hutch probe, not getopt's 'probe:'" not grep -q "^probe:" "$tmp/err"

# --- request errors name the option typed -----------------------------------------

msg "--env a variable the policy refuses (strict: a short allow list)" 125 \
	"^hutch: policy_violation: --env SECRET_NAME: not allowed by the policy; accepted: LANG, TZ, PYTHONHASHSEED, SOURCE_DATE_EPOCH$" \
	--policy strict --env SECRET_NAME=SECRET-VALUE -- /bin/true
check "... never the value" not grep -q SECRET-VALUE "$tmp/err"
msg "--ro of a missing source" 125 "^hutch: invalid_request: --ro $tmp/none: source: does not exist$" \
	--ro "$tmp/none" -- /bin/true

# --- --cwd the jail lacks: a request error before any jail ------------------------

msg "--cwd /nonexistent" 125 "^hutch: invalid_request: --cwd: no such directory in the jail" \
	--cwd /nonexistent -- /bin/true
doc "--json: invalid_request at /cwd, no helper stage" \
	'd["error"]["code"] == "invalid_request" and d["error"]["pointer"] == "/cwd" and "stage" not in d["error"] and d["jail"] is not None' \
	--cwd /nonexistent -- /bin/true
msg "--cwd /work/sub (the work dir starts empty)" 125 "^hutch: invalid_request: --cwd: " \
	--cwd /work/sub -- /bin/true
msg "--cwd /etc/passwd (a file)" 125 "^hutch: invalid_request: --cwd: " --cwd /etc/passwd -- /bin/true
mkdir -p "$tmp/src/sub"
chmod -R a+rX "$tmp/src"
msg "--cwd in a bind's subdirectory runs" 0 "^$" --ro "$tmp/src:/src" --cwd /src/sub -- /bin/true
msg "--cwd /usr/bin (a policy bind) runs" 0 "^$" --cwd /usr/bin -- /bin/true
msg "--cwd /tmp runs" 0 "^$" --cwd /tmp -- /bin/true
msg "--cwd leading to a bind (/srv of --ro ...:/srv/data) runs" 0 "^$" \
	--ro "$tmp/src:/srv/data" --cwd /srv -- /bin/true

# --- exec failures: the cause and the remedy ---------------------------------------

cp /bin/true "$tmp/src/prog"
chmod 755 "$tmp/src/prog"
msg "exec from a request bind" 126 \
	"^hutch: exec_failed: .*the command is on the request bind at /data, and request binds are mounted without exec; .*build policy" \
	--ro "$tmp/src:/data" -- /data/prog
printf '#!/bin/sh\necho hi\n' >"$tmp/script"
msg "exec of a staged input file in /work" 126 \
	"^hutch: exec_failed: .*the command is on /work, which is mounted without exec; .*writable_exec.*build policy" \
	--input "s=$tmp/script" -- ./s
doc "--json: exec_failed, EACCES, the cause in the message" \
	'd["error"]["code"] == "exec_failed" and d["error"]["errno"] == "EACCES" and "writable_exec" in d["error"]["message"]' \
	--input "s=$tmp/script" -- /work/s
msg "a command on no PATH at all" 127 \
	"^hutch: exec_failed: .*not found on the jail's PATH \(nor on the host's\)$" hutch-no-such-command-$$
mkdir -p "$tmp/hostbin"
cp /bin/true "$tmp/hostbin/hutch-host-only-$$"
chmod -R a+rX "$tmp/hostbin"
PATH="$PATH:$tmp/hostbin" "$HUTCH" run -- "hutch-host-only-$$" >/dev/null 2>"$tmp/err"
rc=$?
check "a command only the host has: exit 127 (got $rc)" test "$rc" = 127
check "... not found on the jail's PATH; the host has it in DIR, which the jail lacks" \
	has "$(cat "$tmp/err")" "not found on the jail's PATH; the host has it in $tmp/hostbin, which the jail lacks"
check "... never the command's name" not grep -q "hutch-host-only-$$" "$tmp/err"
msg "a path the host has outside the binds" 127 \
	"^hutch: exec_failed: .*not found in the jail; the host has a file at that path, outside the jail's binds" \
	-- "$tmp/hostbin/hutch-host-only-$$"
msg "a path nobody has" 127 "not found in the jail \(nor at that path on the host\)$" -- /no/such/prog
msg "exec from a policy bind without exec" 126 \
	"the command is on the policy's bind of /etc/ld.so.cache, which is mounted without exec; \"exec\": true on that bind" \
	-- /etc/ld.so.cache
if [ -f /usr/lib/os-release ] && [ ! -x /usr/lib/os-release ]; then
	msg "a file without x bits on an exec mount" 126 "permission denied: the file is not executable" \
		-- /usr/lib/os-release
else
	skip "a file without x bits on an exec mount" "no /usr/lib/os-release"
fi

# --- a CPU-limit kill is that limit ------------------------------------------------

msg "--cpu 1 on a busy loop" 124 \
	"^hutch: timeout: the run exceeded its time limit: cpu_ms: killed at its CPU time limit of 1s \(--cpu\)$" \
	--cpu 1 -- /bin/sh -c 'while :; do :; done'
doc "--json: failed, timeout, limit cpu_ms" \
	'd["status"] == "failed" and d["error"]["code"] == "timeout" and d["error"]["limit"] == "cpu_ms"' \
	--cpu 1 -- /bin/sh -c 'while :; do :; done'
msg "a SIGKILL the command sends itself stays a signal" 137 "^$" \
	--cpu 5 -- /bin/sh -c 'kill -9 $$'

tap_done
