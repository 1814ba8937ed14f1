#!/bin/sh
# run-overlay.sh: --overlay HOST:JAIL, a copy-on-write bind. The jail sees
# HOST's tree and changes it at will; the host tree stays byte-identical
# (checked with a listing of every entry's type, mode, digest and mtime);
# the result's "changes" lists exactly what changed, with digests;
# --changes-dir writes the files and a manifest that, applied to a copy,
# reproduces the jail's tree; serve's export_changes returns the files as
# base64. Attacks on the reading after the run: links out of the tree, a
# FIFO, a file past the size bound, more inodes than the bound, a hard
# link, names with a newline or not UTF-8, a mode-0 file, a symbolic link
# planted in --changes-dir, a sparse file and its hard links (the reading
# stops at twice overlay_bytes), forged overlayfs marks; as root, another
# user's files in the lower. Real jobs: make in-tree, git commit, node's
# test runner writing coverage into the package. Runs as root and as an
# unprivileged user.
. "$(dirname "$0")/lib.sh"

tap_tmpdir overlay
tap_stderr="$tmp/err"

tap_need_mechanism overlay "overlayfs in a user namespace"
# Before Linux 6.6 a tmpfs holds no user xattrs: overlayfs then cannot
# mark a directory the jail removed and made again (hutch probe says so).
replace_dir=yes
case $probe_row in *"lacks user xattrs"*)
	replace_dir=
	skip_feature "a directory removed and made again on an overlay" "tmpfs without user xattrs"
	;;
esac

# list.py DIR: every entry below DIR, sorted, without following links:
# path, type, mode, then the digest of a file or the text of a link; with
# --mtime the mtime too (the host tree must not even be touched).
cat >"$tmp/list.py" <<'EOF'
import hashlib, os, stat, sys
root = sys.argv[1]
out = []
for dp, dns, fns in os.walk(root):
    for n in dns + fns:
        p = os.path.join(dp, n)
        st = os.lstat(p)
        m = st.st_mode
        rel = os.path.relpath(p, root)
        if stat.S_ISREG(m):
            kind = "file " + hashlib.sha256(open(p, "rb").read()).hexdigest()
        elif stat.S_ISDIR(m):
            kind = "dir"
        elif stat.S_ISLNK(m):
            kind = "link " + os.readlink(p)
        else:
            kind = "other %o" % stat.S_IFMT(m)
        extra = " %d" % st.st_mtime_ns if "--mtime" in sys.argv else ""
        out.append("%r %s %04o%s" % (rel, kind, stat.S_IMODE(m), extra))
print("\n".join(sorted(out)))
EOF
list() { "$py" "$tmp/list.py" "$@"; }

# ---- the tree every kind of change is made to ----

src="$tmp/src"
mkdir -p "$src/sub/deep" "$src/d2f" "$src/gone/inner" "$src/redo"
printf 'keep\n' >"$src/keep.txt"
printf 'old\n' >"$src/mod.txt"
printf 'doomed\n' >"$src/del.txt"
printf '#!/bin/sh\n' >"$src/run.sh"
printf 'file\n' >"$src/f2d"
printf 'x\n' >"$src/d2f/x"
printf 'y\n' >"$src/gone/y"
printf 'z\n' >"$src/gone/inner/z"
printf 'a\n' >"$src/redo/a"
printf 'b\n' >"$src/redo/b"
printf 'deep\n' >"$src/sub/deep/file"
printf 'touch\n' >"$src/touched.txt"
printf 'open\n' >"$src/opened.txt"
ln -s keep.txt "$src/link"
chmod -R a+rX "$src"
before=$(list "$src" --mtime)

