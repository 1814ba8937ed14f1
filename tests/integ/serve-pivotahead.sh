#!/bin/sh
# serve-pivotahead.sh: `hutch serve --pool N` with the whole root built
# ahead (hutch-exec(8), FORKSERVER, "The template"): a request that adds
# no mounts of its own, the 8th such in a row or later, gets a whole
# template, and a pooled jail built
# from it did every mount, the root read-only, pivot_root and the
# Landlock rules before the request came. A pooled run of such a request
# shows pivot_root_us, root_us and every mount step 0 (an unpooled run of
# the same server kind, the control, shows them spent), and sees what an
# unpooled run sees: its files, /etc, /dev, the mount table, its user
# counts, limits, credentials and filter mode, and the same
# Landlock refusals (a write to /proc/self/comm, a TCP bind and connect
# under network "none"), which a policy without Landlock, the control,
# does not refuse. A request with its own input file and bind right after
# runs and sees them, in a jail of the prefix alone (pivot_root on its
# path). Requests with and without mounts of their own in turn all take
# pooled jails of the prefix: the pool is not rebuilt at each change.
# Nothing a pooled run writes is seen by the next. pid 1 of a jail
# built from a whole template, driven through the forkserver directly,
# runs the template's own spec and refuses (helper_exec, the pool's
# prefix, EINVAL, exit 71) a job that differs in one mount's bytes, in a
# Landlock flag, or that adds a mount of its own; a job carrying the
# template's marker is refused as a bad spec, pooled or not; a job
# handed to a jail still being built gets pid 1's record when the build
# fails. A root server pools nothing and builds every root on the run's
# path.
. "$(dirname "$0")/lib.sh"

tap_tmpdir serve-pivotahead

tap_serve_setup "hutch serve --pool, the whole root built ahead"

# The control for the Landlock refusals: the default policy without it.
printf '{"version": 1, "extends": "default", "landlock": "off"}\n' >"$tmp/ll-off.json"
chmod 644 "$tmp/ll-off.json"
export LL_OFF="$tmp/ll-off.json"

cat >"$tmp/cases.py" <<'EOF'
# cases.py: one test case per invocation (argv[1]), run by tapcase.main;
# every wait is bounded.
import errno
import functools
import hashlib
import os
import shutil
import struct

from fswire import (EINVAL, STAGE_HELPER_EXEC, forkserver, fs_job, holds_one_jail, sealed,
                    shape_of, spec_bytes)
from tapcase import (Fail, T, diag, expect, fresh_after_dirty, host_dir, main, own_run,
                     pool_server, pooled, run, stop, took_pool, wait_until)

# What a jail shows of its filesystem: files, /etc, /dev, the mounts.
VIEW = ("cat /etc/passwd /etc/group /etc/hosts; ls -A /; "
        "ls -lan --time-style=+ /etc /dev /tmp /work; cut -d' ' -f 4- /proc/self/mountinfo")
# What Landlock refuses there (each errno printed): a write outside
# /tmp and /work (procfs is granted read only), a TCP bind and connect
# (network "none"); and a write in /tmp and /work, which it grants.
PROBE = r"""
import errno, socket
def t(f):
    try:
        f()
        return "ok"
    except OSError as e:
        return errno.errorcode[e.errno]
def w(p):
    with open(p, "w") as f:
        f.write("x")
print("comm", t(lambda: w("/proc/self/comm")))
print("tmp", t(lambda: w("/tmp/probe")), "work", t(lambda: w("/work/probe")))
print("bind", t(lambda: socket.socket().bind(("0.0.0.0", 8080))))
print("connect", t(lambda: socket.socket().connect(("127.0.0.1", 9))))
"""
# What the run's own steps set, done at its job in a jail built whole:
# the user counts, the limits, the credentials, no_new_privs, the filter.
OWN = ("; grep . /proc/sys/user/*; cat /proc/self/limits; "
       "grep -E '^(Uid|Gid|Groups|Cap|NoNewPrivs|Seccomp)' /proc/self/status")
LOOK = VIEW + OWN + "; python3 -c '%s'" % PROBE.replace("'", "\"")
REFUSED = "comm EACCES\ntmp ok work ok\nbind EACCES\nconnect EACCES\n"
NONE = dict(network="none")


MOUNT_STEPS = ("binds_dir_us", "binds_file_us", "root_us", "tmpfs_us", "proc_us", "devpts_us",
               "files_us", "pivot_root_us")


def whole_ahead(r):
    """Its root was built whole before it came: no mount, no read-only
    root and no pivot_root on its path."""
    t = r["jail"]["timings"]
    return all(t[k] == 0 for k in MOUNT_STEPS)


