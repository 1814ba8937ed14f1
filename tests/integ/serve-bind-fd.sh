#!/bin/sh
# serve-bind-fd.sh: binds by descriptor in `hutch serve` (hutch-protocol(7),
# "DESCRIPTORS"), against a real server. A directory passed with the frame
# reads (ro) and writes (rw) in the jail, and in a session worker started
# by the call that passed it, and after waiting for the probe's canary; a path bind is refused without
# --allow-path-binds and taken with it; a socket, a /proc directory, a
# FIFO, a device, a directory outside the policy's prefixes, a removed
# directory, an O_PATH descriptor, a read-only file asked rw, an index out
# of range are each refused with the field named; 17 descriptors, or
# descriptors on a later byte of the frame, or past the server's budget
# for them, end the connection with one failed event (id 0); no
# descriptor reaches the jail or stays open in the server after its
# request. As root, clients of other users: a root
# server binds a directory rw only for its owner and never a path named by
# a client, and so does a server of an unprivileged user; a server in a
# mount namespace of its own binds the same file found there, or refuses.
. "$(dirname "$0")/lib.sh"

# Sources must lie where the default policy allows request mounts (/tmp),
# whatever TMPDIR says.
tap_tmpdir serve-bind-fd /tmp

tap_serve_setup "hutch serve descriptor binds"

mkdir "$tmp/data" "$tmp/out" "$tmp/many"
echo "hello from the host" >"$tmp/data/in.txt"
# A session worker: per length-prefixed frame in, the bound file's text out.
cat >"$tmp/data/worker.py" <<'EOF'
import struct
import sys

rd, wr = sys.stdin.buffer, sys.stdout.buffer
while True:
    head = rd.read(4)
    if len(head) < 4:
        sys.exit(0)
    rd.read(struct.unpack(">I", head)[0])
    with open("/w/in.txt", "rb") as f:
        text = f.read()
    wr.write(struct.pack(">I", len(text)) + text)
    wr.flush()
EOF
chmod 644 "$tmp/data/worker.py"
chmod 755 "$tmp/data" "$tmp/out"
chmod 644 "$tmp/data/in.txt"
i=0
while [ $i -lt 16 ]; do
	mkdir "$tmp/many/d$i" && echo "$i" >"$tmp/many/d$i/n"
	i=$((i + 1))
done
chmod -R a+rX "$tmp/many"

cat >"$tmp/cases.py" <<'EOF'
# cases.py: one case per invocation (argv[1]), run by tapcase.main.
import json
import os
import socket
import struct
import subprocess
import sys

from tapcase import (HUTCH, LOG, T, TMP, Fail, HutchClient, expect, hutch_for_all, main, spawn,
                     stop, wait_until)

DATA = os.path.join(TMP, "data")
OUT = os.path.join(TMP, "out")
SH = "/bin/sh"


def req(script, mounts):
    return {"version": 1, "argv": [SH, "-c", script], "mounts": mounts}


def ro(idx, target="/data"):
    return {"source_fd": idx, "target": target, "mode": "ro"}


def final(c, request, fds=()):
    return c.wait_final(c.start(request, fds))


def exited(ev, what):
    expect("exit" in ev, "%s: no exit event: %s" % (what, ev))
    return ev["exit"]


def refused(ev, code, pointer, words):
    f = ev.get("failed")
    expect(f is not None, "not refused: %s" % json.dumps(ev)[:400])
    expect(f["code"] == code, "code %s, not %s: %s" % (f["code"], code, f))
    expect(f.get("pointer") == pointer, "pointer %s, not %s: %s" % (f.get("pointer"), pointer, f))
    expect(words in f["message"], "%r not in the message: %s" % (words, f["message"]))


def dir_fd(path):
    return os.open(path, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)


def case_read():
    for opts in ((), ("--no-forkserver",)):    # the forkserver's fd map, and spawn.c's
        read_with(spawn(*opts))


