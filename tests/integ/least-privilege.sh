#!/bin/sh
# least-privilege.sh: run as root, the frontend keeps only
# cap_dac_read_search and cap_sys_ptrace once its helper (hutch run) or forkserver (hutch
# serve) runs: /proc/PID/status of the running process shows it in the
# effective, permitted and bounding sets, nothing inheritable or ambient
# (issue 19 item 6). What still works with it (collecting a 0600 file the
# jail's user wrote) and what cannot come back (a server whose forkserver
# is gone cannot start a privileged helper). As an unprivileged caller
# there is nothing to drop: the sets stay empty. Runs as root and as nobody.
. "$(dirname "$0")/lib.sh"

tap_tmpdir least-privilege
tap_stderr="$tmp/err"
KEPT=0000000000080004	# 1 << CAP_DAC_READ_SEARCH | 1 << CAP_SYS_PTRACE
NONE=0000000000000000

# caps PID: "Inh Prm Eff Bnd Amb" of the process.
caps() {
	awk '/^CapInh/ {i=$2} /^CapPrm/ {p=$2} /^CapEff/ {e=$2} /^CapBnd/ {b=$2} /^CapAmb/ {a=$2}
		END {print i, p, e, b, a}' "/proc/$1/status" 2>/dev/null
}
mine=$(caps $$)

# --- hutch run ---------------------------------------------------------------------

# The run's jail says when it is up; then the frontend's sets are read.
"$HUTCH" run -- /bin/sh -c 'echo up; exec /bin/sleep 20' >"$tmp/out" 2>"$tmp/err" </dev/null &
hpid=$!
i=0
while [ "$(cat "$tmp/out" 2>/dev/null)" != up ] && [ $i -lt 100 ]; do
	sleep 0.1
	i=$((i + 1))
done
got=$(caps "$hpid")
kill -TERM "$hpid" 2>/dev/null
wait "$hpid" 2>/dev/null
if is_root; then
	check "control: the test itself, as root, has more than that ($mine)" \
		test "$(echo "$mine" | cut -d' ' -f3)" != "$KEPT"
	same "a running hutch run as root: Inh Prm Eff Bnd Amb hold cap_dac_read_search and cap_sys_ptrace only" \
		"$NONE $KEPT $KEPT $KEPT $NONE" "$got"
else
	same "a running hutch run, unprivileged: no capability in any set but the bounding" \
		"$NONE $NONE $NONE $NONE" "$(echo "$got" | cut -d' ' -f1,2,3,5)"
fi

# What the kept capability is for: a 0600 file of the jail's user.
mkdir "$tmp/out-dir"
(cd "$tmp" && "$HUTCH" run --json --collect secret.txt -- /bin/sh -c \
	'umask 077; echo kept >secret.txt' >"$tmp/doc" 2>"$tmp/err")
same "a 0600 file the jail wrote is collected" '[{"name": "secret.txt", "base64": "a2VwdAo=", "bytes": 5}]' \
	"$(json_get 'd["files"]' <"$tmp/doc")"

# --- hutch serve -------------------------------------------------------------------

client_dir=$(tap_client_dir)
if [ -z "$client_dir" ]; then
	not_ok "hutch_client.py is there (tap_client_dir), for hutch serve"
else
	cat >"$tmp/serve.py" <<'PYEOF'
import json, os, signal, subprocess, sys, time
import hutch_client
HUTCH = os.environ["HUTCH"]

def caps(pid):
    f = {}
    for line in open("/proc/%d/status" % pid):
        k, _, v = line.partition(":")
        f[k] = v.strip()
    return " ".join(f[k] for k in ("CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb"))

def code(doc):
    return doc["status"] if doc["status"] != "failed" else doc["error"]["code"]

argv = [HUTCH, "serve"] + sys.argv[1:]
with hutch_client.HutchClient.spawn(argv) as c:
    c.ping()
    first = code(c.run({"version": 1, "argv": ["/bin/true"]}))
    print("caps", caps(c.proc.pid))
    print("first", first)
    # The forkserver: serve's child running hutch-exec --forkserver.
    kids = subprocess.run(["ps", "-o", "pid=,args=", "--ppid", str(c.proc.pid)],
                          capture_output=True, text=True).stdout.split("\n")
    fs = [int(k.split()[0]) for k in kids if "--forkserver" in k]
    if fs:
        os.kill(fs[0], signal.SIGKILL)
        time.sleep(0.3)
        try:
            print("after", code(c.run({"version": 1, "argv": ["/bin/true"]})))
        except hutch_client.ProtocolError as e:
            print("after", e.args[0].get("code"))
    else:
        print("after none")
PYEOF
	PYTHONPATH=$client_dir "$py" "$tmp/serve.py" >"$tmp/serve.out" 2>"$tmp/err" </dev/null
	got=$(sed -n 's/^caps //p' "$tmp/serve.out")
	same "control: a run through hutch serve exits" exited "$(sed -n 's/^first //p' "$tmp/serve.out")"
	if is_root; then
		same "a running hutch serve as root: Inh Prm Eff Bnd Amb hold cap_dac_read_search and cap_sys_ptrace only" \
			"$NONE $KEPT $KEPT $KEPT $NONE" "$got"
		after=$(sed -n 's/^after //p' "$tmp/serve.out")
		check "its forkserver killed, a later run is refused, not run by a helper it cannot empower ($after)" \
			test "$after" = sandbox_unavailable -o "$after" = sandbox_probe_failed
		PYTHONPATH=$client_dir "$py" "$tmp/serve.py" --no-forkserver >"$tmp/serve.out" 2>"$tmp/err" </dev/null
		same "hutch serve --no-forkserver starts a helper per run and keeps its capabilities" \
			"$(echo "$mine" | cut -d' ' -f2,3)" "$(sed -n 's/^caps //p' "$tmp/serve.out" | cut -d' ' -f2,3)"
	else
		same "a running hutch serve, unprivileged: no capability in any set but the bounding" \
			"$NONE $NONE $NONE $NONE" "$(echo "$got" | cut -d' ' -f1,2,3,5)"
	fi
fi

# --- hutch probe says which remain and why -------------------------------------------

"$HUTCH" probe --json >"$tmp/probe" 2>"$tmp/err"
same "hutch probe --json: kept_capabilities names cap_dac_read_search and cap_sys_ptrace, with reasons" \
	'[["cap_dac_read_search", true], ["cap_sys_ptrace", true]]' \
	"$(json_get '[[k["name"], ("--collect" if k["name"] == "cap_dac_read_search" else "seccomp") in k["why"]] for k in d["kept_capabilities"]]' <"$tmp/probe")"
"$HUTCH" probe >"$tmp/probe.txt" 2>"$tmp/err"
check "hutch probe: the same in words" has "$(cat "$tmp/probe.txt")" '^  cap_dac_read_search: --collect'

tap_done