job='set -e; cd /src
echo new >> mod.txt
rm del.txt
chmod 755 run.sh
rm f2d; mkdir f2d; echo in > f2d/inner
rm -r d2f; echo now-a-file > d2f
rm -r gone
[ -z "$REPLACE" ] || { rm -r redo; mkdir redo; echo c > redo/c; }
echo added > sub/new.txt
rm link; ln -s mod.txt link
touch touched.txt
: >> opened.txt
ln keep.txt hardlink.txt
python3 /work/list.py /src'
mkdir "$tmp/cd"
"$HUTCH" run --json --input list.py="$tmp/list.py" --env REPLACE="$replace_dir" --overlay "$src:/src" \
	--changes-dir "$tmp/cd" -- /bin/sh -c "$job" >"$tmp/doc" 2>"$tmp/err"
same "the job ran on the overlay" "exited 0" \
	"$(json_get 'd["status"] + " " + str(d["exit_code"])' <"$tmp/doc")"
same "the host tree is byte-identical, mtimes included" "$before" "$(list "$src" --mtime)"

sha() { printf "$1" | sha256sum | cut -d' ' -f1; }
want="/src/d2f type_changed file 0644 $(sha 'now-a-file\n')
/src/del.txt deleted file
/src/f2d type_changed dir 0755 -
/src/f2d/inner added file 0644 $(sha 'in\n')
/src/gone deleted dir
/src/hardlink.txt added file 0644 $(sha 'keep\n')
/src/link modified symlink 0777 mod.txt
/src/mod.txt modified file 0644 $(sha 'old\nnew\n')
$([ -z "$replace_dir" ] || printf '%s\n' "/src/redo/a deleted file" "/src/redo/b deleted file" "/src/redo/c added file 0644 $(sha 'c\n')")
/src/run.sh modified file 0755 $(sha '#!/bin/sh\n')
/src/sub/new.txt added file 0644 $(sha 'added\n')"
want=$(printf '%s\n' "$want" | grep -v '^$')
entries='"\n".join(" ".join([e["path"], e["change"], e["type"]] + ([e["mode"], e.get("sha256", e.get("link", "-"))] if e["change"] != "deleted" else [])) for e in d["changes"])'
same "changes lists exactly what changed (no entry for touched, opened or hard-linked-from files)" \
	"$want" "$(json_get "$entries" <"$tmp/doc")"
same "... and nothing was left out" "0" "$(json_get 'd["changes_omitted"]' <"$tmp/doc")"
check "... no file content in the result without export_changes" \
	not grep -q '"base64"' "$tmp/doc"

# --changes-dir: the manifest and the files, applied to a copy of the
# host tree, give the tree the jail saw.
check "--changes-dir wrote changes.json and files/" test -f "$tmp/cd/changes.json" -a -d "$tmp/cd/files/src"
same "... the manifest lists what the result does" "$want" "$(json_get "$entries" <"$tmp/cd/changes.json")"
cat >"$tmp/apply.py" <<'EOF'
import json, os, shutil, sys
cd, dest, target = sys.argv[1:4]
man = json.load(open(os.path.join(cd, "changes.json")))
def here(p):
    return os.path.join(dest, os.path.relpath(p, target))
def remove(p):
    if os.path.isdir(p) and not os.path.islink(p):
        shutil.rmtree(p)
    elif os.path.lexists(p):
        os.unlink(p)
for e in man["changes"]:
    p = here(e["path"])
    if e["change"] in ("deleted", "type_changed"):
        remove(p)
    if e["change"] == "deleted":
        continue
    if e["type"] == "dir":
        os.makedirs(p, exist_ok=True)
    elif e["type"] == "symlink":
        remove(p)
        os.symlink(e["link"], p)
        continue
    else:
        remove(p)
        shutil.copyfile(os.path.join(cd, e["file"]), p)
    os.chmod(p, int(e["mode"], 8))
EOF
cp -a "$src" "$tmp/copy"
"$py" "$tmp/apply.py" "$tmp/cd" "$tmp/copy" /src 2>"$tmp/err"
same "... applied to a copy, it reproduces the jail's tree" \
	"$(json_get 'd["stdout"]["text"].rstrip("\n")' <"$tmp/doc")" "$(list "$tmp/copy")"
