#!/bin/sh
# jail-memfd.sh: a memfd made inside a jail never executes (filter.c
# add_memfd_rules, memfd-notify.c). Under default (deny-list) and strict
# (allow-list), through `hutch run` and `hutch serve`: fexecve and execve of
# /proc/self/fd/N of a filled memfd fail with EACCES and chmod +x with
# EPERM; MFD_EXEC is EINVAL; ordinary use still works (write and read back,
# shared and executable double mapping, sealing, MFD_CLOEXEC, the name, the
# kernel's EINVAL and EFAULT for bad names); no denial is counted for it;
# the result says "memfd_exec": "refused". A policy that denies
# memfd_create outright gets EPERM, counted. Outside any jail the same
# script sees the exec succeed, so the refusals are hutch's doing.
. "$(dirname "$0")/lib.sh"

tap_tmpdir memfd

# The attempts, one "name verdict" line each; run with python3 -c.
cat >"$tmp/memfd.py" <<'EOF'
import ctypes, errno, fcntl, mmap, os, sys

def say(name, v): print(name, v, flush=True)
def err(e): return errno.errorcode.get(e.errno, str(e.errno))

def run(name, fn):
    try:
        say(name, fn())
    except OSError as e:
        say(name, err(e))

def filled(flags=0):
    fd = os.memfd_create("hx", flags)
    with open("/usr/bin/true", "rb") as f:
        os.write(fd, f.read())
    return fd

def exec_child(how):
    # execve in a child; "ran" when /usr/bin/true ran from the memfd
    fd = filled(os.MFD_CLOEXEC if how == "fexecve" else 0)
    pid = os.fork()
    if pid == 0:
        try:
            if how == "fexecve":
                os.execve(fd, ["true"], {})
            os.execve("/proc/self/fd/%d" % fd, ["true"], {})
        except OSError as e:
            os.write(1, (err(e) + "\n").encode())
            os._exit(3)
    _, st = os.waitpid(pid, 0)
    return "ran" if os.waitstatus_to_exitcode(st) == 0 else "refused"

def chmod_x():
    os.fchmod(filled(), 0o755)
    return "ok"

def rw_mmap_seal():
    fd = os.memfd_create("plain", os.MFD_ALLOW_SEALING)
    os.write(fd, b"hello memfd")
    if os.pread(fd, 11, 0) != b"hello memfd":
        return "bad-read"
    os.ftruncate(fd, 8192)
    w = mmap.mmap(fd, 8192, mmap.MAP_SHARED, mmap.PROT_READ | mmap.PROT_WRITE)
    x = mmap.mmap(fd, 8192, mmap.MAP_SHARED, mmap.PROT_READ | mmap.PROT_EXEC)
    w[100:104] = b"\xc3\x90\x90\x90"  # JIT style: write one view, run the other
    if x[100:104] != b"\xc3\x90\x90\x90":
        return "bad-mapping"
    w.close()
    x.close()  # any shared mapping of a writable fd holds off F_SEAL_WRITE (EBUSY)
    fcntl.fcntl(fd, fcntl.F_ADD_SEALS, fcntl.F_SEAL_WRITE | fcntl.F_SEAL_SHRINK)
    try:
        os.write(fd, b"x")
        return "seal-ignored"
    except OSError as e:
        if e.errno != errno.EPERM:
            return "seal-" + err(e)
    link = os.readlink("/proc/self/fd/%d" % fd)
    cloexec = fcntl.fcntl(fd, fcntl.F_GETFD) & fcntl.FD_CLOEXEC
    fd2 = os.memfd_create("c", os.MFD_CLOEXEC)
    cloexec2 = fcntl.fcntl(fd2, fcntl.F_GETFD) & fcntl.FD_CLOEXEC
    return "ok" if link.lstrip("/").startswith("memfd:plain") and not cloexec and cloexec2 else \
        "bad-flags %s %d %d" % (link, cloexec, cloexec2)

libc = ctypes.CDLL(None, use_errno=True)
def raw(name, flags):
    r = libc.syscall(319, name, ctypes.c_uint(flags))
    if r < 0:
        raise OSError(ctypes.get_errno(), "memfd_create")
    os.close(r)
    return "ok"

run("fexecve", lambda: exec_child("fexecve"))
run("proc-fd", lambda: exec_child("proc-fd"))
run("chmod-x", chmod_x)
run("mfd-exec", lambda: raw(b"x", 0x10))
run("ordinary", rw_mmap_seal)
run("name-249", lambda: raw(b"n" * 249, 0))
run("name-250", lambda: raw(b"n" * 250, 0))
run("name-efault", lambda: raw(ctypes.c_void_p(8), 0))
run("sealed-flag", lambda: raw(b"s", 0x8))
EOF

# verdict NAME: the verdict for NAME in $tmp/out.
verdict() { awk -v n="$1" '$1 == n { print $2; exit }' "$tmp/out"; }

# A document's field, from $tmp/doc.
field() { json_get "$1" <"$tmp/doc"; }

