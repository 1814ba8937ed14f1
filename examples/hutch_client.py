#!/usr/bin/python3
"""hutch_client.py: a client for `hutch serve` (hutch-protocol(7)) using only
the Python standard library.

As a module:
    with HutchClient.spawn(["hutch", "serve"]) as c:
        result = c.run({"version": 1, "argv": ["/bin/echo", "hi"]})
        print(result["stdout"]["text"])

Binds by descriptor: open the directory or file yourself and pass it; the
request names it by its index in fds (hutch-protocol(7), "DESCRIPTORS"):
        fd = os.open("/srv/data", os.O_RDONLY | os.O_DIRECTORY)
        c.run({"version": 1, "argv": ["/bin/ls", "/data"],
               "mounts": [{"source_fd": 0, "target": "/data", "mode": "ro"}]},
              fds=[fd])

As a command:
    hutch_client.py [--socket PATH] [--expect-uid UID] run
                    [--bind-ro HOST:JAIL] [--bind-rw HOST:JAIL] -- /bin/echo hi
    hutch_client.py [--socket PATH] [--expect-uid UID] ping
With no --socket it starts `hutch serve --fd N` itself over a socketpair.
--bind-ro and --bind-rw open HOST here, as the caller, and pass it.

Before sending anything the client asks the kernel who serves the socket
(SO_PEERCRED) and refuses unless it is the expected uid: by default our
own uid or root, else the one given (hutch-protocol(7), "Clients"). Anyone
who got to the path first could otherwise read our requests and forge
their results.
"""

import base64
import collections
import json
import os
import socket
import struct
import subprocess
import sys

MAX_FRAME = 256 << 20


class ProtocolError(Exception):
    pass


class ImpostorError(ProtocolError):
    """The socket is served by a user we do not trust."""


def peer_uid(sock):
    """The uid of the process at the other end of a Unix socket."""
    cred = sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
    _pid, uid, _gid = struct.unpack("3i", cred)
    return uid


def check_peer(sock, expect_uid=None):
    """Refuse a server that is neither expect_uid nor, by default, our own
    uid or root. Raises ImpostorError."""
    uid = peer_uid(sock)
    allowed = (expect_uid,) if expect_uid is not None else (os.geteuid(), 0)
    if uid not in allowed:
        raise ImpostorError("the server runs as uid %d, not %s: refusing to talk to it"
                            % (uid, " or ".join(str(u) for u in allowed)))


class HutchClient:
    def __init__(self, sock, proc=None, expect_uid=None):
        check_peer(sock, expect_uid)
        self.sock = sock
        self.proc = proc
        self.next_id = 1
        self.buf = b""
        self.pending = {}   # request id -> deque of its events not yet taken
        self.closing = None  # the id-0 event, once the server sent one

    @classmethod
    def connect(cls, path, expect_uid=None):
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            s.connect(path)
            return cls(s, expect_uid=expect_uid)
        except BaseException:
            s.close()
            raise

    @classmethod
    def spawn(cls, argv):
        """Start `hutch serve --fd N` (argv without --fd) with one end of a
        socketpair inherited as fd N."""
        ours, theirs = socket.socketpair()
        proc = subprocess.Popen(argv + ["--fd", str(theirs.fileno())],
                                pass_fds=(theirs.fileno(),))
        theirs.close()
        return cls(ours, proc)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def close(self):
        try:
            self.sock.close()
        finally:
            if self.proc:
                self.proc.wait(timeout=30)

    # -- frames --

    def send(self, obj, fds=()):
        """One frame; fds (at most 16 open descriptors) ride on the
        sendmsg that begins with its first byte, as the protocol wants."""
        data = json.dumps(obj).encode()
        frame = struct.pack(">I", len(data)) + data
        if fds:
            sent = socket.send_fds(self.sock, [frame], list(fds))
            frame = frame[sent:]
        self.sock.sendall(frame)

    def send_raw(self, data):
        self.sock.sendall(data)

    def _read_exact(self, n):
        while len(self.buf) < n:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise EOFError("server closed the connection")
            self.buf += chunk
        out, self.buf = self.buf[:n], self.buf[n:]
        return out

    def recv(self):
        (n,) = struct.unpack(">I", self._read_exact(4))
        if n > MAX_FRAME:
            raise ProtocolError("frame over the limit")
        event = json.loads(self._read_exact(n))
        if event.get("version") != 1:
            raise ProtocolError("unexpected version")
        return event

    # -- requests --
    #
    # Events of different requests interleave (hutch-protocol(7),
    # ORDERING). Whatever is read while waiting for one request is kept,
    # per request id and in order, for whoever asks for it next, so any
    # number of requests can be in flight on one connection.

    def request(self, kind, body, fds=()):
        """Send one request, with fds for its source_fd binds; its id."""
        rid = self.next_id
        self.next_id += 1
        self.pending.setdefault(rid, collections.deque())
        self.send({"version": 1, "id": rid, kind: body}, fds)
        return rid

    def _pump(self):
        """Read one event and queue it under its id. An id-0 event (the
        server ends the connection over our frame) is kept apart: it is
        the final event of every request still waiting."""
        ev = self.recv()
        rid = ev.get("id")
        if rid == 0:
            self.closing = ev
            return
        self.pending.setdefault(rid, collections.deque()).append(ev)

    def next_event(self, rid):
        """The next event of request rid, in order: live events, then its
        final one (after which rid is forgotten), or the id-0 event that
        ended the connection."""
        q = self.pending.setdefault(rid, collections.deque())
        while not q:
            if self.closing is not None:
                self.pending.pop(rid, None)
                return self.closing
            self._pump()
        ev = q.popleft()
        if "live" not in ev:
            self.pending.pop(rid, None)
        return ev

    def wait_final(self, rid, on_live=None):
        """Events of rid until its final one, which is returned; its live
        events go to on_live(live) as they come, decoded (live_bytes).
        Events of other requests are kept for them, in order."""
        while True:
            ev = self.next_event(rid)
            if "live" in ev:
                if on_live:
                    on_live(ev["live"])
                continue
            return ev

    def wait_any(self, rids):
        """The first final event of any of rids: (rid, event); the id-0
        event that ended the connection comes as (0, event). Live events
        of those requests are dropped; use next_event to see them."""
        rids = set(rids)
        while True:
            for rid in list(rids):
                q = self.pending.get(rid)
                while q:
                    ev = q.popleft()
                    if "live" not in ev:
                        self.pending.pop(rid, None)
                        return rid, ev
            if self.closing is not None:
                return 0, self.closing
            self._pump()

    def start(self, request, fds=()):
        """Send a run without waiting: its id (for wait_final, cancel).
        fds: descriptors its mounts name by index (source_fd)."""
        return self.request("run", request, fds)

    def result(self, rid, on_live=None):
        """The result document of run rid; ProtocolError when it failed."""
        ev = self.wait_final(rid, on_live)
        if "exit" in ev:
            return ev["exit"]
        raise ProtocolError(ev.get("failed", ev))

    def run(self, request, on_live=None, fds=()):
        return self.result(self.start(request, fds), on_live)

    def cancel(self, rid):
        """Cancel run or session call rid; True when the server took the
        cancel (ack). The target still gets its own final event (failed
        cancelled, or exit if it was already ending): wait_final(rid)."""
        ev = self.wait_final(self.request("cancel", {"target": rid}))
        return "ack" in ev

    def ping(self):
        return "pong" in self.wait_final(self.request("ping", {}))

    def session(self, name, worker, data, timeout_ms=2000, reset=False, fds=()):
        """fds: descriptors the worker's mounts name, for the call that
        starts the worker."""
        body = {"name": name, "worker": worker,
                "input_base64": base64.b64encode(data).decode(),
                "timeout_ms": timeout_ms}
        if reset:
            body["reset"] = True
        ev = self.wait_final(self.request("session", body, fds))
        if "reply" in ev:
            return base64.b64decode(ev["reply"]["base64"])
        raise ProtocolError(ev.get("failed", ev))


