#!/bin/sh
# run-timings.sh: jail.timings in result documents (hutch(1), RESULT
# DOCUMENT): every step of the frontend and of the helper, non-negative
# whole microseconds, summing to no more than the wall time of the hutch
# process measured from outside; under the allow-list policy too, without
# a denial of its own; a failed execve still timed; a refused jail has no
# helper steps and fails as before; the control socket the record comes on
# never reaches the target; and through hutch serve.
. "$(dirname "$0")/lib.sh"

tap_tmpdir run-timings

if [ ! -x "$py" ]; then
	skip "jail.timings" "no $py"
	tap_done
	exit
fi

cat >"$tmp/t.py" <<'PYEOF'
import json, os, subprocess, sys, time

HUTCH = os.environ["HUTCH"]
FRONT = ["request_us", "policy_us", "plan_us", "probe_us", "spec_us", "spawn_us"]
HELPER = ["prepare_us", "clone_us", "id_maps_us", "mount_private_us", "binds_dir_us",
          "binds_file_us", "root_us", "tmpfs_us", "proc_us", "devpts_us", "files_us",
          "overlay_us", "pivot_root_us", "network_us", "landlock_us", "rlimits_us",
          "privileges_us", "session_us", "seccomp_us", "fork_us", "exec_us"]


def run(*args):
    t0 = time.monotonic_ns()
    p = subprocess.run([HUTCH, "run", "--json", *args], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, timeout=60)
    wall_us = (time.monotonic_ns() - t0) // 1000
    return json.loads(p.stdout), wall_us


def fail(why):
    print(why)
    sys.exit(1)


def check_all(doc, wall_us, keys):
    t = doc["jail"].get("timings")
    if not isinstance(t, dict):
        fail("no jail.timings: %s" % doc["jail"])
    missing = [k for k in keys if k not in t]
    extra = [k for k in t if k not in keys]
    if missing or extra:
        fail("missing %s, unknown %s" % (missing, extra))
    bad = [k for k in keys if not isinstance(t[k], int) or isinstance(t[k], bool) or t[k] < 0]
    if bad:
        fail("not a non-negative integer: %s" % {k: t[k] for k in bad})
    total = sum(t.values())
    if total > wall_us:
        fail("sum %d us > wall %d us: %s" % (total, wall_us, t))
    # the steps that cannot take no time at all on any kernel
    if t.get("clone_us", 1) == 0 and t.get("exec_us", 1) == 0:
        fail("clone and exec both 0: %s" % t)
    return t


case = sys.argv[1]
if case == "true":
    doc, wall = run("--", "/bin/true")
    if doc["status"] != "exited" or doc["exit_code"] != 0:
        fail("status: %s" % doc)
    t = check_all(doc, wall, FRONT + HELPER)
    print("wall %d us, timings %s" % (wall, json.dumps(t)))
elif case == "strict":
    doc, wall = run("--policy", "strict", "--", "/bin/true")
    if doc["status"] != "exited" or doc["exit_code"] != 0:
        fail("status: %s" % doc)
    if doc.get("denials"):
        fail("pid 1's record cost a denial: %s" % doc["denials"])
    check_all(doc, wall, FRONT + HELPER)
elif case == "exec_failed":
    doc, wall = run("--", "/nonexistent/program")
    if doc["status"] != "failed" or doc["error"]["code"] != "exec_failed":
        fail("status: %s" % doc)
    check_all(doc, wall, FRONT + HELPER)
elif case == "no_record":
    # An older helper sends no record (the relay below drops it): no
    # helper steps, and the run is what it would have been.
    doc, wall = run("--", "/bin/true")
    if doc["status"] != "exited" or doc["exit_code"] != 0:
        fail("status: %s" % doc)
    t = doc["jail"].get("timings", {})
    if any(k in t for k in HELPER):
        fail("helper steps without a record: %s" % t)
    # spawn_us: the helper started early, if it was
    check_all(doc, wall, FRONT[:-1] + (["spawn_us"] if "spawn_us" in t else []))
elif case == "fds":
    # the record's socket is closed in the target: only 0-2 and ls's own
    doc, wall = run("--", "/bin/ls", "/proc/self/fd")
    if doc["status"] != "exited" or doc["stdout"]["text"].split() != ["0", "1", "2", "3"]:
        fail("descriptors in the jail: %s" % doc["stdout"])
    check_all(doc, wall, FRONT + HELPER)
