#!/bin/sh
# policy-extends.sh: policies that build on each other (hutch-policy(5),
# EXTENDING A POLICY), against the real binaries: a child's merged values
# are what a run gets (a lowered limit, an appended env name and bind, a
# replaced list), `policy show` prints the resolved policy, `policy check`
# takes a file without a slash and names the file and pointer of every
# error, the digest follows a parent, cycles and chains deeper than 8 are
# refused, a parent that is not a policy (a FIFO, a file the caller cannot
# read, /etc/shadow) is refused without blocking and without its text in
# the message, a missing policy names the directories searched (policy,
# run, probe), serve names a broken child's file and pointer, and the
# man page's example runs as printed. Runs as root and unprivileged.
. "$(dirname "$0")/lib.sh"

tap_tmpdir policy-extends

# The shipped policies: $HUTCH_POLICY_PATH (a build tree) or where the
# installed default lives; the test's own directory comes first.
shipped=${HUTCH_POLICY_PATH:-}
if [ -z "$shipped" ]; then
	shipped=$("$HUTCH" policy list | awk '$1 == "default" { print $2; exit }')
	shipped=${shipped%/default.json}
fi
pol=$tmp/pol
mkdir "$pol"
chmod 755 "$pol"
export HUTCH_POLICY_PATH="$pol:$shipped"
# The directories as a "not found" message lists them.
searched=$(printf '%s' "$HUTCH_POLICY_PATH" | sed 's/:/, /g')
if ! "$HUTCH" policy show default >"$tmp/default.show" 2>"$tmp/err"; then
	not_ok "the shipped default policy is found (HUTCH_POLICY_PATH or hutch policy list)"
	tap_done
	exit
fi
tap_stderr=$tmp/err

# --- a run gets the merged values ----------------------------------------------------

# A host file the default policy does not bind, for an appended bind.
extra=
for f in /etc/issue /etc/hostname /etc/debian_version; do
	[ -f "$f" ] && [ -r "$f" ] && [ ! -L "$f" ] && extra=$f && break
done
cat >"$pol/child.json" <<EOF
{
  "extends": "default",
  "description": "default with a shorter leash",
  "limits": {"wall_ms": {"default": 1000, "max": 2000}},
  "filesystem": {"binds": {"append": [{"path": "${extra:-/etc/hostname}", "exec": false}]}},
  "mounts": [],
  "env": {"allow_any": false, "set": {"FROM_CHILD": "yes"}, "allow": {"append": ["HUTCH_EXTENDS_TEST"]}}
}
EOF

out=$("$HUTCH" run --policy child --env HUTCH_EXTENDS_TEST=v1 -- /bin/sh -c 'echo "$HUTCH_EXTENDS_TEST $FROM_CHILD"' 2>"$tmp/err" </dev/null)
same "an appended env.allow name and an added env.set variable reach the jail" "v1 yes" "$out"
"$HUTCH" run --policy child --env HUTCH_EXTENDS_OTHER=v1 -- /bin/true 2>"$tmp/err" </dev/null
same "... and a name the child did not append is refused: its allow_any false replaced the parent's (125)" 125 $?

"$HUTCH" run --json --policy child -- /bin/sleep 5 >"$tmp/doc" 2>"$tmp/err" </dev/null
same "the child's lowered default wall limit kills a 5 s sleep: timeout" timeout \
	"$(json_get 'd["error"]["code"] if d["error"] else d["status"]' <"$tmp/doc")"
same "... and the result names the child policy" child "$(json_get 'd["jail"]["policy"]' <"$tmp/doc")"
"$HUTCH" run --policy child --timeout 5s -- /bin/true 2>"$tmp/err" </dev/null
same "--timeout 5s is above the child's lowered maximum of 2 s (125)" 125 $?
"$HUTCH" run --policy default --timeout 5s -- /bin/true 2>"$tmp/err" </dev/null
same "... and within the parent's (0)" 0 $?

if [ -n "$extra" ]; then
	out=$("$HUTCH" run --policy child -- /bin/cat "$extra" 2>"$tmp/err" </dev/null)
	same "an appended bind ($extra) is in the child's jail, read-only and whole" "$(cat "$extra")" "$out"
	"$HUTCH" run --policy default -- /bin/sh -c "test -e $extra" 2>"$tmp/err" </dev/null
	same "... and not in the parent's" 1 $?
