# lib.sh: TAP helpers for the integration tests (sourced, POSIX sh).
# Binaries come from the environment: HUTCH, HUTCH_EXEC, HUTCH_PROGS.
# HUTCH_MUST_WORK=1 (set by .ci/run) turns a skip for a missing kernel
# feature into a failure.

: "${HUTCH:?HUTCH must name the hutch binary}"
: "${HUTCH_EXEC:?HUTCH_EXEC must name the hutch-exec binary}"
export HUTCH HUTCH_EXEC
tap_n=0
tap_failed=0

ok() { tap_n=$((tap_n + 1)); echo "ok $tap_n - $*"; }
not_ok() { tap_n=$((tap_n + 1)); tap_failed=$((tap_failed + 1)); echo "not ok $tap_n - $*"; }
diag() { printf '# %s\n' "$@"; }

# check DESCRIPTION COMMAND...: ok when the command succeeds.
check() {
	d=$1
	shift
	if "$@"; then ok "$d"; else not_ok "$d"; fi
}

# skip_feature DESCRIPTION REASON: a missing kernel feature.
skip_feature() {
	if [ "${HUTCH_MUST_WORK:-0}" = 1 ]; then
		not_ok "$1 (HUTCH_MUST_WORK: $2)"
	else
		tap_n=$((tap_n + 1))
		echo "ok $tap_n - $1 # SKIP $2"
	fi
}

is_root() { [ "$(id -u)" = 0 ]; }

tap_done() {
	echo "1..$tap_n"
	[ "$tap_failed" = 0 ]
}

# tap_serve_done: tap_done, after the last 40 lines of the servers'
# stderr when a case failed ($tmp/serve.log, where tapcase.py's servers
# write).
tap_serve_done() {
	if [ "$tap_failed" != 0 ] && [ -s "$tmp/serve.log" ]; then
		diag "hutch serve stderr:"
		sed 's/^/# /' "$tmp/serve.log" | tail -n 40
	fi
	tap_done
}

# skip DESCRIPTION REASON: a test that cannot run here, for a reason other
# than a missing kernel feature (so HUTCH_MUST_WORK does not fail it).
skip() { tap_n=$((tap_n + 1)); echo "ok $tap_n - $1 # SKIP $2"; }

# same DESCRIPTION WANT GOT: ok when GOT is exactly WANT. When tap_stderr
# names a file, its start is shown on failure and it is emptied after.
tap_stderr=
same() {
	if [ "$3" = "$2" ]; then
		ok "$1"
	else
		not_ok "$1"
		diag "want: $2" "got:  $3"
		[ -n "$tap_stderr" ] && [ -s "$tap_stderr" ] && diag "stderr: $(head -c 500 "$tap_stderr")"
	fi
	[ -z "$tap_stderr" ] || : >"$tap_stderr"
}

# The Python the tests drive documents with, and the scripts' own folder.
py=/usr/bin/python3
here=$(cd "$(dirname "$0")" && pwd)

# tap_tmpdir NAME [PARENT]: $tmp, a fresh directory under PARENT (default
# $TMPDIR or /tmp), world-traversable because the jail's user outside may
# be another uid; removed at exit after the tap_cleanup_add commands run.
# The probe and filter cache goes to a private runtime directory of its own
# ($XDG_RUNTIME_DIR, 0700) under /dev/shm: hutch loads a cache only from
# below /dev/shm or /run/user, which no request bind can reach.
tap_tmpdir() {
	tmp=$(mktemp -d "${2:-${TMPDIR:-/tmp}}/hutch-$1.XXXXXX") || exit 99
	chmod 755 "$tmp"
	tap_rt=$(mktemp -d /dev/shm/hutch-rt.XXXXXX) || exit 99
	trap 'eval "$tap_cleanups"; rm -rf "$tmp" "$tap_rt"' EXIT
	export XDG_RUNTIME_DIR="$tap_rt"
}

# tap_cleanup_add COMMAND: run COMMAND (shell text, expanded then) at exit.
tap_cleanups=
tap_cleanup_add() {
	tap_cleanups="$tap_cleanups$1
"
}

