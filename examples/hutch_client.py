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
The same descriptor as "mode": "overlay" gives the jail a copy-on-write
view: the result's "changes" says what it changed, and with
"export_changes": true carries the changed files too.

As a command, scripted like `hutch run` (hutch-client(1) says the same):
    hutch_client.py [--socket PATH] [--expect-uid NAME|UID] [--json] run
                    [--bind-ro HOST:JAIL] [--bind-rw HOST:JAIL]
                    [--overlay HOST:JAIL] -- /bin/echo hi
    hutch_client.py [--socket PATH] [--expect-uid NAME|UID] ping
With no --socket it starts `hutch serve --fd N` itself over a socketpair.
--bind-ro, --bind-rw and --overlay open HOST here, as the caller, and pass
it; an overlay (copy-on-write: HOST never changes) is a directory of the
caller's own, and the result document lists its changes (--json).
A run's output goes to our stdout and stderr as live events bring it (the
rest from the result, no byte twice), and the exit status is hutch(1)'s:
the command's status, 128+N for signal N, 124 timeout, 126 and 127 exec
failures, 71 a refused jail, 125 any other failure (ours included: usage,
the connection, a server of another uid). SIGINT or SIGTERM cancels the run
and waits for its final event; a second one leaves at once. --json prints
the result document instead and exits 0 once it did.

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
import pwd
import select
import signal
import socket
import struct
import subprocess
import sys

MAX_FRAME = 256 << 20

# hutch(1), EXIT STATUS: hutch's own outcomes; every other code is 125.
EXIT_FAILURE = 125
EXIT_CODES = {"timeout": 124, "exec_failed": 126, "sandbox_unavailable": 71,
              "sandbox_probe_failed": 71, "spawn_error": 71}


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
        socketpair inherited as fd N, in a session of its own: a terminal's
        ^C is ours to turn into a cancel, not the server's to drain on."""
        ours, theirs = socket.socketpair()
        proc = subprocess.Popen(argv + ["--fd", str(theirs.fileno())],
                                pass_fds=(theirs.fileno(),), start_new_session=True)
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

    def buffered(self):
        """Whether a whole frame is already read (so _pump will not wait)."""
        if len(self.buf) < 4:
            return False
        (n,) = struct.unpack(">I", self.buf[:4])
        return len(self.buf) >= 4 + n

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
    return stream_bytes(live.get(stream))


def stream_bytes(part):
    """The bytes of a stream object of a live event or a result document."""
    part = part or {}
    if "base64" in part:
        return base64.b64decode(part["base64"])
    return part.get("text", "").encode()


BIND_MODES = {"--bind-ro": "ro", "--bind-rw": "rw", "--overlay": "overlay"}


def open_binds(args):
    """--bind-ro/--bind-rw/--overlay HOST:JAIL pairs before "--": the
    mounts, the descriptors (opened here, as the caller) and the rest of
    args. An overlay's HOST is a directory, opened for reading: the jail
    sees it copy-on-write, and the result lists what it changed."""
    mounts, fds = [], []
    while len(args) >= 2 and args[0] in BIND_MODES:
        host, sep, jail = args[1].partition(":")
        if not sep or not host or not jail:
            raise ValueError("%s: %r: give HOST:JAIL" % (args[0], args[1]))
        mode = BIND_MODES[args[0]]
        flags = os.O_RDONLY if os.path.isdir(host) or mode != "rw" else os.O_RDWR
        if mode == "overlay":
            flags |= os.O_DIRECTORY
        try:
            fds.append(os.open(host, flags | os.O_CLOEXEC | os.O_NOCTTY))
        except OSError as e:
            raise ValueError("%s: %s: %s" % (args[0], host, e.strerror))
        mounts.append({"source_fd": len(fds) - 1, "target": jail, "mode": mode})
        args = args[2:]
    return mounts, fds, args


def exit_status(ev):
    """hutch(1)'s exit status for a request's final event: the command's
    status, 128+N for signal N, else by error code (exec_failed with ENOENT
    127), 125 for anything else."""
    if "exit" in ev:
        d = ev["exit"]
        if d.get("status") == "exited":
            return d["exit_code"]
        if d.get("status") == "signaled":
            return 128 + d["signal"]["number"]
        err = d.get("error") or {}
    else:
        err = ev.get("failed") or {}
    if err.get("code") == "exec_failed" and err.get("errno") == "ENOENT":
        return 127
    return EXIT_CODES.get(err.get("code"), EXIT_FAILURE if "pong" not in ev else 0)


def print_error(err):
    """A failure as `hutch run` says it: "CODE: message (at POINTER)"."""
    if not err:
        return
    line = "hutch_client.py: %s: %s" % (err.get("code"), err.get("message", ""))
    if err.get("pointer") is not None:
        line += " (at %s)" % err["pointer"]
    print(line, file=sys.stderr)


