#!/bin/sh
# jail-props.sh: what the jail looks like from inside, checked by making the
# real attempt: identity and id maps, the uid outside, mounts and their
# flags, /proc, /dev, hostname, network, capabilities, no_new_privs,
# seccomp, Landlock, descriptors, environment, rlimits, /etc, tmpfs sizes,
# and that nothing started in the jail outlives it. Runs as root and as an
# unprivileged user; writes only in its own mktemp directory.
. "$(dirname "$0")/lib.sh"

tap_tmpdir jail-props

if is_root; then jail_uid=65534 jail_gid=65534; else jail_uid=$(id -u) jail_gid=$(id -g); fi

# outside_ok ID: the id a jail holds on the host. An unprivileged caller's
# jail is the caller; a root caller's has host ids of its own, never root's
# nor nobody's, from hutch's range (hutch(1), "Host ids").
outside_ok() {
	if is_root; then
		[ -n "$1" ] && [ "$1" != 0 ] && [ "$1" != 65534 ] && [ "$1" -ge 1 ] 2>/dev/null
	else
		[ "$1" = "$2" ]
	fi
}

# jsh SCRIPT: run a shell script in a default jail, stdout captured.
jsh() { "$HUTCH" run -- /bin/sh -c "$1" 2>"$tmp/err"; }

# find_pid MARKER PREFIX: the pid of a process whose command line starts
# with PREFIX and contains MARKER, polling up to 10 s.
find_pid() {
	i=0
	while [ $i -lt 100 ]; do
		for c in /proc/[0-9]*/cmdline; do
			line=$(tr '\0' ' ' 2>/dev/null <"$c") || continue
			case $line in
			"$2"*"$1"*)
				p=${c%/cmdline}
				echo "${p#/proc/}"
				return 0
				;;
			esac
		done
		sleep 0.1
		i=$((i + 1))
	done
	return 1
}

# --- identity -----------------------------------------------------------

out=$(jsh 'cat /proc/self/uid_map')
set -- $out
check "uid_map is exactly one line '$jail_uid OUTSIDE 1' ($*)" \
	sh -c '[ "$1" = 1 ] && [ "$2 $4" = "$3 1" ]' sh "$(printf '%s\n' "$out" | wc -l)" "$1" "$jail_uid" "$3"
check "... OUTSIDE is the caller's uid, or a root caller's jail's own" outside_ok "$2" "$jail_uid"
out=$(jsh 'cat /proc/self/gid_map')
set -- $out
check "gid_map is exactly one line '$jail_gid OUTSIDE 1' ($*)" \
	sh -c '[ "$1" = 1 ] && [ "$2 $4" = "$3 1" ]' sh "$(printf '%s\n' "$out" | wc -l)" "$1" "$jail_gid" "$3"
check "... OUTSIDE is the caller's gid, or a root caller's jail's own" outside_ok "$2" "$jail_gid"
check "id -u inside is $jail_uid" test "$(jsh 'id -u')" = "$jail_uid"
check "id -g inside is $jail_gid" test "$(jsh 'id -g')" = "$jail_gid"
check "no supplementary groups but the jail's" test "$(jsh 'id -G')" = "$jail_gid"

# The target seen from outside: its real, effective, saved and fs uids.
marker="hutch-jail-props-uid-$$"
"$HUTCH" run -- /bin/sh -c 'sleep 30; :' "$marker" >/dev/null 2>&1 </dev/null &
hpid=$!
tpid=$(find_pid "$marker" "/bin/sh -c sleep 30")
if [ -n "$tpid" ]; then
	uids=$(awk '/^Uid:/ { print $2, $3, $4, $5 }' "/proc/$tpid/status")
	set -- $uids
	check "the target's uids outside are one id, the caller's or its own, never 0 ($uids)" \
		sh -c '[ "$1 $1 $1" = "$2 $3 $4" ]' sh "$@"
	check "... $1" outside_ok "$1" "$jail_uid"
	gids=$(awk '/^Gid:/ { print $2, $3, $4, $5 }' "/proc/$tpid/status")
	set -- $gids
	check "the target's gids outside are one id, the caller's or its own ($gids)" \
		sh -c '[ "$1 $1 $1" = "$2 $3 $4" ]' sh "$@"
	check "... $1" outside_ok "$1" "$jail_gid"
	check "the target holds no capability outside" \
		test "$(awk '/^CapEff:/ { print $2 }' "/proc/$tpid/status")" = 0000000000000000