# json_get EXPR <DOC: a Python expression on the JSON document d.
json_get() {
	"$py" -c 'import json, sys
d = json.load(sys.stdin)
v = eval(sys.argv[1])
print(v if isinstance(v, str) else json.dumps(v))' "$1"
}

# has TEXT REGEX: some line of TEXT matches the extended REGEX.
has() { printf '%s\n' "$1" | grep -q -E -- "$2"; }

# not COMMAND...: true when COMMAND fails (for check).
not() { ! "$@"; }

# now_ms: the wall clock in milliseconds.
now_ms() { echo $(($(date +%s%N) / 1000000)); }

# wait_for FILE REGEX [SECONDS]: poll until FILE has a matching line
# (default 10 s).
wait_for() {
	i=0
	while [ $i -lt $((${3:-10} * 20)) ]; do
		grep -q -E -- "$2" "$1" 2>/dev/null && return 0
		sleep 0.05
		i=$((i + 1))
	done
	return 1
}

# no_process MARKER [SECONDS]: true when, within the bound (default 5 s),
# no process has MARKER in its command line (zombies have none).
no_process() {
	i=0
	limit=$((${2:-5} * 10))
	while [ $i -lt $limit ]; do
		found=
		for c in /proc/[0-9]*/cmdline; do
			if tr '\0' ' ' 2>/dev/null <"$c" | grep -qF -- "$1"; then
				found=${c%/cmdline}
				break
			fi
		done
		[ -z "$found" ] && return 0
		sleep 0.1
		i=$((i + 1))
	done
	diag "still alive: $found: $(tr '\0' ' ' 2>/dev/null <"$found/cmdline")"
	return 1
}

# tap_client_dir: the folder of the Python client hutch_client.py, from
# HUTCH_CLIENT_DIR, the source tree, or next to the tests; empty if none.
tap_client_dir() {
	for d in ${HUTCH_CLIENT_DIR:-} ${HUTCH_SRCDIR:+"$HUTCH_SRCDIR/examples"} \
		"$here/../../examples" "$here"; do
		if [ -f "$d/hutch_client.py" ]; then
			(cd "$d" && pwd)
			return
		fi
	done
}

# tap_need_mechanism NAME WHAT: $probe_row is hutch probe's row (JSON) for
# the mechanism NAME; when that is not available, the script is one
# skip_feature naming WHAT with probe's line for NAME, and ends.
tap_need_mechanism() {
	probe_row=$("$HUTCH" probe --json 2>/dev/null | json_get \
		"[m for m in d['mechanisms'] if m['mechanism'] == '$1'][0]")
	if ! printf '%s' "$probe_row" | grep -q '"available": true'; then
		skip_feature "$2" "$("$HUTCH" probe 2>&1 | grep "^$1")"
		tap_done
		exit
	fi
}

# tap_serve_setup WHAT [c]: the start the serve*.sh scripts share, after
# tap_tmpdir. $client_dir is the Python client's folder (tap_client_dir);
# without it or without $py the script is one skip naming WHAT, and ends.
# With "c", $cclient is the C client: $HUTCH_CLIENT, or the build tree's
# examples/ (next to tests/progs), or an installed copy next to the tests;
# empty when there is none (the cases that need it skip). Then tapcase.py
# in $tmp (tap_pycases); CLIENT_DIR, TMPD and CCLIENT exported for the
# cases; and tc CASE [ARG...] runs one case of $tmp/cases.py, which the
# script writes next.
tap_serve_setup() {
	client_dir=$(tap_client_dir)
	cclient=
	if [ "${2:-}" = c ]; then
		cclient=${HUTCH_CLIENT:-}
		for f in ${HUTCH_PROGS:+"$HUTCH_PROGS/../../examples/hutch-client"} \
			"$here/../../examples/hutch-client" "$here/hutch-client"; do
			[ -z "$cclient" ] && [ -x "$f" ] && cclient=$f
		done
	fi
	if [ ! -x "$py" ] || [ -z "$client_dir" ]; then
		skip "$1" "no $py or no hutch_client.py (HUTCH_SRCDIR unset and none next to the tests)"
		tap_done
		exit
	fi
	tap_pycases "$tmp"
	export CLIENT_DIR="$client_dir" TMPD="$tmp" CCLIENT="$cclient"
	tc() { "$py" "$tmp/cases.py" "$@"; }
}

