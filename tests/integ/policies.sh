#!/bin/sh
# policies.sh: every shipped policy loads, checks, shows as JSON, has a
# stable digest of its own and runs a command; `hutch policy check` reports
# every error of a broken file with its pointer; an admin policy overrides
# a shipped one of the same name; `hutch probe --json` reports each
# mechanism.
. "$(dirname "$0")/lib.sh"

tap_tmpdir policies

"$HUTCH" policy list >"$tmp/list"
check "hutch policy list exits 0" test $? = 0
# path_of NAME: the file `hutch policy list` names for NAME (not overridden).
path_of() { awk -v n="$1" '$1 == n && $3 != "(overridden)" { print $2; exit }' "$tmp/list"; }

for pol in default strict network build convert agent; do
	f=$(path_of "$pol")
	check "policy list shows $pol ($f)" test -n "$f" -a -f "$f"
	[ -n "$f" ] || continue
	"$HUTCH" policy check "$f" >"$tmp/out" 2>"$tmp/err"
	check "policy check $pol.json passes (exit 0, 'valid', on stderr only the reviewer's warnings)" \
		test $? = 0 -a "$(cat "$tmp/out")" = "$f: valid" -a \
		"$(grep -vc "^hutch policy: $f: warning: /" "$tmp/err")" = 0
	"$HUTCH" policy show "$pol" >"$tmp/$pol.show"
	check "policy show $pol exits 0" test $? = 0
	check "policy show $pol prints valid JSON (json.tool)" "$py" -m json.tool "$tmp/$pol.show" /dev/null
	check "policy show $pol is its canonical form: version 1 and every section" \
		test "$(json_get 'd["version"] == 1 and all(k in d for k in ("limits", "filesystem", "mounts", "network", "env", "seccomp", "landlock", "user", "requires", "on_limit", "hostname"))' <"$tmp/$pol.show")" = true
	cp "$tmp/$pol.show" "$tmp/copy-$pol.json"
	"$HUTCH" policy check "$tmp/copy-$pol.json" >/dev/null 2>&1
	check "the shown form of $pol is itself a valid policy" test $? = 0
	d1=$("$HUTCH" policy digest "$pol")
	d2=$("$HUTCH" policy digest "$pol")
	check "policy digest $pol is sha256:<64 hex>" has "$d1" '^sha256:[0-9a-f]{64}$'
	check "policy digest $pol is stable across calls" test "$d1" = "$d2"
	check "the digest of the file equals the digest of the name" \
		test "$("$HUTCH" policy digest "$f")" = "$d1"
	check "the digest covers the canonical form (show's output digests the same)" \
		test "$("$HUTCH" policy digest "$tmp/copy-$pol.json")" = "$d1"
	eval "digest_$pol=\$d1"
	"$HUTCH" run --policy "$pol" -- /bin/true
	check "hutch run --policy $pol -- /bin/true works" test $? = 0
	"$HUTCH" run --json --policy "$pol" -- /bin/true >"$tmp/doc"
	check "the result names policy $pol and its digest" \
		test "$(json_get '[d["jail"]["policy"], d["jail"]["digest"]]' <"$tmp/doc")" = "[\"$pol\", \"$d1\"]"
	"$HUTCH" probe --policy "$pol" --json >"$tmp/probe" 2>/dev/null
	rc=$?
	check "hutch probe --policy $pol: usable, exit 0 (rc $rc)" \
		test "$rc" = 0 -a "$(json_get '[d["usable"], d["policy"], d["digest"]]' <"$tmp/probe")" = "[true, \"$pol\", \"$d1\"]"
done
check "default and strict have different digests" test "$digest_default" != "$digest_strict"
check "default and network have different digests" test "$digest_default" != "$digest_network"
check "strict and network have different digests" test "$digest_strict" != "$digest_network"

# What each shipped policy promises, seen in a run.
check "strict: seccomp allow-list" \
	test "$("$HUTCH" run --json --policy strict -- /bin/true | json_get 'd["jail"]["seccomp"]')" = allow-list
check "default: seccomp deny-list" \
	test "$("$HUTCH" run --json --policy default -- /bin/true | json_get 'd["jail"]["seccomp"]')" = deny-list
check "network: loopback by default" \
	test "$("$HUTCH" run --json --policy network -- /bin/true | json_get 'd["jail"]["network"]')" = loopback