def read_with(c):
    fd = dir_fd(DATA)
    res = exited(final(c, req("cat /data/in.txt; ls /proc/self/fd", [ro(0)]), [fd]), "ro")
    os.close(fd)
    out = res["stdout"]["text"].split("\n")
    expect(res["exit_code"] == 0, "exit %s: %s" % (res["exit_code"], res["stderr"]))
    expect(out[0] == "hello from the host", "read %r" % out[0])
    # ls's own directory is 3: nothing of ours crossed into the jail.
    expect(out[1:] == ["0", "1", "2", "3", ""], "the jail's descriptors: %s" % out[1:])
    # Read-only means read-only, whoever owns the directory.
    res = exited(final(c, req("echo x > /data/new", [ro(0)]), [dir_fd(DATA)]), "ro write")
    expect(res["exit_code"] != 0 and not os.path.exists(os.path.join(DATA, "new")),
           "a ro bind of a descriptor was writable")
    c.close()


def case_parked():
    """The first request of a server with a fresh probe cache waits for
    the canary (parked, the connection unread): the descriptors that came
    with it wait too, and the jail reads through them once it may start.
    The cache holding a verdict afterwards shows the canary ran."""
    import shutil
    import tempfile
    rt = tempfile.mkdtemp(dir="/dev/shm")    # the cache is read from below /dev/shm only
    try:
        c = spawn(env=dict(os.environ, XDG_RUNTIME_DIR=rt))
        fd = dir_fd(DATA)
        res = exited(final(c, req("cat /data/in.txt", [ro(0)]), [fd]), "parked")
        os.close(fd)
        expect(res["exit_code"] == 0 and res["stdout"]["text"] == "hello from the host\n",
               "the parked request read %s" % res)
        expect(os.listdir(os.path.join(rt, "hutch")), "no probe verdict: the canary never ran")
        c.close()
    finally:
        shutil.rmtree(rt, ignore_errors=True)


def case_masks():
    """A request's hide applies inside a passed descriptor's tree."""
    c = spawn()
    r = req("cat /data/in.txt; echo x > /data/in.txt || echo refused", [ro(0)])
    r["hide"] = ["/data/in.txt"]
    res = exited(final(c, r, [dir_fd(DATA)]), "hide")
    expect(res["stdout"]["text"] == "refused\n", "a hidden file read: %r" % res["stdout"])
    expect(res["jail"]["masks"]["hidden"] == 1, "jail.masks: %s" % res["jail"].get("masks"))
    with open(os.path.join(DATA, "in.txt")) as f:
        expect(f.read() == "hello from the host\n", "the host file changed")
    c.close()


def case_write():
    c = spawn()
    fd = dir_fd(OUT)
    fdf = os.open(os.path.join(DATA, "in.txt"), os.O_RDONLY)
    ev = final(c, req("echo written > /out/w.txt && cat /in.txt",
                      [{"source_fd": 0, "target": "/out", "mode": "rw"},
                       {"source_fd": 1, "target": "/in.txt", "mode": "ro"}]), [fd, fdf])
    res = exited(ev, "rw")
    expect(res["exit_code"] == 0, "exit %s: %s" % (res["exit_code"], res["stderr"]))
    expect(res["stdout"]["text"] == "hello from the host\n", "file bind: %r" % res["stdout"])
    p = os.path.join(OUT, "w.txt")
    with open(p) as f:
        expect(f.read() == "written\n", "the host file")
    # A root caller's rw bind is idmapped: the jail wrote as the owner.
    expect(os.stat(p).st_uid == os.geteuid(), "w.txt owned by %d" % os.stat(p).st_uid)
    c.close()


def case_path_binds():
    c = spawn()
    path = {"source": DATA, "target": "/data", "mode": "ro"}
    refused(final(c, req("cat /data/in.txt", [path])), "policy_violation", "/mounts/0/source",
            "pass the directory as a descriptor (source_fd) or start the server with "
            "--allow-path-binds")
    expect(c.ping(), "the connection did not survive a refused request")
    c.close()
    c = spawn("--allow-path-binds")
    res = exited(final(c, req("cat /data/in.txt", [path])), "path bind")
    expect(res["stdout"]["text"] == "hello from the host\n", "with the flag: %s" % res)
    c.close()


