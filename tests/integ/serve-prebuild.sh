#!/bin/sh
# serve-prebuild.sh: `hutch serve --pool N` with the policy's mounts built
# ahead (hutch-exec(8), FORKSERVER, "The template"). A pooled run of the
# default policy takes a jail whose binds were made before it came
# (jail.timings binds_file_us and binds_dir_us 0; the first, unpooled
# run of the same server, the control, shows them built) and prints what
# an unpooled run prints (its files, /etc, /dev, the mount table); a run
# with its own input file and its own bind of a directory under /tmp (the
# path the new root is staged on: the job's sources are opened where the
# staged root covers nothing) in a pooled jail sees both; a request whose
# prefix differs (files collected: the work dir is sent back, so it is
# not built ahead) gets no jail of the old template (its binds built on
# its path), and the pool follows it; nothing one run writes in /tmp or
# the work dir is seen by the next pooled run; pid 1 of a pooled jail,
# given by a forkserver driven directly a template and then a job whose
# first mounts differ from it (one /etc file's bytes), refuses the job
# (helper_exec, the pool's prefix, EINVAL, exit 71) and runs the control
# (the template's own mounts); a job naming a template id the forkserver
# was never sent is not pooled. A root server pools nothing: as root the
# server (or forkserver) runs as nobody, and a root server's runs show
# their binds built.
. "$(dirname "$0")/lib.sh"

tap_tmpdir serve-prebuild

tap_serve_setup "hutch serve --pool, the policy's mounts built ahead"

cat >"$tmp/cases.py" <<'EOF'
# cases.py: one test case per invocation (argv[1]), run by tapcase.main;
# every wait is bounded.
import functools
import os
import shutil

from fswire import (EINVAL, STAGE_HELPER_EXEC, forkserver, fs_job, holds_one_jail, sealed,
                    shape_of, spec_bytes)
from tapcase import (T, diag, expect, fresh_after_dirty, host_dir, main, own_run, pool_server,
                     pooled, run, stop, took_pool, wait_until)

# What a jail shows of its filesystem: files, /etc, /dev, the mounts.
# (/proc's link count is the processes', dates are when it was built.)
VIEW = ("cat /etc/passwd /etc/group /etc/hosts; ls -A /; "
        "ls -lan --time-style=+ /etc /dev /tmp /work; cut -d' ' -f 4- /proc/self/mountinfo")


def prebuilt(r):
    """Its binds were made before it came: none timed on its path."""
    t = r["jail"]["timings"]
    return t["binds_file_us"] == 0 and t["binds_dir_us"] == 0


def built(r):
    t = r["jail"]["timings"]
    return t["binds_file_us"] > 0 and t["binds_dir_us"] > 0


def policy_prebuilt(r):
    """The policy's mounts were made before it came (its own binds may
    still be timed): its /etc files, /tmp and the work dir, /proc."""
    t = r["jail"]["timings"]
    return t["binds_file_us"] == 0 and t["tmpfs_us"] == 0 and t["proc_us"] == 0


def case_prefix_ahead():
    c = pool_server("--pool", "0")  # the control: every mount on the run's path
    try:
        r = run(c, ["/bin/sh", "-c", VIEW])
        expect(not took_pool(r) and built(r), "--pool 0: %s" % r["jail"]["timings"])
        diag("--pool 0 timings: %s" % r["jail"]["timings"])
        first = r["stdout"]["text"]
        expect("root:x:0:0" in first and " /proc " in first and "urandom" in first,
               "the view read nothing: %r" % first[:300])
    finally:
        c.close()
        stop(c.proc)
    c = pool_server("--pool", "2")
    try:
        run(c, ["/bin/true"])
        for i in range(3):
            expect(pooled(c, 2), "the pool never held 2 jails")
            r = run(c, ["/bin/sh", "-c", VIEW])
            t = r["jail"]["timings"]
            expect(took_pool(r), "run %d not pooled: %s" % (i, t))
            expect(prebuilt(r), "run %d built binds on its path: %s" % (i, t))
            got = r["stdout"]["text"]
            diff = [(a, b) for a, b in zip(first.splitlines(), got.splitlines()) if a != b]
            expect(got == first, "pooled differs from unpooled: %s" % diff[:5])
        diag("pooled timings: %s" % t)
    finally:
        c.close()
        stop(c.proc)


