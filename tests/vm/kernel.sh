#!/bin/sh
# tests/vm/kernel.sh LABEL SUITE PACKAGE: fetch a Debian kernel package from
# SUITE with apt-get download (never installed on the host) and turn it
# into a boot bundle under $cache/kernels/LABEL: vmlinuz, initrd.img (busybox
# and the modules mounting the root needs) and modules.img (ext4 holding
# /usr/lib/modules/VERSION, mounted read-only by the initrd).
set -eu
. "$(dirname "$0")/lib.sh"
[ $# = 3 ] || vm_die "usage: kernel.sh LABEL SUITE PACKAGE"
label=$1 suite=$2 pkg=$3
out=$vm_cache/kernels/$label
mkdir -p "$vm_cache/kernels"
tmp=$(mktemp -d "$vm_cache/kernel.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# fetch: the metapackage names the versioned image package it depends on.
fetch() {
	vm_apt_init "$suite" "$tmp"
	(cd "$tmp" && vm_apt_download "$pkg" busybox-static)
	real=$(dpkg-deb -f "$tmp/${pkg}"_*.deb Depends | sed 's/[ ,(|].*//')
	(cd "$tmp" && vm_apt_download "$real")
	dpkg-deb -x "$tmp/${real}"_*.deb "$tmp/x"
	dpkg-deb -x "$tmp"/busybox-static_*.deb "$tmp/bb"
}

# modules: /lib/modules/VER moved into a tree of its own, depmod'ed.
modules() {
	set -- "$tmp"/x/boot/vmlinuz-*
	ver=${1##*/vmlinuz-}
	mkdir -p "$tmp/m/lib/modules"
	for d in "$tmp/x/usr/lib/modules/$ver" "$tmp/x/lib/modules/$ver"; do
		[ -d "$d" ] && mv "$d" "$tmp/m/lib/modules/$ver" && break
	done
	depmod -b "$tmp/m" "$ver"
}

# initrd: the closure of what mounting an ext4 root on virtio-blk needs
# (Debian's cloud kernels build these as modules), decompressed.
initrd() {
	ird=$tmp/initrd
	mkdir -p "$ird/bin" "$ird/dev" "$ird/proc" "$ird/sys" "$ird/newroot" \
		"$ird/etc" "$ird/lib/modules/$ver"
	install -m 755 "$(ls "$tmp"/bb/bin/busybox "$tmp"/bb/usr/bin/busybox 2>/dev/null | head -n 1)" \
		"$ird/bin/busybox"
	install -m 755 "$vm_here/guest/initrd-init" "$ird/init"
	: >"$ird/etc/modules.initrd"
	for m in virtio_pci virtio_blk ext4 crc32c_generic; do
		deps=$(modprobe -d "$tmp/m" -S "$ver" --show-depends "$m" 2>/dev/null) || continue
		printf '%s\n' "$deps" | awk '$1 == "insmod" { print $2 }' | while read -r f; do
			rel=${f#"$tmp/m/lib/modules/$ver/"}
			dst=$ird/lib/modules/$ver/${rel%.xz}
			mkdir -p "$(dirname "$dst")"
			case $f in *.xz) xz -dc "$f" >"$dst" ;; *) cp "$f" "$dst" ;; esac
		done
		echo "$m" >>"$ird/etc/modules.initrd"
	done
	cp "$tmp/m/lib/modules/$ver"/modules.builtin* "$tmp/m/lib/modules/$ver/modules.order" \
		"$ird/lib/modules/$ver/"
	depmod -b "$ird" "$ver"
	(cd "$ird" && find . | cpio -o -H newc --quiet) | gzip -1 >"$tmp/bundle/initrd.img"
}

fetch
modules
mkdir "$tmp/bundle"
initrd
cp "$tmp/x/boot/vmlinuz-$ver" "$tmp/bundle/vmlinuz"
size=$(($(du -sm "$tmp/m/lib/modules/$ver" | cut -f1) + 64))M
mke2fs -q -t ext4 -L modules -d "$tmp/m/lib/modules/$ver" -E root_owner=0:0 \
	"$tmp/bundle/modules.img" "$size"
echo "$ver" >"$tmp/bundle/version"
echo "$suite $pkg $(vm_recipe_digest "$0" "$vm_here/guest/initrd-init")" >"$tmp/bundle/recipe"
rm -rf "$out"
mv "$tmp/bundle" "$out"
vm_say "kernel $label: $ver"
