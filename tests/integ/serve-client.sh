#!/bin/sh
# serve-client.sh: both example clients (examples/hutch-client and
# examples/hutch_client.py) scripted like `hutch run` against a real
# `hutch serve --socket`: the command's exit status and hutch(1)'s codes for
# hutch's own outcomes (exit 3, a signal, exec failures, a timeout, a
# refused jail), live output seen while the run goes on and never twice,
# SIGINT and SIGTERM cancelling the run with no jail left, --expect-uid by
# user name; a fake server (same uid) for the codes a real one seldom
# sends; and the installed Python module importing from the prefix.
. "$(dirname "$0")/lib.sh"

tap_tmpdir serve-client

tap_serve_setup "hutch serve clients" c

cat >"$tmp/cases.py" <<'EOF'
# cases.py: one test case per invocation (argv[1], the client as argv[2]:
# c or py), run by tapcase.main; every wait is bounded.
import json
import os
import pwd
import random
import signal
import socket
import struct
import subprocess
import sys
import threading

from tapcase import (HUTCH, T, TMP, expect, gone, main, now, procs_with, serve_socket, stop,
                     wait_until)

CCLIENT = os.environ.get("CCLIENT", "")
PYCLIENT = os.path.join(os.environ["CLIENT_DIR"], "hutch_client.py")
WHICH = sys.argv[2] if len(sys.argv) > 2 else "c"


def client_argv(*args):
    base = [CCLIENT] if WHICH == "c" else [sys.executable, PYCLIENT]
    return base + list(args)


def private(name):
    d = os.path.join(TMP, "%s-%s-%d" % (name, WHICH, random.randrange(1 << 30)))
    os.mkdir(d, 0o700)
    return os.path.join(d, "h.sock")


class Server:
    """hutch serve --socket in a 0700 directory of its own."""

    def __init__(self, *opts):
        self.path = private("srv")
        self.proc = serve_socket(self.path, *opts)

    def run(self, *argv, timeout=T):
        return subprocess.run(client_argv("--socket", self.path, "run", "--", *argv),
                              capture_output=True, timeout=timeout)

    def popen(self, *argv):
        return subprocess.Popen(client_argv("--socket", self.path, "run", "--", *argv),
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE)

    def ping(self):
        return subprocess.run(client_argv("--socket", self.path, "ping"), capture_output=True,
                              timeout=T).returncode == 0

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        expect(stop(self.proc) == 0, "serve exit status %s" % self.proc.returncode)


def show(r):
    return "exit %d, stdout %r, stderr %r" % (r.returncode, r.stdout[-300:], r.stderr[-300:])


def case_exit3():
    with Server() as s:
        r = s.run("/bin/sh", "-c", "printf out; printf err >&2; exit 3")
        expect(r.returncode == 3 and r.stdout == b"out" and r.stderr == b"err", show(r))
        r = s.run("/bin/true")
        expect(r.returncode == 0 and r.stdout == b"" and r.stderr == b"", "control: " + show(r))


def case_signal():
    with Server() as s:
        r = s.run("/bin/sh", "-c", "kill -TERM $$")
        expect(r.returncode == 128 + signal.SIGTERM, show(r))


def case_exec_failed():
    with Server() as s:
        r = s.run("/nonexistent/command")
        expect(r.returncode == 127 and b"exec_failed" in r.stderr, "ENOENT: " + show(r))
        r = s.run("/etc/passwd")
        expect(r.returncode == 126 and b"exec_failed" in r.stderr, "not executable: " + show(r))


def case_timeout():
    with Server("--lifetime", "1s") as s:
        t0 = now()
        r = s.run("/bin/sleep", "20")
        took = now() - t0
        expect(r.returncode == 124 and b"timeout" in r.stderr, show(r))
        expect(took < 10, "took %.1f s" % took)


def case_refused():
    # A policy that requires a cgroup where none is delegated: the jail is
    # refused (sandbox_unavailable), hutch(1)'s 71.
    pol = os.path.join(TMP, "cgroup-%s.json" % WHICH)
    d = json.loads(subprocess.run([HUTCH, "policy", "show", "default"], capture_output=True,
                                  timeout=T).stdout)
    d["requires"].append("cgroup")
    with open(pol, "w") as f:
        json.dump(d, f)
    with Server("--policy", pol) as s:
        r = s.run("/bin/true")
        expect(r.returncode == 71 and b"sandbox_unavailable" in r.stderr, show(r))


def case_live():
    # The first line is on our stdout while the command still runs.
    with Server() as s:
        p = s.popen("/bin/sh", "-c", "echo first; sleep 4; echo second")
        try:
            t0 = now()
            line = p.stdout.readline()
            took = now() - t0
            running = p.poll() is None
            rest, err = p.communicate(timeout=T)
        finally:
            if p.poll() is None:
                p.kill()
        expect(line == b"first\n", "first line %r" % line)
        expect(running and took < 3, "seen after %.1f s, client running: %s" % (took, running))
        expect(p.returncode == 0 and rest == b"second\n", "rest %r, exit %d, %r"
               % (rest, p.returncode, err))