def live_bytes(live, stream):
    """The bytes of one stream ("stdout" or "stderr") in a live event,
    whether the server sent them as text or as base64."""
    part = live.get(stream) or {}
    if "base64" in part:
        return base64.b64decode(part["base64"])
    return part.get("text", "").encode()


def open_binds(args):
    """--bind-ro/--bind-rw HOST:JAIL pairs before "--": the mounts, the
    descriptors (opened here, as the caller) and the rest of args."""
    mounts, fds = [], []
    while len(args) >= 2 and args[0] in ("--bind-ro", "--bind-rw"):
        host, sep, jail = args[1].partition(":")
        if not sep or not host or not jail:
            raise ValueError("%s: %r: give HOST:JAIL" % (args[0], args[1]))
        rw = args[0] == "--bind-rw"
        flags = os.O_RDONLY if os.path.isdir(host) or not rw else os.O_RDWR
        try:
            fds.append(os.open(host, flags | os.O_CLOEXEC | os.O_NOCTTY))
        except OSError as e:
            raise ValueError("%s: %s: %s" % (args[0], host, e.strerror))
        mounts.append({"source_fd": len(fds) - 1, "target": jail,
                       "mode": "rw" if rw else "ro"})
        args = args[2:]
    return mounts, fds, args


def main(argv):
    path = None
    expect_uid = None
    while len(argv) >= 2 and argv[0] in ("--socket", "--expect-uid"):
        if argv[0] == "--socket":
            path = argv[1]
        elif argv[1].isdigit():
            expect_uid = int(argv[1])
        else:
            print("hutch_client.py: --expect-uid: not a uid; give a number", file=sys.stderr)
            return 2
        argv = argv[2:]
    try:
        client = (HutchClient.connect(path, expect_uid) if path else
                  HutchClient.spawn([os.environ.get("HUTCH", "hutch"), "serve"]))
    except ImpostorError as e:
        print("hutch_client.py: --socket %s: %s; pass --expect-uid UID if that user is meant"
              % (path, e), file=sys.stderr)
        return 3
    with client:
        if argv and argv[0] == "ping":
            print("pong" if client.ping() else "no pong")
            return 0
        mounts, fds = [], []
        if argv and argv[0] == "run":
            try:
                mounts, fds, rest = open_binds(argv[1:])
            except ValueError as e:
                print("hutch_client.py: %s" % e, file=sys.stderr)
                return 2
            argv = ["run"] + rest
        if len(argv) >= 3 and argv[0] == "run" and argv[1] == "--":
            def on_live(live):
                # Live output as it comes: stdout's to our stderr (stdout
                # is for the result document), stderr's too, raw bytes.
                for stream in ("stdout", "stderr"):
                    sys.stderr.buffer.write(live_bytes(live, stream))
                sys.stderr.buffer.flush()
            req = {"version": 1, "argv": argv[2:]}
            if mounts:
                req["mounts"] = mounts
            res = client.run(req, on_live=on_live, fds=fds)
            json.dump(res, sys.stdout)
            sys.stdout.write("\n")
            return 0 if res["status"] == "exited" and res["exit_code"] == 0 else 1
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