def attack(c, fd, mount, code, pointer, words):
    refused(final(c, req("true", [mount]), [fd] if fd is not None else []), code, pointer, words)
    if fd is not None:
        os.close(fd)


def case_attacks():
    c = spawn()
    a, b = socket.socketpair()
    attack(c, os.dup(a.fileno()), ro(0), "policy_violation", "/mounts/0/source_fd", "socket")
    attack(c, dir_fd("/proc/self"), ro(0), "policy_violation", "/mounts/0",
           "not allowed by the policy")
    fifo = os.path.join(TMP, "fifo")
    os.mkfifo(fifo)
    attack(c, os.open(fifo, os.O_RDONLY | os.O_NONBLOCK), ro(0), "policy_violation",
           "/mounts/0/source_fd", "is a FIFO")
    attack(c, os.open("/dev/null", os.O_RDONLY), ro(0), "policy_violation",
           "/mounts/0/source_fd", "not a regular file or directory")
    attack(c, dir_fd("/etc"), ro(0), "policy_violation", "/mounts/0",
           "not allowed by the policy")
    attack(c, dir_fd(DATA), ro(1), "invalid_request", "/mounts/0/source_fd",
           "no descriptor with that index")
    attack(c, os.open(DATA, os.O_PATH), ro(0), "policy_violation", "/mounts/0/source_fd",
           "O_PATH")
    attack(c, os.open(os.path.join(DATA, "in.txt"), os.O_RDONLY),
           {"source_fd": 0, "target": "/f", "mode": "rw"}, "policy_violation",
           "/mounts/0/source_fd", "open read-write")
    attack(c, None, dict(ro(0), source=DATA), "invalid_request", "/mounts/0/source_fd",
           "not both")
    gone_dir = os.path.join(TMP, "removed")
    os.mkdir(gone_dir)
    fd = dir_fd(gone_dir)
    os.rmdir(gone_dir)
    attack(c, fd, ro(0), "policy_violation", "/mounts/0/source_fd", "has no path the server")
    expect(c.ping(), "the connection did not survive the refused requests")
    expect(not os.path.exists(os.path.join(DATA, "x")), "something was written")
    c.close()


def ends_connection(c, words):
    """The next event is failed with id 0 naming words; then EOF."""
    ev = c.recv()
    expect(ev.get("id") == 0 and ev.get("failed", {}).get("code") == "protocol_error",
           "not a protocol_error with id 0: %s" % ev)
    expect(words in ev["failed"]["message"], "message: %s" % ev["failed"]["message"])
    try:
        ev = c.recv()
        raise Fail("an event after the failure: %s" % ev)
    except (EOFError, ConnectionResetError):
        pass
    expect(c.proc.wait(T) is not None, "the server lives on")


def frame(obj):
    data = json.dumps(obj).encode()
    return struct.pack(">I", len(data)) + data


def case_seventeen():
    c = spawn()
    fds = [dir_fd(DATA) for _ in range(17)]
    socket.send_fds(c.sock, [frame({"version": 1, "id": 1, "run": req("true", [ro(0)])})], fds)
    for fd in fds:
        os.close(fd)
    ends_connection(c, "more than 16 descriptors")


def case_later_byte():
    c = spawn()
    f = frame({"version": 1, "id": 1, "run": req("true", [ro(0)])})
    fd = dir_fd(DATA)
    c.sock.sendall(f[:1])
    socket.send_fds(c.sock, [f[1:]], [fd])
    os.close(fd)
    ends_connection(c, "a byte other than a frame's first")


def case_session():
    """A worker's mounts name the descriptors of the call that starts it;
    later calls to the running worker pass none."""
    c = spawn()
    worker = {"version": 1, "argv": ["/usr/bin/python3", "/w/worker.py"],
              "mounts": [{"source_fd": 0, "target": "/w", "mode": "ro"}]}
    fd = dir_fd(DATA)
    got = c.session("s", worker, b"x", timeout_ms=10000, fds=[fd])
    os.close(fd)
    expect(got == b"hello from the host\n", "first call: %r" % got)
    got = c.session("s", worker, b"y", timeout_ms=10000)
    expect(got == b"hello from the host\n", "second call: %r" % got)
    c.close()


