#!/bin/sh
# serve-spawn.sh: `hutch serve` never waits on its forkserver's reply. A
# run's fork is asked for and the loop goes on; the reply is read when it
# comes. The forkserver is made slow for real: SIGSTOP (its pid found
# among the server's children), then SIGCONT. Each case asserts that
# another client's ping is answered within LAT_MS while the forkserver is
# stopped; before this change the loop sat in poll() for the reply, up
# to 5 s, and every client with it.
# 1. runs sent while it is stopped (three on one connection, one on
#    another) all complete once it goes on, each with its own output;
# 2. cancel while "starting": the cancelled jail is killed once its pid
#    arrives, its neighbours in the queue are not (the replies matched
#    to the right runs), nothing left running;
# 3. the client gone, --lifetime and SIGTERM's drain while "starting":
#    the jail is killed once it exists, the server's descriptors back to
#    what they were, or the server exits within its grace;
# 4. a forkserver stopped past the 5 s reply timeout: it is killed and
#    reaped, the waiting run ends as a broken forkserver's run always has
#    (one helper of its own: as root, whose server has dropped the
#    capabilities that takes, refused sandbox_unavailable), the server
#    answers and runs on, no descriptor kept;
# 5. a session's worker, parked for want of descriptor room and started
#    once a run ends, waits for its own reply and reads on its way the
#    reply of a run cancelled while starting: the cancel still lands;
# 6. wall_ms and idle_ms passed while starting: the jail is killed the
#    moment its pidfd comes (the watch's first signal reached no one);
# 7. fifty runs queued from seven clients: a ping at once, no spin, each
#    result its own; the forkserver killed with runs asked, waiting,
#    cancelled and a client gone: each run one final event, nothing
#    kept; SIGTERM with runs asked and waiting: exit 0, no jail left;
# 8. runs, cancels and session workers (spawns that wait, reading the
#    runs' replies on their way) from five clients for 3 s: every output
#    and every reply its own.
. "$(dirname "$0")/lib.sh"

tap_tmpdir serve-spawn /tmp
tap_serve_setup "hutch serve reads the forkserver's replies on its loop"
chmod 755 "$tmp"

cat >"$tmp/cases.py" <<'EOF'
# cases.py: one case per invocation (argv[1]), run by tapcase.main.
import contextlib
import os
import signal
import threading

from tapcase import (T, TMP, Fail, connect, cpu_s, diag, expect, gone, main, now,
                     procs_with, serve_socket, stop, wait_until)

LAT_MS = 1000   # a ping; the old loop held it for the 5 s reply timeout


def marker(tag):
    return "hutch-serve-spawn-%d-%s" % (os.getpid(), tag)


def sleeper(mark):
    return {"version": 1, "argv": ["/bin/sh", "-c", "sleep 1000; :", mark],
            "limits": {"wall_ms": 600000}}


def echo(word):
    return {"version": 1, "argv": ["/bin/echo", word]}


def forkserver_of(pid):
    """The server's child that runs hutch-exec --forkserver."""
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % d) as f:
                ppid = int(f.read().rsplit(")", 1)[1].split()[1])
            with open("/proc/%s/cmdline" % d, "rb") as f:
                cmd = f.read()
        except OSError:
            continue
        if ppid == pid and b"--forkserver" in cmd:
            return int(d)
    raise Fail("no forkserver among the children of %d" % pid)


def fds(pid):
    return len(os.listdir("/proc/%d/fd" % pid))


def server(tag, *opts):
    path = os.path.join(TMP, tag + ".sock")
    proc = serve_socket(path, *opts)
    c = connect(path)
    doc = c.run(echo("warm"))       # the probe settled, the pool filled
    expect(doc.get("status") == "exited", "the first run: %s" % doc)
    c.close()
    # Its close read by the server, so that a case's count of the
    # server's descriptors does not hold this connection's.
    threading.Event().wait(0.2)
    return path, proc, forkserver_of(proc.pid)


def prompt_ping(path, what):
    c = connect(path)
    t0 = now()
    ok = c.ping()
    ms = (now() - t0) * 1000
    c.close()
    diag("%s: a ping answered in %.0f ms" % (what, ms))
    expect(ok, "no pong %s" % what)
    expect(ms < LAT_MS, "a ping took %.0f ms %s (bound %d ms)" % (ms, what, LAT_MS))


