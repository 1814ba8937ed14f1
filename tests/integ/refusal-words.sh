#!/bin/sh
# refusal-words.sh: every refusal says what was given and what is accepted
# (issue 23), as root and as an unprivileged user. Each `hutch run`
# refusal (a bind, a network mode, a number out of range, the request
# version, a variable) names the flag or field and lists the accepted
# values on its one stderr line; --json carries the same words in
# error.message and the values in error.accepted (and, for a network mode
# or a bind, error.allowed_by: the shipped policies that would take it).
# Errors about the caller's files name the file, the errno in words and
# the limit. What was given is repeated as one line of valid UTF-8, a
# control byte (newline, ESC, C1) a '?'. --keep-partial keeps what a
# timeout cut short, marked partial, and a frame stays whole or absent. `hutch policy check` warns about
# grants a reviewer would flag, exit 1 with --strict. `hutch serve` tells
# an HTTP request (or TLS, or bare JSON) from its framing, and
# frame_oversized names the length and the limit.
. "$(dirname "$0")/lib.sh"

tap_tmpdir refusal-words
tap_stderr="$tmp/err"

# run_err ARGS...: `hutch run ARGS`, its stderr in $err and status in $rc.
run_err() {
	"$HUTCH" run "$@" >"$tmp/out" 2>"$tmp/err" </dev/null
	rc=$?
	err=$(cat "$tmp/err")
}
# doc EXPR ARGS...: `hutch run --json ARGS`; the Python EXPR on d printed.
doc() {
	expr=$1
	shift
	"$HUTCH" run --json "$@" >"$tmp/doc" 2>/dev/null </dev/null
	json_get "$expr" <"$tmp/doc" 2>/dev/null
}
has_line() { case $1 in *"$2"*) return 0 ;; *) diag "got: $1"; return 1 ;; esac; }

mkdir -p "$tmp/src"
chmod a+rx "$tmp/src"

# --- 1. refusals name what is accepted --------------------------------------------

run_err --ro /var/lib:/src -- /bin/true
check "--ro /var/lib under default: 125 (got $rc)" test "$rc" = 125
check "... one line" test "$(wc -l <"$tmp/err")" = 1
check "... names the flag as typed" has_line "$err" "policy_violation: --ro /var/lib:/src: not allowed by the policy"
check "... lists the prefixes with their modes" \
	has_line "$err" "accepted: /home (ro, rw, overlay), /srv (ro, rw, overlay), /tmp (ro, rw, overlay), /var/tmp (ro, rw, overlay), /mnt (ro, rw, overlay), /media (ro, rw, overlay), /opt (ro), /usr (ro)"
same "--json: error.accepted holds the prefixes and modes" \
	"[\"/home (ro, rw, overlay)\", \"/srv (ro, rw, overlay)\", \"/tmp (ro, rw, overlay)\", \"/var/tmp (ro, rw, overlay)\", \"/mnt (ro, rw, overlay)\", \"/media (ro, rw, overlay)\", \"/opt (ro)\", \"/usr (ro)\"]" \
	"$(doc 'd["error"]["accepted"]' --ro /var/lib:/src -- /bin/true)"
run_err --rw /usr:/src -- /bin/true
check "--rw /usr: the message says /usr is (ro) only" has_line "$err" "/usr (ro)"
run_err --policy strict --ro "$tmp/src:/src" -- /bin/true
check "strict --ro: no binds at all, and which shipped policies take it" \
	has_line "$err" "accepted: no request binds (the policy allows none); the shipped policies default, network, build, convert allow it (--policy NAME)"
same "--json: error.allowed_by names them" "[\"default\", \"network\", \"build\", \"convert\"]" \
	"$(doc 'd["error"]["allowed_by"]' --policy strict --ro "$tmp/src:/src" -- /bin/true)"

