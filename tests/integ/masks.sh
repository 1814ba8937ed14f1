#!/bin/sh
# masks.sh: masks inside binds under the shipped agent policy (hutch(1),
# MASKS): hidden files read as empty and cannot be written, hidden
# directories are empty, .git/hooks and .git/config stay read-only inside
# a writable bind, and the attacks on them fail: write, rename, hard link,
# chmod, /proc/self/fd reopen, umount and mount over (seccomp and no
# capability), open_by_handle_at, and renaming .git (or a parent of it)
# aside to plant a hook in a fresh one. Each checks the HOST tree after.
# Root and unprivileged.
. "$(dirname "$0")/lib.sh"
tap_tmpdir masks

src=$tmp/src
mkdir -p "$src/.git/hooks" "$src/sub/.ssh" "$src/.config/gcloud" "$src/deep/proj/.git/hooks" \
	"$src/.git/modules/lib/hooks"
echo SECRET-ENV >"$src/.env"
echo SECRET-LOCAL >"$src/.env.local"
echo SECRET-KEY >"$src/sub/.ssh/id_ed25519"
echo SECRET-TOKEN >"$src/.config/gcloud/token"
echo '[core]' >"$src/.git/config"
echo '#!/bin/sh' >"$src/.git/hooks/pre-commit"
echo '[core]' >"$src/deep/proj/.git/config"
echo '[core]' >"$src/.git/modules/lib/config"
echo readme >"$src/README"
echo notes >"$src/notes"
chmod -R u+rwX,go+rX,go-w "$src"

# The attacks, from inside: one line each, "NAME RESULT".
cat >"$tmp/attack.py" <<'EOF'
import ctypes, errno, os, sys
libc = ctypes.CDLL(None, use_errno=True)
def res(name, f):
    try:
        r = f()
        print(name, "OK" if r is None or r >= 0 else errno.errorcode.get(ctypes.get_errno(), "E?"))
    except OSError as e:
        print(name, errno.errorcode.get(e.errno, str(e.errno)))
os.chdir("/work/src")
res("write-env", lambda: open(".env", "w").write("x"))
res("append-env", lambda: open(".env", "a").write("x"))
res("truncate-env", lambda: os.truncate(".env", 0))
res("chmod-env", lambda: os.chmod(".env", 0o666))
res("chown-env", lambda: os.chown(".env", os.getuid(), os.getgid()))
res("rename-env", lambda: os.rename(".env", "env-moved"))
res("unlink-env", lambda: os.unlink(".env"))
res("link-env", lambda: os.link(".env", "env-link"))
res("rename-over-env", lambda: (open("decoy", "w").write("d"), os.rename("decoy", ".env"))[1])
fd = os.open(".env", os.O_RDONLY)
res("reopen-env-rw", lambda: os.open("/proc/self/fd/%d" % fd, os.O_RDWR))
res("reopen-env-read", lambda: print("reopened:", repr(os.read(os.open("/proc/self/fd/%d" % fd, os.O_RDONLY), 100))))
res("mkdir-in-hidden-dir", lambda: os.mkdir(".config/gcloud/x"))
res("rename-hidden-dir", lambda: os.rename(".config/gcloud", ".config/g2"))
res("write-hook", lambda: open(".git/hooks/pre-commit", "w").write("evil"))
res("new-hook", lambda: open(".git/hooks/post-checkout", "w").write("evil"))
res("write-config", lambda: open(".git/config", "a").write("evil"))
res("rename-config", lambda: os.rename(".git/config", ".git/config.old"))
res("rename-hooks", lambda: os.rename(".git/hooks", ".git/hooks.old"))
res("rename-git", lambda: os.rename(".git", ".git-aside"))
res("module-hook", lambda: open(".git/modules/lib/hooks/pre-commit", "w").write("evil"))
res("module-config", lambda: open(".git/modules/lib/config", "a").write("evil"))
res("rename-modules", lambda: os.rename(".git/modules", ".git/modules-aside"))
res("rmtree-git", lambda: os.rmdir(".git"))
res("rename-deep", lambda: os.rename("deep", "deep-aside"))
res("rename-deep-proj", lambda: os.rename("deep/proj", "deep/proj-aside"))
res("rename-deep-git", lambda: os.rename("deep/proj/.git", "deep/proj/.git-aside"))
res("umount-env", lambda: libc.umount2(b"/work/src/.env", 2))
res("umount-hooks", lambda: libc.umount2(b"/work/src/.git/hooks", 2))
res("mount-over-hooks", lambda: libc.mount(b"/tmp", b"/work/src/.git/hooks", None, 4096, None))
# open_by_handle_at: a handle of README (name_to_handle_at), then opening it
buf = ctypes.create_string_buffer(128 + 8)
ctypes.memmove(buf, (128).to_bytes(4, "little"), 4)
mid = ctypes.c_int()
res("name_to_handle_at", lambda: libc.name_to_handle_at(-100, b"/work/src/README", buf, ctypes.byref(mid), 0))
res("open_by_handle_at", lambda: libc.open_by_handle_at(os.open("/work/src", os.O_RDONLY), buf, 0))
res("write-readme", lambda: open("notes", "a").write("jail was here\n"))
res("mkdir-top", lambda: (os.mkdir("build"), os.rmdir("build"))[0])
EOF
chmod a+r "$tmp/attack.py"