def stalled(fs, path, what):
    """Once the requests are sent to the stopped forkserver (a moment for
    the server to read them): the loop answers another client."""
    threading.Event().wait(0.3)
    prompt_ping(path, what)
    prompt_ping(path, what + ", again")


def exited_with(doc, out, what):
    expect(doc.get("status") == "exited" and doc.get("exit_code") == 0,
           "%s: %s %s" % (what, doc.get("status"), doc.get("error")))
    expect(doc["stdout"]["text"] == out + "\n", "%s: stdout %r" % (what, doc["stdout"]))


@contextlib.contextmanager
def stopped(fs):
    """The forkserver stopped (SIGSTOP) for the block, then let go."""
    os.kill(fs, signal.SIGSTOP)
    try:
        yield
    finally:
        os.kill(fs, signal.SIGCONT)


def case_stopped():
    path, proc, fs = server("st")
    try:
        base = fds(proc.pid)
        a, b = connect(path), connect(path)
        with stopped(fs):
            rids = [(a.start(echo("a%d" % i)), "a%d" % i) for i in range(3)]
            rb = b.start(echo("b0"))
            stalled(fs, path, "with four runs waiting on the stopped forkserver")
        for rid, word in rids:
            exited_with(a.result(rid), word, "run %s" % word)
        exited_with(b.result(rb), "b0", "the other client's run")
        a.close()
        b.close()
        expect(wait_until(lambda: fds(proc.pid) == base, 5),
               "the server holds %d descriptors, %d before" % (fds(proc.pid), base))
        expect(forkserver_of(proc.pid) == fs, "the forkserver changed")
    finally:
        stop(proc)


def case_cancel():
    path, proc, fs = server("ca")
    mx, my = marker("x"), marker("y")
    try:
        base = fds(proc.pid)
        c = connect(path)
        with stopped(fs):
            rx = c.start(sleeper(mx))
            ry = c.start(sleeper(my))
            rz = c.start(echo("z"))
            expect(c.cancel(ry), "the cancel of a starting run was not acked")
            stalled(fs, path, "a cancelled run waiting on the stopped forkserver")
            expect(not procs_with(my), "the cancelled jail runs before its fork")
        ev = c.wait_final(ry)
        expect(ev.get("failed", {}).get("code") == "cancelled", "the cancelled run: %s" % ev)
        exited_with(c.result(rz), "z", "the run queued after it")
        expect(wait_until(lambda: procs_with(mx), 10), "its neighbour never ran")
        expect(gone(my), "the cancelled jail outlived its fork")
        expect(procs_with(mx), "the neighbour was killed with it")
        expect(c.cancel(rx), "the second cancel was not acked")
        ev = c.wait_final(rx)
        expect(ev.get("failed", {}).get("code") == "cancelled", "the running run: %s" % ev)
        expect(gone(mx), "the running jail outlived its cancel")
        c.close()
        expect(wait_until(lambda: fds(proc.pid) == base, 5),
               "the server holds %d descriptors, %d before" % (fds(proc.pid), base))
    finally:
        stop(proc)


def case_disconnect():
    path, proc, fs = server("dc", "--grace", "1s")
    m = marker("dc")
    try:
        base = fds(proc.pid)
        c = connect(path)
        with stopped(fs):
            c.start(sleeper(m))
            stalled(fs, path, "a run waiting on the stopped forkserver")
            c.sock.close()
            prompt_ping(path, "its client gone")
        expect(gone(m, 5), "the jail of a client gone while it started outlived it")
        expect(wait_until(lambda: fds(proc.pid) == base, 5),
               "the server holds %d descriptors, %d before" % (fds(proc.pid), base))
        exited_with(connect(path).run(echo("after")), "after", "a run after")
    finally:
        stop(proc)


def case_lifetime():
    path, proc, fs = server("lt", "--lifetime", "1s")
    m = marker("lt")
    try:
        c = connect(path)
        with stopped(fs):
            rid = c.start(sleeper(m))
            stalled(fs, path, "a run waiting on the stopped forkserver")
            threading.Event().wait(1.3)     # past its lifetime
            prompt_ping(path, "past the waiting run's lifetime")
        t0 = now()
        doc = c.result(rid)
        diag("the lifetime's end: the result %.0f ms after the fork went on" %
             ((now() - t0) * 1000))
        expect(doc.get("status") == "failed" and doc["error"]["code"] == "timeout",
               "lifetime: %s" % doc)
        expect(gone(m), "the jail outlived its lifetime")
    finally:
        stop(proc)


