#!/bin/sh
# layers.sh: the frontend's layers (frontend/<layer>/README) point one way:
# cli -> serve -> run -> jail -> doc -> shared. Every `#include "..."` in a
# frontend file names a header of its own layer or a lower one by folder
# ("doc/policy.h"), or a shared/ header by name; every frontend file lives
# in a layer's folder. Reads the sources only.
. "$(dirname "$0")/lib.sh"

src=${HUTCH_SRCDIR:-$(dirname "$0")/../..}
layers="doc jail run serve cli"

rank() {
	i=0
	for l in $layers; do
		i=$((i + 1))
		[ "$l" = "$1" ] && { echo $i; return; }
	done
	echo 0
}

stray=$(find "$src/frontend" -maxdepth 1 -type f -name '*.[ch]')
same "no source file outside a layer's folder" "" "$stray"

for layer in $layers; do
	me=$(rank "$layer")
	for f in "$src/frontend/$layer"/*.[ch]; do
		[ -f "$f" ] || continue
		bad=
		for inc in $(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$f"); do
			case $inc in
			config.h) continue ;;
			*/*)
				to=${inc%%/*}
				r=$(rank "$to")
				if [ "$r" = 0 ] || [ "$r" -gt "$me" ] || [ ! -f "$src/frontend/$inc" ]; then
					bad="$bad $inc"
				fi
				;;
			*)
				[ -f "$src/shared/$inc" ] || bad="$bad $inc"
				;;
			esac
		done
		name=frontend/$layer/${f##*/}
		if [ -z "$bad" ]; then
			ok "$name includes only its layer and below"
		else
			not_ok "$name includes only its layer and below"
			diag "up, unknown or not by folder:$bad"
		fi
	done
done

tap_done
