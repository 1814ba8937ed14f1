#!/bin/sh
# masks-absent.sh: the two gaps of masks inside binds (hutch(1), MASKS):
# a protected path that does not exist when the jail is planned (a
# repository without .git/hooks: the job plants .git/hooks/pre-commit,
# which host git runs at the next commit), and a host hard link to a
# hidden file under another name. The hook attempt is a real one: after
# each run git commits on the host and the hook must not have run; a hook
# the test itself puts there does run (the control). Root and
# unprivileged; the fixtures are made by the user running the test. A
# .git/hooks that is a symbolic link (to a tracked .githooks) is refused
# in a writable bind: its target would stay writable.
. "$(dirname "$0")/lib.sh"
tap_tmpdir masks-absent

if ! command -v git >/dev/null 2>&1; then
	skip "protected paths that do not exist" "git is not installed"
	tap_done
	exit 0
fi
G="git -c user.email=t@x -c user.name=t -c init.defaultBranch=main"

# A repository without .git/hooks (an empty template): what libgit2, some
# clones and copies of .git leave.
repo=$tmp/repo
mkdir "$repo" "$tmp/empty-template"
(cd "$repo" && $G init -q --template="$tmp/empty-template" . && echo a >a && $G add a &&
	$G commit -qm init) >/dev/null 2>&1
chmod -R u+rwX,go+rX,go-w "$repo"
check "fixture: a repository without .git/hooks" test -d "$repo/.git" -a ! -e "$repo/.git/hooks"
# host_commit NAME: a commit on the host, as its owner would make it; the
# marker a planted hook would leave is $tmp/hook-ran.
host_commit() {
	(cd "$repo" && echo "$1" >>a && $G commit -qam "$1") >/dev/null 2>&1
}
plant='mkdir -p .git/hooks 2>/dev/null; printf "#!/bin/sh\ntouch '"$tmp"'/hook-ran\n" >.git/hooks/pre-commit && chmod +x .git/hooks/pre-commit && echo planted'

# --rw: the path cannot be made on the host and would be made by the
# jail: refused, saying what to do.
"$HUTCH" run --policy agent --rw "$repo:/work/repo" --cwd /work/repo -- sh -c "$plant" \
	>"$tmp/out" 2>"$tmp/err"
same "--rw of a repository without .git/hooks under agent: refused (125)" 125 "$?"
check "... one line naming --rw, what was given and what is accepted" \
	grep -q -- "^hutch: policy_violation: --rw $repo:/work/repo: a writable bind where a path the policy keeps read-only does not exist (filesystem.read_only): the jail could create it on the host (given rw); accepted: overlay .*, ro, rw once the host tree has what \*\*/.git/hooks names (create it first)$" "$tmp/err"
[ "$(wc -l <"$tmp/err")" = 1 ] || diag "$(cat "$tmp/err")"
check "... nothing ran and the host has no .git/hooks" test ! -s "$tmp/out" -a ! -e "$repo/.git/hooks"
host_commit rw-refused
check "host git commit after it: no hook ran" test ! -e "$tmp/hook-ran"

# --overlay: the absent .git/hooks is held empty and read-only; the jail's
# own git still commits, and nothing of the attempt reaches the change set.
"$HUTCH" run --json --policy agent --overlay "$repo:/work/repo" --cwd /work/repo --env HOME=/tmp -- \
	sh -c "$plant"' || echo plant-refused
		mkdir .git/hooks/x 2>/dev/null || echo mkdir-refused
		mv .git .git-aside 2>/dev/null || echo rename-git-refused
		mv .git/hooks .git/hooks-aside 2>/dev/null || echo rename-hooks-refused
		printf "[ -d .git/hooks ] && [ -z \"\$(ls -A .git/hooks)\" ] && echo hooks-empty\n" | sh
		echo b >b && git add b && git -c user.email=j@x -c user.name=j commit -qm jail && echo jail-commit
		[ -e '"$tmp"'/hook-ran ] && echo hook-ran-in-jail; true' >"$tmp/doc" 2>"$tmp/err"
if [ "$(json_get '(d.get("error") or {}).get("code")' <"$tmp/doc")" = sandbox_unavailable ]; then
	skip_feature "an overlay of a repository without .git/hooks" "this kernel cannot make the overlay"
