#!/bin/sh
# serve-log.sh: the operator's view of `hutch serve` (hutch-protocol(7),
# LOGGING) against a real server: at the default level one line per
# connection opened and closed (peer uid and pid, its number), per run's
# exit (id, policy digest, status, exit code, wall ms, bytes), per failed or
# refused request (code) and per client turned away; secrets in a run's
# argv, environment, files and output never in the log (and the control:
# they did reach the command); --log-level none, error and debug; the
# journal's priority prefix when JOURNAL_STREAM names stderr; a bad level
# refused in one line.
. "$(dirname "$0")/lib.sh"

tap_tmpdir serve-log

tap_serve_setup "hutch serve logging"

cat >"$tmp/cases.py" <<'EOF'
# cases.py: one test case per invocation (argv[1]), run by tapcase.main;
# every wait is bounded.
import fcntl
import json
import os
import random
import re
import socket
import struct
import subprocess
import sys
import time

from tapcase import HUTCH, T, TMP, HutchClient, diag, expect, main, stop, wait_until

F_SETPIPE_SZ = 1031
SECRETS = ("ARGSECRET", "ENVSECRET", "FILESECRET", "CMDSECRET", "OUTSECRET", "NAMESECRET",
           "INSECRET", "REPLYSECRET")
# A session worker: each 12-byte frame in ("INSECRET" and its header)
# answered with the frame "REPLYSECRET".
WORKER = {"version": 1, "argv": ["/bin/sh", "-c", "while head -c 12 >/dev/null; do "
                                 "printf '\\000\\000\\000\\013REPLYSECRET'; done"]}
STAMP = r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z "


class Logged:
    """hutch serve --socket with its stderr in a file of its own."""

    def __init__(self, *opts, env=None):
        d = os.path.join(TMP, "log-%d" % random.randrange(1 << 30))
        os.mkdir(d, 0o700)
        self.path = os.path.join(d, "h.sock")
        self.log = os.path.join(d, "stderr")
        with open(self.log, "wb") as f:
            env = dict(os.environ, **(env or {}))
            if env.get("JOURNAL_STREAM") == "stderr":
                st = os.fstat(f.fileno())
                env["JOURNAL_STREAM"] = "%d:%d" % (st.st_dev, st.st_ino)
            self.proc = subprocess.Popen([HUTCH, "serve", "--socket", self.path, *opts],
                                         stderr=f, env=env)
        expect(wait_until(lambda: os.path.exists(self.path) or self.proc.poll() is not None,
                          10), "the server did not come up")
        expect(self.proc.poll() is None, "the server exited %s" % self.proc.returncode)

    def client(self):
        return HutchClient.connect(self.path)

    def lines(self):
        with open(self.log, "rb") as f:
            return f.read().decode("utf-8", "replace").splitlines()

    def stop(self):
        expect(stop(self.proc) == 0, "serve exit status %s" % self.proc.returncode)
        return self.lines()


def secret_run():
    """A run whose argv, environment, file and output hold the secrets."""
    return {"version": 1,
            "argv": ["/bin/sh", "-c", "echo $HUTCH_T; cat in.txt; : CMDSECRET; echo OUTSECRET; "
                     "exit 3", "ARGSECRET"],
            "env": {"HUTCH_T": "ENVSECRET"},
            "files": [{"name": "in.txt", "text": "FILESECRET\n"}]}


def activity(s):
    """What the cases log: a run with secrets, a refusal, a cancelled run,
    a ping, a session call (id 6) with secrets in its name, input and
    reply, then a frame that breaks the protocol. Returns the run's result
    document."""
    c = s.client()
    doc = c.run(secret_run())
    rid = c.request("run", {"version": 1, "argv": ["/bin/true"], "policy": "strict"})
    ev = c.wait_final(rid)
    expect(ev.get("failed", {}).get("code") == "policy_violation", "refusal: %s" % ev)
    rid = c.start({"version": 1, "argv": ["/bin/sleep", "30"]})
    c.cancel(rid)
    expect("failed" in c.wait_final(rid), "the cancelled run's final event")
    expect(c.ping(), "ping")
    expect(c.session("NAMESECRET", WORKER, b"INSECRET") == b"REPLYSECRET", "session call")
    c.send_raw(struct.pack(">I", 2) + b"{]")
    ev = c.recv()
    expect(ev.get("failed", {}).get("code") == "protocol_error", "protocol error: %s" % ev)
    c.close()
    return doc


