# via_serve.py: `hutch run` as escape.py calls it, through `hutch serve`
# instead (HUTCH_ESCAPE_SERVE, tests/escape/README): the same options
# made into a request document, sent to a server of the same policy that
# this process starts (`hutch serve --fd`, with SERVE_ARGS, killed with
# us as a SIGKILLed `hutch run` would be), its result document printed as
# `hutch run --json` prints it (a refused request's failed event as a
# result document with that error, as hutch run gives one). With --pool in SERVE_ARGS and a server
# that pools (not root), a run of the probe's own shape goes first (the
# same request, its options, input files and binds, argv /bin/true) and
# the probe waits for the pool to hold a jail, then must be given one
# (jail.timings.clone_us 0) whose policy mounts were built ahead
# (binds_file_us and proc_us 0: hutch-exec(8), FORKSERVER, the template),
# or this says so instead of a result: every probe row is then a run in
# a prebuilt pooled jail. A probe with a bind from under /tmp, where the
# new root is staged, gets a pooled jail without the prefix built (the
# frontend sends such a request no template); it must still be pooled.
# With HUTCH_ESCAPE_WHOLE=1 the probe's program comes on the request's
# standard input instead of as an input file (launch.py reads it from
# there), so that a probe with no binds, masks or collected files of its
# own adds no mount at all: after 8 such warm-up runs its template is
# whole and, pooled, it must
# run in a jail whose whole root, pivot_root and Landlock rules were
# built ahead (pivot_root_us 0; hutch-exec(8), "The template").
#
#   python3 via_serve.py --hutch HUTCH --serve-args ARGS run [OPTIONS] -- ARGV...
import base64
import ctypes
import json
import os
import signal
import socket
import subprocess
import sys
import time

here = os.path.dirname(os.path.abspath(__file__))
for d in (os.environ.get("HUTCH_CLIENT_DIR", ""), os.path.join(here, "..", "..", "examples")):
    if d and os.path.isfile(os.path.join(d, "hutch_client.py")):
        sys.path.insert(0, d)
        break
from hutch_client import HutchClient  # noqa: E402

PR_SET_PDEATHSIG = 1


def die(msg):
    print("via_serve.py: " + msg)
    sys.exit(125)


def duration_ms(text):
    for suffix, mult in (("ms", 1), ("s", 1000), ("m", 60000)):
        if text.endswith(suffix) and text[:-len(suffix)].isdigit():
            return int(text[:-len(suffix)]) * mult
    die("--timeout %s: not understood" % text)


STAGED = []  # the sources of binds, to tell whether a prefix is built ahead
WHOLE = os.environ.get("HUTCH_ESCAPE_WHOLE") == "1"
WHOLE_AFTER = 8


def bind(req, fds, spec, mode):
    src, sep, dst = spec.partition(":")
    if not sep:
        die("%s: give SRC:DST" % spec)
    STAGED.append(os.path.realpath(src))
    fds.append(os.open(src, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC))
    req.setdefault("mounts", []).append({"source_fd": len(fds) - 1, "target": dst,
                                         "mode": mode})


def translate(args):
    """The `hutch run` options escape.py uses: (policy, request, fds)."""
    req, fds, policy = {"version": 1}, [], "default"
    while args and args[0] != "--":
        o = args[0]
        if o == "--json":
            args = args[1:]
            continue
        if len(args) < 2:
            die("%s: no value" % o)
        v, args = args[1], args[2:]
        if o == "--policy":
            policy = v
        elif o == "--timeout":
            req.setdefault("limits", {})["wall_ms"] = duration_ms(v)
        elif o == "--memory":
            if not (v.endswith("M") and v[:-1].isdigit()):
                die("--memory %s: not understood" % v)
            req.setdefault("limits", {})["memory_bytes"] = int(v[:-1]) << 20
        elif o == "--input":
            name, _, path = v.partition("=")
            with open(path, "rb") as f:
                data = base64.b64encode(f.read()).decode()
            if WHOLE and name == "probes":
                req["stdin"] = {"base64": data}
            else:
                req.setdefault("files", []).append({"name": name, "base64": data})
        elif o == "--rw":
            bind(req, fds, v, "rw")
        elif o == "--overlay":
            # serve takes an overlay's source as a path only, the
            # server's opt-in (--allow-path-binds; hutch-protocol(7))
            src, _, dst = v.partition(":")
            STAGED.append(os.path.realpath(src))
            req.setdefault("mounts", []).append({"source": src, "target": dst,
                                                 "mode": "overlay"})
        elif o == "--hide":
            req.setdefault("hide", []).append(v)
        elif o == "--collect":
            req.setdefault("collect", []).append(v)
        elif o == "--network":
            req["network"] = v
        else:
            die("%s: not translated to a request" % o)
    req["argv"] = args[1:]
    return policy, req, fds


