#!/bin/sh
# serve-sessions.sh: persistent workers of `hutch serve` (hutch-protocol(7)).
# A jailed Python counter keeps state across calls; a call past its
# timeout_ms fails, leaves a tombstone (state_lost until an explicit reset)
# and the action ran at most once (the worker logs each action it starts
# to a file outside the jail); reset starts afresh; another worker
# document, a worker that exits, one that writes an oversized frame or two
# frames all lose the session; sessions are bounded; session_close and
# closing the connection kill the workers (checked in /proc).
. "$(dirname "$0")/lib.sh"

# Mount sources must lie where the default policy allows request mounts
# (/tmp), whatever TMPDIR says.
tap_tmpdir serve-sessions /tmp

tap_serve_setup "hutch serve session tests"

# The worker, bound read-only into its jail at /opt/w. The state directory
# is bound read-write at /state: the jail is its owner there (idmapped when
# we are root, who may not lend a directory others may write).
mkdir "$tmp/w" "$tmp/state"
chmod 755 "$tmp/w" "$tmp/state"
cat >"$tmp/w/worker.py" <<'EOF'
# A session worker: one length-prefixed JSON request in on stdin, one
# length-prefixed reply out on stdout. Before acting it appends the op to
# argv[1], so the test can count how often an action started.
import json
import struct
import sys
import time

log_path = sys.argv[1]
rd, wr = sys.stdin.buffer, sys.stdout.buffer
count = 0


def read_exact(n):
    b = b""
    while len(b) < n:
        chunk = rd.read(n - len(b))
        if not chunk:
            sys.exit(0)
        b += chunk
    return b


def frame(b):
    return struct.pack(">I", len(b)) + b


while True:
    (n,) = struct.unpack(">I", read_exact(4))
    req = json.loads(read_exact(n))
    op = req["op"]
    with open(log_path, "a") as f:
        f.write("%s %s\n" % (op, req.get("tag", "-")))
    if op == "inc":
        count += 1
    elif op == "sleep":
        time.sleep(req["s"])
        count += 1
    elif op == "exit":
        sys.exit(0)
    elif op == "two":
        wr.write(frame(b"one") + frame(b"two"))
        wr.flush()
        continue
    elif op == "big":
        wr.write(struct.pack(">I", 1 << 20) + b"x" * 100)
        wr.flush()
        continue
    wr.write(frame(str(count).encode()))
    wr.flush()
EOF
chmod 644 "$tmp/w/worker.py"

cat >"$tmp/cases.py" <<'EOF'
# cases.py: one session test case per invocation (argv[1]), run by
# tapcase.main; exit 0 when it passed, diagnostics as TAP comments. Every
# wait is bounded.
import atexit
import base64
import json
import os
import shutil
import signal
import sys
import tempfile

from tapcase import T, TMP, Fail, expect, gone, main, now, procs_with, wait_until
from tapcase import spawn as spawn_server

STATE = os.path.join(TMP, "state")


def spawn(*opts, env=None):
    """The workers bind their script and state by path, which a server
    takes only with --allow-path-binds (serve-bind-fd.sh tests both)."""
    return spawn_server("--allow-path-binds", *opts, env=env)


class Worker:
    """A worker document for the counter, with its own marker (in the
    worker's argv, so /proc shows it) and its own action log."""
    n = 0

    def __init__(self, tag, **extra):
        Worker.n += 1
        self.mark = "hutch-session-test-%d-%s-%d" % (os.getpid(), tag, Worker.n)
        self.log = os.path.join(STATE, self.mark + ".log")
        self.doc = {
            "version": 1,
            "argv": ["/usr/bin/python3", "/opt/w/worker.py", "/state/" + self.mark + ".log",
                     self.mark],
            "mounts": [
                {"source": os.path.join(TMP, "w"), "target": "/opt/w", "mode": "ro"},
                {"source": STATE, "target": "/state", "mode": "rw"},
            ],
            # Far away: only what the test does may end a worker.
            "limits": {"wall_ms": 600000},
        }
        self.doc.update(extra)

    def actions(self):
        try:
            with open(self.log) as f:
                return f.read().splitlines()
        except FileNotFoundError:
            return []

    def running(self):
        return procs_with(self.mark)


def call(c, name, worker, op, timeout_ms=10000, reset=False, doc=None, **args):
    """Send one session call; its id."""
    body = {"name": name, "worker": doc if doc is not None else worker.doc,
            "input_base64": base64.b64encode(json.dumps(dict(op=op, **args)).encode()).decode(),
            "timeout_ms": timeout_ms}
    if reset:
        body["reset"] = True
    return c.request("session", body)


def answer(c, rid):
    ev = c.recv()
    expect(ev.get("id") == rid, "event for id %s while waiting for %d: %s"
           % (ev.get("id"), rid, ev))
    return ev


