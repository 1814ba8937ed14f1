#!/bin/sh
# man-policies.sh: hutch(1) says what the shipped policies say. Each
# policy's entry under THE JAIL's "Shipped policies" is compared, line by
# line, with what `hutch policy show NAME` resolves (network modes and
# default, read-only binds, request binds, environment, limits, exec,
# seccomp, Landlock, requirements); THE JAIL's own text for the default
# policy (its /etc binds, network default, fixed environment, /tmp and
# work dir sizes, resource limits) and FILES' list of shipped policies are
# checked against the same documents. With --print (HUTCH_MAN_PRINT=1) it
# prints the entries to paste instead. The page comes from
# $HUTCH_SRCDIR/man, else ../../man next to this script; with
# HUTCH_INSTALLED=1, from man -w.
. "$(dirname "$0")/lib.sh"

tap_tmpdir man-policies

srcdir=${HUTCH_SRCDIR:-$here/../..}
page=$tmp/hutch.1
if [ -f "$srcdir/man/hutch.1" ]; then
	cp "$srcdir/man/hutch.1" "$page"
elif [ -f "$here/../../share/man/man1/hutch.1" ]; then
	cp "$here/../../share/man/man1/hutch.1" "$page" # installed: PREFIX/tests/integ
elif [ "${HUTCH_INSTALLED:-0}" = 1 ] && p=$(man -w 1 hutch 2>/dev/null) && [ -f "$p" ]; then
	case $p in
	*.gz) gzip -dc "$p" >"$page" ;;
	*) cp "$p" "$page" ;;
	esac
fi
if [ ! -s "$page" ] || [ ! -x "$py" ]; then
	skip "hutch(1) against the shipped policies" "no hutch.1 found or no $py"
	tap_done
	exit
fi

policies="default strict network build convert agent"
for pol in $policies; do
	"$HUTCH" policy show "$pol" >"$tmp/$pol.json" 2>"$tmp/err"
	check "hutch policy show $pol" test -s "$tmp/$pol.json"
done

cat >"$tmp/compare.py" <<'PYEOF'
import json, re, sys

tmp, page, printing = sys.argv[1], sys.argv[2], sys.argv[3] == "1"
names = sys.argv[4:]
pols = {n: json.load(open("%s/%s.json" % (tmp, n))) for n in names}
src = open(page).read().split("\n")
results = []


def result(ok, desc, diag=""):
    results.append(("ok" if ok else "not ok", desc, diag))


