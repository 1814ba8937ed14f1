#!/bin/sh
# policy-cache.sh: hutch run keeps parsed policies in its private cache
# directory, keyed by the identity of the policy file and of hutch. The
# oracle is `hutch policy digest`, which always parses the file: a run's
# jail.digest must equal it after the file changed (also with its size
# and mtime kept, which only the ctime then tells), with a damaged or
# foreign entry in the cache, and with the cache off; a policy that
# extends another is never cached.
. "$(dirname "$0")/lib.sh"

tap_tmpdir policy-cache

pol=$tmp/pol
mkdir "$pol"
src=${HUTCH_SRCDIR:-$here/../..}/policy/default.json
[ -f "$src" ] || src=$("$HUTCH" policy list 2>/dev/null | awk '$1 == "default" { print $2 }')
if [ ! -f "$src" ]; then
	skip "the policy cache" "no default.json (HUTCH_SRCDIR unset)"
	tap_done
	exit
fi
cp "$src" "$pol/pc.json"
export HUTCH_POLICY_PATH="$pol"
entry=$XDG_RUNTIME_DIR/hutch/policy-pc

digest_of_run() { # the jail.digest of a run under policy pc
	"$HUTCH" run --json --policy pc -- /bin/true 2>>"$tmp/err" |
		"$py" -c 'import json, sys; d = json.load(sys.stdin); print(d["status"], d["jail"]["digest"])'
}
oracle() { echo "exited $("$HUTCH" policy digest pc)"; }

same "a first run: the digest of the file" "$(oracle)" "$(digest_of_run)"
check "the parsed policy is kept in the private cache directory" test -f "$entry"
mode=$(stat -c %a "$entry" 2>/dev/null)
same "the entry is 0600" 600 "$mode"
same "a second run (from the cache): the same digest" "$(oracle)" "$(digest_of_run)"

# The description's last letter changed: the size stays.
old_mtime=$(stat -c %Y "$pol/pc.json")
before=$(oracle)
"$py" - "$pol/pc.json" "$tmp/new.json" <<'PYEOF'
import sys
t = open(sys.argv[1]).read()
i = t.index('"description": "') + len('"description": "')
j = t.index('"', i) - 1
t = t[:j] + ("X" if t[j] != "X" else "Y") + t[j + 1:]
open(sys.argv[2], "w").write(t)
PYEOF
cat "$tmp/new.json" >"$pol/pc.json"
check "the file's change changes its digest (the test's own control)" test "$before" != "$(oracle)"
same "changed in place: the run follows the file" "$(oracle)" "$(digest_of_run)"

# Changed again, size and mtime put back: only the ctime differs.
cp "$pol/pc.json" "$tmp/b.json"
sed 's/"hostname": "hutch"/"hostname": "hutcx"/' "$tmp/b.json" >"$tmp/c.json"
size_b=$(stat -c %s "$tmp/b.json")
size_c=$(stat -c %s "$tmp/c.json")
touch -m -d "@$old_mtime" "$pol/pc.json"
digest_of_run >/dev/null	# the entry now says this file, at old_mtime
cat "$tmp/c.json" >"$pol/pc.json"
touch -m -d "@$old_mtime" "$pol/pc.json"
same "the test's own control: the size stays" "$size_b" "$size_c"
same "same size and mtime, new content: the run follows the file" "$(oracle)" "$(digest_of_run)"

# A damaged entry, and one that is not private: ignored, then replaced.
printf 'hutch policy cache 1\ngarbage' >"$entry"
same "a damaged entry: the digest of the file" "$(oracle)" "$(digest_of_run)"
chmod 644 "$entry"
same "an entry others can read: not trusted" "$(oracle)" "$(digest_of_run)"
head -c 200 "$entry" >"$tmp/cut" && cat "$tmp/cut" >"$entry" && chmod 600 "$entry"
same "an entry cut short: the digest of the file" "$(oracle)" "$(digest_of_run)"
same "the cache off (HUTCH_POLICY_CACHE=0): the same" "$(oracle)" \
	"$(HUTCH_POLICY_CACHE=0 digest_of_run)"

# Tampered entries. The hostname is both a field and a part of the stored
# canonical text: changed in the field alone, or in both (consistent, as
# no rendering again could tell), the seal refuses the entry and the jail
# gets the file's hostname. Control: the same change sealed again is used
# (the hit path is real, and only the seal stood in the way).
hostname_of_run() {
	"$HUTCH" run --policy pc -- /bin/uname -n 2>>"$tmp/err"
}
tamper() { # $1: field | all | resealed
	"$py" - "$entry" "$1" <<'PYEOF'
import hashlib, struct, sys
path, how = sys.argv[1], sys.argv[2]
d = open(path, "rb").read()
magic = b"hutch policy cache 1\n"
assert d.startswith(magic)
n = len(magic) + 2 * 7 * 8
flen = struct.unpack_from("=Q", d, n)[0]
n += 8 + flen
head, blob = d[:n], d[n:]
field = struct.pack("=Q", 5) + b"hutch"
assert blob.count(field) == 1
if how == "field":
    blob = blob.replace(field, struct.pack("=Q", 5) + b"hutcx")
else:
    body = blob[:-32].replace(b"hutch", b"hutcx")
    blob = body + (hashlib.sha256(body).digest() if how == "resealed" else blob[-32:])
open(path, "wb").write(head + blob)
PYEOF
}
cat "$src" >"$pol/pc.json"	# hostname "hutch" again
digest_of_run >/dev/null	# a fresh entry for the file as it is
same "the test's own control: the file's hostname" hutch "$(hostname_of_run)"
tamper field
same "an entry changed in one field: refused, the file's hostname" hutch "$(hostname_of_run)"
same "  and the digest of the file" "$(oracle)" "$(digest_of_run)"
tamper all
same "an entry changed in a field and its canonical text alike: refused" hutch \
	"$(hostname_of_run)"
same "  and the digest of the file" "$(oracle)" "$(digest_of_run)"
tamper resealed
same "the control: the same change sealed again is what the cache holds" hutcx \
	"$(hostname_of_run)"

# Another inode: the same bytes moved over the file (same size, mtime put
# back): a miss, then the file's policy.
digest_of_run >/dev/null
sed 's/"hostname": "hutc[hx]"/"hostname": "hutcy"/' "$pol/pc.json" >"$tmp/d.json"
touch -m -d "@$(stat -c %Y "$pol/pc.json")" "$tmp/d.json"
mv "$tmp/d.json" "$pol/pc.json"
same "another inode (moved over the file): the file's hostname" hutcy "$(hostname_of_run)"
same "  and the digest of the file" "$(oracle)" "$(digest_of_run)"

# extends: the parent's change would not show in the child's identity.
printf '{"extends": "pc", "description": "child"}\n' >"$pol/child.json"
if "$HUTCH" run --json --policy child -- /bin/true >/dev/null 2>&1; then
	check "a policy that extends another is not cached" test ! -e "$XDG_RUNTIME_DIR/hutch/policy-child"
else
	not_ok "a policy that extends another runs (to see it is not cached)"
fi
[ -s "$tmp/err" ] && diag "stderr: $(head -c 400 "$tmp/err")"
tap_done
