#!/bin/sh
# serve-pool.sh: `hutch serve --pool N` (hutch-exec(8), FORKSERVER, "Pooled
# jails") against a real server. Runs of the pooled shape take a jail
# built ahead (jail.timings: clone_us and id_maps_us 0; with --pool 0,
# the control, never), also back to back at 1 in flight with no idle gap
# and beside a running job while a processor is free (the refill comes
# right after a take; on one processor, the control, it waits); nothing a run leaves (files in /tmp, /dev/shm and
# the working directory, a background process, its environment, its
# limits) is seen by the next pooled run, which sees what a first run
# sees; a pooled run's process is an unpooled one's (status, limits,
# descriptors, umask, cwd, environment, mounts); a request of another shape (network host under the network
# policy) gets a jail cloned for it, and the pool follows the new shape;
# runs of network "none" never get a jail whose lo is up (lo is brought
# up ahead only for a shape that has it), and the steps done ahead show
# 0 in a pooled run's timings, not in a fresh one's;
# the pool holds exactly N jails when idle, never more, and none after
# the idle time; SIGTERM of the server leaves no pooled process behind;
# a running jail cannot reach a waiting pooled one by pid (kill, ptrace,
# pidfd_open, /proc); a job never goes to a pooled jail whose pid 1
# died before it, but runs in another, and one whose outer process or
# pid 1 was killed just before a job runs it elsewhere, fails it with a
# record or dies of SIGKILL with it, never "exited" without having run; a
# root server pools nothing; --pool over 64 or over --max-total is refused in one line;
# pid 1 of a pooled jail, given a spec of another shape than it was
# cloned with by a forkserver driven directly (other namespaces, lo up
# or not, another hostname), refuses it with a helper_exec record and
# exit 71, and runs the control. A root server pools nothing, so as root the pooled cases run their server
# (or forkserver) as nobody.
. "$(dirname "$0")/lib.sh"

tap_tmpdir serve-pool

tap_serve_setup "hutch serve --pool"

cat >"$tmp/cases.py" <<'EOF'
# cases.py: one test case per invocation (argv[1]), run by tapcase.main;
# every wait is bounded.
import functools
import os
import signal
import socket
import subprocess
import time

from fswire import EINVAL, STAGE_HELPER_EXEC, fs_job, holds_one_jail, shape_of, spec_bytes
from fswire import forkserver as direct_forkserver
from tapcase import (HUTCH, LOG, T, HutchClient, children, diag, expect, main, pool_server,
                     stop, wait_until)

IDLE_S = 10  # HUTCH_FS_POOL_IDLE_MS
# What a jail shows of what runs may leave behind (the processes counted
# by a glob, which starts none of its own to be counted or not).
STATE = ("ls -A /tmp /dev/shm .; echo env=${POOLMARK-unset}; ulimit -n; ulimit -s; "
         "set -- /proc/[0-9]*; echo $#; umask")


def ppids():
    """pid -> ppid of every process."""
    out = {}
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                with open("/proc/%s/stat" % d) as f:
                    out[int(d)] = int(f.read().rsplit(")", 1)[1].split()[1])
            except OSError:
                pass
    return out


def descendants(pid):
    pp = ppids()
    found, todo = [], [pid]
    while todo:
        p = todo.pop()
        kids = [c for c, q in pp.items() if q == p]
        found += kids
        todo += kids
    return found


def forkserver(c):
    kids = wait_until(lambda: children(c.proc.pid), 10)
    expect(len(kids) == 1, "the server's children: %s" % kids)
    return kids[0]


def pooled(c, n):
    """Wait until the forkserver holds n pooled jails and nothing else
    (each an outer process with its pid 1); true when it does."""
    fs = forkserver(c)

    def full():
        kids = children(fs)
        return len(kids) == n and all(len(children(k)) == 1 for k in kids)
    return wait_until(full, 10)


def run(c, argv, **req):
    r = c.run(dict({"version": 1, "argv": argv}, **req))
    expect(r.get("status") == "exited", "run %s: %s" % (argv, r))
    return r


