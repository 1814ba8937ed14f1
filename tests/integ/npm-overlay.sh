#!/bin/sh
# npm-overlay.sh: npm's own jobs on an --overlay of a package's source,
# under the shipped agent policy, each compared with the same command run
# on the host on a copy of the same tree. `npm test` of tests/npm/cov (its
# test script runs node's test runner with NODE_V8_COVERAGE, then a small
# reporter, both writing into coverage/ in the tree) passes; the result's
# "changes" are exactly the files the host run wrote (the raw V8 files
# named by pid and time, compared by count, type and mode; everything else
# by digest too); the host tree is byte-identical after, mtimes included.
# Then `npm install --offline` of tests/npm/dep, packed with `npm pack`
# into a tarball beside the package: node_modules/, package-lock.json and
# the rewritten package.json are the change set, byte for byte what the
# host's install wrote. npm needs a HOME and a cache it can write: the
# agent policy's env gives HOME=/work, the jail's own tmpfs, so its cache
# is /work/.npm and never the tree; on the host, a HOME under $tmp.
# npm_config_update_notifier=false: no run asks the registry for npm's
# latest version (the jail could not reach it anyway: agent's proxy lists
# no host; the result shows no connection was even tried). Root and
# unprivileged. node and npm are Debian packages (tests/ci.sh installs
# them); a missing one is a skip naming it.
. "$(dirname "$0")/lib.sh"

tap_tmpdir npm-overlay
tap_stderr="$tmp/err"

tap_need_mechanism overlay "npm on an overlay"
for c in node npm; do
	if ! command -v $c >/dev/null 2>&1; then
		skip "npm on an overlay" "$c is not installed (tests/ci.sh installs Debian's nodejs and npm)"
		tap_done
		exit
	fi
done
fixtures=
for d in "$here/../npm" ${HUTCH_SRCDIR:+"$HUTCH_SRCDIR/tests/npm"}; do
	[ -f "$d/cov/package.json" ] && fixtures=$d && break
done
if [ -z "$fixtures" ]; then
	not_ok "tests/npm is next to the tests or under HUTCH_SRCDIR"
	tap_done
	exit
fi

# tree.py DIR: every entry below DIR as JSON, without following links:
# {path: [type, mode, digest or link text, mtime_ns]}.
# tree.py --diff BEFORE AFTER PREFIX: what changed between two listings,
# one "PREFIX/path change type mode digest" line each, sorted.
# tree.py --changes PREFIX < result: the result's changes, the same way.
# A raw V8 coverage file (coverage-PID-TIME-N.json) is named and hashed
# by process: its name becomes coverage-*.json and its digest "raw".
cat >"$tmp/tree.py" <<'EOF'
import hashlib, json, os, re, stat, sys

RAW = re.compile(r"/coverage/v8/coverage-\d+-\d+-\d+\.json$")

def listing(root):
    out = {}
    for dp, dns, fns in os.walk(root):
        for n in dns + fns:
            p = os.path.join(dp, n)
            st = os.lstat(p)
            m = st.st_mode
            if stat.S_ISREG(m):
                kind = ["file", hashlib.sha256(open(p, "rb").read()).hexdigest()]
            elif stat.S_ISDIR(m):
                kind = ["dir", "-"]
            elif stat.S_ISLNK(m):
                kind = ["symlink", os.readlink(p)]
            else:
                kind = ["other", "-"]
            out[os.path.relpath(p, root)] = [kind[0], "%04o" % stat.S_IMODE(m), kind[1],
                                             st.st_mtime_ns]
    return out

def line(path, change, kind, mode, digest):
    if RAW.search(path):
        path, digest = RAW.sub("/coverage/v8/coverage-*.json", path), "raw"
    return " ".join([path, change, kind, mode, digest])

if sys.argv[1] == "--diff":
    a, b = (json.load(open(f)) for f in sys.argv[2:4])
    rows = [line(sys.argv[4] + "/" + p, "added" if p not in a else "modified", *v[:3])
            for p, v in b.items() if p not in a or a[p][:3] != v[:3]]
    rows += [sys.argv[4] + "/" + p + " deleted" for p in a if p not in b]
elif sys.argv[1] == "--changes":
    d = json.load(sys.stdin)
    rows = [line(e["path"], e["change"], e["type"], e.get("mode", "-"),
                 e.get("sha256", e.get("link", "-")))
            if e["change"] != "deleted" else e["path"] + " deleted" for e in d["changes"]]
else:
    json.dump(listing(sys.argv[1]), sys.stdout, sort_keys=True)
    sys.exit(0)
print("\n".join(sorted(rows)))
EOF
tree() { "$py" "$tmp/tree.py" "$@"; }

# The host's npm: a HOME and cache of its own, no update check.
hostnpm() {
	HOME="$tmp/home" npm_config_cache="$tmp/home/.npm" npm_config_update_notifier=false npm "$@"
}
mkdir "$tmp/home"