def case_drain():
    path, proc, fs = server("dr", "--grace", "1s")
    m = marker("dr")
    c = connect(path)
    with stopped(fs):
        rid = c.start(sleeper(m))
        stalled(fs, path, "a run waiting on the stopped forkserver")
        proc.send_signal(signal.SIGTERM)
        threading.Event().wait(0.3)
        expect(proc.poll() is None, "the server left a starting run behind")
    t0 = now()
    ev = c.wait_final(rid)
    try:
        rc = proc.wait(5)
    except Exception:
        proc.kill()
        raise Fail("no exit within 5 s of the forkserver going on")
    diag("drain: exit %d, %.2f s after the fork went on; the run got %s" %
         (rc, now() - t0, [k for k in ev if k not in ("version", "id")]))
    expect(rc == 0, "exit status %d" % rc)
    expect(gone(m), "a jail outlived the server")


def case_timeout():
    path, proc, fs = server("to")
    m = marker("to")
    try:
        base = fds(proc.pid)
        c = connect(path, 30)
        os.kill(fs, signal.SIGSTOP)
        t0 = now()
        rid = c.start({"version": 1, "argv": ["/bin/sh", "-c", "echo late", m]})
        stalled(fs, path, "a run waiting on the stopped forkserver")
        ev = c.wait_final(rid)
        took = now() - t0
        doc = ev.get("exit", {})
        diag("the forkserver stopped for good: the run ended after %.2f s: %s %s" %
             (took, doc.get("status"), doc.get("error", ev.get("failed"))))
        expect(4.5 <= took < 15, "the run ended %.2f s after its request" % took)
        expect(wait_until(lambda: not os.path.exists("/proc/%d" % fs), 5),
               "the stuck forkserver was not killed and reaped")
        prompt_ping(path, "after the forkserver broke")
        c2 = connect(path)
        ev2 = c2.wait_final(c2.start(echo("later")))
        c2.close()
        if os.geteuid() == 0:
            # Its capabilities dropped, a root server starts no helper
            # of its own (hutch(1), serve --no-forkserver): the run's
            # result, or the canary's verdict for a later one.
            for e, what in ((ev, "the waiting run"), (ev2, "a later run")):
                code = e.get("failed", {}).get("code") or \
                    e.get("exit", {}).get("error", {}).get("code")
                expect(code == "sandbox_unavailable", "%s: %s" % (what, e))
        else:
            exited_with(doc, "late", "the waiting run")
            exited_with(ev2.get("exit", {}), "later", "a later run")
        expect(gone(m), "a process of the run is left")
        c.close()
        # Its socket and pidfd are gone with it; nothing else is held.
        expect(wait_until(lambda: fds(proc.pid) == base - 2, 5),
               "the server holds %d descriptors, %d before, with the forkserver" %
               (fds(proc.pid), base))
    finally:
        try:
            os.kill(fs, signal.SIGCONT)
        except OSError:
            pass
        stop(proc)


NOFILE = 256    # the server's RLIMIT_NOFILE in case wake


def idle_fds():
    """An idle server's own descriptors (serve-plan.c, serve_fd_room
    counts from them), measured on one started with RLIMIT_NOFILE NOFILE."""
    path = os.path.join(TMP, "fdc.sock")
    proc = serve_socket(path, nofile=NOFILE)
    try:
        c = connect(path)
        c.run(echo("warm"))
        c.close()
        wait_until(lambda: False, 0.3)
        return fds(proc.pid)
    finally:
        stop(proc)


