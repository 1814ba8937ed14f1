#!/bin/sh
# seccomp-denials.sh: every call the filters refuse, attempted for real by
# tests/progs/try-syscall inside a jail (harmless arguments; each attempt in
# a child of its own), under the default (deny-list) and the strict
# (allow-list) policy. Outside the jail the same probe shows it can see a
# call succeed, so an EPERM inside is the filter's doing.
#
# Request binds are never executable (hutch(1)), so try-syscall is staged
# into /work with --input and run from there under copies of the shipped
# policies that differ only in filesystem.writable_exec; the check below
# that their --dry-run seccomp sections equal the shipped ones keeps that
# honest.
. "$(dirname "$0")/lib.sh"
: "${HUTCH_PROGS:?HUTCH_PROGS must name the directory of try-syscall}"

tap_tmpdir seccomp
probe=$HUTCH_PROGS/try-syscall

# Refused with EPERM by both policies.
eperm="init_module finit_module delete_module kexec_load kexec_file_load
	bpf perf_event_open userfaultfd keyctl add_key request_key
	io_uring_setup io_uring_enter io_uring_register
	open_by_handle_at name_to_handle_at
	mount umount2 pivot_root move_mount open_tree fsopen fsconfig fsmount fspick
	mount_setattr setns unshare unshare_newns unshare_zero clone_newuser
	ioctl_tiocsti ioctl_tiocsti_highbit ioctl_tioclinux
	reboot swapon swapoff clock_settime clock_adjtime settimeofday adjtimex
	acct quotactl syslog personality_bad ptrace lookup_dcookie vhangup
	nfsservctl uselib ustat sysfs chroot sethostname"
enosys="clone3"
allowed="personality_query personality_linux getpid"

# variant NAME: the shipped policy NAME with writable_exec set, as a file
# named NAME.json (so the jail reports the same policy name).
variant() {
	mkdir -p "$tmp/pol"
	"$HUTCH" policy show "$1" | "$py" -c 'import json, sys
d = json.load(sys.stdin)
d["filesystem"]["writable_exec"] = True
json.dump(d, sys.stdout)' >"$tmp/pol/$1.json"
}

# seccomp_of POLICY: the seccomp section of a dry run, as canonical JSON.
seccomp_of() {
	"$HUTCH" run --policy "$1" --dry-run -- /bin/true |
		"$py" -c 'import json, sys; print(json.dumps(json.load(sys.stdin)["seccomp"], sort_keys=True))'
}

# result NAME: try-syscall's verdict for NAME in the last run.
result() { awk -v n="$1" '$1 == n { print $2 }' "$tmp/out"; }

if [ ! -x "$probe" ]; then
	not_ok "try-syscall is built ($probe)"
	tap_done
	exit
fi

# The probe itself: a typo must not pass as a refusal.
"$probe" no_such_call >"$tmp/out" 2>/dev/null
rc=$?
check "try-syscall refuses an unknown name (exit 2, UNKNOWN)" \
	test "$rc" = 2 -a "$(result no_such_call)" = UNKNOWN

# --- outside the jail: the probe sees success -----------------------------

# Safe here: unshare and clone only change a throw-away child; personality
# too; the ioctl has no terminal to act on (stdin is /dev/null).
"$probe" unshare clone_newuser personality_bad clone3 ioctl_tiocsti getpid \
	mount bpf reboot </dev/null >"$tmp/out" 2>&1
check "outside: unshare(CLONE_NEWUSER) succeeds (OK)" test "$(result unshare)" = OK
check "outside: clone(CLONE_NEWUSER) succeeds (OK)" test "$(result clone_newuser)" = OK
check "outside: personality(ADDR_NO_RANDOMIZE) succeeds (OK)" test "$(result personality_bad)" = OK
check "outside: clone3 with a zero size reaches the kernel (EINVAL)" test "$(result clone3)" = EINVAL
check "outside: TIOCSTI on /dev/null reaches the driver (ENOTTY)" test "$(result ioctl_tiocsti)" = ENOTTY
check "outside: getpid (OK)" test "$(result getpid)" = OK
if is_root; then
	check "outside, root: mount(NULL...) reaches the kernel (EFAULT)" test "$(result mount)" = EFAULT
	check "outside, root: bpf with a bad command reaches the kernel (EINVAL)" test "$(result bpf)" = EINVAL
	check "outside, root: reboot with a bad magic reaches the kernel (EINVAL)" test "$(result reboot)" = EINVAL
else
	for n in mount bpf reboot; do
		tap_n=$((tap_n + 1))
		echo "ok $tap_n - outside, root: $n reaches the kernel # SKIP not root"
	done
fi

# --- inside, under each shipped policy -------------------------------------