else
	out=$(json_get 'd["stdout"]["text"]' <"$tmp/doc" | tr -s '\n ' '  ' | sed 's/ *$//')
	same "overlay: the plant, mkdir, both renames refused; hooks empty; git commits" \
		"plant-refused mkdir-refused rename-git-refused rename-hooks-refused hooks-empty jail-commit" "$out"
	[ "$out" = "plant-refused mkdir-refused rename-git-refused rename-hooks-refused hooks-empty jail-commit" ] ||
		diag "$(head -c 600 "$tmp/err")"
	check "overlay: the change set has the commit and nothing under .git/hooks" \
		test "$(json_get '[any(c["path"] == "/work/repo/b" for c in d["changes"]), [c["path"] for c in d["changes"] if "hooks" in c["path"]]]' <"$tmp/doc")" = "[true, []]"
	check "overlay: jail.masks counts one absent path held read-only" \
		test "$(json_get '[d["jail"]["masks"][k] for k in ("absent", "left_out")]' <"$tmp/doc")" = "[1, 0]"
	check "overlay: the host still has no .git/hooks" test ! -e "$repo/.git/hooks"
fi
host_commit overlay
check "host git commit after the overlay run: no hook ran" test ! -e "$tmp/hook-ran"

# Doing what the refusal says: the path exists on the host, the bind is
# allowed, and the plant fails there as for any protected path.
mkdir "$repo/.git/hooks"
chmod 755 "$repo/.git/hooks"
"$HUTCH" run --policy agent --rw "$repo:/work/repo" --cwd /work/repo -- sh -c "$plant"' || echo plant-refused
	mv .git .git-aside 2>/dev/null || echo rename-refused' >"$tmp/out" 2>"$tmp/err"
same "--rw once .git/hooks exists: runs, the plant and the rename refused" \
	"plant-refused rename-refused " "$(tr '\n' ' ' <"$tmp/out")"
host_commit rw
check "host git commit after the --rw run: no hook ran" test ! -e "$tmp/hook-ran"
printf '#!/bin/sh\ntouch %s/hook-ran\n' "$tmp" >"$repo/.git/hooks/pre-commit"
chmod 755 "$repo/.git/hooks/pre-commit"
host_commit control
check "control: a hook the owner put there does run at the host commit" test -e "$tmp/hook-ran"
rm -f "$tmp/hook-ran" "$repo/.git/hooks/pre-commit"

# A .git whose config is gone, under --rw: refused too, naming its pattern.
rm -f "$repo/.git/config"
"$HUTCH" run --policy agent --rw "$repo:/work/repo" -- true 2>"$tmp/err"
same "--rw of a repository without .git/config: refused (125)" 125 "$?"
check "... naming **/.git/config" grep -q 'what \*\*/.git/config names' "$tmp/err"
check "--ro of it: allowed (nothing to protect in a read-only bind)" \
	"$HUTCH" run --policy agent --ro "$repo:/work/repo" -- true
mkdir "$tmp/plain"
echo x >"$tmp/plain/f"
chmod -R u+rwX,go+rX,go-w "$tmp/plain"
check "--rw of a directory with no repository: allowed (a new repository is output to review)" \
	"$HUTCH" run --policy agent --rw "$tmp/plain:/work/plain" -- true

# Hard links: a hidden file's other names in the bound trees read as
# empty too, and so do those of files in a hidden directory.
src=$tmp/src
mkdir -p "$src/sub" "$src/.gnupg" "$src/.git/hooks"
echo '[core]' >"$src/.git/config"
echo SECRET-ENV >"$src/.env"
echo SECRET-KEY >"$src/.gnupg/key"
echo SECRET-SOLO >"$src/solo"
echo readme >"$src/README"
ln "$src/.env" "$src/sub/env-alias"
ln "$src/.env" "$src/env-alias2"
ln "$src/.gnupg/key" "$src/key-alias"
ln "$src/README" "$src/readme-alias"
mkdir "$tmp/other"
ln "$src/solo" "$tmp/other/solo-alias"
chmod -R u+rwX,go+rX,go-w "$src" "$tmp/other"
for mode in ro rw overlay; do
	"$HUTCH" run --json --policy agent --$mode "$src:/work/src" -- sh -c '
		for f in .env sub/env-alias env-alias2 key-alias readme-alias; do
			printf "%s=[%s] " $f "$(cat /work/src/$f)"; done
		echo x >>/work/src/sub/env-alias 2>/dev/null || echo alias-write-refused' >"$tmp/doc" 2>/dev/null
	if [ "$(json_get '(d.get("error") or {}).get("code")' <"$tmp/doc")" = sandbox_unavailable ]; then
		skip_feature "hard links in an overlay" "this kernel cannot make the overlay"
		continue
	fi
	same "--$mode: every name of the hidden .env and .gnupg/key reads as empty; README's alias reads" \
		".env=[] sub/env-alias=[] env-alias2=[] key-alias=[] readme-alias=[readme] alias-write-refused" \
		"$(json_get 'd["stdout"]["text"]' <"$tmp/doc" | tr -s '\n ' '  ' | sed 's/ *$//')"
	same "--$mode: jail.masks.hard_links counts the three" 3 \
		"$(json_get 'd["jail"]["masks"]["hard_links"]' <"$tmp/doc")"