def took_pool(r):
    t = r["jail"]["timings"]
    return t["clone_us"] == 0 and t["id_maps_us"] == 0


def case_pooled():
    c = pool_server("--pool", "2")
    try:
        run(c, ["/bin/true"])
        for i in range(5):
            expect(pooled(c, 2), "the pool never held 2 jails")
            r = run(c, ["/bin/sh", "-c", "echo run%d" % i])
            expect(r["stdout"]["text"] == "run%d\n" % i, "stdout %r" % r["stdout"])
            expect(took_pool(r), "run %d not pooled: %s" % (i, r["jail"]["timings"]))
    finally:
        c.close()
        stop(c.proc)


def beside_a_job(cpus, n=8):
    """A server with --pool 1 on cpus: a first run (the shape), then a
    run that sleeps and takes the pooled jail, and beside it n runs
    back to back, no gap: how many of those took a pooled jail, and how
    many of those came after a run that took under 40 ms (so that the
    forkserver never had the 50 ms of quiet that refill on their own)."""
    c = pool_server("--pool", "1", cpus=cpus)
    try:
        run(c, ["/bin/true"])
        expect(pooled(c, 1), "the pool never held its jail")
        long = c.start({"version": 1, "argv": ["/bin/sleep", "30"]})
        got = brisk = 0
        slow_before = False
        for _ in range(n):
            t0 = time.monotonic()
            hit = took_pool(run(c, ["/bin/true"]))
            got += hit
            brisk += hit and not slow_before
            slow_before = time.monotonic() - t0 >= 0.04
        c.cancel(long)
        return got, brisk
    finally:
        c.close()
        stop(c.proc)


def case_refill_back_to_back():
    """Runs back to back at one in flight, no idle gap between them: each
    takes a pooled jail, refilled while it runs (hutch-exec(8),
    FORKSERVER: a fill while fewer jobs run than the forkserver's
    processors)."""
    c = pool_server("--pool", "1")
    try:
        run(c, ["/bin/true"])
        expect(pooled(c, 1), "the pool never held its jail")
        got = [took_pool(run(c, ["/bin/true"])) for _ in range(20)]
        expect(sum(got) >= 18, "back to back, pooled: %s" % got)
    finally:
        c.close()
        stop(c.proc)


def case_refill_beside_job():
    """With a processor free beside a running job (a sleep holding one
    job slot, 2 processors), runs back to back take pooled jails: the
    forkserver refills as soon as fewer jobs run than it has processors,
    not only when none runs or requests were quiet for 50 ms (a few may
    miss on a loaded machine: a request that came before the refill's
    turn). The control: the same server on one processor, where the
    sleep alone makes it busy, refills only after 50 ms of quiet, so the
    runs back to back mostly clone their jails."""
    cpus = sorted(os.sched_getaffinity(0))
    n = 8
    if len(cpus) >= 2:
        got, _ = beside_a_job(cpus[:2], n)
        diag("two processors: %d of %d pooled" % (got, n))
        expect(got >= n - 2, "beside a job, with a free processor: %d of %d pooled" % (got, n))
    else:
        diag("one processor: the free-processor half cannot run here")
    # On a loaded machine a run may take 50 ms, and the quiet rule then
    # refills before the next: only pooled runs after a brisk one count.
    got, brisk = beside_a_job(cpus[:1], n)
    diag("one processor: %d of %d pooled, %d of them after a run under 40 ms" % (got, n, brisk))
    expect(brisk <= n // 2, "beside a job, on one processor: %d of %d pooled after brisk runs"
           % (brisk, n))


def case_unpooled_control():
    c = pool_server("--pool", "0")
    try:
        for i in range(3):
            r = run(c, ["/bin/true"])
            expect(not took_pool(r), "--pool 0, yet clone_us 0: %s" % r["jail"]["timings"])
            time.sleep(0.1)
        expect(children(forkserver(c)) == [], "--pool 0 keeps jails")
    finally:
        c.close()
        stop(c.proc)