else
	skip "an appended bind is in the child's jail" "no /etc/issue, /etc/hostname or /etc/debian_version"
	skip "... and not in the parent's" "no host file to bind"
fi
mkdir "$tmp/data"
chmod 755 "$tmp/data"
"$HUTCH" run --policy child --ro "$tmp/data:/data" -- /bin/true 2>"$tmp/err" </dev/null
same "the child's \"mounts\": [] replaces the parent's rules: --ro refused (125)" 125 $?
"$HUTCH" run --policy default --ro "$tmp/data:/data" -- /bin/true 2>"$tmp/err" </dev/null
same "... where the parent allows it (0)" 0 $?

# A request document may name the child, by name, where the caller allows it.
printf '{"version": 1, "policy": "child", "argv": ["/bin/true"]}' >"$tmp/req.json"
"$HUTCH" run --json --allow-policies child --request "$tmp/req.json" >"$tmp/doc" 2>"$tmp/err" </dev/null
same "a request document naming the child (--allow-policies child) runs under it" child \
	"$(json_get 'd["jail"]["policy"]' <"$tmp/doc" 2>/dev/null)"

# --- show, check, digest ---------------------------------------------------------------

"$HUTCH" policy show child >"$tmp/show" 2>"$tmp/err"
same "policy show child exits 0" 0 $?
same "... and prints the resolved policy: the parent's members with the child's merged in" \
	"True True True True False 1000 2000" \
	"$("$py" -c 'import json, sys
d = json.load(open(sys.argv[1]))
p = json.load(open(sys.argv[2]))
print("LANG" in d["env"]["allow"] and d["env"]["allow"][-1] == "HUTCH_EXTENDS_TEST",
      d["env"]["set"]["FROM_CHILD"] == "yes" and d["env"]["set"]["PATH"] == p["env"]["set"]["PATH"],
      d["filesystem"]["binds"][:len(p["filesystem"]["binds"])] == p["filesystem"]["binds"],
      d["limits"]["cpu_ms"] == p["limits"]["cpu_ms"], "extends" in d,
      d["limits"]["wall_ms"]["default"], d["limits"]["wall_ms"]["max"])' "$tmp/show" "$tmp/default.show" 2>&1)"
cp "$tmp/show" "$tmp/flat.json"
same "... which, as a file of its own, has the child's digest" \
	"$("$HUTCH" policy digest child 2>&1)" "$("$HUTCH" policy digest "$tmp/flat.json" 2>&1)"

cd "$pol" || exit 99
out=$("$HUTCH" policy check child.json 2>"$tmp/err")
same "policy check child.json, no slash, in its directory: valid" "child.json: valid" "$out"
cd / || exit 99
out=$("$HUTCH" policy check child.json 2>&1)
same "... elsewhere, no such file (125)" "hutch policy: child.json: no such file" "$out"
out=$("$HUTCH" policy check child 2>&1)
same "policy check NAME checks the installed policy" "child: valid" "$out"

# Errors: one line each, with the file that holds the member and the
# pointer in that file.
cat >"$pol/broken.json" <<EOF
{
  "extends": "child",
  "limitz": {},
  "limits": {"wall_ms": {"max": 500}},
  "env": {"allow": {"append": ["HUTCH_EXTENDS_TEST", "9bad"]}}
}
EOF
"$HUTCH" policy check "$pol/broken.json" >"$tmp/out" 2>"$tmp/errs"
same "policy check on a child with errors exits 125" 125 $?
check "... /limitz: unknown field, in broken.json" \
	grep -q -F "hutch policy: $pol/broken.json: /limitz: unknown field; accepted: version, " "$tmp/errs"
check "... an appended duplicate at /env/allow/append/0, in broken.json" \
	grep -q -x -F "hutch policy: $pol/broken.json: /env/allow/append/0: listed twice" "$tmp/errs"
check "... an appended bad name at /env/allow/append/1" \
	grep -q -x -F "hutch policy: $pol/broken.json: /env/allow/append/1: not a valid variable name" "$tmp/errs"
check "... the inherited default above the new max: at child.json's member, naming broken.json" \
	grep -q -F "hutch policy: $pol/child.json: /limits/wall_ms/default: above max, once $pol/broken.json extends it (given " "$tmp/errs"