run_err --network host -- /bin/true
check "--network host under default: 125 (got $rc)" test "$rc" = 125
check "... the modes allowed and the policy that allows host" \
	has_line "$err" "hutch: policy_violation: --network: not allowed by the policy (given host); accepted: none, loopback; the shipped policy network allows it (--policy network)"
same "--json: accepted and allowed_by" "[[\"none\", \"loopback\"], [\"network\"]]" \
	"$(doc '[d["error"]["accepted"], d["error"]["allowed_by"]]' --network host -- /bin/true)"
same "--json: the message carries the same words" "true" \
	"$(doc '"accepted: none, loopback; the shipped policy network allows it (--policy network)" in d["error"]["message"]' --network host -- /bin/true)"
run_err --network wifi -- /bin/true
check "--network wifi: the values there are" \
	has_line "$err" "hutch: invalid_request: --network: not an allowed value (given wifi); accepted: none, loopback, host"
run_err --network 'SECRET value' -- /bin/true
check "... a value that is not a word is not repeated" not grep -q SECRET "$tmp/err"

run_err --timeout 0 -- /bin/true
check "--timeout 0: the range in the option's units" \
	has_line "$err" "hutch: invalid_request: --timeout 0: out of range; accepted: 1ms to 168h"
run_err --memory 8M -- /bin/true
check "--memory 8M: the range in sizes" has_line "$err" "--memory 8M: out of range; accepted: 16M to 1T"
run_err --processes 0 -- /bin/true
check "--processes 0: the range as counts" has_line "$err" "--processes 0: out of range; accepted: 1 to 1048576"
same "--json --timeout 0: the range with its unit" "[\"1 to 604800000 milliseconds (1ms to 168h)\"]" \
	"$(doc 'd["error"]["accepted"]' --timeout 0 -- /bin/true)"
printf '{"version": 2, "argv": ["/bin/true"]}' >"$tmp/v2.json"
"$HUTCH" run --request "$tmp/v2.json" >"$tmp/doc" 2>/dev/null
same "\"version\": 2: given and accepted in the message, [\"1\"] in accepted" \
	"[\"the request is not valid: out of range (given 2); accepted: 1\", [\"1\"], \"/version\"]" \
	"$(json_get '[d["error"]["message"], d["error"]["accepted"], d["error"]["pointer"]]' <"$tmp/doc")"
printf '{"version": 1, "argv": ["/bin/true"], "timeout": 5}' >"$tmp/typo.json"
"$HUTCH" run --request "$tmp/typo.json" >"$tmp/doc" 2>/dev/null
same "an unknown request field: the fields there are" \
	'["/timeout", true, true]' \
	"$(json_get '[d["error"]["pointer"], "keep_partial" in d["error"]["accepted"], "accepted: version, policy, argv," in d["error"]["message"]]' <"$tmp/doc")"
run_err --policy strict --env FOO=SECRET -- /bin/true
check "strict --env FOO: the variables it allows" \
	has_line "$err" "--env FOO: not allowed by the policy; accepted: LANG, TZ, PYTHONHASHSEED, SOURCE_DATE_EPOCH"
check "... never the value" not grep -q SECRET "$tmp/err"
run_err --timeout 2h -- /bin/true
check "--timeout 2h: the policy's maximum, as before" \
	has_line "$err" "--timeout 2h is above the policy's maximum of 1h"
same "--json --timeout 2h: the range up to the policy's maximum" "[\"1 to 3600000\"]" \
	"$(doc 'd["error"]["accepted"]' --timeout 2h -- /bin/true)"

# --- 2. errors about files ---------------------------------------------------------

"$HUTCH" run --request "$tmp/nonexistent.json" >"$tmp/doc" 2>/dev/null
same "--request of a missing file: the path and the errno in words" \
	"the request is not valid: $tmp/nonexistent.json: cannot open: No such file or directory (ENOENT) (--request)" \
	"$(json_get 'd["error"]["message"]' <"$tmp/doc")"
run_err --input "x=$tmp/nonexistent" -- /bin/true
check "--input of a missing file: the path and ENOENT" \
	has_line "$err" "hutch run: --input: $tmp/nonexistent: cannot open: No such file or directory (ENOENT)"
