#!/bin/sh
# serve.sh: `hutch serve` over real sockets (hutch-protocol(7)), driven by
# the standard-library Python client (examples/hutch_client.py) and the C
# client (examples/hutch-client): ping, runs and their result documents,
# live events (rate, size, none after the end), cancel, busy at each bound,
# frames that end the connection with exactly one failed event, requests
# refused with the connection kept, disconnects and SIGTERM killing every
# jail (checked in /proc), --socket and its mode, socket activation, and a
# client that never reads being cut off.
. "$(dirname "$0")/lib.sh"

tap_tmpdir serve

tap_serve_setup "hutch serve integration tests" c

cat >"$tmp/cases.py" <<'EOF'
# cases.py: one test case per invocation (argv[1]), run by tapcase.main;
# exit 0 when it passed, diagnostics as TAP comments. Every wait is bounded.
import json
import os
import signal
import socket
import stat
import struct
import subprocess
import sys
import time

from tapcase import (HUTCH, LOG, T, TMP, Fail, HutchClient, diag, expect, gone, main, now,
                     procs_with, sanitized, spawn, stop, vm_kb, wait_until)

CCLIENT = os.environ.get("CCLIENT", "")


def verbose(*a):
    if os.environ.get("HUTCH_TEST_VERBOSE"):
        diag(*a)


def marker(tag):
    return "hutch-serve-test-%d-%s" % (os.getpid(), tag)


def sleeper(mark, ignore_term=False):
    """A run that lasts until killed; mark is in its shell's argv."""
    script = ("trap '' TERM; " if ignore_term else "") + "sleep 1000; :"
    # A wall limit far away: only what the test does may end it.
    return {"version": 1, "argv": ["/bin/sh", "-c", script, mark],
            "limits": {"wall_ms": 600000}}


def inode(path):
    """What tells one file at path from the next (numbers are reused)."""
    try:
        st = os.stat(path)
        return (st.st_ino, st.st_ctime_ns)
    except FileNotFoundError:
        return None


def serve_socket(path, *opts):
    """hutch serve --socket PATH, once PATH is its socket (a stale one
    there before does not count)."""
    before = inode(path)
    with open(LOG, "ab") as log:
        proc = subprocess.Popen([HUTCH, "serve", "--socket", path, *opts],
                                stdout=log, stderr=log)
    try:
        wait_until(lambda: inode(path) not in (None, before) or proc.poll() is not None, 10)
        expect(inode(path) not in (None, before), "serve --socket did not create %s" % path)
        # bind() makes the file, listen() follows: wait for the second too.
        connect(path).sock.close()
    except BaseException:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        raise
    return proc


def connect(path, retry=True):
    """A client on PATH; while the server is between bind() and listen(),
    a refused connection is tried again (bounded)."""
    end = now() + (5 if retry else 0)
    while True:
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.settimeout(T)
        try:
            s.connect(path)
            return HutchClient(s)
        except ConnectionRefusedError:
            s.close()
            if now() >= end:
                raise
            time.sleep(0.02)


def recv_or_eof(c):
    try:
        return c.recv()
    except (EOFError, ConnectionResetError):
        return None


def final(c, rid, lives=None):
    """Events up to the final one for rid; live events go to lives as
    (arrival time, live, fresh); an event for another id is a failure.
    fresh: we had been waiting for it (blocked 30 ms or more with nothing
    buffered) and it came alone, so its arrival time is close to the
    moment it was sent."""
    while True:
        idle = not c.buf
        t0 = now()
        ev = c.recv()
        t = now()
        fresh = idle and t - t0 >= 0.03 and not c.buf
        expect(ev.get("id") == rid, "event for id %s while waiting for %d: %s"
               % (ev.get("id"), rid, str(ev)[:300]))
        if "live" in ev:
            expect(lives is not None, "unexpected live event: %s" % str(ev)[:300])
            lives.append((t, ev["live"], fresh))
            continue
        return ev


def failed_code(ev):
    return ev.get("failed", {}).get("code")


def only_failed_then_eof(c, code, grace=5):
    """The server's answer to a frame that ends the connection: exactly one
    failed event, id 0, then the end of the stream."""
    evs = []
    while True:
        ev = recv_or_eof(c)
        if ev is None:
            break
        evs.append(ev)
    expect(len(evs) == 1, "want exactly one event, got %d: %s" % (len(evs), str(evs)[:400]))
    ev = evs[0]
    expect(set(ev) == {"version", "id", "failed"} and ev["version"] == 1 and ev["id"] == 0,
           "want a failed event with id 0: %s" % ev)
    expect(failed_code(ev) == code, "want %s: %s" % (code, ev))
    expect(isinstance(ev["failed"].get("message"), str) and set(ev["failed"]) == {"code", "message"},
           "failed carries code and message: %s" % ev)
    # Promptly: the jails it started get the grace period, no more.
    try:
        rc = c.proc.wait(grace + 3)
    except subprocess.TimeoutExpired:
        raise Fail("serve --fd still running %ds after the connection ended" % (grace + 3))
    expect(rc == 0, "serve --fd exited %s after the connection ended" % rc)
    return ev