same "... and nothing else (4 lines)" 4 "$(wc -l <"$tmp/errs")"
"$HUTCH" run --policy broken -- /bin/true >/dev/null 2>"$tmp/runerr" </dev/null
same "hutch run refuses a broken child (125)" 125 $?
check "... naming the file in its message, then the fields there are" \
	grep -q -F "unknown field: in $pol/broken.json; accepted: version, " "$tmp/runerr"
check "... and the pointer" grep -q -F "(at /limitz)" "$tmp/runerr"

# The digest covers the resolved policy: a parent's change moves it.
cat >"$pol/mid.json" <<EOF
{"extends": "default", "description": "first"}
EOF
printf '{"extends": "mid", "hostname": "leaf"}\n' >"$pol/leaf.json"
d1=$("$HUTCH" policy digest leaf)
d2=$("$HUTCH" policy digest leaf)
check "policy digest of a child is sha256:<64 hex> and stable" \
	test "$d1" = "$d2" -a -n "$(printf '%s' "$d1" | grep -E '^sha256:[0-9a-f]{64}$')"
c1=$("$HUTCH" policy digest child)
printf '{"extends": "default", "description": "second"}\n' >"$pol/mid.json"
d3=$("$HUTCH" policy digest leaf)
check "changing the parent changes the child's digest" test -n "$d3" -a "$d3" != "$d1"
same "... and not that of a policy outside the chain" "$c1" "$("$HUTCH" policy digest child)"
"$HUTCH" run --json --policy leaf -- /bin/true >"$tmp/doc" 2>"$tmp/err" </dev/null
same "a run reports the resolved digest" "$d3" "$(json_get 'd["jail"]["digest"]' <"$tmp/doc")"

# --- chains and what a parent may be -----------------------------------------------------

i=1
while [ $i -le 8 ]; do
	if [ $i = 8 ]; then
		printf '{"extends": "default"}\n' >"$pol/c$i.json"
	else
		printf '{"extends": "c%d"}\n' $((i + 1)) >"$pol/c$i.json"
	fi
	i=$((i + 1))
done
out=$("$HUTCH" policy check c2 2>"$tmp/chainerr")
same "a chain of 8 policy files is valid" "c2: valid" "$out"
same "... on stderr only default's reviewer warnings" 0 "$(grep -vc '^hutch policy: c2: warning: /' "$tmp/chainerr")"
out=$("$HUTCH" policy check c1 2>&1)
same "a chain of 9 is refused at the 8th file's /extends" \
	"hutch policy: $pol/c8.json: /extends: the chain is longer than 8 policy files" "$out"

printf '{"extends": "loop-b"}\n' >"$pol/loop-a.json"
printf '{"extends": "./loop-a.json"}\n' >"$pol/loop-b.json"
out=$("$HUTCH" policy check loop-a 2>&1)
same "a cycle is refused with the chain" \
	"hutch policy: $pol/loop-b.json: /extends: extends makes a cycle: $pol/loop-a.json -> $pol/loop-b.json -> $pol/loop-a.json" "$out"

mkfifo "$tmp/fifo.json"
printf '{"extends": "%s"}\n' "$tmp/fifo.json" >"$pol/fifo-kid.json"
out=$(timeout 10 "$HUTCH" policy check fifo-kid 2>&1)
same "a FIFO as parent is refused at once, not waited on" \
	"hutch policy: $pol/fifo-kid.json: /extends: not a regular file" "$out"

# /etc/shadow as a parent: unreadable for an unprivileged caller, not a
# policy for root; its text never appears either way.
if [ -f /etc/shadow ]; then
	printf '{"extends": "/etc/shadow"}\n' >"$pol/shadow-kid.json"
	"$HUTCH" policy check shadow-kid >/dev/null 2>"$tmp/errs"
	same "a parent that is /etc/shadow is refused (125)" 125 $?
	if is_root; then
		check "... as root, as not a policy, at its root, in /etc/shadow" \
			grep -q -E "^hutch policy: /etc/shadow: /: " "$tmp/errs"
	else
		check "... unprivileged, as unreadable, at the child's /extends" \
			grep -q -x -F "hutch policy: $pol/shadow-kid.json: /extends: cannot be read: permission denied" "$tmp/errs"
	fi
	check "... and no line of it is in the message" \
		not grep -q -E 'root:|daemon:|nobody:|\$[0-9y]\$' "$tmp/errs"
	same "... one line" 1 "$(wc -l <"$tmp/errs")"