done
check "host: the aliases still hold the secret (nothing changed)" \
	test "$(cat "$src/sub/env-alias")" = SECRET-ENV -a "$(cat "$src/key-alias")" = SECRET-KEY
# --hide under the default policy: the same for a file hidden by path;
# a link outside every bind needs no mask.
"$HUTCH" run --json --ro "$src:/work/src" --ro "$tmp/other:/work/other" --hide /work/src/solo -- \
	sh -c 'printf "[%s][%s]" "$(cat /work/src/solo)" "$(cat /work/other/solo-alias)"' >"$tmp/doc"
same "--hide solo: its hard link in another bind reads as empty too" "[][]" \
	"$(json_get 'd["stdout"]["text"]' <"$tmp/doc")"
"$HUTCH" run --json --ro "$src:/work/src" --hide /work/src/solo -- cat /work/src/solo >"$tmp/doc"
same "--hide solo, its other name outside the binds: no mask for it" \
	'["", 1, 0]' "$(json_get '[d["stdout"]["text"], d["jail"]["masks"]["hidden"], d["jail"]["masks"]["hard_links"]]' <"$tmp/doc")"

# A .git/hooks that is a symbolic link to a tracked directory (a common
# way to share hooks): a mask cannot be put on a link, so what it points
# to stayed writable and a hook planted there ran at the host's next
# commit. Refused in a writable bind (--rw and --overlay); --ro runs.
lrepo=$tmp/link-repo
mkdir "$lrepo"
(cd "$lrepo" && $G init -q --template="$tmp/empty-template" . && mkdir .githooks &&
	ln -s ../.githooks .git/hooks && echo a >a && $G add a && $G commit -qm init) >/dev/null 2>&1
chmod -R u+rwX,go+rX,go-w "$lrepo"
lplant='printf "#!/bin/sh\ntouch '"$tmp"'/hook-ran\n" >.githooks/pre-commit && chmod +x .githooks/pre-commit && echo planted'
for mode in rw overlay; do
	"$HUTCH" run --policy agent --$mode "$lrepo:/work/repo" --cwd /work/repo -- sh -c "$lplant" \
		>"$tmp/out" 2>"$tmp/err"
	same "--$mode of a repository whose .git/hooks is a link: refused (125), nothing ran" \
		"125 " "$? $(cat "$tmp/out")"
	check "... one line naming --$mode, the link and what is accepted" \
		grep -q -- "^hutch: policy_violation: --$mode $lrepo:/work/repo: a writable bind where a path the policy keeps read-only (filesystem.read_only) is a symbolic link: what it points to would stay writable (given $mode); accepted: ro, rw or overlay once" "$tmp/err"
	(cd "$lrepo" && echo $mode >>a && $G commit -qam $mode) >/dev/null 2>&1
	check "... host git commit after it: no hook ran" test ! -e "$tmp/hook-ran" -a ! -e "$lrepo/.githooks/pre-commit"
done
"$HUTCH" run --policy agent --ro "$lrepo:/work/repo" --cwd /work/repo -- sh -c "$lplant || echo ro-refused" \
	>"$tmp/out" 2>"$tmp/err"
same "control: --ro of it runs, the plant refused by the read-only bind" "0 ro-refused" "$? $(cat "$tmp/out")"
(cd "$lrepo" && sh -c "$lplant" >/dev/null && echo control >>a && $G commit -qam control) >/dev/null 2>&1
check "control: a hook put in .githooks on the host runs at its commit, through the link" \
	test -e "$tmp/hook-ran"
rm -f "$tmp/hook-ran"

tap_done