else
	not_ok "the target's uids outside are one id, never 0 (target not found)"
	not_ok "the target's gids outside are one id (target not found)"
	not_ok "the target holds no capability outside (target not found)"
fi
kill -TERM "$hpid" 2>/dev/null
wait "$hpid"
check "the probe target is gone" no_process "$marker"

# Every namespace is the jail's own: its ids differ from ours.
jsh 'for n in user mnt pid net ipc uts cgroup; do echo "$n $(readlink /proc/self/ns/$n)"; done' >"$tmp/ns"
for n in user mnt pid net ipc uts cgroup; do
	inside=$(awk -v n="$n" '$1 == n { print $2 }' "$tmp/ns")
	outside=$(readlink "/proc/self/ns/$n")
	check "the $n namespace is new ($inside vs $outside)" test -n "$inside" -a "$inside" != "$outside"
done
"$HUTCH" run --json -- /bin/sh -c 'cat /proc/self/uid_map' >"$tmp/doc"
check "--json: the document lists the namespaces user mount pid ipc uts cgroup net" \
	test "$(json_get 'sorted(d["jail"]["namespaces"])' <"$tmp/doc")" = '["cgroup", "ipc", "mount", "net", "pid", "user", "uts"]'
check "--json: stdout.text carries the jail's uid_map" \
	test "$(json_get '" ".join(d["stdout"]["text"].split()[0::2])' <"$tmp/doc")" = "$jail_uid 1"

# --- filesystem ---------------------------------------------------------

jsh 'cat /proc/self/mountinfo' >"$tmp/mountinfo"
# opts MOUNTPOINT: the per-mount options and the fs type of the last mount
# there, as "OPTIONS TYPE".
opts() {
	awk -v mp="$1" '$5 == mp { o = $6; for (i = 7; i <= NF; i++) if ($i == "-") { t = $(i + 1); break } } END { print o, t }' "$tmp/mountinfo"
}
# has_flags MOUNTPOINT FLAG...: every FLAG is among the mount's options.
has_flags() {
	set -- "$@"
	mp=$1
	shift
	o=$(opts "$mp")
	o=${o% *}
	for f in "$@"; do
		case ",$o," in
		*",$f,"*) ;;
		*) diag "$mp: '$f' missing in '$o'"; return 1 ;;
		esac
	done
}
lacks_flag() {
	o=$(opts "$1")
	o=${o% *}
	case ",$o," in *",$2,"*) diag "$1: has '$2' in '$o'"; return 1 ;; esac
	return 0
}
check "/ is read-only, nosuid, nodev" has_flags / ro nosuid nodev
check "/usr is read-only, nosuid, nodev" has_flags /usr ro nosuid nodev
check "/usr stays executable" lacks_flag /usr noexec
check "/tmp is rw, nosuid, nodev, noexec" has_flags /tmp rw nosuid nodev noexec
check "/work is rw, nosuid, nodev, noexec" has_flags /work rw nosuid nodev noexec
check "/tmp is a tmpfs" test "$(opts /tmp | cut -d' ' -f2)" = tmpfs
check "/work is a tmpfs" test "$(opts /work | cut -d' ' -f2)" = tmpfs
check "/proc is a proc filesystem" test "$(opts /proc | cut -d' ' -f2)" = proc
check "/proc is nosuid, nodev, noexec" has_flags /proc nosuid nodev noexec
# /dev: a read-only tmpfs of its own, or a directory of the read-only root.
dev_ro() { [ -z "$(opts /dev | cut -d' ' -f1)" ] || has_flags /dev ro nosuid nodev noexec; }
check "/dev is not a writable mount" dev_ro
check "every mount is nosuid" test "$(awk '$6 !~ /(^|,)nosuid(,|$)/' "$tmp/mountinfo" | wc -l)" = 0
check "nothing but /usr is mounted executable" \
	test "$(awk '$6 !~ /(^|,)noexec(,|$)/ { print $5 }' "$tmp/mountinfo" | grep -v '^/usr$' | wc -l)" = 0
