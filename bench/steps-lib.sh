# bench/steps-lib.sh: what steps.sh and costs.sh share. Sourced with
# "here" set to the bench folder and "bench" to the script's name; it
# sets src (the checkout), tmp (a mktemp directory, removed on exit), cc
# and note, finds hutch and hutch-exec (find-hutch.sh), and needs python3.
# shellcheck shell=sh disable=SC2154 # here, bench, hutch, helper: set by the caller, find_hutch
src=$(dirname "$here")
tmp=$(mktemp -d "${TMPDIR:-/tmp}/hutch-$bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM
chmod 755 "$tmp"
cc=${CC:-cc}
note() { printf '%s\n' "$*" >&2; }
# shellcheck source=SCRIPTDIR/find-hutch.sh
. "$here/find-hutch.sh"
find_hutch "$bench"
command -v python3 >/dev/null 2>&1 || { note "$bench: needs python3"; exit 1; }

# bench_users USERS: USERS, else ourselves, and nobody too as root
bench_users() {
	if [ -n "$1" ]; then
		echo "$1"
	elif [ "$(id -u)" = 0 ]; then
		echo "$(id -un) nobody"
	else
		id -un
	fi
}

# build_aids: into $tmp, kernel-steps and floor (built like hutch-exec),
# spec-plan (against this checkout's spec codec and base filter) and
# bench-spawn, all readable by every user.
build_aids() {
	mkdir "$tmp/inc"
	echo '#define _GNU_SOURCE 1' >"$tmp/inc/config.h"
	"$here/build-kernel-steps.sh" "$tmp/kernel-steps"
	"$here/build-floor.sh" "$tmp/floor"
	$cc -O2 -I"$tmp/inc" -I"$src/shared" -I"$src/helper" -o "$tmp/spec-plan" \
		"$here/spec-plan.c" "$src/shared/spec-codec.c" "$src/helper/base-filter.c"
	$cc -O2 -o "$tmp/bench-spawn" "$here/bench-spawn.c" -lm
	chmod -R a+rX "$tmp"
}

# bench_user NAME USER DIR: sets "as" to the words that run a command as
# USER (empty when USER is who we are; else setpriv, as serve.sh's
# BENCH_SERVE_AS does) and makes DIR USER's. 1 without such a user.
#
# capture_plan NAME DIR SPEC_PLAN: the spec hutch sends its helper for
# `hutch run -- /bin/true`, run as $as from the current directory,
# captured into DIR/spec.bin by a stand-in helper that copies fd 3 and
# hands it on to the real one (as run.sh and profile.sh do), then turned
# by SPEC_PLAN (spec-plan.c) into DIR/plan.txt, DIR/filter.bin and
# DIR/base.bin. 1 when nothing was captured.
bench_user() {
	as=""
	[ "$2" = "$(id -un)" ] && return 0
	if ! uid=$(id -u "$2") || ! gid=$(id -g "$2"); then
		printf '%s\n' "$1: no user $2" >&2
		return 1
	fi
	as="setpriv --reuid=$uid --regid=$gid --clear-groups --"
	chown "$uid:$gid" "$3"
}

capture_plan() {
	cat >"$2/capture" <<EOF
#!/bin/sh
/bin/cat <&3 >'$2/spec.'\$\$ && /bin/mv '$2/spec.'\$\$ '$2/spec.bin'
exec '$helper' 3<'$2/spec.bin'
EOF
	chmod 755 "$2/capture"
	# shellcheck disable=SC2086 # $as is words
	HUTCH_EXEC="$2/capture" $as "$hutch" run -- /bin/true </dev/null >/dev/null 2>&1 || true
	if [ ! -s "$2/spec.bin" ]; then
		printf '%s\n' "$1: could not capture a spec from $hutch" >&2
		return 1
	fi
	"$3" "$2/filter.bin" "$2/base.bin" <"$2/spec.bin" >"$2/plan.txt"
}
