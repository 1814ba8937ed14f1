#!/usr/bin/env python3
"""escape.py: the harness of tests/escape (see README); run.sh calls it.

Plants canaries where no jail binds anything, starts a sentinel process and
loopback listeners outside, runs every probe of probes*.c inside `hutch run`
under each shipped policy, checks what only the outside can see, then runs
every probe once more directly on the host (the control: it must be able to
see the attack succeed), prints a table and `N passed, N failed`.

Exit status: 0 when every row passed, 1 otherwise, 2 on a setup error.
"""
import argparse
import base64
import ctypes
import hashlib
import json
import os
import pty
import pwd
import secrets
import select
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import tty

# Request binds never execute, /work is noexec and a memfd is sealed
# against exec under every shipped policy, so the staged probe runs the way
# a JIT runs code: launch.py loads it into anonymous executable memory.
# Same process, same pid, uid, filters and descriptors.
with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "launch.py")) as _f:
    LAUNCH = _f.read()

# Probes whose host control is not run, and why.
NO_CONTROL = {
    "fork-bomb": "not run on the host: a fork bomb outside any jail hits the host itself",
    "mem-bomb": "not run on the host: a memory bomb outside any jail hits the host itself",
    "mem-bomb-multi": "not run on the host: a memory bomb outside any jail hits the host itself",
    "disk-fill": "not run on the host: filling the host's /tmp and /dev/shm is not a test",
}
PTY_PROBES = {"tiocsti", "tiocsti-highbit", "tioclinux", "tioclinux-highbit"}
NET_PROBES = {"tcp-egress", "udp-egress", "unix-abstract", "unix-path"}
LINGER_PROBES = {"outlive", "outlive-timeout", "outlive-kill", "fork-bomb"}
# Under `--policy network --network host` (the host's network, by design)
# these must still be contained: Landlock scopes abstract sockets, the
# filesystem, pid and ipc namespaces stay the jail's.
HOST_NET_PROBES = ["unix-abstract", "unix-path", "proc-signal", "sysv-ipc", "proc-see"]
# Under `--policy build --network proxy` (egress only through the proxy the
# supervisor runs, to an empty allow-list): nothing but the proxy answers.
PROXY_NET_PROBES = ["tcp-egress", "udp-egress", "icmp-egress", "unix-abstract", "unix-path",
                    "net-ifaces"]
# Masks inside binds: a workspace bound at /work/ws (hutch(1), "Masks
# inside binds"); the harness replants it after every run.
MASK_PROBES = {"mask-read", "mask-hook", "mask-hardlink", "mask-absent", "mask-absent-rw"}
MASK_WS = "/work/ws"
# A repository without .git/hooks (probes-absent.c): an overlay for
# mask-absent, read-write for mask-absent-rw (which hutch must refuse).
ABSENT_PROBES = {"mask-absent", "mask-absent-rw"}
MASK_WS2 = "/work/ws2"
VERDICTS = ("CONTAINED", "ESCAPED", "NOTAPPLICABLE", "ERROR")
# Memory bombs under policies that allow more per process ask for
# --memory BOMB_MEM_MIB (HUTCH_ESCAPE_BOMB_MEM): bigger ones outlast the
# run's timeout, under software emulation (tests/vm) even 1 GiB does.
BOMB_MEM_MIB = int(os.environ.get("HUTCH_ESCAPE_BOMB_MEM") or 1024)


def landlock_abi():
    """The running kernel's Landlock ABI (0: none), as the jail gets it."""
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    # landlock_create_ruleset(NULL, 0, LANDLOCK_CREATE_RULESET_VERSION)
    abi = libc.syscall(444, None, ctypes.c_size_t(0), ctypes.c_uint32(1))
    return max(int(abi), 0)


def kernel_refuses_tiocsti():
    """Linux 6.2+ with dev.tty.legacy_tiocsti=0 refuses TIOCSTI without
    CAP_SYS_ADMIN: then no control run of ours can inject either."""
    try:
        with open("/proc/sys/dev/tty/legacy_tiocsti") as f:
            return f.read().strip() == "0" and os.geteuid() != 0
    except OSError:
        return False


def log(msg):
    print(msg, file=sys.stderr, flush=True)


class Listeners:
    """TCP, UDP, abstract and pathname unix listeners; every byte received
    is kept, so a token in it proves a connection from a probe."""

    def __init__(self, nonce, sock_path):
        self.lock = threading.Lock()
        self.seen = []
        self.stop = False
        self.threads = []
        self.tcp = self._bind(socket.SOCK_STREAM)
        self.udp = self._bind(socket.SOCK_DGRAM)
        self.port = self.tcp.getsockname()[1]
        self.uport = self.udp.getsockname()[1]
        self.abstract_name = "hutch-escape-" + nonce
        self.abstract = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.abstract.bind("\0" + self.abstract_name)
        self.abstract.listen(16)
        self.path = sock_path
        self.unix = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.unix.bind(sock_path)
        os.chmod(sock_path, 0o777)
        self.unix.listen(16)
        for s, kind in ((self.tcp, "tcp"), (self.abstract, "abstract"), (self.unix, "unix")):
            t = threading.Thread(target=self._accept, args=(s, kind), daemon=True)
            t.start()
            self.threads.append(t)
        t = threading.Thread(target=self._udp, daemon=True)
        t.start()
        self.threads.append(t)

    @staticmethod
    def _bind(kind):
        try:
            s = socket.socket(socket.AF_INET6, kind)
            s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
            s.bind(("::", 0))
        except OSError:
            s = socket.socket(socket.AF_INET, kind)
            s.bind(("0.0.0.0", 0))
        if kind == socket.SOCK_STREAM:
            s.listen(16)
        return s

    def _record(self, kind, data):
        with self.lock:
            self.seen.append((kind, data))

    def _accept(self, s, kind):
        s.settimeout(0.5)
        while not self.stop:
            try:
                c, _ = s.accept()
            except OSError:
                continue
            c.settimeout(2)
            data = b""
            try:
                while len(data) < 4096:
                    d = c.recv(4096)
                    if not d:
                        break
                    data += d
            except OSError:
                pass
            c.close()
            self._record(kind, data if data else b"(connection, no data)")

    def _udp(self):
        self.udp.settimeout(0.5)
        while not self.stop:
            try:
                data, peer = self.udp.recvfrom(4096)
            except OSError:
                continue
            self._record("udp", data)
            try:
                self.udp.sendto(b"ACK\n", peer)
            except OSError:
                pass

    def find(self, token):
        with self.lock:
            return [k for k, d in self.seen if token.encode() in d]

    def close(self):
        self.stop = True
        for s in (self.tcp, self.udp, self.abstract, self.unix):
            s.close()


