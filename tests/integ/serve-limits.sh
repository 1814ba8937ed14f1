#!/bin/sh
# serve-limits.sh: what keeps `hutch serve` up for everyone (issue 9):
# the server-wide output budget (--max-buffered) measured in the server's
# VmHWM, an event json-c cannot render failing alone, idle connections
# and half-sent frames timing out (--idle-timeout), connections bounded
# per user (--max-conn-per-uid), --socket refusing a path another user
# can take or swap, and both example clients refusing a server of the
# wrong uid (SO_PEERCRED). Checks that need a second uid run as root.
. "$(dirname "$0")/lib.sh"

tap_tmpdir serve-limits

tap_serve_setup "hutch serve limits" c

cat >"$tmp/cases.py" <<'EOF'
# cases.py: one test case per invocation (argv[1]); see tapcase.py.
import json
import os
import select
import socket
import struct
import subprocess
import sys
import time

from tapcase import (HUTCH, T, TMP, Fail, HutchClient, diag, expect, main, now, sanitized,
                     serve_socket, spawn, stop, vm_kb, wait_until)

CCLIENT = os.environ.get("CCLIENT", "")
CLIENT_DIR = os.environ["CLIENT_DIR"]
NOBODY = 65534
MiB = 1 << 20


def as_nobody():
    os.setgroups([])
    os.setgid(NOBODY)
    os.setuid(NOBODY)


def private_dir(name, mode=0o755):
    d = os.path.join(TMP, name)
    os.mkdir(d)
    os.chmod(d, mode)
    return d



def connect(path):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(T)
    s.connect(path)
    return HutchClient(s)


def writer(nbytes, byte="a", **limits):
    lim = {"wall_ms": 300000}
    lim.update(limits)
    tr = "\\001" if byte == "\x01" else byte
    return {"version": 1, "limits": lim,
            "argv": ["/bin/sh", "-c", "head -c %d /dev/zero | tr '\\0' '%s'" % (nbytes, tr)]}


def truncating_policy():
    """The default policy, but overflow truncates and partial output is kept."""
    out = subprocess.run([HUTCH, "policy", "show", "default"], capture_output=True, timeout=T)
    expect(out.returncode == 0, "policy show default: %s" % out.stderr[:300])
    pol = json.loads(out.stdout)
    pol["on_limit"] = {"partial_output": True, "overflow": "truncate"}
    path = os.path.join(TMP, "truncate.json")
    with open(path, "w") as f:
        json.dump(pol, f)
    return path


def peak_while(proc, pred):
    """The server's VmHWM (KiB) once pred() is true; bounded."""
    end = now() + (600 if sanitized(proc.pid) else 240)
    while not pred() and now() < end and proc.poll() is None:
        time.sleep(0.05)
    return vm_kb(proc.pid, "VmHWM")


def budget_runs(opts, nruns, nbytes, limits):
    """nruns runs of nbytes each on one connection of a server with opts;
    their final events, the server's VmHWM before and after (KiB)."""
    c = spawn("--max-runs", str(nruns), *opts)
    expect(c.ping(), "no pong")
    base = vm_kb(c.proc.pid, "VmHWM")
    ids = [c.request("run", writer(nbytes, **limits)) for _ in range(nruns)]
    finals = {}

    def collect():
        while len(finals) < nruns:
            ev = c.recv()
            if "live" not in ev:
                finals[ev["id"]] = ev
        return True
    import threading
    t = threading.Thread(target=collect, daemon=True)
    t.start()
    peak = peak_while(c.proc, lambda: not t.is_alive())
    t.join(1)
    expect(sorted(finals) == sorted(ids), "final events for %s, want %s" % (sorted(finals), ids))
    expect(c.ping(), "no pong after the runs")
    san = sanitized(c.proc.pid)
    c.close()
    diag("VmHWM %d KiB before, %d KiB with the runs" % (base, peak))
    return [finals[i] for i in ids], base, peak, san


def margin_kb(san):
    """What the server may hold beyond the budget: 32 MiB, and under
    AddressSanitizer its quarantine of freed blocks too (256 MiB by
    default: every realloc of a growing capture leaves one there)."""
    return (32 + (320 if san else 0)) * 1024