def pivoted(r):
    """pivot_root on its path (root_us may round to 0 where the prefix
    was built ahead)."""
    return r["jail"]["timings"]["pivot_root_us"] > 0


def stopped(c):
    c.close()
    stop(c.proc)


WHOLE_AFTER = 8  # frontend/run/forkserver.h FS_WHOLE_AFTER


def go_whole(c, **kw):
    """WHOLE_AFTER runs in a row with no mount of their own: from the
    last of them on, such a request's template is whole."""
    for _ in range(WHOLE_AFTER):
        run(c, ["/bin/true"], **kw)


# The counts the frontend sizes from what the caller uses at the time
# (hutch(1), "Per-user counts"): a pool's waiting jails use some.
SIZED = ("max_inotify_instances:", "max_inotify_watches:", "Max pending signals",
         "Max msgqueue size")


def fixed(view):
    """view without the sized counts' values (each still there, capped
    below the kernel's default)."""
    out = []
    for line in view.splitlines():
        for k in SIZED:
            if k in line:
                v = int(line.split(":")[-1] if ":" in line else line.split()[3])
                expect(0 <= v < 100000, "%r: not the frontend's cap" % line)
                line = k
        out.append(line)
    return out


def case_whole_ahead():
    c = pool_server("--pool", "0")  # the control: every step on the run's path
    try:
        r = run(c, ["/bin/sh", "-c", LOOK], **NONE)
        expect(not took_pool(r) and pivoted(r), "--pool 0: %s" % r["jail"]["timings"])
        diag("--pool 0 timings: %s" % r["jail"]["timings"])
        first = r["stdout"]["text"]
        expect("root:x:0:0" in first and " /proc " in first and "urandom" in first and
               "max_user_namespaces:0" in first and "NoNewPrivs:\t1" in first and
               "CapEff:\t0000000000000000" in first, "the view read nothing: %r" % first)
        expect(first.endswith(REFUSED), "unpooled, Landlock refused: %r" % first[-200:])
    finally:
        stopped(c)
    c = pool_server("--pool", "0", "--policy", os.environ["LL_OFF"])
    try:
        got = run(c, ["/bin/sh", "-c", LOOK], **NONE)["stdout"]["text"]
        expect(got.endswith("comm ok\ntmp ok work ok\nbind ok\nconnect ENETUNREACH\n"),
               "without Landlock: %r" % got[-200:])
    finally:
        stopped(c)
    c = pool_server("--pool", "2")
    try:
        go_whole(c, **NONE)
        for i in range(3):
            expect(pooled(c, 2), "the pool never held 2 jails")
            r = run(c, ["/bin/sh", "-c", LOOK], **NONE)
            t = r["jail"]["timings"]
            expect(took_pool(r), "run %d not pooled: %s" % (i, t))
            expect(whole_ahead(r), "run %d built its root on its path: %s" % (i, t))
            got = r["stdout"]["text"]
            diff = [(a, b) for a, b in zip(first.splitlines(), got.splitlines()) if a != b]
            expect(fixed(got) == fixed(first), "pooled differs from unpooled: %s" % diff[:5])
        diag("pooled timings: %s" % t)
    finally:
        stopped(c)


def case_own_after_whole():
    """A request with its own file and bind right after pooled whole
    runs: it runs and sees them, its root pivoted on its path; the next
    one takes a jail of its prefix; a whole one after runs again."""
    d = host_dir("/var/tmp")
    try:
        c = pool_server("--pool", "1")
        try:
            go_whole(c)
            expect(pooled(c, 1), "the pool never held its jail")
            r = run(c, ["/bin/true"])
            expect(took_pool(r) and whole_ahead(r), "not whole: %s" % r["jail"]["timings"])
            for _ in range(2):
                expect(pooled(c, 1), "the pool never held its jail")
                r = own_run(c, d)
                expect(pivoted(r), "its own mounts, no pivot_root: %s" % r["jail"]["timings"])
            expect(took_pool(r), "its prefix never pooled: %s" % r["jail"]["timings"])
            r = run(c, ["/bin/sh", "-c", "cat /etc/passwd"])
            expect("root:x:0:0" in r["stdout"]["text"], "after: %r" % r["stdout"]["text"])
        finally:
            stopped(c)
    finally:
        shutil.rmtree(d)