"$HUTCH" run --json --policy agent --rw "$src:/work/src" --ro "$tmp/attack.py:/work/attack.py" \
	-- sh -c 'for f in .env .env.local sub/.ssh/id_ed25519 README; do printf "%s=[%s]\n" "$f" "$(cat /work/src/$f)"; done;
		  printf "gcloud=[%s]\n" "$(ls -A /work/src/.config/gcloud)";
		  python3 /work/attack.py' >"$tmp/doc" 2>"$tmp/err"
out=$(json_get 'd["stdout"]["text"]' <"$tmp/doc")
st=$(json_get 'd["status"]' <"$tmp/doc")
check "the run exited (status $st)" test "$st" = exited
[ "$st" = exited ] || diag "$(head -c 800 "$tmp/doc")"
# result: the line for NAME
r() { printf '%s\n' "$out" | awk -v n="$1" '$1 == n { print $2; exit }'; }
for f in .env .env.local sub/.ssh/id_ed25519; do
	check "hidden $f reads as empty" has "$out" "^$f=\\[\\]\$"
done
check "control: README reads as it is" has "$out" '^README=\[readme\]$'
check "a hidden directory (.config/gcloud) is empty" has "$out" '^gcloud=\[\]$'
# EROFS, or EACCES where the permission check (mode 0444) comes first
for a in write-env append-env truncate-env chmod-env chown-env; do
	check "$a on the hidden file: refused ($(r "$a"))" has "$(r "$a")" '^(EROFS|EACCES)$'
done
for a in rename-env unlink-env rename-hidden-dir; do
	same "$a: EBUSY (a mount point)" EBUSY "$(r "$a")"
done
same "link-env (hard link to the hidden file): EXDEV" EXDEV "$(r link-env)"
same "rename-over-env (a file renamed over the mask): EBUSY" EBUSY "$(r rename-over-env)"
check "reopen of the hidden file through /proc/self/fd for writing: refused ($(r reopen-env-rw))" \
	has "$(r reopen-env-rw)" '^(EROFS|EACCES)$'

check "reopen through /proc/self/fd for reading still reads nothing" has "$out" "^reopened: b''"
# ENOENT: the empty directory is an unlinked one; EROFS: its mount
check "mkdir inside the hidden directory: refused ($(r mkdir-in-hidden-dir))" \
	has "$(r mkdir-in-hidden-dir)" '^(ENOENT|EROFS)$'