def case_budget_kill():
    # Under the default policy (overflow kills), four runs of 300 MiB each
    # and a 32 MiB budget: every run dies with output_overflow naming the
    # budget, and the server holds about the budget, never 1.2 GiB.
    budget = 32
    evs, base, peak, san = budget_runs(["--max-buffered", "%dM" % budget], 4, 300 * MiB,
                                  {"stdout_bytes": 400 * MiB})
    for ev in evs:
        doc = ev.get("exit")
        expect(doc and doc["status"] == "failed" and doc["error"]["code"] == "output_overflow" and
               doc["error"].get("limit") == "max_buffered", "want output_overflow at max_buffered: %s"
               % str(ev)[:400])
    expect(peak < base + budget * 1024 + margin_kb(san),
           "the server grew by %d KiB with a %d MiB budget" % (peak - base, budget))


def case_budget_truncate():
    # A policy that truncates: the runs go on to the end, their results
    # say truncated, and the server holds about the budget.
    budget = 64
    evs, base, peak, san = budget_runs(["--max-buffered", "%dM" % budget, "--policy", truncating_policy()],
                                  4, 200 * MiB, {"stdout_bytes": 400 * MiB})
    kept = 0
    for ev in evs:
        doc = ev.get("exit")
        expect(doc and doc["status"] == "exited" and doc["exit_code"] == 0, "run: %s" % str(ev)[:400])
        out = doc["stdout"]
        expect(out["truncated"] is True and out["bytes"] == 200 * MiB, "stdout: %s" % str(out)[:200])
        kept += len(out.get("text", ""))
    expect(0 < kept <= budget * MiB // 4, "%d bytes kept with a %d MiB budget" % (kept, budget))
    expect(peak < base + budget * 1024 + margin_kb(san),
           "the server grew by %d KiB with a %d MiB budget" % (peak - base, budget))


def case_budget_control():
    # Control: with room in the budget, a run keeps all its 100 MiB and
    # the measurement sees the server hold them.
    evs, base, peak, san = budget_runs(["--max-buffered", "1G", "--policy", truncating_policy()],
                                  1, 100 * MiB, {"stdout_bytes": 400 * MiB})
    out = evs[0]["exit"]["stdout"]
    expect(out["truncated"] is False and len(out["text"]) == 100 * MiB, "stdout: %s" % str(out)[:200])
    expect(peak > base + 100 * 1024, "VmHWM grew by %d KiB only" % (peak - base))


def case_unrenderable():
    # 400 MiB of \x01 escape to 2.4 GB of JSON, more than json-c can hold:
    # that run fails alone (or comes back cut to what renders), the server
    # lives on, and another client's run at the same time completes. The
    # budget is raised so that it is not what stops the run.
    path = os.path.join(private_dir("unrender"), "h.sock")
    # No idle timeout: the other client waits for as long as the big run takes.
    proc = serve_socket(path, "--max-buffered", "8G", "--idle-timeout", "0")
    try:
        a, b = connect(path), connect(path)
        a.sock.settimeout(600)
        ra = a.request("run", writer(400 * MiB, "\x01", stdout_bytes=400 * MiB))
        rb = b.request("run", {"version": 1, "argv": ["/bin/sh", "-c", "sleep 3; echo other"]})
        ev = b.wait_final(rb)
        expect(ev.get("exit", {}).get("stdout", {}).get("text") == "other\n",
               "the other client's run: %s" % str(ev)[:300])
        ev = a.wait_final(ra)
        # Failed alone, whichever part refused it: the event that cannot
        # be rendered, or the stdout cap counting the escaping.
        doc = ev.get("exit", {})
        ok = ("failed" in ev and ev["failed"]["code"] in ("output_overflow", "internal")) or \
             (doc.get("status") == "failed" and doc["error"]["code"] == "output_overflow") or \
             doc.get("stdout", {}).get("bytes") == 400 * MiB
        expect(ok, "the big run: %s" % str(ev)[:300])
        diag("the big run: %s" % str(ev)[:200])
        expect(proc.poll() is None, "the server died (exit %s)" % proc.returncode)
        expect(a.ping() and b.ping(), "no pong after the big run")
        expect(connect(path).ping(), "a new client gets no pong")
    finally:
        stop(proc)


def events_or_eof(socks, timeout):
    """For each socket: the events it got within timeout, and whether it
    ended (EOF); a socket that ends stops being read."""
    got = {s: [b"", False] for s in socks}
    end = now() + timeout
    live = list(socks)
    while live and now() < end:
        r, _, _ = select.select(live, [], [], max(0, end - now()))
        for s in r:
            try:
                d = s.recv(65536)
            except OSError:
                d = b""
            if d:
                got[s][0] += d
            else:
                got[s][1] = True
                live.remove(s)
    return got


def frames(data):
    out = []
    while len(data) >= 4:
        (n,) = struct.unpack(">I", data[:4])
        out.append(json.loads(data[4:4 + n]))
        data = data[4 + n:]
    return out


PING_AS_OTHER = r'''
import json, socket, struct, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.settimeout(20)
s.connect(sys.argv[1])
d = json.dumps({"version": 1, "id": 1, "ping": {}}).encode()
s.sendall(struct.pack(">I", len(d)) + d)
b = b""
while len(b) < 4 or len(b) < 4 + struct.unpack(">I", b[:4])[0]:
    c = s.recv(4096)
    if not c:
        break
    b += c
print(b[4:].decode())
'''


def case_conn_per_uid():
    # 256 idle connections of one user: 32 are kept (the default bound),
    # the others get busy and the end at once; another user still gets in
    # (root only); the idle ones are closed after --idle-timeout.
    d = private_dir("peruid")
    path = os.path.join(d, "h.sock")
    idle = 8
    proc = serve_socket(path, "--mode", "0666", "--idle-timeout", "%ds" % idle)
    try:
        t0 = now()
        socks = []
        for _ in range(256):
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            end = now() + T
            while True:
                try:
                    s.connect(path)
                    break
                except BlockingIOError:	# the backlog is full for a moment
                    expect(now() < end, "the server stopped accepting")
                    time.sleep(0.01)
            socks.append(s)
        got = events_or_eof(socks, 2)
        refused = [s for s in socks if got[s][1]]
        kept = [s for s in socks if not got[s][1]]
        expect(len(kept) == 32 and len(refused) == 224,
               "%d kept, %d refused; want 32 and 224" % (len(kept), len(refused)))
        for s in refused:
            evs = frames(got[s][0])
            expect(len(evs) == 1 and evs[0]["id"] == 0 and evs[0]["failed"]["code"] == "busy",
                   "a refused connection got %s" % evs)
        if os.geteuid() == 0:
            r = subprocess.run([sys.executable, "-c", PING_AS_OTHER, path], preexec_fn=as_nobody,
                               capture_output=True, timeout=T)
            expect(r.returncode == 0 and json.loads(r.stdout) == {"version": 1, "id": 1, "pong": {}},
                   "the second user got %s %s" % (r.stdout[:200], r.stderr[:300]))
        got = events_or_eof(kept, idle + 10)
        closed_at = now() - t0
        for s in kept:
            evs = frames(got[s][0])
            expect(got[s][1], "an idle connection was left open after %.1f s" % closed_at)
            expect(len(evs) == 1 and evs[0]["failed"]["code"] == "timeout",
                   "an idle connection got %s" % evs)
        expect(closed_at >= idle - 0.5, "idle connections closed after %.1f s" % closed_at)
        expect(connect(path).ping(), "no pong once the idle ones are gone")
        for s in socks:
            s.close()
    finally:
        stop(proc)


def case_idle_slowloris():
    # A frame sent a byte at a time is as idle as silence; a run in flight
    # keeps its connection, whose clock starts again at the result.
    path = os.path.join(private_dir("slow"), "h.sock")
    idle = 2
    proc = serve_socket(path, "--idle-timeout", "%ds" % idle)
    try:
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.settimeout(T)
        s.connect(path)
        t0 = now()
        s.sendall(struct.pack(">I", 1000))
        ended = None
        while now() - t0 < idle + 10:
            try:
                s.sendall(b" ")
            except OSError:
                ended = now() - t0
                break
            r, _, _ = select.select([s], [], [], 0.25)
            if r:
                data = s.recv(65536)
                evs = frames(data) if data else []
                expect(not data or (len(evs) == 1 and evs[0]["failed"]["code"] == "timeout"),
                       "the dribbling client got %s" % data[:200])
                ended = now() - t0
                break
        expect(ended is not None, "a client dribbling one frame was never closed")
        expect(idle - 0.5 <= ended <= idle + 5, "closed after %.1f s" % ended)
        c = connect(path)
        t0 = now()
        doc = c.run({"version": 1, "argv": ["/bin/sh", "-c", "sleep %d; echo done" % (idle * 2)]})
        expect(doc["stdout"]["text"] == "done\n", "run: %s" % doc)
        expect(c.ping(), "closed right after a run longer than the idle timeout")
        c.sock.settimeout(idle + 10)
        ev = c.recv()
        expect(ev["id"] == 0 and ev["failed"]["code"] == "timeout", "then: %s" % ev)
        expect(now() - t0 >= idle * 3 - 0.5, "closed too early")
    finally:
        stop(proc)


def serve_refused(path, *opts):
    r = subprocess.run([HUTCH, "serve", "--socket", path, *opts], capture_output=True, timeout=T)
    err = r.stderr.decode()
    expect(r.returncode == 125, "serve --socket %s exited %d" % (path, r.returncode))
    expect(err.count("\n") == 1 and err.startswith("hutch serve: --socket %s: " % path),
           "want one line naming --socket and the path: %r" % err)
    return err


def listen_at(path):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.bind(path)
    s.listen(4)
    return s


def case_socket_rules():
    # Refused: a directory others may write, an ancestor others may write
    # (not sticky), our own socket with a server on it, a file. Control: a
    # private directory serves.
    d = private_dir("gw", 0o775)
    err = serve_refused(os.path.join(d, "h.sock"))
    expect("writable by others" in err, err)
    ww = private_dir("ww", 0o777)
    inner = os.path.join(ww, "inner")
    os.mkdir(inner, 0o700)
    err = serve_refused(os.path.join(inner, "h.sock"))
    expect("writable by others" in err, err)
    d = private_dir("busy")
    path = os.path.join(d, "h.sock")
    held = listen_at(path)
    err = serve_refused(path)
    expect("already listening" in err, err)
    c = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    c.connect(path)	# still the first listener's
    c.close()
    held.close()
    with open(os.path.join(d, "file"), "w") as f:
        f.write("keep")
    err = serve_refused(os.path.join(d, "file"))
    expect("not a socket" in err, err)
    path = os.path.join(private_dir("ok", 0o700), "h.sock")
    proc = serve_socket(path)
    try:
        expect(connect(path).ping(), "no pong in a private directory")
    finally:
        stop(proc)
    expect(not os.path.exists(path), "the socket was left behind")


SQUAT = r'''
import os, socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.bind(sys.argv[1])
s.listen(8)
print("ready", flush=True)
got = 0
s.settimeout(15)
try:
    while True:
        c, _ = s.accept()
        c.settimeout(3)
        d = b""
        try:	# one whole frame, whatever the writes it came in
            while len(d) < 4 or len(d) < 4 + int.from_bytes(d[:4], "big"):
                more = c.recv(65536)
                if not more:
                    break
                d += more
        except OSError:
            pass
        got += len(d)
        with open(sys.argv[2], "w") as f:
            f.write(str(got))
        if d:
            r = b'{"version":1,"id":1,"pong":{}}'
            c.sendall(len(r).to_bytes(4, "big") + r)
        c.close()
except OSError:
    pass
'''


def squatter(path, count_file):
    p = subprocess.Popen([sys.executable, "-c", SQUAT, path, count_file], preexec_fn=as_nobody,
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    expect(p.stdout.readline() == b"ready\n", "the other user could not listen at %s" % path)
    return p


def received(count_file):
    try:
        with open(count_file) as f:
            return int(f.read() or 0)
    except FileNotFoundError:
        return 0


def case_socket_squatted():
    # Another user binds the path first in a sticky, world-writable
    # directory (as /tmp): serve refuses. Another user's socket in a
    # directory that passes: refused too, and left alone.
    sticky = private_dir("sticky", 0o1777)
    path = os.path.join(sticky, "h.sock")
    count = os.path.join(sticky, "squat.count")
    sq = squatter(path, count)
    try:
        err = serve_refused(path)
        expect("writable by others" in err, err)
        expect(os.stat(path).st_uid == NOBODY, "the other user's socket is gone")
    finally:
        sq.kill()
        sq.wait()
    d = private_dir("theirs")
    path = os.path.join(d, "h.sock")
    listen_at(path).close()
    os.chown(path, NOBODY, NOBODY)
    err = serve_refused(path)
    expect("another user's socket" in err, err)
    expect(os.path.exists(path), "another user's socket was removed")
    nd = private_dir("nobodys")
    os.chown(nd, NOBODY, NOBODY)
    err = serve_refused(os.path.join(nd, "h.sock"))
    expect("belongs to another user" in err, err)


def case_client_refuses_impostor():
    # A server run by another uid: both clients refuse before sending a
    # byte; told to expect that uid, they talk to it (the control).
    d = private_dir("impostor")
    os.chown(d, NOBODY, NOBODY)
    path = os.path.join(d, "h.sock")
    count = os.path.join(d, "impostor.count")
    sq = squatter(path, count)
    try:
        py = [sys.executable, os.path.join(CLIENT_DIR, "hutch_client.py")]
        r = subprocess.run(py + ["--socket", path, "ping"], capture_output=True, timeout=T)
        expect(r.returncode == 125 and b"uid 65534" in r.stderr, "python client: %d %s"
               % (r.returncode, r.stderr[-300:]))
        if CCLIENT:
            r = subprocess.run([CCLIENT, "--socket", path, "ping"], capture_output=True, timeout=T)
            expect(r.returncode == 125 and b"uid 65534" in r.stderr, "C client: %d %s"
                   % (r.returncode, r.stderr[-300:]))
        time.sleep(0.2)
        expect(received(count) == 0, "the impostor received %d bytes" % received(count))
        r = subprocess.run(py + ["--expect-uid", str(NOBODY), "--socket", path, "ping"],
                           capture_output=True, timeout=T)
        expect(r.returncode == 0 and r.stdout == b"pong\n", "python client, --expect-uid: %d %s %s"
               % (r.returncode, r.stdout, r.stderr[-300:]))
        if CCLIENT:
            r = subprocess.run([CCLIENT, "--expect-uid", str(NOBODY), "--socket", path, "ping"],
                               capture_output=True, timeout=T)
            expect(r.returncode == 0, "C client, --expect-uid: %d %s" % (r.returncode, r.stderr))
        expect(wait_until(lambda: received(count) > 0, 5), "the control sent nothing")
    finally:
        sq.kill()
        sq.wait()


def case_client_expect_uid():
    # Any caller: a server of our own, but the client told to expect
    # another uid refuses it; told our uid, it talks.
    path = os.path.join(private_dir("expect", 0o700), "h.sock")
    proc = serve_socket(path)
    other = str(4242 if os.geteuid() != 4242 else 4243)
    try:
        py = [sys.executable, os.path.join(CLIENT_DIR, "hutch_client.py")]
        r = subprocess.run(py + ["--expect-uid", other, "--socket", path, "ping"],
                           capture_output=True, timeout=T)
        expect(r.returncode == 125 and b"refusing" in r.stderr, "python: %d %s" % (r.returncode, r.stderr))
        r = subprocess.run(py + ["--expect-uid", str(os.geteuid()), "--socket", path, "ping"],
                           capture_output=True, timeout=T)
        expect(r.returncode == 0 and r.stdout == b"pong\n", "python control: %d %s" % (r.returncode, r.stderr))
        if CCLIENT:
            r = subprocess.run([CCLIENT, "--expect-uid", other, "--socket", path, "ping"],
                               capture_output=True, timeout=T)
            expect(r.returncode == 125 and b"refusing" in r.stderr, "C: %d %s" % (r.returncode, r.stderr))
            r = subprocess.run([CCLIENT, "--socket", path, "ping"], capture_output=True, timeout=T)
            expect(r.returncode == 0, "C control: %d %s" % (r.returncode, r.stderr))
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.connect(path)
        try:
            HutchClient(s, expect_uid=int(other))
            raise Fail("HutchClient accepted a server of the wrong uid")
        except Fail:
            raise
        except Exception as e:
            expect("refusing" in str(e), "HutchClient: %s" % e)
        s.close()
    finally:
        stop(proc)


sys.exit(main(globals()))
EOF

check "--max-buffered: runs that overflow the budget are killed, the server stays near it" tc budget_kill
check "--max-buffered: under a truncating policy runs go on truncated, the server stays near it" tc budget_truncate
check "--max-buffered control: with room, a run keeps all its output" tc budget_control
check "an event too large to render fails alone; the server and another client go on" tc unrenderable
check "--max-conn-per-uid: 256 idle connections of one user keep 32; idle ones time out" tc conn_per_uid
check "--idle-timeout: a dribbled frame is idle; a run in flight is not" tc idle_slowloris
check "--socket refuses a directory others can write, a live socket, a file" tc socket_rules
if is_root; then
	check "--socket refuses a path another user took first or owns" tc socket_squatted
	check "both clients refuse a server of another uid; --expect-uid names it" tc client_refuses_impostor
else
	skip "--socket refuses a path another user took first or owns" "needs root for a second uid"
	skip "both clients refuse a server of another uid; --expect-uid names it" "needs root for a second uid"
fi
check "--expect-uid: a client refuses our own server when told to expect another uid" tc client_expect_uid

if [ "$tap_failed" != 0 ] && [ -s "$tmp/serve.log" ]; then
	diag "hutch serve stderr:"
	sed 's/^/# /' "$tmp/serve.log" | tail -n 40
fi
tap_done