def reply(c, rid):
    ev = answer(c, rid)
    expect(set(ev) == {"version", "id", "reply"} and set(ev["reply"]) == {"base64"},
           "want a reply: %s" % ev)
    return base64.b64decode(ev["reply"]["base64"]).decode()


def failed(c, rid, code):
    ev = answer(c, rid)
    expect(ev.get("failed", {}).get("code") == code, "want failed %s: %s" % (code, ev))
    return ev


def count_up(c, name, w, start=1, n=3):
    for i in range(start, start + n):
        got = reply(c, call(c, name, w, "inc"))
        expect(got == str(i), "call %d answered %r" % (i, got))


# ---- cases ----

def case_counter():
    c = spawn()
    w = Worker("counter")
    count_up(c, "s1", w, 1, 3)
    expect(len(w.running()) >= 1, "no worker process")
    expect(w.actions() == ["inc -"] * 3, "actions: %s" % w.actions())
    # A second session has its own worker and state.
    w2 = Worker("counter2")
    count_up(c, "s2", w2, 1, 2)
    count_up(c, "s1", w, 4, 1)
    c.close()
    expect(gone(w.mark) and gone(w2.mark), "workers outlived the connection")


def case_timeout():
    c = spawn()
    w = Worker("timeout")
    count_up(c, "s1", w, 1, 3)
    t0 = now()
    rid = call(c, "s1", w, "sleep", timeout_ms=700, s=30, tag="slow")
    failed(c, rid, "timeout")
    took = now() - t0
    expect(0.6 <= took < 10, "the timeout of 700 ms came after %.2f s" % took)
    expect(gone(w.mark), "the timed-out worker is still running")
    # The tombstone: the next call fails, and does not run its action.
    for tag in ("lost1", "lost2"):
        rid = call(c, "s1", w, "inc", tag=tag)
        failed(c, rid, "state_lost")
    acts = w.actions()
    expect(acts == ["inc -"] * 3 + ["sleep slow"],
           "the action ran more than once, or a call ran on a lost session: %s" % acts)
    # Only an explicit reset goes on, on a fresh worker.
    got = reply(c, call(c, "s1", w, "inc", reset=True, tag="reset"))
    expect(got == "1", "after reset the counter says %r" % got)
    got = reply(c, call(c, "s1", w, "inc"))
    expect(got == "2", "the reset session keeps state again: %r" % got)
    acts = w.actions()
    expect(acts.count("sleep slow") == 1, "the timed-out action was replayed: %s" % acts)
    expect(acts[4:] == ["inc reset", "inc -"], "actions after reset: %s" % acts)
    c.close()
    expect(gone(w.mark), "the worker outlived the connection")


def case_cancel():
    c = spawn()
    w = Worker("cancel")
    count_up(c, "s1", w, 1, 1)
    rid = call(c, "s1", w, "sleep", s=30, tag="slow")
    expect(wait_until(lambda: "sleep slow" in w.actions(), 10), "the action never started")
    # The session is busy while a call is in flight.
    bid = call(c, "s1", w, "inc", tag="busy")
    failed(c, bid, "busy")
    cid = c.request("cancel", {"target": rid})
    evs = [c.recv(), c.recv()]
    expect({"version": 1, "id": cid, "ack": {}} in evs, "no ack: %s" % evs)
    expect(any(e.get("id") == rid and e.get("failed", {}).get("code") == "cancelled"
               for e in evs), "the call was not answered cancelled: %s" % evs)
    expect(gone(w.mark), "the cancelled worker is still running")
    failed(c, call(c, "s1", w, "inc", tag="lost"), "state_lost")
    expect(w.actions() == ["inc -", "sleep slow"], "actions: %s" % w.actions())
    expect(reply(c, call(c, "s1", w, "inc", reset=True)) == "1", "reset after cancel")
    c.close()


def case_busy_call():
    c = spawn()
    w = Worker("busycall")
    rid = call(c, "s1", w, "sleep", s=0.5)
    bid = call(c, "s1", w, "inc", tag="busy")
    failed(c, bid, "busy")
    expect(reply(c, rid) == "1", "the call in flight was disturbed")
    expect(reply(c, call(c, "s1", w, "inc")) == "2", "state after a busy refusal")
    expect("inc busy" not in w.actions(), "a refused call ran: %s" % w.actions())
    c.close()