def case_wake():
    """A kill kept while a run waits on the forkserver is applied when its
    reply comes, even when that reply is read by another spawn that waits
    for its own (a session's worker, started from a parked request after
    the loop's runs were looked at): the loop must look at them again."""
    # Its descriptor room (its own, one per connection, ten per jail and
    # eighteen for a spawn) made to fit two jails, not three: idle
    # connections fill the rest, so that a third request parks.
    pad = NOFILE - idle_fds() - 35 - 2
    path = os.path.join(TMP, "wk.sock")
    proc = serve_socket(path, "--max-conn-per-uid", "256", nofile=NOFILE)
    idle = []
    mx, my, mw = marker("wx"), marker("wy"), marker("ww")
    fs = None
    try:
        a = connect(path, 30)
        doc = a.run(echo("warm"))
        expect(doc.get("status") == "exited", "the first run: %s" % doc)
        fs = forkserver_of(proc.pid)    # started after the socket listens
        idle = [connect(path) for _ in range(pad)]
        expect(idle[-1].ping(), "the last idle connection")
        rx = a.start(sleeper(mx))
        expect(wait_until(lambda: procs_with(mx), 10), "the first jail never ran")
        b = connect(path, 30)
        with stopped(fs):
            ry = a.start(sleeper(my))
            threading.Event().wait(0.3)
            expect(a.cancel(ry), "the cancel of a starting run was not acked")
            worker = {"version": 1, "argv": ["/bin/sh", "-c", "sleep 1000; :", mw],
                      "limits": {"wall_ms": 600000}}
            b.request("session", {"name": "w", "worker": worker,
                                   "input_base64": "", "timeout_ms": 60000})
            # No room for its jail: the request waits (parked), the loop
            # answers meanwhile (on a connection it has: no room for a
            # new one either).
            threading.Event().wait(0.3)
            t0 = now()
            expect(a.ping(), "no pong with a session parked")
            ms = (now() - t0) * 1000
            diag("a session parked, a run waiting on the forkserver: a ping in %.0f ms" % ms)
            expect(ms < LAT_MS, "the session was not parked: a ping took %.0f ms" % ms)
            expect(a.cancel(rx), "the cancel of the running run was not acked")
            # Its end makes room: the session's worker is forked, and its
            # spawn waits, reading the cancelled run's reply on its way.
            threading.Event().wait(1.0)
        t0 = now()
        ev = a.wait_final(ry)
        took = now() - t0
        diag("the cancelled run's final event %.2f s after the forkserver went on" % took)
        expect(ev.get("failed", {}).get("code") == "cancelled", "the cancelled run: %s" % ev)
        expect(took < 3, "its cancel waited %.2f s for the loop to look again" % took)
        expect(gone(my), "the cancelled jail outlived its cancel")
        ev = a.wait_final(rx)
        expect(ev.get("failed", {}).get("code") == "cancelled", "the running run: %s" % ev)
        expect(wait_until(lambda: procs_with(mw), 5), "the session's worker never ran")
        b.close()
        a.close()
        expect(gone(mw), "the session's worker outlived its client")
    finally:
        for c in idle:
            c.close()
        try:
            if fs:
                os.kill(fs, signal.SIGCONT)
        except OSError:
            pass
        stop(proc)


def case_wall():
    """wall_ms and idle_ms passed while the run waits on the forkserver:
    the kill the watch asked for then reached no jail; it is sent the
    moment the pidfd comes, not a grace period later."""
    path, proc, fs = server("wl", "--grace", "5s")
    mw, mi = marker("wall"), marker("idle")
    try:
        c = connect(path, 30)
        with stopped(fs):
            rw = c.start({"version": 1, "argv": ["/bin/sh", "-c", "sleep 1000; :", mw],
                          "limits": {"wall_ms": 300}})
            ri = c.start({"version": 1, "argv": ["/bin/sh", "-c", "sleep 1000; :", mi],
                          "limits": {"wall_ms": 600000, "idle_ms": 300}})
            threading.Event().wait(1.5)     # past both limits
        t0 = now()
        for rid, m, limit in ((rw, mw, "wall_ms"), (ri, mi, "idle_ms")):
            doc = c.result(rid)
            took = now() - t0
            diag("%s passed while starting: its result %.2f s after the fork went on" %
                 (limit, took))
            expect(doc.get("status") == "failed" and doc["error"]["code"] == "timeout" and
                   doc["error"].get("limit") == limit, "%s: %s" % (limit, doc))
            expect(took < 2, "the jail past its %s lived %.2f s after its pidfd came "
                   "(the grace is 5 s)" % (limit, took))
            expect(gone(m), "the jail outlived its %s" % limit)
        c.close()
    finally:
        stop(proc)


