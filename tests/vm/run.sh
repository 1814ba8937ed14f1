#!/bin/sh
# tests/vm/run.sh BUILDDIR [DEB]: the VM matrix. Boots each kernel of
# $HUTCH_VM_KERNELS (default "6.1 6.12": Debian 12's own and trixie's; the
# README says why not bookworm-backports') under qemu with systemd as PID 1,
# installs the hutch Debian package DEB in it (default: built here with packaging/build-deb.sh)
# and runs every tests/vm/suites/*.sh (README). BUILDDIR is a configured
# build tree of the same source: its test programs go into the guest, which
# has no compiler. Prints the failures and one count per kernel and suite,
# and ends with "vm: N passed, N failed"; exit 1 when anything failed.
# HUTCH_VM_SUITES names the suites to run (default: all); HUTCH_VM_OUT, a
# directory, keeps each kernel's results there (OUT/KERNEL/SUITE.tap, .err,
# job.log, console.log).
set -eu
. "$(dirname "$0")/lib.sh"
[ $# -ge 1 ] || vm_die "usage: tests/vm/run.sh BUILDDIR [DEB]"
top=$(cd "$vm_here/../.." && pwd)
build=$(cd "$1" && pwd)
kernels=${HUTCH_VM_KERNELS:-6.1 6.12}
work=$(mktemp -d "${TMPDIR:-/tmp}/hutch-vm.XXXXXX")
trap 'rm -rf "$work"' EXIT
passed=0
failed=0
# The default subsets: what fits the 10-minute CI budget under TCG on
# 2 cores (README). HUTCH_VM_INTEG="all" and HUTCH_ESCAPE_ONLY= (empty)
# run everything.
vm_integ="helper-base-filter jail-user-counts"
vm_escape=host-read,host-write,host-traverse,proc-signal,ptrace,tcp-egress,unix-abstract
vm_escape=$vm_escape,unix-path,outlive,fork-bomb,userns,mount,setuid,new-mount-api
vm_escape=$vm_escape,io-uring,bpf,ro-write,uid-root,caps,memfd-exec,mem-bomb,mem-bomb-multi

# suite_of LABEL: the Debian suite and package a kernel label comes from.
suite_of() {
	case $1 in
	6.1) echo "bookworm linux-image-cloud-amd64" ;;
	6.12) echo "trixie linux-image-cloud-amd64" ;;
	*) vm_die "unknown kernel label $1 (known: 6.1 6.12)" ;;
	esac
}

# cached: the root image and each kernel's bundle, rebuilt when missing or
# built from another recipe than the one in this tree; under a lock, so
# that two runs sharing the cache build each piece once.
cached() {
	mkdir -p "$vm_cache"
	exec 7>"$vm_cache/lock"
	flock 7
	want=$(vm_recipe_digest "$vm_here/image.sh" "$vm_here/guest/job-runner" \
		"$vm_here/guest/hutch-vm-job.service")
	if [ "$(cat "$vm_cache/rootfs.recipe" 2>/dev/null)" != "$want" ]; then
		vm_say "building the root image"
		sh "$vm_here/image.sh"
	fi
	for k in $kernels; do
		from=$(suite_of "$k")
		want="$from $(vm_recipe_digest "$vm_here/kernel.sh" "$vm_here/guest/initrd-init")"
		if [ "$(cat "$vm_cache/kernels/$k/recipe" 2>/dev/null)" != "$want" ]; then
			vm_say "fetching kernel $k"
			# shellcheck disable=SC2086
			sh "$vm_here/kernel.sh" "$k" $from
		fi
	done
	flock -u 7
	exec 7>&-
}

