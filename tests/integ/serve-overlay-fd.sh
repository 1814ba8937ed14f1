#!/bin/sh
# serve-overlay-fd.sh: an overlay by descriptor in `hutch serve` (issue 21:
# a daemon gives a jail a copy-on-write view of a directory it passes,
# without the server's path authority; hutch-protocol(7), "DESCRIPTORS").
# A server without --allow-path-binds: a directory passed with the frame
# as {"source_fd": 0, "mode": "overlay"} is the jail's to change; the
# result lists what changed (added, modified, deleted, with digests),
# export_changes brings the files' bytes, and the host tree is byte for
# byte what it was; hutch_client.py --overlay HOST:JAIL does the same from
# the command line; the same overlay named by path is refused; as root, a
# client of another uid may overlay only a directory of its own (a root
# server reads an overlay's lower as the directory's owner).
. "$(dirname "$0")/lib.sh"

tap_tmpdir serve-overlay-fd /tmp
tap_serve_setup "hutch serve overlays by descriptor" c

mkdir "$tmp/src" "$tmp/src/sub"
echo "kept" >"$tmp/src/keep.txt"
echo "before" >"$tmp/src/edit.txt"
echo "doomed" >"$tmp/src/sub/gone.txt"
chmod -R a+rX "$tmp/src"
chmod 755 "$tmp"

cat >"$tmp/cases.py" <<'EOF'
# cases.py: one case per invocation (argv[1]), run by tapcase.main.
import base64
import hashlib
import json
import os
import subprocess
import sys

from tapcase import (TMP, connect, diag, expect, hutch_for_all, main, serve_socket,
                     stop)

SRC = os.path.join(TMP, "src")
JOB = ("cat /w/keep.txt && echo after >/w/edit.txt && echo fresh >/w/new.txt && "
       "rm /w/sub/gone.txt")


def tree(root):
    """Every path under root with its bytes (None for a directory)."""
    out = {}
    for d, dirs, files in os.walk(root):
        for n in dirs:
            out[os.path.relpath(os.path.join(d, n), root)] = None
        for n in files:
            with open(os.path.join(d, n), "rb") as f:
                out[os.path.relpath(os.path.join(d, n), root)] = f.read()
    return out


def by_path(doc):
    return {e["path"]: e for e in doc.get("changes", [])}


def check_changes(doc, exported):
    expect(doc.get("status") == "exited" and doc.get("exit_code") == 0,
           "the run: %s %s" % (doc.get("status"), doc.get("error")))
    expect(doc["stdout"].get("text") == "kept\n", "the jail did not read the passed tree")
    ch = by_path(doc)
    diag("changes: %s" % sorted((p, e["change"]) for p, e in ch.items()))
    expect(ch.get("/w/edit.txt", {}).get("change") == "modified", "edit.txt not modified")
    expect(ch.get("/w/new.txt", {}).get("change") == "added", "new.txt not added")
    expect(ch.get("/w/sub/gone.txt", {}).get("change") == "deleted", "gone.txt not deleted")
    expect("/w/keep.txt" not in ch, "keep.txt listed though unchanged")
    expect(ch["/w/new.txt"].get("sha256") == hashlib.sha256(b"fresh\n").hexdigest(),
           "new.txt's digest")
    if exported:
        expect(base64.b64decode(ch["/w/edit.txt"].get("base64", "")) == b"after\n",
               "export_changes: edit.txt's bytes")
        expect(base64.b64decode(ch["/w/new.txt"].get("base64", "")) == b"fresh\n",
               "export_changes: new.txt's bytes")
    else:
        expect("base64" not in ch["/w/new.txt"], "bytes without export_changes")


def case_overlay_fd():
    path = os.path.join(TMP, "fd.sock")
    proc = serve_socket(path)    # no --allow-path-binds
    before = tree(SRC)
    try:
        for exported in (False, True):
            fd = os.open(SRC, os.O_RDONLY | os.O_DIRECTORY)
            req = {"version": 1, "argv": ["/bin/sh", "-c", JOB],
                   "mounts": [{"source_fd": 0, "target": "/w", "mode": "overlay"}]}
            if exported:
                req["export_changes"] = True
            doc = connect(path).run(req, fds=[fd])
            os.close(fd)
            check_changes(doc, exported)
            expect(tree(SRC) == before, "the host tree changed")
    finally:
        stop(proc)


