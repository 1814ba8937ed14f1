#!/bin/sh
# serve-loop.sh: `hutch serve`'s one event loop cannot block (issue 18,
# "The serve loop", items 1-7), each from outside with the real attempt:
# 1. at the descriptor limit (RLIMIT_NOFILE 24, 30 clients holding on)
#    the server does not spin (CPU-s per second measured), and every
#    client is served once descriptors free up;
# 2. SIGTERM 0, 5 and 10 ms after the first request, while the probe's
#    canary runs (fresh probe cache): the server drains and exits;
# 3. --lifetime 2^64-1 is refused with the range; the largest accepted
#    lifetime does not wrap (a run exits, no timeout);
# 4. (serve-stress.sh: 560 runs and 64 workers in flight overflowed the
#    old poll set, whose stale indexes read another descriptor's events);
# 5. a worker whose jail and helper are stopped (SIGSTOP) and whose
#    session is closed: another client's ping is answered at once, not
#    after the grace period, a worker started meanwhile answers, and the
#    stopped one is gone after the grace;
# 6. a helper that takes 2 s to read its spec (a wrapper around
#    hutch-exec) and a 2 MiB spec: another client is answered meanwhile;
# 7. 8 clients each sending the header of a 32 MiB frame and half its
#    body, --max-buffered 40M: the server's VmHWM stays within the budget
#    plus 32 MiB, the clients over it get failed busy.
. "$(dirname "$0")/lib.sh"

tap_tmpdir serve-loop
tap_serve_setup "hutch serve loop"

# Item 6: a hutch-exec that waits before it reads its spec. Readable and
# executable by any user (the tests also run as nobody).
cat >"$tmp/slow-exec" <<EOF
#!/bin/sh
[ "\$1" = --forkserver ] || sleep 2
exec "${HUTCH_EXEC:-hutch-exec}" "\$@"
EOF
chmod 755 "$tmp/slow-exec"
chmod 755 "$tmp"

cat >"$tmp/cases.py" <<'EOF'
# cases.py: one case per invocation (argv[1]), run by tapcase.main.
import os
import signal
import socket
import struct
import subprocess
import sys
import threading
import time

from tapcase import (HUTCH, T, TMP, Fail, connect, cpu_s, diag, expect, gone, main, now,
                     procs_with, sanitized, serve_socket, stop, vm_kb, wait_until)

MiB = 1 << 20


def ping_ms(path):
    """A fresh connection's ping, in ms."""
    t0 = now()
    c = connect(path)
    expect(c.ping(), "no pong")
    c.sock.close()
    return (now() - t0) * 1000


def case_emfile():
    path = os.path.join(TMP, "emfile.sock")
    proc = serve_socket(path, nofile=24)
    clients, lock, served = [], threading.Lock(), []
    release = threading.Event()

    def client(i):
        try:
            c = connect(path)
            if c.ping():
                with lock:
                    served.append(i)
            release.wait(T)
            c.sock.close()
        except Exception as e:  # noqa: BLE001
            diag("client %d: %s" % (i, e))
    try:
        for i in range(30):
            t = threading.Thread(target=client, args=(i,))
            t.start()
            clients.append(t)
        # Those the limit lets in are served; the rest wait in the backlog.
        wait_until(lambda: len(served) >= 5, 10)
        time.sleep(0.3)
        c0, t0 = cpu_s(proc.pid), now()
        time.sleep(2)
        rate = (cpu_s(proc.pid) - c0) / (now() - t0)
        diag("at the limit: %d clients served, server %.3f CPU-s per second" % (len(served), rate))
        expect(rate < 0.2, "the server spins at the descriptor limit: %.2f CPU-s/s" % rate)
        expect(len(served) < 30, "all 30 served at RLIMIT_NOFILE 24: the limit was not reached")
        release.set()
        for t in clients:
            t.join(T)
        expect(len(served) == 30, "%d of 30 clients served once descriptors freed up" % len(served))
        expect(stop(proc) == 0, "serve exited %s" % proc.returncode)
    finally:
        release.set()
        if proc.poll() is None:
            proc.kill()