def case_fresh():
    c = pool_server("--pool", "1")
    try:
        first = run(c, ["/bin/sh", "-c", STATE])["stdout"]["text"]
        dirty = ("echo x >/tmp/pm; echo x >/dev/shm/pm; echo x >./pm; mkdir /tmp/pd; "
                 "export POOLMARK=1; ulimit -n 20; ulimit -s 1000; umask 077; "
                 "sleep 300.25 & sh -c 'sleep 300.5' & sleep 0.1; " + STATE +
                 "; cat /proc/[0-9]*/cmdline | tr '\\0' ' ' | grep -o 'sleep 300[.0-9]*' "
                 "| sort -u | tr '\\n' ,")
        expect(pooled(c, 1), "the pool never held its jail")
        r = run(c, ["/bin/sh", "-c", dirty])
        seen = r["stdout"]["text"]
        # Control: the dirty run itself sees all it left.
        for mark in ("pm", "pd", "env=1", "\n20\n", "\n1000\n", "0077",
                     "sleep 300.25,sleep 300.5,"):
            expect(mark in seen, "the dirty run does not see %r: %r" % (mark, seen))
        expect(took_pool(r), "the dirty run was not pooled")
        expect(not wait_until(lambda: [p for p in ppids() if marked(p)], 5),
               "a background process of the dirty run outlived it")
        for i in range(3):
            expect(pooled(c, 1), "the pool never held its jail")
            r = run(c, ["/bin/sh", "-c", STATE])
            expect(took_pool(r), "the next run was not pooled")
            expect(r["stdout"]["text"] == first,
                   "the next run sees %r, a first run %r" % (r["stdout"]["text"], first))
    finally:
        c.close()
        stop(c.proc)


def marked(pid):
    try:
        with open("/proc/%d/cmdline" % pid, "rb") as f:
            cmd = f.read()
        return b"300.25" in cmd or b"300.5" in cmd
    except OSError:
        return False


def case_shape():
    c = pool_server("--pool", "2", "--policy", "network")
    try:
        run(c, ["/bin/true"], network="loopback")
        expect(pooled(c, 2), "the pool never filled")
        expect(took_pool(run(c, ["/bin/true"], network="loopback")), "loopback not pooled")
        expect(pooled(c, 2), "the pool never refilled")
        r = run(c, ["/bin/sh", "-c", "echo host"], network="host")
        expect(not took_pool(r), "another shape took a pooled jail: %s" % r["jail"]["timings"])
        expect(r["stdout"]["text"] == "host\n", "stdout %r" % r["stdout"])
        expect(pooled(c, 2), "the pool never refilled with the new shape")
        expect(took_pool(run(c, ["/bin/true"], network="host")), "host not pooled after")
        expect(pooled(c, 2), "the pool never refilled")
        expect(not took_pool(run(c, ["/bin/true"], network="loopback")),
               "the old shape took a jail of the new one")
    finally:
        c.close()
        stop(c.proc)


def case_bound_idle():
    c = pool_server("--pool", "3")
    try:
        ids = [c.start({"version": 1, "argv": ["/bin/sleep", "0.2"]}) for _ in range(6)]
        fs = forkserver(c)
        most = 0
        while ids:
            # At most 6 runs and 3 pooled jails, each two processes.
            most = max(most, len(descendants(fs)))
            try:
                c.result(ids[0])
                ids.pop(0)
            except socket.timeout:
                raise
        expect(most <= 2 * (6 + 3) + 6, "the forkserver held %d processes" % most)
        expect(pooled(c, 3), "the pool never held 3 jails")
        time.sleep(1)
        expect(len(children(fs)) == 3, "the pool grew past 3: %s" % children(fs))
        expect(wait_until(lambda: not children(fs), IDLE_S + 5),
               "the pool outlived %d s idle: %s" % (IDLE_S, children(fs)))
        expect(not took_pool(run(c, ["/bin/true"])), "a jail after the idle time was pooled")
    finally:
        c.close()
        stop(c.proc)