def text_of(part):
    if "text" in part:
        return part["text"].encode()
    import base64
    return base64.b64decode(part["base64"])


# ---- cases ----

def case_ping():
    c = spawn()
    rid = c.request("ping", {})
    ev = c.recv()
    expect(ev == {"version": 1, "id": rid, "pong": {}}, "ping: %s" % ev)
    # Any id up to 2^53-1 is the client's to choose.
    c.send({"version": 1, "id": 2**53 - 1, "ping": {}})
    ev = c.recv()
    expect(ev == {"version": 1, "id": 2**53 - 1, "pong": {}}, "ping 2^53-1: %s" % ev)
    c.close()
    expect(c.proc.returncode == 0, "serve --fd exit status %s" % c.proc.returncode)


def case_run_exit():
    c = spawn()
    doc = c.run({"version": 1, "argv": ["/bin/sh", "-c", "echo out; echo err >&2; exit 3"]})
    expect(doc["version"] == 1 and doc["status"] == "exited" and doc["exit_code"] == 3,
           "status: %s" % doc)
    expect(doc["stdout"] == {"text": "out\n", "truncated": False, "bytes": 4}, doc["stdout"])
    expect(doc["stderr"] == {"text": "err\n", "truncated": False, "bytes": 4}, doc["stderr"])
    expect(doc["signal"] is None and doc["error"] is None, doc)
    expect(doc["jail"]["policy"] == "default", doc["jail"])
    expect(doc["jail"]["digest"].startswith("sha256:"), doc["jail"])
    expect(isinstance(doc["usage"]["wall_ms"], int), doc["usage"])
    doc = c.run({"version": 1, "argv": ["/bin/echo", "hi"]})
    expect(doc["status"] == "exited" and doc["exit_code"] == 0 and
           doc["stdout"]["text"] == "hi\n", doc)
    doc = c.run({"version": 1, "argv": ["/bin/sh", "-c", "kill -9 $$"]})
    expect(doc["status"] == "signaled", "signaled: %s" % doc)
    doc = c.run({"version": 1, "argv": ["/nonexistent/program"]})
    expect(doc["status"] == "failed" and doc["error"]["code"] == "exec_failed",
           "exec failure: %s" % doc)
    # An id is free again once its request is answered.
    c.send({"version": 1, "id": 1, "ping": {}})
    expect(c.recv() == {"version": 1, "id": 1, "pong": {}}, "id 1 reused after its end")
    c.close()


def live_checks(lives, final_doc):
    """Each live event holds stdout and stderr parts of at most 64 KiB;
    concatenated, they are a prefix of the final output. The server sends
    one at most every 250 ms: there are at most wall_ms / 250 + 1 of them
    (the run's own wall time, so a client slowed down by a loaded machine
    cannot blur it), and two that we waited for arrive at least 200 ms
    apart (250 ms less a generous 50 ms for waking up; a gap measured on
    events that queued up behind a slow client would say nothing)."""
    out = b""
    gaps = []
    for i, (t, live, fresh) in enumerate(lives):
        expect(set(live) == {"stdout", "stderr"}, "live members: %s" % list(live))
        for k in ("stdout", "stderr"):
            part = live[k]
            expect(len(part) == 1 and ("text" in part or "base64" in part), "live %s" % part)
            expect(len(text_of(part)) <= 65536, "live snapshot of %d bytes" % len(text_of(part)))
        expect(text_of(live["stdout"]) or text_of(live["stderr"]), "an empty live event")
        out += text_of(live["stdout"])
        if i and fresh and lives[i - 1][2]:
            gaps.append(t - lives[i - 1][0])
    verbose("%d live events in %d ms, gaps %s, sizes %s" % (
        len(lives), final_doc["usage"]["wall_ms"], ["%.3f" % g for g in gaps],
        [len(text_of(l["stdout"])) for _, l, _ in lives]))
    for g in gaps:
        expect(g >= 0.2, "live events %.3f s apart" % g)
    wall = final_doc["usage"]["wall_ms"]
    expect(len(lives) <= wall / 250 + 1, "%d live events in a run of %d ms" % (len(lives), wall))
    final_out = text_of(final_doc["stdout"])
    expect(final_out.startswith(out), "live output is not a prefix of the final output")
    return out


