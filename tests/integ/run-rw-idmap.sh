#!/bin/sh
# run-rw-idmap.sh: a --rw bind is writable by the jail's user. Invoked by
# root, the jail runs as the policy's user and the bind is an idmapped
# mount: the jail acts as the bind's owner there and nowhere else, files it
# creates belong to that owner on the host, it gains no set-id bit and no
# other owner's files, and a filesystem that cannot idmap is refused
# naming the mechanism. Invoked by an unprivileged user nothing is mapped:
# the jail is the caller. Runs as root and as an unprivileged user.
. "$(dirname "$0")/lib.sh"

tap_tmpdir rw-idmap
tap_stderr="$tmp/err"
me="$(id -u):$(id -g)"

# The build-then-collect example of hutch(1): a read-only source tree, a
# writable output directory, make O=/out.
mkdir "$tmp/src" "$tmp/out"
printf 'all:\n\tmkdir -p $(O)/obj\n\techo built > $(O)/obj/result\n\ttouch $(O)/stamp\n' \
	>"$tmp/src/Makefile"
chmod -R a+rX "$tmp/src"
rc=0
(cd "$tmp/src" && "$HUTCH" run --ro "$tmp/src:/src" --rw "$tmp/out:/out" --cwd /src \
	-- make O=/out) >/dev/null 2>"$tmp/err" || rc=$?
same "hutch(1)'s example: make O=/out into a --rw bind of the caller's directory works" \
	"0 built" "$rc $(cat "$tmp/out/obj/result" 2>/dev/null)"
same "... what it made belongs to the directory's owner, the caller ($me)" \
	"$me $me $me" \
	"$(stat -c %u:%g "$tmp/out/obj" "$tmp/out/obj/result" "$tmp/out/stamp" 2>/dev/null | tr '\n' ' ' | sed 's/ $//')"

same "the jail's user is still the policy's user (or the caller), not root" \
	"$(if is_root; then echo 65534; else id -u; fi)" \
	"$("$HUTCH" run --rw "$tmp/out:/out" -- /usr/bin/id -u 2>"$tmp/err")"
same "a set-user-ID bit on a file in the bind is refused" "EPERM 0" \
	"$("$HUTCH" run --rw "$tmp/out:/out" -- /usr/bin/python3 -c '
import os
open("/out/suid", "w").close()
try:
    os.chmod("/out/suid", 0o4755); print("allowed", end=" ")
except OSError as e:
    print("EPERM" if e.errno == 1 else e.errno, end=" ")
print(os.stat("/out/suid").st_mode & 0o6000)' 2>"$tmp/err")"
check "... and the host's file has no set-id bit" test ! -u "$tmp/out/suid" -a ! -g "$tmp/out/suid"

if ! is_root; then
	check "unprivileged: nothing is idmapped (--dry-run)" \
		sh -c "! '$HUTCH' run --dry-run --rw '$tmp/out:/out' -- true | grep -q idmapped"
	tap_done
	exit
fi

# ---- root only: another owner, other ids, a filesystem without idmap ----

mkdir "$tmp/theirs"
chown 1234:2345 "$tmp/theirs"
"$HUTCH" run --rw "$tmp/theirs:/out" -- /bin/sh -c 'echo hi > /out/f && mkdir /out/d' 2>"$tmp/err"
same "a directory of uid 1234: the jail writes there, files are 1234:2345 on the host" \
	"1234:2345 1234:2345" "$(stat -c %u:%g "$tmp/theirs/f" "$tmp/theirs/d" 2>/dev/null | tr '\n' ' ' | sed 's/ $//')"
check "--dry-run says the bind is idmapped" \
	sh -c "'$HUTCH' run --dry-run --rw '$tmp/theirs:/out' -- true | grep -q '\"idmapped\": *true'"

# A file of a third owner in the bind: unmapped, only "other" applies.
echo keep >"$tmp/theirs/other"
chown 4321:4321 "$tmp/theirs/other"
chmod 644 "$tmp/theirs/other"
rc=0
"$HUTCH" run --rw "$tmp/theirs:/out" -- /bin/sh -c 'echo evil > /out/other' 2>/dev/null || rc=$?
same "a file of another owner in the bind stays unwritable" "failed keep" \
	"$([ "$rc" != 0 ] && echo failed) $(cat "$tmp/theirs/other")"
rc=0
"$HUTCH" run --rw "$tmp/theirs:/out" -- /bin/sh -c 'chown 4321 /out/f' 2>/dev/null || rc=$?
same "chown to another id is refused" "1 1234" "$rc $(stat -c %u "$tmp/theirs/f")"

# The mapping holds on the bind only: a root-owned host file elsewhere is
# still root's, not the jail's.
echo keep >"$tmp/rootfile"
chmod 644 "$tmp/rootfile"
rc=0
"$HUTCH" run --rw "$tmp/out:/out" --ro "$tmp/rootfile:/rootfile" -- /bin/sh -c 'echo evil > /rootfile' \
	2>/dev/null || rc=$?
same "a root-owned file in a read-only bind beside it stays unwritable" "keep" "$(cat "$tmp/rootfile")"

# ramfs has no idmapped-mount support: refused, naming the mechanism.
mkdir "$tmp/ram"
if mount -t ramfs hutch-test "$tmp/ram" 2>/dev/null; then
	tap_cleanup_add "umount '$tmp/ram'"
	chmod 755 "$tmp/ram"
	rc=0
	"$HUTCH" run --rw "$tmp/ram:/out" -- /bin/sh -c 'echo ran > /out/f' >/dev/null 2>"$tmp/err" || rc=$?
	cp "$tmp/err" "$tmp/msgs"
	same "a --rw bind on ramfs (no idmap support): refused, exit 71, nothing ran" "71 " \
		"$rc $(ls -A "$tmp/ram")"
	check "... sandbox_unavailable naming the idmapped mount" \
		grep -q '^hutch: sandbox_unavailable: .*idmapped mount (mount_setattr MOUNT_ATTR_IDMAP) .*EINVAL' "$tmp/msgs"
else
	skip "a --rw bind on ramfs is refused" "cannot mount ramfs here"
fi

tap_done