def host_addresses():
    """The host's first global IPv4 and IPv6 addresses (egress targets
    beyond loopback)."""
    v4 = v6 = ""
    try:
        out = subprocess.run(["hostname", "-I"], capture_output=True, text=True, timeout=5).stdout
        for a in out.split():
            if ":" in a and not v6 and not a.lower().startswith("fe80"):
                v6 = a
            elif ":" not in a and not v4:
                v4 = a
    except (OSError, subprocess.SubprocessError):
        pass
    return v4, v6


def devino(path):
    s = os.stat(path)
    return "%d:%d" % (s.st_dev, s.st_ino)


def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def lingering(marker):
    """Pids of processes named marker (the kernel's comm, 15 bytes)."""
    found = []
    for p in os.listdir("/proc"):
        if not p.isdigit():
            continue
        try:
            with open("/proc/%s/comm" % p) as f:
                comm = f.read().strip()
            with open("/proc/%s/stat" % p) as f:
                state = f.read().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if comm == marker[:15] and state != "Z":
            found.append(int(p))
    return found


def kill_pids(pids):
    for p in pids:
        try:
            os.kill(p, signal.SIGKILL)
        except OSError:
            pass


def kill_marker(marker):
    """SIGKILL every process named marker until none has been seen for a
    few scans: a control's second lingerer may take its name only after
    the first scan (it names itself after its fork). Cleanup only; the
    verdict is made before."""
    quiet, end = 0, time.monotonic() + 3
    while quiet < 3 and time.monotonic() < end:
        pids = lingering(marker)
        kill_pids(pids)
        quiet = 0 if pids else quiet + 1
        time.sleep(0.1)


def run_captured(argv, cwd, env, timeout, use_pty=False, pass_fds=()):
    """Run argv; returns (exit code or None if we had to kill it, output
    bytes, wall ms, bytes found in the pty's input queue)."""
    t0 = time.monotonic()
    if not use_pty:
        # Files, not pipes: a process left behind holding our pipe must not
        # keep us waiting for EOF (the wait is for the command itself).
        with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
            try:
                p = subprocess.Popen(argv, cwd=cwd, env=env, stdin=subprocess.DEVNULL,
                                     stdout=out, stderr=err, pass_fds=pass_fds)
            except OSError as e:
                return 127, ("cannot run %s: %s" % (argv[0], e)).encode(), 0, b""
            try:
                rc = p.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
                rc = None
            wall = int((time.monotonic() - t0) * 1000)
            out.seek(0)
            err.seek(0)
            o, e = out.read(), err.read()
        return rc, o + (b"\n[stderr] " + e if e.strip() else b""), wall, b""

    # On a pty that is the command's controlling terminal, in raw mode so
    # that injected input stays in the queue for us to find afterwards.
    master, slave = pty.openpty()
    tty.setraw(slave)
    pid = os.fork()
    if pid == 0:
        try:
            os.setsid()
            import fcntl
            import termios
            fcntl.ioctl(slave, termios.TIOCSCTTY, 0)
            for fd in (0, 1, 2):
                os.dup2(slave, fd)
            os.close(master)
            os.close(slave)
            if cwd:
                os.chdir(cwd)
            os.execvpe(argv[0], argv, env)
        finally:
            os._exit(127)
    out = b""
    rc = None
    deadline = t0 + timeout
    while True:
        r, _, _ = select.select([master], [], [], 0.1)
        if r:
            try:
                d = os.read(master, 65536)
            except OSError:
                d = b""
            out += d
        wp, status = os.waitpid(pid, os.WNOHANG)
        if wp == pid:
            rc = os.waitstatus_to_exitcode(status)
            break
        if time.monotonic() > deadline:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            rc = None
            break
    # drain what is left on the master
    while select.select([master], [], [], 0.05)[0]:
        try:
            d = os.read(master, 65536)
        except OSError:
            break
        if not d:
            break
        out += d
    os.set_blocking(slave, False)
    injected = b""
    try:
        injected = os.read(slave, 4096)
    except OSError:
        pass
    os.close(master)
    os.close(slave)
    wall = int((time.monotonic() - t0) * 1000)
    return rc, out, wall, injected


def verdict_of(text):
    """The probe's line: (verdict, evidence)."""
    for line in reversed(text.splitlines()):
        line = line.strip()
        for v in VERDICTS:
            if line.startswith(v + " ") or line == v:
                return v, line[len(v):].strip()
    return None, ""