def case_live_slow():
    c = spawn()
    rid = c.request("run", {"version": 1, "argv": [
        "/bin/sh", "-c", "for i in 1 2 3 4 5; do echo $i; sleep 0.3; done"]})
    lives = []
    ev = final(c, rid, lives)
    expect("exit" in ev and ev["exit"]["status"] == "exited", "final: %s" % ev)
    expect(len(lives) >= 2, "only %d live events" % len(lives))
    live_checks(lives, ev["exit"])
    # Nothing of that run comes after its final event.
    pid = c.request("ping", {})
    ev = c.recv()
    expect(ev == {"version": 1, "id": pid, "pong": {}}, "after the exit: %s" % ev)
    c.close()


def case_live_rate():
    c = spawn()
    rid = c.request("run", {"version": 1, "argv": [
        "/bin/sh", "-c", "i=0; while [ $i -lt 150 ]; do echo tick $i; i=$((i+1)); sleep 0.01; done"]})
    lives = []
    ev = final(c, rid, lives)
    expect("exit" in ev and ev["exit"]["exit_code"] == 0, "final: %s" % ev)
    live_checks(lives, ev["exit"])
    expect(len(lives) >= 2, "only %d live events" % len(lives))
    c.close()


def case_live_bounded():
    c = spawn()
    rid = c.request("run", {"version": 1, "argv": [
        "/bin/sh", "-c", "head -c 300000 /dev/zero | tr '\\0' a; sleep 2"]})
    lives = []
    ev = final(c, rid, lives)
    expect("exit" in ev and ev["exit"]["stdout"]["bytes"] == 300000, "final: %s" % str(ev)[:300])
    out = live_checks(lives, ev["exit"])
    sizes = [len(text_of(l["stdout"])) for _, l, _ in lives]
    expect(max(sizes) == 65536, "no snapshot at the 64 KiB bound: %s" % sizes)
    expect(len(out) == 300000, "live events carried %d of 300000 bytes" % len(out))
    c.close()


def case_cancel():
    c = spawn()
    m = marker("cancel")
    rid = c.request("run", sleeper(m))
    expect(wait_until(lambda: procs_with(m), 10), "the run never started")
    cid = c.request("cancel", {"target": rid})
    evs = [c.recv(), c.recv()]
    acks = [e for e in evs if e == {"version": 1, "id": cid, "ack": {}}]
    cancelled = [e for e in evs if e.get("id") == rid and failed_code(e) == "cancelled"]
    expect(len(acks) == 1 and len(cancelled) == 1, "cancel: %s" % evs)
    expect(gone(m), "the cancelled jail is still running")
    # Cancelling what is no longer in flight is a bad request, not a
    # protocol error: the connection goes on.
    cid = c.request("cancel", {"target": rid})
    ev = c.recv()
    expect(ev.get("id") == cid and failed_code(ev) == "invalid_request", "stale cancel: %s" % ev)
    expect("pointer" not in ev["failed"], "a pointer field without a request field: %s" % ev)
    expect(c.ping(), "no pong after a stale cancel")
    c.close()


def case_busy_runs():
    c = spawn("--max-runs", "2")
    m1, m2 = marker("busy1"), marker("busy2")
    r1 = c.request("run", sleeper(m1))
    r2 = c.request("run", sleeper(m2))
    expect(wait_until(lambda: procs_with(m1) and procs_with(m2), 10), "runs never started")
    t0 = now()
    r3 = c.request("run", {"version": 1, "argv": ["/bin/true"]})
    ev = c.recv()
    expect(now() - t0 < 1.0, "busy took %.2f s" % (now() - t0))
    expect(ev.get("id") == r3 and failed_code(ev) == "busy", "third run: %s" % ev)
    expect(c.ping(), "no pong at the run limit")
    for r in (r1, r2):
        cid = c.request("cancel", {"target": r})
        evs = [c.recv(), c.recv()]
        expect(sorted(e["id"] for e in evs) == sorted([r, cid]), "cancel: %s" % evs)
    expect(gone(m1) and gone(m2), "cancelled runs still running")
    doc = c.run({"version": 1, "argv": ["/bin/true"]})
    expect(doc["status"] == "exited", "a run after the slots freed: %s" % doc)
    c.close()


def case_busy_total():
    path = os.path.join(TMP, "total.sock")
    proc = serve_socket(path, "--max-total", "2")
    try:
        a, b = connect(path), connect(path)
        ma, mb = marker("totA"), marker("totB")
        a.request("run", sleeper(ma))
        b.request("run", sleeper(mb))
        expect(wait_until(lambda: procs_with(ma) and procs_with(mb), 10), "runs never started")
        for c in (b, a):
            rid = c.request("run", {"version": 1, "argv": ["/bin/true"]})
            ev = c.recv()
            expect(ev.get("id") == rid and failed_code(ev) == "busy", "over --max-total: %s" % ev)
        # One client leaving frees its slot for the other; its jail dies,
        # the other client's run goes on.
        a.sock.close()
        expect(gone(ma), "the closed connection's jail is still running")
        expect(procs_with(mb), "the other client's jail died with it")

        def try_run():
            rid = b.request("run", {"version": 1, "argv": ["/bin/true"]})
            ev = b.recv()
            return ev if not failed_code(ev) == "busy" else None
        ev = wait_until(try_run, 10, 0.05)
        expect(ev and "exit" in ev, "no run after a slot freed: %s" % ev)
        b.sock.close()
        expect(gone(mb), "jail of the second connection still running")
        expect(stop(proc) == 0, "serve exit status %s" % proc.returncode)
    finally:
        if proc.poll() is None:
            proc.kill()