def case_sigterm_probe():
    for delay_ms in (0, 5, 10):
        rt = os.path.join(TMP, "rt%d" % delay_ms)
        os.mkdir(rt, 0o700)    # a fresh probe cache: the first request probes
        env = dict(os.environ, XDG_RUNTIME_DIR=rt)
        path = os.path.join(TMP, "probe%d.sock" % delay_ms)
        proc = serve_socket(path, "--grace", "1s", env=env)
        try:
            c = connect(path)
            expect(c.ping(), "no pong")    # accepted: SIGTERM closes only the backlog
            rid = c.start({"version": 1, "argv": ["/bin/true"]})
            time.sleep(delay_ms / 1000)
            t0 = now()
            proc.send_signal(signal.SIGTERM)
            try:
                rc = proc.wait(3)
            except subprocess.TimeoutExpired:
                raise Fail("SIGTERM %d ms into the first probe: the server did not exit "
                           "within 3 s" % delay_ms)
            took = now() - t0
            expect(rc == 0, "exit status %s" % rc)
            try:
                ev = c.wait_final(rid)
                diag("SIGTERM at %d ms: exit in %.3f s, the request got %s" %
                     (delay_ms, took, list(k for k in ev if k not in ("version", "id"))))
            except (EOFError, OSError):
                raise Fail("the request got no final event")
            expect(not os.path.exists(path), "the socket file is left behind")
        finally:
            if proc.poll() is None:
                proc.kill()


def case_lifetime():
    ours, theirs = socket.socketpair()
    ours.close()    # a server that takes the option serves nobody and exits 0
    r = subprocess.run([HUTCH, "serve", "--lifetime", "18446744073709551615ms", "--fd",
                        str(theirs.fileno())], pass_fds=(theirs.fileno(),),
                       stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=T)
    theirs.close()
    lines = r.stderr.strip().splitlines()
    diag("--lifetime 2^64-1: exit %d: %s" % (r.returncode, r.stderr.strip()))
    expect(r.returncode == 125, "--lifetime 2^64-1 accepted (exit %d)" % r.returncode)
    expect(len(lines) == 1 and "--lifetime" in lines[0] and "720h" in lines[0],
           "not one line naming the flag and the range: %r" % r.stderr)
    path = os.path.join(TMP, "life.sock")
    proc = serve_socket(path, "--lifetime", "720h")
    try:
        c = connect(path)
        res = c.run({"version": 1, "argv": ["/bin/sh", "-c", "sleep 0.1; echo ok"]})
        expect(res["status"] == "exited" and res["exit_code"] == 0,
               "a run under --lifetime 720h: %s" % res.get("error"))
    finally:
        stop(proc)


ECHO_WORKER = ("import sys,struct\n"
               "i,o=sys.stdin.buffer,sys.stdout.buffer\n"
               "while True:\n"
               " h=i.read(4)\n"
               " if len(h)<4: break\n"
               " d=i.read(struct.unpack('>I',h)[0]); o.write(h+d); o.flush()\n")


def worker(mark):
    return {"version": 1, "argv": ["/usr/bin/python3", "-c", ECHO_WORKER, mark],
            "limits": {"wall_ms": 600000, "idle_ms": 600000}}


def ppid(pid):
    with open("/proc/%d/stat" % pid) as f:
        return int(f.read().rsplit(")", 1)[1].split()[1])


def jail_chain(pid, server):
    """pid and its ancestors below the forkserver: the target, its reaper,
    the helper."""
    chain = []
    while pid > 1 and pid != server and ppid(pid) != server:
        chain.append(pid)
        pid = ppid(pid)
    return chain


