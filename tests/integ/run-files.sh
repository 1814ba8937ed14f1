#!/bin/sh
# run-files.sh: files in and out of the working directory: --input stages
# by bare name, --collect returns regular files only (never through a
# symlink, a directory or a FIFO), within the policy's collect budget; bad
# names are refused with a pointer; the same through --request documents.
. "$(dirname "$0")/lib.sh"

tap_tmpdir run-files

# file_field NAME EXPR <DOC: EXPR on the files[] entry f named NAME.
file_field() {
	"$py" -c 'import base64, json, sys
d = json.load(sys.stdin)
f = [f for f in d["files"] if f["name"] == sys.argv[1]]
v = eval(sys.argv[2]) if f else "absent"
print(v if isinstance(v, str) else json.dumps(v))' "$1" "$2"
}
# decoded NAME <DOC: the collected file's content, written to stdout.
decoded() {
	"$py" -c 'import base64, json, sys
d = json.load(sys.stdin)
f = [f for f in d["files"] if f["name"] == sys.argv[1]][0]
sys.stdout.buffer.write(base64.b64decode(f["base64"]))' "$1"
}

printf 'hello\nworld\n' >"$tmp/in.txt"
printf 'a\000b\377\000\n' >"$tmp/in.bin"
: >"$tmp/empty"
head -c 1048576 /dev/urandom >"$tmp/rand"
chmod 644 "$tmp"/*

# --- --input --------------------------------------------------------------------

out=$("$HUTCH" run --input in.txt="$tmp/in.txt" -- cat /work/in.txt)
check "--input NAME=FILE stages a text file as /work/NAME" test "$out" = "$(cat "$tmp/in.txt")"
"$HUTCH" run --input in.bin="$tmp/in.bin" -- cat /work/in.bin >"$tmp/in.bin.out"
check "a binary input with NUL bytes arrives byte for byte" cmp -s "$tmp/in.bin" "$tmp/in.bin.out"
"$HUTCH" run --input rand="$tmp/rand" -- cat rand >"$tmp/rand.out"
check "1 MiB of random bytes arrive byte for byte (relative to cwd /work)" cmp -s "$tmp/rand" "$tmp/rand.out"
check "a 0-byte input is staged, empty" \
	test "$("$HUTCH" run --input empty="$tmp/empty" -- /bin/sh -c 'test -f empty && wc -c <empty')" = 0
check "the work dir holds only the staged files" \
	test "$("$HUTCH" run --input b="$tmp/in.txt" --input a="$tmp/in.bin" --input c="$tmp/empty" -- /bin/sh -c 'ls -A /work | tr "\n" " "')" = "a b c "
check "without inputs the work dir is empty" test "$("$HUTCH" run -- /bin/sh -c 'ls -A /work | wc -l')" = 0
check "the work dir is the initial cwd" test "$("$HUTCH" run -- /bin/sh -c 'pwd')" = /work
check "staged files belong to the jail user and are not executable" \
	test "$("$HUTCH" run --input x="$tmp/in.txt" -- /bin/sh -c 'stat -c "%u %a" x')" = "$("$HUTCH" run -- id -u) 644"
check "a staged file can be overwritten by the target" \
	test "$("$HUTCH" run --input x="$tmp/in.txt" -- /bin/sh -c 'echo new > x && cat x')" = new
check "the source file on the host is untouched" test "$(cat "$tmp/in.txt")" = "$(printf 'hello\nworld')"
"$HUTCH" run --input x="$tmp/nonexistent" -- /bin/true 2>"$tmp/e"
check "--input of a missing host file: usage error 125 on stderr" test $? = 125 -a -s "$tmp/e"
"$HUTCH" run --input noequals -- /bin/true 2>/dev/null
check "--input without NAME=: 125" test $? = 125

# Inputs are read before any deadline exists: nothing may block there. A
# FIFO (open() would wait for a writer), a directory, /dev/zero (never
# ends) and a symlink are refused at once, with a line naming --input.
mkfifo "$tmp/in.fifo"
mkdir "$tmp/in.dir"
ln -s "$tmp/in.txt" "$tmp/in.link"
for bad in "$tmp/in.fifo" "$tmp/in.dir" /dev/zero "$tmp/in.link"; do
	t0=$(now_ms)
	timeout 20 "$HUTCH" run --input x="$bad" -- /bin/true 2>"$tmp/e"
	rc=$?
	dt=$(($(now_ms) - t0))
	check "--input x=${bad#"$tmp"/} is refused at once: 125 (rc $rc, $dt ms)" \
		test "$rc" = 125 -a "$dt" -lt 5000
	check "... one line naming --input" \
		test "$(wc -l <"$tmp/e")" -le 2 -a -n "$(grep '^hutch run: --input: ' "$tmp/e")"
done
check "control: the file the symlink names is staged" \
	test "$("$HUTCH" run --input x="$tmp/in.txt" -- cat x)" = "$(cat "$tmp/in.txt")"
mkfifo "$tmp/req.fifo"
t0=$(now_ms)
timeout 20 "$HUTCH" run --request "$tmp/req.fifo" >"$tmp/doc" 2>/dev/null
rc=$?
check "--request FIFO is refused at once ($(($(now_ms) - t0)) ms): invalid_request" \
	test "$rc" != 124 -a "$(json_get 'd["error"]["code"]' <"$tmp/doc")" = invalid_request

# --- --collect ------------------------------------------------------------------

"$HUTCH" run --json --input in.bin="$tmp/in.bin" --collect out.bin --collect out.txt --collect empty \
	-- /bin/sh -c 'cp in.bin out.bin && echo text > out.txt && : > empty' >"$tmp/doc"
decoded out.bin <"$tmp/doc" >"$tmp/out.bin"
check "--collect returns a binary file; base64 decodes to the content" cmp -s "$tmp/in.bin" "$tmp/out.bin"
check "... with bytes = its size" test "$(file_field out.bin 'f[0]["bytes"]' <"$tmp/doc")" = "$(wc -c <"$tmp/in.bin")"
check "--collect returns a text file" test "$(decoded out.txt <"$tmp/doc")" = text
check "a 0-byte file is collected with bytes 0 and empty base64" \
	test "$(file_field empty '[f[0]["bytes"], f[0]["base64"]]' <"$tmp/doc")" = '[0, ""]'
check "files[] lists the names in the order asked" \
	test "$(json_get '[f["name"] for f in d["files"]]' <"$tmp/doc")" = '["out.bin", "out.txt", "empty"]'
"$HUTCH" run --json --input rand="$tmp/rand" --collect rand -- /bin/true >"$tmp/doc"
decoded rand <"$tmp/doc" >"$tmp/rand.back"
check "a staged 1 MiB file collected back is identical" cmp -s "$tmp/rand" "$tmp/rand.back"

"$HUTCH" run --json --collect out --collect rel --collect dir --collect fifo --collect missing -- /bin/sh -c \
	'ln -s /etc/passwd out; echo x > target; ln -s target rel; mkdir dir; echo y > dir/f; mkfifo fifo' >"$tmp/doc"
check "a collected symlink to /etc/passwd: error not_regular" \
	test "$(file_field out 'f[0].get("error")' <"$tmp/doc")" = not_regular
check "... and neither the host's nor the jail's /etc/passwd is in the document" \
	test "$(grep -c -e 'root:x:0' -e "$(head -c 12 /etc/passwd | base64 | cut -c1-12)" -e 'bm9ib2R5' "$tmp/doc")" = 0
check "... no base64 or bytes for it" test "$(file_field out '"base64" in f[0] or "bytes" in f[0]' <"$tmp/doc")" = false
check "a symlink within /work is refused too (not_regular)" \
	test "$(file_field rel 'f[0].get("error")' <"$tmp/doc")" = not_regular
check "a directory: not_regular" test "$(file_field dir 'f[0].get("error")' <"$tmp/doc")" = not_regular
check "a FIFO: not_regular (and no hang)" test "$(file_field fifo 'f[0].get("error")' <"$tmp/doc")" = not_regular
check "a file never written: missing" test "$(file_field missing 'f[0].get("error")' <"$tmp/doc")" = missing
check "the run itself still exited 0" test "$(json_get '[d["status"], d["exit_code"]]' <"$tmp/doc")" = '["exited", 0]'

# Collected while something of the jail would still write: the jail is gone
# first, so the file is whole.
"$HUTCH" run --json --collect late -- /bin/sh -c '(sleep 0.3; echo late > /work/late) & exit 0' >"$tmp/doc"
r=$(file_field late 'f[0].get("error", "present")' <"$tmp/doc")
check "a file a leftover process would write later is not collected ($r)" test "$r" = missing

# Beyond the collect budget: the default policy's 64 MiB, for real.
"$HUTCH" run --json --collect big --collect small -- /bin/sh -c \
	'head -c 67108865 /dev/zero > big; echo s > small' >"$tmp/doc"
check "a file over the policy's collect max_bytes (64 MiB + 1): too_large" \
	test "$(file_field big 'f[0].get("error")' <"$tmp/doc")" = too_large
check "... and its content is not in the document" test "$(wc -c <"$tmp/doc")" -lt 100000
check "... other files are still collected" test "$(decoded small <"$tmp/doc")" = s
# A policy with a 1 KiB budget: exactly at it is fine, one byte over is not.
"$HUTCH" policy show default | "$py" -c 'import json, sys
d = json.load(sys.stdin)
d["collect"]["max_bytes"] = 1024
json.dump(d, sys.stdout)' >"$tmp/small-collect.json"
"$HUTCH" run --json --policy "$tmp/small-collect.json" --collect at --collect over -- /bin/sh -c \
	'head -c 1024 /dev/zero > at; head -c 1025 /dev/zero > over' >"$tmp/doc"
check "collect max_bytes 1024: a 1024-byte file is returned" \
	test "$(file_field at 'f[0].get("bytes")' <"$tmp/doc")" = 1024
check "collect max_bytes 1024: a 1025-byte file is too_large" \
	test "$(file_field over 'f[0].get("error")' <"$tmp/doc")" = too_large

# Without --json the files are not printed but written to --output-dir,
# the current directory by default (collect-host.sh has the rest); the run
# is unchanged. In $tmp: the tests run from the build tree.
check "--collect without --json: output passes through, exit 0" \
	test "$(cd "$tmp" && "$HUTCH" run --collect x -- /bin/sh -c 'echo out; echo data > x')" = out
check "... and the file is written to the current directory" test "$(cat "$tmp/x")" = data

# --- bad names --------------------------------------------------------------------

# bad_name DESC POINTER ARGS...: invalid_request at POINTER; 125 without --json.
bad_name() {
	desc=$1
	p=$2
	shift 2
	"$HUTCH" run --json "$@" -- /bin/true >"$tmp/doc" 2>/dev/null
	check "$desc: invalid_request at $p" \
		test "$(json_get '[d["error"]["code"], d["error"].get("pointer")]' <"$tmp/doc")" = "[\"invalid_request\", \"$p\"]"
	"$HUTCH" run "$@" -- /bin/true 2>"$tmp/e"
	check "$desc: exit 125" test $? = 125
}
bad_name "--input a/b=FILE" /files/0/name --input a/b="$tmp/in.txt"
bad_name "--input ..=FILE" /files/0/name --input ..="$tmp/in.txt"
bad_name "--input .=FILE" /files/0/name --input .="$tmp/in.txt"
bad_name "--input with a newline in the name" /files/0/name --input "$(printf 'a\nb')=$tmp/in.txt"
bad_name "a second --input of the same name" /files/1/name --input a="$tmp/in.txt" --input a="$tmp/in.bin"
bad_name "--collect ../x" /collect/0 --collect ../x
bad_name "--collect /etc/passwd" /collect/0 --collect /etc/passwd
bad_name "--collect .." /collect/1 --collect ok --collect ..
bad_name "--collect twice the same name" /collect/1 --collect x --collect x

# --- through a request document ---------------------------------------------------

b64=$(base64 -w0 <"$tmp/in.bin")
cat >"$tmp/req.json" <<EOF
{"version": 1, "argv": ["/bin/sh", "-c", "cat t.txt; od -An -c b.bin | tr -s ' '; cat > from-stdin; cp b.bin copy.bin; cat e"],
 "stdin": {"text": "piped"},
 "files": [{"name": "t.txt", "text": "text-file\n"}, {"name": "b.bin", "base64": "$b64"},
           {"name": "e", "text": ""}],
 "collect": ["from-stdin", "copy.bin", "e"]}
EOF
"$HUTCH" run --request "$tmp/req.json" >"$tmp/doc"
check "--request: a text file is staged" \
	test "$(json_get 'd["stdout"]["text"].split("\n")[0]' <"$tmp/doc")" = text-file
check "--request: a base64 file is staged decoded" \
	test "$(json_get 'd["stdout"]["text"].split("\n")[1]' <"$tmp/doc")" = " a \\0 b 377 \\0 \\n"
decoded copy.bin <"$tmp/doc" >"$tmp/copy.bin"
check "--request: collect returns it unchanged" cmp -s "$tmp/in.bin" "$tmp/copy.bin"
check "--request: stdin text reaches the target" test "$(decoded from-stdin <"$tmp/doc")" = piped
check "--request: a 0-byte text file round-trips" test "$(file_field e 'f[0]["bytes"]' <"$tmp/doc")" = 0
check "--request from stdin (-) works the same" \
	test "$("$HUTCH" run --request - <"$tmp/req.json" | json_get 'd["status"]')" = exited

# request_bad DESC POINTER JSON: the document is refused at POINTER.
request_bad() {
	printf '%s\n' "$3" >"$tmp/bad.json"
	check "--request $1: invalid_request at $2" \
		test "$("$HUTCH" run --request "$tmp/bad.json" | json_get '[d["error"]["code"], d["error"].get("pointer")]')" = "[\"invalid_request\", \"$2\"]"
}
request_bad "file name with /" /files/0/name \
	'{"version": 1, "argv": ["/bin/true"], "files": [{"name": "a/b", "text": ""}]}'
request_bad "file with both text and base64" /files/0 \
	'{"version": 1, "argv": ["/bin/true"], "files": [{"name": "a", "text": "", "base64": ""}]}'
request_bad "file with neither" /files/0 \
	'{"version": 1, "argv": ["/bin/true"], "files": [{"name": "a"}]}'
request_bad "bad base64" /files/0/base64 \
	'{"version": 1, "argv": ["/bin/true"], "files": [{"name": "a", "base64": "!!!"}]}'
request_bad "unknown key in a file" /files/0/mode \
	'{"version": 1, "argv": ["/bin/true"], "files": [{"name": "a", "text": "", "mode": 493}]}'
request_bad "collect ../x" /collect/0 '{"version": 1, "argv": ["/bin/true"], "collect": ["../x"]}'
request_bad "collect not a string" /collect/0 '{"version": 1, "argv": ["/bin/true"], "collect": [1]}'

tap_done