def find(lines, pattern, quiet=False):
    rx = re.compile(pattern)
    hits = [ln for ln in lines if rx.search(ln)]
    if not hits and not quiet:
        diag("no line matches %s" % pattern)
    return hits


def no_secrets(lines):
    text = "\n".join(lines)
    leaked = [s for s in SECRETS if s in text]
    expect(not leaked, "in the log: %s" % leaked)


def case_info():
    s = Logged()
    doc = activity(s)
    # The control: every secret reached the command.
    expect(doc["stdout"]["text"] == "ENVSECRET\nFILESECRET\nOUTSECRET\n", "control: %s"
           % doc["stdout"])
    lines = s.stop()
    uid, pid, dg = os.geteuid(), os.getpid(), doc["jail"]["digest"]
    expect(all(re.match(STAMP + "hutch serve: ", ln) for ln in lines),
           "a line without its timestamp: %s" % lines)
    expect(find(lines, r"hutch serve: start pid=%d policy=default digest=%s log_level=info$"
                % (s.proc.pid, re.escape(dg))), "start")
    opened = find(lines, r"hutch serve: open conn=(\d+) uid=%d pid=%d$" % (uid, pid))
    expect(len(opened) == 1, "open: %s" % opened)
    n = re.search(r"conn=(\d+)", opened[0]).group(1)
    who = r"conn=%s uid=%d" % (n, uid)
    expect(find(lines, r"hutch serve: exit %s id=1 digest=%s status=exited exit_code=3 "
                r"wall_ms=\d+ stdout_bytes=%d stderr_bytes=0$"
                % (who, re.escape(dg), doc["stdout"]["bytes"])), "exit")
    expect(find(lines, r"hutch serve: failed %s id=2 code=policy_violation$" % who), "refusal")
    expect(find(lines, r"hutch serve: failed %s id=3 code=cancelled$" % who), "cancel")
    expect(find(lines, r"hutch serve: failed %s id=0 code=protocol_error$" % who), "protocol")
    expect(find(lines, r"hutch serve: reply %s id=6 bytes=11$" % who), "session reply")
    expect(find(lines, r"hutch serve: close %s pid=%d requests=\d+ failed=3 ms=\d+$"
                % (who, pid)), "close")
    expect(not find(lines, r" (request|pong|ack) ", quiet=True), "debug lines at info")
    expect(find(lines, r"hutch serve: stop status=0$"), "stop")
    no_secrets(lines)


def case_turned_away():
    s = Logged("--max-conn-per-uid", "1")
    a = s.client()
    expect(a.ping(), "first connection")
    b = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    b.connect(s.path)
    b.settimeout(T)
    expect(b.recv(4096), "the second connection got no busy event")
    b.close()
    a.close()
    lines = s.stop()
    expect(find(lines, r"hutch serve: turned_away uid=%d pid=%d code=busy$"
                % (os.geteuid(), os.getpid())), "turned away")


def case_none():
    s = Logged("--log-level", "none")
    activity(s)
    lines = s.stop()
    expect(lines == [], "--log-level none logged %s" % lines[:5])


def case_error():
    # Only what an operator must act on: here a refused jail where the
    # policy requires a cgroup none delegates (else nothing at all).
    pol = os.path.join(TMP, "cgroup.json")
    d = json.loads(subprocess.run([HUTCH, "policy", "show", "default"], capture_output=True,
                                  timeout=T).stdout)
    d["requires"].append("cgroup")
    with open(pol, "w") as f:
        json.dump(d, f)
    s = Logged("--log-level", "error", "--policy", pol)
    c = s.client()
    ev = c.wait_final(c.start({"version": 1, "argv": ["/bin/true"]}))
    c.close()
    lines = s.stop()
    if ev.get("failed", {}).get("code") == "sandbox_unavailable":
        expect(len(lines) == 1 and re.search(r"hutch serve: failed conn=\d+ uid=%d id=1 "
                                             r"code=sandbox_unavailable$" % os.geteuid(),
                                             lines[0]), "error level: %s" % lines)
    else:
        diag("a cgroup is delegated here (%s): only the absence of info lines is checked" % ev)
        expect(lines == [], "error level logged %s" % lines)