class Harness:
    def __init__(self, a):
        self.a = a
        self.hutch = a.hutch
        self.extra = a.extra.split()
        self.serve = a.serve if a.serve else None
        if self.serve is not None and self.extra:
            raise SystemExit("escape.py: --extra does not go through --serve")
        self.probes = a.probes
        self.tmp = a.tmp
        self.user = pwd.getpwuid(os.geteuid()).pw_name
        self.rows = []
        self.nonce = secrets.token_hex(4)
        self.secret = "hxsecret-" + secrets.token_hex(12)
        self.runs = 0
        self.cleanup_dirs = []
        self.sentinel = None

    # -- setup ------------------------------------------------------------

    def plant(self):
        t = self.tmp
        self.canary = os.path.join(t, "canary")
        os.mkdir(self.canary)
        os.chmod(self.canary, 0o777)
        self.secret_file = os.path.join(self.canary, "secret")
        with open(self.secret_file, "w") as f:
            f.write("canary " + self.secret + "\n")
        os.chmod(self.secret_file, 0o644)
        self.writable = os.path.join(self.canary, "writable")
        self.writable_text = "writable canary " + self.nonce + "\n"
        with open(self.writable, "w") as f:
            f.write(self.writable_text)
        os.chmod(self.writable, 0o666)
        self.canaries = [self.canary]
        for base in ("/var/tmp", "/dev/shm"):
            try:
                d = tempfile.mkdtemp(prefix="hutch-escape.", dir=base)
            except OSError:
                continue
            os.chmod(d, 0o777)
            with open(os.path.join(d, "secret"), "w") as f:
                f.write("canary " + self.secret + "\n")
            os.chmod(os.path.join(d, "secret"), 0o644)
            self.canaries.append(d)
            self.cleanup_dirs.append(d)
        self.hostroot = devino("/")
        self.canarydev = devino(self.canary)
        self.relsecret = os.path.relpath(self.secret_file, "/")
        self.cache = tempfile.mkdtemp(prefix="hutch-escape-rt.", dir="/dev/shm")  # 0700, unbindable
        self.cleanup_dirs.append(self.cache)
        self.ws = os.path.join(t, "ws")
        self.ws2 = os.path.join(t, "ws2")
        self.plant_ws()
        self.scratch = os.path.join(t, "scratch")
        os.mkdir(self.scratch)
        os.chmod(self.scratch, 0o755)
        self.hashes = {p: self.identity(p) for p in self.binaries()}
        self.hostname = socket.gethostname()

    def plant_ws(self):
        """The workspace of the mask probes: a secret .env and a repository
        whose hook and config must not change."""
        if os.path.isdir(self.ws):
            shutil.rmtree(self.ws)
        os.makedirs(os.path.join(self.ws, ".git", "hooks"))
        files = {".env": "canary " + self.secret + "\n", ".git/config": "[core]\n",
                 ".git/hooks/pre-commit": "#!/bin/sh\n", "README": "readme\n"}
        for rel, text in files.items():
            with open(os.path.join(self.ws, rel), "w") as f:
                f.write(text)
        # Only its owner may write it: a root caller's jail acts as that
        # owner through an idmapped bind, and hutch refuses to lend the
        # ownership of a tree others may write.
        for d, dirs, names in os.walk(self.ws):
            os.chmod(d, 0o755)
            for n in names:
                os.chmod(os.path.join(d, n), 0o644)
        self.ws_files = files
        # a host hard link of the hidden .env (mask-hardlink); made by the
        # harness's own user, who owns .env (protected_hardlinks)
        os.link(os.path.join(self.ws, ".env"), os.path.join(self.ws, "hx-alias"))
        self.plant_ws2()

    def plant_ws2(self):
        """A repository without .git/hooks, for the mask-absent probes."""
        if os.path.isdir(self.ws2):
            shutil.rmtree(self.ws2)
        for d in (".git/objects", ".git/refs/heads"):
            os.makedirs(os.path.join(self.ws2, d))
        for rel, text in {".git/HEAD": "ref: refs/heads/main\n", ".git/config": "[core]\n",
                          "README": "readme\n"}.items():
            with open(os.path.join(self.ws2, rel), "w") as f:
                f.write(text)
        for d, dirs, names in os.walk(self.ws2):
            os.chmod(d, 0o755)
            for n in names:
                os.chmod(os.path.join(d, n), 0o644)

    def ws2_changed(self):
        """What the mask-absent probes left in the host's repository."""
        bad = []
        if os.path.lexists(os.path.join(self.ws2, ".git", "hooks")):
            bad.append("the host's repository has a .git/hooks")
        if os.path.lexists(os.path.join(self.ws2, ".git-hx-aside")):
            bad.append("the host's .git was moved aside")
        for d, dirs, names in os.walk(self.ws2):
            for n in names:
                try:
                    with open(os.path.join(d, n), errors="replace") as f:
                        if "hx-evil" in f.read():
                            bad.append("a planted hook on the host: " +
                                       os.path.relpath(os.path.join(d, n), self.ws2))
                except OSError:
                    pass
        return bad

    def ws_changed(self):
        """What the mask probes changed in the host's workspace."""
        bad = []
        for rel in (".git/config", ".git/hooks/pre-commit"):
            try:
                with open(os.path.join(self.ws, rel)) as f:
                    if f.read() != self.ws_files[rel]:
                        bad.append("the host's %s changed" % rel)
            except OSError as e:
                bad.append("the host's %s: %s" % (rel, e.strerror))
        for d, dirs, names in os.walk(self.ws):
            for n in names:
                try:
                    with open(os.path.join(d, n), errors="replace") as f:
                        if "hx-evil" in f.read():
                            bad.append("a planted hook on the host: " +
                                       os.path.relpath(os.path.join(d, n), self.ws))
                except OSError:
                    pass
        return bad

    @staticmethod
    def identity(path):
        """(inode, SHA-256): writing through /proc/PID/exe changes the
        content of the same inode; a rebuild replaces the inode."""
        st = os.stat(path)
        return (st.st_dev, st.st_ino), sha256(path)

    def binaries(self):
        out = [os.path.realpath(self.hutch)]
        he = os.environ.get("HUTCH_EXEC")
        if he and os.path.exists(he):
            out.append(os.path.realpath(he))
        else:
            # an installed tree: the helper next to the frontend's prefix
            pre = os.path.dirname(os.path.dirname(os.path.realpath(self.hutch)))
            cand = os.path.join(pre, "libexec", "hutch", "hutch-exec")
            if os.path.exists(cand):
                out.append(cand)
        return out

    def start_sentinel(self):
        exe = os.path.join(self.tmp, "sentinel-bin")
        shutil.copy(self.probes, exe)
        os.chmod(exe, 0o755)
        self.sentinel_log = os.path.join(self.tmp, "sentinel.log")
        open(self.sentinel_log, "w").close()
        addrfile = os.path.join(self.tmp, "sentinel.addr")
        self.marker = "hx-sentinel-" + self.nonce
        self.ipckey = "0x48%06x" % (int(self.nonce, 16) & 0xFFFFFF)
        env = dict(os.environ, HUTCH_SENTINEL_SECRET=self.secret)
        self.sentinel = subprocess.Popen(
            [exe, "sentinel", "marker=" + self.marker, "log=" + self.sentinel_log,
             "addrfile=" + addrfile, "ipckey=" + self.ipckey],
            cwd=self.canary, env=env, stdin=subprocess.DEVNULL)
        for _ in range(100):
            if os.path.exists(addrfile) and os.path.getsize(addrfile) > 0:
                break
            time.sleep(0.05)
        with open(addrfile) as f:
            self.addr = f.read().strip()

    def start_listeners(self):
        self.net = Listeners(self.nonce, os.path.join(self.canary, "sock"))
        self.hostip, self.hostip6 = host_addresses()
        # a vsock port held outside (vsock has no network namespace)
        self.vsock = None
        self.vport = ""
        try:
            self.vsock = socket.socket(socket.AF_VSOCK, socket.SOCK_STREAM)
            self.vsock.bind((socket.VMADDR_CID_ANY, socket.VMADDR_PORT_ANY))
            self.vsock.listen(1)
            self.vport = str(self.vsock.getsockname()[1])
        except (OSError, AttributeError):
            if self.vsock:
                self.vsock.close()
            self.vsock = None
        # what the canary directories hold once everything is planted
        self.listing = {d: sorted(os.listdir(d)) for d in self.canaries}

    def policy_limits(self, pol):
        out = subprocess.run([self.hutch, "policy", "show", pol], capture_output=True,
                             text=True, env=self.env(), timeout=30)
        if out.returncode != 0:
            raise SystemExit("hutch policy show %s: %s" % (pol, out.stderr.strip()))
        doc = json.loads(out.stdout)
        lim = doc["limits"]
        mib = 1 << 20
        fs = doc.get("filesystem", {})
        return {
            "hide": fs.get("hide", []), "read_only": fs.get("read_only", []),
            "rw_tmp": any(m["prefix"] in ("/", "/tmp") and "rw" in m["modes"]
                          for m in doc.get("mounts", [])),
            "ov_tmp": any(m["prefix"] in ("/", "/tmp") and "overlay" in m["modes"]
                          for m in doc.get("mounts", [])),
            "procs": lim["processes"]["default"],
            "mem": lim["memory_bytes"]["default"] // mib,
            "disk": max(lim["work_bytes"]["default"], lim["tmp_bytes"]["default"]) // mib,
            "writable_exec": bool(doc.get("filesystem", {}).get("writable_exec")),
        }

    def env(self):
        return dict(os.environ, XDG_RUNTIME_DIR=self.cache, HUTCH_ESCAPE_CANARY=self.secret)

    def common_args(self):
        a = {
            "secret": self.secret, "canary": self.canaries[0], "writable": self.writable,
            "hostroot": self.hostroot, "canarydev": self.canarydev, "relsecret": self.relsecret,
            "sentinel": str(self.sentinel.pid), "marker": self.marker, "addr": self.addr,
            "port": str(self.net.port), "uport": str(self.net.uport),
            "hostip": self.hostip, "hostip6": self.hostip6,
            "abstract": self.net.abstract_name, "sock": self.net.path, "ipckey": self.ipckey,
            "vport": self.vport, "ws": self.ws, "ws2": self.ws2,
        }
        for i, d in enumerate(self.canaries[1:], 2):
            a["canary%d" % i] = d
        return a

    # -- one run ----------------------------------------------------------

    def run_cmd(self):
        """`hutch run`, or through `hutch serve` (--serve, via_serve.py)."""
        if self.serve is None:
            return [self.hutch, "run"]
        return [sys.executable, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                             "via_serve.py"),
                "--hutch", self.hutch, "--serve-args", self.serve, "run"]

    def probe_argv(self, probe, limits, token, lmarker):
        a = self.common_args()
        a.update(token=token, lmarker=lmarker)
        if limits:
            a.update(ws=MASK_WS, ws2=MASK_WS2)  # in the jail; the control gets the host paths
        if limits:
            a.update({k: str(v) for k, v in limits.items()
                      if k not in ("hide", "read_only", "rw_tmp", "ov_tmp")})
        return [probe] + ["%s=%s" % (k, v) for k, v in a.items() if v]

    def outside_checks(self, probe, token, lmarker, injected, before_log):
        """What only the outside can see. Returns evidence of an escape or []."""
        bad = []
        if probe in ("host-write", "overlay-write"):
            with open(self.writable) as f:
                if f.read() != self.writable_text:
                    bad.append("the writable canary changed")
            for d, names in self.listing.items():
                now = sorted(os.listdir(d))
                if now != names:
                    bad.append("new files in %s: %s" % (d, sorted(set(now) - set(names))))
        if probe == "proc-signal" or probe == "ptrace":
            if os.path.getsize(self.sentinel_log) > before_log:
                with open(self.sentinel_log) as f:
                    f.seek(before_log)
                    bad.append("sentinel logged: " + f.read().strip().replace("\n", ", "))
        if probe in NET_PROBES:
            kinds = self.net.find(token)
            if kinds:
                bad.append("the outside listener got the token over " + ", ".join(sorted(set(kinds))))
        if probe in PTY_PROBES and injected:
            bad.append("the pty's input queue holds %r" % injected[:32])
        if probe in LINGER_PROBES:
            pids = lingering(lmarker)
            if not pids:
                time.sleep(0.3)
                pids = lingering(lmarker)
            if pids:
                bad.append("%d processes named %s outlived the run (killed)" % (len(pids), lmarker))
                kill_marker(lmarker)
        if probe == "sethostname" and socket.gethostname() != self.hostname:
            bad.append("the host's hostname changed to " + socket.gethostname())
        if probe == "mask-hook":
            bad += self.ws_changed()
        if probe in ABSENT_PROBES:
            bad += self.ws2_changed()
        if probe == "mask-read":
            try:
                with open(os.path.join(self.ws, ".env")) as f:
                    if f.read() != self.ws_files[".env"]:
                        bad.append("the host's .env changed")
            except OSError as e:
                bad.append("the host's .env: %s" % e.strerror)
        if probe in MASK_PROBES:
            self.plant_ws()
        if probe == "helper-exe":
            for p, (ino, h) in list(self.hashes.items()):
                now_ino, now_h = self.identity(p)
                if now_ino == ino and now_h != h:
                    bad.append("%s changed in place" % p)
                self.hashes[p] = (now_ino, now_h)  # a rebuild elsewhere is not ours
        return bad

    def restore(self):
        """Undo what a control run did to the canaries."""
        with open(self.writable, "w") as f:
            f.write(self.writable_text)
        for d, names in self.listing.items():
            for n in set(os.listdir(d)) - set(names):
                try:
                    os.unlink(os.path.join(d, n))
                except OSError:
                    pass

    def extra_fds(self):
        f1 = os.open(self.secret_file, os.O_RDONLY)
        f2 = os.open(self.canary, os.O_RDONLY | os.O_DIRECTORY)
        return (f1, f2)

    def jail(self, probe, config, pol, netmode, limits):
        self.runs += 1
        token = "hxtok-%s-%d" % (self.nonce, self.runs)
        lmarker = "hx%s%03d" % (self.nonce, self.runs % 1000)
        timeout = "20s"
        opts = []
        if probe == "noexec" and limits["writable_exec"]:
            # The policy executes what the jail writes (build.json): the
            # claim this probe attacks is not made there.
            self.add(probe, config, "NOTAPPLICABLE",
                     "%s sets filesystem.writable_exec: writable places execute by design" % pol,
                     0, control=False)
            return
        if probe in ("mem-bomb", "mem-bomb-multi") and limits["mem"] > BOMB_MEM_MIB:
            # A bomb reaching several GiB per process outlasts any sane
            # timeout: narrow the request (as a caller may) and judge the
            # bound that request gets.
            opts += ["--memory", "%dM" % BOMB_MEM_MIB]
            limits = dict(limits, mem=BOMB_MEM_MIB)
        if probe == "outlive-timeout":
            timeout = "2s"
        if probe in MASK_PROBES:
            why = self.mask_not_applicable(probe, pol, limits)
            if why:
                self.add(probe, config, "NOTAPPLICABLE", why, 0, control=False)
                return
            if probe == "mask-absent":
                opts += ["--overlay", "%s:%s" % (self.ws2, MASK_WS2)]
            elif probe == "mask-absent-rw":
                opts += ["--rw", "%s:%s" % (self.ws2, MASK_WS2)]
            else:
                opts += ["--rw", "%s:%s" % (self.ws, MASK_WS)]
            if probe in ("mask-read", "mask-hardlink") and not limits["hide"]:
                opts += ["--hide", MASK_WS + "/.env"]
        if probe == "collect-symlink":
            opts += ["--collect", "out", "--collect", "out-rel", "--collect", "out-proc"]
        if probe == "collect-fifo":
            opts += ["--collect", "out-fifo"]
        if probe == "overlay-write":
            # the canary directory copy-on-write at its own path
            opts += ["--overlay", "%s:%s" % (self.canary, self.canary)]
        if netmode:
            opts += ["--network", netmode]
        argv = self.run_cmd() + self.extra + ["--json", "--policy", pol, "--timeout", timeout,
                "--input", "probes=" + self.probes] + opts + \
               ["--", "/usr/bin/python3", "-c", LAUNCH] + self.probe_argv(probe, limits, token, lmarker)
        if probe == "outlive-kill":
            self.add(probe, config, *self.kill_midway(argv, lmarker, "the hutch frontend"),
                     control=False)
            return
        fds = self.extra_fds() if probe == "fd-leak" else ()
        before_log = os.path.getsize(self.sentinel_log)
        if probe == "helper-exe":
            self.hashes = {p: self.identity(p) for p in self.binaries()}
        rc, out, wall, injected = run_captured(argv, self.canary, self.env(), 40,
                                               use_pty=probe in PTY_PROBES, pass_fds=fds)
        for fd in fds:
            os.close(fd)
        verdict, ev, doc = self.read_doc(out, rc)
        err = (doc or {}).get("error") or {}
        if (probe == "overlay-write" and self.serve is not None and os.geteuid() == 0 and
                err.get("code") == "policy_violation" and
                "writable by its group or by others" in err.get("message", "")):
            # A root server refuses a client's overlay of a directory
            # others may write (the canary is): the attack is refused
            # before any jail exists; the outside checks below still judge.
            verdict, ev = "CONTAINED", "the root server refused the overlay: " + err["message"]
            doc = None
        extra = []
        if doc is not None:
            if rc is None:
                verdict, ev = "ERROR", "hutch did not return within 40 s"
            elif probe == "outlive-timeout":
                err = (doc.get("error") or {}).get("code")
                if err == "timeout" and wall < 12000:
                    verdict, ev = "CONTAINED", "killed at the 2 s timeout, hutch returned after %d ms" % wall
                else:
                    verdict, ev = "ESCAPED", "expected a timeout within 12 s: %s after %d ms" % (err or doc.get("status"), wall)
            elif probe == "collect-symlink" or probe == "collect-fifo":
                verdict, ev = self.judge_collect(probe, doc, verdict, ev, wall)
            elif probe == "overlay-write":
                verdict, ev = self.judge_overlay(doc, verdict, ev)
            elif probe in ABSENT_PROBES:
                verdict, ev = self.judge_absent(probe, doc, verdict, ev)
            elif probe == "mem-bomb-multi" and verdict in ("CONTAINED", "ESCAPED"):
                agg = 0
                for w in ev.split():
                    if w.startswith("aggregate_mib="):
                        agg = int(w.split("=")[1])
                cg = (doc.get("jail") or {}).get("cgroup", "?")
                if cg not in ("unavailable", "?", None) and agg > limits["mem"]:
                    verdict = "ESCAPED"
                    extra.append("cgroup %s yet %d MiB together > %d MiB" % (cg, agg, limits["mem"]))
                elif agg > limits["mem"]:
                    # Documented: without a delegated cgroup, memory_bytes is
                    # RLIMIT_DATA, per process. Shown, not counted as an escape.
                    extra.append("NOTE cgroup %s: memory_bytes binds each process, not the jail: "
                                 "%d MiB together > %d MiB; the jail's bound is processes x "
                                 "memory_bytes = %d GiB" % (cg, agg, limits["mem"],
                                                            limits["procs"] * limits["mem"] // 1024))
            if probe in ("fork-bomb", "mem-bomb", "mem-bomb-multi", "disk-fill") and wall > 30000:
                verdict = "ESCAPED"
                extra.append("hutch took %d ms" % wall)
            den = doc.get("denials") or []
            if den:
                names = ["%s%s%s" % (d.get("syscall", "?"),
                                     "/" + d["arch"] if d.get("arch", "x86_64") != "x86_64" else "",
                                     " x%d" % d["count"] if d.get("count", 1) > 1 else "")
                         for d in den if isinstance(d, dict)]
                extra.append("[seccomp denials: %s]" % ", ".join(names))
        bad = self.outside_checks(probe, token, lmarker, injected, before_log)
        if bad:
            verdict = "ESCAPED"
            ev = "; ".join(bad) + " | probe: " + ev
        if extra:
            ev = ev + " " + " ".join(extra)
        self.add(probe, config, verdict, ev, wall, control=False)

    @staticmethod
    def mask_not_applicable(probe, pol, limits):
        """Why a mask probe does not apply under pol, or None."""
        if not limits["rw_tmp"]:
            return "%s allows no writable request bind of /tmp: nothing to mask into" % pol
        if probe in ("mask-hook", "mask-absent", "mask-absent-rw") and not limits["read_only"]:
            return "%s protects no path (filesystem.read_only is empty)" % pol
        if probe == "mask-absent" and not limits["ov_tmp"]:
            return "%s allows no overlay of /tmp" % pol
        return None

    def kill_midway(self, argv, lmarker, what):
        """Start argv, wait until its lingerers exist, SIGKILL it (only
        it: the pid we started), then give whatever it left 5 s to go."""
        t0 = time.monotonic()
        p = subprocess.Popen(argv, cwd=self.canary, env=self.env(), stdin=subprocess.DEVNULL,
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        seen = []
        while time.monotonic() - t0 < 10 and p.poll() is None:
            seen = lingering(lmarker)
            if len(seen) >= 2:
                break
            time.sleep(0.05)
        if not seen:
            p.kill()
            p.wait()
            return "ERROR", "the lingerers never appeared (exit %s)" % p.returncode, 0
        p.kill()
        p.wait()
        t1 = time.monotonic()
        left = lingering(lmarker)
        while left and time.monotonic() - t1 < 5:
            time.sleep(0.05)
            left = lingering(lmarker)
        wall = int((time.monotonic() - t0) * 1000)
        if left:
            kill_marker(lmarker)
            return ("ESCAPED", "%d processes named %s outlived SIGKILL of %s by 5 s (killed)"
                    % (len(left), lmarker, what), wall)
        return ("CONTAINED", "%d lingerers seen; %s SIGKILLed; all gone %d ms later"
                % (len(seen), what, int((time.monotonic() - t1) * 1000)), wall)

    def read_doc(self, out, rc):
        text = out.decode("utf-8", "replace")
        start = text.find("{")
        doc = None
        if start >= 0:
            try:  # the document first; anything after it (stderr) is ignored
                doc = json.JSONDecoder().raw_decode(text[start:])[0]
            except ValueError:
                doc = None
        if doc is None:
            return "ERROR", "no result document (exit %s): %s" % (rc, text.strip()[:300]), None
        so = doc.get("stdout") or {}
        stdout = so.get("text")
        if stdout is None and so.get("base64"):
            stdout = base64.b64decode(so["base64"]).decode("utf-8", "replace")
        v, ev = verdict_of(stdout or "")
        if v is None:
            err = doc.get("error") or {}
            serr = (doc.get("stderr") or {}).get("text", "")
            v, ev = "ERROR", "no verdict line: status %s exit %s %s %s %s" % (
                doc.get("status"), doc.get("exit_code"), err.get("code", ""),
                err.get("message", ""), serr.strip()[:200])
        return v, ev, doc

    def judge_overlay(self, doc, verdict, ev):
        """The change set must hold what the probe did and no deletion
        (it deletes nothing: a forged mark would show as one). A policy
        without the overlay mode refuses the run; a kernel without
        overlayfs in a user namespace, the jail."""
        err = doc.get("error") or {}
        if verdict == "CONTAINED":
            changes = doc.get("changes") or []
            forged = [c["path"] for c in changes if c.get("change") == "deleted"]
            if forged:
                return "ESCAPED", "the change set lists deletions never made: %s" % forged
            return verdict, ev + "; change set: " + ", ".join(
                "%s %s" % (c.get("change"), os.path.basename(c.get("path", ""))) for c in changes)
        if err.get("code") == "policy_violation":
            return "NOTAPPLICABLE", "the policy offers no overlay mode (policy_violation)"
        if err.get("code") == "sandbox_unavailable" and "overlay" in err.get("message", ""):
            return "NOTAPPLICABLE", "no overlayfs in a user namespace here: " + err["message"]
        return verdict, ev

    @staticmethod
    def judge_absent(probe, doc, verdict, ev):
        """mask-absent-rw: hutch refuses a --rw bind where a protected path
        is absent. mask-absent: the change set must carry nothing of the
        attempt (it is what a caller applies to the host)."""
        err = doc.get("error") or {}
        if probe == "mask-absent-rw" and err.get("code") == "policy_violation" and \
                "read-only does not exist" in err.get("message", ""):
            return "CONTAINED", "refused: " + err["message"]
        if err.get("code") == "sandbox_unavailable" and "overlay" in err.get("message", ""):
            return "NOTAPPLICABLE", "no overlayfs in a user namespace here: " + err["message"]
        carried = [c.get("path", "") for c in doc.get("changes") or []
                   if "hooks" in c.get("path", "") or "hx-aside" in c.get("path", "")]
        if carried:
            return "ESCAPED", "the change set carries %s | probe: %s" % (carried, ev)
        return verdict, ev

    def judge_collect(self, probe, doc, verdict, ev, wall):
        if verdict != "CONTAINED":
            return verdict, ev
        files = doc.get("files") or []
        leaked, shown = [], []
        for f in files:
            data = base64.b64decode(f["base64"]) if "base64" in f else (f.get("text") or "").encode()
            if self.secret.encode() in data:
                leaked.append(f["name"])
            shown.append("%s: %s" % (f["name"], f.get("error") or "%d bytes" % len(data)))
        if leaked:
            return "ESCAPED", "collected the host canary through " + ", ".join(leaked)
        if probe == "collect-fifo" and wall > 10000:
            return "ESCAPED", "hutch took %d ms collecting a FIFO" % wall
        return "CONTAINED", "collected %s; hutch returned after %d ms" % ("; ".join(shown), wall)

    def control(self, probe):
        if probe in NO_CONTROL:
            self.add(probe, "(no jail)", "NOTAPPLICABLE", NO_CONTROL[probe], 0, control=True)
            return
        if probe.startswith("tiocsti") and kernel_refuses_tiocsti():
            self.add(probe, "(no jail)", "NOTAPPLICABLE", "the kernel refuses TIOCSTI to the "
                     "unprivileged here (dev.tty.legacy_tiocsti=0)", 0, control=True)
            return
        self.runs += 1
        token = "hxtok-%s-%d" % (self.nonce, self.runs)
        lmarker = "hx%s%03d" % (self.nonce, self.runs % 1000)
        cwd = self.canary
        if probe.startswith("collect-"):
            cwd = tempfile.mkdtemp(dir=self.scratch)
        argv = [self.probes, "--control"] + self.probe_argv(probe, None, token, lmarker)
        if probe == "outlive-kill":
            self.add(probe, "(no jail)", *self.kill_midway(argv, lmarker, "the probe"),
                     control=True)
            return
        fds = self.extra_fds() if probe == "fd-leak" else ()
        before_log = os.path.getsize(self.sentinel_log)
        timeout = 3 if probe == "outlive-timeout" else 30
        rc, out, wall, injected = run_captured(argv, cwd, self.env(), timeout,
                                               use_pty=probe in PTY_PROBES, pass_fds=fds)
        for fd in fds:
            os.close(fd)
        verdict, ev = verdict_of(out.decode("utf-8", "replace"))
        if verdict is None:
            if probe == "outlive-timeout" and rc is None:
                verdict, ev = "CONTAINED", "killed after 3 s"
            else:
                verdict, ev = "ERROR", "no verdict line (exit %s): %s" % (rc, out.decode("utf-8", "replace").strip()[:300])
        if probe == "collect-symlink":
            got = []
            for n in ("out", "out-rel", "out-proc"):
                try:
                    with open(os.path.join(cwd, n), "rb") as f:  # the naive way: follows links
                        if self.secret.encode() in f.read():
                            got.append(n)
                except OSError:
                    pass
            if got:
                verdict, ev = "ESCAPED", "a naive reader following links gets the canary via " + ", ".join(got)
        if probe == "collect-fifo":
            try:
                subprocess.run(["cat", os.path.join(cwd, "out-fifo")], timeout=2,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            except subprocess.TimeoutExpired:
                verdict, ev = "ESCAPED", "a naive reader blocks on the FIFO (killed after 2 s)"
        bad = self.outside_checks(probe, token, lmarker, injected, before_log)
        if bad:
            if verdict != "ESCAPED":
                verdict = "ESCAPED"
            ev = "; ".join(bad) + " | probe: " + ev
        self.restore()
        self.add(probe, "(no jail)", verdict, ev, wall, control=True)

    def add(self, probe, config, verdict, ev, wall, control):
        if control:
            ok = verdict in ("ESCAPED", "NOTAPPLICABLE")
        else:
            ok = verdict in ("CONTAINED", "NOTAPPLICABLE")
        self.rows.append((ok, probe, config, self.user, verdict, ev, wall))
        if self.a.verbose:
            log("%s %s | %s | %s | %s | %s" % ("ok  " if ok else "FAIL", probe, config, self.user, verdict, ev))

    # -- all --------------------------------------------------------------

    def run(self):
        names = subprocess.run([self.probes, "--list"], capture_output=True, text=True,
                               timeout=30).stdout.split()
        if self.a.only:
            want = set(self.a.only.split(","))
            names = [n for n in names if n in want]
        policies = self.a.policies.split()
        limits = {p: self.policy_limits(p) for p in policies}
        self.landlock_abi = landlock_abi()
        configs = [(p, p, None) for p in policies]
        t0 = time.monotonic()
        for probe in names:
            for config, pol, netmode in configs:
                self.jail(probe, config, pol, netmode, limits[pol])
            if "network" in policies and probe in HOST_NET_PROBES:
                if probe == "unix-abstract" and self.landlock_abi < 6:
                    # hutch(1) NOTES: abstract sockets live in the network
                    # namespace, and host mode shares the host's; only
                    # Landlock's scoping (ABI 6) keeps them out.
                    self.add(probe, "network+host", "NOTAPPLICABLE",
                             "Landlock ABI %d: before ABI 6 host network shares the host's "
                             "abstract sockets (documented)" % self.landlock_abi, 0, control=False)
                else:
                    self.jail(probe, "network+host", "network", "host", limits["network"])
            if "build" in policies and probe in PROXY_NET_PROBES:
                self.jail(probe, "build+proxy", "build", "proxy", limits["build"])
            self.control(probe)
        # nothing named like ours may be left anywhere
        leftovers = [p for p in os.listdir("/proc") if p.isdigit() and self._ours(p)]
        if leftovers:
            self.rows.append((False, "(leftovers)", "-", self.user, "ESCAPED",
                              "processes left: " + " ".join(leftovers), 0))
            kill_pids([int(p) for p in leftovers])
        self.elapsed = time.monotonic() - t0

    def _ours(self, pid):
        try:
            with open("/proc/%s/comm" % pid) as f:
                comm = f.read().strip()
            with open("/proc/%s/stat" % pid) as f:
                state = f.read().rsplit(")", 1)[1].split()[0]
        except OSError:
            return False
        return comm.startswith("hx" + self.nonce) and state != "Z"

    def report(self):
        width = self.a.width
        w_probe = max(len(r[1]) for r in self.rows)
        w_conf = max(len(r[2]) for r in self.rows)
        w_user = max(len(r[3]) for r in self.rows)
        print("     %-*s | %-*s | %-*s | %-13s | %s" % (w_probe, "probe", w_conf, "policy",
                                                   w_user, "user", "result", "evidence"))
        for ok, probe, conf, user, verdict, ev, wall in self.rows:
            if width and len(ev) > width:
                ev = ev[:width - 3] + "..."
            print("%s %-*s | %-*s | %-*s | %-13s | %s" % ("ok  " if ok else "FAIL", w_probe, probe,
                                                     w_conf, conf, w_user, user, verdict, ev))
        if self.a.log:
            with open(self.a.log, "a") as f:
                for ok, probe, conf, user, verdict, ev, wall in self.rows:
                    f.write("%s\t%s\t%s\t%s\t%s\t%d\t%s\n" % ("ok" if ok else "FAIL", probe, conf,
                                                            user, verdict, wall, ev))
        passed = sum(1 for r in self.rows if r[0])
        failed = len(self.rows) - passed
        probes = len({r[1] for r in self.rows if not r[1].startswith("(")})
        print("# %d probes as %s, %d runs, %.1f s" % (probes, self.user, self.runs, self.elapsed))
        print("%d passed, %d failed" % (passed, failed))
        return failed == 0

    def close(self):
        if self.sentinel:
            self.sentinel.terminate()
            try:
                self.sentinel.wait(5)
            except subprocess.TimeoutExpired:
                self.sentinel.kill()
        if getattr(self, "net", None):
            self.net.close()
        if getattr(self, "vsock", None):
            self.vsock.close()
        for d in self.cleanup_dirs:
            shutil.rmtree(d, ignore_errors=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hutch", required=True)
    ap.add_argument("--probes", required=True, help="the built probes binary")
    ap.add_argument("--tmp", required=True, help="a world-readable scratch directory")
    ap.add_argument("--policies", default="default strict network build convert agent")
    ap.add_argument("--only", default="", help="comma-separated probe names")
    ap.add_argument("--log", default="", help="append every row, untruncated, to this file")
    ap.add_argument("--width", type=int, default=160, help="evidence column width, 0 = full")
    ap.add_argument("--verbose", action="store_true")
    ap.add_argument("--extra", default="",
                    help="options every jailed run gets too, e.g. --explain (split on spaces)")
    ap.add_argument("--serve", default="",
                    help="run every jail through `hutch serve` with these options "
                         "(e.g. \"--pool 2\"; via_serve.py)")
    a = ap.parse_args()
    h = Harness(a)
    h.elapsed = 0.0
    try:
        h.plant()
        h.start_sentinel()
        h.start_listeners()
        h.run()
    except (Exception, SystemExit) as e:  # still end with the summary line
        log("escape.py: setup or run failed: %s" % e)
        h.rows.append((False, "(harness)", "-", h.user, "ERROR", str(e), 0))
    finally:
        h.close()
    sys.exit(0 if h.report() else 1)


if __name__ == "__main__":
    main()