def case_no_dup():
    # Part of each stream comes in live events, the rest only in the
    # result: every byte once, in order; binary output too (base64).
    with Server() as s:
        r = s.run("/bin/sh", "-c", "echo a; echo A >&2; sleep 0.8; echo b; echo B >&2")
        expect(r.returncode == 0 and r.stdout == b"a\nb\n" and r.stderr == b"A\nB\n", show(r))
        r = s.run("/bin/sh", "-c", r"printf '\377\000x'; sleep 0.8; printf '\376'")
        expect(r.returncode == 0 and r.stdout == b"\xff\x00x\xfe", "binary: " + show(r))


def cancel(sig):
    # SIGINT or SIGTERM: the client cancels, waits for the final event
    # (cancelled: 125) and the jail is gone; the server serves on.
    mark = "%d.%03d" % (40 + random.randrange(50), random.randrange(1000))
    with Server() as s:
        p = s.popen("/bin/sleep", mark)
        try:
            # The jail's sleep, not the client, whose argv holds the mark too.
            expect(wait_until(lambda: set(procs_with(mark)) - {p.pid}, 10),
                   "the jail never started")
            p.send_signal(sig)
            out, err = p.communicate(timeout=T)
        finally:
            if p.poll() is None:
                p.kill()
        expect(p.returncode == 125 and b"cancelled" in err, "exit %d, %r" % (p.returncode, err))
        expect(gone(mark), "a jail is left")
        expect(s.ping(), "the server stopped answering")


def case_sigint():
    cancel(signal.SIGINT)


def case_sigterm():
    cancel(signal.SIGTERM)


def case_expect_uid_name():
    me = pwd.getpwuid(os.geteuid()).pw_name
    other = "root" if os.geteuid() != 0 else "nobody"
    with Server() as s:
        r = subprocess.run(client_argv("--expect-uid", me, "--socket", s.path, "ping"),
                           capture_output=True, timeout=T)
        expect(r.returncode == 0, "own name %s: %s" % (me, show(r)))
        r = subprocess.run(client_argv("--expect-uid", other, "--socket", s.path, "ping"),
                           capture_output=True, timeout=T)
        expect(r.returncode == 125 and b"refusing" in r.stderr, "%s: %s" % (other, show(r)))
        r = subprocess.run(client_argv("--expect-uid", "no-such-user-hutch", "--socket", s.path,
                                       "ping"), capture_output=True, timeout=T)
        lines = r.stderr.decode().splitlines()
        expect(r.returncode == 125 and len(lines) == 1 and "no-such-user-hutch" in lines[0] and
               "no such user" in lines[0], "unknown name: " + show(r))


# A fake server of our own uid: it answers a run whose argv[0] names a
# canned final event, for the codes a real server seldom sends.
CANNED = {
    "busy": ({"failed": {"code": "busy", "message": "too many runs in flight"}}, 125),
    "probe": ({"failed": {"code": "sandbox_probe_failed", "message": "m"}}, 71),
    "spawn": ({"failed": {"code": "spawn_error", "message": "m"}}, 71),
    "timeout": ({"failed": {"code": "timeout", "message": "m"}}, 124),
    "internal": ({"failed": {"code": "internal", "message": "m"}}, 125),
    "killed": ({"exit": {"status": "signaled", "exit_code": None,
                         "signal": {"number": 9, "name": "SIGKILL"}, "error": None,
                         "stdout": {"base64": "AAEC", "truncated": False, "bytes": 3},
                         "stderr": {"text": "\u00e9\u2713 \"q\" \\ \U0001F600\x01\n",
                                    "truncated": False, "bytes": 12}}}, 137),
}


def fake_server(path):
    ls = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    ls.bind(path)
    ls.listen(8)

    def serve():
        while True:
            try:
                c, _ = ls.accept()
            except OSError:
                return
            with c:
                hdr = c.recv(4, socket.MSG_WAITALL)
                (n,) = struct.unpack(">I", hdr)
                req = json.loads(c.recv(n, socket.MSG_WAITALL))
                ev = dict(CANNED[req["run"]["argv"][0].lstrip("/")][0])
                ev.update({"version": 1, "id": req["id"]})
                data = json.dumps(ev).encode()
                c.sendall(struct.pack(">I", len(data)) + data)
    threading.Thread(target=serve, daemon=True).start()
    return ls