same "... files written belong to the caller" "$(id -u)" "$(stat -c %u "$tmp/cd/files/src/mod.txt")"

# ---- policy: overlay is a mode a rule names ----

rc=0
"$HUTCH" run --policy strict --overlay "$src:/src" -- /bin/true 2>"$tmp/err" || rc=$?
same "strict offers no overlay: policy_violation naming the option" "125 yes" \
	"$rc $(grep -q -- '--overlay' "$tmp/err" && echo yes)"
rc=0
"$HUTCH" run --overlay "$src/keep.txt:/k" -- /bin/true 2>"$tmp/err" || rc=$?
same "an overlay of a file is refused, naming what is accepted" "125 yes" \
	"$rc $(grep -q 'must be a directory' "$tmp/err" && echo yes)"
: >"$tmp/err"
rc=0
"$HUTCH" run --changes-dir "$tmp/cd" -- /bin/true 2>"$tmp/err" || rc=$?
same "--changes-dir without an overlay is a usage error" "125 yes" \
	"$rc $(grep -q -- '--changes-dir' "$tmp/err" && echo yes)"
: >"$tmp/err"

# ---- attacks on the reading of the upper layer ----

cat >"$tmp/small.json" <<EOF
{"extends": "default", "description": "run-overlay.sh: 1 MiB and 64 inodes per overlay",
 "limits": {"overlay_bytes": {"default": 1048576, "max": 1048576},
            "overlay_inodes": {"default": 64, "max": 64}}}
EOF
mkdir "$tmp/small"
printf 'data\n' >"$tmp/small/f"
chmod -R a+rX "$tmp/small"
small_before=$(list "$tmp/small" --mtime)
"$HUTCH" run --json --policy "$tmp/small.json" --overlay "$tmp/small:/s" -- /bin/sh -c '
	head -c 4194304 /dev/zero > /s/big; echo "big $?"' >"$tmp/doc" 2>"$tmp/err"
same "a file past overlay_bytes: the write fails in the jail" "big 1" \
	"$(json_get 'd["stdout"]["text"].strip()' <"$tmp/doc")"
same "... and its entry is what the 1 MiB layer held" "added True" \
	"$(json_get '[e["change"] + " " + str(e["size"] <= 1048576) for e in d["changes"] if e["path"] == "/s/big"][0]' <"$tmp/doc")"
"$HUTCH" run --json --policy "$tmp/small.json" --overlay "$tmp/small:/s" -- /bin/sh -c '
	i=0; while [ $i -lt 200 ] && touch /s/n$i 2>/dev/null; do i=$((i+1)); done; echo $i' \
	>"$tmp/doc" 2>"$tmp/err"
n=$(json_get 'd["stdout"]["text"].strip()' <"$tmp/doc")
same "more files than overlay_inodes: creation stops below the bound" "yes" \
	"$([ "$n" -gt 10 ] && [ "$n" -lt 64 ] && echo yes)"
same "... and changes lists each one made" "$n" \
	"$(json_get 'len([e for e in d["changes"] if e["path"].startswith("/s/n")])' <"$tmp/doc")"
same "the small tree is untouched" "$small_before" "$(list "$tmp/small" --mtime)"

mkdir "$tmp/cd2" "$tmp/victim"
ln -s "$tmp/victim" "$tmp/cd2/files"
t0=$(now_ms)
rc=0
"$HUTCH" run --json --timeout 20s --overlay "$tmp/small:/s" --changes-dir "$tmp/cd2" -- /bin/sh -c '
	ln -s /etc/passwd /s/out; ln -s ../../../../../../.. /s/up; mkfifo /s/fifo
	printf secret > /s/zero; chmod 000 /s/zero
	printf nl > "/s/new
