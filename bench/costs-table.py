"""costs-table.py USER DIR SKIPPED: bench/costs.sh's tables for one user,
from DIR/spawn.R.json (bench-spawn's, one a round), DIR/costs.txt
("ROUND GROUP ROW WALL_US CPU_US" per line, each a round's median),
DIR/mounts (the spec's mount count) and SKIPPED ("ROW: why" lines, may
be absent). A value is the median over the rounds of each round's
median."""
import collections
import glob
import json
import os
import statistics
import sys

user, d, skipped_path = sys.argv[1], sys.argv[2], sys.argv[3]
med = statistics.median

# (group, row) -> per round (wall, cpu); "-" is no value
rows = collections.defaultdict(list)
for line in open(d + "/costs.txt"):
    _, g, n, w, c = line.split()
    rows[(g, n)].append((None if w == "-" else float(w), None if c == "-" else float(c)))
for path in sorted(glob.glob(d + "/spawn.*.json")):
    for v in json.load(open(path))["variants"]:
        if not v.get("skipped"):
            rows[("spawn", v["name"])].append((v["median"], v["cpu_median"]))
        else:
            rows[("spawn-skipped", v["name"])].append((v.get("reason"), None))


def value(g, n):
    """(wall, cpu) medians over the rounds, or None"""
    v = rows.get((g, n))
    if not v:
        return None
    w = [x[0] for x in v if x[0] is not None]
    c = [x[1] for x in v if x[1] is not None]
    return (med(w) if w else None, med(c) if c else None)


def fmt(x):
    return "%8.0f" % x if x is not None else "%8s" % "-"


def line(label, v):
    print("  %-44s %s %s" % (label, fmt(v[0] if v else None), fmt(v[1] if v else None)))


skipped = {}
if os.path.exists(skipped_path):
    for s in open(skipped_path):
        name, why = s.rstrip("\n").split(": ", 1)
        skipped[name] = why
for (g, n), v in rows.items():
    if g == "spawn-skipped":
        skipped[n] = "skipped: %s" % v[0][0]
mounts = open(d + "/mounts").read().strip()
n_rounds = len(glob.glob(d + "/spawn.*.json"))

print()
print("costs: as %s: median over %d rounds of each round's median, us" % (user, n_rounds))
print("  %-44s %8s %8s" % ("", "wall", "cpu"))
print("1. process start-up alone (posix_spawn + wait4; cpu: user+sys from wait4)")
labels = [("glibc-static", "no-op main(), static glibc (gcc -static)"),
          ("musl-static", "no-op main(), static musl (musl-gcc -static)"),
          ("glibc-dynamic", "no-op main(), dynamic glibc"),
          ("hutch--version", "hutch --version"),
          ("bwrap--version", "bwrap --version"),
          ("true", "/bin/true")]
for name, label in labels:
    if name in skipped:
        print("  %-44s %s" % (label, skipped[name]))
    else:
        line(label, value("spawn", name))
cpuid = value("cpuid", "leaf4")
gs, ms = value("spawn", "glibc-static"), value("spawn", "musl-static")
if cpuid and cpuid[0]:
    print("  one CPUID (leaf 4, timed in a loop): %.2f us" % cpuid[0])
    if gs and ms:
        print("  estimate, not a count: (static glibc - static musl) / us per CPUID ="
              " %.0f CPUIDs (wall), %.0f (cpu)" % ((gs[0] - ms[0]) / cpuid[0],
                                                  (gs[1] - ms[1]) / cpuid[0]))
else:
    print("  one CPUID: not measured (no CPUID on this machine)")

print("2. floor1 split (floor.c -t: in-process, one at a time; cpu: ours and reaped)")
cl, ex, fl = value("floor", "clone"), value("floor", "exec"), value("floor", "floor1")
line("clone+maps, pid 1 exits, wait (no exec)", cl)
line("fork+exec /bin/true+wait, no namespaces", ex)
line("floor1: the whole", fl)
if cl and ex and fl:
    line("floor1 - the two (pid 1's fork, jailed exec)",
         (fl[0] - cl[0] - ex[0], fl[1] - cl[1] - ex[1]))
    print("  of floor1: the clone %.0f%%, the exec every run pays anyway %.0f%% (wall)" % (
        100 * cl[0] / fl[0], 100 * ex[0] / fl[0]))

print("3. teardown alone (pid 1's last clock read before _exit until our wait4 returns;")
print("   cpu: pid 1's exit. The network namespace's cleanup runs later in a kernel")
print("   worker, in no process's time)")
line("bare namespaces (M=0, no pivot_root)", value("teardown", "bare"))
line("an empty tmpfs root, pivot_root (M=0)", value("teardown", "empty"))
line("the spec's tree, pivot_root (M=%s)" % mounts, value("teardown", "spec"))
line("%s binds of /usr, pivot_root" % mounts, value("teardown", "usr"))
line("the whole jail after its command (-a)", value("teardown", "jail"))

print("4. what must follow a request's own mounts in a pooled jail, each alone")
tail = [("pivot_root", "pivot_root, old root detached (spec's tree)"),
        ("landlock", "Landlock, the spec's rules"),
        ("rlimits", "rlimits + user counts"),
        ("privileges", "privileges dropped"),
        ("seccomp", "seccomp, both programs, listener sent"),
        ("fork", "fork of the target")]
sw = sc = 0.0
for name, label in tail:
    v = value("tail", name)
    line(label, v)
    sw += v[0] if v else 0
    sc += v[1] if v else 0
line("sum", (sw, sc))