for pol in default strict; do
	variant "$pol"
	check "$pol: the test copy has the shipped seccomp filter" \
		test "$(seccomp_of "$pol")" = "$(seccomp_of "$tmp/pol/$pol.json")"
	# shellcheck disable=SC2086
	"$HUTCH" run --policy "$tmp/pol/$pol.json" --input "try-syscall=$probe" -- \
		/bin/sh -c 'chmod 755 try-syscall && exec ./try-syscall "$@"' sh \
		$eperm $enosys $allowed >"$tmp/out" 2>"$tmp/err"
	rc=$?
	check "$pol: try-syscall ran in the jail (exit $rc)" test "$rc" = 0
	[ "$rc" = 0 ] || diag "$(cat "$tmp/err")"
	for n in $eperm; do
		r=$(result "$n")
		check "$pol: $n is refused with EPERM ($r)" test "$r" = EPERM
	done
	r=$(result clone3)
	check "$pol: clone3 fails with ENOSYS, so libc falls back to clone ($r)" test "$r" = ENOSYS
	for n in $allowed; do
		r=$(result "$n")
		check "$pol: $n is allowed ($r)" test "$r" = OK
	done
	# A denied call is refused, not fatal: the shell and its fork go on.
	out=$("$HUTCH" run --policy "$pol" -- /bin/sh -c 'echo before; (echo child); echo after' 2>&1)
	check "$pol: ordinary work (fork, exec, pipes) still runs" \
		test "$(printf '%s\n' "$out" | tr '\n' ' ')" = "before child after "
done

# Denial reports: the result names each refused call and counts it; a run
# that is refused nothing says so with an empty list. Calls that hutch-exec's
# own filter refuses (unshare, mount...: hutch-exec(8)) are refused before
# any listener sees them, so they are not counted; the calls here are the
# policy's alone.
for pol in default strict; do
	"$HUTCH" run --json --policy "$pol" -- /bin/sh -c \
		'hostname a; hostname b; /usr/sbin/chroot / /bin/true; unshare -r true; exit 0' \
		>"$tmp/denied.json" 2>/dev/null
	got=$("$py" -c 'import json, sys
d = json.load(open(sys.argv[1]))
print(" ".join("%s:%d" % (e["syscall"], e["count"]) for e in sorted(d["denials"], key=lambda e: e["syscall"])))' "$tmp/denied.json" 2>&1)
	# (The strict allow list also refuses calls chroot(8) or hostname(1)
	# make on their own: those are counted too; these two must be.)
	check "$pol: denials name each refused call with its count ($got)" \
		sh -c 'case " $1 " in *" sethostname:2 "*) ;; *) exit 1 ;; esac
			case " $1 " in *" chroot:1 "*) ;; *) exit 1 ;; esac' - "$got"
	check "$pol: unshare, refused by hutch-exec's own filter, is not counted ($got)" \
		sh -c 'case " $1 " in *" unshare:"*) exit 1 ;; esac' - "$got"
	"$HUTCH" run --json --policy "$pol" -- /bin/true >"$tmp/clean.json" 2>/dev/null
	got=$("$py" -c 'import json, sys; print(json.load(open(sys.argv[1]))["denials"])' "$tmp/clean.json" 2>&1)
	check "$pol: a run refused nothing has an empty denials list ($got)" test "$got" = "[]"
done

# A storm of refused calls costs the supervisor a bounded share of a CPU:
# past 500 notifications in 100 ms the listener waits, and so does the jail.
cat >"$tmp/storm.py" <<'EOF'
import ctypes, time
libc = ctypes.CDLL(None, use_errno=True)
t = time.time()
while time.time() - t < 2.5:
    libc.syscall(321, 0, 0, 0)  # bpf(2), refused by every policy
EOF
"$HUTCH" run --json --input s.py="$tmp/storm.py" -- /usr/bin/python3 /work/s.py >"$tmp/storm.json" 2>/dev/null &
storm=$!
sleep 2
# utime + stime of hutch itself (fields 14, 15; children not included).
ticks=$(awk '{ print $14 + $15 }' "/proc/$storm/stat" 2>/dev/null || echo gone)
wait "$storm"
hz=$(getconf CLK_TCK)
check "a denial storm: hutch used under a fifth of a CPU for 2 s ($ticks ticks at $hz/s)" \
	test "$ticks" != gone -a "$((${ticks:-0} * 5))" -lt "$((hz * 2))"
got=$("$py" -c 'import json, sys
d = json.load(open(sys.argv[1]))
print(sum(e["count"] for e in d["denials"] if e["syscall"] == "bpf"))' "$tmp/storm.json" 2>&1)
check "... every refused call was still answered and counted, at most 5000/s ($got)" \
	test "${got:-0}" -gt 1000 -a "${got:-0}" -le 14000

tap_done