check "only the /dev nodes and the jail's devpts are mounted without nodev" \
	test "$(awk '$6 !~ /(^|,)nodev(,|$)/ { print $5 }' "$tmp/mountinfo" | grep -v -E '^/dev/(null|zero|full|random|urandom|pts)$' | wc -l)" = 0
check "/dev/pts is a devpts of the jail's own (ptmxmode=666, max=64, noexec)" \
	test "$(opts /dev/pts | cut -d' ' -f2)" = devpts -a \
	-n "$(grep ' /dev/pts .*noexec.* - devpts .*ptmxmode=666,max=64' "$tmp/mountinfo")"
check "no host path is mounted (/root, /home, /var, /srv, /opt, /boot)" \
	test "$(awk '$5 ~ /^\/(root|home|var|srv|opt|boot|mnt|run|sys)(\/|$)/' "$tmp/mountinfo" | wc -l)" = 0
out=$(jsh 'for p in /root /home /var /srv /opt /boot /mnt /run /sys /etc/shadow /etc/hostname; do [ -e "$p" ] && echo "$p"; done; :')
check "host paths are absent (/root /home /var /srv /opt /boot /mnt /run /sys /etc/shadow)" test -z "$out"
[ -n "$out" ] && diag "present: $out"
check "the host's /etc/passwd is not the jail's (no daemon: entry)" \
	test "$(jsh 'grep -c "^daemon:" /etc/passwd')" = 0
check "/etc/passwd and /etc/group list root (getpwuid(0), getgrgid(0))" \
	test "$(jsh "$py -c 'import pwd, grp; print(pwd.getpwuid(0).pw_name, grp.getgrgid(0).gr_name)'")" = "root root"
check "/etc/group names the jail user's group" has "$(jsh 'cat /etc/group')" "^[a-z]+:x:$jail_gid:"
check "nsswitch.conf in the jail says files for passwd and group" \
	test "$(jsh 'grep -E "^(passwd|group):" /etc/nsswitch.conf | tr -s " " | tr "\n" ";"')" = "passwd: files;group: files;"
check "/etc/passwd names the jail user" has "$(jsh 'cat /etc/passwd')" "^[a-z]+:x:$jail_uid:$jail_gid:"
check "id -un resolves through /etc/passwd" test -n "$(jsh 'id -un')"
check "touch /etc/x fails" test "$(jsh 'touch /etc/x 2>/dev/null && echo made || echo refused')" = refused
check "touch /usr/x fails" test "$(jsh 'touch /usr/x 2>/dev/null && echo made || echo refused')" = refused
check "creating a file in / fails" test "$(jsh 'touch /x 2>/dev/null && echo made || echo refused')" = refused
check "/work is writable" test "$(jsh 'echo data > /work/f && cat /work/f')" = data
check "/tmp is writable" test "$(jsh 'echo data > /tmp/f && cat /tmp/f')" = data
check "a file written to /tmp cannot be executed (noexec)" \
	test "$(jsh 'cp /bin/true /tmp/t && chmod +x /tmp/t && { /tmp/t 2>/dev/null && echo ran || echo refused; }')" = refused
out=$(jsh 'dd if=/dev/zero of=/tmp/big bs=1M count=300 2>&1; echo "rc=$?"; rm -f /tmp/big')
check "/tmp is size-limited: 300 MiB into the 256 MiB default fails" has "$out" "rc=[1-9]"
check "... with ENOSPC" has "$out" "No space left on device"

# --- /proc and /dev -----------------------------------------------------