def case_budget():
    """Passed descriptors count against the server's budget for them (a
    quarter of its open-file limit: 16 at 64): one more, held by another
    connection, ends that connection; the first goes on."""
    import resource
    d = os.path.join(TMP, "sockbudget")
    os.mkdir(d, 0o700)
    path = os.path.join(d, "s")
    with open(LOG, "ab") as log:
        proc = subprocess.Popen(
            [HUTCH, "serve", "--socket", path], stdout=log, stderr=log,
            preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_NOFILE, (64, 64)))
    try:
        expect(wait_until(lambda: os.path.exists(path) or proc.poll() is not None, 10)
               and proc.poll() is None, "serve did not start")
        a, b = HutchClient.connect(path), HutchClient.connect(path)
        a.sock.settimeout(T)
        b.sock.settimeout(T)
        f = frame({"version": 1, "id": 1, "run": req("cat /data/in.txt", [ro(0)])})
        fds = [dir_fd(DATA) for _ in range(16)]
        socket.send_fds(a.sock, [f[:1]], fds)      # held: the frame is not whole
        expect(b.ping(), "no pong")                 # a turn of the loop has read a's byte
        fd = dir_fd(DATA)
        socket.send_fds(b.sock, [frame({"version": 1, "id": 1, "ping": {}})], [fd])
        b.proc = None
        ends = b.recv()
        expect(ends.get("id") == 0 and "too many passed descriptors" in
               ends.get("failed", {}).get("message", ""), "over the budget: %s" % ends)
        a.sock.sendall(f[1:])
        res = exited(a.wait_final(1), "the held frame")
        expect(res["stdout"]["text"] == "hello from the host\n", "read %s" % res)
        for x in fds + [fd]:
            os.close(x)
        a.close()
        b.sock.close()
    finally:
        stop(proc)


def fds_of(pid):
    return sorted(os.readlink("/proc/%d/fd/%s" % (pid, n)) for n in os.listdir("/proc/%d/fd" % pid))


def holders(path):
    """Processes other than us with path open."""
    found = []
    for d in os.listdir("/proc"):
        if not d.isdigit() or int(d) == os.getpid():
            continue
        try:
            for n in os.listdir("/proc/%s/fd" % d):
                if os.readlink("/proc/%s/fd/%s" % (d, n)).startswith(path):
                    found.append(int(d))
        except OSError:
            pass
    return found


def case_no_leak():
    c = spawn()
    expect(c.ping(), "no pong")
    before = fds_of(c.proc.pid)
    many = os.path.join(TMP, "many")
    fds = [dir_fd(os.path.join(many, "d%d" % i)) for i in range(16)]
    mounts = [ro(i, "/m/d%d" % i) for i in range(16)]
    res = exited(final(c, req("cat /m/d*/n | tr -d '\\n'; echo; ls /proc/self/fd", mounts), fds),
                 "16 binds")
    # A refused request, and descriptors the request does not name.
    refused(final(c, req("true", [ro(0, "/proc/x")]), fds[:3]), "invalid_request",
            "/mounts/0/target", "reserved")
    expect(c.ping(), "no pong")
    for fd in fds:
        os.close(fd)
    out = res["stdout"]["text"].split("\n")
    expect(out[0] == "".join(str(i) for i in sorted(range(16), key=str)), "read %r" % out[0])
    expect(out[1:] == ["0", "1", "2", "3", ""], "the jail's descriptors: %s" % out[1:])
    after = fds_of(c.proc.pid)
    expect(after == before, "the server's descriptors: %s, then %s" % (before, after))
    left = wait_until(lambda: not holders(many), 5)
    expect(left, "still holding a passed directory: %s" % holders(many))
    c.close()


def case_cli():
    doc = json.dumps(req("true", [ro(0)]))
    p = subprocess.run([HUTCH, "run", "--request", "-"], input=doc.encode(),
                       capture_output=True, timeout=T)
    out = json.loads(p.stdout)
    expect(out["status"] == "failed" and out["error"]["code"] == "invalid_request",
           "hutch run took a source_fd: %s" % out)
    expect("only with a hutch serve frame" in out["error"]["message"], out["error"])