def case_mixed():
    """Requests with and without mounts of their own, one after the
    other: every one takes a pooled jail of the prefix (a whole
    template only after WHOLE_AFTER in a row with none), so the pool is
    not rebuilt at each change; then WHOLE_AFTER without: whole."""
    d = host_dir("/var/tmp")
    try:
        c = pool_server("--pool", "1")
        try:
            run(c, ["/bin/true"])
            for i in range(3):
                for kind in ("none of its own", "its own"):
                    expect(pooled(c, 1), "the pool never held its jail")
                    r = run(c, ["/bin/true"]) if kind == "none of its own" else own_run(c, d)
                    t = r["jail"]["timings"]
                    expect(took_pool(r) and pivoted(r) and t["binds_file_us"] == 0,
                           "round %d, %s: not a pooled prefix jail: %s" % (i, kind, t))
            go_whole(c)
            expect(pooled(c, 1), "the pool never held its jail")
            r = run(c, ["/bin/true"])
            expect(took_pool(r) and whole_ahead(r), "not whole after %d in a row: %s" %
                   (WHOLE_AFTER, r["jail"]["timings"]))
        finally:
            stopped(c)
    finally:
        shutil.rmtree(d)


def case_fresh():
    c = pool_server("--pool", "1")
    look = "ls -A /tmp /work /dev/shm/; echo; cat /tmp/m /work/m 2>&1"
    try:
        go_whole(c)
        fresh_after_dirty(c, look, whole_ahead, "whole")
    finally:
        stopped(c)


def case_root_builds():
    c = pool_server("--pool", "2", as_root=True)
    try:
        for _ in range(3):
            r = run(c, ["/bin/sh", "-c", LOOK], **NONE)
            expect(not took_pool(r) and pivoted(r), "a root server: %s" % r["jail"]["timings"])
            expect(r["stdout"]["text"].endswith(REFUSED), "root, Landlock: %r" %
                   r["stdout"]["text"][-200:])
    finally:
        stopped(c)


SITE_POOL_PREFIX = 6  # shared/status.h
STAGE_MOUNT_TARGET = 14
STAGE_SPEC_DECODE, HUTCH_BAD_SPEC, EBADMSG = 3, 5, 74
FLAGS = 1 | 2 | 4 | 8 | 16 | 64 | 256  # pid net ipc uts cgroup landlock landlock-net
WHOLE, LANDLOCK_NET = 1 << 13, 1 << 8


def refused(status, rec, want):
    expect(os.WIFEXITED(status) and os.WEXITSTATUS(status) == 71 and len(rec) == 16,
           "status %d record %r" % (status, rec))
    _, code, stage, item, err = struct.unpack("<IHHIi", rec)
    expect((code, stage, item, err) == want,
           "record code %d stage %d item %d errno %d, want %s" % (code, stage, item, err, want))


def case_whole_fail_closed():
    """A whole template of the default layout with one /etc file; jobs
    of the same shape: one differing in that file's bytes, one with
    Landlock's network flag off, one adding its own file, each refused
    in the pooled jail (POOL_PREFIX); the control, the template's spec
    without the marker, runs there. A job with the marker: a bad spec."""
    tpl = spec_bytes("--flags", str(FLAGS | WHOLE), "--file", "/etc/motd", "template\n")
    same = spec_bytes("--flags", str(FLAGS), "--file", "/etc/motd", "template\n")
    other = spec_bytes("--flags", str(FLAGS), "--file", "/etc/motd", "tampered\n")
    no_llnet = spec_bytes("--flags", str(FLAGS & ~LANDLOCK_NET), "--file", "/etc/motd",
                          "template\n")
    own = spec_bytes("--flags", str(FLAGS), "--file", "/etc/motd", "template\n", "--file",
                     "/work/in", "x\n")
    marked = spec_bytes("--flags", str(FLAGS | WHOLE), "--file", "/etc/motd", "template\n")
    expect(len({shape_of(s) for s in (tpl, same, other, no_llnet, own, marked)}) == 1,
           "the specs differ in shape")
    expect(struct.unpack("<I", same[12:16])[0] | WHOLE == struct.unpack("<I", tpl[12:16])[0],
           "the template is not the job's flags and the marker")
    pid = hashlib.sha256(tpl).digest()
    ours, fs = forkserver()
    one_pooled = functools.partial(holds_one_jail, fs.pid)
    prefix = (1, STAGE_HELPER_EXEC, SITE_POOL_PREFIX, EINVAL)
    try:
        mfd = sealed(tpl)
        p, status, rec = fs_job(ours, same, shape_of(tpl), pid, mfd)
        os.close(mfd)
        expect(not p and status == 0, "the first job: %s %s %r" % (p, status, rec))
        for name, job, want in (("tampered", other, prefix), ("landlock-net", no_llnet, prefix),
                                ("own mount", own, prefix),
                                ("marked", marked, (HUTCH_BAD_SPEC, STAGE_SPEC_DECODE, 2,
                                                    EBADMSG))):
            expect(wait_until(one_pooled, 10), "the pool never held its jail (%s)" % name)
            p, status, rec = fs_job(ours, job, shape_of(tpl), pid)
            expect(p, "the %s job did not go to the pooled jail" % name)
            refused(status, rec, want)
        expect(wait_until(one_pooled, 10), "the pool never held its jail again")
        p, status, rec = fs_job(ours, same, shape_of(tpl), pid)
        expect(p and status == 0 and rec == b"", "the control: pooled %s status %d %r" %
               (p, status, rec))
        # not pooled (no template id): the one-shot helper refuses it too
        p, status, rec = fs_job(ours, marked, shape_of(tpl))
        expect(not p, "a job without a template id was pooled")
        refused(status, rec, (HUTCH_BAD_SPEC, STAGE_SPEC_DECODE, 2, EBADMSG))
    finally:
        ours.close()
        fs.wait(T)