check "the shell is a small pid in the jail (pid 2)" test "$(jsh 'echo $$')" = 2
out=$(jsh 'cd /proc && for p in [0-9]*; do echo $p; done')
n=$(printf '%s\n' "$out" | wc -l)
check "/proc shows only the jail's processes ($n pids)" test "$n" -le 4
# (with --ahead, hutch-exec(8) CLONE AHEAD, the helper's own arguments)
check "pid 1 in the jail is the helper, not the target" \
	has "$(jsh 'tr "\0" " " </proc/1/cmdline; echo')" '^hutch-exec ((--ahead( [0-9]+)?) )?$'

check "the target is pid 2" test "$(jsh 'tr "\0" " " </proc/2/cmdline | cut -d" " -f1; echo')" = /bin/sh
out=$(jsh 'ls -A /dev | sort | tr "\n" " "')
check "/dev holds exactly fd full null ptmx pts random shm stderr stdin stdout urandom zero" \
	test "$out" = "fd full null ptmx pts random shm stderr stdin stdout urandom zero "
[ "$out" = "fd full null ptmx pts random shm stderr stdin stdout urandom zero " ] || diag "/dev: $out"
check "no tty, console, mem or block device" \
	test "$(jsh 'for d in /dev/tty /dev/console /dev/mem /dev/kmem /dev/port /dev/vda /dev/sda /dev/pts/0 /dev/pts/1; do [ -e $d ] && echo $d; done; :')" = ""
check "no block device anywhere under /dev" test "$(jsh 'find /dev -type b | wc -l')" = 0
check "writing /dev/null works" test "$(jsh 'echo x > /dev/null && echo ok')" = ok
check "reading /dev/zero works" test "$(jsh 'head -c 4 /dev/zero | od -An -tx1 | tr -d " "')" = 00000000
check "/dev/full refuses writes with ENOSPC" \
	has "$("$HUTCH" run -- /bin/sh -c 'echo x | dd of=/dev/full 2>&1')" "No space left on device"
check "/dev is read-only (mknod, touch refused)" \
	test "$(jsh 'touch /dev/x 2>/dev/null && echo made || echo refused')" = refused
check "/dev/shm is writable" test "$(jsh 'echo s > /dev/shm/x && cat /dev/shm/x')" = s

# --- uts, network -------------------------------------------------------

check "hostname is hutch" test "$(jsh 'uname -n')" = hutch
check "the network namespace has only lo" \
	test "$(jsh 'tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d " "')" = lo
cat >"$tmp/lo.py" <<'EOF'
import fcntl, socket, struct, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
req = fcntl.ioctl(s, 0x8913, struct.pack("16sH14x", b"lo", 0))  # SIOCGIFFLAGS
print("up" if struct.unpack("16sH14x", req)[1] & 1 else "down")
a = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
a.bind(("127.0.0.1", 0))
try:
    s.sendto(b"ping", a.getsockname())
    a.settimeout(5)
    print(a.recv(16).decode())
except OSError as e:
    print("errno", e.errno)
EOF
chmod 644 "$tmp/lo.py"
out=$("$HUTCH" run --network none --ro "$tmp/lo.py:/lo.py" -- "$py" /lo.py 2>&1)
check "--network none: lo is DOWN" test "$(printf '%s\n' "$out" | head -1)" = down
check "--network none: a datagram to 127.0.0.1 fails (ENETUNREACH)" \
	test "$(printf '%s\n' "$out" | sed -n 2p)" = "errno 101"
check "strict policy: network none by default" \
	test "$("$HUTCH" run --json --policy strict -- /bin/true | json_get 'd["jail"]["network"]')" = none
out=$("$HUTCH" run --ro "$tmp/lo.py:/lo.py" -- "$py" /lo.py 2>&1)
check "default policy (network loopback by default): lo is UP, a datagram comes back" \
	test "$(printf '%s\n' "$out" | tr '\n' ' ')" = "up ping "
out=$("$HUTCH" run --policy network --network loopback --ro "$tmp/lo.py:/lo.py" -- "$py" /lo.py 2>&1)
check "--network loopback: lo is UP" test "$(printf '%s\n' "$out" | head -1)" = up
check "--network loopback: a datagram to 127.0.0.1 comes back" \
	test "$(printf '%s\n' "$out" | sed -n 2p)" = ping
