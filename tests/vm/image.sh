#!/bin/sh
# tests/vm/image.sh: build the kernel-independent Debian root image,
# $cache/rootfs.img (sparse ext4), with mmdebstrap. Debian bookworm with
# systemd as PID 1, AppArmor's userspace, what the hutch package and the
# tests need at run time (no compiler: the host builds), a user "tester"
# (uid 1000) for systemd --user, and guest/job-runner started after
# multi-user.target to run the host's job and power off.
set -eu
. "$(dirname "$0")/lib.sh"
suite=${HUTCH_VM_SUITE:-bookworm}
pkgs=systemd,systemd-sysv,udev,dbus,dbus-user-session,libpam-systemd
pkgs=$pkgs,apparmor,util-linux,kmod,procps,python3,libseccomp2,libjson-c5
pkgs=$pkgs,libnettle8,libcap-ng0,xz-utils,iproute2
mkdir -p "$vm_cache"
tmp=$(mktemp -d "$vm_cache/rootfs.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
g=$vm_here/guest

# Timers and services that would only spend emulated CPU time are masked;
# so are the two AppArmor profiles bookworm's apparmor ships that fail to
# load without the programs they confine.
mmdebstrap --quiet --variant=minbase --include="$pkgs" \
	--dpkgopt='path-exclude=/usr/share/man/*' --dpkgopt='path-exclude=/usr/share/doc/*' \
	--dpkgopt='path-exclude=/usr/share/locale/*' --dpkgopt='path-exclude=/usr/share/info/*' \
	--customize-hook='echo vm >"$1/etc/hostname"' \
	--customize-hook='echo "LABEL=root / ext4 rw,noatime 0 0" >"$1/etc/fstab"' \
	--customize-hook="install -m 755 '$g/job-runner' \"\$1/usr/local/sbin/hutch-vm-job\"" \
	--customize-hook="install -m 644 '$g/hutch-vm-job.service' \"\$1/etc/systemd/system/\"" \
	--customize-hook='chroot "$1" systemctl enable hutch-vm-job.service' \
	--customize-hook='chroot "$1" systemctl mask apt-daily.timer apt-daily-upgrade.timer e2scrub_all.timer e2scrub_reap.service fstrim.timer systemd-timesyncd.service modprobe@drm.service modprobe@efi_pstore.service modprobe@dm_mod.service' \
	--customize-hook='chroot "$1" passwd -d root >/dev/null' \
	--customize-hook='chroot "$1" useradd -m -u 1000 -s /bin/sh tester' \
	--customize-hook='rm -f "$1"/etc/apparmor.d/lsb_release "$1"/etc/apparmor.d/nvidia_modprobe' \
	--customize-hook='rm -rf "$1"/var/cache/apt/* "$1"/var/lib/apt/lists/*' \
	"$suite" "$tmp/root" "deb [signed-by=$vm_keyring] $vm_mirror $suite main"
size=$(($(du -sm "$tmp/root" | cut -f1) + 768))M
mke2fs -q -t ext4 -L root -d "$tmp/root" -E root_owner=0:0 "$tmp/rootfs.img" "$size"
vm_recipe_digest "$0" "$g/job-runner" "$g/hutch-vm-job.service" >"$tmp/recipe"
mv "$tmp/rootfs.img" "$vm_cache/rootfs.img"
mv "$tmp/recipe" "$vm_cache/rootfs.recipe"
vm_say "root image: $(du -sh "$vm_cache/rootfs.img" | cut -f1) used of $size"
