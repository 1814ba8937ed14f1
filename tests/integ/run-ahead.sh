#!/bin/sh
# run-ahead.sh: `hutch run` starts hutch-exec --ahead, which clones the
# jail's namespaces before it reads the spec (hutch-exec(8), CLONE AHEAD).
# The helper's own system calls show the clone before its first read of
# the spec and that jail then running the command (default and strict);
# a spec of another shape (network "host") discards the early pid 1 and
# still runs; a refused policy, a policy violation and a SIGKILLed hutch
# before the spec leave no process of the helper behind; a signal the
# caller ignores is not ignored in the jail (the spawn resets exactly the
# ignored and caught ones, read from /proc/self/status); id maps the
# kernel refuses (unprivileged, another uid outside) leave no early pid 1
# to outlive the helper (we are a subreaper: it would come to us). The
# helper is a copy of our own at a path of this test's, so that
# /proc/PID/exe tells its processes from any other test's.
. "$(dirname "$0")/lib.sh"

tap_tmpdir run-ahead

if [ ! -x "$py" ]; then
	skip "hutch-exec --ahead" "no $py"
	tap_done
	exit
fi
tap_need_mechanism user_namespaces "hutch-exec --ahead"

mkdir -p "$tmp/bin" "$tmp/rt"
chmod 700 "$tmp/rt"
cp "$HUTCH_EXEC" "$tmp/bin/hutch-exec"
helper="$tmp/bin/hutch-exec"

cat >"$tmp/t.py" <<'PYEOF'
import json, os, re, signal, subprocess, sys, time

HUTCH = os.environ["HUTCH"]
HELPER = os.environ["HUTCH_EXEC"]   # this test's copy
TMP = os.environ["TMPD"]


def fail(why):
    print(why)
    sys.exit(1)


def ours():
    """pids of live processes running this test's helper copy."""
    found = []
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                if os.readlink("/proc/%s/exe" % d) == HELPER:
                    found.append(int(d))
            except OSError:
                pass   # gone, a zombie, or not ours to read
    return found


def none_left(bound_s=0.0):
    end = time.monotonic() + bound_s
    while True:
        left = ours()
        if not left or time.monotonic() >= end:
            return left
        time.sleep(0.02)


def strace_run(args):
    """hutch run under strace -f; its result and the trace by pid."""
    out = os.path.join(TMP, "trace")
    for f in os.listdir(TMP):
        if f.startswith("trace."):
            os.unlink(os.path.join(TMP, f))
    # -ff: a file per process, so no call is split by another's
    p = subprocess.run(["strace", "-ff", "-qq", "-o", out, "-e",
                        "trace=execve,clone,clone3,fork,vfork,read,kill,wait4",
                        HUTCH, "run", "--json", *args],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=60)
    by_pid = {}
    for f in os.listdir(TMP):
        if f.startswith("trace."):
            by_pid[int(f[6:])] = [l for l in open(os.path.join(TMP, f))
                                  if not l.startswith("---")]
    return json.loads(p.stdout), by_pid


def ahead_helper(by_pid):
    """The helper started with --ahead, and its calls after that execve."""
    for pid, calls in by_pid.items():
        for i, c in enumerate(calls):
            if c.startswith("execve(\"%s\", [\"hutch-exec\", \"--ahead\"" % HELPER):
                return pid, calls[i + 1:]
    fail("no hutch-exec --ahead among: %s" % sorted(by_pid))


def userns_clones(calls):
    """(index, child pid, flags) of each clone into a new user namespace."""
    out = []
    for i, c in enumerate(calls):
        m = re.match(r"clone3?\(.*CLONE_NEWUSER.*\) += (\d+)", c)
        if m:
            out.append((i, int(m.group(1)), c))
    return out


def first_spec_read(calls):
    for i, c in enumerate(calls):
        if c.startswith("read(3,") and "HSP1" in c:
            return i
    fail("the helper never read its spec: %s" % calls[:20])