# tap_pycases DIR: write DIR/tapcase.py, what the cases.py of the serve*.sh
# scripts share (they import it from their own directory): the server on
# a socket or a socketpair, a client, waits, and the case runner; and
# DIR/fswire.py, the forkserver driven directly over its socket.
tap_pycases() {
	cat >"$1/tapcase.py" <<'PYEOF'
# tapcase.py (written by lib.sh): one test case per run of a cases.py
# (argv[1]); exit 0 when it passed, diagnostics as TAP comments. Every
# wait is bounded. CLIENT_DIR, HUTCH and TMPD come from the environment.
import os
import resource
import signal
import socket
import subprocess
import sys
import time
import traceback

sys.path.insert(0, os.environ["CLIENT_DIR"])
from hutch_client import HutchClient  # noqa: E402,F401

HUTCH = os.environ["HUTCH"]
TMP = os.environ["TMPD"]
T = 30  # bound on any one wait, in seconds
LOG = os.path.join(TMP, "serve.log")
TICK = os.sysconf("SC_CLK_TCK")


class Fail(Exception):
    pass


def diag(*a):
    for line in " ".join(str(x) for x in a).splitlines():
        print("#", line, flush=True)


def expect(cond, what):
    if not cond:
        raise Fail(what)


def now():
    return time.monotonic()


def wait_until(pred, timeout, step=0.02):
    """Poll pred until it is true or timeout seconds pass; its last value."""
    end = now() + timeout
    while True:
        v = pred()
        if v or now() >= end:
            return v
        time.sleep(step)


def hutch_for_all():
    """A copy of hutch (and of hutch-exec and the policies when the
    environment names them, and of the Python client) that any user may
    run, for a server or client started as another uid: the build and
    source trees may sit where that uid cannot enter (tests/ci.sh's build
    tree is 0700, and so is distcheck's). The path to run and the
    environment (CLIENT_DIR names the client's copy)."""
    d = os.path.join(TMP, "hutch-for-all")
    env = dict(os.environ)
    if not os.path.isdir(d):
        os.makedirs(os.path.join(d, "policy"))
        subprocess.run(["cp", HUTCH, os.path.join(d, "hutch")], check=True)
        if os.environ.get("HUTCH_EXEC"):
            subprocess.run(["cp", os.environ["HUTCH_EXEC"], os.path.join(d, "hutch-exec")],
                           check=True)
        pol = os.environ.get("HUTCH_POLICY_PATH")
        if pol and os.path.isdir(pol):
            for f in os.listdir(pol):
                if f.endswith(".json"):
                    subprocess.run(["cp", os.path.join(pol, f), os.path.join(d, "policy")],
                                   check=True)
        client = os.path.join(os.environ.get("CLIENT_DIR", ""), "hutch_client.py")
        if os.path.isfile(client):
            subprocess.run(["cp", client, d], check=True)
        subprocess.run(["chmod", "-R", "a+rX", d], check=True)
    env["CLIENT_DIR"] = d
    if os.environ.get("HUTCH_EXEC"):
        env["HUTCH_EXEC"] = os.path.join(d, "hutch-exec")
    if os.environ.get("HUTCH_POLICY_PATH"):
        env["HUTCH_POLICY_PATH"] = os.path.join(d, "policy")
    return os.path.join(d, "hutch"), env


def procs_with(mark):
    """Pids whose command line holds mark (the jailed processes are
    visible in the host's /proc)."""
    found = []
    m = mark.encode()
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open("/proc/%s/cmdline" % d, "rb") as f:
                if m in f.read():
                    found.append(int(d))
        except OSError:
            pass
    return found


def gone(mark, timeout=5):
    left = wait_until(lambda: not procs_with(mark), timeout)
    if not left:
        diag("still running with %s: %s" % (mark, procs_with(mark)))
    return left


def spawn(*opts, env=None):
    """hutch serve --fd N over a socketpair; the client end times out."""
    ours, theirs = socket.socketpair()
    with open(LOG, "ab") as log:
        proc = subprocess.Popen([HUTCH, "serve", *opts, "--fd", str(theirs.fileno())],
                                pass_fds=(theirs.fileno(),), stdout=log, stderr=log, env=env)
    theirs.close()
    ours.settimeout(T)
    return HutchClient(ours, proc)


def pool_server(*opts, as_root=False, cpus=None):
    """hutch serve --fd over a socketpair, as nobody when we are root (a
    root server pools nothing) unless as_root; on the processors cpus
    only, if given (the forkserver counts those of its affinity)."""
    ours, theirs = socket.socketpair()
    hutch, env, kw = HUTCH, None, {}
    if cpus is not None:
        kw["preexec_fn"] = lambda: os.sched_setaffinity(0, cpus)
    if os.geteuid() == 0 and not as_root:
        hutch, env = hutch_for_all()
        kw.update(user=65534, group=65534, extra_groups=[])
    with open(LOG, "ab") as log:
        proc = subprocess.Popen([hutch, "serve", "--log-level", "error", *opts, "--fd",
                                 str(theirs.fileno())], pass_fds=(theirs.fileno(),),
                                stdout=log, stderr=log, env=env, **kw)
    theirs.close()
    ours.settimeout(T)
    return HutchClient(ours, proc)


def children(pid):
    """pid's children, from /proc; none once it is gone."""
    try:
        with open("/proc/%d/task/%d/children" % (pid, pid)) as f:
            return [int(x) for x in f.read().split()]
    except OSError:
        return []


def pooled(c, n):
    """Wait until c's forkserver holds n pooled jails, each an outer
    process with its pid 1."""
    kids = wait_until(lambda: children(c.proc.pid), 10)
    expect(kids and len(kids) == 1, "the server's children: %s" % kids)

    def full():
        k = children(kids[0])
        return len(k) == n and all(len(children(p)) == 1 for p in k)
    return wait_until(full, 10)


def run(c, argv, fds=(), **req):
    """A run of argv through c that must exit: its result document."""
    r = c.run(dict({"version": 1, "argv": argv}, **req), fds=fds)
    expect(r.get("status") == "exited", "run %s: %s" % (argv, r))
    return r


def took_pool(r):
    """The run took a pooled jail: no clone, no id maps on its path."""
    t = r["jail"]["timings"]
    return t["clone_us"] == 0 and t["id_maps_us"] == 0


def host_dir(parent):
    """A directory under parent any user can read, with data.txt."""
    import tempfile
    d = tempfile.mkdtemp(prefix="hutch-pool-", dir=parent)
    os.chmod(d, 0o755)
    with open(os.path.join(d, "data.txt"), "w") as f:
        f.write("from %s\n" % d)
    os.chmod(os.path.join(d, "data.txt"), 0o644)
    return d


def own_run(c, d):
    """A run through c with mounts of its own: an input file and d bound
    (its descriptor passed); it must see both."""
    fd = os.open(d, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        r = run(c, ["/bin/sh", "-c", "cat /work/in.txt /work/d/data.txt"], fds=[fd],
                files=[{"name": "in.txt", "text": "its own\n"}],
                mounts=[{"source_fd": 0, "target": "/work/d", "mode": "ro"}])
    finally:
        os.close(fd)
    expect(r["stdout"]["text"] == "its own\nfrom %s\n" % d,
           "stdout %r stderr %r" % (r["stdout"]["text"], r["stderr"]["text"]))
    return r


def fresh_after_dirty(c, look, ahead, what):
    """Through c (--pool 1): a run that writes /tmp/m, /work/m and
    /tmp/d, then two more, each in a pooled jail for which ahead(result)
    holds (what: its name), must see what a first run saw (look's
    output): nothing a run leaves reaches the next."""
    first = run(c, ["/bin/sh", "-c", look])["stdout"]["text"]
    expect(pooled(c, 1), "the pool never held its jail")
    r = run(c, ["/bin/sh", "-c", "echo x >/tmp/m; echo x >/work/m; mkdir /tmp/d; " + look])
    expect(took_pool(r) and ahead(r), "the dirty run: %s" % r["jail"]["timings"])
    expect("x\nx\n" in r["stdout"]["text"], "the dirty run sees nothing: %r" % r["stdout"])
    for _ in range(2):
        expect(pooled(c, 1), "the pool never held its jail")
        r = run(c, ["/bin/sh", "-c", look])
        expect(took_pool(r) and ahead(r), "not %s: %s" % (what, r["jail"]["timings"]))
        expect(r["stdout"]["text"] == first,
               "the next run sees %r, a first run %r" % (r["stdout"]["text"], first))


def serve_socket(path, *opts, env=None, nofile=None):
    """hutch serve --socket PATH (with RLIMIT_NOFILE nofile), once it
    answers there."""
    def limit():
        resource.setrlimit(resource.RLIMIT_NOFILE, (nofile, nofile))
    with open(LOG, "ab") as log:
        proc = subprocess.Popen([HUTCH, "serve", "--socket", path, *opts],
                                stdout=log, stderr=log, env=env,
                                preexec_fn=limit if nofile else None)

    def up():
        if proc.poll() is not None:
            return True
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            s.connect(path)
            return True
        except OSError:
            return False
        finally:
            s.close()
    expect(wait_until(up, 10), "serve --socket %s never listened" % path)
    expect(proc.poll() is None, "serve --socket %s exited %s" % (path, proc.returncode))
    return proc


def connect(path, timeout=T):
    """A client of the server at path, its waits bounded by timeout."""
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(timeout)
    s.connect(path)
    return HutchClient(s)


def cpu_s(pid):
    """The CPU seconds (user + system) process pid has used."""
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK


def stop(proc, sig=signal.SIGTERM):
    """Signal the server and reap it; one that outlives T seconds fails."""
    if proc.poll() is None:
        proc.send_signal(sig)
    try:
        return proc.wait(T)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
        raise Fail("the server did not exit within %ds of signal %d" % (T, sig))


def vm_kb(pid, field):
    """A kB field of /proc/PID/status (VmRSS, VmHWM), 0 once it is gone."""
    try:
        with open("/proc/%d/status" % pid) as f:
            for line in f:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def sanitized(pid):
    """Whether PID runs under AddressSanitizer (memory bounds do not hold):
    its maps name libasan, or else (a process already gone or not yet
    mapped) the binary under test asks for it."""
    try:
        with open("/proc/%d/maps" % pid) as f:
            if "libasan" in f.read():
                return True
    except OSError:
        pass
    try:
        with open(HUTCH, "rb") as f:
            return b"libasan.so" in f.read()
    except OSError:
        return False


def main(cases):
    """Run the case named by argv[1] from cases (a module's globals)."""
    name = sys.argv[1]
    try:
        cases["case_" + name]()
        return 0
    except Fail as e:
        diag("%s: %s" % (name, e))
    except Exception:
        diag(traceback.format_exc())
    return 1
PYEOF
	cat >"$1/fswire.py" <<'PYEOF'
# fswire.py (written by lib.sh): driving `hutch-exec --forkserver`
# directly over its socket (shared/forkserver-wire.h), for the cases that
# hand a pooled jail a spec other than its shape or template says.
import array
import fcntl
import os
import socket
import struct
import subprocess

from tapcase import T, TMP, children, expect, hutch_for_all

NOBODY = 65534
FS_MAGIC = 0x68667334  # "hfs4"
SLOTS = (1 << 0) | (1 << 1) | (1 << 2) | (1 << 3) | (1 << 4) | (1 << 7)  # stdio, spec, status, exit
STAGE_HELPER_EXEC, EINVAL = 33, 22


def spec_bytes(*opts):
    """The wire bytes spec-send makes, caught by a helper that saves them."""
    out = os.path.join(TMP, "spec-%d.bin" % len(os.listdir(TMP)))
    catcher = out + ".sh"
    with open(catcher, "w") as f:
        f.write("#!/bin/sh\nexec /bin/cat <&3 >%s\n" % out)
    os.chmod(catcher, 0o755)
    subprocess.run([os.path.join(os.environ["HUTCH_PROGS"], "spec-send"), "--helper", catcher,
                    "--default-layout", *opts, "--", "/bin/true"], capture_output=True,
                   timeout=T)
    with open(out, "rb") as f:
        return f.read()


def shape_of(spec):
    """The spec's shape (HUTCH_FS_SHAPE_FLAGS: namespaces, lo; the ids;
    the hostname), as the frontend reads it from the header."""
    flags, ui, gi, uo, go = struct.unpack("<5I", spec[12:32])
    n, = struct.unpack("<I", spec[104:108])  # after 5 rlimits and 4 user caps
    return (flags & 0x3f, ui, gi, uo, go, spec[108:108 + n])


def sealed(data):
    """data in a memfd sealed as the frontend seals a template."""
    fd = os.memfd_create("template", os.MFD_CLOEXEC | os.MFD_ALLOW_SEALING)
    os.write(fd, data)
    fcntl.fcntl(fd, fcntl.F_ADD_SEALS, fcntl.F_SEAL_SEAL | fcntl.F_SEAL_WRITE |
                fcntl.F_SEAL_GROW | fcntl.F_SEAL_SHRINK)
    return fd


def fs_job(sock, spec, shape, prefix_id=b"", template=None):
    """One job on the forkserver's socket, spec claimed to be of shape
    (and of the template whose id is prefix_id, its sealed memfd sent
    when given): (pooled, the wait status, the status record or b"")."""
    null = os.open("/dev/null", os.O_RDWR)
    spec_r, spec_w = os.pipe()
    st_r, st_w = os.pipe()
    ex_r, ex_w = os.pipe()
    fds, slots = [null, null, null, spec_r, st_w, ex_w], SLOTS
    if template is not None:
        fds.append(template)
        slots |= 1 << 8  # FS_SLOT_TEMPLATE
    msg = struct.pack("<4I5I68s32sI", FS_MAGIC, slots, 0, 1, *shape, prefix_id, 0)
    sock.sendmsg([msg], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", fds))])
    for fd in (null, spec_r, st_w, ex_w):
        os.close(fd)
    rep, anc, _, _ = sock.recvmsg(16, socket.CMSG_SPACE(4))
    for _, _, data in anc:
        for fd in array.array("i", data[:4]):
            os.close(fd)
    _, err, _, pooled = struct.unpack("<IiiI", rep)
    expect(err == 0, "the forkserver refused the job: errno %d" % err)
    try:
        os.write(spec_w, spec)
    except BrokenPipeError:
        pass  # the jail refused before it read: its record says why
    os.close(spec_w)
    record = os.read(st_r, 16)
    os.close(st_r)
    ex = os.read(ex_r, 32)
    os.close(ex_r)
    return pooled, struct.unpack("<Ii", ex[:8])[1], record


def holds_one_jail(fs_pid):
    """The forkserver holds one pooled jail: an outer process with its
    pid 1."""
    kids = children(fs_pid)
    return len(kids) == 1 and len(children(kids[0])) == 1


def forkserver():
    """hutch-exec --forkserver --pool 1 on a socketpair (as nobody when we
    are root: a root forkserver pools nothing): our end, its process."""
    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    exe, kw = os.environ["HUTCH_EXEC"], {}
    if os.geteuid() == 0:
        exe = hutch_for_all()[1]["HUTCH_EXEC"]
        kw = dict(user=NOBODY, group=NOBODY, extra_groups=[])
    n = theirs.fileno()
    move = "" if n == 3 else "3<&%d %d<&-" % (n, n)
    fs = subprocess.Popen(["/bin/sh", "-c", 'exec "$0" --forkserver --pool 1 ' + move, exe],
                          stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                          pass_fds=(theirs.fileno(),), **kw)
    theirs.close()
    ours.settimeout(T)
    return ours, fs
PYEOF
}
