"""replay-timings.py SPEC HELPER RUNS: bench/steps.sh's "helper" column.
Runs hutch-exec RUNS times on a captured spec with no frontend (fd 3 the
spec, fd 4 /dev/null for the status pipe, fd 6 a SOCK_SEQPACKET control
socket, as the frontend passes them), reads the timings record pid 1 sends
on fd 6 (shared/timings-record.h: magic, n_steps, start_ns, 32 x u64 ns)
and prints one JSON object per run, keys as in the result's jail.timings.
Descriptors pid 1 sends (the seccomp listener) are held until the helper
has exited, as the frontend holds them, then closed."""
import json
import os
import socket
import struct
import subprocess
import sys

STEPS = ("prepare clone id_maps mount_private binds_dir binds_file root tmpfs proc devpts "
         "files overlay pivot_root network landlock rlimits privileges session seccomp fork "
         "exec").split()
MAGIC = 0x484D5431


def one(spec, helper):
    mine, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    # fds 3, 4, 6 in the child; move ours clear of them first
    mine = socket.socket(fileno=os.dup2(mine.detach(), 20, inheritable=False))
    t = os.dup2(theirs.detach(), 21, inheritable=False)
    os.dup2(os.open(spec, os.O_RDONLY | os.O_CLOEXEC), 3)
    os.dup2(os.open(os.devnull, os.O_WRONLY | os.O_CLOEXEC), 4)
    os.dup2(t, 6)
    os.close(t)
    p = subprocess.Popen([helper], pass_fds=(3, 4, 6), stdin=subprocess.DEVNULL,
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for fd in (3, 4, 6):
        os.close(fd)
    held, rec = [], None
    while True:
        msg, anc, _, _ = mine.recvmsg(4096, socket.CMSG_SPACE(4 * 16))
        if not msg and not anc:
            break
        for _, _, data in anc:
            held.extend(struct.unpack("%di" % (len(data) // 4), data[:len(data) // 4 * 4]))
        if len(msg) == 272 and struct.unpack_from("<I", msg)[0] == MAGIC:
            rec = msg
    status = p.wait()
    for fd in held:
        os.close(fd)
    mine.close()
    if status != 0 or rec is None:
        sys.exit("replay-timings: hutch-exec exited %d%s" % (
            status, "" if rec else ", no timings record"))
    ns = struct.unpack_from("<32Q", rec, 16)
    return {s + "_us": round(v / 1000) for s, v in zip(STEPS, ns)}


def main():
    spec, helper, runs = sys.argv[1], sys.argv[2], int(sys.argv[3])
    for _ in range(runs):
        print(json.dumps(one(spec, helper)))


main()