def die_with_us():
    ctypes.CDLL(None).prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)


def server(hutch, policy, serve_args):
    ours, theirs = socket.socketpair()
    proc = subprocess.Popen([hutch, "serve", "--log-level", "error", "--policy", policy,
                             *serve_args, "--fd", str(theirs.fileno())],
                            pass_fds=(theirs.fileno(),), stdin=subprocess.DEVNULL,
                            stdout=subprocess.DEVNULL, preexec_fn=die_with_us)
    theirs.close()
    return HutchClient(ours, proc)


def children(pid):
    found = []
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                with open("/proc/%s/stat" % d) as f:
                    if int(f.read().rsplit(")", 1)[1].split()[1]) == pid:
                        found.append(int(d))
            except OSError:
                pass
    return found


def pool_filled(c, timeout=10):
    """The forkserver holds a pooled jail (idle: any child of it is one)."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        for fs in children(c.proc.pid):
            if children(fs):
                return True
        time.sleep(0.01)
    return False


def main(argv):
    hutch, serve_args = argv[1], argv[3].split()
    if argv[0] != "--hutch" or argv[2] != "--serve-args" or argv[4] != "run":
        die("usage: --hutch HUTCH --serve-args ARGS run [OPTIONS] -- ARGV...")
    policy, req, fds = translate(argv[5:])
    pooling = "--pool" in serve_args and serve_args[serve_args.index("--pool") + 1] != "0" \
        and os.geteuid() != 0
    if any(m.get("mode") == "overlay" for m in req.get("mounts", [])):
        serve_args = serve_args + ["--allow-path-binds"]
    c = server(hutch, policy, serve_args)
    if pooling:
        # the probe's own shape and template: the same request but argv;
        # for a whole template, as many in a row as the frontend wants
        # before it sends one (frontend/run/forkserver.h FS_WHOLE_AFTER)
        for _ in range(WHOLE_AFTER if WHOLE else 1):
            warm = c.wait_final(c.start(dict(req, argv=["/bin/true"]), fds))
            if "exit" not in warm:
                break
        if "failed" in warm:
            pooling = False  # refused before any jail: so is the probe, below
        elif "exit" not in warm:
            die("the warm-up run: %s" % json.dumps(warm)[:300].replace("{", "("))
        elif not pool_filled(c):
            die("the pool never held a jail")
    ev = c.wait_final(c.start(req, fds))
    for fd in fds:
        os.close(fd)
    if "failed" in ev:
        # As `hutch run --json` reports a refused request: a result
        # document with no status and the error (exit 125).
        json.dump({"version": 1, "status": None, "error": ev["failed"]}, sys.stdout)
        sys.stdout.write("\n")
        return 125
    if "exit" not in ev:
        die("no exit event: %s" % json.dumps(ev)[:300].replace("{", "("))
    doc = ev["exit"]
    t = (doc.get("jail") or {}).get("timings") or {}
    if pooling and t.get("clone_us") != 0:
        die("the run did not take a pooled jail (clone_us %s)" % t.get("clone_us"))
    staged = any(p == "/" or p == "/tmp" or p.startswith("/tmp/") for p in STAGED)
    if pooling and not staged and (t.get("binds_file_us") != 0 or t.get("proc_us") != 0):
        die("the run's pooled jail had not built its policy's mounts ahead (%s)" %
            json.dumps(t).replace("{", "("))
    own = req.get("files") or req.get("mounts") or req.get("hide") or req.get("collect")
    if pooling and WHOLE and not own and t.get("pivot_root_us") != 0:
        die("no mounts of its own, yet its pooled jail was not built whole (%s)" %
            json.dumps(t).replace("{", "("))
    json.dump(doc, sys.stdout)
    sys.stdout.write("\n")
    sys.stdout.flush()
    c.close()
    c.proc.wait(30)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
