#!/bin/sh
# cache-reach.sh: nothing a jail can write is loaded as a cached filter or
# probe verdict by a later run, whatever either run's environment (issue
# 19 item 4). The attack: a runtime directory under a bindable prefix
# (XDG_RUNTIME_DIR=/tmp/1000-runtime-dir, as some session managers and
# containers set it) held the cache; a jail of the same caller started
# without that variable, or a root caller's jail, bound it read-write and
# replaced the seccomp program every later run of the victim loaded. Then
# every bind any shipped policy (and a policy allowing every prefix) lets
# a request make, from callers with and without XDG_RUNTIME_DIR, aimed at
# every directory a cache could be in. Runs as root and as nobody.
. "$(dirname "$0")/lib.sh"

tap_tmpdir cache-reach
tap_stderr="$tmp/err"
uid=$(id -u)

# An allow-everything program: BPF_RET|BPF_K SECCOMP_RET_ALLOW.
allow_all='\006\000\000\000\000\000\377\177'
cat >"$tmp/keyctl.py" <<'EOF'
import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
r = libc.syscall(250, 0, -3, 1)  # keyctl(KEYCTL_GET_KEYRING_ID, session, create), x86_64
print("allowed" if r >= 0 else os.strerror(ctypes.get_errno()))
EOF
chmod 644 "$tmp/keyctl.py"
# keyctl [ENV...]: what keyctl(2) gives in a default jail of a caller with
# that environment; every policy's filter refuses it.
keyctl() {
	env "$@" "$HUTCH" run --input p.py="$tmp/keyctl.py" -- /usr/bin/python3 /work/p.py 2>"$tmp/err"
}
# names DIR...: the entry names of these directories, for the jail to plant.
names() { for d in "$@"; do ls "$d" 2>/dev/null; done | sort -u | tr '\n' ' '; }

# A policy as wide as a policy can be about mounts: every prefix, rw.
"$HUTCH" policy show default | "$py" -c '
import json, sys
p = json.load(sys.stdin)
p["mounts"] = [{"prefix": "/", "modes": ["ro", "rw"]}]
json.dump(p, open(sys.argv[1], "w"))' "$tmp/wide.json"
chmod 644 "$tmp/wide.json"

# The victim's runtime directory under /tmp, private and its own, as
# /tmp/1000-runtime-dir is.
rt="$tmp/$uid-runtime-dir"
mkdir -m 700 "$rt"

# --- the issue's attack, same caller ------------------------------------------

same "control: the victim's jail refuses keyctl" "Operation not permitted" \
	"$(keyctl XDG_RUNTIME_DIR="$rt")"
check "a runtime directory under /tmp holds no cache" test ! -e "$rt/hutch"
# The victim's cache names, wherever they are: the jail plants exactly
# those in the runtime directory, and overwrites any there.
plant=$(names "$rt/hutch" "/dev/shm/hutch-$uid" "$XDG_RUNTIME_DIR/hutch")
attack="mkdir -p -m 700 /c/hutch; for n in $plant; do case \$n in
	filter-*) printf '$allow_all' >/c/hutch/\$n;; probe-*) printf 'ok\\n' >/c/hutch/\$n;; esac
	chmod 600 /c/hutch/\$n; done; ls /c/hutch | wc -l"
out=$(env -u XDG_RUNTIME_DIR "$HUTCH" run --rw "$rt:/c" -- /bin/sh -c "$attack" 2>"$tmp/err")
check "a jail of the same caller without XDG_RUNTIME_DIR binds it and plants ($out entries)" \
	test "${out:-0}" -gt 0
same "the victim's next run still refuses keyctl: nothing planted was loaded" \
	"Operation not permitted" "$(keyctl XDG_RUNTIME_DIR="$rt")"