head -c 33554433 /dev/zero >"$tmp/big"
chmod a+r "$tmp/big"
run_err --input "x=$tmp/big" -- /bin/true
check "--input over 32 MiB: its size and the limit" \
	has_line "$err" "$tmp/big: 33554433 bytes, over the limit of 33554432 bytes (32M)"
rm -f "$tmp/big"
run_err --input "x=$tmp" -- /bin/true
check "--input of a directory: names it" has_line "$err" "--input: $tmp: not a regular file"
if is_root; then
	skip "--input of an unreadable file: EACCES" "root reads a mode 000 file"
else
	echo secret >"$tmp/locked"
	chmod 000 "$tmp/locked"
	run_err --input "x=$tmp/locked" -- /bin/true
	check "--input of an unreadable file: the path and EACCES" \
		has_line "$err" "--input: $tmp/locked: cannot open: Permission denied (EACCES)"
fi

# --- 3. what was given is repeated as one line of plain text ----------------------
# A value or path typed with a newline, a terminal's escape (ESC, or C1
# U+009B, which is ESC [ to a terminal) comes back with '?' for each such
# byte, on one line; a request's unknown key cut at the pointer's bound
# never splits a character, so the result stays JSON.

esc=$(printf '\033')
c1=$(printf '\302\233')
nl='
'
# lines TEXT: how many lines; bad TEXT: whether a control byte is in it
lines() { printf '%s\n' "$1" | wc -l | tr -d ' '; }
bad() { printf '%s' "$1" | LC_ALL=C grep -q "$esc\|$c1" && echo yes || echo no; }
run_err --memory "99${esc}[2JG" -- /bin/true
same "a size with an escape in it: one line, the escape a '?'" "2 no yes" \
	"$(lines "$err") $(bad "$err") $(has_line "$err" '--memory 99?[2JG: a size' >/dev/null && echo yes)"
run_err --overlay "/nonexist${nl}x${c1}2J:/s" -- /bin/true
same "a path with a newline and a C1 control: one line, each a '?'" "1 no yes" \
	"$(lines "$err") $(bad "$err") $(has_line "$err" '--overlay /nonexist?x??2J:/s' >/dev/null && echo yes)"
run_err --input "a=/nonexist${nl}${esc}]0;x" -- /bin/true
same "an --input path likewise" "2 no" "$(lines "$err") $(bad "$err")"
run_err "--bogus${nl}${esc}[1m" -- /bin/true
same "an unknown option likewise" "2 no" "$(lines "$err") $(bad "$err")"
"$py" - "$tmp" <<'PYEOF'
import json, sys
for name, key in (("cut", "a" * 251 + "\u00e9"), ("c1", "\u009b31m")):
    with open("%s/%s.json" % (sys.argv[1], name), "w", encoding="utf-8") as f:
        f.write('{"version": 1, "argv": ["/bin/true"], %s: 1}' % json.dumps(key, ensure_ascii=False))
PYEOF
"$HUTCH" run --request "$tmp/cut.json" >"$tmp/doc" 2>/dev/null
same "an unknown key cut at the pointer's bound: the result is still JSON" "unknown field" \
	"$("$py" -c 'import json,sys; print(json.loads(open(sys.argv[1],"rb").read().decode("utf-8"))["error"]["message"].split(";")[0].split(": ")[-1])' "$tmp/doc" 2>&1)"
"$HUTCH" run --request "$tmp/c1.json" >"$tmp/doc" 2>/dev/null
same "a C1 control in an unknown key is a '?' in the pointer" '"/??31m"' \
	"$(json_get 'd["error"]["pointer"]' <"$tmp/doc" | "$py" -c 'import json,sys; print(json.dumps(sys.stdin.read().strip()))')"

