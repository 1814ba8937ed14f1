#!/bin/sh
# helper-base-filter.sh: the helper's own seccomp filter (helper/base-filter.c)
# holds whatever spec it is given. Driven directly with tests/progs/spec-send:
# a spec without a filter is refused before anything runs; under a spec whose
# filter allows everything (one RET ALLOW), new namespaces, mounts and
# set-id files are still refused, each by a real attempt that the same
# script, run on the host, shows succeeding. Then through `hutch run --rw`
# under the default policy: no set-id bit reaches a host file.
# Runs as root and as an unprivileged user.
. "$(dirname "$0")/lib.sh"
: "${HUTCH_PROGS:?HUTCH_PROGS must name the directory of spec-send}"
SEND=$HUTCH_PROGS/spec-send

tap_tmpdir base-filter
tmp=$(cd "$tmp" && pwd -P)
tap_stderr=$tmp/stderr
L=--default-layout
ALLOW=060000000000ff7f	# ret SECCOMP_RET_ALLOW

# setid.py DIR NAME...: one real attempt per NAME in DIR, "NAME RESULT"
# lines (OK or an errno name), then "setid_files" with the names of the
# set-id non-directories left in DIR.
mkdir "$tmp/py" "$tmp/host" "$tmp/mark" "$tmp/out"
cat >"$tmp/py/setid.py" <<'EOF'
import ctypes, errno, os, stat, sys

libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
AT_FDCWD, X32 = -100, 0x40000000
CLONE_NEWUSER, CLONE_NEWNS, SIGCHLD = 0x10000000, 0x00020000, 17
d = sys.argv[1]


def sc(nr, *args):
    a = [ctypes.c_long(x) if isinstance(x, int) else x for x in args]
    r = libc.syscall(ctypes.c_long(nr), *a)
    if r < 0:
        raise OSError(ctypes.get_errno(), "")
    return r


def p(name):
    return os.path.join(d, name).encode()


def fresh(name):
    path = os.path.join(d, name)
    with open(path, "w"):
        pass
    os.chmod(path, 0o755)
    return path


def in_child(fn):
    pid = os.fork()
    if pid == 0:
        try:
            fn()
            os._exit(0)
        except OSError as e:
            os._exit(e.errno)
    _, st = os.waitpid(pid, 0)
    if os.waitstatus_to_exitcode(st):
        raise OSError(os.waitstatus_to_exitcode(st), "")


def raw_clone_newuser():
    r = sc(56, CLONE_NEWUSER | SIGCHLD, 0, 0, 0, 0)
    if r == 0:
        os._exit(0)
    os.waitpid(r, 0)


def userns_mount():
    sc(272, CLONE_NEWUSER | CLONE_NEWNS)
    sc(165, b"none", d.encode(), b"tmpfs", 0, None)


def openat2():
    how = (ctypes.c_uint64 * 3)(os.O_RDONLY, 0, 0)
    os.close(sc(437, AT_FDCWD, b"/", ctypes.byref(how), 24))


TRIES = {
    "chmod_plain": lambda: os.chmod(fresh("plain"), 0o700),
    "creat_plain": lambda: os.close(os.open(p("c-plain"), os.O_CREAT | os.O_WRONLY, 0o755)),
    "chmod_suid": lambda: os.chmod(fresh("a"), 0o4755),
    "chmod_sgid": lambda: os.chmod(fresh("b"), 0o2755),
    "chmod_sgid_dir": lambda: (os.mkdir(p("dir")), os.chmod(p("dir"), 0o2755)),
    "fchmod_suid": lambda: os.fchmod(os.open(fresh("c"), os.O_RDONLY), 0o4755),
    "fchmodat_suid": lambda: sc(268, AT_FDCWD, fresh("e").encode(), 0o4755),
    "fchmodat2_suid": lambda: sc(452, AT_FDCWD, fresh("f").encode(), 0o4755, 0),
    "x32_chmod_suid": lambda: sc(X32 | 90, fresh("g").encode(), 0o4755),
    "open_creat_suid": lambda: os.close(os.open(p("h"), os.O_CREAT | os.O_WRONLY, 0o4755)),
    "openat_creat_sgid": lambda: os.close(sc(257, AT_FDCWD, p("i"), os.O_CREAT | os.O_WRONLY, 0o2755)),
    "creat_suid": lambda: os.close(sc(85, p("j"), 0o4755)),
    "tmpfile_suid": lambda: os.close(os.open(d, os.O_TMPFILE | os.O_WRONLY, 0o4755)),
    "mknod_suid": lambda: os.mknod(p("k"), stat.S_IFREG | 0o4755),
    "mknodat_sgid": lambda: sc(259, AT_FDCWD, p("l"), stat.S_IFREG | 0o2755, 0),
    "openat2": openat2,
    "clone3": lambda: sc(435, None, 0),
    "unshare_user": lambda: in_child(lambda: sc(272, CLONE_NEWUSER)),
    "clone_newuser": lambda: in_child(raw_clone_newuser),
    "setns": lambda: sc(308, -1, 0),
    "open_tree": lambda: os.close(sc(428, AT_FDCWD, b"/", 0)),
    "userns_mount": lambda: in_child(userns_mount),
    "io_uring_setup": lambda: sc(425, 1, None),
}

