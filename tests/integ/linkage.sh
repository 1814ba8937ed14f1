#!/bin/sh
# linkage.sh: hutch-exec as built and installed: it does not link json-c
# (DESIGN.md), carries no setuid/setgid bit and no file capabilities, and
# refuses to run (exit 71, privileged_binary at self_check) from a copy
# that has any of them. Runs as root and as an unprivileged user. From a
# build tree it also installs into a DESTDIR and checks that make uninstall
# leaves no file and none of the directories hutch made for itself.
. "$(dirname "$0")/lib.sh"

: "${HUTCH_PROGS:?HUTCH_PROGS must name the directory of spec-send}"
SEND=$HUTCH_PROGS/spec-send

tap_tmpdir linkage
trap 'exit 1' HUP INT TERM

# ---- no json-c in the helper ----
if ! command -v readelf >/dev/null 2>&1; then
	skip "hutch-exec has no DT_NEEDED on json-c" "readelf not installed (binutils)"
elif ! readelf -h "$HUTCH_EXEC" >/dev/null 2>&1; then
	not_ok "hutch-exec is an ELF file"
	diag "$HUTCH_EXEC"
else
	needed=$(readelf -d "$HUTCH_EXEC" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
	if readelf -l "$HUTCH_EXEC" | grep -q 'INTERP'; then
		case " $(echo $needed) " in
		*json*) not_ok "dynamic hutch-exec: no DT_NEEDED on json-c"; diag "needed: $needed" ;;
		*) ok "dynamic hutch-exec: no DT_NEEDED on json-c ($(echo $needed))" ;;
		esac
	else
		same "static hutch-exec: no DT_NEEDED entries at all" "" "$(echo $needed)"
	fi
	# The parser sees what is there: a dynamic program of ours needs libc.
	case " $(readelf -d "$HUTCH_PROGS/try-syscall" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | tr '\n' ' ') " in
	*" libc.so."*) ok "control: the DT_NEEDED parser finds libc in try-syscall" ;;
	*) not_ok "control: the DT_NEEDED parser finds libc in try-syscall" ;;
	esac
fi
# Whatever the linking, no json-c code may be inside.
if command -v strings >/dev/null 2>&1; then
	hits=$(strings -a "$HUTCH_EXEC" | grep -E 'json_(object|tokener|c_version)' | head -n 3)
	same "no json-c symbols or strings inside hutch-exec" "" "$hits"
	# libcap-ng is the frontend's (least-privilege.c); the helper empties
	# its capability sets with capset(2) itself.
	same "no libcap-ng inside hutch-exec" "" "$(strings -a "$HUTCH_EXEC" | grep -E '^capng_|libcap-ng' | head -n 3)"
	check "control: libcap-ng is inside hutch (the frontend)" \
		test -n "$(strings -a "$HUTCH" | grep -E 'capng_|libcap-ng|cap_dac_read_search' | head -n 1)"
else
	skip "no json-c symbols or strings inside hutch-exec" "strings not installed (binutils)"
fi