def case_sigterm():
    c = pool_server("--pool", "4")
    try:
        run(c, ["/bin/true"])
        expect(pooled(c, 4), "the pool never held 4 jails")
        tree = descendants(c.proc.pid)
        expect(len(tree) == 1 + 2 * 4, "the server's tree: %s" % tree)
    finally:
        expect(stop(c.proc, signal.SIGTERM) == 0, "serve exit %s" % c.proc.returncode)
        c.close()
    left = wait_until(lambda: not [p for p in tree if os.path.exists("/proc/%d" % p)], 5)
    expect(left, "left behind: %s" % [p for p in tree if os.path.exists("/proc/%d" % p)])


def case_root_none():
    if os.geteuid() != 0:
        return
    ours, theirs = socket.socketpair()
    with open(LOG, "ab") as log:
        proc = subprocess.Popen([HUTCH, "serve", "--pool", "4", "--fd", str(theirs.fileno())],
                                pass_fds=(theirs.fileno(),), stdout=log, stderr=log)
    theirs.close()
    ours.settimeout(T)
    c = HutchClient(ours, proc)
    try:
        for _ in range(3):
            r = run(c, ["/bin/true"])
            expect(not took_pool(r), "a root server's run was pooled")
            time.sleep(0.1)
        expect(children(forkserver(c)) == [], "a root server keeps jails")
    finally:
        c.close()
        stop(proc)


def case_refused():
    for opts, want in ((["--pool", "65"], "hutch serve: --pool: not a number from 0 to 64\n"),
                       (["--pool", "x"], "hutch serve: --pool: not a number from 0 to 64\n"),
                       (["--pool", "5", "--max-total", "4"],
                        "hutch serve: --pool: more than --max-total\n")):
        p = subprocess.run([HUTCH, "serve", *opts, "--socket", "/nonexistent/s"],
                           capture_output=True,
                           timeout=T)
        expect(p.returncode == 125 and p.stderr.decode() == want,
               "%s: exit %d, %r" % (opts, p.returncode, p.stderr))


SITE_POOL_SHAPE = 3  # shared/status.h


spec_for = {}  # shape -> an honest spec of it


def case_shape_fail_closed():
    """pid 1 of a pooled jail checks the spec against the shape it was
    cloned with: a job claiming the pool's shape with a spec of another
    (no network namespace) is refused, helper_exec item 3 (the pool's
    shape) EINVAL, exit 71; the honest job, the control, runs in one."""
    import struct
    global lo, nolo
    good = spec_bytes("--flags", "pid,net,ipc,uts,cgroup")
    other = spec_bytes("--flags", "pid,ipc,uts,cgroup")
    expect(shape_of(good) != shape_of(other), "the two specs have one shape")
    # lo in the shape: a jail with lo up (made ahead) never runs a spec
    # without it, nor one without lo a spec that wants it
    lo = spec_bytes("--flags", "pid,net,ipc,uts,cgroup,loopback")
    nolo = good
    named = spec_bytes("--flags", "pid,net,ipc,uts,cgroup", "--hostname", "other")
    expect(shape_of(lo) != shape_of(nolo) and shape_of(named) != shape_of(nolo),
           "lo or the hostname is not in the shape")
    spec_for.update({shape_of(lo): lo, shape_of(nolo): nolo, shape_of(named): named})
    ours, fs = direct_forkserver()  # the socket as fd 3, as serve starts it
    try:
        pooled, status, rec = fs_job(ours, good, shape_of(good))
        expect(not pooled and status == 0 and rec == b"", "the first job: %s %s %r" %
               (pooled, status, rec))

        one_pooled = functools.partial(holds_one_jail, fs.pid)
        expect(wait_until(one_pooled, 10), "the pool never held its jail")
        pooled, status, rec = fs_job(ours, other, shape_of(good))
        expect(pooled, "the lying job did not go to the pooled jail")
        expect(os.WIFEXITED(status) and os.WEXITSTATUS(status) == 71, "status %d" % status)
        expect(len(rec) == 16, "no status record: %r" % rec)
        _, code, stage, item, err = struct.unpack("<IHHIi", rec)
        expect((stage, item, err) == (STAGE_HELPER_EXEC, SITE_POOL_SHAPE, EINVAL),
               "record stage %d item %d errno %d" % (stage, item, err))
        expect(wait_until(one_pooled, 10), "the pool never held its jail again")
        pooled, status, rec = fs_job(ours, good, shape_of(good))
        expect(pooled and status == 0 and rec == b"", "the control: pooled %s status %d %r" %
               (pooled, status, rec))
        refused(ours, shape_of(lo), nolo, one_pooled)
        refused(ours, shape_of(good), lo, one_pooled)
        refused(ours, shape_of(named), good, one_pooled)
    finally:
        ours.close()
        fs.wait(T)