def case_many():
    """Fifty runs from seven clients queued on a stopped forkserver (two
    asked of it, the rest waiting their turn): another client's ping is
    answered at once; each run's result is its own once it goes on.
    Then runs queued again, one cancelled asking, one waiting, a client
    gone, and the forkserver killed: every run left gets its one final
    event (launched again without it), no jail, no descriptor is kept,
    and the server serves on."""
    path, proc, fs = server("mn")
    try:
        base = fds(proc.pid)
        cs = [connect(path, 60) for _ in range(7)]
        with stopped(fs):
            runs = [(c, c.start(echo("c%dr%d" % (i, j))), "c%dr%d" % (i, j))
                    for i, c in enumerate(cs) for j in range(8 if i < 6 else 2)]
            cpu0 = cpu_s(proc.pid)
            stalled(fs, path, "with fifty runs waiting on the stopped forkserver")
            threading.Event().wait(1.0)
            cpu = cpu_s(proc.pid) - cpu0
            diag("the server used %.2f s of CPU in 1.3 s with fifty runs waiting" % cpu)
            expect(cpu < 0.5, "the server spun: %.2f s of CPU in 1.3 s" % cpu)
        for c, rid, word in runs:
            exited_with(c.result(rid), word, "run %s" % word)
        m = marker("mn")
        os.kill(fs, signal.SIGSTOP)
        try:
            runs = [(c, c.start({"version": 1, "argv": ["/bin/sh", "-c", "echo %s" % w, m]}), w)
                    for w, c in (("k%d" % i, cs[i % 6]) for i in range(12))]
            stalled(fs, path, "with twelve runs waiting on the stopped forkserver")
            expect(cs[0].cancel(runs[0][1]), "the cancel of a run asked of the forkserver")
            expect(cs[5].cancel(runs[5][1]), "the cancel of a run waiting its turn")
            cs[1].sock.close()
            os.kill(fs, signal.SIGKILL)
        finally:
            try:
                os.kill(fs, signal.SIGCONT)
            except OSError:
                pass
        root = os.geteuid() == 0
        for c, rid, word in runs:
            if c is cs[1]:
                continue
            ev = c.wait_final(rid)
            code = ev.get("failed", {}).get("code") or \
                (ev.get("exit", {}).get("error") or {}).get("code")
            if rid in (runs[0][1], runs[5][1]) and c in (cs[0], cs[5]):
                expect(code == "cancelled", "the cancelled run %s: %s" % (word, ev))
            elif root:
                # Its capabilities dropped, a root server starts no
                # helper of its own (serve-spawn.sh, case timeout).
                expect(code == "sandbox_unavailable", "run %s: %s" % (word, ev))
            else:
                exited_with(ev.get("exit", {}), word, "run %s, launched again" % word)
        expect(wait_until(lambda: not os.path.exists("/proc/%d" % fs), 5),
               "the killed forkserver was not reaped")
        expect(gone(m), "a process of the runs is left")
        prompt_ping(path, "after the forkserver was killed")
        for c in cs:
            c.close()
        expect(wait_until(lambda: fds(proc.pid) == base - 2, 5),
               "the server holds %d descriptors, %d before, with the forkserver" %
               (fds(proc.pid), base))
    finally:
        stop(proc)


def case_drain_queued():
    """SIGTERM with runs asked of a stopped forkserver and more waiting
    their turn, from two clients: each gets its one final event once it
    goes on, no jail is left, the server exits 0 within its grace."""
    path, proc, fs = server("dq", "--grace", "1s")
    m = marker("dq")
    a, b = connect(path, 30), connect(path, 30)
    with stopped(fs):
        rids = [(c, c.start(sleeper(m))) for c in (a, b, a, b, a, b)]
        stalled(fs, path, "six runs waiting on the stopped forkserver")
        proc.send_signal(signal.SIGTERM)
        threading.Event().wait(0.5)
        expect(proc.poll() is None, "the server left starting runs behind")
    t0 = now()
    for c, rid in rids:
        ev = c.wait_final(rid)
        expect("failed" in ev or "exit" in ev, "run %d: %s" % (rid, ev))
    try:
        rc = proc.wait(5)
    except Exception:
        proc.kill()
        raise Fail("no exit within 5 s of the forkserver going on")
    diag("drain with six runs queued: exit %d, %.2f s after the fork went on" % (rc, now() - t0))
    expect(rc == 0, "exit status %d" % rc)
    expect(gone(m), "a jail outlived the server")


ECHO_WORKER = ("import struct, sys\n"
               "r, w = sys.stdin.buffer, sys.stdout.buffer\n"
               "while True:\n"
               "    h = r.read(4)\n"
               "    if len(h) < 4:\n"
               "        break\n"
               "    b = r.read(struct.unpack('>I', h)[0])\n"
               "    w.write(struct.pack('>I', len(b)) + b)\n"
               "    w.flush()\n")