env XDG_RUNTIME_DIR="$rt" "$HUTCH" run --json -- /bin/true >"$tmp/doc" 2>"$tmp/err"
same "... and its result says deny-list" deny-list "$(json_get 'd["jail"]["seccomp"]' <"$tmp/doc")"
# The same through the widest policy, from a caller whose runtime directory
# is somewhere else again.
other="$tmp/other-rt"
mkdir -m 700 "$other"
out=$(env XDG_RUNTIME_DIR="$other" "$HUTCH" run --policy "$tmp/wide.json" --rw "$rt:/c" -- \
	/bin/sh -c "$attack" 2>"$tmp/err")
check "... again from a caller with another runtime directory ($out entries)" test "${out:-0}" -gt 0
same "... still refused" "Operation not permitted" "$(keyctl XDG_RUNTIME_DIR="$rt")"

# --- a root caller's jail and nobody's runtime directory ----------------------

if ! is_root; then
	skip "a root caller's jail cannot change nobody's cache" "needs root"
elif ! command -v setpriv >/dev/null 2>&1; then
	not_ok "setpriv is installed (util-linux), to run as nobody"
else
	nrt="$tmp/65534-runtime-dir"
	mkdir -m 700 "$nrt"
	chown 65534:65534 "$nrt"
	# Copies nobody can run: the build tree may sit where nobody cannot
	# enter (tests/ci.sh's is 0700).
	nb=$tmp/nobody-bin
	mkdir -p "$nb/policy"
	cp "$HUTCH" "$nb/hutch"
	[ -n "${HUTCH_EXEC:-}" ] && cp "$HUTCH_EXEC" "$nb/hutch-exec"
	[ -n "${HUTCH_POLICY_PATH:-}" ] && cp "$HUTCH_POLICY_PATH"/*.json "$nb/policy/"
	chmod -R a+rX "$nb"
	as_nobody() {
		setpriv --reuid=65534 --regid=65534 --clear-groups \
			env XDG_RUNTIME_DIR="$nrt" ${HUTCH_EXEC:+HUTCH_EXEC="$nb/hutch-exec"} \
			${HUTCH_POLICY_PATH:+HUTCH_POLICY_PATH="$nb/policy"} \
			"$nb/hutch" run --input p.py="$tmp/keyctl.py" -- \
			/usr/bin/python3 /work/p.py 2>"$tmp/err"
	}
	same "control: nobody's jail refuses keyctl" "Operation not permitted" "$(as_nobody)"
	plant=$(names "$nrt/hutch" /dev/shm/hutch-65534)
	attack="mkdir -p -m 700 /c/hutch; for n in $plant; do case \$n in
		filter-*) printf '$allow_all' >/c/hutch/\$n;; probe-*) printf 'ok\\n' >/c/hutch/\$n;; esac
		chmod 600 /c/hutch/\$n; done; ls /c/hutch | wc -l"
	# Whether root's jail may bind a directory of another user's at all is
	# the idmap's business (issue 19 item 2); either way nothing it could
	# plant there is loaded.
	out=$("$HUTCH" run --rw "$nrt:/c" -- /bin/sh -c "$attack" 2>"$tmp/err")
	diag "root's jail with --rw of nobody's runtime directory: ${out:-refused} entries planted"
	same "nobody's next run still refuses keyctl" "Operation not permitted" "$(as_nobody)"
fi

# --- every bind of every policy, from every environment -----------------------

# Where a cache of this caller can be: the private runtime directory the
# tests use (under /dev/shm), /dev/shm/hutch-UID and /run/user/UID/hutch.
shm_rt=$XDG_RUNTIME_DIR
"$HUTCH" run -- /bin/true 2>"$tmp/err"
env -u XDG_RUNTIME_DIR "$HUTCH" run -- /bin/true 2>"$tmp/err"
check "a private runtime directory under /dev/shm holds the cache" test -d "$shm_rt/hutch"
check "without one, /dev/shm/hutch-$uid does" test -d "/dev/shm/hutch-$uid"
# And root's host-id locks (/run/hutch: their clean marks say which ids
# may be handed out unscanned), whoever the caller.
dirs="$shm_rt/hutch /dev/shm/hutch-$uid /run/user/$uid/hutch /run/hutch"
# Each of them and every directory above it, as a bind source.
sources=$(for d in $dirs; do
	while [ "$d" != / ]; do echo "$d"; d=$(dirname "$d"); done
done | sort -u)
bound=0 tried=0
for pol in default strict network build convert "$tmp/wide.json"; do
	for e in "XDG_RUNTIME_DIR=$shm_rt" "XDG_RUNTIME_DIR=$rt" "-u XDG_RUNTIME_DIR"; do
		for s in $sources /; do
			[ -e "$s" ] || continue
			tried=$((tried + 1))
			env $e "$HUTCH" run --json --policy "$pol" --rw "$s:/c" -- \
				/bin/sh -c 'mkdir -p /c/hutch && : >/c/hutch/planted' \
				>"$tmp/doc" 2>"$tmp/err" </dev/null
			# refused: no jail ran (policy_violation, or invalid_request for /)
			if [ "$(json_get 'd["status"]' <"$tmp/doc" 2>/dev/null)" != failed ]; then
				bound=$((bound + 1))
				diag "bound: $pol $e --rw $s"
			fi
		done
	done
done
check "$tried rw binds of a cache directory or one above it, 6 policies, 3 environments: all refused" \
	test "$bound" = 0 -a "$tried" -gt 30
check "nothing was planted" test ! -e "$shm_rt/hutch/planted" -a ! -e "/dev/shm/hutch-$uid/planted" \
	-a ! -e /run/hutch/hutch/planted
same "and every environment's next run refuses keyctl" \
	"Operation not permitted Operation not permitted Operation not permitted" \
	"$(keyctl XDG_RUNTIME_DIR="$shm_rt") $(keyctl XDG_RUNTIME_DIR="$rt") $(keyctl -u XDG_RUNTIME_DIR)"

# --- what a runtime directory must be ------------------------------------------

# Each of these is not used: the cache goes to /dev/shm/hutch-UID.
mkdir -m 700 "$shm_rt/real"
ln -s "$shm_rt/real" "$shm_rt/link"
mkdir -m 755 "$shm_rt/open"
mkdir -m 700 "$tmp/rt2"
for x in "$shm_rt/link" "$shm_rt/open" "$shm_rt/real/../real" "$tmp/rt2"; do
	env XDG_RUNTIME_DIR="$x" "$HUTCH" run -- /bin/true 2>"$tmp/err"
done
check "not used: a link, a directory open to others, a path with .., one under /tmp" \
	test ! -e "$shm_rt/real/hutch" -a ! -e "$shm_rt/open/hutch" -a ! -e "$tmp/rt2/hutch"
env XDG_RUNTIME_DIR="$shm_rt/real" "$HUTCH" run -- /bin/true 2>"$tmp/err"
check "control: a private directory under /dev/shm is used" test -d "$shm_rt/real/hutch"

# Another user may make the cache's name first (/dev/shm is anyone's): a
# run does not use it, still works, and hutch probe says why.
mkdir -m 700 "$shm_rt/squat"
mkdir -m 755 "$shm_rt/squat/hutch"
if is_root; then
	chown 65534 "$shm_rt/squat/hutch" # the squatter
	chmod 700 "$shm_rt/squat/hutch"
fi
rc=0
env XDG_RUNTIME_DIR="$shm_rt/squat" "$HUTCH" run -- /bin/true 2>"$tmp/err" || rc=$?
same "a cache directory another made first: the run works and leaves nothing there" "0 " \
	"$rc $(ls -A "$shm_rt/squat/hutch")"
out=$(env XDG_RUNTIME_DIR="$shm_rt/squat" "$HUTCH" probe 2>&1)
check "... and hutch probe says it is not used, and why" \
	has "$out" '^cache \$XDG_RUNTIME_DIR/hutch: a directory, owner [0-9]+ and mode 0[0-7]+, not this user.s alone: not used'
same "control: a cache that is used is no problem" "None" \
	"$(env XDG_RUNTIME_DIR="$shm_rt/real" "$HUTCH" probe --json 2>/dev/null | "$py" -c 'import json,sys; print(json.load(sys.stdin).get("cache_problem", "absent"))')"

tap_done