case = sys.argv[1]
if case in ("default", "strict"):
    doc, tr = strace_run(["--policy", case, "--", "/bin/echo", "ahead"])
    if doc["status"] != "exited" or doc["stdout"]["text"] != "ahead\n":
        fail("run: %s" % doc)
    pid, calls = ahead_helper(tr)
    clones = userns_clones(calls)
    spec = first_spec_read(calls)
    if len(clones) != 1 or clones[0][0] > spec:
        fail("want one clone before the spec's read (at %d): %s" % (spec, clones))
    child = clones[0][1]
    # that pid 1 built the jail: it read the spec from us and forked the
    # command (whose output the result has)
    mine = tr.get(child, [])
    if not any(c.startswith("read(3,") and "HSP1" in c for c in mine):
        fail("the early pid 1 %d never had the spec: %s" % (child, mine))
    if not any(re.match(r"(fork|vfork|clone3?)\(.*\) +=  *\d+", c) for c in mine):
        fail("the early pid 1 %d forked no command: %s" % (child, mine))
    if "CLONE_NEWNET" not in clones[0][2] or "CLONE_NEWPID" not in clones[0][2]:
        fail("not the default namespace set: %s" % clones[0][2])
elif case == "host":
    doc, tr = strace_run(["--policy", "network", "--network", "host", "--",
                          "/bin/echo", "host"])
    if doc["status"] != "exited" or doc["stdout"]["text"] != "host\n":
        fail("run: %s" % doc)
    pid, calls = ahead_helper(tr)
    clones = userns_clones(calls)
    if len(clones) != 2 or "CLONE_NEWNET" not in clones[0][2] or "CLONE_NEWNET" in clones[1][2]:
        fail("want the early clone, then one without a network namespace: %s" % clones)
    early = clones[0][1]
    killed = [i for i, c in enumerate(calls) if c.startswith("kill(%d, SIGKILL)" % early)]
    reaped = [i for i, c in enumerate(calls) if c.startswith("wait4(%d," % early)]
    if not killed or not reaped or reaped[0] > clones[1][0]:
        fail("the early pid 1 not killed and reaped before the second clone: %s" % calls)
    if none_left():
        fail("left behind: %s" % ours())
