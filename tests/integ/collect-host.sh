#!/bin/sh
# collect-host.sh: --collect without --json writes into --output-dir
# (default: the current directory), and the jail cannot turn that into a
# write or a read anywhere else: destination links, FIFOs, hard links and
# directories planted on the host, names that climb out, links the jail
# makes at or on the way to the collected name, a directory holding links,
# FIFOs and names with control bytes, and both budgets. Runs as root and as
# an unprivileged user; writes only under its own mktemp directory.
. "$(dirname "$0")/lib.sh"

tap_tmpdir collect-host
tap_stderr="$tmp/err"
small="$here/../policy/collect-small.json"
me=$(id -u)

# fresh: an empty output directory $out.
fresh() {
	rm -rf "$tmp/out"
	mkdir "$tmp/out"
	out="$tmp/out"
}

# jrun ARGS...: hutch run from inside $out, exit status in $rc, its
# stderr in $tmp/msgs (same() empties $tmp/err once shown).
jrun() {
	rc=0
	(cd "$out" && "$HUTCH" run "$@") >"$tmp/stdout" 2>"$tmp/err" || rc=$?
	cp "$tmp/err" "$tmp/msgs"
}

# ---- the plain case ----------------------------------------------------

fresh
jrun --collect a.txt -- /bin/sh -c 'printf hello > a.txt'
same "a file is written into the current directory by default" "0 hello" "$rc $(cat "$out/a.txt" 2>/dev/null)"
same "... mode 0644, owned by the caller" "644 $me" "$(stat -c '%a %u' "$out/a.txt" 2>/dev/null)"
same "... and no temporary file is left behind" "a.txt" "$(ls -A "$out")"

fresh
mkdir "$tmp/elsewhere"
jrun --output-dir "$tmp/elsewhere" --collect a.txt -- /bin/sh -c 'printf x > a.txt'
same "--output-dir DIR: written there, not in the current directory" "0 x " \
	"$rc $(cat "$tmp/elsewhere/a.txt" 2>/dev/null) $(ls -A "$out")"
rm -rf "$tmp/elsewhere"

fresh
printf old >"$out/a.txt"
jrun --collect a.txt -- /bin/sh -c 'printf new > a.txt'
same "an existing regular file is replaced" "0 new" "$rc $(cat "$out/a.txt")"

fresh
jrun --collect sub/deep/a.txt -- /bin/sh -c 'mkdir -p sub/deep && printf p > sub/deep/a.txt'
same "a relative path under the working directory is written at the same path" "0 p" \
	"$rc $(cat "$out/sub/deep/a.txt" 2>/dev/null)"

fresh
jrun --cwd /tmp --collect a.txt -- /bin/sh -c 'printf work > /work/a.txt; printf tmp > /tmp/a.txt'
same "--cwd does not change where collection reads from (/work)" "0 work" \
	"$rc $(cat "$out/a.txt" 2>/dev/null)"

fresh
jrun --collect gone.txt -- /bin/true
same "a missing file: exit 125, said on stderr" "125 1" \
	"$rc $(grep -c '^hutch: --collect gone.txt: not written: no such file' "$tmp/err")"

# ---- the destination is the host's: links, FIFOs, non-directories ------

fresh
printf secret >"$tmp/target"
ln -s "$tmp/target" "$out/a.txt"
jrun --collect a.txt -- /bin/sh -c 'printf evil > a.txt'
same "a symbolic link at the destination is not written through" "secret" "$(cat "$tmp/target")"
same "... it is left as it was and refused (125)" "125 link" \
	"$rc $([ -L "$out/a.txt" ] && echo link)"
check "... the message says why" grep -q 'a.txt: not written: the destination exists and is not a regular file' "$tmp/msgs"

fresh
mkfifo "$out/a.txt"
rc=0
(cd "$out" && timeout 20 "$HUTCH" run --collect a.txt -- /bin/sh -c 'printf evil > a.txt') \
	>/dev/null 2>"$tmp/err" || rc=$?
same "a FIFO at the destination is never opened: refused at once (125)" "125 fifo" \
	"$rc $([ -p "$out/a.txt" ] && echo fifo)"

fresh
printf keep >"$tmp/other"
ln "$tmp/other" "$out/a.txt"
jrun --collect a.txt -- /bin/sh -c 'printf new > a.txt'
same "an existing hard link is replaced, not written through" "0 new keep" \
	"$rc $(cat "$out/a.txt") $(cat "$tmp/other")"

fresh
mkdir "$out/a.txt"
jrun --collect a.txt -- /bin/sh -c 'printf new > a.txt'
same "a directory at the destination of a file is refused (125)" "125 dir" \
	"$rc $([ -d "$out/a.txt" ] && echo dir)"

fresh
mkdir "$tmp/elsewhere"
ln -s "$tmp/elsewhere" "$out/sub"
jrun --collect sub/a.txt -- /bin/sh -c 'mkdir sub && printf evil > sub/a.txt'
same "a symbolic link to a directory on the way is not followed (125, nothing there)" "125 " \
	"$rc $(ls -A "$tmp/elsewhere")"
rm -rf "$tmp/elsewhere"