def case_build_fails_after_take():
    """A job handed to a pooled jail whose pid 1 is still building its
    template gets pid 1's own record when that build fails (pool.c: pid
    1's status descriptor until its job is a pipe its outer process
    passes on). The template: the default layout, 190 tmpfs mounts (a
    build of some milliseconds) and last a tmpfs on a file. The first
    job, the default layout alone, runs unpooled and leaves the fill
    building; the second is sent at once and must get the record
    (mount_target, ENOTDIR), never a bare 71."""
    many = [a for i in range(190) for a in ("--tmpfs", "/t%d" % i, "65536")]
    tpl = spec_bytes("--flags", str(FLAGS), *many, "--file", "/f", "x\n", "--tmpfs", "/f/t",
                     "65536")
    first = spec_bytes("--flags", str(FLAGS))
    pid = hashlib.sha256(tpl).digest()
    for attempt in range(5):
        ours, fs = forkserver()
        try:
            mfd = sealed(tpl)
            p, status, rec = fs_job(ours, first, shape_of(tpl), pid, mfd)
            os.close(mfd)
            expect(not p and status == 0, "the first job: %s %s %r" % (p, status, rec))
            p, status, rec = fs_job(ours, tpl, shape_of(tpl), pid)
        finally:
            ours.close()
            fs.wait(T)
        if not p:
            diag("attempt %d: the build had ended before the job came" % attempt)
            continue
        expect(os.WIFEXITED(status) and os.WEXITSTATUS(status) == 71 and len(rec) == 16,
               "status %d record %r: pid 1's record lost" % (status, rec))
        _, code, stage, item, err = struct.unpack("<IHHIi", rec)
        expect((code, stage, err) == (1, STAGE_MOUNT_TARGET, errno.ENOTDIR),
               "record code %d stage %d item %d errno %d" % (code, stage, item, err))
        return
    raise Fail("the job never came while a jail was being built")


import sys  # noqa: E402

sys.exit(main(globals()))
EOF

check "a pooled run with no mounts of its own: root, pivot_root and mounts 0 us; the same view and Landlock refusals as unpooled (controls: unpooled, no Landlock)" \
	tc whole_ahead
check "a request with its own file and bind right after a whole one runs and sees them (pivot_root on its path)" \
	tc own_after_whole
check "nothing a pooled run writes in /tmp or the work dir is seen by the next" tc fresh
check "requests with and without mounts of their own in turn: each a pooled prefix jail, no rebuild; whole after 8 in a row" \
	tc mixed
if is_root; then
	check "a root server pools nothing: every run pivots on its path, Landlock refuses the same" \
		tc root_builds
else
	skip "a root server pools nothing: every run pivots on its path" "not root"
fi
if [ -x "${HUTCH_PROGS:-}/spec-send" ]; then
	check "a whole-built jail refuses a job differing in a mount, a Landlock flag or adding one (71); a marked job is a bad spec; control runs" \
		tc whole_fail_closed
else
	skip "a whole-built jail refuses a job that differs from its template" "no HUTCH_PROGS/spec-send"
fi
if [ -x "${HUTCH_PROGS:-}/spec-send" ]; then
	check "a job handed to a jail still being built gets pid 1's record when the build fails" \
		tc build_fails_after_take
else
	skip "a job handed to a jail still being built gets pid 1's record" "no HUTCH_PROGS/spec-send"
fi
tap_serve_done