elif case == "refused":
    p = subprocess.run([HUTCH, "run", "--policy", os.path.join(TMP, "bad.json"), "--",
                        "/bin/true"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       timeout=60)
    left = ours()   # at once: hutch has exited, nothing of it may remain
    if p.returncode != 125 or b"policy_invalid" not in p.stderr:
        fail("want 125 and policy_invalid: %d %r" % (p.returncode, p.stderr))
    if left:
        fail("left behind: %s" % left)
elif case == "violation":
    p = subprocess.run([HUTCH, "run", "--policy", "strict", "--rw", "/tmp", "--",
                        "/bin/true"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       timeout=60)
    left = ours()
    if p.returncode != 125 or b"policy_violation" not in p.stderr:
        fail("want 125 and policy_violation: %d %r" % (p.returncode, p.stderr))
    if left:
        fail("left behind: %s" % left)
elif case == "sigkill":
    # A probe cache of our own is empty: hutch runs the canary before it
    # writes the spec, and meanwhile the early pid 1 waits. Caught there,
    # hutch is SIGKILLed; the helper and its pid 1 must go with it.
    env = dict(os.environ, XDG_RUNTIME_DIR=os.path.join(TMP, "rt"))
    for attempt in range(10):
        h = subprocess.Popen([HUTCH, "run", "--", "/bin/true"], env=env,
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        caught = None
        end = time.monotonic() + 10
        while caught is None and h.poll() is None and time.monotonic() < end:
            try:
                kids = open("/proc/%d/task/%d/children" % (h.pid, h.pid)).read().split()
            except OSError:
                kids = []
            for k in kids:
                try:
                    argv = open("/proc/%s/cmdline" % k, "rb").read().split(b"\0")
                    gk = open("/proc/%s/task/%s/children" % (k, k)).read().split()
                except OSError:
                    continue
                if argv[:2] == [b"hutch-exec", b"--ahead"] and gk:
                    caught = (int(k), int(gk[0]))
        if caught is None:
            h.wait(timeout=60)
            continue
        h.kill()
        h.wait(timeout=60)
        left = none_left(5.0)
        if left:
            fail("SIGKILLed hutch left %s (helper, pid 1: %s)" % (left, caught))
        print("caught helper %d with its early pid 1 %d on attempt %d" % (caught + (attempt,)))
        sys.exit(0)
    fail("never caught the early pid 1 before the spec in 10 runs")
elif case == "ignored":
    # A caller that ignores signals (nohup does SIGHUP): SIG_IGN survives
    # execve, so the spawn resets what is ignored, and only that now;
    # SIGALRM and SIGPWR are not among the signals pid 1 forwards, whose
    # handlers would hide a miss.
    signal.signal(signal.SIGALRM, signal.SIG_IGN)
    signal.signal(signal.SIGPWR, signal.SIG_IGN)
    p = subprocess.run([HUTCH, "run", "--json", "--", "/bin/grep", "^SigIgn:",
                        "/proc/self/status"], stdout=subprocess.PIPE, timeout=60,
                       restore_signals=False)
    doc = json.loads(p.stdout)
    if doc["status"] != "exited" or doc["exit_code"] != 0:
        fail("run: %s" % doc)
    ign = int(doc["stdout"]["text"].split()[1], 16)
    bad = [n for n in (signal.SIGALRM, signal.SIGPWR) if ign & (1 << (n - 1))]
    if bad:
        fail("ignored in the jail: %s (SigIgn %x)" % (bad, ign))
elif case == "idmaps":
    # The id maps refused (another uid outside, unprivileged): the helper
    # kills and reaps its early pid 1 before it exits, so that none is
    # left to its parent-death signal. We are a subreaper: a pid 1 that
    # outlived the helper would be handed to us, and be reaped here.
    import ctypes
    if ctypes.CDLL(None, use_errno=True).prctl(36, 1, 0, 0, 0) != 0:  # CHILD_SUBREAPER
        fail("PR_SET_CHILD_SUBREAPER: errno %d" % ctypes.get_errno())
    wrapper = os.path.join(TMP, "ahead.sh")
    with open(wrapper, "w") as f:
        f.write('#!/bin/sh\nexec "%s" --ahead "$@"\n' % HELPER)
    os.chmod(wrapper, 0o755)
    p = subprocess.run([os.path.join(os.environ["HUTCH_PROGS"], "spec-send"), "--helper",
                        wrapper, "--uid-outside", "1", "--gid-outside", str(os.getgid()),
                        "--default-layout", "--", "/bin/true"],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=60)
    line = p.stdout.decode().strip().splitlines()[-1:]
    if not line or "record=setup_failed stage=id_map item=1 errno=EPERM" not in line[0]:
        fail("want the uid map refused: %r" % p.stdout[-300:])
    orphans, end = [], time.monotonic() + 2
    while time.monotonic() < end:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            break
        if pid:
            orphans.append(pid)
        else:
            time.sleep(0.02)
    if orphans:
        fail("processes outlived the helper and came to us: %s" % orphans)
else:
    fail("unknown case " + case)
PYEOF

echo '{"name": "bad", "version": 1, "bogus": true}' >"$tmp/bad.json"

t() {
	d=$1
	shift
	if out=$(HUTCH_EXEC="$helper" TMPD="$tmp" "$py" "$tmp/t.py" "$@" 2>&1); then
		ok "$d"
		[ -n "$out" ] && diag "$out"
	else
		not_ok "$d"
		diag "$out"
	fi
}

if command -v strace >/dev/null 2>&1; then
	t "default policy: the helper clones its jail before it reads the spec, and that jail runs the command" default
	t "strict policy: the same" strict
	t "network host: the early pid 1 killed and reaped before a clone without a network namespace; the run succeeds" host
else
	skip "the helper clones before it reads the spec" "no strace"
	skip "strict: the same" "no strace"
	skip "network host: the early pid 1 discarded" "no strace"
fi
t "a refused policy: 125 and policy_invalid, and no process of the helper left once hutch exits" refused
t "a policy violation: 125, and no process of the helper left once hutch exits" violation
t "hutch SIGKILLed while the early pid 1 waits for the spec: helper and pid 1 gone" sigkill
t "signals the caller ignored are not ignored in the jail (the spawn resets them)" ignored
if is_root; then
	skip "the id maps refused: the early pid 1 reaped by the helper before it exits" \
		"root may map any uid"
elif [ -x "${HUTCH_PROGS:-}/spec-send" ]; then
	t "the id maps refused: the early pid 1 reaped by the helper before it exits" idmaps
else
	skip "the id maps refused: the early pid 1 reaped by the helper before it exits" \
		"no HUTCH_PROGS/spec-send"
fi

tap_done