fresh
: >"$tmp/plain"
rc=0
"$HUTCH" run --output-dir "$tmp/plain" --collect a -- /bin/sh -c 'echo ran' >"$tmp/stdout" 2>"$tmp/err" || rc=$?
cp "$tmp/err" "$tmp/msgs"
same "--output-dir naming a file: usage error before any jail runs" "125 " "$rc $(cat "$tmp/stdout")"
check "... naming the flag" grep -q '^hutch run: --output-dir: not a directory' "$tmp/msgs"
mkdir "$tmp/realdir"
ln -s "$tmp/realdir" "$tmp/dirlink"
rc=0
"$HUTCH" run --output-dir "$tmp/dirlink" --collect a -- /bin/sh -c 'echo x > a' >/dev/null 2>"$tmp/err" || rc=$?
same "--output-dir naming a symbolic link: refused, nothing written" "125 " "$rc $(ls -A "$tmp/realdir")"
: >"$tmp/err"
rc=0
"$HUTCH" run --json --output-dir "$out" --collect a -- /bin/true >/dev/null 2>"$tmp/err" || rc=$?
same "--output-dir with --json: usage error" "125" "$rc"
: >"$tmp/err"

# ---- the jail chooses what the name is ---------------------------------

printf 'root:$6$not-a-real-hash:0:0:::::\n' >"$tmp/shadow"
chmod 600 "$tmp/shadow"
fresh
jrun --collect a.txt -- /bin/ln -s "$tmp/shadow" a.txt
same "a collected name the jail made a link to a host file: not read, not written" "125 " \
	"$rc $(ls -A "$out")"
fresh
jrun --collect etc/shadow -- /bin/ln -s "$tmp" etc
same "a link on the way to the name (etc -> a host dir): not followed" "125 " "$rc $(ls -A "$out")"
fresh
jrun --collect etc/passwd -- /bin/ln -s /etc etc
same "... nor to the host's /etc" "125 " "$rc $(ls -A "$out")"

for name in ../a.txt a/../a.txt /etc/passwd a//b ./a.txt; do
	fresh
	jrun --collect "$name" -- /bin/sh -c 'echo ran'
	same "--collect '$name': refused before running (125)" "125 " "$rc $(cat "$tmp/stdout")"
	check "... 'must be a relative path', naming --collect" grep -q 'collect.*must be a relative path' "$tmp/msgs"
done

# ---- whole directories -------------------------------------------------

fresh
jrun --collect d -- /bin/sh -c "mkdir -p d/e && printf 1 > d/one && printf 2 > d/e/two &&
	ln -s '$tmp/shadow' d/link && ln -s /etc d/etc && mkfifo d/fifo && printf 3 > \"d/\$(printf 'x\\033[31m')\""
same "a directory is collected whole: its regular files and directories" "d d/e d/e/two d/one" \
	"$(cd "$out" && find d | sort | tr '\n' ' ' | sed 's/ $//')"
same "... the contents are the jail's" "1 2" "$(cat "$out/d/one") $(cat "$out/d/e/two")"
same "... links, FIFOs and a control-byte name are each reported (125)" "125 4" \
	"$rc $(grep -c 'not written' "$tmp/msgs")"
check "... the link is named as refused" grep -q '^hutch: --collect d/link: not written: not a regular file' "$tmp/msgs"
check "... no escape byte reaches the caller's terminal" \
	sh -c "! grep -q \"\$(printf '\\033')\" '$tmp/msgs'"

fresh
mkdir "$out/d"
ln -s "$tmp" "$out/d/e"
jrun --collect d -- /bin/sh -c 'mkdir -p d/e && printf evil > d/e/x'
same "a host link planted inside the destination directory is not followed" "125 " \
	"$rc $(ls "$tmp/x" 2>/dev/null)"

# ---- the budgets (tests/policy/collect-small.json: 8 entries, 1024 bytes)

fresh
jrun --policy "$small" --collect d -- /bin/sh -c 'mkdir d && for i in 1 2 3 4 5 6 7 8 9 10; do echo $i > d/f$i; done'
same "a directory past collect.max_count: the entries that fit are written, 125" "125 7" \
	"$rc $(ls "$out/d" | wc -l)"
check "... the first that does not fit is reported as over max_count" \
	grep -q 'not written: over the policy.s collect.max_count budget' "$tmp/msgs"
fresh
jrun --policy "$small" --collect big --collect small -- /bin/sh -c 'head -c 2000 /dev/zero > big; echo s > small'
same "a file past collect.max_bytes is refused, the others still written (125)" "125 small" \
	"$rc $(ls "$out")"
check "... reported as over max_bytes" grep -q '^hutch: --collect big: not written: over the policy.s collect.max_bytes' "$tmp/msgs"

# ---- mode: 0755 only when executable in the jail and the policy lets it run

fresh
jrun --collect x -- /bin/sh -c 'echo "#!/bin/sh" > x && chmod 755 x'
same "under default (work dir noexec) an executable file arrives 0644" "0 644" \
	"$rc $(stat -c %a "$out/x" 2>/dev/null)"
fresh
jrun --policy "$small" --collect x --collect y -- /bin/sh -c 'echo "#!/bin/sh" > x && chmod 755 x && echo y > y && chmod 777 y && chmod 644 y'
same "under a policy with writable_exec, it arrives 0755 (and a plain one 0644)" "0 755 644" \
	"$rc $(stat -c %a "$out/x" 2>/dev/null) $(stat -c %a "$out/y" 2>/dev/null)"

# ---- --json keeps the document -----------------------------------------

fresh
jrun --json --collect a.txt -- /bin/sh -c 'printf hi > a.txt'
same "--json: the file is in the document, nothing is written" "0 aGk= " \
	"$rc $("$py" -c 'import json,sys; print(json.load(sys.stdin)["files"][0]["base64"])' <"$tmp/stdout") $(ls -A "$out")"
fresh
jrun --json --collect d -- /bin/sh -c 'mkdir d'
same "--json: a directory is still not_regular in the document" "not_regular" \
	"$("$py" -c 'import json,sys; print(json.load(sys.stdin)["files"][0]["error"])' <"$tmp/stdout")"

tap_done
