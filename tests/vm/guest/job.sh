#!/bin/sh
# tests/vm/guest/job.sh OUTDIR OUTDISK: the job run.sh hands every VM, run as root by
# guest/job-runner under systemd (PID 1). Its directory holds hutch.deb,
# kernel (the kernel's label, "6.1"), settings (shell assignments for the
# suites' environment), and tree/, a partial source tree
# (tests/, contrib/, policy/, examples/, with the host-built test programs
# in tests/progs and the escape probes in tests/escape/probes). Installs the
# package, puts the tree at /opt/hutch (world-readable: suites run parts as
# an unprivileged user), then runs every tree/tests/vm/suites/*.sh in turn
# and leaves each one's output in OUTDIR/SUITE.tap, its status in
# OUTDIR/SUITE.rc. OUTDIR goes onto OUTDISK after each suite, so that what
# ran before a hung suite or a VM timeout still comes back.
set -u
out=$1
out_disk=$2
job=$(cd "$(dirname "$0")" && pwd)
src=/opt/hutch

echo "kernel $(uname -r), job at uptime $(cut -d' ' -f1 /proc/uptime) s"
cp -a "$job/tree" "$src"
chmod -R a+rX "$src"
{
	if dpkg -i "$job/hutch.deb" >"$out/dpkg.log" 2>&1; then
		echo "ok 1 - dpkg -i the hutch package"
	else
		echo "not ok 1 - dpkg -i the hutch package"
		sed 's/^/# /' "$out/dpkg.log"
	fi
	echo "1..1"
} >"$out/install.tap"

. "$job/settings"
for suite in "$src"/tests/vm/suites/*.sh; do
	name=$(basename "$suite" .sh)
	start=$(cut -d' ' -f1 /proc/uptime)
	(cd / && env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 \
		HUTCH=/usr/bin/hutch HUTCH_EXEC=/usr/libexec/hutch/hutch-exec \
		HUTCH_PROGS="$src/tests/progs" HUTCH_SRCDIR="$src" HUTCH_INSTALLED=1 \
		HUTCH_MUST_WORK="$HUTCH_MUST_WORK" HUTCH_VM_INTEG="$HUTCH_VM_INTEG" \
		HUTCH_ESCAPE_POLICIES="$HUTCH_ESCAPE_POLICIES" HUTCH_ESCAPE_ONLY="$HUTCH_ESCAPE_ONLY" \
		HUTCH_ESCAPE_BOMB_MEM="${HUTCH_ESCAPE_BOMB_MEM:-}" \
		HUTCH_ESCAPE_ONLY_NOBODY="${HUTCH_ESCAPE_ONLY_NOBODY:-}" \
		HUTCH_VM_KERNEL="$(cat "$job/kernel")" \
		timeout -k 10 "${HUTCH_VM_SUITE_TIMEOUT:-900}" sh "$suite") \
		>"$out/$name.tap" 2>"$out/$name.err" </dev/null
	echo $? >"$out/$name.rc"
	echo "suite $name: rc $(cat "$out/$name.rc"), $start s to $(cut -d' ' -f1 /proc/uptime) s"
	tar -cf "$out_disk" -C "$out" . && sync
done
