#!/bin/sh
# memory-limit.sh: without a delegated cgroup the memory limit is
# RLIMIT_DATA with RLIMIT_AS HUTCH_AS_HEADROOM (16 GiB) above it (hutch(1),
# LIMITS): node, java and Go programs start under the default policy's
# limit, an allocation past it fails, and the run that died of it says so
# ("limit": "memory" in the result, a line on stderr). Root and
# unprivileged. node, java and go are packages of their own (tests/ci.sh
# installs them); a missing one is a skip naming it.
. "$(dirname "$0")/lib.sh"
tap_tmpdir memory-limit

"$HUTCH" run --json -- cat /proc/self/limits >"$tmp/doc"
cg=$(json_get 'd["jail"]["cgroup"]' <"$tmp/doc")
if [ "$cg" = applied ]; then
	skip "the rlimit fallback" "a delegated cgroup is in force here: memory.max is the limit"
	tap_done
	exit
fi
lim=$(json_get 'd["stdout"]["text"]' <"$tmp/doc")
mem=$("$HUTCH" run --dry-run -- true | json_get 'd["limits"]["memory_bytes"]')
check "RLIMIT_DATA is the default policy's memory_bytes ($mem)" \
	has "$lim" "^Max data size +$mem +$mem +bytes"
check "RLIMIT_AS is 16 GiB above it" \
	has "$lim" "^Max address space +$((mem + 17179869184)) +$((mem + 17179869184)) +bytes"

# starts NAME COMMAND...: the command runs to exit 0 under default.
starts() {
	n=$1
	shift
	if ! command -v "$1" >/dev/null 2>&1; then
		skip "$n starts under default without a cgroup" "$1 is not installed (tests/ci.sh installs it)"
		return
	fi
	"$HUTCH" run --json -- "$@" >"$tmp/doc" 2>"$tmp/err"
	st=$(json_get '[d["status"], d["exit_code"]]' <"$tmp/doc")
	check "$n starts under default without a cgroup ($st)" test "$st" = '["exited", 0]'
	[ "$st" = '["exited", 0]' ] || diag "$(json_get 'd["stderr"]["text"][:400]' <"$tmp/doc")"
}
starts "node -e" node -e 'const a = new Array(1e6).fill(1); console.log(a.length)'
starts "java -version" java -version
starts "a Go program (go version)" go version
if command -v gofmt >/dev/null 2>&1; then
	printf 'package main\nfunc main(){}\n' | "$HUTCH" run -- gofmt >"$tmp/out" 2>&1
	check "a Go program reading its input (gofmt) works" grep -q '^func main() {}$' "$tmp/out"
else
	skip "a Go program reading its input (gofmt)" "gofmt is not installed (golang-go)"
fi

# Past the limit: the allocation fails and the run says why.
"$HUTCH" run --json --memory 128M -- python3 -c 'x = bytearray(512 << 20)' >"$tmp/doc"
check "512 MiB under --memory 128M: refused, \"limit\": \"memory\"" \
	test "$(json_get '[d["status"], d["exit_code"], d["limit"]]' <"$tmp/doc")" = '["exited", 1, "memory"]'
check "... its limit_detail says how to raise it (--memory, the policy's max)" \
	has "$(json_get 'd["limit_detail"]' <"$tmp/doc")" '--memory SIZE.*up to the policy.s 16G'
"$HUTCH" run --memory 128M -- python3 -c 'x = bytearray(512 << 20)' 2>"$tmp/err"
check "without --json: exit 1 and one stderr line, hutch: memory limit:" \
	test $? = 1 -a "$(grep -c '^hutch: memory limit: .*RLIMIT_DATA.*--memory SIZE' "$tmp/err")" = 1
if command -v node >/dev/null 2>&1; then
	"$HUTCH" run --json --memory 256M -- node -e 'const a = []; for (;;) a.push(new Array(1e6).fill(1))' >"$tmp/doc"
	check "node past --memory 256M: \"limit\": \"memory\" ($(json_get 'd.get("limit")' <"$tmp/doc"))" \
		test "$(json_get 'd.get("limit")' <"$tmp/doc")" = memory
else
	skip "node past the limit" "node is not installed"
fi
"$HUTCH" run --json --memory 256M -- python3 -c 'x = bytearray(64 << 20); print(len(x))' >"$tmp/doc"
check "control: 64 MiB under 256M works, no limit named" \
	test "$(json_get '[d["exit_code"], d["stdout"]["text"], "limit" in d]' <"$tmp/doc")" = '[0, "67108864\n", false]'
"$HUTCH" run --json -- sh -c 'echo "out of memory" >&2; exit 0' >"$tmp/doc"
check "control: the words with exit 0 name no limit" \
	test "$(json_get '"limit" in d' <"$tmp/doc")" = false
"$HUTCH" run --json -- sh -c 'echo "no such file" >&2; exit 3' >"$tmp/doc"
check "control: exit 3 without the words names no limit" \
	test "$(json_get '"limit" in d' <"$tmp/doc")" = false

tap_done