# ---- no privilege on the installed file ----
check "hutch-exec has no setuid bit" test ! -u "$HUTCH_EXEC"
check "hutch-exec has no setgid bit" test ! -g "$HUTCH_EXEC"
if [ -x /usr/bin/python3 ]; then
	xattr=$(/usr/bin/python3 -c 'import errno, os, sys
try:
    os.getxattr(sys.argv[1], "security.capability")
    print("present")
except OSError as e:
    print("absent" if e.errno in (errno.ENODATA, errno.ENOTSUP) else errno.errorcode[e.errno])' \
		"$HUTCH_EXEC")
	same "hutch-exec has no security.capability xattr" absent "$xattr"
elif command -v getcap >/dev/null 2>&1; then
	same "hutch-exec has no file capabilities (getcap)" "" "$(getcap "$HUTCH_EXEC")"
else
	skip "hutch-exec has no security.capability xattr" "neither python3 nor getcap installed"
fi

# ---- a privileged copy refuses to run ----
# run_copy COPY [USER-PREFIX...]: spec-send's result line for a jail by COPY.
run_copy() {
	c=$1
	shift
	"$@" "$SEND" --helper "$c" --default-layout -- /bin/true </dev/null 2>/dev/null | tail -n 1
}
REFUSED="exit=71 signal=0 record=privileged_binary stage=self_check"

cp "$HUTCH_EXEC" "$tmp/plain"
chmod 755 "$tmp/plain"
same "control: an unmodified copy runs a jail" "exit=0 signal=0 record=none" \
	"$(run_copy "$tmp/plain")"

# Run by its owner, a set-id bit changes no id: AT_SECURE stays 0 and the
# helper's own look at its mode bits (item 1) must catch it.
cp "$HUTCH_EXEC" "$tmp/suid"
chmod 4755 "$tmp/suid"
same "a setuid copy run by its owner: privileged_binary item 1" "$REFUSED item=1 errno=0" \
	"$(run_copy "$tmp/suid")"
cp "$HUTCH_EXEC" "$tmp/sgid"
chmod 2755 "$tmp/sgid"
same "a setgid copy run by its owner: privileged_binary item 1" "$REFUSED item=1 errno=0" \
	"$(run_copy "$tmp/sgid")"

if ! is_root; then
	for d in "a setuid-root copy run by nobody: privileged_binary" \
		"a setgid-root copy run by nobody: privileged_binary" \
		"a copy with file capabilities run by root: privileged_binary item 2" \
		"a copy with file capabilities run by nobody: privileged_binary item 0"; do
		skip "$d" "root-only: needs a root-owned set-id file or CAP_SETFCAP"
	done
else
	# Run by someone else, exec itself raises privilege: AT_SECURE (item 0),
	# unless the file system is nosuid, where only the mode bits tell.
	as_nobody="setpriv --reuid=65534 --regid=65534 --clear-groups"
	item=0
	case ,$(findmnt -n -o OPTIONS -T "$tmp" 2>/dev/null), in *,nosuid,*) item=1 ;; esac
	if ! command -v setpriv >/dev/null 2>&1 || ! $as_nobody test -x "$SEND"; then
		skip "a setuid-root copy run by nobody: privileged_binary" "nobody cannot run $SEND"
		skip "a setgid-root copy run by nobody: privileged_binary" "nobody cannot run $SEND"
	else
		same "a setuid-root copy run by nobody: privileged_binary item $item" \
			"$REFUSED item=$item errno=0" "$(run_copy "$tmp/suid" $as_nobody)"
		same "a setgid-root copy run by nobody: privileged_binary item $item" \
			"$REFUSED item=$item errno=0" "$(run_copy "$tmp/sgid" $as_nobody)"
	fi
	cp "$HUTCH_EXEC" "$tmp/fcaps"
	chmod 755 "$tmp/fcaps"
	if command -v setcap >/dev/null 2>&1 && setcap cap_net_raw+ep "$tmp/fcaps" 2>/dev/null; then
		# Root gains nothing it lacks, so AT_SECURE may stay 0: the
		# xattr check (item 2) must catch it.
		same "a copy with file capabilities run by root: privileged_binary item 2" \
			"$REFUSED item=2 errno=0" "$(run_copy "$tmp/fcaps")"
		if command -v setpriv >/dev/null 2>&1 && $as_nobody test -x "$SEND"; then
			same "a copy with file capabilities run by nobody: privileged_binary item 0" \
				"$REFUSED item=0 errno=0" "$(run_copy "$tmp/fcaps" $as_nobody)"
		else
			skip "a copy with file capabilities run by nobody: privileged_binary item 0" \
				"nobody cannot run $SEND"
		fi
	else
		skip "a copy with file capabilities run by root: privileged_binary item 2" \
			"setcap missing or the file system refuses security.capability"
		skip "a copy with file capabilities run by nobody: privileged_binary item 0" \
			"setcap missing or the file system refuses security.capability"
	fi
fi

# ---- make uninstall leaves nothing of hutch behind ----
if [ ! -f Makefile ] || ! grep -q '^uninstall-hook:' Makefile || [ ! -w . ]; then
	skip "make uninstall leaves no file behind" "not run from a writable build tree"
	skip "make uninstall leaves no directory of hutch's behind" "not run from a writable build tree"
elif ! make install DESTDIR="$tmp/dest" >"$tmp/install.log" 2>&1; then
	not_ok "make install DESTDIR=$tmp/dest"
	diag "$(tail -n 5 "$tmp/install.log")"
else
	if ! make uninstall DESTDIR="$tmp/dest" >"$tmp/uninstall.log" 2>&1; then
		not_ok "make uninstall DESTDIR=$tmp/dest"
		diag "$(tail -n 5 "$tmp/uninstall.log")"
	fi
	same "make uninstall leaves no file behind" "" \
		"$(cd "$tmp/dest" && find . ! -type d | sort | head -n 5)"
	# The standard directories (bin, share/man/man1, ...) are not ours;
	# etc/hutch, share/hutch, libexec/hutch and the completions are.
	same "make uninstall leaves no directory of hutch's behind" "" \
		"$(cd "$tmp/dest" && find . -type d \( -name hutch -o -name policy.d \
			-o -name bash-completion -o -name completions \) | sort)"
fi

tap_done