same "writing .git/hooks/pre-commit: EROFS" EROFS "$(r write-hook)"
same "a new hook in .git/hooks: EROFS" EROFS "$(r new-hook)"
same "appending to .git/config: EROFS" EROFS "$(r write-config)"
same "renaming .git/config aside: EBUSY" EBUSY "$(r rename-config)"
same "renaming .git/hooks aside: EBUSY" EBUSY "$(r rename-hooks)"
same "renaming .git aside: EBUSY (pinned)" EBUSY "$(r rename-git)"
same "removing .git: EBUSY" EBUSY "$(r rmtree-git)"
same "a submodule's hook (.git/modules/lib/hooks): EROFS" EROFS "$(r module-hook)"
same "a submodule's config: EROFS" EROFS "$(r module-config)"
same "renaming .git/modules aside: EBUSY" EBUSY "$(r rename-modules)"
same "renaming deep (a parent of a protected .git) aside: EBUSY" EBUSY "$(r rename-deep)"
same "renaming deep/proj aside: EBUSY" EBUSY "$(r rename-deep-proj)"
same "renaming deep/proj/.git aside: EBUSY" EBUSY "$(r rename-deep-git)"
same "umount2 of the mask: EPERM (seccomp; no CAP_SYS_ADMIN either)" EPERM "$(r umount-env)"
same "umount2 of .git/hooks: EPERM" EPERM "$(r umount-hooks)"
same "mount over .git/hooks: EPERM" EPERM "$(r mount-over-hooks)"
same "name_to_handle_at: EPERM (seccomp)" EPERM "$(r name_to_handle_at)"
same "open_by_handle_at: EPERM (seccomp)" EPERM "$(r open_by_handle_at)"
same "control: the writable bind takes writes (notes)" OK "$(r write-readme)"
same "control: a top-level directory can be made and removed" OK "$(r mkdir-top)"

# The host tree after all of it.
check "host: .env unchanged" test "$(cat "$src/.env")" = SECRET-ENV
check "host: .config/gcloud/token unchanged" test "$(cat "$src/.config/gcloud/token")" = SECRET-TOKEN
check "host: pre-commit unchanged" test "$(cat "$src/.git/hooks/pre-commit")" = '#!/bin/sh'
check "host: no post-checkout hook" test ! -e "$src/.git/hooks/post-checkout"
check "host: .git/config unchanged" test "$(cat "$src/.git/config")" = '[core]'
check "host: no .git-aside, deep-aside or env-link" \
	test ! -e "$src/.git-aside" -a ! -e "$src/deep-aside" -a ! -e "$src/env-link"
check "host: the control write arrived (notes)" grep -q "jail was here" "$src/notes"

# The attack the pins exist for, in the shell a planted hook would use:
# move .git aside, make a new one with a hook, for the top and a nested repo.
"$HUTCH" run --policy agent --rw "$src:/work/src" -- sh -c '
	cd /work/src
	mv .git .git-aside; mkdir -p .git/hooks; echo evil >.git/hooks/pre-commit
	cp -r .git .git-copy 2>/dev/null; rm -rf .git; mv .git-copy .git
	mv deep deep-aside; mkdir -p deep/proj/.git/hooks; echo evil >deep/proj/.git/hooks/pre-commit
	mv deep/proj deep/proj-aside; mv deep/proj/.git deep/proj/.git-aside
	mkdir -p deep/proj/.git/hooks; echo evil >deep/proj/.git/hooks/pre-commit
	true' >/dev/null 2>&1
check "rename-aside: the host's .git/hooks/pre-commit is not evil" \
	test "$(cat "$src/.git/hooks/pre-commit" 2>/dev/null)" = '#!/bin/sh'
check "rename-aside: the host's deep/proj/.git/hooks/pre-commit is not planted" \
	test ! -e "$src/deep/proj/.git/hooks/pre-commit"
check "rename-aside: no evil file anywhere in the host tree" \
	test -z "$(grep -rl evil "$src" 2>/dev/null)"

# Control: git works in a protected repository (its writes stay inside
# the pinned .git, its hooks and config are only read).
if command -v git >/dev/null 2>&1; then
	repo=$tmp/repo
	mkdir "$repo"
	(cd "$repo" && git init -q . && echo a >a && git add a &&
		git -c user.email=t@x -c user.name=t commit -qm init) >/dev/null 2>&1
	chmod -R u+rwX,go+rX,go-w "$repo"
	"$HUTCH" run --policy agent --rw "$repo:/work/repo" --cwd /work/repo --env HOME=/tmp -- \
		sh -c 'echo b >b && git add b && git -c user.email=j@x -c user.name=j commit -qm jail &&
			git gc -q' >/dev/null 2>"$tmp/err"
	check "control: git add, commit and gc work under agent (exit $?)" \
		test "$(git -C "$repo" log --format=%s 2>/dev/null | head -1)" = jail
else
	skip "control: git commit under agent" "git is not installed"
fi

# jail.masks: hidden .env, .env.local, id_ed25519, gcloud; read-only hooks
# and config of two repositories and a submodule; pins .git, .git/modules,
# .git/modules/lib, deep, deep/proj, deep/proj/.git.
check "jail.masks counts what was masked" \
	test "$(json_get '[d["jail"]["masks"][k] for k in ("hidden", "read_only", "pinned", "left_out")]' <"$tmp/doc")" = "[4, 6, 6, 0]"