def case_proto_malformed():
    c = spawn()
    c.send_raw(struct.pack(">I", 5) + b"{oops")
    only_failed_then_eof(c, "protocol_error")


def case_proto_version():
    c = spawn()
    c.send({"version": 2, "id": 1, "ping": {}})
    only_failed_then_eof(c, "protocol_error")


def case_proto_unknown_field():
    c = spawn()
    c.send({"version": 1, "id": 1, "ping": {}, "extra": 1})
    only_failed_then_eof(c, "protocol_error")


def case_proto_unknown_message():
    c = spawn()
    c.send({"version": 1, "id": 1, "execute": {"argv": ["SECRET-ARG"]}})
    ev = only_failed_then_eof(c, "protocol_error")
    expect("SECRET" not in json.dumps(ev), "the failed event echoes the frame: %s" % ev)


def case_proto_oversized():
    # Only the header is sent: the refusal cannot wait for the payload.
    c = spawn("--max-frame", "1K")
    c.send_raw(struct.pack(">I", 1 << 20))
    only_failed_then_eof(c, "frame_oversized")


def case_proto_frame_limit():
    c = spawn("--max-frame", "1K")
    body = b'{"version":1,"id":1,"ping":{}}'
    c.send_raw(struct.pack(">I", 1024) + body + b" " * (1024 - len(body)))
    expect(c.recv() == {"version": 1, "id": 1, "pong": {}}, "a frame of exactly --max-frame")
    c.send_raw(struct.pack(">I", 1025) + body + b" " * (1025 - len(body)))
    only_failed_then_eof(c, "frame_oversized")


def case_proto_dup_id():
    c = spawn("--grace", "1s")
    m = marker("dupid")
    c.send({"version": 1, "id": 5, "run": sleeper(m)})
    expect(wait_until(lambda: procs_with(m), 10), "the run never started")
    c.send({"version": 1, "id": 5, "ping": {}})
    only_failed_then_eof(c, "protocol_error", grace=1)
    expect(gone(m, 0), "the jail outlived the broken connection")


def case_policy_violation():
    c = spawn()
    rid = c.request("run", {"version": 1, "policy": "strict", "argv": ["/bin/true"]})
    ev = c.recv()
    expect(ev.get("id") == rid and failed_code(ev) == "policy_violation", "policy: %s" % ev)
    expect(ev["failed"].get("pointer") == "/policy", "no /policy pointer field in %s" % ev)
    # default lets a request set any variable: the refusal is the network.
    rid = c.request("run", {"version": 1, "argv": ["/bin/true"], "network": "host",
                            "env": {"FOO": "SECRET-VALUE"}})
    ev = c.recv()
    expect(ev.get("id") == rid and failed_code(ev) == "policy_violation", "network: %s" % ev)
    expect("SECRET" not in json.dumps(ev), "the failed event echoes an env value: %s" % ev)
    expect(ev["failed"].get("pointer", "") == "/network", "no /network pointer field in %s" % ev)
    expect(c.ping(), "the connection did not survive a refused request")
    # Naming the pinned policy itself is fine.
    doc = c.run({"version": 1, "policy": "default", "argv": ["/bin/true"]})
    expect(doc["status"] == "exited", "policy default: %s" % doc)
    c.close()


def case_invalid_request():
    c = spawn()
    rid = c.request("run", {"version": 1})
    ev = c.recv()
    expect(ev.get("id") == rid and failed_code(ev) == "invalid_request", "no argv: %s" % ev)
    expect("/argv" in ev["failed"]["message"], "no pointer in %s" % ev)
    # The pointer is a field too, as in a result document's error.
    expect(ev["failed"].get("pointer") == "/argv", "no pointer field in %s" % ev)
    rid = c.request("run", {"version": 1, "argv": ["/bin/true"], "cwd": "SECRET-relative"})
    ev = c.recv()
    expect(ev.get("id") == rid and failed_code(ev) == "invalid_request", "cwd: %s" % ev)
    expect(ev["failed"].get("pointer") == "/cwd", "no /cwd pointer field in %s" % ev)
    expect("SECRET" not in json.dumps(ev), "the failed event echoes content: %s" % ev)
    rid = c.request("run", {"version": 1, "argv": ["/bin/true"], "bogus": 1})
    ev = c.recv()
    expect(ev.get("id") == rid and failed_code(ev) == "invalid_request", "unknown: %s" % ev)
    expect(ev["failed"].get("pointer") == "/bogus", "no /bogus pointer field in %s" % ev)
    expect(c.ping(), "the connection did not survive an invalid request")
    c.close()