# ---- as root: clients of other users ----

FOREIGN = r'''
import json, os, sys
sys.path.insert(0, os.environ["CLIENT_DIR"])
from hutch_client import HutchClient
sock, expect_uid, kind, src, mode = sys.argv[1:6]
c = HutchClient.connect(sock, int(expect_uid))
if kind == "path":
    m, fds = {"source": src, "target": "/s", "mode": mode}, []
else:
    fds = [os.open(src, os.O_RDONLY | os.O_DIRECTORY)]
    m = {"source_fd": 0, "target": "/s", "mode": mode}
rid = c.start({"version": 1, "argv": ["/bin/sh", "-c", "ls /s >/dev/null && "
               "{ [ %s = ro ] || echo w > /s/w.txt; }" % mode], "mounts": [m]}, fds)
print(json.dumps(c.wait_final(rid)))
'''


def as_user(uid, sock, server_uid, kind, src, mode):
    env = hutch_for_all()[1]  # a client module that uid can read
    p = subprocess.run([sys.executable, "-c", FOREIGN, sock, str(server_uid), kind, src, mode],
                       user=uid, group=uid, extra_groups=[], capture_output=True, timeout=T,
                       env=env)
    expect(p.returncode == 0, "client as %d: %s" % (uid, p.stderr.decode()[-600:]))
    return json.loads(p.stdout)


def sock_server(uid, *opts):
    d = os.path.join(TMP, "sock%d" % uid)
    os.mkdir(d, 0o711)
    os.chown(d, uid, uid)
    path = os.path.join(d, "s")
    with open(LOG, "ab") as log:
        hutch, env = hutch_for_all() if uid != os.geteuid() else (HUTCH, None)
        proc = subprocess.Popen([hutch, "serve", "--socket", path, "--mode", "0666", *opts],
                                stdout=log, stderr=log, user=uid, group=uid, extra_groups=[],
                                env=env)
    expect(wait_until(lambda: os.path.exists(path) or proc.poll() is not None, 10)
           and proc.poll() is None, "serve as %d did not start" % uid)
    return proc, path


def case_root_server():
    nobody = 65534
    secret = os.path.join(TMP, "secret")      # another user's home, as it were
    shared = os.path.join(TMP, "shared")      # readable and writable by all, root's
    mine = os.path.join(TMP, "mine")          # the client's own
    os.mkdir(secret, 0o700)
    os.mkdir(shared, 0o777)
    os.chmod(shared, 0o777)
    os.mkdir(mine, 0o755)
    os.chown(mine, nobody, nobody)
    proc, path = sock_server(0)
    try:
        # Naming a path: refused, whatever the server could reach.
        refused(as_user(nobody, path, 0, "path", secret, "rw"), "policy_violation",
                "/mounts/0/source", "--allow-path-binds")
        # rw of a directory the client may write but does not own: the
        # idmapped jail would act as its owner, root.
        refused(as_user(nobody, path, 0, "fd", shared, "rw"), "policy_violation",
                "/mounts/0/source_fd", "not owned by the client")
        # Controls: ro of it, rw of the client's own directory.
        ev = as_user(nobody, path, 0, "fd", shared, "ro")
        expect(exited(ev, "ro shared")["exit_code"] == 0, "ro of a shared directory: %s" % ev)
        ev = as_user(nobody, path, 0, "fd", mine, "rw")
        expect(exited(ev, "rw mine")["exit_code"] == 0, "rw of the client's own: %s" % ev)
        st = os.stat(os.path.join(mine, "w.txt"))
        expect(st.st_uid == nobody, "the client's file is owned by %d" % st.st_uid)
        expect(not os.listdir(secret) and not os.path.exists(os.path.join(shared, "w.txt")),
               "a refused bind was written")
    finally:
        stop(proc)