"$HUTCH" run --json --policy network --network host -- /bin/sh -c 'tail -n +3 /proc/net/dev | wc -l' >"$tmp/doc"
check "network: --network host shares the host's interfaces" \
	test "$(json_get 'int(d["stdout"]["text"]) == '"$(tail -n +3 /proc/net/dev | wc -l)"' and "net" not in d["jail"]["namespaces"]' <"$tmp/doc")" = true
check "the digest covers the helper's identity (another HUTCH_EXEC, another digest)" \
	test "$(HUTCH_EXEC=$HUTCH "$HUTCH" policy digest default)" != "$digest_default"

# --- broken policies ----------------------------------------------------------------

# Three errors in an otherwise valid policy: three lines, one pointer each.
"$py" -c 'import json, sys
d = json.load(open(sys.argv[1]))
d["bogus"] = 1
d["seccomp"]["syscalls"] = ["read", "no_such_syscall"]
d["hostname"] = "Not A Hostname"
json.dump(d, open(sys.argv[2], "w"))' "$tmp/default.show" "$tmp/three.json"
"$HUTCH" policy check "$tmp/three.json" >"$tmp/out" 2>"$tmp/err"
rc=$?
check "policy check on a file with three errors exits non-zero (125)" test "$rc" = 125
check "... and prints exactly three lines" test "$(wc -l <"$tmp/err")" = 3
check "... one at /bogus (unknown field)" grep -q -E ": /bogus: unknown field" "$tmp/err"
check "... one at /seccomp/syscalls/1 (unknown syscall name)" \
	grep -q -E ": /seccomp/syscalls/1: unknown syscall name" "$tmp/err"
check "... one at /hostname" grep -q -E ": /hostname: " "$tmp/err"
check "... and does not say valid" not grep -q valid "$tmp/out"
[ "$(wc -l <"$tmp/err")" = 3 ] || diag "$(cat "$tmp/err")"

# policy_error DESC POINTER PYTHON: the shown default policy changed by
# PYTHON (on d) is refused with an error at POINTER.
policy_error() {
	"$py" -c 'import json, sys
d = json.load(open(sys.argv[1]))
exec(sys.argv[3])
json.dump(d, open(sys.argv[2], "w"))' "$tmp/default.show" "$tmp/p.json" "$3"
	"$HUTCH" policy check "$tmp/p.json" >/dev/null 2>"$tmp/err"
	rc=$?
	check "policy check: $1 -> error at $2 (rc $rc)" test "$rc" = 125 -a -n "$(grep -F ": $2: " "$tmp/err")"
	[ -n "$(grep -F ": $2: " "$tmp/err")" ] || diag "$(cat "$tmp/err")"
}
policy_error "unknown syscall name in a deny list" /seccomp/syscalls/0 'd["seccomp"]["syscalls"] = ["not_a_syscall"]'
policy_error "default above max" /limits/wall_ms/default 'd["limits"]["wall_ms"]["default"] = d["limits"]["wall_ms"]["max"] + 1'
policy_error "a limit missing" /limits/cpu_ms 'del d["limits"]["cpu_ms"]'
policy_error "network default not allowed" /network/default 'd["network"]["default"] = "host"'
policy_error "relative bind path" /filesystem/binds/0/path 'd["filesystem"]["binds"][0]["path"] = "usr"'
policy_error "seccomp mode bogus" /seccomp/mode 'd["seccomp"]["mode"] = "bogus"'
policy_error "version 2" /version 'd["version"] = 2'
policy_error "unknown requirement" /requires/0 'd["requires"] = ["telepathy"]'
policy_error "uid 0 for the jail user" /user/uid 'd["user"]["uid"] = 0'
policy_error "landlock_network with landlock best-effort" /landlock 'd["requires"] = ["landlock_network"]'

# --- Landlock rights a policy requires ----------------------------------------------------