elif case == "pid1_fds":
    # pid 1 holds the control socket while the command's execve runs; it
    # is not dumpable by then, so the command cannot open its fds (the
    # control: its own are there to list)
    doc, wall = run("--", "/bin/sh", "-c",
                    "ls /proc/self/fd >/dev/null && echo self-ok; ls /proc/1/fd 2>/dev/null"
                    " && echo pid1-listed; readlink /proc/1/fd/6 2>/dev/null && echo pid1-6")
    out = doc["stdout"]["text"].split()
    if doc["status"] != "exited" or out != ["self-ok"]:
        fail("the command reached pid 1's descriptors: %s" % doc["stdout"])
elif case == "serve":
    sys.path.insert(0, os.environ["CLIENT_DIR"])
    from tapcase import spawn, stop
    c = spawn()
    t0 = time.monotonic_ns()
    doc = c.run({"version": 1, "argv": ["/bin/true"]})
    wall = (time.monotonic_ns() - t0) // 1000
    c.close()
    stop(c.proc)
    if doc["status"] != "exited":
        fail("status: %s" % doc)
    # the policy is loaded once, and the request read by the server's loop
    check_all(doc, wall, ["spec_us", "spawn_us"] + HELPER)
PYEOF

tc() { "$py" "$tmp/t.py" "$1" >"$tmp/out" 2>&1; }
diag_out() { sed 's/^/# /' "$tmp/out"; }

if tc true; then ok "hutch run -- /bin/true: every step, >= 0, sum <= wall"; else not_ok "hutch run -- /bin/true: every step, >= 0, sum <= wall"; fi
diag_out
if tc strict; then ok "strict (allow-list): every step, no denial of pid 1's"; else not_ok "strict (allow-list): every step, no denial of pid 1's"; diag_out; fi
if tc exec_failed; then ok "a failed execve is timed and still exec_failed"; else not_ok "a failed execve is timed and still exec_failed"; diag_out; fi
if tc pid1_fds; then ok "pid 1's descriptors (the control socket among them) are out of the command's reach"; else not_ok "pid 1's descriptors (the control socket among them) are out of the command's reach"; diag_out; fi
if tc fds; then ok "the target holds 0, 1, 2 only: the control socket stayed out"; else not_ok "the target holds 0, 1, 2 only: the control socket stayed out"; diag_out; fi

# An older helper, which sends no record: the real one behind a relay of
# its control socket that passes descriptors on and drops anything else.
cat >"$tmp/oldhelper" <<EOF2
#!$py
import os, socket, sys
ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
out = socket.socket(fileno=6)
pid = os.fork()
if pid == 0:
    ours.close()
    os.dup2(theirs.fileno(), 6)
    os.execv("$HUTCH_EXEC", ["hutch-exec"])
theirs.close()
while True:
    msg, fds, flags, addr = socket.recv_fds(ours, 4096, 4)
    if not msg:
        break
    if fds and len(msg) == 1:
        socket.send_fds(out, [msg], fds)
    for fd in fds:
        os.close(fd)
out.close()
st = os.waitpid(pid, 0)[1]
if os.WIFSIGNALED(st):
    os.kill(os.getpid(), os.WTERMSIG(st))
sys.exit(os.WEXITSTATUS(st))
EOF2
chmod 755 "$tmp/oldhelper"
if HUTCH_EXEC="$tmp/oldhelper" tc no_record; then ok "no record (an older helper): no helper steps, the run as ever"; else not_ok "no record (an older helper): no helper steps, the run as ever"; diag_out; fi

client_dir=$(tap_client_dir)
if [ -z "$client_dir" ]; then
	skip "jail.timings through hutch serve" "no hutch_client.py"
else
	tap_pycases "$tmp"
	if CLIENT_DIR="$client_dir" TMPD="$tmp" PYTHONPATH="$tmp" tc serve; then
		ok "hutch serve: spec, spawn and every helper step"
	else
		not_ok "hutch serve: spec, spawn and every helper step"
		diag_out
	fi
fi
tap_done