line"; printf bad > "$(printf "/s/\377")"
	ln /s/f /s/f2' >"$tmp/doc" 2>"$tmp/err2" || rc=$?
same "a FIFO in the upper layer does not block the reading" "yes" \
	"$([ $(($(now_ms) - t0)) -lt 15000 ] && echo yes)"
same "links out of the tree are reported by their text, never followed" \
	"symlink /etc/passwd symlink ../../../../../../.." \
	"$(json_get '" ".join(e["type"] + " " + e["link"] for e in d["changes"] if e["path"] in ("/s/out", "/s/up"))' <"$tmp/doc")"
same "the FIFO is an entry of its own" "fifo" \
	"$(json_get '[e["type"] for e in d["changes"] if e["path"] == "/s/fifo"][0]' <"$tmp/doc")"
same "a file the jail made mode 0 is read for its digest" "0000 $(sha secret)" \
	"$(json_get '[e["mode"] + " " + e["sha256"] for e in d["changes"] if e["path"] == "/s/zero"][0]' <"$tmp/doc")"
same "a name with a newline comes back exactly, JSON-escaped" "$(sha nl)" \
	"$(json_get '[e["sha256"] for e in d["changes"] if e["path"] == "/s/new\nline"][0]' <"$tmp/doc")"
same "a name that is not UTF-8 comes back as path_base64" "$(printf '/s/\377' | base64)" \
	"$(json_get '[e["path_base64"] for e in d["changes"] if "path_base64" in e][0]' <"$tmp/doc")"
same "a hard link is a file with the linked file's digest" "$(sha 'data\n')" \
	"$(json_get '[e["sha256"] for e in d["changes"] if e["path"] == "/s/f2"][0]' <"$tmp/doc")"
same "--changes-dir never writes through a planted symbolic link" "" "$(ls -A "$tmp/victim")"
same "... which is said, and fails the run (125)" "125 yes" \
	"$rc $(grep -q 'not written' "$tmp/err2" && echo yes)"
check "... the manifest is still there, with the links' text" \
	sh -c "'$py' -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(not any(e.get(\"link\") == \"/etc/passwd\" for e in d[\"changes\"]))' '$tmp/cd2/changes.json'"
rm "$tmp/cd2/files"
"$HUTCH" run --overlay "$tmp/small:/s" --changes-dir "$tmp/cd2" -- /bin/sh -c '
	printf nl > "/s/new
line"; echo ok > /s/fine' >/dev/null 2>"$tmp/err2"
same "a name with a newline is not written to --changes-dir, the rest is" "ok yes" \
	"$(cat "$tmp/cd2/files/s/fine") $(grep -q 'not written' "$tmp/err2" && echo yes)"
same "the small tree is still untouched" "$small_before" "$(list "$tmp/small" --mtime)"

# A sparse file costs the 1 MiB layer nothing but has the size the jail
# chose (up to file_size_bytes), and each hard link is an entry of its
# own: read whole, 40 links of a 1000 MB hole are 40 GB to hash after the
# run, past --timeout (and, in serve, on the loop every client shares).
# The reading stops at twice overlay_bytes: the rest says too_large.
t0=$(now_ms)
"$HUTCH" run --json --timeout 20s --policy "$tmp/small.json" --overlay "$tmp/small:/s" -- /bin/sh -c '
	truncate -s 1000M /s/hole; printf small > /s/after
	i=0; while [ $i -lt 40 ]; do ln /s/hole /s/h$i; i=$((i+1)); done' \
	>"$tmp/doc" 2>"$tmp/err2"
same "a sparse file and its hard links do not hold the reading past the run" "yes" \
	"$([ $(($(now_ms) - t0)) -lt 15000 ] && echo yes)"
same "... each is listed, too_large, its size said and no digest" "41 41 0" \
	"$(json_get '" ".join(str(len([e for e in d["changes"] if p(e)])) for p in (lambda e: e["path"].startswith("/s/h"), lambda e: e.get("error") == "too_large" and e["size"] == 1048576000, lambda e: "sha256" in e and e["path"].startswith("/s/h")))' <"$tmp/doc")"
