# launch.py: how escape.py starts the staged probe inside the jail (run as
# `python3 -c "$(cat launch.py)" NAME KEY=VALUE...`). Nothing the jail can
# write runs as a program: request binds and /work are noexec and a memfd
# is sealed against exec. What stays is what a JIT uses, anonymous memory
# made executable, so the probe runs the way a JIT would run it: this ELF
# loader maps /work/probes (and its interpreter, if it has one) into
# anonymous memory and jumps to it with a new stack, argv, environment and
# auxiliary vector. Same process, pid, uid, filters and descriptors;
# close-on-exec ones are closed and signal dispositions reset as execve
# would. x86-64 only, like the probes.
import ctypes
import os
import signal
import struct
import sys

PAGE = 4096
RW, RWX = 3, 7
MAP_PRIVATE, MAP_ANON, MAP_FIXED_NOREPLACE = 0x02, 0x20, 0x100000
PT_LOAD, PT_INTERP, PT_PHDR = 1, 3, 6
AT_PHDR, AT_PHENT, AT_PHNUM, AT_BASE, AT_ENTRY, AT_RANDOM = 3, 4, 5, 7, 9, 25

libc = ctypes.CDLL(None, use_errno=True)
libc.mmap.restype = ctypes.c_void_p
libc.mmap.argtypes = (ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int,
                      ctypes.c_int, ctypes.c_long)


def die(msg):
    print("launch: " + msg, file=sys.stderr)
    sys.exit(70)


def anon(addr, size, prot, flags=0):
    p = libc.mmap(addr, size, prot, MAP_PRIVATE | MAP_ANON | flags, -1, 0)
    if p is None or p == 2 ** 64 - 1 or (flags & MAP_FIXED_NOREPLACE and p != addr):
        die("mmap: %s" % os.strerror(ctypes.get_errno()))
    return p


def load(img):
    """Map an ELF64 image; returns (base, entry, phdr address, phnum, interp)."""
    if img[:5] != b"\x7fELF\x02":
        die("not a 64-bit ELF")
    e_type, = struct.unpack_from("<H", img, 16)
    e_entry, e_phoff = struct.unpack_from("<QQ", img, 24)
    e_phentsize, e_phnum = struct.unpack_from("<HH", img, 54)
    phs = [struct.unpack_from("<IIQQQQQQ", img, e_phoff + i * e_phentsize) for i in range(e_phnum)]
    loads = [p for p in phs if p[0] == PT_LOAD]
    lo = min(p[3] for p in loads) & ~(PAGE - 1)
    hi = max(p[3] + p[6] for p in loads)
    size = (hi - lo + PAGE - 1) & ~(PAGE - 1)
    if e_type == 2:  # ET_EXEC: at its own addresses
        base = anon(lo, size, RWX, MAP_FIXED_NOREPLACE) - lo
    else:
        base = anon(None, size, RWX) - lo
    for p in loads:
        ctypes.memmove(base + p[3], img[p[2]:p[2] + p[5]], p[5])
    interp = [img[p[2]:p[2] + p[5]].rstrip(b"\0") for p in phs if p[0] == PT_INTERP]
    phdr = [p[3] for p in phs if p[0] == PT_PHDR]
    if not phdr:
        phdr = [p[3] - p[2] + e_phoff for p in loads if p[2] <= e_phoff < p[2] + p[5]]
    return base, base + e_entry, base + phdr[0], e_phnum, interp[0] if interp else None


def build_stack(argv, envp, aux):
    size = 8 << 20
    top = anon(None, size, RW) + size
    blob = b"".join(s + b"\0" for s in argv + envp)
    strings = (top - len(blob) - 16) & ~15
    ctypes.memmove(strings, blob, len(blob))
    rand = strings - 16
    ctypes.memmove(rand, os.urandom(16), 16)
    ptrs, at = [], strings
    for s in argv + envp:
        ptrs.append(at)
        at += len(s) + 1
    aux = [(k, rand if k == AT_RANDOM else v) for k, v in aux] + [(0, 0)]
    words = [len(argv)] + ptrs[:len(argv)] + [0] + ptrs[len(argv):] + [0]
    words += [x for kv in aux for x in kv]
    sp = (rand - 8 * len(words)) & ~15
    ctypes.memmove(sp, struct.pack("<%dQ" % len(words), *words), 8 * len(words))
    return sp


def auxv(overrides):
    with open("/proc/self/auxv", "rb") as f:
        raw = f.read()
    pairs = [struct.unpack_from("<QQ", raw, i) for i in range(0, len(raw), 16)]
    pairs = [(k, overrides.get(k, v)) for k, v in pairs if k != 0]
    have = {k for k, _ in pairs}
    return pairs + [(k, v) for k, v in overrides.items() if k not in have]


def like_execve():
    for s in (signal.SIGINT, signal.SIGPIPE, signal.SIGXFSZ):
        signal.signal(s, signal.SIG_DFL)
    for name in os.listdir("/proc/self/fd"):
        fd = int(name)
        try:
            if fd > 2 and not os.get_inheritable(fd):
                os.close(fd)
        except OSError:
            pass  # the listing's own descriptor, gone already


def probe_image():
    """/work/probes, or (via_serve.py, HUTCH_ESCAPE_WHOLE=1: no input
    file, so no mount of the run's own) standard input, which is then
    /dev/null again, as the probe has it otherwise."""
    try:
        with open("/work/probes", "rb") as f:
            return f.read()
    except FileNotFoundError:
        pass
    with os.fdopen(os.dup(0), "rb") as f:
        img = f.read()
    null = os.open("/dev/null", os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    return img


def main():
    img = probe_image()
    base, entry, phdr, phnum, interp = load(img)
    start, at_base = entry, 0
    if interp:
        with open(interp, "rb") as f:
            at_base, start, _, _, _ = load(f.read())
    aux = auxv({AT_PHDR: phdr, AT_PHENT: 56, AT_PHNUM: phnum, AT_BASE: at_base,
                AT_ENTRY: entry, AT_RANDOM: 0})
    argv = [b"probes"] + [os.fsencode(a) for a in sys.argv[1:]]
    envp = [k + b"=" + v for k, v in os.environb.items()]
    sp = build_stack(argv, envp, aux)
    # mov %rdi,%rsp; xor %edx,%edx (no atexit hook); jmp *%rsi
    code = b"\x48\x89\xfc\x31\xd2\xff\xe6"
    tramp = anon(None, PAGE, RWX)
    ctypes.memmove(tramp, code, len(code))
    like_execve()
    ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_void_p)(tramp)(sp, start)


main()
