#!/bin/sh
# tests/vm/suites/apparmor.sh: the package's AppArmor profile for
# hutch-exec on a kernel with AppArmor enabled. The shipped file needs
# AppArmor 4.0 (abi 4.0, the userns rule) and says older parsers reject
# it: bookworm's 3.0 must. Its rules otherwise (the attachment, flags=
# (unconfined)) are loaded from the same file minus those two lines, and
# hutch runs under it as root and nobody: the installed helper carries the
# profile, a helper elsewhere does not, and the command in the jail keeps
# the helper's label but still cannot create a user namespace.
. "$HUTCH_SRCDIR/tests/integ/lib.sh"
tap_tmpdir apparmor
profile=/usr/share/hutch/apparmor/hutch-exec

same "AppArmor is enabled" Y "$(cat /sys/module/apparmor/parameters/enabled)"
check "the package ships the profile ($profile)" test -f "$profile"
apparmor_parser -Q "$profile" >"$tmp/out" 2>&1
rc=$?
v=$(apparmor_parser --version | head -n 1)
case $v in
*" 2."* | *" 3."*)
	check "bookworm's parser ($v) rejects the shipped file, as it says (rc $rc)" \
		test "$rc" != 0
	check "... for the AppArmor 4.0 abi it names" grep -q "abi/4.0" "$tmp/out"
	sed -e '/^abi </d' -e '/^  userns,$/d' "$profile" >"$tmp/hutch-exec"
	;;
*)
	check "the parser ($v) accepts the shipped file" test "$rc" = 0
	cp "$profile" "$tmp/hutch-exec"
	;;
esac
check "apparmor_parser -r loads the profile" apparmor_parser -r "$tmp/hutch-exec"
check "... the kernel lists it" grep -q "^hutch-exec (unconfined)" \
	/sys/kernel/security/apparmor/profiles

# labels USER HELPER: run a jail as USER with HELPER; the AppArmor labels
# of its helper processes and of its command, one line each, sorted. The
# command is polled for: under TCG a jail takes seconds to start.
labels() {
	rt=$(mktemp -d /dev/shm/hutch-rt.XXXXXX)
	chown "$1" "$rt"
	(cd / && setpriv --reuid "$(id -u "$1")" --regid "$(id -g "$1")" --init-groups \
		env -i PATH=/usr/bin:/bin XDG_RUNTIME_DIR="$rt" HUTCH_EXEC="$2" \
		"$HUTCH" run -- /bin/sleep 47) >/dev/null 2>"$tmp/err" &
	i=0
	while [ -z "$(pgrep -x -f '/bin/sleep 47')" ] && [ $i -lt 60 ]; do sleep 0.5; i=$((i + 1)); done
	for p in $(pgrep -x "$(basename "$2" | cut -c1-15)") $(pgrep -x -f '/bin/sleep 47'); do
		echo "$(cat "/proc/$p/comm") $(cat "/proc/$p/attr/current")"
	done 2>/dev/null | sort -u
	pkill -x -f '/bin/sleep 47'
	wait
}

for u in root nobody; do
	got=$(labels $u /usr/libexec/hutch/hutch-exec)
	# An unconfined-mode profile has no exec transitions: the command keeps
	# the helper's label (and its userns right); hutch-exec's own base
	# filter is what keeps namespaces from it (checked below).
	same "[$u] the installed helper, and the command it runs, carry hutch-exec" \
		"hutch-exec hutch-exec (unconfined)
sleep hutch-exec (unconfined)" "$got"
	(cd / && setpriv --reuid "$(id -u $u)" --regid "$(id -g $u)" --init-groups env -i \
		PATH=/usr/bin:/bin XDG_RUNTIME_DIR="$(mktemp -d /dev/shm/hutch-rt.XXXXXX)" \
		"$HUTCH" run -- /bin/echo ran) >"$tmp/out" 2>&1
	same "[$u] hutch run under the profile" ran "$(cat "$tmp/out")"
	(cd / && setpriv --reuid "$(id -u $u)" --regid "$(id -g $u)" --init-groups env -i \
		PATH=/usr/bin:/bin XDG_RUNTIME_DIR="$(mktemp -d /dev/shm/hutch-rt.XXXXXX)" \
		"$HUTCH" run -- /usr/bin/unshare -U -r /bin/echo inside) >"$tmp/out" 2>&1
	check "[$u] ... the command cannot make a user namespace all the same" \
		test -z "$(grep -x inside "$tmp/out")"
done
# A helper elsewhere (another prefix, a build tree) is not covered.
cp /usr/libexec/hutch/hutch-exec "$tmp/hutch-exec-copy"
chmod 755 "$tmp/hutch-exec-copy"
same "a helper at another path is not attached" "hutch-exec-copy unconfined
sleep unconfined" "$(labels root "$tmp/hutch-exec-copy")"
apparmor_parser -R "$tmp/hutch-exec" >/dev/null 2>&1
tap_done