def case_own_parts():
    """Its input file and its own bind of a host directory (by
    descriptor; pid 1 opens its path, bind-fd.c). Under /var/tmp: in a
    jail with the prefix built ahead. Under /tmp, where the new root is
    staged: a jail of its own shape without a template (its binds built
    on its path), which sees the host's directory, not its own root."""
    ds = [host_dir("/var/tmp"), host_dir("/tmp")]
    try:
        c = pool_server("--pool", "1")
        try:
            # its own template: one of no mounts of its own is whole
            # (serve-pivotahead.sh), and would send this one's first
            # run unpooled
            own_run(c, ds[0])
            for _ in range(2):
                expect(pooled(c, 1), "the pool never held its jail")
                r = own_run(c, ds[0])
                expect(took_pool(r) and policy_prebuilt(r),
                       "not prebuilt: %s" % r["jail"]["timings"])
            for _ in range(2):
                r = own_run(c, ds[1])
                expect(not policy_prebuilt(r), "under /tmp, prebuilt: %s" % r["jail"]["timings"])
                expect(pooled(c, 1), "the pool never held its jail")
            expect(took_pool(r), "under /tmp, never pooled: %s" % r["jail"]["timings"])
        finally:
            c.close()
            stop(c.proc)
    finally:
        for d in ds:
            shutil.rmtree(d)


def case_other_template():
    c = pool_server("--pool", "2")
    collect = dict(collect=["out.txt"])
    try:
        run(c, ["/bin/true"])
        expect(pooled(c, 2), "the pool never held 2 jails")
        expect(prebuilt(run(c, ["/bin/true"])), "the default template was not used")
        expect(pooled(c, 2), "the pool never refilled")
        # another prefix: its work dir is sent back, so not built ahead
        r = run(c, ["/bin/sh", "-c", "echo x >out.txt"], **collect)
        expect(not took_pool(r) and built(r),
               "a jail of the old template was used: %s" % r["jail"]["timings"])
        expect([f["name"] for f in r["files"]] == ["out.txt"], "files %s" % r["files"])
        expect(pooled(c, 2), "the pool never refilled with the new template")
        r = run(c, ["/bin/sh", "-c", "echo y >out.txt"], **collect)
        expect(took_pool(r) and prebuilt(r), "the new template: %s" % r["jail"]["timings"])
        expect([f["name"] for f in r["files"]] == ["out.txt"], "files %s" % r["files"])
        expect(pooled(c, 2), "the pool never refilled")
        r = run(c, ["/bin/true"])
        expect(not took_pool(r) and built(r),
               "the old template took a jail of the new: %s" % r["jail"]["timings"])
    finally:
        c.close()
        stop(c.proc)


def case_fresh():
    c = pool_server("--pool", "1")
    look = "ls -A /tmp /work; echo; cat /tmp/m /work/m 2>&1"
    try:
        fresh_after_dirty(c, look, prebuilt, "prebuilt")
    finally:
        c.close()
        stop(c.proc)


def case_root_builds():
    c = pool_server("--pool", "2", as_root=True)
    try:
        for _ in range(3):
            r = run(c, ["/bin/true"])
            expect(not took_pool(r) and built(r), "a root server: %s" % r["jail"]["timings"])
    finally:
        c.close()
        stop(c.proc)


SITE_POOL_PREFIX = 6  # shared/status.h