for name in sys.argv[2:]:
    try:
        TRIES[name]()
        res = "OK"
    except OSError as e:
        res = errno.errorcode.get(e.errno, str(e.errno))
    except KeyError:
        res = "UNKNOWN"
    print(name, res, flush=True)
left = [n for n in sorted(os.listdir(d))
        if os.lstat(os.path.join(d, n)).st_mode & 0o6000
        and not stat.S_ISDIR(os.lstat(os.path.join(d, n)).st_mode)]
print("setid_files", ",".join(left) or "none", flush=True)
EOF
chmod -R a+rX "$tmp"
chmod 777 "$tmp/mark"
# out is a --rw bind of hutch run: idmapped to its owner for a root
# caller, who may not lend a directory others may write (hutch(1), --rw)
chmod 755 "$tmp/out"

# Refused with EPERM in every jail; openat2 and clone3 are ENOSYS there.
setid="chmod_suid chmod_sgid chmod_sgid_dir fchmod_suid fchmodat_suid fchmodat2_suid
	x32_chmod_suid open_creat_suid openat_creat_sgid creat_suid tmpfile_suid
	mknod_suid mknodat_sgid"
ns="unshare_user clone_newuser setns open_tree userns_mount io_uring_setup"
enosys="openat2 clone3"
plain="chmod_plain creat_plain"

# result NAME FILE: the attempt's verdict.
result() { awk -v n="$1" '$1 == n { print $2 }' "$2"; }

if ! /usr/bin/python3 -c 'import ctypes, os; os.O_TMPFILE' 2>/dev/null || [ "$(uname -m)" != x86_64 ]; then
	skip "the base filter's real attempts" "needs x86-64 and /usr/bin/python3 with ctypes"
	tap_done
	exit
fi

# ---- (a) a spec without a filter: refused, before the target runs ----
got=$("$SEND" --no-seccomp $L --bind "$tmp/mark" /m --mflags rw -- \
	/bin/sh -c 'echo ran > /m/ran' </dev/null 2>"$tmp/stderr" | tail -n 1)
same "a spec without HUTCH_SPEC_SECCOMP: bad_spec at stage seccomp, item 3" \
	"exit=71 signal=0 record=bad_spec stage=seccomp item=3 errno=EINVAL" "$got"
check "... and the target never ran" test ! -e "$tmp/mark/ran"
got=$("$SEND" --filter "$ALLOW" $L --bind "$tmp/mark" /m --mflags rw -- \
	/bin/sh -c 'echo ran > /m/ran' </dev/null 2>"$tmp/stderr" | tail -n 1)
same "control: the same spec with an allow-all filter runs" "exit=0 signal=0 record=none" "$got"
check "control: ... and the target wrote its mark" test -s "$tmp/mark/ran"

# ---- (b) the control: on the host the same attempts get through ----
# shellcheck disable=SC2086
/usr/bin/python3 "$tmp/py/setid.py" "$tmp/host" $plain $setid $ns $enosys >"$tmp/host.out" 2>&1
userns=no
[ "$(result unshare_user "$tmp/host.out")" = OK ] && userns=yes
for n in $plain $setid $ns $enosys; do
	r=$(result "$n" "$tmp/host.out")
	case $n:$r in
	x32_chmod_suid:ENOSYS | x32_chmod_suid:OK) ok "host: $n reaches the kernel ($r)" ;;
	fchmodat2_suid:ENOSYS | open_tree:ENOSYS | openat2:ENOSYS | clone3:ENOSYS)
		skip "host: $n reaches the kernel" "this kernel lacks the call" ;;
	unshare_user:* | clone_newuser:* | userns_mount:*)
		if [ $userns = yes ]; then
			same "host: $n succeeds" OK "$r"
		else
			skip_feature "host: $n succeeds" "no user namespaces for this user here ($r)"
		fi ;;
	setns:EBADF | clone3:EINVAL | io_uring_setup:EFAULT) ok "host: $n reaches the kernel ($r)" ;;
	io_uring_setup:EPERM) skip "host: $n reaches the kernel" "io_uring is disabled here" ;;
	*) same "host: $n succeeds" OK "$r" ;;
	esac