class _Streams:
    """What a run has written of each stream: live events and the result
    both hold a stream from its start, so only bytes past it are new."""

    def __init__(self):
        self.seen = {"stdout": 0, "stderr": 0}

    def write(self, stream, data, rest=False):
        out = sys.stdout.buffer if stream == "stdout" else sys.stderr.buffer
        if rest:
            data = data[self.seen[stream]:]
        if data:
            out.write(data)
            out.flush()
            self.seen[stream] += len(data)


def run_streamed(client, request, as_json=False, fds=()):
    """One run, scripted like `hutch run`: live output to our stdout and
    stderr as it comes, SIGINT/SIGTERM sent as a cancel (a second one
    leaves), and the exit status hutch(1) gives its final event."""
    signalled = []
    wake_r, wake_w = socket.socketpair()
    wake_w.setblocking(False)
    old_wakeup = signal.set_wakeup_fd(wake_w.fileno())
    old = {sig: signal.signal(sig, lambda n, _f: signalled.append(n))
           for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        rid = client.start(request, fds)
        return _wait_streamed(client, rid, as_json, signalled, wake_r)
    finally:
        for sig, h in old.items():
            signal.signal(sig, h)
        signal.set_wakeup_fd(old_wakeup)
        wake_r.close()
        wake_w.close()


def _wait_streamed(client, rid, as_json, signalled, wake_r):
    streams = _Streams()
    cancelled = False
    while True:
        if signalled:
            if cancelled:
                print("hutch_client.py: signal %d again: leaving; the server kills the jail "
                      "when the connection closes" % signalled[-1], file=sys.stderr)
                return EXIT_FAILURE
            del signalled[:]
            cancelled = True
            client.request("cancel", {"target": rid})
        q = client.pending.get(rid)
        if not q and client.closing is None and not client.buffered():
            ready, _, _ = select.select([client.sock, wake_r], [], [])
            if wake_r in ready:
                wake_r.recv(64)
            if client.sock not in ready:
                continue
            client._pump()
            continue
        ev = client.next_event(rid)
        if "live" in ev:
            if not as_json:
                for stream in ("stdout", "stderr"):
                    streams.write(stream, live_bytes(ev["live"], stream))
            continue
        if as_json:
            json.dump(ev, sys.stdout)
            sys.stdout.write("\n")
            return 0 if ev.get("id") else EXIT_FAILURE
        if "exit" in ev:
            for stream in ("stdout", "stderr"):
                streams.write(stream, stream_bytes(ev["exit"].get(stream)), rest=True)
            print_error(ev["exit"].get("error"))
        else:
            print_error(ev.get("failed"))
        return exit_status(ev)


def parse_uid(text):
    """--expect-uid: a uid, or a user name the password database knows."""
    if text.isdigit():
        return int(text)
    try:
        return pwd.getpwnam(text).pw_uid
    except KeyError:
        raise ValueError("--expect-uid %s: no such user; give a user name or a uid" % text)


def main(argv):
    path = None
    expect_uid = None
    as_json = False
    while argv and argv[0] in ("--socket", "--expect-uid", "--json"):
        if argv[0] == "--json":
            as_json = True
            argv = argv[1:]
            continue
        if len(argv) < 2:
            break
        if argv[0] == "--socket":
            path = argv[1]
        else:
            try:
                expect_uid = parse_uid(argv[1])
            except ValueError as e:
                print("hutch_client.py: %s" % e, file=sys.stderr)
                return EXIT_FAILURE
        argv = argv[2:]
    mounts, fds = [], []
    if argv and argv[0] == "run":
        try:
            mounts, fds, rest = open_binds(argv[1:])
        except ValueError as e:
            print("hutch_client.py: %s" % e, file=sys.stderr)
            return EXIT_FAILURE
        argv = ["run"] + rest
    if not (argv == ["ping"] or (len(argv) >= 3 and argv[:2] == ["run", "--"])):
        print(__doc__, file=sys.stderr)
        return EXIT_FAILURE
    try:
        client = (HutchClient.connect(path, expect_uid) if path else
                  HutchClient.spawn([os.environ.get("HUTCH", "hutch"), "serve",
                                     "--log-level", "none"]))
    except ImpostorError as e:
        print("hutch_client.py: --socket %s: %s; pass --expect-uid NAME|UID if that user "
              "is meant" % (path, e), file=sys.stderr)
        return EXIT_FAILURE
    except OSError as e:
        print("hutch_client.py: %s: %s" % (path or "hutch serve", e.strerror or e),
              file=sys.stderr)
        return EXIT_FAILURE
    with client:
        try:
            if argv == ["ping"]:
                print("pong" if client.ping() else "no pong")
                return 0
            req = {"version": 1, "argv": argv[2:]}
            if mounts:
                req["mounts"] = mounts
            return run_streamed(client, req, as_json, fds)
        except (EOFError, ProtocolError, OSError) as e:
            print("hutch_client.py: %s" % e, file=sys.stderr)
            return EXIT_FAILURE


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
