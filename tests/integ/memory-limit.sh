#!/bin/sh
# memory-limit.sh: without a delegated cgroup the memory limit is
# RLIMIT_DATA with RLIMIT_AS HUTCH_AS_HEADROOM (16 GiB) above it (hutch(1),
# LIMITS): node, java and Go programs start under the default policy's
# limit, an allocation past it fails, and the run that died of it says so
# ("limit": "memory" in the result, a line on stderr). An AddressSanitizer
# program cannot start under it at any --memory, and the run says a
# delegated cgroup is the way (with one in force, it starts). A job that
# prints the words itself changes neither its status nor a real limit's
# verdict, and none of its text reaches limit_detail. Root and
# unprivileged. node, java and go are packages of their own (tests/ci.sh
# installs them); a missing one is a skip naming it.
. "$(dirname "$0")/lib.sh"
tap_tmpdir memory-limit

"$HUTCH" run --json -- cat /proc/self/limits >"$tmp/doc"
cg=$(json_get 'd["jail"]["cgroup"]' <"$tmp/doc")
mem=$("$HUTCH" run --dry-run -- true | json_get 'd["limits"]["memory_bytes"]')

# AddressSanitizer reserves its shadow memory at start, one private
# writable mapping of terabytes: RLIMIT_DATA counts it whole, so without
# a cgroup an ASan program cannot start under any --memory (hutch(1),
# LIMITS), and the run says the cgroup is the way; with the cgroup it
# starts. The program runs from a request bind, which default mounts
# without exec: build, at default's memory_bytes, is the same limit.
asan_case() {
	printf '#include <stdio.h>\n#include <stdlib.h>\n%s\n' \
		'int main(void) { char *p = malloc(16); p[0] = 1; printf("ok %d\n", p[0]); free(p); return 0; }' \
		>"$tmp/asan.c"
	if ! command -v gcc >/dev/null 2>&1 ||
		! gcc -fsanitize=address -o "$tmp/asan" "$tmp/asan.c" 2>"$tmp/err" ||
		! gcc -o "$tmp/plain" "$tmp/asan.c" 2>>"$tmp/err"; then
		skip "an AddressSanitizer program under the memory limit" \
			"gcc -fsanitize=address does not build here (gcc and libasan: tests/ci.sh installs them)"
		return
	fi
	chmod a+rx "$tmp/asan" "$tmp/plain"
	"$HUTCH" run --json --policy build --memory "$mem" --ro "$tmp:/t" -- /t/asan >"$tmp/doc"
	if [ "$cg" = applied ]; then
		check "an ASan program starts under the cgroup's memory.max ($mem bytes)" \
			test "$(json_get '[d["status"], d["exit_code"], d["stdout"]["text"]]' <"$tmp/doc")" = '["exited", 0, "ok 1\n"]'
		return
	fi
	same "an ASan program does not start under RLIMIT_DATA $mem: SIGABRT, \"limit\": \"memory\"" \
		'["signaled", "SIGABRT", "memory"]' \
		"$(json_get '[d["status"], d["signal"]["name"], d.get("limit")]' <"$tmp/doc")"
	check "... its limit_detail names AddressSanitizer's shadow and the delegated cgroup, not --memory" \
		has "$(json_get 'd["limit_detail"]' <"$tmp/doc")" \
		'AddressSanitizer: its shadow memory.*no --memory SIZE helps; run it where hutch has a delegated cgroup'
	"$HUTCH" run --policy build --memory 16G --ro "$tmp:/t" -- /t/asan >"$tmp/out" 2>"$tmp/err"
	check "... nor under --memory 16G, build's maximum: exit 134, one line hutch: memory limit: ... cgroup" \
		test $? = 134 -a "$(grep -c '^hutch: memory limit: .*AddressSanitizer.*delegated cgroup' "$tmp/err")" = 1
	"$HUTCH" run --json --policy build --memory "$mem" --ro "$tmp:/t" -- /t/plain >"$tmp/doc"
	same "control: the same program without ASan runs under the same limit" \
		'[0, "ok 1\n", false]' "$(json_get '[d["exit_code"], d["stdout"]["text"], "limit" in d]' <"$tmp/doc")"
}
asan_case

if [ "$cg" = applied ]; then
	skip "the rlimit fallback" "a delegated cgroup is in force here: memory.max is the limit"
	tap_done
	exit
fi
"$HUTCH" run --json -- cat /proc/self/limits >"$tmp/doc"
lim=$(json_get 'd["stdout"]["text"]' <"$tmp/doc")
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

# The verdict is read from the job's own words (a heuristic, hutch(1)
# LIMITS), so a job can print them. What it must not get by that: its
# status or exit code changed, text of its own in limit_detail (the line
# hutch prints as its own on stderr), or a real limit's kill renamed.
"$HUTCH" run --json -- sh -c 'echo "INJECT out of memory ReserveShadowMemoryRange INJECT" >&2; exit 1' \
	>"$tmp/doc"
same "the words printed with exit 1: exited 1 stays, limit memory, no text of the job in limit_detail" \
	'["exited", 1, "memory", false]' \
	"$(json_get '[d["status"], d["exit_code"], d["limit"], "INJECT" in d["limit_detail"]]' <"$tmp/doc")"
"$HUTCH" run --json --cpu 1s -- sh -c 'echo "out of memory ReserveShadowMemoryRange" >&2; while :; do :; done' \
	>"$tmp/doc"
same "the words before a kill at the CPU limit: the verdict stays cpu_ms, no memory limit" \
	'["failed", "timeout", "cpu_ms", false]' \
	"$(json_get '[d["status"], d["error"]["code"], d["error"]["limit"], "limit" in d]' <"$tmp/doc")"

tap_done