same "... and a small file beside them still has its digest" "$(sha small)" \
	"$(json_get '[e["sha256"] for e in d["changes"] if e["path"] == "/s/after"][0]' <"$tmp/doc")"

# export_changes reads every changed file's bytes: links the jail plants
# toward a host file the frontend could read (but the jail cannot) must
# come back as their text, never as that file's contents.
printf 'hx-secret-%s\n' "$$" >"$tmp/secret"
chmod 600 "$tmp/secret"
cat >"$tmp/req.json" <<EOF
{"version": 1, "export_changes": true,
 "argv": ["/bin/sh", "-c", "ln -s $tmp/secret /s/abs; ln -s ../../../../../../..$tmp/secret /s/rel; mkdir /s/d; ln -s $tmp /s/d/dir"],
 "mounts": [{"source": "$tmp/small", "target": "/s", "mode": "overlay"}]}
EOF
"$HUTCH" run --request "$tmp/req.json" >"$tmp/doc" 2>"$tmp/err"
same "export_changes: planted links come back as links" "symlink symlink symlink" \
	"$(json_get '" ".join(e["type"] for e in d["changes"] if e["path"] in ("/s/abs", "/s/rel", "/s/d/dir"))' <"$tmp/doc")"
check "... and the host file they name is nowhere in the result" \
	not grep -q -e "hx-secret-$$" -e "$(base64 <"$tmp/secret" | tr -d '\n' | cut -c1-16)" "$tmp/doc"

# ---- serve: export_changes returns the files ----

client=$(tap_client_dir)
if [ -n "$client" ]; then
	out=$(CLIENT_DIR="$client" "$py" - "$HUTCH" "$tmp/small" <<'EOF' 2>"$tmp/err"
import base64, os, sys
sys.path.insert(0, os.environ["CLIENT_DIR"])
from hutch_client import HutchClient
# An overlay names its source by path: the server must allow path binds.
with HutchClient.spawn([sys.argv[1], "serve", "--allow-path-binds"]) as c:
    doc = c.run({"version": 1, "argv": ["/bin/sh", "-c", "echo served > /s/f"],
                 "mounts": [{"source": sys.argv[2], "target": "/s", "mode": "overlay"}],
                 "export_changes": True})
e = [e for e in doc["changes"] if e["path"] == "/s/f"][0]
print(e["change"], base64.b64decode(e["base64"]).decode().strip())
EOF
)
	same "hutch serve: export_changes returns changed files as base64" "modified served" "$out"
else
	skip "hutch serve: export_changes" "hutch_client.py not found"
fi

# Deep nesting: the reading (recursive, descriptors held) stops at 64
# levels and near 4096 bytes of path, each place saying too_deep.
"$HUTCH" run --json --overlay "$tmp/small:/s" -- /bin/sh -c '
	cd /s && i=0
	while [ $i -lt 100 ]; do mkdir d && cd d || exit 1; i=$((i + 1)); done
	n=$(printf "%0200d" 0); cd /s && mkdir -p "$n/$n/$n/$n/$n/$n/$n/$n/$n/$n/$n/$n/$n/$n/$n/$n/$n/$n/$n/$n"' \
	>"$tmp/doc" 2>"$tmp/err"
same "100 levels and a 4 KB path: each stops with too_deep, nothing deeper is read" "2 66 True" \
	"$(json_get '" ".join(str(x) for x in (len([e for e in d["changes"] if e.get("error") == "too_deep"]), max(e["path"].count("/") for e in d["changes"]), max(len(e["path"]) for e in d["changes"]) < 4096))' <"$tmp/doc")"