# tests/policy/landlock-rights.json requires network rules (ABI 4) and
# scoping (ABI 6): run where the kernel has them, refused with 71 naming
# the right and the kernel's ABI where it does not (tests/vm runs it on 6.1).
rights_policy="$here/../policy/landlock-rights.json"
[ -f "$rights_policy" ] || rights_policy="${HUTCH_SRCDIR:-$here/../..}/tests/policy/landlock-rights.json"
abi=$("$py" -c 'import ctypes; l = ctypes.CDLL(None); l.syscall.restype = ctypes.c_long
print(max(0, l.syscall(444, None, ctypes.c_size_t(0), ctypes.c_uint32(1))))' 2>/dev/null || echo 0)
out=$("$HUTCH" run --policy "$rights_policy" -- /bin/echo ran 2>"$tmp/err")
rc=$?
if [ "$abi" -ge 6 ]; then
	check "Landlock ABI $abi: a policy requiring network rules and scoping runs" \
		test "$rc" = 0 -a "$out" = ran
else
	want=landlock_network
	[ "$abi" -ge 4 ] && want=landlock_scoping
	check "Landlock ABI $abi: a policy requiring network rules and scoping is refused (71)" \
		test "$rc" = 71 -a -z "$out"
	check "... naming $want and the kernel's ABI $abi" \
		grep -q "$want: the kernel's Landlock ABI is $abi" "$tmp/err"
	[ -n "$(grep "$want" "$tmp/err")" ] || diag "$(head -c 300 "$tmp/err")"
fi
printf '{"version": 1,' >"$tmp/trunc.json"
"$HUTCH" policy check "$tmp/trunc.json" >/dev/null 2>"$tmp/err"
check "policy check on a file that is not JSON: non-zero and a message" test $? = 125 -a -s "$tmp/err"
"$HUTCH" policy check "$tmp/no-such.json" >/dev/null 2>&1
check "policy check on a missing file: 125" test $? = 125
"$HUTCH" policy show nosuchpolicy >/dev/null 2>&1
check "policy show of an unknown name: 125" test $? = 125
"$HUTCH" policy digest nosuchpolicy >/dev/null 2>&1
check "policy digest of an unknown name: 125" test $? = 125
"$HUTCH" policy bogus-subcommand >/dev/null 2>&1
check "an unknown policy subcommand: 125" test $? = 125
"$HUTCH" run --policy "$tmp/three.json" -- /bin/true 2>/dev/null
check "hutch run refuses the broken policy (125)" test $? = 125

# --- admin overrides ------------------------------------------------------------------

# HUTCH_POLICY_PATH names the search path (admin directory first), as
# $sysconfdir/hutch/policy.d before $datadir/hutch/policy.
shipped=$(dirname "$(path_of default)")
mkdir "$tmp/admin"
"$py" -c 'import json, sys
d = json.load(open(sys.argv[1]))
d["description"] = "admin override"
d["limits"]["wall_ms"]["default"] = 5000
json.dump(d, open(sys.argv[2], "w"))' "$tmp/default.show" "$tmp/admin/default.json"
chmod -R a+rX "$tmp/admin"
HUTCH_POLICY_PATH="$tmp/admin:$shipped" "$HUTCH" policy list >"$tmp/list2"
check "policy list: the admin default first" \
	test "$(awk '$1 == "default" { print $2; exit }' "$tmp/list2")" = "$tmp/admin/default.json"
check "policy list: the shipped default marked (overridden)" \
	grep -q -E "^default +$shipped/default.json \\(overridden\\)" "$tmp/list2"
check "a run uses the admin policy (default wall_ms 5000)" \
	test "$(HUTCH_POLICY_PATH="$tmp/admin:$shipped" "$HUTCH" run --dry-run -- /bin/true | json_get 'd["limits"]["wall_ms"]')" = 5000
check "... whose digest differs from the shipped one" \
	test "$(HUTCH_POLICY_PATH="$tmp/admin:$shipped" "$HUTCH" policy digest default)" != "$digest_default"

# --- probe --------------------------------------------------------------------------------

"$HUTCH" probe --json >"$tmp/probe" 2>/dev/null
check "hutch probe --json is valid JSON" "$py" -m json.tool "$tmp/probe" /dev/null
for m in user_namespaces seccomp landlock cgroup canary; do
	check "probe reports $m with available true/false and a detail" \
		test "$(json_get '[type(m["available"]) is bool and isinstance(m["detail"], str) and len(m["detail"]) > 0 for m in d["mechanisms"] if m["mechanism"] == "'"$m"'"]' <"$tmp/probe")" = "[true]"
done
check "probe: the canary agrees with usable" \
	test "$(json_get '[m["available"] for m in d["mechanisms"] if m["mechanism"] == "canary"][0] == d["usable"]' <"$tmp/probe")" = true
check "probe names the policy and its digest" \
	test "$(json_get '[d["policy"], d["digest"]]' <"$tmp/probe")" = "[\"default\", \"$digest_default\"]"
"$HUTCH" probe >"$tmp/probe.txt" 2>/dev/null
check "hutch probe (text) exits 0 here and lists the canary" test $? = 0 -a -n "$(grep '^canary' "$tmp/probe.txt")"
"$HUTCH" probe --policy nosuchpolicy >/dev/null 2>&1
check "hutch probe --policy nosuchpolicy: 125" test $? = 125

tap_done