def case_changed_worker():
    c = spawn()
    w = Worker("changed")
    count_up(c, "s1", w, 1, 2)
    other = dict(w.doc, env={"LANG": "C"})
    failed(c, call(c, "s1", w, "inc", doc=other, tag="other"), "state_lost")
    expect(gone(w.mark), "the worker survived its document changing")
    # Going back to the first document does not bring the state back.
    failed(c, call(c, "s1", w, "inc", tag="back"), "state_lost")
    expect(w.actions() == ["inc -"] * 2, "actions: %s" % w.actions())
    expect(reply(c, call(c, "s1", w, "inc", reset=True, doc=other)) == "1", "reset to the new one")
    expect(reply(c, call(c, "s1", w, "inc", doc=other)) == "2", "state under the new document")
    c.close()


def case_policy():
    c = spawn()
    # The server's policy is pinned: a worker cannot ask for another one.
    w = Worker("policy", policy="strict")
    ev = failed(c, call(c, "s1", w, "inc"), "policy_violation")
    # The field at fault, as a pointer into the worker document.
    expect(ev["failed"].get("pointer") == "/policy", "no /policy pointer field in %s" % ev)
    expect(not w.actions(), "a worker started under another policy")
    # A live session whose worker document now names a policy (even the
    # pinned one) is no longer the session it was.
    w = Worker("policy2")
    count_up(c, "s2", w, 1, 2)
    failed(c, call(c, "s2", w, "inc", doc=dict(w.doc, policy="default")), "state_lost")
    expect(gone(w.mark), "the worker survived its policy changing")
    expect(reply(c, call(c, "s2", w, "inc", reset=True, doc=dict(w.doc, policy="default"))) == "1",
           "reset under the named policy")
    c.close()


def case_worker_exit():
    c = spawn()
    w = Worker("exit")
    count_up(c, "s1", w, 1, 2)
    failed(c, call(c, "s1", w, "exit"), "state_lost")
    expect(gone(w.mark), "the worker is still running")
    failed(c, call(c, "s1", w, "inc", tag="lost"), "state_lost")
    expect(w.actions() == ["inc -", "inc -", "exit -"], "actions: %s" % w.actions())
    expect(reply(c, call(c, "s1", w, "inc", reset=True)) == "1", "reset after exit")
    c.close()


def case_worker_oversized():
    c = spawn("--max-frame", "1K")
    w = Worker("big")
    count_up(c, "s1", w, 1, 1)
    failed(c, call(c, "s1", w, "big"), "frame_oversized")
    expect(gone(w.mark), "the worker is still running")
    failed(c, call(c, "s1", w, "inc", tag="lost"), "state_lost")
    expect(reply(c, call(c, "s1", w, "inc", reset=True)) == "1", "reset after an oversized frame")
    c.close()


def case_worker_two_frames():
    c = spawn()
    w = Worker("two")
    count_up(c, "s1", w, 1, 1)
    # Written at once, the frames normally arrive together (protocol
    # error); should the first be read alone, it is the reply and the
    # second, unasked for, loses the session. Either way: lost.
    ev = answer(c, call(c, "s1", w, "two"))
    code = ev.get("failed", {}).get("code")
    expect(code == "protocol_error" or "reply" in ev, "two frames: %s" % ev)
    expect(gone(w.mark), "the worker is still running")
    failed(c, call(c, "s1", w, "inc", tag="lost"), "state_lost")
    expect(reply(c, call(c, "s1", w, "inc", reset=True)) == "1", "reset after two frames")
    c.close()


def case_bound():
    c = spawn()
    ws = [Worker("bound%d" % i) for i in range(5)]
    for i, w in enumerate(ws[:4]):
        count_up(c, "s%d" % i, w, 1, 1)
    failed(c, call(c, "s4", ws[4], "inc"), "busy")
    expect(not ws[4].actions(), "the fifth worker ran")
    # Sessions already open go on; closing one makes room.
    count_up(c, "s0", ws[0], 2, 1)
    rid = c.request("session_close", {"name": "s3"})
    expect(answer(c, rid) == {"version": 1, "id": rid, "ack": {}}, "session_close")
    count_up(c, "s4", ws[4], 1, 1)
    c.close()
    for w in ws:
        expect(gone(w.mark), "a worker outlived the connection")
    c = spawn("--max-sessions", "1")
    w1, w2 = Worker("max1"), Worker("max2")
    count_up(c, "a", w1, 1, 1)
    failed(c, call(c, "b", w2, "inc"), "busy")
    c.close()