check "--network loopback: still only lo" \
	test "$("$HUTCH" run --policy network --network loopback -- /bin/sh -c 'tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d " "')" = lo
out=$("$HUTCH" run -- "$py" -c 'import socket
s = socket.socket()
try:
    s.connect(("1.1.1.1", 53)); print("connected")
except OSError as e:
    print("errno", e.errno)' 2>&1)
check "default policy: an outside address cannot be reached ($out)" has "$out" "^errno [0-9]+$"

# --- privileges ---------------------------------------------------------

jsh 'cat /proc/self/status' >"$tmp/status"
for f in CapInh CapPrm CapEff CapBnd CapAmb; do
	check "$f is zero" test "$(awk -v k="$f:" '$1 == k { print $2 }' "$tmp/status")" = 0000000000000000
done
check "NoNewPrivs is 1" test "$(awk '$1 == "NoNewPrivs:" { print $2 }' "$tmp/status")" = 1
check "Seccomp is 2 (filter)" test "$(awk '$1 == "Seccomp:" { print $2 }' "$tmp/status")" = 2
check "the target is in its own session (no controlling terminal)" \
	test "$(jsh 'cut -d" " -f7 /proc/self/stat')" = 0

# Landlock: /proc/self/comm is writable by its owner, refused only by
# Landlock's rules (nothing grants write on /proc).
if echo landlock-probe >/proc/self/comm 2>/dev/null; then
	outside=ok
else
	outside=refused
fi
check "writing /proc/self/comm works outside the jail" test "$outside" = ok
abi=$("$HUTCH" probe --json 2>/dev/null | json_get '[m for m in d["mechanisms"] if m["mechanism"] == "landlock"][0]["available"]')
if [ "$abi" = true ]; then
	out=$(jsh 'echo x > /proc/self/comm' 2>&1; cat "$tmp/err")
	check "Landlock: writing /proc/self/comm in the jail fails with EACCES" has "$out" "Permission denied"
	check "Landlock: reading a host path through /proc/1/root is refused" \
		test "$(jsh 'cat /proc/1/root/etc/passwd >/dev/null 2>&1 && echo read || echo refused')" = refused
else
	skip_feature "Landlock: writing /proc/self/comm in the jail fails with EACCES" "no Landlock"
	skip_feature "Landlock: reading a host path through /proc/1/root is refused" "no Landlock"
fi

# --- descriptors, environment -------------------------------------------

# The glob opens /proc/self/fd itself, one more descriptor that is closed
# again once the list is made; any other descriptor would still be open.
fds_script='for f in /proc/self/fd/*; do n=${f##*/}; case $n in 0|1|2) echo $n ;; *) [ -e /proc/$$/fd/$n ] && echo "$n=$(readlink /proc/$$/fd/$n)" ;; esac; done; :'
check "only fds 0 1 2 are open in the jail" test "$(jsh "$fds_script" | tr '\n' ' ')" = "0 1 2 "
out=$(exec 7</etc/hostname 8>"$tmp/fd8" && "$HUTCH" run -- /bin/sh -c "$fds_script; [ -e /proc/self/fd/7 ] && echo 7" | tr '\n' ' ')
check "descriptors open in hutch's caller (7, 8) do not reach the jail" test "$out" = "0 1 2 "
[ "$out" = "0 1 2 " ] || diag "fds: $out"

out=$(HUTCH_CANARY_SECRET=leak "$HUTCH" run -- /usr/bin/env)
check "a variable set outside (HUTCH_CANARY_SECRET) is absent" not has "$out" HUTCH_CANARY_SECRET
names=$(printf '%s\n' "$out" | cut -d= -f1 | sort | tr '\n' ' ')
check "the environment is exactly HOME LANG PATH TMPDIR ($names)" test "$names" = "HOME LANG PATH TMPDIR "
out=$("$HUTCH" run --env TZ=UTC -- /usr/bin/env | grep '^TZ=')
check "--env of an allowed variable arrives" test "$out" = TZ=UTC
check "the shell's environment has only PATH HOME LANG TMPDIR PWD (+ its own)" \
	test -z "$(jsh 'env' | cut -d= -f1 | grep -v -x -E 'PATH|HOME|LANG|TMPDIR|PWD|SHLVL|_|OLDPWD')"

# --- rlimits ------------------------------------------------------------

"$HUTCH" run --open-files 64 --processes 20 --memory 512M --file-size 3M --cpu 7 -- \
	/bin/cat /proc/self/limits >"$tmp/limits"
limit() { awk -v k="$1" 'index($0, k) == 1 { s = substr($0, 27); split(s, a, " +"); print a[1], a[2] }' "$tmp/limits"; }
check "open files = --open-files 64" test "$(limit 'Max open files')" = "64 64"
check "processes = --processes 20" test "$(limit 'Max processes')" = "20 20"
check "data size = --memory 512M" test "$(limit 'Max data size')" = "536870912 536870912"
check "address space = --memory 512M + 16 GiB" \
	test "$(limit 'Max address space')" = "17716740096 17716740096"
check "file size = --file-size 3M" test "$(limit 'Max file size')" = "3145728 3145728"
check "cpu seconds = --cpu 7" test "$(limit 'Max cpu time')" = "7 7"
check "core size is 0" test "$(limit 'Max core file size')" = "0 0"
check "ulimit -n in the shell agrees" test "$("$HUTCH" run --open-files 64 -- /bin/sh -c 'ulimit -n')" = 64
check "ulimit -c in the shell is 0" test "$(jsh 'ulimit -c')" = 0
check "a hard limit cannot be raised back" \
	test "$("$HUTCH" run --open-files 64 -- /bin/sh -c 'ulimit -H -n 65 2>/dev/null && echo raised || echo refused')" = refused

# --- lifetime -----------------------------------------------------------

marker="hutch-jail-props-orphan-$$"
"$HUTCH" run -- /bin/sh -c "setsid /bin/sh -c 'sleep 1000; :' $marker >/dev/null 2>&1 </dev/null & exit 0" \
	>/dev/null 2>&1 </dev/null
rc=$?
check "a run that leaves a setsid child behind exits 0" test "$rc" = 0
check "the setsid child does not survive the run" no_process "$marker"

marker="hutch-jail-props-dfork-$$"
"$HUTCH" run -- /bin/sh -c "setsid /bin/sh -c '(trap \"\" TERM HUP; sleep 1000; :) & exit 0' $marker; exit 0" \
	>/dev/null 2>&1 </dev/null
check "a double-forked, TERM-ignoring grandchild does not survive the run" no_process "$marker"

# kill -9 1 from inside: the kernel ignores it (pid 1 of its namespace);
# the target carries on and the run ends normally.
out=$("$HUTCH" run --timeout 20 -- /bin/sh -c 'kill -9 1; echo "after=$?"; echo still-here' 2>&1)
rc=$?
check "kill -9 1 from inside does not end or hang the run (rc $rc)" test "$rc" = 0
check "the target carries on after kill -9 1" has "$out" "^still-here$"
check "kill of a host pid from inside fails (not in the pid namespace)" \
	test "$(jsh "kill -0 $$ 2>/dev/null && echo reached || echo refused")" = refused

# jail.landlock_rights: exactly the groups the kernel's ABI gives, as the
# helper handles them (TCP rules only where the network is none).
abi=$("$HUTCH" run --json -- /bin/true 2>/dev/null | json_get 'd["jail"]["landlock_abi"]')
for pol in default strict; do
	want=$(ABI=${abi:-0} POL=$pol "$py" -c 'import os
a, none = int(os.environ["ABI"]), os.environ["POL"] == "strict"
r = [("fs", 1), ("fs_refer", 2), ("fs_truncate", 3), ("net_tcp", 4 if none else 99),
     ("fs_ioctl_dev", 5), ("scope_abstract_unix", 6), ("scope_signal", 6)]
import json; print(json.dumps([n for n, v in r if a >= v]))')
	same "$pol: jail.landlock_rights are those of ABI ${abi:-?}" "$want" \
		"$("$HUTCH" run --json --policy $pol -- /bin/true 2>/dev/null | json_get 'd["jail"]["landlock_rights"]')"
done

tap_done
