#!/bin/sh
# run-inodes.sh: /tmp and the working directory hold at most the policy's
# inode count (tmp_inodes, work_inodes: nr_inodes on their tmpfs), crossed
# for real: files, directories and symlinks are created until the kernel
# says ENOSPC, with bytes left over to show that the count stopped it. The
# helper's own root tmpfs is bounded too. Runs as root and unprivileged.
. "$(dirname "$0")/lib.sh"

: "${HUTCH_PROGS:?HUTCH_PROGS must name the directory of spec-send}"
tap_tmpdir run-inodes

# The counts are policy-only (a request cannot lower them), so the test
# brings its own policy: default.json with 500 and 300 inodes, small enough
# to exhaust in a moment and to tell the two mounts apart.
pol=
for p in "$here/../policy/inodes.json" ${HUTCH_SRCDIR:+"$HUTCH_SRCDIR/tests/policy/inodes.json"}; do
	[ -f "$p" ] && pol=$p && break
done
if [ -z "$pol" ]; then
	not_ok "tests/policy/inodes.json is next to the tests or under HUTCH_SRCDIR"
	tap_done
	exit
fi
cp "$pol" "$tmp/inodes.json"
chmod 644 "$tmp/inodes.json"
pol=$tmp/inodes.json

# fill DIR KIND: create one data file, then KIND (file, dir, symlink) in
# DIR until that fails; prints "COUNT ERRNO-NAME", "STATVFS-FILES FREE",
# then whether 1 MiB still goes into the data file ("bytes ok" or errno).
fill='import errno, os, sys
d, kind = sys.argv[1], sys.argv[2]
n, err = 0, "none"
data = open(os.path.join(d, "data"), "wb")
try:
    while n < 100000:
        p = os.path.join(d, "i%d" % n)
        if kind == "file":
            os.close(os.open(p, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600))
        elif kind == "dir":
            os.mkdir(p)
        else:
            os.symlink("target", p)
        n += 1
except OSError as e:
    err = errno.errorcode.get(e.errno, str(e.errno))
print(n, err)
st = os.statvfs(d)
print(st.f_files, st.f_ffree)
try:
    data.write(b"x" * (1 << 20))
    data.close()
    print("bytes ok")
except OSError as e:
    print("bytes", errno.errorcode.get(e.errno, str(e.errno)))'

# run_fill DIR KIND: fill in a jail under the test policy, output in $tmp/out.
run_fill() {
	"$HUTCH" run --policy "$pol" -- /usr/bin/python3 -c "$fill" "$1" "$2" \
		>"$tmp/out" 2>"$tmp/err" </dev/null
}

# near COUNT N: N were made out of COUNT (the root and the data file take
# two; a few more are allowed for the kernel's own accounting).
near() { [ "$2" -le $(($1 - 2)) ] && [ "$2" -ge $(($1 - 10)) ]; }

# --- what the policy says reaches the mounts ----------------------------------

"$HUTCH" run --policy "$pol" --dry-run -- true >"$tmp/plan" 2>"$tmp/err"
check "--dry-run shows tmp_inodes 500 and work_inodes 300" \
	test "$(json_get '[d["limits"]["tmp_inodes"], d["limits"]["work_inodes"]]' <"$tmp/plan")" = "[500, 300]"
"$HUTCH" policy show "$pol" >"$tmp/show" 2>"$tmp/err"
check "policy show prints both counts" \
	test "$(json_get '[d["limits"]["tmp_inodes"], d["limits"]["work_inodes"]]' <"$tmp/show")" = \
	'[{"default": 500, "max": 500}, {"default": 300, "max": 300}]'
mi=$("$HUTCH" run --policy "$pol" -- /bin/cat /proc/self/mountinfo 2>"$tmp/err" </dev/null)
check "/proc/self/mountinfo in the jail: /tmp has nr_inodes=500" \
	has "$mi" '^[0-9]+ [0-9]+ [0-9:]+ / /tmp .* - tmpfs [^ ]+ [^ ]*nr_inodes=500(,|$)'
check "... and /work has nr_inodes=300" \
	has "$mi" '^[0-9]+ [0-9]+ [0-9:]+ / /work .* - tmpfs [^ ]+ [^ ]*nr_inodes=300(,|$)'

# --- the real attempt -----------------------------------------------------------

