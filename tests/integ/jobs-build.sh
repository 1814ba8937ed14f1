#!/bin/sh
# jobs-build.sh: the build policy does the job it exists for (hutch-policy(5),
# BUILD): a multi-file C project on a read-only request bind is configured
# and built with make into /work and the program runs; a shared object on a
# bound tree loads (ctypes); a Python venv on a bound tree runs, including a
# script of its bin/. Each is also tried under default, which must refuse
# to execute what the request bound or the jail wrote: the grant is build's.
. "$(dirname "$0")/lib.sh"

tap_tmpdir jobs-build
for tool in make cc; do
	if ! command -v "$tool" >/dev/null 2>&1; then
		skip "build jobs" "$tool is not installed"
		tap_done
		exit
	fi
done

# --- a small multi-file C project, configured and built out of tree -------
src=$tmp/src
mkdir -p "$src/lib"
cat >"$src/configure" <<'EOF'
#!/bin/sh
# configure OUTDIR: writes OUTDIR/config.h and OUTDIR/Makefile.
out=$1; here=$(cd "$(dirname "$0")" && pwd)
printf '#define ANSWER %d\n' 42 >"$out/config.h"
printf 'SRC = %s\ninclude %s/Makefile.in\n' "$here" "$here" >"$out/Makefile"
EOF
cat >"$src/Makefile.in" <<'EOF'
CFLAGS ?= -O2
prog: main.o answer.o
	$(CC) -o $@ main.o answer.o
%.o: $(SRC)/%.c $(SRC)/lib/answer.h config.h
	$(CC) $(CFLAGS) -I. -I$(SRC)/lib -c -o $@ $<
run: prog
	./prog
EOF
cat >"$src/lib/answer.h" <<'EOF'
int answer(void);
EOF
cat >"$src/answer.c" <<'EOF'
#include "config.h"
#include "answer.h"
int answer(void) { return ANSWER; }
EOF
cat >"$src/main.c" <<'EOF'
#include <stdio.h>
#include "answer.h"
int main(void) { printf("answer %d\n", answer()); return 0; }
EOF
chmod -R a+rX "$src"
job='sh /src/configure /work && make -s run'
out=$("$HUTCH" run --policy build --ro "$src:/src" -- /bin/sh -c "$job" 2>"$tmp/err")
rc=$?
check "build: configure + make into /work from a read-only /src, and the program runs (rc $rc)" \
	test "$rc" = 0 -a "$out" = "answer 42"
[ "$rc" = 0 ] || diag "$(tail -5 "$tmp/err")"
out=$("$HUTCH" run --policy build --ro "$src:/src" -- /bin/sh -c 'touch /src/x' 2>&1)
check "build: the source tree stays read-only" test $? != 0
out=$("$HUTCH" run --policy build --env CFLAGS=-O0 --env MAKEFLAGS=-j2 --env GIT_DIR=/src \
	-- /bin/sh -c 'echo "$CFLAGS $MAKEFLAGS $GIT_DIR"' 2>&1)
check "build: --env CFLAGS, MAKEFLAGS, GIT_* are accepted ($out)" test "$out" = "-O0 -j2 /src"
out=$("$HUTCH" run --policy default --ro "$src:/src" -- /bin/sh -c "$job" 2>&1)
check "default: the same job builds but cannot run the program (Permission denied)" \
	has "$out" 'prog.*Permission denied'


# --- a shared object on a bound tree -----------------------------------------
mkdir "$tmp/so"
printf 'int square(int x) { return x * x; }\n' >"$tmp/so/sq.c"
cc -shared -fPIC -o "$tmp/so/libsq.so" "$tmp/so/sq.c"
chmod -R a+rX "$tmp/so"
load='import ctypes; print(ctypes.CDLL("/so/libsq.so").square(7))'
out=$("$HUTCH" run --policy build --ro "$tmp/so:/so" -- "$py" -c "$load" 2>"$tmp/err")
check "build: a shared object on a request bind loads with ctypes ($out)" test "$out" = 49
"$HUTCH" run --policy default --ro "$tmp/so:/so" -- "$py" -c "$load" >/dev/null 2>&1
check "default: the same shared object cannot be mapped executable" test $? != 0

# --- a Python venv on a bound tree -------------------------------------------
if "$py" -m venv --without-pip "$tmp/venv" >/dev/null 2>&1; then
	site=$("$tmp/venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
	mkdir -p "$site/hutchdemo"
	printf 'VALUE = "from the venv"\n' >"$site/hutchdemo/__init__.py"
	printf '#!/venv/bin/python\nimport sys, hutchdemo\nprint(sys.prefix, hutchdemo.VALUE)\n' \
		>"$tmp/venv/bin/demo"
	chmod 755 "$tmp/venv/bin/demo"
	chmod -R a+rX "$tmp/venv"
	out=$("$HUTCH" run --policy build --ro "$tmp/venv:/venv" -- /venv/bin/demo 2>"$tmp/err")
	check "build: a venv on a request bind runs its own script and package ($out)" \
		test "$out" = "/venv from the venv"
	[ "$out" = "/venv from the venv" ] || diag "$(tail -3 "$tmp/err")"
	"$HUTCH" run --policy default --ro "$tmp/venv:/venv" -- /venv/bin/demo >/dev/null 2>&1
	check "default: the venv's script is not executable from a request bind" test $? != 0
else
	not_ok "python3 -m venv works on the host (install python3-venv)"
fi

# --- README's example, as written there -----------------------------------------
# (tests/ci.sh copies the README next to the installed tests.)
readme=${HUTCH_SRCDIR:-$(dirname "$0")/..}/README
if [ -f "$readme" ]; then
	line=$(grep -E '^ +hutch run --json .*\./build\.sh' "$readme" | sed 's/^ *//')
	mkdir "$tmp/proj"
	printf '#!/bin/sh\nprintf "int main(void){return 0;}\\n" >/work/m.c && cc -o /work/m /work/m.c && /work/m && echo built\n' \
		>"$tmp/proj/build.sh"
	chmod -R a+rX "$tmp/proj"
	chmod 755 "$tmp/proj/build.sh"
	out=$(cd "$tmp/proj" && eval "\"\$HUTCH\" ${line#hutch }" | json_get 'd["exit_code"] == 0 and d["stdout"]["text"] == "built\n"')
	check "README's build.sh example runs as written (exit 0, prints built)" \
		test -n "$line" -a "$out" = true
else
	not_ok "the README is found ($readme)"
fi

# --- /tmp is executable, the policy's grants are as documented -----------------
out=$("$HUTCH" run --policy build -- /bin/sh -c \
	'printf "#!/bin/sh\necho ran\n" >/tmp/t.sh && chmod 755 /tmp/t.sh && /tmp/t.sh' 2>&1)
check "build: a script written to /tmp runs ($out)" test "$out" = ran
out=$("$HUTCH" run --json --policy build -- /bin/true | json_get 'd["jail"]["network"]')
check "build: network loopback by default ($out)" test "$out" = loopback
tap_done