def size(b):
    for unit, n in (("TiB", 1 << 40), ("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if b >= n and b % n == 0:
            return "%d %s" % (b // n, unit)
    return "%d bytes" % b


def duration(ms):
    for unit, n in (("h", 3600000), ("min", 60000), ("s", 1000)):
        if ms >= n and ms % n == 0:
            return "%d %s" % (ms // n, unit)
    return "%d ms" % ms


def entry(name, d):
    """The roff lines of one policy's entry, generated from its document."""
    net = d["network"]
    modes = [m + (" (default)" if m == net["default"] else "") for m in net["allow"]]
    binds = [b["path"] + (" (executable)" if b["exec"] else "") for b in d["filesystem"]["binds"]]
    reqb = ["%s (%s)" % (m["prefix"], ", ".join(m["modes"])) for m in d["mounts"]] or ["none"]
    env = ["%s=%s" % kv for kv in d["env"]["set"].items()]
    lim = d["limits"]
    fs = d["filesystem"]
    ex = []
    if fs["writable_exec"]:
        ex.append("/tmp and the work dir")
    if fs["request_exec"]:
        ex.append("request binds")
    lines = [
        ".TP",
        ".B " + name,
        d["description"],
        ".br",
        "network: " + ", ".join(modes),
        ".br",
        "read-only binds: " + ", ".join(binds),
        ".br",
        "request binds: " + ", ".join(reqb),
        ".br",
    ]
    # Masks inside the request's binds, for the policies that have them.
    if fs.get("hide"):
        lines += ["hidden inside request binds: " + ", ".join(fs["hide"]), ".br"]
    if fs.get("read_only"):
        lines += ["read-only inside writable request binds: " + ", ".join(fs["read_only"]),
                  ".br"]
    lines += [
        "environment: " + ", ".join(env)
        + ("; a request may set any variable" if d["env"]["allow_any"] else ""),
        ".br",
        "limits (default, maximum): wall %s, %s; memory %s, %s; processes %d, %d; /tmp %s; work dir %s"
        % (duration(lim["wall_ms"]["default"]), duration(lim["wall_ms"]["max"]),
           size(lim["memory_bytes"]["default"]), size(lim["memory_bytes"]["max"]),
           lim["processes"]["default"], lim["processes"]["max"],
           size(lim["tmp_bytes"]["default"]), size(lim["work_bytes"]["default"])),
        ".br",
        "executable besides the binds marked so: " + (", ".join(ex) if ex else "nothing"),
        ".br",
        "seccomp %s; Landlock %s; requires %s"
        % (d["seccomp"]["mode"], d["landlock"], ", ".join(d["requires"])),
    ]
    return lines


def plain(line):
    return line.replace("\\-", "-").replace("\\(em", "--")


if printing:
    for n in names:
        print("\n".join(entry(n, pols[n])))
    sys.exit(0)

# The "Shipped policies" subsection: each entry as generated.
try:
    start = src.index(".SS Shipped policies")
except ValueError:
    start = -1
result(start >= 0, "hutch(1) has THE JAIL's \"Shipped policies\" subsection")
block = []
if start >= 0:
    for line in src[start + 1:]:
        if line.startswith(".SS") or line.startswith(".SH"):
            break
        block.append(plain(line))
for n in names:
    want = entry(n, pols[n])
    got = []
    if ".B " + n in block:
        i = block.index(".B " + n) - 1
        got = block[i:i + len(want)]
    bad = [(w, g) for w, g in zip(want, got + [""] * len(want)) if w != g]
    result(not bad, "hutch(1)'s entry for %s is what policy show %s says" % (n, n),
           "want: %s | got: %s" % bad[0] if bad else "")

# THE JAIL itself describes the default policy.
d = pols["default"]
jail = src[src.index(".SH THE JAIL"):]
jail = jail[:next(i for i, l in enumerate(jail[1:], 1) if l.startswith(".SH"))]
text = "\n".join(plain(l) for l in jail)
fsec = text[text.index(".SS Filesystem"):text.index(".SS Network")]
bullet = fsec[fsec.index("read-only binds of the policy's paths"):]
bullet = bullet[:bullet.index(".IP")]
named = re.findall(r"^\.BR? (/etc/\S+?)(?: ;| ,|$)", bullet, re.M)
bound = {b["path"] for b in d["filesystem"]["binds"]}
result(all(p in bound for p in named),
       "THE JAIL names only /etc files the default policy binds",
       "named but not bound: %s" % [p for p in named if p not in bound])
net = text[text.index(".SS Network"):]
net = net[:net.index(".SS", 4)]
m = re.search(r"^\.B (\S+)\n\(default\)", net, re.M)
result(m is not None and m.group(1) == d["network"]["default"],
       "THE JAIL's network default is the default policy's (%s)" % d["network"]["default"],
       "marked: %s" % (m.group(1) if m else None))
for mode in ("none", "loopback", "host"):
    allowed = [n for n in names if mode in pols[n]["network"]["allow"]]
    if mode == "host":
        said = re.search(r"shipped\n\.B (\S+)\npolicy\) accept", net)
        result(said is not None and [said.group(1)] == allowed,
               "THE JAIL says which shipped policy allows host (%s)" % allowed)
envsec = text[text.index(".SS Environment"):]
for k, v in d["env"]["set"].items():
    result(("%s=%s" % (k, v)) in envsec, "THE JAIL names the default's %s=%s" % (k, v))
for key, label in (("tmp_bytes", "tmp_bytes\n(%s)"), ("work_bytes", "work_bytes\n(%s)")):
    want = label % size(d["limits"][key]["default"]).replace(" ", "~")
    result(want in text.replace("\\~", "~"), "THE JAIL's %s is the default's (%s)"
           % (key, size(d["limits"][key]["default"])))
res = text[text.index(".SS Resource limits"):].replace("\\~", " ")
for key, fmt in (("memory_bytes", "(memory_bytes, %s"), ("cpu_ms", "(cpu_ms, %s"),
                 ("file_size_bytes", "(file_size_bytes, %s"), ("open_files", "(open_files, %s"),
                 ("processes", "(processes, %s")):
    v = d["limits"][key]["default"]
    shown = size(v) if key.endswith("_bytes") else duration(v) if key.endswith("_ms") else str(v)
    result(fmt % shown in res, "THE JAIL's %s is the default's (%s)" % (key, shown))
files = "\n".join(src)
files = files[files.index(".SH FILES"):]
files = files[:files.index(".SH", 4)]
for n in names:
    result((".BR %s.json" % n) in files or (".B %s.json" % n) in files,
           "FILES lists the shipped policy %s" % n)
for r in results:
    print("\t".join(r))
PYEOF

if [ "${HUTCH_MAN_PRINT:-0}" = 1 ] || [ "${1:-}" = --print ]; then
	"$py" "$tmp/compare.py" "$tmp" "$page" 1 $policies
	exit
fi
"$py" "$tmp/compare.py" "$tmp" "$page" 0 $policies >"$tmp/results" 2>"$tmp/pyerr"
check "the comparison ran" test -s "$tmp/results" -a ! -s "$tmp/pyerr"
[ -s "$tmp/pyerr" ] && diag "$(head -c 600 "$tmp/pyerr")"
tab=$(printf '\t')
while IFS="$tab" read -r verdict desc why; do
	if [ "$verdict" = ok ]; then
		ok "$desc"
	else
		not_ok "$desc"
		[ -n "$why" ] && diag "$why"
	fi
done <"$tmp/results"

tap_done