# The jail cannot forge overlayfs's own marks to make the change set lie:
# user.overlay.* set through the overlay is refused (before Linux 6.7) or
# stored escaped (user.overlay.overlay.*), never read as opaque or
# whiteout, and a 0/0 device (a whiteout) cannot be made.
mkdir -p "$tmp/marks/dir"
printf 'in\n' >"$tmp/marks/dir/in"
printf 'keep\n' >"$tmp/marks/keep"
chmod -R a+rX "$tmp/marks"
"$HUTCH" run --json --overlay "$tmp/marks:/s" -- python3 -c '
import os
for path, name in (("/s/dir", "opaque"), ("/s/keep", "whiteout"), ("/s/dir", "redirect")):
    try:
        os.setxattr(path, "user.overlay." + name, b"y")
    except OSError:
        pass
try:
    os.mknod("/s/fake", 0o20644, os.makedev(0, 0))
except OSError:
    pass
print(sorted(os.listdir("/s")), os.listdir("/s/dir"))' >"$tmp/doc" 2>"$tmp/err"
same "forged overlay marks: the jail still sees the tree" "['dir', 'keep'] ['in']" \
	"$(json_get 'd["stdout"]["text"].strip()' <"$tmp/doc")"
same "... and the change set says nothing was deleted or hidden" "" \
	"$(json_get '" ".join(e["path"] + ":" + e["change"] for e in d["changes"] if e["change"] != "modified" or e["type"] != "dir")' <"$tmp/doc")"

# A root caller's lower is idmapped (its own files become the jail's):
# another user's files stay another's, even world-writable or in a
# sticky world-writable directory, and the host tree is untouched.
if is_root; then
	mkdir -p "$tmp/others/d"
	printf 'u\n' >"$tmp/others/userf"
	printf 'v\n' >"$tmp/others/d/victim"
	printf 'r\n' >"$tmp/others/rootf"
	chown 1000:1000 "$tmp/others/userf" "$tmp/others/d" "$tmp/others/d/victim"
	chmod 666 "$tmp/others/userf"
	chmod 1777 "$tmp/others/d"
	chmod 644 "$tmp/others/d/victim" "$tmp/others/rootf"
	chmod 755 "$tmp/others"
	others_before=$(list "$tmp/others" --mtime)
	"$HUTCH" run --json --overlay "$tmp/others:/s" -- /bin/sh -c '
		r=""; echo x >> /s/userf 2>/dev/null; r="$r $?"; rm -f /s/d/victim 2>/dev/null
		r="$r $?"; chmod 600 /s/userf 2>/dev/null; r="$r $?"
		echo x >> /s/rootf; echo "$r $?"' >"$tmp/doc" 2>"$tmp/err"
	same "as root: another user's files cannot be written, removed or chmod'd; root's can" \
		" 2 1 1 0" "$(json_get 'd["stdout"]["text"].rstrip("\n")' <"$tmp/doc")"
	same "... the change set has root's file alone" "/s/rootf" \
		"$(json_get '" ".join(e["path"] for e in d["changes"])' <"$tmp/doc")"
	same "... and the host tree is untouched" "$others_before" "$(list "$tmp/others" --mtime)"
else
	skip "another user's files in a root caller's overlay" "needs root to make them"
fi

# ---- real jobs ----

mkdir "$tmp/cproj"
printf '#include <stdio.h>\nint main(void) { puts("hi"); return 0; }\n' >"$tmp/cproj/hello.c"
printf 'hello: hello.o\n\t$(CC) -o $@ hello.o\nhello.o: hello.c\n\t$(CC) -c -o $@ hello.c\n' \
	>"$tmp/cproj/Makefile"
chmod -R a+rX "$tmp/cproj"
cbefore=$(list "$tmp/cproj" --mtime)
"$HUTCH" run --json --policy build --overlay "$tmp/cproj:/p" --cwd /p -- /bin/sh -c \
	'make -s && ./hello' >"$tmp/doc" 2>"$tmp/err"