def refused(sock, shape, spec, one_pooled):
    """A job claiming shape with a spec of another goes to a pooled jail
    of that shape (after a first job of it, which fills the pool) and is
    refused there: helper_exec item 3, EINVAL, exit 71."""
    import struct
    fs_job(sock, spec_for[shape], shape)
    expect(wait_until(one_pooled, 10), "the pool never held a jail of %s" % (shape,))
    pooled, status, rec = fs_job(sock, spec, shape)
    expect(pooled and os.WIFEXITED(status) and os.WEXITSTATUS(status) == 71 and len(rec) == 16,
           "shape %s, spec %s: pooled %s status %d %r" % (shape, shape_of(spec), pooled,
                                                          status, rec))
    _, code, stage, item, err = struct.unpack("<IHHIi", rec)
    expect((stage, item, err) == (STAGE_HELPER_EXEC, SITE_POOL_SHAPE, EINVAL),
           "record stage %d item %d errno %d" % (stage, item, err))


# lo of the jail seen from inside: its flags (SIOCGIFFLAGS), its local
# routes, a connect to 127.0.0.1 (refused with lo up; network "none"
# also denies the connect itself, so the flags and routes decide).
LO_STATE = r"""
import errno, fcntl, socket, struct
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
fl = struct.unpack("16sH", fcntl.ioctl(s, 0x8913, struct.pack("16sH", b"lo", 0)))[1]
c = socket.socket()
try:
    c.connect(("127.0.0.1", 1))
    r = "connected"
except OSError as e:
    r = errno.errorcode.get(e.errno, "E?")
print("up" if fl & 1 else "down", "127.0.0.1" in open("/proc/net/fib_trie").read(), r)
"""


def lo_state(c, network):
    r = run(c, ["/usr/bin/python3", "-c", LO_STATE], network=network)
    return took_pool(r), r["stdout"]["text"].split()


def case_net_none():
    """A pooled jail brings lo up ahead only when its shape says so (lo in
    the shape): runs of network "none" through the pool, after a pool
    of the policy's default (loopback) and with a pool of their own,
    find lo down, no 127.0.0.1 route, and the connect fails; the
    control: pooled runs of network "loopback" find it up and the
    connect refused by nobody listening."""
    c = pool_server("--pool", "2")
    took = set()
    try:
        run(c, ["/bin/true"])  # the shape: the policy's default, loopback
        for network, want in (("loopback", "up True ECONNREFUSED"),
                              ("none", "down False"), ("none", "down False"),
                              ("loopback", "up True ECONNREFUSED"), ("none", "down False")):
            expect(pooled(c, 2), "the pool never held 2 jails")
            pooled_run, seen = lo_state(c, network)
            diag("network %s: %s%s" % (network, " ".join(seen), " (pooled)" * pooled_run))
            expect(" ".join(seen).startswith(want) and seen[-1] != "connected",
                   "network %s: lo %s, want %s" % (network, seen, want))
            if pooled_run:
                took.add(network)
        expect(took == {"none", "loopback"}, "pooled runs only of %s" % took)
    finally:
        c.close()
        stop(c.proc)