done
# f comes from fchmodat2 (Linux 6.6): a kernel without it (6.1) makes none.
want=a,b,c,e,f,h,i,j,k,l
[ "$(result fchmodat2_suid "$tmp/host.out")" = ENOSYS ] && want=a,b,c,e,h,i,j,k,l
same "host: the set-id files were made" "$want" "$(result setid_files "$tmp/host.out")"

# ---- (b) in a jail whose spec filter allows everything ----
# shellcheck disable=SC2086
"$SEND" --filter "$ALLOW" $L --bind "$tmp/py" /py -- /usr/bin/python3 /py/setid.py /tmp \
	$plain $setid $ns $enosys </dev/null >"$tmp/jail.out" 2>"$tmp/stderr"
same "jail: setid.py ran to the end" "exit=0 signal=0 record=none" "$(tail -n 1 "$tmp/jail.out")"
for n in $plain; do
	same "jail, allow-all spec filter: $n still works" OK "$(result "$n" "$tmp/jail.out")"
done
for n in $setid $ns; do
	same "jail, allow-all spec filter: $n is refused (EPERM)" EPERM "$(result "$n" "$tmp/jail.out")"
done
for n in $enosys; do
	same "jail, allow-all spec filter: $n is ENOSYS (libc falls back)" ENOSYS \
		"$(result "$n" "$tmp/jail.out")"
done
same "jail: no set-id file was made" none "$(result setid_files "$tmp/jail.out")"

# The commands of the report: unshare(1), mount(8) in a new namespace,
# chmod(1); the same shell line on the host is the control.
line='unshare -U true && echo unshare-ok
	unshare -Urm sh -c "mount -t tmpfs x /tmp" && echo mount-ok
	: > "$1" && chmod 4755 "$1" && echo chmod-ok
	echo done'
got=$("$SEND" --filter "$ALLOW" $L -- /bin/sh -c "$line" sh /tmp/f </dev/null 2>"$tmp/stderr" |
	tr '\n' ' ')
same "jail: unshare, mount and chmod 4755 all fail" "done exit=0 signal=0 record=none " "$got"
if [ $userns = yes ]; then
	got=$(/bin/sh -c "$line" sh "$tmp/host/f2" 2>&1 | tr '\n' ' ')
	same "control, host: the same three succeed" "unshare-ok mount-ok chmod-ok done " "$got"
else
	skip_feature "control, host: the same three succeed" "no user namespaces for this user here"
fi

# ---- (c) hutch run --rw under the default policy ----
out=$tmp/out
"$HUTCH" run --policy default --rw "$out:/out" -- /bin/sh -c '
	cp /bin/true /out/t1 && chmod 755 /out/t1 && echo cp-ok
	chmod u+s /out/t1 2>/dev/null || echo suid-refused
	chmod g+s /out/t1 2>/dev/null || echo sgid-refused
	install -m 4755 /bin/true /out/t2 2>/dev/null || echo install-refused
	chmod 700 /out/t1 && echo plain-ok' >"$tmp/run.out" 2>"$tmp/stderr"
same "hutch run --rw: cp works, u+s, g+s and install -m 4755 refused, chmod 700 works" \
	"cp-ok suid-refused sgid-refused install-refused plain-ok " "$(tr '\n' ' ' <"$tmp/run.out")"
same "host: the file written through the bind is mode 700, no set-id bit" 700 \
	"$(stat -c %a "$out/t1" 2>&1)"
setid_left=$(find "$out" -perm /6000 ! -type d 2>&1)
same "host: no set-id file under the rw bind" "" "$setid_left"
# Control: the bind's filesystem keeps set-id bits for whoever may set them.
if cp /bin/true "$out/c" && chmod u+s "$out/c"; then
	same "control, host: chmod u+s works on that filesystem" 4755 "$(stat -c %a "$out/c")"
else
	not_ok "control, host: chmod u+s works on that filesystem"
fi

tap_done