else
	skip "a parent that is /etc/shadow is refused" "no /etc/shadow"
fi

printf '{"extends": "no-such-parent"}\n' >"$pol/orphan.json"
out=$("$HUTCH" policy check orphan 2>&1)
same "a missing parent names itself and the directories searched" \
	"hutch policy: $pol/orphan.json: /extends: no such policy no-such-parent (searched $searched; hutch policy list shows the installed ones)" \
	"$out"

# --- a policy that is not there ------------------------------------------------------------

out=$("$HUTCH" policy show defualt 2>&1)
same "policy show of a missing name says the name and the directories searched" \
	"hutch policy: no such policy defualt (searched $searched; hutch policy list shows the installed ones)" "$out"
out=$("$HUTCH" run --policy defualt -- /bin/true 2>&1 </dev/null)
rc=$?
has "$out" "no such policy defualt \\(searched $searched; "
same "hutch run --policy of a missing name: 125, the name and the directories" "125 0" "$rc $?"

out=$("$HUTCH" probe --policy defualt 2>&1 </dev/null)
same "hutch probe --policy of a missing name: the name and the directories" \
	"hutch probe: --policy: no such policy defualt (searched $searched; hutch policy list shows the installed ones)" "$out"
out=$(timeout 10 "$HUTCH" serve --socket "$tmp/serve.sock" --policy broken 2>&1 </dev/null)
same "hutch serve --policy of a broken child: its file and pointer" \
	"hutch serve: $pol/broken.json: /limitz: unknown field" "$out"

# --- the man page's example runs as printed ---------------------------------------------------

page=
for m in ${HUTCH_SRCDIR:+"$HUTCH_SRCDIR/man/hutch-policy.5"} "$here/../../man/hutch-policy.5" \
	"$(dirname "$HUTCH")/../share/man/man5/hutch-policy.5"; do
	[ -f "$m" ] && page=$m && break
done
if [ -z "$page" ] && [ "${HUTCH_INSTALLED:-0}" = 1 ] && command -v man >/dev/null 2>&1; then
	m=$(man -w 5 hutch-policy 2>/dev/null) && case $m in
	*.gz) gzip -dc "$m" >"$tmp/page" && page=$tmp/page ;;
	*) [ -f "$m" ] && page=$m ;;
	esac
fi
if [ -z "$page" ]; then
	skip "the EXTENDING A POLICY example runs" "hutch-policy.5 not found"
else
	# block MARK: the .EX block after the comment line MARK, unescaped.
	block() {
		MARK=$1 awk 'index($0, ENVIRON["MARK"]) == 1 { want = 1; next }
			want && /^\.EX/ { on = 1; next } on && /^\.EE/ { exit } on' "$page" |
			sed -e 's/\\-/-/g' -e 's/\\e/\\/g' -e 's/\\(dq/"/g' -e 's/\\&//g'
	}
	mkdir "$tmp/ex"
	chmod 755 "$tmp/ex"
	block '.\" example-file: ci.json' >"$tmp/ex/ci.json"
	block '.\" example-run' >"$tmp/ex/session"
	check "the example's policy and session are in the page" test -s "$tmp/ex/ci.json" -a -s "$tmp/ex/session"
	# Each "$ " line runs in the example's directory (on the search path);
	# the lines up to the next one are its expected stdout.
	n=0
	: >"$tmp/ex/want"
	run_step() {
		[ -n "$cmd" ] || return 0
		n=$((n + 1))
		got=$(cd "$tmp/ex" && HUTCH_POLICY_PATH="$tmp/ex:$shipped" \
			sh -c "hutch() { \"\$HUTCH\" \"\$@\"; }; $cmd" 2>"$tmp/err" </dev/null)
		same "man page example, step $n: $cmd" "$(cat "$tmp/ex/want")" "$got"
		: >"$tmp/ex/want"
	}
	cmd=
	while IFS= read -r line; do
		case $line in
		'$ '*) run_step; cmd=${line#\$ } ;;
		*) printf '%s\n' "$line" >>"$tmp/ex/want" ;;
		esac
	done <"$tmp/ex/session"
	run_step
	check "the example has three steps" test "$n" = 3
fi

tap_done