# The tree the jail gets (src) and the host's copy (host): the package,
# and beside it the dependency packed into a tarball.
# Copies, writable by their owner: the fixtures may lie in a read-only
# tree (distcheck's).
mkdir "$tmp/src"
cp -R "$fixtures/cov" "$tmp/src/cov"
cp -R "$fixtures/dep" "$tmp/dep"
chmod -R u+w,a+rX "$tmp/src" "$tmp/dep"
(cd "$tmp/src" && hostnpm pack --silent "$tmp/dep" >/dev/null 2>"$tmp/err")
check "npm pack made the dependency's tarball" test -f "$tmp/src/hutch-fixture-dep-1.0.0.tgz"
chmod a+r "$tmp/src/hutch-fixture-dep-1.0.0.tgz"
cp -Rp "$tmp/src" "$tmp/host"
tree "$tmp/src" >"$tmp/before"

# ---- npm test with coverage ----

"$HUTCH" run --json --policy agent --overlay "$tmp/src:/src" --cwd /src/cov \
	--env npm_config_update_notifier=false -- npm test >"$tmp/doc" 2>"$tmp/err"
(cd "$tmp/host/cov" && hostnpm test) >"$tmp/host-out" 2>&1
host_rc=$?
tree "$tmp/host" >"$tmp/host-after"
same "npm test on the overlay passes, as on the host" "exited 0 0" \
	"$(json_get 'd["status"] + " " + str(d["exit_code"])' <"$tmp/doc") $host_rc"
same "... all three tests ran and the report covers 3 of index.js's 4 functions" "yes yes" \
	"$(json_get '" ".join("yes" if w in d["stdout"]["text"] else "no" for w in ("# pass 3", "index.js: 3/4 functions"))' <"$tmp/doc")"
want=$(tree --diff "$tmp/before" "$tmp/host-after" /src)
check "... the host run wrote coverage/ and nothing else: $(echo "$want" | wc -l) entries" \
	test -n "$want" -a -z "$(echo "$want" | grep -v '^/src/cov/coverage')"
check "... in it, raw V8 files ($(echo "$want" | grep -c 'coverage-\*') of them) and the summary" \
	test "$(echo "$want" | grep -c '^/src/cov/coverage/v8/coverage-\*\.json added file')" -ge 1 -a \
	"$(echo "$want" | grep -c '^/src/cov/coverage/summary.json added file')" = 1
same "... changes are exactly what the host run wrote (summary by digest; raw files by count, type, mode)" \
	"$want" "$(tree --changes /src <"$tmp/doc")"
same "... nothing was left out of changes" "0" "$(json_get 'd["changes_omitted"]' <"$tmp/doc")"
same "... and npm tried no connection" "[]" "$(json_get 'd["network"]["connections"]' <"$tmp/doc")"
same "the host tree is byte-identical after, mtimes included" \
	"$(cat "$tmp/before")" "$(tree "$tmp/src")"

# ---- npm install of a packed tarball, offline ----

rm -rf "$tmp/host"
cp -Rp "$tmp/src" "$tmp/host"
"$HUTCH" run --json --policy agent --overlay "$tmp/src:/src" --cwd /src/cov \
	--env npm_config_update_notifier=false -- /bin/sh -c \
	'npm install --offline --no-audit --no-fund ../hutch-fixture-dep-1.0.0.tgz &&
	 node -p "require(\"hutch-fixture-dep\").greet(\"jail\")"' >"$tmp/doc" 2>"$tmp/err"
(cd "$tmp/host/cov" && hostnpm install --offline --no-audit --no-fund ../hutch-fixture-dep-1.0.0.tgz) \
	>"$tmp/host-out" 2>&1
host_rc=$?
tree "$tmp/host" >"$tmp/host-after"
same "npm install --offline of the tarball on the overlay works, as on the host" \
	"exited 0 hello, jail 0" \
	"$(json_get 'd["status"] + " " + str(d["exit_code"]) + " " + d["stdout"]["text"].splitlines()[-1]' <"$tmp/doc") $host_rc"
want=$(tree --diff "$tmp/before" "$tmp/host-after" /src)
check "... the host install wrote node_modules/, package-lock.json and package.json" \
	test "$(echo "$want" | grep -c -E '^/src/cov/(node_modules/hutch-fixture-dep/index.js|package-lock.json) added file|^/src/cov/package.json modified file')" = 3
same "... changes are byte for byte what the host install wrote" \
	"$want" "$(tree --changes /src <"$tmp/doc")"
same "... and npm tried no connection" "[]" "$(json_get 'd["network"]["connections"]' <"$tmp/doc")"
same "the host tree is byte-identical after the install too" \
	"$(cat "$tmp/before")" "$(tree "$tmp/src")"

tap_done
