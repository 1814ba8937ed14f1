#!/bin/sh
# readme-examples.sh: every command of the README's "Using it" block runs
# as written, against the binaries under test. Only what a reader supplies
# is supplied: job.json (a request document), ~/src (HOME is a temporary
# directory, as a user's home under /home would be), NAME and FILE of the
# policy synopsis, and the socket path (a temporary one: /run is root's).
# The build.sh line runs in jobs-build.sh, which gives it a project.
# Runs as root and as an unprivileged user.
. "$(dirname "$0")/lib.sh"

tap_tmpdir readme-examples
tap_stderr="$tmp/err"
readme=${HUTCH_SRCDIR:-$here/../..}/README
[ -f "$readme" ] || readme=$here/../README # installed: ci.sh copies it there
if [ ! -f "$readme" ]; then
	not_ok "the README is found"
	tap_done
	exit
fi
# The block's command lines, without their comments.
sed -n '/^Using it$/,/^Exit status/p' "$readme" | grep -E '^    hutch ' |
	sed -e 's/^    //' -e 's/  *#.*$//' >"$tmp/lines"
check "the README's Using it block has its seven commands" test "$(wc -l <"$tmp/lines")" = 7

# readme PATTERN: the one README line matching PATTERN (grep -E).
readme_line() { grep -E "$1" "$tmp/lines"; }
hutch_line() { line=$(readme_line "$1") && eval "\"\$HUTCH\" ${line#hutch }"; }

cd "$tmp" || exit 1
same "hutch run -- python3 -c 'print(6*7)': 42" 42 "$(hutch_line '^hutch run -- python3' 2>"$tmp/err" </dev/null)"

printf '{"version": 1, "argv": ["/bin/echo", "from a request"]}' >job.json
same "hutch run --request job.json: a result document" '["exited", "from a request\n"]' \
	"$(hutch_line '^hutch run --request job\.json$' 2>"$tmp/err" </dev/null |
		json_get '[d["status"], d["stdout"]["text"]]')"

mkdir -p "$tmp/home/src" && chmod -R a+rX "$tmp/home"
out=$(HOME=$tmp/home hutch_line '^hutch run --dry-run --ro ~/src:/src -- make$' 2>"$tmp/err" </dev/null)
same "hutch run --dry-run --ro ~/src:/src -- make: the jail as JSON, /src bound" true \
	"$(printf '%s' "$out" | json_get 'any(m["target"] == "/src" for m in d["mounts"]) and d["argv"] == ["make"]')"

hutch_line '^hutch probe$' >"$tmp/out" 2>"$tmp/err" </dev/null
same "hutch probe: exit 0" 0 $?

synopsis=$(readme_line '^hutch policy list')
same "the policy synopsis is list | show NAME | check FILE | digest NAME" \
	"hutch policy list | show NAME | check FILE | digest NAME" "$synopsis"
pfile=${HUTCH_POLICY_PATH:+${HUTCH_POLICY_PATH%%:*}/default.json}
[ -n "$pfile" ] && [ -f "$pfile" ] || pfile=$("$HUTCH" policy show default >"$tmp/p.json" && echo "$tmp/p.json")
"$HUTCH" policy list >"$tmp/out" 2>"$tmp/err"
check "hutch policy list: lists default" grep -q '^default' "$tmp/out"
"$HUTCH" policy show default >"$tmp/out" 2>"$tmp/err"
same "hutch policy show NAME: a policy document" hutch "$(json_get 'd["hostname"]' <"$tmp/out")"
"$HUTCH" policy check "$pfile" >"$tmp/out" 2>"$tmp/err"
same "hutch policy check FILE: exit 0" 0 $?
same "hutch policy digest NAME: a sha256 digest" 1 \
	"$("$HUTCH" policy digest default 2>"$tmp/err" | grep -cE '^sha256:[0-9a-f]{64}$')"

# The serve line, on a socket of ours: it listens, and SIGTERM drains it.
line=$(readme_line '^hutch serve --socket /run/hutch\.sock$')
line=$(printf '%s' "$line" | sed "s|/run/hutch.sock|$tmp/hutch.sock|")
eval "exec \"\$HUTCH\" ${line#hutch }" 2>"$tmp/serve.err" &
pid=$!
n=0
while [ ! -S "$tmp/hutch.sock" ] && [ $n -lt 100 ]; do sleep 0.1; n=$((n + 1)); done
check "hutch serve --socket PATH listens there" test -S "$tmp/hutch.sock"
kill -TERM "$pid" 2>/dev/null
wait "$pid"
same "... and drains on SIGTERM (exit 0)" 0 $?
tap_done
