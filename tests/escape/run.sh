#!/bin/sh
# tests/escape/run.sh: the escape suite. Builds probes*.c (static where the
# toolchain can), then hands over to escape.py, which plants canaries,
# starts a sentinel and listeners outside, runs every probe inside
# `hutch run` under each shipped policy and once on the host as a control,
# and ends with "N passed, N failed" (exit 1 if any failed).
#
# Environment: HUTCH (default: hutch on PATH), HUTCH_EXEC and
# HUTCH_POLICY_PATH (passed through to hutch when set; an installed hutch
# needs neither), CC (default cc), HUTCH_ESCAPE_POLICIES (default
# "default strict network build convert agent"), HUTCH_ESCAPE_ONLY (comma-separated probes),
# HUTCH_ESCAPE_LOG (append untruncated rows to this file),
# HUTCH_ESCAPE_WIDTH (evidence column width, 0 = full; default 160),
# HUTCH_ESCAPE_EXTRA_ARGS (options every jailed `hutch run` gets too,
# split on spaces: "--explain" runs the suite with explain's listener),
# HUTCH_ESCAPE_PROBES (a probes binary built beforehand from probes*.c, for
# a machine without a compiler: the VM guests of tests/vm).
# Runs as root or as any user; writes only in its own mktemp directories.
set -u

: "${PATH:=/usr/local/bin:/usr/bin:/bin}"
export PATH
here=$(cd "$(dirname "$0")" && pwd)
HUTCH=${HUTCH:-$(command -v hutch || true)}
if [ -z "$HUTCH" ] || [ ! -x "$HUTCH" ]; then
	echo "run.sh: set HUTCH to the hutch binary" >&2
	echo "0 passed, 1 failed"
	exit 1
fi
case $HUTCH in /*) ;; *) HUTCH=$(cd "$(dirname "$HUTCH")" && pwd)/$(basename "$HUTCH") ;; esac
py=/usr/bin/python3
[ -x "$py" ] || py=$(command -v python3)
cc=${CC:-cc}

tmp=$(mktemp -d "${TMPDIR:-/tmp}/hutch-escape.XXXXXX") || exit 2
chmod 755 "$tmp"
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM

# Static, so that the same binary runs in any jail and on the host; a
# dynamic build still runs (the jail has /usr) when libc.a is missing.
# Position-independent, because launch.py loads it into the address space
# of a python3 that may itself sit at the fixed addresses of a non-PIE one.
if [ -n "${HUTCH_ESCAPE_PROBES:-}" ]; then
	cp "$HUTCH_ESCAPE_PROBES" "$tmp/probes"
elif ! "$cc" -static-pie -O2 -o "$tmp/probes" "$here"/probes*.c 2>"$tmp/cc.err"; then
	echo "run.sh: no static build ($(head -1 "$tmp/cc.err")); building dynamically" >&2
	if ! "$cc" -O2 -o "$tmp/probes" "$here"/probes*.c 2>"$tmp/cc.err"; then
		cat "$tmp/cc.err" >&2
		echo "0 passed, 1 failed"
		exit 1
	fi
fi
chmod 755 "$tmp/probes"

set -- --hutch "$HUTCH" --probes "$tmp/probes" --tmp "$tmp" \
	--policies "${HUTCH_ESCAPE_POLICIES:-default strict network build convert agent}" \
	--width "${HUTCH_ESCAPE_WIDTH:-160}"
[ -n "${HUTCH_ESCAPE_ONLY:-}" ] && set -- "$@" --only "$HUTCH_ESCAPE_ONLY"
[ -n "${HUTCH_ESCAPE_LOG:-}" ] && set -- "$@" --log "$HUTCH_ESCAPE_LOG"
[ -n "${HUTCH_ESCAPE_EXTRA_ARGS:-}" ] && set -- "$@" "--extra=$HUTCH_ESCAPE_EXTRA_ARGS"
[ -n "${HUTCH_ESCAPE_SERVE:-}" ] && set -- "$@" "--serve=$HUTCH_ESCAPE_SERVE"
"$py" "$here/escape.py" "$@"