# The script, outside any jail: the exec must be possible there.
"$py" -c "$(cat "$tmp/memfd.py")" >"$tmp/out" 2>&1
noexec=$(cat /proc/sys/vm/memfd_noexec 2>/dev/null || echo 0)
if [ "$noexec" = 2 ]; then
	skip "outside a jail, a memfd executes" "vm.memfd_noexec=2 on this host refuses it anyway"
else
	same "outside a jail, fexecve of a memfd runs" ran "$(verdict fexecve)"
	same "outside a jail, execve of /proc/self/fd/N runs" ran "$(verdict proc-fd)"
fi

# check_doc LABEL: the assertions on $tmp/doc (a result) and $tmp/out.
check_doc() {
	field 'd["stdout"]["text"]' >"$tmp/out"
	same "$1: fexecve of a filled memfd is refused" refused "$(verdict fexecve)"
	same "$1: execve of /proc/self/fd/N is refused" refused "$(verdict proc-fd)"
	same "$1: chmod +x of a memfd is refused" EPERM "$(verdict chmod-x)"
	same "$1: memfd_create(MFD_EXEC) is EINVAL" EINVAL "$(verdict mfd-exec)"
	same "$1: write, read back, double mapping, seals, MFD_CLOEXEC and the name work" \
		ok "$(verdict ordinary)"
	same "$1: a 249-byte name is accepted" ok "$(verdict name-249)"
	same "$1: a 250-byte name is EINVAL, as the kernel says" EINVAL "$(verdict name-250)"
	same "$1: an unreadable name is EFAULT, as the kernel says" EFAULT "$(verdict name-efault)"
	same "$1: MFD_NOEXEC_SEAL passes straight through" ok "$(verdict sealed-flag)"
	same "$1: the result says memfd exec is refused" refused "$(field 'd["jail"]["memfd_exec"]')"
	same "$1: no denial is counted for memfd_create" '[]' \
		"$(field '[x for x in (d["denials"] or []) if x["syscall"] == "memfd_create"]')"
}

# Whether this kernel can seal a memfd against exec (MFD_NOEXEC_SEAL, 6.3),
# asked outside; hutch probe must say the same.
sealed=false
"$py" -c 'import os; os.memfd_create("x", 8)' 2>/dev/null && sealed=true
same "hutch probe's memfd_noexec row says what the kernel can do" "$sealed" \
	"$("$HUTCH" probe --json 2>/dev/null | json_get '[m["available"] for m in d["mechanisms"] if m["mechanism"] == "memfd_noexec"][0]' 2>/dev/null)"

for pol in default strict; do
	if [ "$sealed" != true ]; then
		skip_feature "$pol: memfd sealed against exec" "the kernel lacks MFD_NOEXEC_SEAL (6.3)"
		continue
	fi
	"$HUTCH" run --json --policy "$pol" -- "$py" -c "$(cat "$tmp/memfd.py")" \
		>"$tmp/doc" 2>"$tmp/err"
	check_doc "run --policy $pol"
	CLIENT_DIR=$(tap_client_dir)
	if [ -z "$CLIENT_DIR" ]; then
		skip "serve --policy $pol" "no hutch_client.py next to the tests"
		continue
	fi
	CLIENT_DIR=$CLIENT_DIR "$py" -c 'import json, os, sys
sys.path.insert(0, os.environ["CLIENT_DIR"])
from hutch_client import HutchClient
with HutchClient.spawn([os.environ["HUTCH"], "serve", "--policy", sys.argv[1]]) as c:
    json.dump(c.run({"version": 1, "argv": [sys.argv[2], "-c", sys.argv[3]]}), sys.stdout)
' "$pol" "$py" "$(cat "$tmp/memfd.py")" >"$tmp/doc" 2>"$tmp/err"
	check_doc "serve --policy $pol"
done

# A policy that denies memfd_create: every form is EPERM and counted.
"$HUTCH" policy show default | "$py" -c 'import json, sys
d = json.load(sys.stdin)
d["seccomp"]["syscalls"] = ["memfd_create"]
json.dump(d, sys.stdout)' >"$tmp/deny.json"
"$HUTCH" run --json --policy "$tmp/deny.json" -- "$py" -c 'import os
for f in (0, os.MFD_CLOEXEC, 8):
    try:
        os.memfd_create("x", f); print("made")
    except OSError as e:
        print(e.errno)' >"$tmp/doc" 2>"$tmp/err"
same "a policy denying memfd_create gets EPERM for every form" "1 1 1" \
	"$(echo $(field 'd["stdout"]["text"]'))"
same "and each denial is counted" 3 \
	"$(field 'sum(x["count"] for x in d["denials"] if x["syscall"] == "memfd_create")')"

# The cost of one round trip through the supervisor, for the record.
cost='import os, time
n = 2000
t = time.perf_counter()
for _ in range(n):
    os.close(os.memfd_create("c", os.MFD_CLOEXEC))
print("%.1f" % ((time.perf_counter() - t) / n * 1e6))'
if [ "$sealed" = true ]; then
	inside=$("$HUTCH" run --json -- "$py" -c "$cost" | json_get 'd["stdout"]["text"].strip()')
	outside=$("$py" -c "$cost")
	diag "memfd_create + close: ${inside} us in a jail (supervisor round trip), ${outside} us outside"
fi
tap_done