def case_debug():
    s = Logged("--log-level", "debug")
    activity(s)
    lines = s.stop()
    expect(find(lines, r"hutch serve: request conn=\d+ uid=%d id=1 kind=run$" % os.geteuid()),
           "request")
    expect(find(lines, r"hutch serve: pong conn=\d+ uid=%d id=\d+$" % os.geteuid()), "pong")
    expect(find(lines, r"hutch serve: ack conn=\d+ uid=%d id=\d+$" % os.geteuid()), "ack")
    expect(find(lines, r"hutch serve: exit conn="), "exit")
    no_secrets(lines)


def case_journal():
    s = Logged(env={"JOURNAL_STREAM": "stderr"})
    c = s.client()
    c.run({"version": 1, "argv": ["/bin/true"]})
    c.close()
    lines = s.stop()
    expect(lines and all(re.match(r"<6>hutch serve: [a-z_]+ ", ln) for ln in lines),
           "journal lines: %s" % lines)
    # The control: a JOURNAL_STREAM naming another file is not the journal.
    s = Logged(env={"JOURNAL_STREAM": "1:1"})
    lines = s.stop()
    expect(lines and all(re.match(STAMP, ln) for ln in lines), "not the journal: %s" % lines)


def case_full_stderr():
    # stderr a one-page pipe nobody reads: lines are dropped, the server
    # answers every client at once all the same; once the pipe is read,
    # the next line says how many were dropped.
    d = os.path.join(TMP, "full-%d" % random.randrange(1 << 30))
    os.mkdir(d, 0o700)
    path = os.path.join(d, "h.sock")
    r, w = os.pipe()
    fcntl.fcntl(w, F_SETPIPE_SZ, 4096)
    proc = subprocess.Popen([HUTCH, "serve", "--socket", path, "--log-level", "debug"],
                            stderr=w)
    os.close(w)
    try:
        expect(wait_until(lambda: os.path.exists(path) or proc.poll() is not None, 10),
               "the server did not come up")
        c = HutchClient.connect(path)
        c.sock.settimeout(T)
        t0 = time.monotonic()
        for _ in range(200):
            expect(c.ping(), "a ping went unanswered")
        took = time.monotonic() - t0
        expect(took < 10, "200 pings took %.1f s" % took)
        os.set_blocking(r, False)
        first = b""
        while True:
            try:
                chunk = os.read(r, 65536)
            except BlockingIOError:
                break
            first += chunk
        expect(len(first) <= 4096 and b"\n" in first, "the pipe held %d bytes" % len(first))
        expect(c.ping(), "ping after the drain")
        c.close()
    finally:
        stop(proc)
    os.set_blocking(r, True)
    rest = b""
    while True:
        chunk = os.read(r, 65536)
        if not chunk:
            break
        rest += chunk
    os.close(r)
    m = re.search(rb"dropped_before=(\d+)", rest)
    expect(m and int(m.group(1)) > 100, "no dropped_before count: %r" % rest[:300])
    expect(all(re.match(rb"\d{4}-.*hutch serve: ", ln) for ln in (first + rest).splitlines()),
           "a torn line")


def case_bad_level():
    r = subprocess.run([HUTCH, "serve", "--log-level", "loud"], capture_output=True, timeout=T)
    expect(r.returncode == 125 and
           r.stderr == b"hutch serve: --log-level loud: not one of none, error, info, debug\n",
           "exit %d, %r" % (r.returncode, r.stderr))


sys.exit(main(globals()))
EOF

check "info: open, exit (digest, status, wall, bytes), failed, close, stop; no secret" tc info
check "info: a client over --max-conn-per-uid is logged as turned away" tc turned_away
check "--log-level none: not one line" tc none
check "--log-level error: only a refused jail, nothing of the runs" tc error
check "--log-level debug: requests, pongs and acks too; no secret" tc debug
check "under the journal (JOURNAL_STREAM is stderr): <6> and no timestamp" tc journal
check "stderr a full pipe: lines dropped and counted, every client answered at once" tc full_stderr
check "--log-level loud: one line naming it and what is accepted, exit 125" tc bad_level

"$HUTCH" serve --help >"$tmp/help" 2>&1
check "hutch serve --help documents --log-level and its levels" \
	grep -q -- '--log-level LEVEL .*none, error, info or debug' "$tmp/help"
tap_done