check "jail.masks: no bound hit" test "$(json_get 'd["jail"]["masks"]["bounds_hit"]' <"$tmp/doc")" = "[]"

# An overlay of the same tree: the masks go on top of it as on a bind,
# and the change set holds no planted hook.
"$HUTCH" run --json --policy agent --overlay "$src:/work/src" -- sh -c '
	cd /work/src; printf "env=[%s]\n" "$(cat .env)"
	echo evil >.git/hooks/pre-commit || echo hook-refused
	mv .git .git-aside || echo rename-refused
	echo ov >>notes' >"$tmp/doc" 2>/dev/null
if [ "$(json_get '(d.get("error") or {}).get("code")' <"$tmp/doc")" = sandbox_unavailable ]; then
	skip_feature "masks inside an overlay" "this kernel cannot make the overlay"
else
	out=$(json_get 'd["stdout"]["text"]' <"$tmp/doc")
	check "overlay: .env hidden, the hook and the rename refused" \
		test "$(printf '%s\n' "$out" | tr '\n' ' ')" = "env=[] hook-refused rename-refused "
	check "overlay: the change set is notes alone, no hook" \
		test "$(json_get '[c["path"] for c in d["changes"]]' <"$tmp/doc")" = '["/work/src/notes"]'
	check "overlay: jail.masks counts the same masks as the bind" \
		test "$(json_get '[d["jail"]["masks"][k] for k in ("hidden", "read_only", "pinned")]' <"$tmp/doc")" = "[4, 6, 6]"
fi
check "agent's network is proxy by default" \
	test "$(json_get 'd["jail"]["network"]' <"$tmp/doc")" = proxy

# Read-only binds: hidden still, nothing to protect.
"$HUTCH" run --json --policy agent --ro "$src:/work/src" -- cat /work/src/.env >"$tmp/doc"
check "a read-only bind: .env hidden, no read_only or pin needed" \
	test "$(json_get '[d["stdout"]["text"], d["jail"]["masks"]["hidden"], d["jail"]["masks"]["read_only"]]' <"$tmp/doc")" = '["", 4, 0]'

# --hide under any policy; its refusals say what is accepted.
"$HUTCH" run --json --rw "$src:/work/src" --hide /work/src/README -- cat /work/src/README >"$tmp/doc"
check "--hide /work/src/README: reads as empty under default" \
	test "$(json_get '[d["status"], d["stdout"]["text"], d["jail"]["masks"]["hidden"]]' <"$tmp/doc")" = '["exited", "", 1]'
printf '{"version": 1, "argv": ["cat", "/work/src/README"], "hide": ["/work/src/README"],
  "mounts": [{"source": "%s", "target": "/work/src", "mode": "ro"}]}' "$src" |
	"$HUTCH" run --request - >"$tmp/doc"
check "a request document's \"hide\": README reads as empty" \
	test "$(json_get '[d["status"], d["stdout"]["text"], d["jail"]["masks"]["hidden"]]' <"$tmp/doc")" = '["exited", "", 1]'
"$HUTCH" run --rw "$src:/work/src" --hide /work/src/notes -- sh -c 'echo x >/work/src/notes' 2>/dev/null
check "--hide: the hidden file cannot be written (exit non-zero)" test $? != 0
"$HUTCH" run --policy agent --hide /etc/passwd -- true 2>"$tmp/err"
check "--hide outside a bind: 125" test $? = 125
check "... naming --hide and what is accepted" \
	grep -q -- "--hide: not inside a bind of the request; accepted: " "$tmp/err"
"$HUTCH" run --rw "$src:/work/src" --hide work/src -- true 2>"$tmp/err"
check "--hide with a relative path: 125, accepted named" \
	grep -q -- "--hide: must be a clean absolute path; accepted: " "$tmp/err"
ln -s README "$src/link-to-readme"
"$HUTCH" run --rw "$src:/work/src" --hide /work/src/link-to-readme -- true 2>"$tmp/err"
check "--hide of a symbolic link: refused, accepted named" \
	grep -q -- "--hide: a symbolic link on the host; accepted: " "$tmp/err"

