#!/bin/sh
# bench/build-floor.sh OUT: build floor.c into OUT the way hutch-exec is
# built (static-pie against musl where musl-gcc exists), so that its own
# exec costs what the helper's does. run.sh and serve.sh call it.
set -eu
src=$(dirname "$0")/floor.c
if command -v musl-gcc >/dev/null 2>&1; then
	musl-gcc -O2 -static-pie -fPIE -o "$1" "$src"
else
	${CC:-cc} -O2 -o "$1" "$src"
fi
