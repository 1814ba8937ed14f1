# lib.sh: TAP helpers for the integration tests (sourced, POSIX sh).
# Binaries come from the environment: HUTCH, HUTCH_EXEC, HUTCH_PROGS.
# HUTCH_MUST_WORK=1 (set by .ci/run) turns a skip for a missing kernel
# feature into a failure.

: "${HUTCH:?HUTCH must name the hutch binary}"
: "${HUTCH_EXEC:?HUTCH_EXEC must name the hutch-exec binary}"
export HUTCH HUTCH_EXEC
tap_n=0
tap_failed=0

ok() { tap_n=$((tap_n + 1)); echo "ok $tap_n - $*"; }
not_ok() { tap_n=$((tap_n + 1)); tap_failed=$((tap_failed + 1)); echo "not ok $tap_n - $*"; }
diag() { printf '# %s\n' "$@"; }

# check DESCRIPTION COMMAND...: ok when the command succeeds.
check() {
	d=$1
	shift
	if "$@"; then ok "$d"; else not_ok "$d"; fi
}

# skip_feature DESCRIPTION REASON: a missing kernel feature.
skip_feature() {
	if [ "${HUTCH_MUST_WORK:-0}" = 1 ]; then
		not_ok "$1 (HUTCH_MUST_WORK: $2)"
	else
		tap_n=$((tap_n + 1))
		echo "ok $tap_n - $1 # SKIP $2"
	fi
}

is_root() { [ "$(id -u)" = 0 ]; }

tap_done() {
	echo "1..$tap_n"
	[ "$tap_failed" = 0 ]
}