# A policy's pattern that is not one.
"$py" -c 'import json, sys
d = json.load(open(sys.argv[1]))
d["filesystem"]["hide"] = ["**/../x"]
json.dump(d, open(sys.argv[2], "w"))' "$(dirname "$("$HUTCH" policy list | awk '$1 == "agent" { print $2; exit }')")/agent.json" "$tmp/bad.json"
"$HUTCH" policy check "$tmp/bad.json" >/dev/null 2>"$tmp/err"
check "a bad hide pattern: policy check fails naming /filesystem/hide/0" \
	grep -q "/filesystem/hide/0: must be a pattern" "$tmp/err"

# The depth and entries bounds fail closed too: masks-bounds.sh.

# The count bound fails closed: a match past it would be a secret found
# and left readable. The attack: decoys (a job with a writable bind can
# make them for the next run) push the real .env past 96 masks. The
# control: 96 matches run, all hidden.
many=$tmp/many-tree
i=1
while [ $i -le 97 ]; do
	mkdir -p "$many/p$i" && echo "SECRET-$i" >"$many/p$i/.env"
	i=$((i + 1))
done
chmod -R u+rwX,go+rX,go-w "$many"
"$HUTCH" run --json --policy agent --ro "$many:/work/m" -- /bin/sh -c 'cat /work/m/*/.env' \
	>"$tmp/doc" 2>"$tmp/err"
same "97 hidden files, past the count bound: refused before the run, nothing read" \
	"failed policy_violation /mounts None" \
	"$(json_get 'd["status"] + " " + d["error"]["code"] + " " + d["error"]["pointer"] + " " + str(d["jail"] and d["jail"].get("masks"))' <"$tmp/doc")$(grep -o SECRET "$tmp/doc" | head -1)"
"$HUTCH" run --policy agent --ro "$many:/work/m" -- true 2>"$tmp/err"
check "... in one line naming the bound and what to do" \
	grep -q '^hutch: policy_violation: .*than a jail can mask (given 97 matches); accepted: at most 96 masks.*bind a narrower tree (at /mounts)$' "$tmp/err"
rm -r "$many/p97"
"$HUTCH" run --json --policy agent --ro "$many:/work/m" -- /bin/sh -c 'cat /work/m/*/.env | wc -c' \
	>"$tmp/doc" 2>"$tmp/err"
same "control: 96 hidden files run, every one empty, no bound hit" "exited 0 96 []" \
	"$(json_get 'd["status"] + " " + d["stdout"]["text"].strip() + " " + str(d["jail"]["masks"]["hidden"]) + " " + str(d["jail"]["masks"]["bounds_hit"])' <"$tmp/doc")"

# A hidden name that is a symbolic link (.env -> config/prod): a mask
# cannot be put on a link, and reading it read what it points to, which
# no pattern names. Refused in any bind; the control: the same tree with
# the file itself in place of the link runs, .env empty.
lt=$tmp/link-tree
mkdir -p "$lt/config"
echo PROD-SECRET >"$lt/config/prod"
ln -s config/prod "$lt/.env"
chmod -R u+rwX,go+rX,go-w "$lt"
"$HUTCH" run --json --policy agent --ro "$lt:/work/l" -- cat /work/l/.env >"$tmp/doc" 2>"$tmp/err"
same "a hidden .env that is a link to config/prod: refused before the run, the secret not read" \
	"failed policy_violation /mounts/0" \
	"$(json_get 'd["status"] + " " + d["error"]["code"] + " " + d["error"]["pointer"]' <"$tmp/doc")$(grep -o PROD-SECRET "$tmp/doc" | head -1)"
"$HUTCH" run --policy agent --ro "$lt:/work/l" -- true 2>"$tmp/err"
check "... in one line naming the bind and what is accepted" \
	grep -q "^hutch: policy_violation: --ro $lt:/work/l: a bind where a path the policy hides (filesystem.hide) is a symbolic link: reading it would read what it points to; accepted: " "$tmp/err"
rm "$lt/.env" && cp "$lt/config/prod" "$lt/.env"
"$HUTCH" run --json --policy agent --ro "$lt:/work/l" -- cat /work/l/.env >"$tmp/doc" 2>"$tmp/err"
same "control: .env the file itself: runs, reads as empty" '["exited", ""]' \
	"$(json_get '[d["status"], d["stdout"]["text"]]' <"$tmp/doc")"

tap_done
