#!/bin/sh
# bench/build-kernel-steps.sh OUT: build kernel-steps.c (with its
# kernel-steps-tree.c) into OUT the way hutch-exec and floor.c are built
# (static-pie against musl where musl-gcc exists, the kernel's headers
# reached through a directory of links, as configure does for the
# helper), so that it runs as the helper does. steps.sh calls it.
set -eu
dir=$(dirname "$0")
if command -v musl-gcc >/dev/null 2>&1; then
	inc=$(mktemp -d "${TMPDIR:-/tmp}/kernel-steps-inc.XXXXXX")
	trap 'rm -rf "$inc"' EXIT
	for d in linux asm-generic; do
		ln -s "/usr/include/$d" "$inc/$d"
	done
	asm=/usr/include/$(${CC:-cc} -print-multiarch 2>/dev/null || echo x86_64-linux-gnu)/asm
	[ -d "$asm" ] || asm=/usr/include/asm
	ln -s "$asm" "$inc/asm"
	musl-gcc -O2 -static-pie -fPIE -isystem "$inc" -o "$1" "$dir/kernel-steps.c" "$dir/kernel-steps-tree.c"
else
	${CC:-cc} -O2 -o "$1" "$dir/kernel-steps.c" "$dir/kernel-steps-tree.c"
fi