def case_timings_ahead():
    """The steps a pooled jail does before its job show 0 in its run's
    jail.timings: mount_private_us (the propagation made private ahead)
    and network_us (hostname and lo, ahead); a run that clones its jail
    (the first, and the control of --pool 0) shows both."""
    c = pool_server("--pool", "1")
    try:
        t = run(c, ["/bin/true"])["jail"]["timings"]
        expect(t["clone_us"] > 0 and t["mount_private_us"] > 0 and
               t["network_us"] > 0, "a fresh jail's timings: %s" % t)
        for _ in range(5):
            expect(pooled(c, 1), "the pool never held its jail")
            r = run(c, ["/bin/cat", "/proc/sys/kernel/hostname"])
            t = r["jail"]["timings"]
            expect(r["stdout"]["text"] == "hutch\n", "the hostname set ahead: %r" % r["stdout"])
            # 0, or the microsecond or so of the checks that skip a step
            # (a preemption there, under load); the work itself is tens.
            expect(t["clone_us"] < 10 and t["mount_private_us"] < 10 and
                   t["network_us"] < 10, "a pooled jail's timings: %s" % t)
    finally:
        c.close()
        stop(c.proc)
    c = pool_server("--pool", "0")
    try:
        for _ in range(3):
            t = run(c, ["/bin/true"])["jail"]["timings"]
            expect(t["clone_us"] > 0 and t["mount_private_us"] > 0 and t["network_us"] > 0,
                   "--pool 0: %s" % t)
    finally:
        c.close()
        stop(c.proc)


def gone(pid):
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().rsplit(")", 1)[1].split()[0] == "Z"
    except OSError:
        return True


def expect_pool_control(c):
    """The control after a pooled jail was killed: the pool refills, and
    the next run takes a pooled jail and runs."""
    expect(pooled(c, 1), "the pool never refilled")
    r = run(c, ["/bin/sh", "-c", "echo ran"])
    expect(r["stdout"]["text"] == "ran\n" and took_pool(r), "the control: %s" % r)


def case_dead_pid1():
    """pid 1 of a pooled jail killed while it waits (the OOM killer, the
    server's user), its outer process held with SIGSTOP or not: the job
    that comes next is never handed to that jail (pid 1's socket refuses
    it, and pid 1 read nothing of it) but runs in a jail cloned for it
    (--pool 1: the dead one was the only one), exit 0 and its output,
    never "exited" without having run; the dead jail is dropped. The
    control: the next run takes a fresh pooled jail and runs."""
    c = pool_server("--pool", "1")
    try:
        run(c, ["/bin/true"])
        for stop_outer in (True, False):
            expect(pooled(c, 1), "the pool never held its jail")
            outer = children(forkserver(c))[0]
            pid1 = children(outer)[0]
            if stop_outer:
                os.kill(outer, signal.SIGSTOP)
            os.kill(pid1, signal.SIGKILL)
            wait_until(lambda: gone(pid1), 5)
            r = run(c, ["/bin/sh", "-c", "echo ran"])
            if stop_outer:
                try:
                    os.kill(outer, signal.SIGCONT)
                except ProcessLookupError:
                    pass  # dropped and reaped already
            expect(r["stdout"]["text"] == "ran\n" and r["exit_code"] == 0 and not took_pool(r),
                   "the run after pid 1 died (outer stopped: %s): %s" % (stop_outer, r))
            expect(wait_until(lambda: gone(outer), 5), "the dead jail was not dropped")
        expect_pool_control(c)
    finally:
        c.close()
        stop(c.proc)


def case_dead_outer():
    """A pooled jail's outer process killed while it waits (its pid 1
    then dies with it): a job that comes right after either runs (in
    another jail: pid 1's socket or the outer's refused it) or fails
    with a record or, when pid 1 took it before the kill reached it,
    dies of SIGKILL with its jail; never "exited" without having run;
    and likewise with pid 1 alone killed, the outer process left running.
    The control: the next run takes a fresh pooled jail and runs."""
    c = pool_server("--pool", "1")
    try:
        run(c, ["/bin/true"])
        for victim in ("outer", "pid1", "outer", "pid1"):
            expect(pooled(c, 1), "the pool never held its jail")
            outer = children(forkserver(c))[0]
            pid1 = children(outer)[0]
            os.kill(outer if victim == "outer" else pid1, signal.SIGKILL)
            r = c.run({"version": 1, "argv": ["/bin/sh", "-c", "echo ran"]})
            out = (r.get("stdout") or {}).get("text")
            diag("%s killed: %s %s" % (victim, r.get("status"),
                                       out if r.get("status") == "exited" else r.get("error")))
            # A job pid 1 took just before the kill reached it dies with
            # its jail: that status is the outer process's, SIGKILL, as
            # for any jail whose helper is killed (hutch-exec(8)).
            killed = r.get("status") == "signaled" and (r.get("signal") or {}).get("number") == 9
            expect((r.get("status") == "exited" and out == "ran\n" and r.get("exit_code") == 0) or
                   (r.get("status") == "failed" and r.get("error")) or killed,
                   "a run right after the %s was killed: %s" % (victim, r))
        expect_pool_control(c)
    finally:
        c.close()
        stop(c.proc)