# stage DEB: the job every VM gets (guest/job.sh says what is in it).
stage() {
	t=$work/job/tree
	mkdir -p "$t/tests/integ" "$t/tests/policy" "$t/tests/progs" "$t/tests/escape" \
		"$t/tests/vm/suites" "$t/examples"
	cp "$top"/tests/integ/*.sh "$t/tests/integ/"
	cp "$top"/tests/policy/*.json "$t/tests/policy/"
	for s in ${HUTCH_VM_SUITES:-$(cd "$top/tests/vm/suites" && echo *.sh)}; do
		cp "$top/tests/vm/suites/${s%.sh}.sh" "$t/tests/vm/suites/"
	done
	cp -r "$top/contrib" "$top/policy" "$t/"
	make -C "$build" tests/progs/try-syscall tests/progs/spec-send examples/hutch-client \
		>"$work/make.log" 2>&1 || { tail -n 20 "$work/make.log" >&2; vm_die "the test programs do not build"; }
	cp "$build"/tests/progs/try-syscall "$build"/tests/progs/spec-send "$t/tests/progs/"
	cp "$top/examples/hutch_client.py" "$build/examples/hutch-client" "$t/examples/"
	cp "$top"/tests/escape/run.sh "$top"/tests/escape/*.py "$t/tests/escape/"
	${CC:-cc} -static-pie -O2 -o "$t/tests/escape/probes" "$top"/tests/escape/probes*.c
	cp "$vm_here/guest/job.sh" "$work/job/"
	# What the suites run, chosen on the host (README: the CI budget).
	{
		printf "HUTCH_MUST_WORK='%s'\n" "${HUTCH_MUST_WORK:-0}"
		printf "HUTCH_VM_SUITE_TIMEOUT='%s'\n" "${HUTCH_VM_SUITE_TIMEOUT:-900}"
		printf "HUTCH_VM_INTEG='%s'\n" "${HUTCH_VM_INTEG:-$vm_integ}"
		printf "HUTCH_ESCAPE_POLICIES='%s'\n" "${HUTCH_ESCAPE_POLICIES:-default}"
		printf "HUTCH_ESCAPE_ONLY='%s'\n" "${HUTCH_ESCAPE_ONLY-$vm_escape}"
		# nobody, what daemons run as: every probe of the policies above,
		# unless HUTCH_ESCAPE_ONLY (or HUTCH_ESCAPE_ONLY_NOBODY) names some
		printf "HUTCH_ESCAPE_ONLY_NOBODY='%s'\n" "${HUTCH_ESCAPE_ONLY_NOBODY-${HUTCH_ESCAPE_ONLY-}}"
		printf "HUTCH_ESCAPE_BOMB_MEM='%s'\n" "${HUTCH_ESCAPE_BOMB_MEM:-128}"
	} >"$work/job/settings"
	cp "$1" "$work/job/hutch.deb"
}

# boot_one LABEL: one VM, its job a copy naming its kernel; the wall time
# goes to $work/LABEL.time.
boot_one() {
	cp -r "$work/job" "$work/job-$1"
	echo "$1" >"$work/job-$1/kernel"
	s=$(date +%s)
	rc=0
	sh "$vm_here/boot.sh" "$1" "$work/job-$1" "$work/out-$1" || rc=$?
	echo "$(($(date +%s) - s))" >"$work/$1.time"
	return "$rc"
}

# count LABEL FILE: add up one suite's TAP; a suite that ran nothing, or
# failed while no test did, is one failure.
count() {
	name=$(basename "$2" .tap)
	p=$(grep -c '^ok ' "$2" || true)
	f=$(grep -c '^not ok ' "$2" || true)
	rc=$(cat "${2%.tap}.rc" 2>/dev/null || echo 0)
	grep -E '^not ok ' "$2" | sed "s|^|[vm $1 $name] |" || true
	if [ "$p" = 0 ] && [ "$f" = 0 ] || { [ "$rc" != 0 ] && [ "$f" = 0 ]; }; then
		f=$((f + 1))
		echo "[vm $1 $name] exit $rc; its stderr ends:"
		tail -n 5 "${2%.tap}.err" 2>/dev/null | sed "s|^|[vm $1 $name] |"
	fi
	echo "[vm $1] $name: $p passed, $f failed"
	passed=$((passed + p))
	failed=$((failed + f))
}

cached
deb=${2:-}
if [ -z "$deb" ]; then
	deb=$(sh "$top/packaging/build-deb.sh" "$work" 2>"$work/build-deb.log" | tail -n 1) ||
		{ tail -n 20 "$work/build-deb.log" >&2; vm_die "the package build failed"; }
fi
stage "$deb"
for k in $kernels; do
	boot_one "$k" >"$work/$k.boot" 2>&1 &
done
wait
for k in $kernels; do
	if [ -f "$work/out-$k/rc" ]; then
		for tap in "$work/out-$k"/*.tap; do count "$k" "$tap"; done
		grep '^suite ' "$work/out-$k/job.log" | sed "s|^|[vm $k] |"
	else
		failed=$((failed + 1))
		sed "s|^|[vm $k] |" "$work/$k.boot"
	fi
	echo "[vm $k] kernel $(cat "$vm_cache/kernels/$k/version"): $(cat "$work/$k.time") s wall"
	if [ -n "${HUTCH_VM_OUT:-}" ] && [ -d "$work/out-$k" ]; then
		rm -rf "${HUTCH_VM_OUT:?}/$k"
		mkdir -p "$HUTCH_VM_OUT"
		cp -r "$work/out-$k" "$HUTCH_VM_OUT/$k"
	fi
done
echo "vm: $passed passed, $failed failed"
[ "$failed" = 0 ]
