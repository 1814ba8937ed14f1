#!/bin/sh
# tests/vm/suites/kernel.sh: what hutch says and does on this kernel's
# Landlock ABI (6.1: 2, 6.12: 6), as root and as nobody: `hutch probe` and
# the result document report the ABI the kernel gives landlock_create_ruleset
# (LANDLOCK_CREATE_RULESET_VERSION) and the rights it brings; a policy
# requiring rights the ABI lacks is refused with 71 naming the right and the
# ABI; with user.max_user_namespaces=0 every run is refused with 71 naming
# that sysctl and its remedy.
. "$HUTCH_SRCDIR/tests/integ/lib.sh"
tap_tmpdir kernel
rights=$HUTCH_SRCDIR/tests/policy/landlock-rights.json

abi=$("$py" -c 'import ctypes; l = ctypes.CDLL(None); l.syscall.restype = ctypes.c_long
print(l.syscall(444, None, ctypes.c_size_t(0), ctypes.c_uint32(1)))')
case $HUTCH_VM_KERNEL in 6.1) want=2 ;; 6.12) want=6 ;; *) want=unknown ;; esac
same "kernel $HUTCH_VM_KERNEL: landlock_create_ruleset(VERSION) says ABI $want" "$want" "$abi"
detail="ABI $abi"
[ "$abi" -ge 4 ] && detail="$detail, network rules"
[ "$abi" -ge 6 ] && detail="$detail, scoping"

# as USER COMMAND...: COMMAND as USER (root or nobody) from /, its own
# runtime directory (no probe verdict cached from an earlier test).
as() {
	u=$1
	shift
	rt=$(mktemp -d /dev/shm/hutch-rt.XXXXXX)
	chown "$u" "$rt"
	chmod 700 "$rt"
	setpriv --reuid "$(id -u "$u")" --regid "$(id -g "$u")" --init-groups env -i PATH=/usr/bin:/bin \
		XDG_RUNTIME_DIR="$rt" "$@"
}

for u in root nobody; do
	(cd / && as $u "$HUTCH" probe --json) >"$tmp/probe" 2>"$tmp/err"
	same "[$u] hutch probe: landlock available, \"$detail\"" "True $detail" \
		"$("$py" -c 'import json, sys
m = [m for m in json.load(sys.stdin)["mechanisms"] if m["mechanism"] == "landlock"][0]
print(m["available"], m["detail"])' <"$tmp/probe")"
	(cd / && as $u "$HUTCH" run --json -- /bin/true) >"$tmp/doc" 2>"$tmp/err"
	same "[$u] a run's result document: jail.landlock_abi $abi" "$abi" \
		"$("$py" -c 'import json, sys; print(json.load(sys.stdin)["jail"]["landlock_abi"])' <"$tmp/doc")"
	(cd / && as $u "$HUTCH" run --policy "$rights" -- /bin/echo ran) >"$tmp/out" 2>"$tmp/err"
	rc=$?
	if [ "$abi" -ge 6 ]; then
		same "[$u] ABI $abi: a policy requiring network rules and scoping runs" "0 ran" \
			"$rc $(cat "$tmp/out")"
	else
		same "[$u] ABI $abi: a policy requiring Landlock network rules is refused" "71 " \
			"$rc $(cat "$tmp/out")"
		check "[$u] ... naming landlock_network and ABI $abi" \
			grep -q "landlock_network: the kernel's Landlock ABI is $abi; TCP bind and connect rules need ABI 4" "$tmp/err"
		(cd / && as $u "$HUTCH" run --json --policy "$rights" -- /bin/true) >"$tmp/doc" 2>/dev/null
		same "[$u] ... and --json says sandbox_unavailable" sandbox_unavailable \
			"$("$py" -c 'import json, sys; print(json.load(sys.stdin)["error"]["code"])' <"$tmp/doc")"
	fi
done

# User namespaces off: refused before anything runs, the sysctl named.
old=$(sysctl -n user.max_user_namespaces)
sysctl -q -w user.max_user_namespaces=0
for u in root nobody; do
	(cd / && as $u "$HUTCH" run -- /bin/echo ran) >"$tmp/out" 2>"$tmp/err"
	same "[$u] user.max_user_namespaces=0: hutch run refused with 71" "71 " "$? $(cat "$tmp/out")"
	check "[$u] ... naming user.max_user_namespaces=0 and its remedy" \
		grep -q "user_namespaces: disabled by user.max_user_namespaces=0 (set it above 0)" "$tmp/err"
	[ -s "$tmp/err" ] && diag "stderr: $(head -c 300 "$tmp/err")"
	(cd / && as $u "$HUTCH" probe) >"$tmp/out" 2>&1
	check "[$u] ... and hutch probe says so" grep -q "^user_namespaces.*user.max_user_namespaces=0" "$tmp/out"
done
sysctl -q -w user.max_user_namespaces="$old"
(cd / && as nobody "$HUTCH" run -- /bin/echo ran) >"$tmp/out" 2>"$tmp/err"
same "[nobody] user.max_user_namespaces=$old again: runs" "0 ran" "$? $(cat "$tmp/out")"
tap_done