def case_limits():
    c = spawn("--lifetime", "1s")
    t0 = now()
    doc = c.run({"version": 1, "argv": ["/bin/sleep", "30"]})
    took = now() - t0
    expect(doc["status"] == "failed" and doc["error"]["code"] == "timeout", "lifetime: %s" % doc)
    expect(0.9 <= took < 10, "the lifetime cap of 1s ended the run after %.2f s" % took)
    doc = c.run({"version": 1, "argv": ["/bin/sleep", "30"], "limits": {"wall_ms": 300}})
    expect(doc["status"] == "failed" and doc["error"]["code"] == "timeout", "wall: %s" % doc)
    c.close()


def case_disconnect():
    c = spawn("--grace", "1s")
    marks = [marker("disc%d" % i) for i in range(3)]
    for m in marks:
        c.request("run", sleeper(m, ignore_term=True))
    expect(wait_until(lambda: all(procs_with(m) for m in marks), 10), "runs never started")
    t0 = now()
    c.sock.close()
    for m in marks:
        expect(gone(m, 1 + 3 - (now() - t0)), "a jail outlived the disconnect by grace + 3 s")
    rc = c.proc.wait(T)
    expect(rc == 0, "serve --fd exit status %s" % rc)


def case_sigterm_drain():
    path = os.path.join(TMP, "drain.sock")
    proc = serve_socket(path, "--grace", "1s")
    try:
        a = connect(path)
        m = marker("drain")
        r1 = a.request("run", sleeper(m, ignore_term=True))
        expect(wait_until(lambda: procs_with(m), 10), "the run never started")
        t0 = now()
        proc.send_signal(signal.SIGTERM)
        r2 = a.request("run", {"version": 1, "argv": ["/bin/true"]})
        ev = a.recv()
        expect(ev.get("id") == r2 and failed_code(ev) == "busy", "new run while draining: %s" % ev)
        expect(a.ping(), "no pong while draining")
        # A new connection is not served: refused, closed, or busy.
        try:
            b = connect(path, retry=False)
            b.request("run", {"version": 1, "argv": ["/bin/true"]})
            ev = recv_or_eof(b)
            expect(ev is None or failed_code(ev) == "busy", "new connection while draining: %s" % ev)
        except (ConnectionRefusedError, FileNotFoundError, ConnectionResetError, BrokenPipeError):
            pass
        ev = a.recv()
        took = now() - t0
        expect(ev.get("id") == r1 and failed_code(ev) == "cancelled", "the drained run: %s" % ev)
        verbose("drained run killed %.3f s after SIGTERM" % took)
        expect(0.9 <= took <= 4, "the run was killed %.2f s after SIGTERM (grace 1s)" % took)
        expect(recv_or_eof(a) is None, "the connection stayed open after the drain")
        expect(proc.wait(T) == 0, "serve exited %s after SIGTERM" % proc.returncode)
        expect(gone(m), "the drained jail is still running")
        expect(not os.path.exists(path), "the socket file is left behind")
    finally:
        if proc.poll() is None:
            proc.kill()


def case_socket():
    # A stale socket is replaced; anything else at the path is left alone.
    path = os.path.join(TMP, "stale.sock")
    old = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    old.bind(path)
    old.close()
    proc = serve_socket(path)
    try:
        expect(connect(path).ping(), "no pong on a socket that replaced a stale one")
        expect(stop(proc) == 0, "serve exit status %s" % proc.returncode)
    finally:
        if proc.poll() is None:
            proc.kill()
    path = os.path.join(TMP, "regular-file")
    with open(path, "w") as f:
        f.write("keep me\n")
    r = subprocess.run([HUTCH, "serve", "--socket", path], capture_output=True, timeout=T)
    expect(r.returncode == 125, "--socket on a regular file exited %d" % r.returncode)
    with open(path) as f:
        expect(f.read() == "keep me\n", "--socket removed or changed a regular file")
    for mode in ("0600", "0640"):
        path = os.path.join(TMP, "mode%s.sock" % mode)
        proc = serve_socket(path, "--mode", mode)
        try:
            st = os.stat(path)
            expect(stat.S_ISSOCK(st.st_mode), "%s is not a socket" % path)
            expect(stat.S_IMODE(st.st_mode) == int(mode, 8),
                   "--mode %s gave %o" % (mode, stat.S_IMODE(st.st_mode)))
            a, b = connect(path), connect(path)
            m = marker("sock" + mode)
            a.request("run", sleeper(m))
            expect(wait_until(lambda: procs_with(m), 10), "the run never started")
            expect(b.ping(), "second client: no pong while the first has a run")
            doc = b.run({"version": 1, "argv": ["/bin/echo", "two"]})
            expect(doc["stdout"]["text"] == "two\n", "second client: %s" % doc)
            a.sock.close()
            expect(gone(m), "the first client's jail outlived its connection")
            expect(b.ping(), "second client: no pong after the first left")
            b.sock.close()
            expect(stop(proc) == 0, "serve exit status %s" % proc.returncode)
            expect(not os.path.exists(path), "the socket file is left behind")
        finally:
            if proc.poll() is None:
                proc.kill()