def case_fake_codes():
    path = private("fake")
    ls = fake_server(path)
    try:
        for name, (ev, want) in sorted(CANNED.items()):
            r = subprocess.run(client_argv("--socket", path, "run", "--", "/" + name),
                               capture_output=True, timeout=T)
            expect(r.returncode == want, "%s: want %d, %s" % (name, want, show(r)))
            if name == "killed":
                expect(r.stdout == b"\x00\x01\x02", "base64 stdout %r" % r.stdout)
                expect(r.stderr.decode() == ev["exit"]["stderr"]["text"],
                       "escaped stderr %r" % r.stderr)
            else:
                expect(ev["failed"]["code"].encode() in r.stderr, "%s: %r" % (name, r.stderr))
    finally:
        ls.close()


sys.exit(main(globals()))
EOF

cg=$("$HUTCH" probe --json 2>/dev/null | "$py" -c 'import json, sys
print([m["available"] for m in json.load(sys.stdin)["mechanisms"] if m["mechanism"] == "cgroup"][0])')
for c in c py; do
	if [ "$c" = c ] && [ -z "$cclient" ]; then
		skip "C client" "examples/hutch-client not found (set HUTCH_CLIENT)"
		continue
	fi
	check "$c: a command's exit 3 is the client's, its output on stdout and stderr" tc exit3 "$c"
	check "$c: a command killed by SIGTERM: 143" tc signal "$c"
	check "$c: exec failures: not found 127, not executable 126" tc exec_failed "$c"
	check "$c: a run over --lifetime: timeout, 124" tc timeout "$c"
	if [ "$cg" = False ]; then
		check "$c: a refused jail (requires cgroup, none delegated): 71" tc refused "$c"
	else
		skip "$c: a refused jail: 71" "a cgroup is delegated here, so requiring one refuses nothing"
	fi
	check "$c: live output reaches stdout while the command runs" tc live "$c"
	check "$c: no byte twice: live events then the result's rest, text and binary" tc no_dup "$c"
	check "$c: SIGINT cancels: 125, cancelled, no jail left, the server serves on" tc sigint "$c"
	check "$c: SIGTERM cancels the same way" tc sigterm "$c"
	check "$c: --expect-uid NAME: own name talks, another refused, unknown one line" \
		tc expect_uid_name "$c"
	check "$c: failed events map to hutch(1)'s codes; a signal 128+N; base64 and escapes decoded" \
		tc fake_codes "$c"
done

# The Python module where make install put it: from the build tree, the
# module alone installed into a scratch DESTDIR; installed (HUTCH_INSTALLED),
# under the prefix of $HUTCH. Imported with PYTHONPATH naming that
# directory, as hutch-protocol(7) tells a prefix install to.
if [ "${HUTCH_INSTALLED:-0}" = 1 ]; then
	prefix=$(cd "$(dirname "$HUTCH")/.." && pwd)
	root=
else
	prefix=
	root=$tmp/destdir
	if [ -f Makefile ] && grep -q '^hutchpydir' Makefile &&
		make -s install-hutchpyDATA DESTDIR="$root" >"$tmp/install.log" 2>&1; then
		prefix=$(sed -n 's/^prefix = //p' Makefile)
	fi
fi
mod=
if [ -n "$prefix" ]; then
	mod=$(find "$root$prefix" -name hutch_client.py -path '*python3*-packages/*' 2>/dev/null | head -n 1)
fi
if [ -n "$mod" ]; then
	got=$(cd / && PYTHONPATH="$(dirname "$mod")" "$py" -c 'import hutch_client
print(hutch_client.__file__, hutch_client.exit_status({"exit": {"status": "exited", "exit_code": 3}}))')
	same "make install: python3 imports hutch_client from $(dirname "$mod")" "$mod 3" "$got"
	dir=${mod%/hutch_client.py}
	if [ -n "$root" ]; then
		check "... under the configured prefix ${dir#"$root"}" test "${dir#"$root$prefix"/}" != "$dir"
	elif "$py" -c 'import sys; sys.exit(sys.argv[1] not in sys.path)' "$dir"; then
		got=$(cd / && env -u PYTHONPATH "$py" -c 'import hutch_client; print(hutch_client.__file__)')
		same "... and without PYTHONPATH: $dir is on python3's path" "$mod" "$got"
	else
		ok "... $dir is not on python3's path: a prefix install, which PYTHONPATH names"
	fi
elif [ "${HUTCH_INSTALLED:-0}" = 1 ]; then
	not_ok "make install: hutch_client.py under $prefix (python3*-packages)"
else
	skip "make install: python3 imports hutch_client" "not run from a configured build tree"
	skip "... its directory" "not run from a configured build tree"
fi

if [ "$tap_failed" != 0 ] && [ -s "$tmp/serve.log" ]; then
	diag "hutch serve stderr:"
	sed 's/^/# /' "$tmp/serve.log" | tail -n 40
fi
tap_done