same "make in-tree on an overlay builds and runs" "hi" "$(json_get 'd["stdout"]["text"].strip()' <"$tmp/doc")"
same "... changes are the object and the program" "/p/hello added file /p/hello.o added file" \
	"$(json_get '" ".join(e["path"] + " " + e["change"] + " " + e["type"] for e in d["changes"])' <"$tmp/doc")"
same "... the host project is untouched" "$cbefore" "$(list "$tmp/cproj" --mtime)"

if command -v git >/dev/null 2>&1; then
	mkdir "$tmp/repo"
	(cd "$tmp/repo" && git init -q -b main . && printf 'one\n' >f &&
		git add f && git -c user.name=t -c user.email=t@t commit -qm one) >/dev/null 2>&1
	chmod -R a+rX "$tmp/repo"
	rbefore=$(list "$tmp/repo" --mtime)
	head0=$(git -C "$tmp/repo" rev-parse HEAD 2>/dev/null)
	"$HUTCH" run --json --overlay "$tmp/repo:/r" --cwd /r --env HOME=/tmp -- /bin/sh -c \
		'git config --global --add safe.directory /r && echo two >> f &&
		 git -c user.name=j -c user.email=j@j commit -qam two && git rev-parse HEAD' \
		>"$tmp/doc" 2>"$tmp/err"
	head1=$(json_get 'd["stdout"]["text"].strip()' <"$tmp/doc")
	obj="/r/.git/objects/$(echo "$head1" | cut -c1-2)/$(echo "$head1" | cut -c3-)"
	same "git commit in an overlay: the change set names the new commit object" "added" \
		"$(json_get "[e['change'] for e in d['changes'] if e['path'] == '$obj'][0]" <"$tmp/doc")"
	same "... and the moved branch" "modified" \
		"$(json_get '[e["change"] for e in d["changes"] if e["path"] == "/r/.git/refs/heads/main"][0]' <"$tmp/doc")"
	same "... the host repository is unchanged" "$head0 yes" \
		"$(git -C "$tmp/repo" rev-parse HEAD 2>/dev/null) $([ "$rbefore" = "$(list "$tmp/repo" --mtime)" ] && echo yes)"
else
	skip "git commit in an overlay" "no git"
fi

if command -v node >/dev/null 2>&1; then
	mkdir -p "$tmp/pkg/test"
	printf '{"name":"tiny","version":"1.0.0","scripts":{"test":"node --test"}}\n' >"$tmp/pkg/package.json"
	printf 'exports.add = (a, b) => a + b;\n' >"$tmp/pkg/index.js"
	printf "const t = require('node:test'); const assert = require('node:assert');\n\
t('adds', () => assert.strictEqual(require('../index.js').add(2, 3), 5));\n" >"$tmp/pkg/test/add.test.js"
	chmod -R a+rX "$tmp/pkg"
	pbefore=$(list "$tmp/pkg" --mtime)
	"$HUTCH" run --json --memory 8G --overlay "$tmp/pkg:/pkg" --cwd /pkg \
		--env NODE_V8_COVERAGE=/pkg/coverage -- node --test test/ >"$tmp/doc" 2>"$tmp/err"
	same "node's test runner on an overlay of a package passes" "exited 0" \
		"$(json_get 'd["status"] + " " + str(d["exit_code"])' <"$tmp/doc")"
	same "... changes are the coverage it wrote into the tree, and only that" "yes" \
		"$(json_get '"yes" if d["changes"] and d["changes"][0]["path"] == "/pkg/coverage" and all(e["path"].startswith("/pkg/coverage") and e["change"] == "added" for e in d["changes"]) and any(e["path"].endswith(".json") for e in d["changes"]) else d["changes"]' <"$tmp/doc")"
	same "... the host package is unchanged" "$pbefore" "$(list "$tmp/pkg" --mtime)"
else
	skip "node's test runner on an overlay" "no node"
fi

tap_done