REACH = r"""
import ctypes, errno, os, sys
libc = ctypes.CDLL(None, use_errno=True)
def call(f):
    r = f()
    return "ok" if r >= 0 else errno.errorcode.get(ctypes.get_errno(), "E?")
for pid in map(int, sys.argv[1:]):
    print(pid, call(lambda: libc.kill(pid, 0)), call(lambda: libc.kill(pid, 9)),
          call(lambda: libc.ptrace(16, pid, None, None)),  # PTRACE_ATTACH
          call(lambda: libc.syscall(434, pid, 0)),  # pidfd_open
          os.path.exists("/proc/%d" % pid))
print("self", call(lambda: libc.kill(os.getpid(), 0)), os.path.exists("/proc/%d" % os.getpid()))
"""


def case_reach():
    """A running jail cannot reach a pooled jail waiting beside it (the
    next run's): neither its pid 1 nor its outer process, by host pid,
    with kill, SIGKILL, PTRACE_ATTACH, pidfd_open or /proc (ESRCH: not
    in the jail's pid namespace; EPERM where seccomp answers first). The
    controls: the probe reaches itself; the waiting jail lives on and the
    next run takes it."""
    c = pool_server("--pool", "2")
    try:
        run(c, ["/bin/true"])
        expect(pooled(c, 2), "the pool never held its jails")
        pids = []
        for outer in children(forkserver(c)):
            pids += [outer] + children(outer)
        # The run takes one of the two; the other waits through it.
        r = run(c, ["/usr/bin/python3", "-c", REACH] + [str(p) for p in pids])
        lines = r["stdout"]["text"].split("\n")
        expect(len(lines) == len(pids) + 2 and lines[-2] == "self ok True",
               "the probe's output (its control: itself, reached): %r" % r)
        for line, pid in zip(lines, pids):
            w = line.split()
            expect(len(w) == 6 and w[0] == str(pid) and w[1] == w[2] == "ESRCH" and
                   w[3] in ("ESRCH", "EPERM") and w[4] in ("ESRCH", "EPERM", "ENOSYS") and
                   w[5] == "False", "pid %d reached from a running jail: %r" % (pid, line))

        def alive(pid):
            try:
                return open("/proc/%d/stat" % pid).read().rsplit(")", 1)[1].split()[0] != "Z"
            except OSError:
                return False
        expect(len([p for p in pids if alive(p)]) == 2,
               "the waiting jail did not survive the other run: %s" % [alive(p) for p in pids])
        r = run(c, ["/bin/sh", "-c", "echo ran"])
        expect(r["stdout"]["text"] == "ran\n" and took_pool(r), "the control: %s" % r)
    finally:
        c.close()
        stop(c.proc)


# What a process of the jail is: its status (ids, groups, capabilities,
# signal mask and dispositions, seccomp, no_new_privs; not its pids,
# memory or switches), limits, descriptors (with their flags and modes),
# umask, cwd, environment, mounts and its parent's (pid 1's) status.
PROC_STATE = ("grep -v -e '^Pid' -e '^PPid' -e '^NS' -e '^Tgid' -e '^Vm' -e '^Rss' "
              "-e ctxt -e '^Threads' -e '^Kthread' -e '^Huge' /proc/self/status; "
              "cat /proc/self/limits; ls -l /proc/self/fd | awk '{print $1, $9, $10}'; "
              "for f in /proc/self/fdinfo/[0-9]*; do grep -e flags -e mnt_id $f; done; "
              "umask; pwd; env | sort; cat /proc/self/oom_score_adj; "
              "grep -e Sig -e Cap -e Seccomp -e NoNew -e Uid -e Gid -e Groups /proc/1/status; "
              "cut -d' ' -f 4- /proc/self/mountinfo")