def case_mixed():
    """Runs asked without waiting, each batch with one cancelled at once
    (while asked or waiting its turn), interleaved with session calls
    whose reset starts a worker each time (a spawn that waits for its own
    reply, reading the runs' replies on its way), for 3 s from five
    clients: every run's output and every call's reply is its own, no
    descriptor is kept."""
    path, proc, fs = server("mx")
    worker = {"version": 1, "argv": ["/usr/bin/python3", "-c", ECHO_WORKER],
              "limits": {"wall_ms": 600000}}
    done = threading.Event()
    errs, count = [], {"runs": 0, "calls": 0}

    def runner(i):
        c, k = connect(path, 60), 0
        while not done.is_set():
            rids = []
            for _ in range(4):
                rids.append((c.start(echo("r%d-%d" % (i, k))), "r%d-%d" % (i, k)))
                k += 1
            cr = c.start(sleeper(marker("mx")))
            c.cancel(cr)
            ev = c.wait_final(cr)
            if ev.get("failed", {}).get("code") != "cancelled":
                errs.append("a cancelled run: %s" % ev)
            for rid, word in rids:
                doc = c.result(rid)
                if doc.get("stdout", {}).get("text") != word + "\n":
                    errs.append("run %s got %s" % (word, doc.get("stdout")))
                count["runs"] += 1
        c.close()

    def caller(i):
        c, k = connect(path, 60), 0
        while not done.is_set():
            data = ("s%d-%d" % (i, k)).encode()
            k += 1
            got = c.session("s", worker, data, timeout_ms=20000, reset=True)
            if got != data:
                errs.append("call %r got %r" % (data, got))
            count["calls"] += 1
        c.close()

    def guarded(body, i):
        try:
            body(i)
        except Exception as e:  # a client's failure is the case's
            errs.append("client %d: %r" % (i, e))

    try:
        base = fds(proc.pid)
        ts = [threading.Thread(target=guarded, args=(runner, i)) for i in range(3)] + \
             [threading.Thread(target=guarded, args=(caller, i)) for i in range(2)]
        for t in ts:
            t.start()
        done.wait(3)
        done.set()
        for t in ts:
            t.join(60)
        diag("%d runs, %d session calls each with a new worker" %
             (count["runs"], count["calls"]))
        expect(not errs, "%d misattributed: %s" % (len(errs), errs[:3]))
        expect(count["runs"] > 0 and count["calls"] > 0, "nothing ran: %s" % count)
        expect(not any(t.is_alive() for t in ts), "a client hung")
        expect(gone(marker("mx")), "a cancelled run's jail is left")
        expect(wait_until(lambda: fds(proc.pid) == base, 5),
               "the server holds %d descriptors, %d before" % (fds(proc.pid), base))
    finally:
        done.set()
        stop(proc)


import sys  # noqa: E402
sys.exit(main(globals()))
EOF

check "runs sent to a stopped forkserver: another client's ping answered meanwhile; all four complete once it goes on" tc stopped
check "cancel of a starting run: acked at once, the jail killed once its pid comes, its queued neighbours untouched" tc cancel
check "the client gone while its run starts: the jail killed once it exists, no descriptor kept" tc disconnect
check "--lifetime ends a starting run: timeout, no jail left" tc lifetime
check "SIGTERM while a run starts: the server waits for it, kills it, exits 0" tc drain
check "a forkserver stopped past the 5 s reply timeout: killed and reaped, the run ends as a broken forkserver's, the server answers and runs on" tc timeout
check "a kill kept while a run starts is applied when its reply is read by another spawn waiting for its own (a parked session started after the runs were looked at)" tc wake
check "wall_ms and idle_ms passed while a run starts: its jail killed the moment its pidfd comes, not a grace later" tc wall
check "fifty runs queued on a stopped forkserver: a ping answered meanwhile, each result its own; then the forkserver killed with runs asked, waiting, cancelled and a client gone: each run one final event, nothing kept" tc many
check "SIGTERM with runs asked of a stopped forkserver and more waiting their turn: each one final event, no jail left, exit 0" tc drain_queued
check "runs, cancels and session workers started at once from five clients for 3 s: every output and every reply its own, nothing kept" tc mixed

tap_serve_done