def case_path_refused():
    path = os.path.join(TMP, "path.sock")
    proc = serve_socket(path)
    try:
        c = connect(path)
        rid = c.start({"version": 1, "argv": ["/bin/true"],
                       "mounts": [{"source": SRC, "target": "/w", "mode": "overlay"}]})
        ev = c.wait_final(rid)
        f = ev.get("failed") or {}
        diag("a path overlay: %s: %s" % (f.get("code"), f.get("message")))
        expect(f.get("code") == "policy_violation" and f.get("pointer") == "/mounts/0/source",
               "a path overlay without --allow-path-binds: %s" % ev)
        expect("--allow-path-binds" in f.get("message", ""), "the refusal names no way out")
    finally:
        stop(proc)


def case_client_cli():
    """hutch_client.py, then the C client when there is one."""
    path = os.path.join(TMP, "cli.sock")
    proc = serve_socket(path)
    before = tree(SRC)
    ov = ["--overlay", SRC + ":/w"]
    # hutch_client.py takes its binds after "run", hutch-client before it
    clients = [[sys.executable, os.path.join(os.environ["CLIENT_DIR"], "hutch_client.py"),
                "--socket", path, "--json", "run"] + ov]
    if os.environ.get("CCLIENT"):
        clients.append([os.environ["CCLIENT"], "--socket", path, "--json"] + ov + ["run"])
    try:
        for cl in clients:
            out = subprocess.run(cl + ["--", "/bin/sh", "-c", JOB],
                                 stdout=subprocess.PIPE, timeout=60)
            expect(out.returncode == 0, "%s exited %d" % (cl[0], out.returncode))
            ev = json.loads(out.stdout)
            check_changes(ev.get("exit", {}), False)
            expect(tree(SRC) == before, "the host tree changed")
        diag("--overlay through %d clients" % len(clients))
    finally:
        stop(proc)


# As another uid: a client of a root server passes a directory for an
# overlay; its event as JSON on stdout.
FOREIGN = r"""
import json, os, socket, sys
sys.path.insert(0, os.environ["CLIENT_DIR"])
from hutch_client import HutchClient
s = socket.socket(socket.AF_UNIX)
s.connect(sys.argv[1])
s.settimeout(30)
c = HutchClient(s)
fd = os.open(sys.argv[2], os.O_RDONLY | os.O_DIRECTORY)
rid = c.start({"version": 1, "argv": ["/bin/sh", "-c", "echo x >/w/x"],
               "mounts": [{"source_fd": 0, "target": "/w", "mode": "overlay"}]}, [fd])
print(json.dumps(c.wait_final(rid)))
"""


def case_not_owner():
    nobody = 65534
    mine = os.path.join(TMP, "mine")
    os.mkdir(mine, 0o755)
    os.chown(mine, nobody, nobody)
    path = os.path.join(TMP, "root.sock")
    proc = serve_socket(path, "--mode", "0666")
    env = hutch_for_all()[1]
    try:
        def as_nobody(src):
            p = subprocess.run([sys.executable, "-c", FOREIGN, path, src], user=nobody,
                               group=nobody, extra_groups=[], capture_output=True, timeout=60,
                               env=env)
            expect(p.returncode == 0, "client as nobody: %s" % p.stderr.decode()[-600:])
            return json.loads(p.stdout)
        ev = as_nobody(SRC)    # root's, readable by all
        f = ev.get("failed") or {}
        diag("root's directory: %s: %s" % (f.get("code"), f.get("message")))
        expect(f.get("code") == "policy_violation" and
               f.get("pointer") == "/mounts/0/source_fd" and
               "not owned by the client" in f.get("message", ""),
               "an overlay of root's directory for nobody: %s" % ev)
        ev = as_nobody(mine)   # the control: its own
        doc = ev.get("exit") or {}
        expect(doc.get("status") == "exited" and doc.get("exit_code") == 0 and
               "/w/x" in by_path(doc), "an overlay of nobody's own directory: %s" % ev)
        expect(os.listdir(mine) == [], "nobody's directory changed")
    finally:
        stop(proc)


sys.exit(main(globals()))
EOF


check "an overlay of a passed directory: changes listed, host tree unchanged, export_changes brings the bytes" tc overlay_fd
check "an overlay named by path without --allow-path-binds: policy_violation at /mounts/0/source" tc path_refused
check "hutch_client.py and hutch-client --overlay HOST:JAIL pass the directory; the change set comes back" tc client_cli
if [ "$(id -u)" = 0 ]; then
	check "root server, client nobody: an overlay of root's directory refused (not owned by the client); of its own, taken" tc not_owner
else
	skip "overlay of another user's directory" "needs root (a client of another uid)"
fi

tap_serve_done