def case_same_as_unpooled():
    """A pooled run's process is the one an unpooled run of the same
    server gets (the first run, before the pool filled): /proc/self/status
    but for pids and memory, limits, descriptors and their flags, umask,
    cwd, environment, mounts, pid 1's credentials and signals."""
    c = pool_server("--pool", "1")
    try:
        r = run(c, ["/bin/sh", "-c", PROC_STATE])
        expect(not took_pool(r), "the first run was pooled")
        first = r["stdout"]["text"]
        expect("CapEff" in first and "Max open files" in first and "flags:" in first,
               "the state read nothing: %r" % first[:300])
        for _ in range(2):
            expect(pooled(c, 1), "the pool never held its jail")
            r = run(c, ["/bin/sh", "-c", PROC_STATE])
            expect(took_pool(r), "the run was not pooled")
            got = r["stdout"]["text"]
            diff = [(a, b) for a, b in zip(first.splitlines(), got.splitlines()) if a != b]
            expect(got == first, "pooled differs from unpooled: %s" % diff[:5])
        # The control: one change (a limit) is seen.
        expect(pooled(c, 1), "the pool never held its jail")
        r = run(c, ["/bin/sh", "-c", "ulimit -n 20; " + PROC_STATE])
        expect(r["stdout"]["text"] != first, "the comparison cannot see a changed limit")
    finally:
        c.close()
        stop(c.proc)


import sys  # noqa: E402

sys.exit(main(globals()))
EOF


check "runs take pooled jails: clone_us and id_maps_us 0, the output right" tc pooled
check "control: --pool 0 never pools and keeps no jail" tc unpooled_control
check "runs back to back at 1 in flight, no idle gap: each takes a pooled jail" tc refill_back_to_back
check "beside a running job, a free processor: the pool refills at once; on one processor it waits" \
	tc refill_beside_job
check "a pooled run sees none of what the one before left (files, process, env, limits)" tc fresh
check "a pooled run's process is an unpooled one's (status, limits, fds, umask, cwd, env, mounts, pid 1)" tc same_as_unpooled
check "another shape gets a jail cloned for it; the pool follows the new shape" tc shape
check "the pool holds exactly N when idle, within bounds when busy, none after the idle time" tc bound_idle
check "SIGTERM of the server: no pooled process left" tc sigterm
check "network none through the pool: lo down, no 127.0.0.1 route (lo up ahead only for its shape)" \
	tc net_none
check "a pooled run's timings: mount_private_us and network_us 0 (done ahead); a fresh run's not" \
	tc timings_ahead
check "a pooled jail whose pid 1 died before its job: the job runs in a jail cloned for it, never in the dead one" \
	tc dead_pid1
check "a pooled jail whose outer process or pid 1 was killed: the next run runs or fails with a record" \
	tc dead_outer
check "a running jail cannot reach a waiting pooled one (kill, SIGKILL, ptrace, pidfd_open, /proc)" tc reach
if is_root; then
	check "a root server pools nothing" tc root_none
else
	skip "a root server pools nothing" "not root"
fi
check "--pool over 64, not a number or over --max-total: refused in one line" tc refused
if [ -x "${HUTCH_PROGS:-}/spec-send" ]; then
	check "pid 1 of a pooled jail refuses a spec of another shape (helper_exec, exit 71); control runs" \
		tc shape_fail_closed
else
	skip "pid 1 of a pooled jail refuses a spec of another shape" "no HUTCH_PROGS/spec-send"
fi

"$HUTCH" serve --help >"$tmp/help" 2>&1
check "hutch serve --help documents --pool" grep -q -- '--pool N .*jails the forkserver builds ahead' "$tmp/help"
tap_serve_done
