#!/bin/sh
# request-guards.sh: what a request may not reach, whatever its policy says
# (issue 9's escapes through request fields and caches). A request document
# names a policy, never a file, and only among those the caller allows; the
# cache of security decisions (filters, probe verdicts) lives where no bind
# reaches and is trusted only when it is ours alone; bind sources are never
# sockets, FIFOs or pseudo-filesystems. Each attempt is real, with a control
# where one makes sense. Runs as root and as an unprivileged user.
. "$(dirname "$0")/lib.sh"

tap_tmpdir guards
tap_stderr="$tmp/err"

# run_doc JSON [ARGS...]: hutch run --request - with JSON on stdin; the
# result document in $tmp/doc.
run_doc() {
	doc=$1
	shift
	printf '%s' "$doc" | "$HUTCH" run "$@" --request - >"$tmp/doc" 2>"$tmp/err"
}
field() { json_get "$1" <"$tmp/doc" 2>/dev/null; }

# A wide-open policy file, as a jail could plant one through an rw bind:
# host network, every mount allowed read-write, Landlock off.
"$HUTCH" policy show default | "$py" -c '
import json, sys
p = json.load(sys.stdin)
p["mounts"] = [{"prefix": "/", "modes": ["ro", "rw"]}]
p["network"] = {"default": "host", "allow": ["none", "loopback", "host"]}
p["landlock"] = "off"
p["description"] = "test: as wide as a policy can be"
json.dump(p, open(sys.argv[1], "w"))' "$tmp/wide.json"
chmod 644 "$tmp/wide.json"
marker="$tmp/ran"

# --- the request's "policy" is a name, never a path -------------------------------

run_doc "{\"version\":1,\"policy\":\"$tmp/wide.json\",\"argv\":[\"/bin/true\"]}"
same "a request naming a policy file: invalid_request at /policy" \
	'["invalid_request", "/policy"]' "$(field '[d["error"]["code"], d["error"]["pointer"]]')"
run_doc "{\"version\":1,\"policy\":\"../../$tmp/wide\",\"argv\":[\"/bin/true\"]}"
same "... or a relative path" invalid_request "$(field 'd["error"]["code"]')"
run_doc '{"version":1,"policy":"default","argv":["/bin/true"]}'
same "control: a request naming a policy by name runs" exited "$(field 'd["status"]')"
same "... and the result names the policy's file" "true" \
	"$(field 'str(d["jail"]["policy_file"].endswith("/default.json")).lower()')"
# The caller's own --policy may be a file; the result says which.
"$HUTCH" run --json --policy "$tmp/wide.json" -- /bin/true >"$tmp/doc" 2>"$tmp/err"
same "--policy FILE (the caller's choice) runs" '["exited", "wide"]' \
	"$(field '[d["status"], d["jail"]["policy"]]')"
same "... and the result gives the file and a digest" "[\"$tmp/wide.json\", true]" \
	"$(field '[d["jail"]["policy_file"], d["jail"]["digest"].startswith("sha256:")]')"

# --- --allow-policies: the names a request may pick --------------------------------

run_doc '{"version":1,"policy":"network","argv":["/bin/true"]}' --allow-policies strict,default
same "--allow-policies strict,default: a request for network is a policy_violation" \
	'["policy_violation", "/policy"]' "$(field '[d["error"]["code"], d["error"]["pointer"]]')"
run_doc '{"version":1,"policy":"default","argv":["/bin/true"]}' --allow-policies strict,default
same "... a request for default runs under default" '["exited", "default"]' \
	"$(field '[d["status"], d["jail"]["policy"]]')"
run_doc '{"version":1,"argv":["/bin/true"]}' --allow-policies strict,default
same "... a request naming none gets the first, strict" '["exited", "strict"]' \
	"$(field '[d["status"], d["jail"]["policy"]]')"
run_doc '{"version":1,"policy":"network","argv":["/bin/true"]}' --policy strict
same "--policy strict: a request for network is a policy_violation" policy_violation \
	"$(field 'd["error"]["code"]')"