# A policy file's path is any bytes the caller's file system holds; the
# message names it, and --json must stay JSON.
bad_policy="$tmp/$(printf 'bad\377\033[1m.json')"
printf '{"extends": "default", "bogus": 1}' >"$bad_policy"
"$HUTCH" run --json --policy "$bad_policy" -- /bin/true >"$tmp/doc" 2>/dev/null
same "a policy path that is not UTF-8: the result is JSON, the path's bytes '?'" "yes" \
	"$("$py" -c 'import json,sys; m=json.loads(open(sys.argv[1],"rb").read().decode("utf-8"))["error"]["message"]; print("yes" if "bad??[1m.json" in m else m)' "$tmp/doc" 2>&1)"

out=$("$HUTCH" policy check "$bad_policy" 2>&1)
same "hutch policy check names that file on one line, its bytes '?'" "1 no yes" \
	"$(lines "$out") $(bad "$out") $(has_line "$out" 'bad??[1m.json: /bogus: unknown field' >/dev/null && echo yes)"
out=$("$HUTCH" probe --policy "$bad_policy" 2>&1)
same "hutch probe likewise" "1 no" "$(lines "$out") $(bad "$out")"
out=$("$HUTCH" policy check "/nonexist${nl}${esc}[1m" 2>&1)
same "a policy path that does not exist, likewise" "1 no" "$(lines "$out") $(bad "$out")"

# A count past the request's bound says the count and the bound.
many=""
i=0
while [ $i -lt 70 ]; do
	many="$many --ro $tmp/src:/m/d$i"
	i=$((i + 1))
done
# shellcheck disable=SC2086 # one word per option
same "70 binds: the count and the bound" '["too many mounts (given 70); accepted: at most 64", ["at most 64"]]' \
	"$(doc '[d["error"]["message"].split(": ", 1)[1], d["error"]["accepted"]]' $many -- /bin/true)"
"$py" -c 'import json; print(json.dumps({"version": 1, "argv": ["/bin/true"], "env": {"V%d" % i: "x" for i in range(300)}}))' >"$tmp/env.json"
"$HUTCH" run --request "$tmp/env.json" >"$tmp/doc" 2>/dev/null
same "300 variables: likewise" "too many variables (given 300); accepted: at most 256" \
	"$(json_get 'd["error"]["message"].split(": ", 1)[1]' <"$tmp/doc")"

# --- 5. --keep-partial ---------------------------------------------------------------

script='echo before; echo on-stderr >&2; sleep 10'
same "a timeout without --keep-partial: nothing kept, no partial (as before)" "[\"\", 7, false]" \
	"$(doc '[d["stdout"]["text"], d["stdout"]["bytes"], "partial" in d]' --timeout 1s -- /bin/sh -c "$script")"
same "--keep-partial: the output before the timeout, marked partial" \
	"[\"timeout\", true, \"before\\n\", \"on-stderr\\n\"]" \
	"$(doc '[d["error"]["code"], d["partial"], d["stdout"]["text"], d["stderr"]["text"]]' --keep-partial --timeout 1s -- /bin/sh -c "$script")"
printf '{"version": 1, "argv": ["/bin/sh", "-c", "echo before; sleep 10"], "limits": {"wall_ms": 1000}, "keep_partial": true}' >"$tmp/kp.json"
"$HUTCH" run --request "$tmp/kp.json" >"$tmp/doc" 2>/dev/null
same "the request's keep_partial: the same" "[true, \"before\\n\"]" \
	"$(json_get '[d["partial"], d["stdout"]["text"]]' <"$tmp/doc")"
same "--keep-partial --frame: a frame cut short is never shown, stderr is" \
	"[true, \"\", true, \"on-stderr\\n\"]" \
	"$(doc '[d["partial"], d["stdout"]["text"], d["stdout"]["truncated"], d["stderr"]["text"]]' --keep-partial --frame --timeout 1s -- /bin/sh -c 'printf "\000\000\000\005hel"; echo on-stderr >&2; sleep 10')"
same "--keep-partial --collect: the file written before the timeout comes back" \
	'[true, [{"name": "out", "base64": "eAo=", "bytes": 2}]]' \
	"$(doc '[d["partial"], d["files"]]' --keep-partial --collect out --timeout 1s -- /bin/sh -c 'echo x >out; sleep 10')"
same "... without it: discarded (as before)" '[{"name": "out", "error": "discarded"}]' \
	"$(doc 'd["files"]' --collect out --timeout 1s -- /bin/sh -c 'echo x >out; sleep 10')"
same "--keep-partial on a run that exits: no partial, the whole output" "[false, \"all\\n\"]" \
	"$(doc '["partial" in d, d["stdout"]["text"]]' --keep-partial -- /bin/sh -c 'echo all')"
run_err --keep-partial --timeout 1s -- /bin/sh -c 'sleep 10'
same "--keep-partial on a terminal: still exit 124" 124 "$rc"

# --- 6. hutch policy check warns ---------------------------------------------------

"$HUTCH" policy show default >"$tmp/default.json"
"$py" - "$tmp/default.json" "$tmp/wide.json" <<'PYEOF'
import json, sys
d = json.load(open(sys.argv[1]))
d["mounts"] = [{"prefix": "/", "modes": ["ro", "rw"]}, {"prefix": "/etc", "modes": ["rw"]}]
d["network"]["allow"] = ["none", "loopback", "host"]
d["env"]["allow_any"] = True
d["filesystem"]["writable_exec"] = True
d["requires"] = ["user_namespaces"]
json.dump(d, open(sys.argv[2], "w"))
PYEOF
"$HUTCH" policy check "$tmp/wide.json" >"$tmp/out" 2>"$tmp/warn"
rc=$?
same "policy check of a wide policy: valid, exit 0" "0 $tmp/wide.json: valid" "$rc $(cat "$tmp/out")"
for w in "/mounts/0: requests may bind / writable (rw), which is the whole host" \
	"/mounts/1: requests may bind /etc writable (rw)" \
	"/network/allow: host is allowed" "/env/allow_any: a request may set any variable" \
	"/filesystem/writable_exec: the work dir and /tmp are executable" \
	"/requires: seccomp is not required"; do
	check "... warns: $w" grep -qF "hutch policy: $tmp/wide.json: warning: $w" "$tmp/warn"
done
same "... one line per warning (6)" 6 "$(wc -l <"$tmp/warn")"
"$py" - "$tmp/default.json" "$tmp/bad.json" <<'PYEOF'
import json, sys
d = json.load(open(sys.argv[1]))
d["network"]["default"] = "host"
d["limits"]["wall_ms"]["max"] = 0
json.dump(d, open(sys.argv[2], "w"))
PYEOF
"$HUTCH" policy check "$tmp/bad.json" >/dev/null 2>"$tmp/bad"
same "policy check of an invalid policy: 125" 125 "$?"
check "... a limit out of range: what was given and the range" grep -qF \
	"hutch policy: $tmp/bad.json: /limits/wall_ms/max: out of range (given 0); accepted: 1 to 604800000" "$tmp/bad"
check "... a network default not allowed: the modes it may be" grep -qF \
	"hutch policy: $tmp/bad.json: /network/default: must be one of the allowed modes; accepted: none, loopback" "$tmp/bad"
"$HUTCH" policy check --strict "$tmp/wide.json" >/dev/null 2>&1
same "--strict with warnings: exit 1" 1 "$?"
"$HUTCH" policy check --strict strict >"$tmp/out" 2>"$tmp/err"
same "--strict on strict (nothing to flag): exit 0, no warning" "0 " "$? $(cat "$tmp/err")"
"$HUTCH" policy check --frob strict >/dev/null 2>"$tmp/err"
same "an unknown check option: 125, naming what is accepted" \
	"125 hutch policy: check: unknown option '--frob'; accepted: --strict" "$? $(head -n 1 "$tmp/err")"

# --- 7. hutch serve and streams that are not hutch framing -------------------------

"$py" - "$HUTCH" >"$tmp/serve" 2>&1 <<'PYEOF'
import json, socket, struct, subprocess, sys

def answer(data, *opts):
    ours, theirs = socket.socketpair()
    p = subprocess.Popen([sys.argv[1], "serve", *opts, "--fd", str(theirs.fileno())],
                         pass_fds=(theirs.fileno(),), stderr=subprocess.DEVNULL)
    theirs.close()
    ours.settimeout(20)
    ours.sendall(data)
    buf = b""
    while True:
        d = ours.recv(65536)
        if not d:
            break
        buf += d
    p.wait(20)
    evs = []
    while len(buf) >= 4:
        (n,) = struct.unpack(">I", buf[:4])
        evs.append(json.loads(buf[4:4 + n]))
        buf = buf[4 + n:]
    return evs

def show(tag, evs):
    print(tag, json.dumps([e.get("failed", e) for e in evs]))

show("http", answer(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n"))
show("tls", answer(b"\x16\x03\x01\x02\x00\x01"))
show("json", answer(b'{"version":1,"id":1,"ping":{}}'))
show("big", answer(struct.pack(">I", 1 << 20), "--max-frame", "1K"))

def final_event(run):
    """A server of its own for one run request: its first event that is
    not a live one."""
    req = json.dumps({"version": 1, "id": 5, "run": run}).encode()
    ours, theirs = socket.socketpair()
    p = subprocess.Popen([sys.argv[1], "serve", "--fd", str(theirs.fileno())],
                         pass_fds=(theirs.fileno(),), stderr=subprocess.DEVNULL)
    theirs.close()
    ours.settimeout(20)
    ours.sendall(struct.pack(">I", len(req)) + req)
    while True:
        (n,) = struct.unpack(">I", ours.recv(4, socket.MSG_WAITALL))
        ev = json.loads(ours.recv(n, socket.MSG_WAITALL))
        if "live" not in ev:
            break
    ours.close()
    p.wait(20)
    return ev


ev = final_event({"version": 1, "argv": ["/bin/true"], "network": "host"})
print("refusal", json.dumps(ev["failed"]))

# keep_partial through serve: the exit event's document keeps "before".
ev = final_event({"version": 1, "keep_partial": True,
                  "argv": ["/bin/sh", "-c", "echo before; sleep 10"],
                  "limits": {"wall_ms": 1000}})
print("partial", json.dumps(ev.get("exit", ev)))
PYEOF
line() { sed -n "s/^$1 //p" "$tmp/serve"; }
check "serve: an HTTP request is protocol_error saying so" \
	has_line "$(line http)" '"code": "protocol_error", "message": "the peer broke the framing protocol: not hutch framing: the stream starts as an HTTP request;'
same "... exactly one failed event" 1 "$(line http | json_get 'len(d)')"
check "serve: a TLS handshake is named" has_line "$(line tls)" "starts as a TLS handshake"
check "serve: JSON without its length prefix is named" \
	has_line "$(line json)" "starts as a JSON document without its length prefix"
check "serve: frame_oversized names the length read and the limit" \
	has_line "$(line big)" '"code": "frame_oversized", "message": "a frame exceeded its limit: a frame header announced 1048576 bytes; the limit is 1024 bytes (--max-frame)"'
same "serve: a refused network mode carries accepted, no allowed_by (the policy is pinned)" \
	"[\"policy_violation\", [\"none\", \"loopback\"], false, true]" \
	"$(line refusal | json_get '[d["code"], d["accepted"], "allowed_by" in d, "accepted: none, loopback" in d["message"]]')"
same "serve: keep_partial keeps what a timeout cut short, marked partial" \
	'["timeout", true, "before\n"]' \
	"$(line partial | json_get '[d["error"]["code"], d["partial"], d["stdout"]["text"]]')"
[ -s "$tmp/serve" ] || diag "serve driver: nothing printed"

tap_done
