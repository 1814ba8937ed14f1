"""steps-table.py USER DIR: bench/steps.sh's tables for one user, from
DIR/timings.jsonl ("ROUND <hutch --json result>" per line), DIR/ks.txt
("ROUND MODE STEP WALL_US CPU_US" per line, kernel-steps' medians) and
DIR/totals.json (bench-spawn's). A value is the median over the rounds of
each round's median."""
import collections
import json
import statistics
import sys

user, d = sys.argv[1], sys.argv[2]
med = statistics.median



def timings(path):
    """"ROUND <json>" lines, a result (jail.timings) or a bare record:
    per key, the median over rounds of each round's median."""
    per = collections.defaultdict(lambda: collections.defaultdict(list))
    for line in open(path):
        r, doc = line.split(" ", 1)
        doc = json.loads(doc)
        if "jail" in doc:
            doc = doc["jail"].get("timings") or {}
        for key, v in doc.items():
            per[key[:-3]][r].append(v)
    return {key: med([med(v) for v in rs.values()]) for key, rs in per.items()}


h = timings(d + "/timings.jsonl")
hx = timings(d + "/helper.jsonl")

# kernel-steps: (mode, step) -> per round (wall, cpu)
ks = collections.defaultdict(list)
for line in open(d + "/ks.txt"):
    r, mode, step, w, c = line.split()
    ks[(mode, step)].append((float(w), float(c)))
k = {key: (med(x[0] for x in v), med(x[1] for x in v)) for key, v in ks.items()}

tot = {v["name"]: v for v in json.load(open(d + "/totals.json"))["variants"]}

frontend = ["request", "policy", "plan", "probe", "spec", "spawn"]
steps = ["prepare", "clone", "id_maps", "mount_private", "binds_dir", "binds_file", "root",
         "tmpfs", "proc", "devpts", "files", "overlay", "pivot_root", "network", "landlock",
         "rlimits", "privileges", "session", "seccomp", "fork", "exec"]


def fmt(x):
    return "%8.0f" % x if x is not None else "%8s" % "-"


print()
print("steps: as %s: median us; hutch = jail.timings of `hutch run -- /bin/true`," % user)
print("  helper = the same record from hutch-exec replaying the spec, no frontend beside it;")
print("  kernel = the same system calls alone (kernel-steps -s STEP), wall and CPU;")
print("  in-seq = kernel-steps -a, every step in one minimal jail")
print("%-14s %8s %8s %8s %8s %8s %8s %8s" % ("step", "hutch", "helper", "kernel", "k-cpu",
                                            "h-k", "helper-k", "in-seq"))
sums = [0.0, 0.0, 0.0, 0.0]
for s in steps:
    hv, xv = h.get(s), hx.get(s)
    kv = k.get(("alone", s))
    sv = k.get(("seq", s))
    if hv is None and kv is None:
        continue
    print("%-14s %s %s %s %s %s %s %s" % (
        s, fmt(hv), fmt(xv), fmt(kv[0] if kv else None), fmt(kv[1] if kv else None),
        fmt(hv - kv[0] if hv is not None and kv else None),
        fmt(xv - kv[0] if xv is not None and kv else None), fmt(sv[0] if sv else None)))
    sums[0] += hv or 0
    sums[1] += xv or 0
    sums[2] += kv[0] if kv else 0
    sums[3] += kv[1] if kv else 0
seq_sum = k.get(("seq", "sum"))
print("%-14s %s %s %s %s %s %s %s" % ("sum", fmt(sums[0]), fmt(sums[1]), fmt(sums[2]),
                                       fmt(sums[3]), fmt(sums[0] - sums[2]),
                                       fmt(sums[1] - sums[2]),
                                       fmt(seq_sum[0] if seq_sum else None)))
td = k.get(("alone", "teardown"))
tds = k.get(("seq", "teardown"))
print("%-14s %s %s %s %s %s %s %s" % ("teardown", fmt(None), fmt(None),
                                       fmt(td[0] if td else None), fmt(td[1] if td else None),
                                       fmt(None), fmt(None), fmt(tds[0] if tds else None)))
print("  (exec's k-cpu is the target's whole run; teardown's, pid 1's exit: the network")
print("  namespace's cleanup runs later in a kernel worker, in nobody's time.")
print("  teardown alone = bare namespaces; in-seq = the whole jail's.)")
# What a pooled jail must still do after a request's own mounts: these
# steps together, the floor of a pooled run's setup (costs.sh, part 4,
# measures pivot_root after the spec's mounts).
print("after a request's own mounts in a pooled jail (rows above again: hutch, helper,")
print("  kernel, k-cpu; costs.sh times pivot_root after the spec's mounts instead):")
tail_sum = [0.0, 0.0, 0.0, 0.0]
for s in ["pivot_root", "landlock", "rlimits", "privileges", "seccomp", "fork"]:
    kv = k.get(("alone", s))
    vals = [h.get(s), hx.get(s), kv[0] if kv else None, kv[1] if kv else None]
    print("  %-12s %s" % (s, " ".join(fmt(v) for v in vals)))
    tail_sum = [a + (v or 0) for a, v in zip(tail_sum, vals)]
print("  %-12s %s" % ("sum", " ".join(fmt(v) for v in tail_sum)))
print("frontend steps (hutch only): " + ", ".join(
    "%s %.0f" % (s, h[s]) for s in frontend if s in h))

print("totals (bench-spawn, %s rounds): wall median / CPU median us" % (
    next(iter(tot.values())).get("n", "?")))
for name in ("floor", "hutch", "hutch-exec"):
    v = tot.get(name)
    if not v or v.get("skipped"):
        print("  %-26s skipped: %s" % (name, v.get("reason") if v else "?"))
        continue
    print("  %-26s %8.0f %8.0f" % (name, v["median"], v["cpu_median"]))
if seq_sum and tds:
    print("  %-26s %8.0f %8.0f  (in-process: no exec of its own)" % (
        "kernel-steps -a + teardown", seq_sum[0] + tds[0], seq_sum[1] + tds[1]))
fl, hu, hx_ = tot.get("floor"), tot.get("hutch"), tot.get("hutch-exec")


def ok(v):
    return v and not v.get("skipped")


if ok(fl) and ok(hu):
    print("  hutch %.2fx floor (wall), %.2fx (CPU)" % (hu["median"] / fl["median"],
                                                     hu["cpu_median"] / fl["cpu_median"]))
if ok(hu) and ok(hx_):
    print("  CPU the frontend adds (hutch - hutch-exec): %.0f us" % (
        hu["cpu_median"] - hx_["cpu_median"]))
if ok(hx_) and seq_sum and tds:
    print("  CPU hutch-exec adds to kernel-steps -a + teardown (its exec and outer"
          " process too): %.0f us" % (
              hx_["cpu_median"] - seq_sum[1] - tds[1]))

print("namespaces, clone and teardown alone (kernel-steps -s clone|teardown -c SET):")
print("%-14s %8s %8s %8s %8s" % ("set", "clone", "c-cpu", "teardown", "t-cpu"))
for key in sorted({m for (m, _) in k if m.startswith("ns:")},
                  key=lambda m: k[(m, "clone")][0]):
    c, t = k[(key, "clone")], k[(key, "teardown")]
    print("%-14s %s %s %s %s" % (key[3:], fmt(c[0]), fmt(c[1]), fmt(t[0]), fmt(t[1])))