# Neither --policy nor --allow-policies: a document someone else wrote
# names only "default" (issue 19: {"policy":"network","network":"host"}
# ran with the host network).
run_doc '{"version":1,"policy":"network","network":"host","argv":["/bin/true"]}'
same "no --policy/--allow-policies: a request for network is a policy_violation at /policy" \
	'["policy_violation", "/policy"]' "$(field '[d["error"]["code"], d["error"]["pointer"]]')"
check "... whose message names the policy asked for and --allow-policies" \
	has "$(field 'd["error"]["message"]')" '"network".*only "default".*--allow-policies network'
run_doc '{"version":1,"policy":"default","argv":["/bin/true"]}'
same "... a request for default runs under default" '["exited", "default"]' \
	"$(field '[d["status"], d["jail"]["policy"]]')"
run_doc '{"version":1,"policy":"network","network":"host","argv":["/bin/true"]}' --allow-policies network
same "control: --allow-policies network lets it run under network" '["exited", "network"]' \
	"$(field '[d["status"], d["jail"]["policy"]]')"
run_doc '{"version":1,"policy":"network","argv":["/bin/true"]}' --policy network
same "control: --policy network lets it name network" '["exited", "network"]' \
	"$(field '[d["status"], d["jail"]["policy"]]')"
"$HUTCH" run --allow-policies 'strict,../x' --request - </dev/null >/dev/null 2>"$tmp/usage"
rc=$?
check "--allow-policies with a path: usage error naming the flag, exit 125" \
	test "$rc" = 125 -a -n "$(grep -- "--allow-policies" "$tmp/usage")"

# --- bind sources: never sockets, FIFOs, pseudo-filesystems or the cache ------------

mkdir "$tmp/data"
chmod 755 "$tmp/data"
"$py" -c 'import socket, sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])' "$tmp/data/sock"
mkfifo "$tmp/data/fifo"
# refused DESC WHY SOURCE: binding SOURCE read-only under the wide policy
# is a policy_violation at /mounts/0/source whose message has WHY.
refused() {
	"$HUTCH" run --json --policy "$tmp/wide.json" --ro "$3:/x" -- /bin/sh -c "touch '$marker'" \
		>"$tmp/doc" 2>"$tmp/err"
	same "$1" '["policy_violation", "/mounts/0/source"]' \
		"$(field '[d["error"]["code"], d["error"]["pointer"]]')"
	msg=$(field 'd["error"]["message"]')
	check "... the message says why ($2)" has "$msg" "$2"
}
refused "a socket as a bind source is refused" "socket" "$tmp/data/sock"
refused "a FIFO as a bind source is refused" "FIFO" "$tmp/data/fifo"
refused "the host's /proc as a source is refused" "pseudo-filesystem" /proc
refused "a directory inside /proc is refused" "pseudo-filesystem" /proc/self/fdinfo
refused "the host's /sys is refused" "pseudo-filesystem" /sys
refused "/dev (devtmpfs, with /dev/shm below) is refused" "pseudo-filesystem|cache" /dev
refused "/sys/fs/cgroup (cgroupfs) is refused" "pseudo-filesystem" /sys/fs/cgroup
refused "/run, which has a pseudo-filesystem or the cache below it, is refused" "pseudo-filesystem|cache" /run
refused "/dev/shm, where caches of users without a runtime dir live, is refused" "cache" /dev/shm
refused "the caller's runtime dir (XDG_RUNTIME_DIR) is refused" "cache" "$XDG_RUNTIME_DIR"
refused "... and its parent" "cache" "$(dirname "$XDG_RUNTIME_DIR")"
check "no refused bind ran the command" test ! -e "$marker"
"$HUTCH" run --json --policy "$tmp/wide.json" --rw "$tmp/data:/x" -- /bin/sh -c 'ls /x >/dev/null' \
	>"$tmp/doc" 2>"$tmp/err"
same "control: the directory holding them binds under the same policy" exited "$(field 'd["status"]')"
"$HUTCH" run --json --rw "$tmp/data:/x" -- /bin/true >"$tmp/doc" 2>"$tmp/err"
same "the default policy does not list /proc, /sys, /dev or /run as data locations" \
	"[\"policy_violation\", \"policy_violation\", \"policy_violation\", \"policy_violation\"]" \
	"$(for s in /proc/self /sys/kernel /dev/null /run; do
		"$HUTCH" run --json --ro "$s:/x" -- /bin/true | json_get 'd["error"]["code"]'
	done | "$py" -c 'import json, sys; print(json.dumps(sys.stdin.read().split()))')"