def case_other_namespace():
    """A server in a mount namespace of its own (as systemd's ProtectSystem=
    makes one): a client's descriptor binds as the same file found there,
    and one whose path names another file there is refused."""
    hidden = os.path.join(TMP, "hidden")
    os.mkdir(hidden, 0o755)
    with open(os.path.join(hidden, "host.txt"), "w") as f:
        f.write("host\n")
    d = os.path.join(TMP, "sockns")
    os.mkdir(d, 0o700)
    path = os.path.join(d, "s")
    with open(LOG, "ab") as log:
        proc = subprocess.Popen(["unshare", "--mount", "--propagation", "private", SH, "-c",
                                 'mount -t tmpfs cover "$1" && exec "$2" serve --socket "$3"',
                                 "sh", hidden, HUTCH, path], stdout=log, stderr=log)
    try:
        expect(wait_until(lambda: os.path.exists(path) or proc.poll() is not None, 10)
               and proc.poll() is None, "serve in its own mount namespace did not start")
        c = HutchClient.connect(path)
        res = exited(final(c, req("cat /data/in.txt", [ro(0)]), [dir_fd(DATA)]), "other ns")
        expect(res["stdout"]["text"] == "hello from the host\n", "read %s" % res)
        refused(final(c, req("cat /h/host.txt", [ro(0, "/h")]), [dir_fd(hidden)]),
                "policy_violation", "/mounts/0/source_fd", "has no path the server can see")
        c.close()
    finally:
        stop(proc)


def case_user_server():
    nobody, other = 65534, 1
    shared = os.path.join(TMP, "shared1")     # writable by all, the server user's
    os.mkdir(shared, 0o777)
    os.chmod(shared, 0o777)
    os.chown(shared, nobody, nobody)
    theirs = os.path.join(TMP, "theirs")      # the client's own, writable by all
    os.mkdir(theirs, 0o777)
    os.chmod(theirs, 0o777)
    os.chown(theirs, other, other)
    proc, path = sock_server(nobody)
    try:
        # The jail would write as the server's user: only in the client's own.
        refused(as_user(other, path, nobody, "fd", shared, "rw"), "policy_violation",
                "/mounts/0/source_fd", "not owned by the client")
        ev = as_user(other, path, nobody, "fd", theirs, "rw")
        expect(exited(ev, "rw theirs")["exit_code"] == 0, "rw of the client's own: %s" % ev)
        ev = as_user(other, path, nobody, "fd", DATA, "ro")
        expect(exited(ev, "ro data")["exit_code"] == 0, "ro of a readable directory: %s" % ev)
        expect(not os.path.exists(os.path.join(shared, "w.txt")), "a refused bind was written")
    finally:
        stop(proc)


sys.exit(main(globals()))
EOF

check "a descriptor bind reads (forkserver or not); nothing of the client's reaches the jail; ro stays ro" tc read
check "a descriptor bind writes (rw dir) and a file binds (ro)" tc write
check "a request parked while the probe runs keeps its descriptors" tc parked
check "a request's hide masks a file inside a passed descriptor's tree" tc masks
check "a path bind: refused without --allow-path-binds, taken with it" tc path_binds
check "socket, /proc, FIFO, device, outside the prefixes, O_PATH, ro file asked rw, bad index: refused" tc attacks
check "17 descriptors with a frame: the connection ends (failed, id 0)" tc seventeen
check "descriptors on a later byte of the frame: the connection ends (failed, id 0)" tc later_byte
check "a session worker binds the descriptors of the call that starts it" tc session
check "passed descriptors count against the server's budget for them" tc budget
check "16 binds; no descriptor stays in the server or any process after the request" tc no_leak
check "hutch run --request: source_fd refused (descriptors come only with serve)" tc cli
if is_root; then
	check "root server: no path bind from a client, rw only of the client's own directory" tc root_server
	check "a server of an unprivileged user: rw only of the client's own directory" tc user_server
	if command -v unshare >/dev/null; then
		check "a server in its own mount namespace: the same file bound, another refused" tc other_namespace
	else
		skip "a server in its own mount namespace" "no unshare(1)"
	fi
else
	skip "root server: no path bind from a client, rw only of the client's own directory" \
		"needs root to act as a second user"
	skip "a server of an unprivileged user: rw only of the client's own directory" \
		"needs root to act as a second user"
	skip "a server in its own mount namespace" "needs root to make one without a user namespace"
fi

tap_serve_done