for spec in "/tmp file 500" "/work file 300" "/tmp dir 500" "/work symlink 300"; do
	set -- $spec
	run_fill "$1" "$2"
	count=$3
	made=$(sed -n 1p "$tmp/out" | cut -d' ' -f1)
	err=$(sed -n 1p "$tmp/out" | cut -d' ' -f2)
	check "${2}s in $1 stop with ENOSPC after about $3 (${made:-none} made, ${err:-no error})" \
		eval 'near "$count" "${made:-0}" && [ "$err" = ENOSPC ]'
	[ "$err" = ENOSPC ] || diag "out: $(head -c 300 "$tmp/out")" "err: $(head -c 300 "$tmp/err")"
	check "... statvfs of $1 says $3 inodes, none free ($(sed -n 2p "$tmp/out"))" \
		test "$(sed -n 2p "$tmp/out")" = "$3 0"
	check "... while 1 MiB of data still fits: the count stopped it, not the bytes" \
		test "$(sed -n 3p "$tmp/out")" = "bytes ok"
done

# --- controls: the count is the policy's -----------------------------------------

# Under the default policy 600 files fit in /tmp (500 stopped them above),
# and the jail's nr_inodes is what the plan says.
"$HUTCH" run -- /usr/bin/python3 -c "$fill" /tmp file >"$tmp/out" 2>"$tmp/err" </dev/null
n=$(sed -n 1p "$tmp/out" | cut -d' ' -f1)
want=$("$HUTCH" run --dry-run -- true 2>/dev/null | json_get 'd["limits"]["tmp_inodes"]')
check "default policy: $n files fit in /tmp, its tmp_inodes ($want) less two" \
	test "$n" -gt 600 -a "$n" = "$((want - 2))"

# A policy file written before the counts existed gets the built-in ones.
"$py" -c 'import json, sys
d = json.load(open(sys.argv[1]))
del d["limits"]["tmp_inodes"], d["limits"]["work_inodes"]
json.dump(d, open(sys.argv[2], "w"))' "$pol" "$tmp/old.json"
check "a policy without tmp_inodes and work_inodes is valid" \
	has "$("$HUTCH" policy check "$tmp/old.json" 2>&1)" ': valid$'
check "... and shows the built-in counts 32768 and 65536" \
	test "$("$HUTCH" policy show "$tmp/old.json" 2>/dev/null |
		json_get '[d["limits"]["tmp_inodes"]["max"], d["limits"]["work_inodes"]["max"]]')" = "[32768, 65536]"
mi=$("$HUTCH" run --policy "$tmp/old.json" -- /bin/cat /proc/self/mountinfo 2>"$tmp/err" </dev/null)
check "... which its jail's /tmp and /work carry (nr_inodes=32768, 65536)" \
	eval 'has "$mi" " /tmp .*nr_inodes=32768(,|\$)" && has "$mi" " /work .*nr_inodes=65536(,|\$)"'

# 0 would mean unlimited to the kernel: refused, never passed on.
"$py" -c 'import json, sys
d = json.load(open(sys.argv[1]))
d["limits"]["tmp_inodes"] = {"default": 0, "max": 0}
json.dump(d, open(sys.argv[2], "w"))' "$pol" "$tmp/zero.json"
out=$("$HUTCH" policy check "$tmp/zero.json" 2>&1)
check "tmp_inodes 0: policy check refuses it at /limits/tmp_inodes" \
	has "$out" '/limits/tmp_inodes/(default|max)'
"$HUTCH" run --policy "$tmp/zero.json" -- true >/dev/null 2>&1 </dev/null
check "... and hutch run refuses to run under it (125)" test $? = 125

# --- the helper fails closed on counts the kernel refuses ------------------------

SEND=$HUTCH_PROGS/spec-send
got=$("$SEND" --tmpfs /big 1048576 --inodes 18446744073709551615 -- /bin/true 2>"$tmp/err" </dev/null | tail -n 1)
check "a tmpfs count the kernel refuses: setup_failed at mount, EINVAL ($got)" \
	test "$got" = "exit=71 signal=0 record=setup_failed stage=mount item=0 errno=EINVAL"

# The root tmpfs holds what the spec puts there: 2047 directories per
# 4095-byte target; 9 of them are more than its 16384 inodes, 7 are not.
deep=$("$py" -c 'print("/a" * 2047)')
deep_dirs() {
	for c in b c d e f g h i j; do
		[ "$1" = 0 ] && break
		printf ' --dir /%s%s' "$c" "${deep#/a}"
		set -- $(($1 - 1))
	done
}
got=$("$SEND" --default-layout $(deep_dirs 7) -- /bin/true 2>"$tmp/err" </dev/null | tail -n 1)
check "7 deep targets fit in the root tmpfs ($got)" test "$got" = "exit=0 signal=0 record=none"
got=$("$SEND" --default-layout $(deep_dirs 9) -- /bin/true 2>"$tmp/err" </dev/null | tail -n 1)
check "9 deep targets exhaust its inodes: mount_target ENOSPC, not a larger root ($got)" \
	has "$got" '^exit=71 signal=0 record=setup_failed stage=mount_target item=[0-9]+ errno=ENOSPC$'

tap_done
