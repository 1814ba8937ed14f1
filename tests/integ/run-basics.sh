#!/bin/sh
# run-basics.sh: `hutch run` as a command: stdin, stdout and stderr, exit
# codes and the result document, option parsing, --dry-run, signals to
# hutch, hutch killed, large and concurrent output, --result-fd.
. "$(dirname "$0")/lib.sh"

tap_tmpdir run-basics

# children PID: the pids whose parent is PID.
children() {
	want=$1
	for st in /proc/[0-9]*/stat; do
		line=$(cat 2>/dev/null "$st") || continue
		set -- ${line##*) } # state, ppid, ...
		if [ "$2" = "$want" ]; then
			p=${st%/stat}
			echo "${p#/proc/}"
		fi
	done
}

# gone PID...: within 5 s, none of the pids is alive (a zombie counts as gone).
gone() {
	i=0
	while [ $i -lt 50 ]; do
		alive=
		for p in "$@"; do
			st=$(sed -n 's/^State:[[:space:]]*\([A-Z]\).*/\1/p' "/proc/$p/status" 2>/dev/null)
			[ -n "$st" ] && [ "$st" != Z ] && alive="$alive $p"
		done
		[ -z "$alive" ] && return 0
		sleep 0.1
		i=$((i + 1))
	done
	diag "still alive:$alive"
	return 1
}

# Run with SIGINT and SIGQUIT at their defaults: a non-interactive shell
# starts background jobs with them ignored, which no program can undo.
bg_defaults() {
	exec "$py" -c 'import os, signal, sys
for s in (signal.SIGINT, signal.SIGQUIT, signal.SIGTERM):
    signal.signal(s, signal.SIG_DFL)
os.execvp(sys.argv[1], sys.argv[1:])' "$@"
}

# --- streams -------------------------------------------------------------

check "stdin is forwarded (echo hi | hutch run -- cat)" test "$(echo hi | "$HUTCH" run -- cat)" = hi
head -c 3000000 /dev/urandom >"$tmp/rand"
"$HUTCH" run -- cat <"$tmp/rand" >"$tmp/rand.out"
check "3 MB of binary stdin come back byte for byte" cmp -s "$tmp/rand" "$tmp/rand.out"
check "stdin at EOF (/dev/null) ends a reader at once" \
	test "$("$HUTCH" run --timeout 10 -- /bin/sh -c 'cat; echo eof' </dev/null)" = eof
seq 1 200000 >"$tmp/seq"
"$HUTCH" run -- seq 1 200000 >"$tmp/seq.out"
check "stdout passes through unchanged (seq 1 200000)" cmp -s "$tmp/seq" "$tmp/seq.out"
"$HUTCH" run -- /bin/sh -c 'echo to-out; echo to-err >&2' >"$tmp/o" 2>"$tmp/e"
check "stdout goes to stdout only" test "$(cat "$tmp/o")" = to-out
check "stderr goes to stderr only" test "$(cat "$tmp/e")" = to-err
doc=$("$HUTCH" run --json -- /bin/sh -c 'printf out; printf err >&2')
check "--json: stdout.text and stderr.text kept apart" \
	test "$(printf '%s' "$doc" | json_get 'd["stdout"]["text"] + "|" + d["stderr"]["text"]')" = "out|err"
check "--json: byte counts" \
	test "$(printf '%s' "$doc" | json_get '[d["stdout"]["bytes"], d["stderr"]["bytes"]]')" = "[3, 3]"
doc=$(printf 'abc' | "$HUTCH" run --json -- cat)
check "--json: stdin is forwarded too" test "$(printf '%s' "$doc" | json_get 'd["stdout"]["text"]')" = abc
doc=$("$HUTCH" run --json -- /bin/sh -c 'printf "\377\000\001"')
check "--json: output that is not UTF-8 comes back as base64" \
	test "$(printf '%s' "$doc" | json_get 'd["stdout"].get("base64")')" = "/wAB"

# --- exit codes ------------------------------------------------------------

"$HUTCH" run -- /bin/sh -c 'exit 3'
check "target exit 3 -> 3" test $? = 3
"$HUTCH" run -- /bin/true
check "target exit 0 -> 0" test $? = 0
for c in 71 124 125 126 127 255; do
	"$HUTCH" run -- /bin/sh -c "exit $c" 2>"$tmp/e"
	rc=$?
	check "target's own exit $c -> $c, and hutch says nothing" test "$rc" = "$c" -a ! -s "$tmp/e"
done
doc=$("$HUTCH" run --json -- /bin/sh -c 'exit 71')
check "--json: the target's own 71 is status exited, exit_code 71, error null" \
	test "$(printf '%s' "$doc" | json_get '[d["status"], d["exit_code"], d["error"]]')" = '["exited", 71, null]'
"$HUTCH" run -- /bin/sh -c 'kill -TERM $$'
check "target killed by SIGTERM -> 143" test $? = 143
doc=$("$HUTCH" run --json -- /bin/sh -c 'kill -TERM $$')
check "--json: status signaled, signal {number 15, name SIGTERM}" \
	test "$(printf '%s' "$doc" | json_get '[d["status"], d["signal"]["number"], d["signal"]["name"], d["exit_code"]]')" = '["signaled", 15, "SIGTERM", null]'
"$HUTCH" run -- /bin/sh -c 'kill -KILL $$'
check "target killed by SIGKILL -> 137" test $? = 137
"$HUTCH" run -- /bin/sh -c 'kill -SEGV $$'
check "target killed by SIGSEGV -> 139 (no core)" test $? = 139

"$HUTCH" run -- /no/such/command 2>"$tmp/e"
check "missing command -> 127" test $? = 127
check "... with one line on stderr naming exec_failed" has "$(cat "$tmp/e")" "exec_failed"
"$HUTCH" run -- no-such-command-in-path 2>/dev/null
check "command not in PATH -> 127" test $? = 127
doc=$("$HUTCH" run --json -- /no/such/command)
check "--json: status failed, error.code exec_failed, errno ENOENT" \
	test "$(printf '%s' "$doc" | json_get '[d["status"], d["error"]["code"], d["error"]["errno"]]')" = '["failed", "exec_failed", "ENOENT"]'
mkdir "$tmp/bin"
printf '#!/bin/sh\necho ran\n' >"$tmp/bin/plain"
chmod 644 "$tmp/bin/plain"
chmod 755 "$tmp/bin"
"$HUTCH" run --ro "$tmp/bin:/data" -- /data/plain 2>/dev/null
check "a file without execute permission -> 126" test $? = 126
doc=$("$HUTCH" run --json --ro "$tmp/bin:/data" -- /data/plain)
check "--json: exec_failed with errno EACCES" \
	test "$(printf '%s' "$doc" | json_get '[d["error"]["code"], d["error"]["errno"]]')" = '["exec_failed", "EACCES"]'
"$HUTCH" run -- /usr 2>/dev/null
check "a directory as the command -> 126" test $? = 126
# A non-executable file under /usr, which is mounted executable.
nx=$(find /usr/share -maxdepth 3 -type f ! -perm /111 -size +0 2>/dev/null | head -n 1)
if [ -n "$nx" ]; then
	"$HUTCH" run -- "$nx" 2>/dev/null
	check "a non-executable file on the executable /usr -> 126" test $? = 126
else
	tap_n=$((tap_n + 1))
	echo "ok $tap_n - a non-executable file on the executable /usr -> 126 # SKIP none found"
fi

# --- option parsing --------------------------------------------------------

check "options after -- are the command's" \
	test "$("$HUTCH" run -- /bin/echo --json --timeout)" = "--json --timeout"
check "options after the command are the command's" \
	test "$("$HUTCH" run /bin/echo --json --dry-run -- x)" = "--json --dry-run -- x"
"$HUTCH" run --help >"$tmp/help"
check "--help exits 0" test $? = 0
check "--help lists --timeout" grep -q -- --timeout "$tmp/help"
check "--help prints on stdout, nothing else runs" test -s "$tmp/help"
"$HUTCH" run 2>"$tmp/e"
check "no command: usage error 125 on stderr" test $? = 125 -a -s "$tmp/e"
"$HUTCH" run --no-such-option -- /bin/true 2>/dev/null
check "an unknown option: 125" test $? = 125

# --- dry run ---------------------------------------------------------------

mkdir "$tmp/rw"
chmod 755 "$tmp/rw" # a root caller may not lend a shared dir (hutch(1), --rw)
"$HUTCH" run --rw "$tmp/rw:/out" -- /bin/sh -c 'touch /out/control' 2>/dev/null
check "control: a real run creates the marker in the --rw dir" test -e "$tmp/rw/control"
"$HUTCH" run --dry-run --rw "$tmp/rw:/out" -- /bin/sh -c 'touch /out/marker' >"$tmp/plan"
check "--dry-run exits 0" test $? = 0
check "--dry-run runs nothing (no marker)" test ! -e "$tmp/rw/marker"
check "--dry-run prints JSON with mounts, limits, namespaces, seccomp, env" \
	test "$(json_get 'all(k in d for k in ("mounts", "limits", "namespaces", "seccomp", "env"))' <"$tmp/plan")" = true
check "--dry-run shows the request's bind" \
	test "$(json_get '[m for m in d["mounts"] if m.get("target") == "/out"] != []' <"$tmp/plan")" = true
check "--dry-run shows the default wall limit" \
	test "$(json_get 'd["limits"]["wall_ms"]' <"$tmp/plan")" = 30000

# --- signals to hutch ------------------------------------------------------

for sig in TERM INT; do
	: >"$tmp/sig.out"
	bg_defaults "$HUTCH" run -- /bin/sh -c "trap 'echo got $sig; exit 0' $sig; echo ready; while :; do sleep 0.05; done" \
		>"$tmp/sig.out" 2>&1 </dev/null &
	hp=$!
	if wait_for "$tmp/sig.out" '^ready$'; then
		kill -"$sig" "$hp"
		wait "$hp"
		rc=$?
		check "SIG$sig to hutch reaches the target (it prints 'got $sig')" grep -q "^got $sig\$" "$tmp/sig.out"
		check "... and the target's exit 0 is hutch's ($rc)" test "$rc" = 0
	else
		kill -KILL "$hp"
		wait "$hp"
		not_ok "SIG$sig to hutch reaches the target (never ready)"
		not_ok "... and the target's exit 0 is hutch's"
	fi
done

# A target that ignores TERM: one TERM, then the grace period, then a kill.
marker="hutch-basics-ignore-$$"
: >"$tmp/sig.out"
bg_defaults "$HUTCH" run --result-fd 3 -- /bin/sh -c "trap '' TERM; echo ready; sleep 1000; :" "$marker" \
	>"$tmp/sig.out" 3>"$tmp/sig.doc" 2>/dev/null </dev/null &
hp=$!
if wait_for "$tmp/sig.out" '^ready$'; then
	t0=$(now_ms)
	kill -TERM "$hp"
	wait "$hp"
	rc=$?
	dt=$(($(now_ms) - t0))
	check "a TERM-ignoring target is killed after the grace period (${dt} ms, rc $rc)" \
		test "$dt" -lt 10000 -a "$rc" = 125
	check "... the document says cancelled" \
		test "$(json_get 'd["error"]["code"]' <"$tmp/sig.doc")" = cancelled
	check "... and nothing of it is left" no_process "$marker"
else
	kill -KILL "$hp"
	wait "$hp"
	not_ok "a TERM-ignoring target is killed after the grace period (never ready)"
	not_ok "... the document says cancelled"
	not_ok "... and nothing of it is left"
fi

# A second TERM does not wait for the grace period.
marker="hutch-basics-twice-$$"
: >"$tmp/sig.out"
bg_defaults "$HUTCH" run -- /bin/sh -c "trap 'echo got TERM' TERM; echo ready; while :; do sleep 0.05; done" "$marker" \
	>"$tmp/sig.out" 2>/dev/null </dev/null &
hp=$!
if wait_for "$tmp/sig.out" '^ready$'; then
	kill -TERM "$hp"
	wait_for "$tmp/sig.out" '^got TERM$'
	t0=$(now_ms)
	kill -TERM "$hp"
	wait "$hp"
	rc=$?
	dt=$(($(now_ms) - t0))
	check "a second TERM kills at once (${dt} ms, rc $rc)" test "$dt" -lt 1800 -a "$rc" = 125
	check "... and nothing of it is left" no_process "$marker"
else
	kill -KILL "$hp"
	wait "$hp"
	not_ok "a second TERM kills at once (never ready)"
	not_ok "... and nothing of it is left"
fi

# hutch itself killed with SIGKILL: the jail must not outlive it.
marker="hutch-basics-sigkill-$$"
: >"$tmp/sig.out"
"$HUTCH" run -- /bin/sh -c "setsid /bin/sh -c 'sleep 1000; :' $marker-child & echo ready; sleep 1000; :" "$marker" \
	>"$tmp/sig.out" 2>/dev/null </dev/null &
hp=$!
if wait_for "$tmp/sig.out" '^ready$'; then
	kids=$(children "$hp")
	kill -KILL "$hp"
	wait "$hp"
	check "hutch killed by SIGKILL leaves no target behind" no_process "$marker"
	check "... nor the target's setsid child" no_process "$marker-child"
	check "... nor its hutch-exec ($kids)" gone $kids
else
	kill -KILL "$hp"
	wait "$hp"
	not_ok "hutch killed by SIGKILL leaves no target behind (never ready)"
	not_ok "... nor the target's setsid child"
	not_ok "... nor its hutch-exec"
fi

# --- volume ----------------------------------------------------------------

"$HUTCH" run --json --max-output 16M --max-stderr 16M --timeout 60 -- \
	/bin/sh -c 'head -c 8388608 /dev/zero & head -c 8388608 /dev/zero >&2; wait' >"$tmp/big.doc"
check "8 MiB on stdout and stderr at once: no deadlock, exited 0" \
	test "$(json_get '[d["status"], d["exit_code"]]' <"$tmp/big.doc")" = '["exited", 0]'
check "... stdout.bytes == 8388608" test "$(json_get 'd["stdout"]["bytes"]' <"$tmp/big.doc")" = 8388608
check "... stderr.bytes == 8388608" test "$(json_get 'd["stderr"]["bytes"]' <"$tmp/big.doc")" = 8388608
check "... and all of it is in the document" \
	test "$(json_get '[len(__import__("base64").b64decode(d["stdout"]["base64"])), len(__import__("base64").b64decode(d["stderr"]["base64"]))]' <"$tmp/big.doc")" = "[8388608, 8388608]"
"$HUTCH" run --max-output 16M --max-stderr 16M --timeout 60 -- \
	/bin/sh -c 'head -c 8388608 /dev/zero & head -c 8388608 /dev/zero >&2; wait' 2>"$tmp/big.err" | wc -c >"$tmp/big.n"
check "8 MiB on each stream passes through: stdout" test "$(cat "$tmp/big.n")" = 8388608
check "8 MiB on each stream passes through: stderr" test "$(wc -c <"$tmp/big.err")" = 8388608
n=$("$HUTCH" run --max-output 2G --timeout 120 -- head -c 1G /dev/zero | wc -c)
check "1 GiB passes through (wc -c = 1073741824)" test "$n" = 1073741824

# --- result-fd -------------------------------------------------------------

out=$("$HUTCH" run --result-fd 3 -- /bin/sh -c 'echo hi; exit 5' 3>"$tmp/res.doc")
rc=$?
check "--result-fd: output streams through" test "$out" = hi
check "--result-fd: the exit status is still the target's" test "$rc" = 5
check "--result-fd: the document is on fd 3 (exited, 5, 3 bytes)" \
	test "$(json_get '[d["status"], d["exit_code"], d["stdout"]["bytes"]]' <"$tmp/res.doc")" = '["exited", 5, 3]'
out=$("$HUTCH" run --result-fd 3 -- /bin/sh -c '[ -e /proc/$$/fd/3 ] && echo leaked || echo clean' 3>"$tmp/res.doc")
check "--result-fd: fd 3 is not open in the target" test "$out" = clean
# Closed here whatever the caller left open on it (CI holds a lock on 9).
"$HUTCH" run --result-fd 9 -- /bin/true 2>/dev/null 9>&-
check "--result-fd on a closed descriptor: usage error 125" test $? = 125

tap_done