def case_prefix_fail_closed():
    """A template of one /etc file's bytes, a job of another's (the same
    shape, the same mounts but that file's data): refused in the pooled
    jail with helper_exec item 6, EINVAL; the control, the template's
    own mounts with another argv, runs pooled."""
    import hashlib
    import struct
    flags = ("--flags", "pid,net,ipc,uts,cgroup")
    tpl = spec_bytes(*flags, "--file", "/etc/motd", "template\n")
    same = spec_bytes(*flags, "--file", "/etc/motd", "template\n", "--file", "/work/in", "x\n")
    other = spec_bytes(*flags, "--file", "/etc/motd", "tampered\n")
    expect(shape_of(tpl) == shape_of(other) == shape_of(same), "the specs differ in shape")
    pid = hashlib.sha256(tpl).digest()
    ours, fs = forkserver()

    one_pooled = functools.partial(holds_one_jail, fs.pid)
    try:
        # an id never sent with its template: not pooled, and no fill
        p, status, rec = fs_job(ours, tpl, shape_of(tpl), b"\x01" * 32)
        expect(not p and status == 0 and rec == b"", "unknown id: %s %s %r" % (p, status, rec))
        expect(not wait_until(one_pooled, 1), "a jail was built for an unknown template")
        mfd = sealed(tpl)
        p, status, rec = fs_job(ours, tpl, shape_of(tpl), pid, mfd)
        os.close(mfd)
        expect(not p and status == 0, "the first job: %s %s %r" % (p, status, rec))
        expect(wait_until(one_pooled, 10), "the pool never held its jail")
        p, status, rec = fs_job(ours, other, shape_of(tpl), pid)
        expect(p, "the tampered job did not go to the pooled jail")
        expect(os.WIFEXITED(status) and os.WEXITSTATUS(status) == 71 and len(rec) == 16,
               "status %d record %r" % (status, rec))
        _, code, stage, item, err = struct.unpack("<IHHIi", rec)
        expect((stage, item, err) == (STAGE_HELPER_EXEC, SITE_POOL_PREFIX, EINVAL),
               "record stage %d item %d errno %d" % (stage, item, err))
        expect(wait_until(one_pooled, 10), "the pool never held its jail again")
        p, status, rec = fs_job(ours, same, shape_of(tpl), pid)
        expect(p and status == 0 and rec == b"", "the control: pooled %s status %d %r" %
               (p, status, rec))
    finally:
        ours.close()
        fs.wait(T)


def case_template_resent():
    """The template the forkserver keeps sent again with a job (a
    frontend whose last template it did not keep sends it once more):
    the job goes to the jail built from it, and runs. The memfd is the
    forkserver's to keep, never part of the job's message to pid 1."""
    import hashlib
    flags = ("--flags", "pid,net,ipc,uts,cgroup")
    tpl = spec_bytes(*flags, "--file", "/etc/motd", "template\n")
    pid = hashlib.sha256(tpl).digest()
    ours, fs = forkserver()

    one_pooled = functools.partial(holds_one_jail, fs.pid)
    try:
        mfd = sealed(tpl)
        p, status, rec = fs_job(ours, tpl, shape_of(tpl), pid, mfd)
        expect(not p and status == 0, "the first job: %s %s %r" % (p, status, rec))
        expect(wait_until(one_pooled, 10), "the pool never held its jail")
        p, status, rec = fs_job(ours, tpl, shape_of(tpl), pid, mfd)
        os.close(mfd)
        expect(p and status == 0 and rec == b"", "the job with its template again: pooled %s "
               "status %d record %r" % (p, status, rec))
    finally:
        ours.close()
        fs.wait(T)


import sys  # noqa: E402

sys.exit(main(globals()))
EOF

check "a pooled run of the default policy: binds built ahead (0 us), the same view as unpooled" \
	tc prefix_ahead
check "a pooled run's own input file and its bind of a directory under /tmp are there" tc own_parts
check "another template (files collected): no jail of the old one; the pool follows" \
	tc other_template
check "nothing a pooled run writes in /tmp or the work dir is seen by the next" tc fresh
if is_root; then
	check "a root server pools nothing: every run builds its binds" tc root_builds
else
	skip "a root server pools nothing: every run builds its binds" "not root"
fi
if [ -x "${HUTCH_PROGS:-}/spec-send" ]; then
	check "pid 1 refuses a job whose first mounts are not its template's (helper_exec, 71); control runs" \
		tc prefix_fail_closed
	check "a job that brings the kept template again runs in the jail built from it" \
		tc template_resent
else
	skip "pid 1 refuses a job whose first mounts are not its template's" "no HUTCH_PROGS/spec-send"
	skip "a job that brings the kept template again runs in the jail built from it" \
		"no HUTCH_PROGS/spec-send"
fi
tap_serve_done