def case_close():
    c = spawn()
    w = Worker("close")
    count_up(c, "s1", w, 1, 2)
    expect(w.running(), "no worker process")
    rid = c.request("session_close", {"name": "s1"})
    expect(answer(c, rid) == {"version": 1, "id": rid, "ack": {}}, "session_close")
    expect(gone(w.mark), "the closed session's worker is still running")
    rid = c.request("session_close", {"name": "s1"})
    failed(c, rid, "invalid_request")
    # The name is free again: a new session starts from nothing.
    count_up(c, "s1", w, 1, 1)
    # Closing a session with a call in flight answers that call too.
    rid = call(c, "s1", w, "sleep", s=30, tag="slow")
    expect(wait_until(lambda: "sleep slow" in w.actions(), 10), "the action never started")
    cid = c.request("session_close", {"name": "s1"})
    evs = [c.recv(), c.recv()]
    expect({"version": 1, "id": cid, "ack": {}} in evs, "no ack: %s" % evs)
    expect(any(e.get("id") == rid and e.get("failed", {}).get("code") == "cancelled"
               for e in evs), "the call in flight was not answered: %s" % evs)
    expect(gone(w.mark), "the worker is still running")
    expect(c.ping(), "no pong after closing sessions")
    c.close()


def case_probe():
    # A worker is a jail like any run: the first one on a server waits for
    # the sandbox probe, whose verdict lands in the cache directory.
    # under /dev/shm: hutch loads no cache from a runtime directory a
    # request bind could reach (issue 19)
    cache = tempfile.mkdtemp(prefix="hutch-probe-cache.", dir="/dev/shm")
    atexit.register(shutil.rmtree, cache, True)
    c = spawn(env=dict(os.environ, XDG_RUNTIME_DIR=cache))
    w = Worker("probe")
    count_up(c, "s1", w, 1, 1)
    probed = [f for f in os.listdir(os.path.join(cache, "hutch"))
              if f.startswith("probe-")] if os.path.isdir(os.path.join(cache, "hutch")) else []
    expect(probed, "a session worker started without the sandbox probe")
    c.close()


def case_drain():
    # SIGTERM: new calls are busy; at the end of the grace period the call
    # in flight is answered (cancelled) before its worker is killed and
    # the connection ends; the server exits 0.
    c = spawn("--grace", "1s")
    w, w2 = Worker("drain"), Worker("drain2")
    count_up(c, "s1", w, 1, 1)
    count_up(c, "s2", w2, 1, 1)
    rid = call(c, "s1", w, "sleep", s=30, tag="slow")
    expect(wait_until(lambda: "sleep slow" in w.actions(), 10), "the action never started")
    c.proc.send_signal(signal.SIGTERM)
    failed(c, call(c, "s2", w2, "inc", tag="late"), "busy")
    failed(c, rid, "cancelled")
    try:
        ev = c.recv()
        raise Fail("an event after the drain: %s" % ev)
    except (EOFError, ConnectionResetError):
        pass
    expect(c.proc.wait(T) == 0, "serve exited %s after SIGTERM" % c.proc.returncode)
    expect(gone(w.mark, 0) and gone(w2.mark, 0), "a worker outlived the drain")
    expect("inc late" not in w2.actions(), "a call ran while draining")


def case_disconnect():
    c = spawn("--grace", "1s")
    ws = [Worker("disc%d" % i) for i in range(3)]
    for i, w in enumerate(ws):
        count_up(c, "s%d" % i, w, 1, 1)
    rid = call(c, "s0", ws[0], "sleep", s=30, tag="slow")
    expect(wait_until(lambda: "sleep slow" in ws[0].actions(), 10), "the action never started")
    expect(all(w.running() for w in ws), "workers not running")
    t0 = now()
    c.sock.close()
    for w in ws:
        expect(gone(w.mark, 1 + 3 - (now() - t0)), "a worker outlived the disconnect")
    rc = c.proc.wait(T)
    expect(rc == 0, "serve --fd exit status %s" % rc)


sys.exit(main(globals()))
EOF

check "a session keeps state across calls (1, 2, 3)" tc counter
check "timeout: failed, tombstone (state_lost), ran once, reset starts afresh" tc timeout
check "cancel of a call: cancelled, state_lost, the worker is gone" tc cancel
check "a second call while one is in flight is busy; the first goes on" tc busy_call
check "another worker document: state_lost until reset" tc changed_worker
check "another policy: refused; a policy named later: state_lost" tc policy
check "a worker that exits: state_lost" tc worker_exit
check "a worker's oversized frame: frame_oversized, then state_lost" tc worker_oversized
check "a worker's two frames: the session is lost" tc worker_two_frames
check "sessions per connection are bounded (4, --max-sessions)" tc bound
check "session_close: ack, the worker is gone, the name starts afresh" tc close
check "the first worker on a server waits for the sandbox probe" tc probe
check "SIGTERM: calls busy, the call in flight answered, workers killed" tc drain
check "closing the connection kills every worker" tc disconnect

if [ "$tap_failed" != 0 ] && [ -s "$tmp/serve.log" ]; then
	diag "hutch serve stderr:"
	sed 's/^/# /' "$tmp/serve.log" | tail -n 40
fi
tap_done