def activated(env_pid, sock):
    """Fork and exec hutch serve with sock as fd 3 and LISTEN_FDS=1; the
    child computes LISTEN_PID itself (exec keeps the pid): env_pid(pid)."""
    pid = os.fork()
    if pid == 0:
        try:
            log = os.open(LOG, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
            os.dup2(log, 1)
            os.dup2(log, 2)
            if sock.fileno() != 3:
                os.dup2(sock.fileno(), 3)	# inheritable
            else:
                os.set_inheritable(3, True)
            env = dict(os.environ, LISTEN_FDS="1", LISTEN_PID=str(env_pid(os.getpid())),
                       LISTEN_FDNAMES="hutch.socket")
            os.execve(HUTCH, [HUTCH, "serve"], env)
        finally:
            os._exit(127)
    return pid


class Reaped:
    """Exit statuses of the children we forked, once waited for."""
    done = {}


def reap(pid, timeout=T):
    """Exit status of pid (waited for with a bound), or None."""
    end = now() + timeout
    while pid not in Reaped.done:
        p, st = os.waitpid(pid, os.WNOHANG)
        if p == pid:
            Reaped.done[pid] = os.waitstatus_to_exitcode(st)
        elif now() >= end:
            return None
        else:
            time.sleep(0.02)
    return Reaped.done[pid]


def kill_child(pid):
    if reap(pid, 0) is None:
        os.kill(pid, signal.SIGKILL)
        reap(pid)


def case_socket_activation():
    path = os.path.join(TMP, "act.sock")
    ls = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    ls.bind(path)
    ls.listen(8)
    pid = activated(lambda me: me, ls)
    ls.close()
    try:
        c = connect(path)
        expect(c.ping(), "no pong through the activated socket")
        doc = c.run({"version": 1, "argv": ["/bin/echo", "activated"]})
        expect(doc["stdout"]["text"] == "activated\n", "run: %s" % doc)
        d = connect(path)
        expect(d.ping(), "a second connection on the activated socket")
        c.sock.close()
        d.sock.close()
        os.kill(pid, signal.SIGTERM)
        rc = reap(pid)
        expect(rc == 0, "activated serve exited %s after SIGTERM" % rc)
    finally:
        kill_child(pid)

    # LISTEN_PID naming another process: the descriptors are not ours.
    ls = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    ls.bind(os.path.join(TMP, "act2.sock"))
    ls.listen(8)
    pid = activated(lambda me: os.getppid(), ls)
    ls.close()
    try:
        rc = reap(pid)
        expect(rc == 125, "serve with a foreign LISTEN_PID exited %s, want 125" % rc)
    finally:
        kill_child(pid)

    # Accept=yes: fd 3 is one connected socket; serve answers on it and
    # exits when it closes.
    ours, theirs = socket.socketpair()
    pid = activated(lambda me: me, theirs)
    theirs.close()
    ours.settimeout(T)
    c = HutchClient(ours)
    try:
        expect(c.ping(), "no pong on an Accept=yes connection")
        ours.close()
        rc = reap(pid, 10)
        expect(rc == 0, "Accept=yes serve did not exit 0 when its connection closed: %s" % rc)
    finally:
        kill_child(pid)


def case_slow_reader():
    # 6 runs of 6 MB each; the client never reads. The server may keep at
    # most max(2 * max-frame, 16 MiB) queued for it, then cuts it off.
    c = spawn("--max-frame", "1K", "--grace", "1s")
    runs = 6
    for i in range(runs):
        c.request("run", {"version": 1, "argv": [
            "/bin/sh", "-c", "head -c 6000000 /dev/zero | tr '\\0' a; : %s" % marker("slow")]})
    peak = 0
    # AddressSanitizer's shadow and quarantine (256 MiB by default) need
    # room of their own, and on a loaded 2-core machine an instrumented
    # server needs more time to build and drop six results.
    san = sanitized(c.proc.pid)
    end = now() + (180 if san else 60)
    bound = (2048 if san else 200) * 1024
    while c.proc.poll() is None and now() < end:
        peak = max(peak, vm_kb(c.proc.pid, "VmHWM"), vm_kb(c.proc.pid, "VmRSS"))
        time.sleep(0.02)
    expect(c.proc.poll() is not None, "the server kept serving a client that never reads")
    expect(peak < bound, "the server grew to %d KiB" % peak)
    got = 0
    c.sock.settimeout(5)
    while True:
        b = c.sock.recv(1 << 20)
        if not b:
            break
        got += len(b)
    verbose("peak %d KiB, %d bytes reached the client" % (peak, got))
    expect(got < (16 << 20) + (4 << 20), "%d bytes were queued for a client that never read" % got)
    expect(got < runs * 6000000, "the client was sent everything (%d bytes)" % got)
    expect(gone(marker("slow"), 30 if san else 5), "jails outlived the cut-off connection")


# ---- the C client ----

def cclient(*args, **kw):
    return subprocess.run([CCLIENT, *args], capture_output=True, timeout=T, **kw)


def case_c_client_socket():
    path = os.path.join(TMP, "c.sock")
    proc = serve_socket(path)
    try:
        r = cclient("--socket", path, "ping")
        expect(r.returncode == 0, "ping: exit %d, %s" % (r.returncode, r.stderr))
        expect(json.loads(r.stdout) == {"version": 1, "id": 1, "pong": {}}, r.stdout)
        tricky = 'q"uo\\te \n\ttab \u00e9 \u2713 \x01\x1f\x7f {"json":[1]} /'
        r = cclient("--socket", path, "--json", "run", "--", "/usr/bin/printf", "%s", tricky)
        expect(r.returncode == 0, "run: exit %d, %s" % (r.returncode, r.stderr))
        ev = json.loads(r.stdout)
        expect(ev["id"] == 1 and ev["exit"]["status"] == "exited" and
               ev["exit"]["exit_code"] == 0, "run: %s" % ev)
        expect(ev["exit"]["stdout"]["text"] == tricky, "escaping: %r" % ev["exit"]["stdout"])
        # Without --json the same bytes come out as the command wrote them
        # (the client decodes the JSON escapes of live events and result).
        r = cclient("--socket", path, "run", "--", "/usr/bin/printf", "%s", tricky)
        expect(r.returncode == 0 and r.stdout == tricky.encode(), "decoding: %d %r"
               % (r.returncode, r.stdout))
        r = cclient("--socket", path, "--json", "run", "--", "/bin/sh", "-c", "exit 7")
        ev = json.loads(r.stdout)
        expect(r.returncode == 0 and ev["exit"]["exit_code"] == 7, "exit 7: %s" % ev)
        r = cclient("--socket", path, "run", "--", "/bin/sh", "-c", "exit 7")
        expect(r.returncode == 7, "exit 7 without --json: %d" % r.returncode)
        # A refused request is a final event too.
        r = cclient("--socket", path, "run", "--", "/bin/true", "\xff".encode("latin-1").decode("utf-8", "surrogateescape"))
        expect(r.returncode == 125, "a non-UTF-8 argument: exit %d" % r.returncode)
        r = cclient("--socket", path, "--json", "run", "--", "relative/../x")
        ev = json.loads(r.stdout)
        expect(r.returncode == 0 and ("failed" in ev or "exit" in ev), "refused run: %s" % ev)
        r = cclient("--socket", path, "bogus")
        expect(r.returncode == 125, "usage: exit %d" % r.returncode)
        expect(stop(proc) == 0, "serve exit status")
    finally:
        if proc.poll() is None:
            proc.kill()


def case_c_client_fd():
    ours, theirs = socket.socketpair()
    with open(LOG, "ab") as log:
        proc = subprocess.Popen([HUTCH, "serve", "--fd", str(theirs.fileno())],
                                pass_fds=(theirs.fileno(),), stdout=log, stderr=log)
    theirs.close()
    try:
        r = cclient("--fd", str(ours.fileno()), "run", "--", "/bin/sh", "-c",
                    "for i in 1 2; do echo $i; sleep 0.3; done", pass_fds=(ours.fileno(),))
        expect(r.returncode == 0, "run: exit %d, %s" % (r.returncode, r.stderr))
        expect(r.stdout == b"1\n2\n", "run: %r" % r.stdout)
        ours.close()
        expect(proc.wait(T) == 0, "serve --fd exit status %s" % proc.returncode)
    finally:
        if proc.poll() is None:
            proc.kill()


sys.exit(main(globals()))
EOF

check "ping gets pong, any id up to 2^53-1" tc ping
check "run: exit event with the result document" tc run_exit
check "live: a slow producer gets live events, 250 ms apart, none after exit" tc live_slow
check "live: a fast producer gets at most one live event per 250 ms" tc live_rate
check "live: snapshots are at most 64 KiB each" tc live_bounded
check "cancel: ack, failed cancelled, the jail is gone" tc cancel
check "busy: a run over --max-runs is refused at once" tc busy_runs
check "busy: a run over --max-total is refused; a leaving client frees its slots" tc busy_total
check "malformed JSON: one failed protocol_error, the connection ends" tc proto_malformed
check "wrong version: one failed protocol_error, the connection ends" tc proto_version
check "unknown field: one failed protocol_error, the connection ends" tc proto_unknown_field
check "unknown message: one failed protocol_error that echoes nothing" tc proto_unknown_message
check "oversized length: frame_oversized before the payload is sent" tc proto_oversized
check "--max-frame: exactly the limit accepted, one byte more refused" tc proto_frame_limit
check "duplicate id in flight: protocol_error, the jail is killed" tc proto_dup_id
check "another policy: policy_violation, the connection stays" tc policy_violation
check "invalid request: invalid_request, the connection stays" tc invalid_request
check "--lifetime caps a run; wall_ms too" tc limits
check "disconnect mid-run kills every jail within the grace period" tc disconnect
check "SIGTERM drains: busy, jails killed after the grace, exit 0" tc sigterm_drain
check "--socket with --mode, two clients at once; a stale socket replaced, a file kept" tc socket
check "socket activation: LISTEN_FDS/LISTEN_PID, listening and Accept=yes" tc socket_activation
check "a client that never reads is cut off; the server stays bounded" tc slow_reader
if [ -n "$cclient" ]; then
	check "C client: --socket ping and run, escaping" tc c_client_socket
	check "C client: --fd run" tc c_client_fd
else
	skip "C client: --socket ping and run, escaping" "examples/hutch-client not found (set HUTCH_CLIENT)"
	skip "C client: --fd run" "examples/hutch-client not found (set HUTCH_CLIENT)"
fi

# hutch-protocol(7): every option of `hutch serve --help` has its entry,
# every code the server sends is explained, and groff finds nothing to
# warn about.
page=
for f in ${HUTCH_SRCDIR:+"$HUTCH_SRCDIR/man/hutch-protocol.7"} "$here/../../man/hutch-protocol.7"; do
	if [ -f "$f" ]; then
		page=$f
		break
	fi
done
if [ -z "$page" ] && [ "${HUTCH_INSTALLED:-0}" = 1 ] && command -v man >/dev/null 2>&1; then
	f=$(man -w 7 hutch-protocol 2>/dev/null) || f=
	case $f in
	*.gz) gzip -dc "$f" >"$tmp/hutch-protocol.7" && page=$tmp/hutch-protocol.7 ;;
	?*) [ -f "$f" ] && page=$f ;;
	esac