# --- the cache: only what is ours alone is loaded ------------------------------------

cache=$XDG_RUNTIME_DIR/hutch
"$HUTCH" run -- /bin/true 2>"$tmp/err"
filter=$(ls "$cache"/filter-*.bpf 2>/dev/null | head -1)
check "the cache lives in the private runtime dir" test -n "$filter"
check "... mode 0700, entries 0600" test "$(stat -c %a "$cache") $(stat -c %a "$filter")" = "700 600"
# An allow-everything program: BPF_RET|BPF_K SECCOMP_RET_ALLOW.
allow_all() { printf '\006\000\000\000\000\000\377\177' >"$1"; }
# keyctl(2) needs no privilege, and every policy's filter refuses it.
denied_keyctl() {
	"$HUTCH" run --input p.py="$tmp/keyctl.py" -- /usr/bin/python3 /work/p.py 2>"$tmp/err"
}
cat >"$tmp/keyctl.py" <<'EOF'
import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
r = libc.syscall(250, 0, -3, 1)  # keyctl(KEYCTL_GET_KEYRING_ID, session, create), x86_64
print("allowed" if r >= 0 else os.strerror(ctypes.get_errno()))
EOF
same "keyctl(2) in the jail is refused by seccomp (EPERM)" "Operation not permitted" "$(denied_keyctl)"
for f in "$cache"/filter-*.bpf; do
	allow_all "$f.new" && chmod 600 "$f.new" && mv "$f.new" "$f"
done
same "control: a program planted in the cache the way hutch writes it is loaded" \
	"allowed" "$(denied_keyctl)"
for f in "$cache"/filter-*.bpf; do
	chmod 644 "$f"
done
same "a cached filter readable by others is not loaded: mount still refused" \
	"Operation not permitted" "$(denied_keyctl)"
for f in "$cache"/filter-*.bpf; do
	rm -f "$f" && allow_all "$tmp/allow.bpf" && chmod 600 "$tmp/allow.bpf" && ln "$tmp/allow.bpf" "$f"
done
same "... nor one with a second hard link" "Operation not permitted" "$(denied_keyctl)"
for f in "$cache"/filter-*.bpf; do
	rm -f "$f" && ln -s "$tmp/allow.bpf" "$f"
done
same "... nor a symbolic link" "Operation not permitted" "$(denied_keyctl)"
rm -f "$cache"/filter-*.bpf
# A cache directory someone else could write is not used at all.
chmod 755 "$cache"
"$HUTCH" run -- /bin/true 2>"$tmp/err"
check "a cache dir with group or other access is left alone" \
	test -z "$(ls "$cache" | grep filter- || true)"
chmod 700 "$cache"
# From inside: every bind the wide policy allows, aimed at the cache.
mkdir -m 700 "/dev/shm/hutch-$(id -u)" 2>/dev/null || true
for target in "$cache" "$XDG_RUNTIME_DIR" /dev/shm "/dev/shm/hutch-$(id -u)"; do
	"$HUTCH" run --json --policy "$tmp/wide.json" --rw "$target:/c" -- /bin/sh -c \
		"printf x > /c/planted" >"$tmp/doc" 2>"$tmp/err"
	same "a jail under the widest policy cannot bind $target to write there" \
		policy_violation "$(field 'd["error"]["code"]')"
done
check "nothing was planted" test ! -e "$cache/planted" -a ! -e "$XDG_RUNTIME_DIR/planted"

# Without a private runtime dir the cache goes to /dev/shm/hutch-UID, and a
# squatted directory there (not ours, or open to others) is not used.
if is_root; then
	d=$(mktemp -d /tmp/hutch-squat.XXXXXX)
	chmod 777 "$d"
	env -u XDG_RUNTIME_DIR XDG_RUNTIME_DIR="$d" "$HUTCH" run -- /bin/true 2>"$tmp/err"
	check "an XDG_RUNTIME_DIR open to others is not used" test ! -e "$d/hutch"
	rm -rf "$d"
fi

tap_done
