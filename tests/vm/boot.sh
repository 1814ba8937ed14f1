#!/bin/sh
# tests/vm/boot.sh LABEL JOBDIR OUTDIR: boot the cached kernel LABEL on a
# throwaway snapshot of the root image, hand it JOBDIR (a directory holding
# job.sh; guest/job-runner runs it as root after multi-user.target) and
# unpack what the job wrote into OUTDIR (its files, job.log, rc) plus the
# serial console as OUTDIR/console.log. Exit 0 when the VM brought back a
# result, 3 when it did not (the console's end is then on stderr).
set -eu
. "$(dirname "$0")/lib.sh"
[ $# = 3 ] || vm_die "usage: boot.sh LABEL JOBDIR OUTDIR"
kdir=$vm_cache/kernels/$1
[ -f "$kdir/vmlinuz" ] || vm_die "no kernel $1 in $vm_cache/kernels"
work=$(mktemp -d "${TMPDIR:-/tmp}/hutch-vm-boot.XXXXXX")
trap 'rm -rf "$work"' EXIT

# accel: /dev/kvm may be a paravirtual device (kvm_pvm) with no VT-x or
# AMD-V behind it; a stock kernel does not run usefully there, so KVM only
# when the CPU says svm or vmx and the module is not kvm_pvm. TCG
# otherwise, multi-threaded, on a CPU model without la57 (5-level paging
# slows TCG) and without nested svm.
accel() {
	if [ -n "${HUTCH_VM_ACCEL:-}" ]; then
		echo "$HUTCH_VM_ACCEL"
	elif [ -w /dev/kvm ] && [ ! -d /sys/module/kvm_pvm ] &&
		grep -qwE 'svm|vmx' /proc/cpuinfo; then
		echo kvm
	else
		echo tcg,thread=multi
	fi
}
a=$(accel)
case $a in kvm*) cpu=host ;; *) cpu=max,-la57,-svm ;; esac
cpu=${HUTCH_VM_CPU:-$cpu}

tar -cf "$work/job.tar" -C "$2" .
truncate -s "${HUTCH_VM_OUT_SIZE:-64M}" "$work/out.img"
rc=0
timeout -k 5 "${HUTCH_VM_TIMEOUT:-600}" qemu-system-x86_64 \
	-machine q35 -accel "$a" -cpu "$cpu" -smp "${HUTCH_VM_CPUS:-1}" \
	-m "${HUTCH_VM_MEM:-1024}" -nodefaults -no-user-config -display none -no-reboot \
	-bios /usr/share/qemu/qboot.rom -kernel "$kdir/vmlinuz" -initrd "$kdir/initrd.img" \
	-append "console=ttyS0 root=LABEL=root rw panic=-1 quiet loglevel=3 systemd.show_status=false ${HUTCH_VM_APPEND:-}" \
	-serial "file:$work/console.log" \
	-drive "file=$vm_cache/rootfs.img,format=raw,if=none,id=root,snapshot=on" \
	-device virtio-blk-pci,drive=root,serial=root \
	-drive "file=$kdir/modules.img,format=raw,if=none,id=mods,readonly=on" \
	-device virtio-blk-pci,drive=mods,serial=modules \
	-drive "file=$work/job.tar,format=raw,if=none,id=job,readonly=on" \
	-device virtio-blk-pci,drive=job,serial=job \
	-drive "file=$work/out.img,format=raw,if=none,id=out" \
	-device virtio-blk-pci,drive=out,serial=out \
	-device virtio-rng-pci </dev/null || rc=$?
mkdir -p "$3"
tar -xf "$work/out.img" -C "$3" 2>/dev/null || true
cp "$work/console.log" "$3/console.log"
if [ ! -f "$3/rc" ]; then
	vm_say "kernel $1 ($a): no result (qemu exit $rc); the console's end:"
	tail -n 30 "$work/console.log" >&2
	exit 3
fi