def case_stopped_worker():
    path = os.path.join(TMP, "stop.sock")
    proc = serve_socket(path, "--grace", "3s")
    try:
        a = connect(path)
        mark = "hutch-stopped-%d" % os.getpid()
        expect(a.session("s", worker(mark), b"hi") == b"hi", "the worker did not echo")
        pids = procs_with(mark)
        expect(pids, "no worker process")
        chain = jail_chain(pids[0], proc.pid)
        diag("stopping %s" % chain)
        for p in chain:
            os.kill(p, signal.SIGSTOP)
        t0 = now()
        rid = a.request("session_close", {"name": "s"})
        time.sleep(0.1)
        ms = ping_ms(path)
        ev = a.wait_final(rid)
        expect("ack" in ev, "session_close: %s" % ev)
        diag("session closed in %.0f ms; another client's ping took %.0f ms" %
             ((now() - t0) * 1000, ms))
        expect(ms < 500, "a stopped worker's teardown held the server %.0f ms" % ms)
        # A new worker at once (its pipes may reuse the old one's numbers
        # while the old watch is still being torn down) gets its frames.
        expect(a.session("t", worker("hutch-next-%d" % os.getpid()), b"again") == b"again",
               "a worker started during the teardown did not echo")
        expect(gone(mark, 3 + 3), "the stopped worker outlived the grace period")
    finally:
        stop(proc)


def case_slow_spec():
    path = os.path.join(TMP, "spec.sock")
    env = dict(os.environ, HUTCH_EXEC=os.path.join(TMP, "slow-exec"),
               XDG_RUNTIME_DIR=os.path.join(TMP, "rt-spec"))
    os.mkdir(env["XDG_RUNTIME_DIR"], 0o700)
    proc = serve_socket(path, "--no-forkserver", env=env)
    try:
        a = connect(path)
        expect(a.run({"version": 1, "argv": ["/bin/true"]})["status"] == "exited",
               "the slow helper does not run")
        big = "x" * (2 * MiB)    # an input file travels in the spec
        rid = a.start({"version": 1, "argv": ["/bin/sh", "-c", "wc -c <in.txt"],
                       "files": [{"name": "in.txt", "text": big}]})
        time.sleep(0.3)
        ms = ping_ms(path)
        res = a.result(rid)
        diag("a ping while a 2 MiB spec waits for its reader: %.0f ms" % ms)
        expect(res["stdout"]["text"].strip() == str(2 * MiB), "the spec arrived cut: %s" %
               res["stdout"])
        expect(ms < 1000, "the spec's write held the server %.0f ms" % ms)
    finally:
        stop(proc)


def case_partial_frames():
    path = os.path.join(TMP, "frames.sock")
    proc = serve_socket(path, "--max-buffered", "40M", "--max-frame", "64M")
    try:
        time.sleep(0.2)
        base = vm_kb(proc.pid, "VmHWM")
        socks, refused = [], 0
        for i in range(8):
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            s.settimeout(T)
            s.connect(path)
            try:
                s.sendall(struct.pack(">I", 32 * MiB) + b"x" * (16 * MiB))
            except (BrokenPipeError, ConnectionResetError):
                refused += 1
            socks.append(s)
        time.sleep(0.5)
        hwm = vm_kb(proc.pid, "VmHWM")
        diag("VmHWM %d KiB before, %d KiB with 8 half-sent 32 MiB frames; %d cut off "
             "while sending" % (base, hwm, refused))
        got_busy = 0
        for s in socks:
            try:
                s.settimeout(0.5)
                data = s.recv(4096)
                got_busy += b"busy" in data
            except OSError:
                pass
            s.close()
        expect(got_busy >= 1, "no client over the budget was refused busy")
        if not sanitized(proc.pid):
            expect(hwm <= base + (40 + 32) * 1024,
                   "VmHWM %d KiB: over --max-buffered + 32 MiB" % (hwm - base))
        expect(ping_ms(path) < 1000, "the server is not answering afterwards")
    finally:
        stop(proc)


sys.exit(main(globals()))
EOF

check "RLIMIT_NOFILE 24, 30 clients: no spin at the limit, all served once descriptors free" tc emfile
check "SIGTERM 0, 5, 10 ms into the first request's probe: the server drains and exits" tc sigterm_probe
check "--lifetime 2^64-1 refused with its range; 720h does not wrap" tc lifetime
check "a stopped worker's teardown holds no other client; the worker is gone after the grace" tc stopped_worker
check "a helper slow to read its 2 MiB spec holds no other client" tc slow_spec
check "half-sent 32 MiB frames are charged to --max-buffered: VmHWM within it + 32 MiB" tc partial_frames

tap_serve_done