fi
if [ -n "$page" ]; then
	# The OPTIONS section's tags, with \- as -.
	awk '/^\.SH / { on = ($0 == ".SH OPTIONS"); next }
		on && tp { print; tp = 0 } on && /^\.TP/ { tp = 1 }' "$page" |
		sed 's/\\-/-/g' >"$tmp/protocol-tags"
	missing=
	for o in $("$HUTCH" serve --help | grep -o -E -- '--[a-z][a-z0-9-]*' | sort -u); do
		grep -q -E -- "(^|[ \"])$o( |\"|,|$)" "$tmp/protocol-tags" || missing="$missing $o"
	done
	check "hutch-protocol(7) has an OPTIONS entry for each hutch serve option${missing:+ (missing:$missing)}" \
		test -z "$missing"
	missing=
	for code in protocol_error frame_oversized internal busy invalid_request policy_violation \
		sandbox_unavailable sandbox_probe_failed helper_not_found spawn_error policy_invalid \
		cancelled timeout state_lost; do
		awk '/^\.SH / { on = ($0 == ".SH ERROR CODES"); next } on' "$page" |
			grep -q -w -- "$code" || missing="$missing $code"
	done
	check "hutch-protocol(7) explains every code the server sends${missing:+ (missing:$missing)}" \
		test -z "$missing"
	if command -v groff >/dev/null 2>&1; then
		groff -ww -man -Tutf8 -z "$page" >"$tmp/groff.out" 2>&1
		check "groff -ww finds nothing to warn about in hutch-protocol(7)" \
			test ! -s "$tmp/groff.out"
		[ -s "$tmp/groff.out" ] && sed 's/^/# /' "$tmp/groff.out"
	else
		skip "groff -ww on hutch-protocol(7)" "no groff"
	fi
else
	skip "hutch-protocol(7) options, codes and groff" "the page is neither in the source tree nor installed"
fi

if [ "$tap_failed" != 0 ] && [ -s "$tmp/serve.log" ]; then
	diag "hutch serve stderr:"
	sed 's/^/# /' "$tmp/serve.log" | tail -n 40
fi
tap_done
