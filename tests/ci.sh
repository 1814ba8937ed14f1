#!/bin/sh
# tests/ci.sh: the README's test command. On a fresh Debian 12 machine, as
# root: installs what the build and the tests need (apt-get), builds with
# warnings as errors when HUTCH_WERROR=1, runs every test as root from the
# build tree (make check, then make distcheck), installs into a
# world-readable temporary prefix and runs the integration tests again as an
# unprivileged user against the installed binaries only. Ends with one
# "N passed, N failed" line. HUTCH_MUST_WORK=1 turns a missing kernel
# feature into a failure instead of a skip.
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
jobs=$(nproc 2>/dev/null || echo 2)
unpriv=${HUTCH_TEST_USER:-nobody}

if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
	apt-get update -qq
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
		build-essential autoconf automake pkg-config libseccomp-dev libcap-ng-dev \
		libjson-c-dev libcunit1-dev nettle-dev bubblewrap util-linux binutils \
		python3 procps >/dev/null
	# The Debian package step, the completion test (bash-completion) and
	# the man-page lint (mandoc).
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
		debhelper dpkg-dev fakeroot lintian bash-completion mandoc man-db >/dev/null
fi

cd "$top"
autoreconf -fi >/dev/null 2>&1
prefix=$(mktemp -d /tmp/hutch-ci.XXXXXX)
build=$(mktemp -d /tmp/hutch-build.XXXXXX)
chmod 755 "$prefix"
trap 'rm -rf "$build" "$prefix"' EXIT

cd "$build"
werror=
[ "${HUTCH_WERROR:-0}" = 1 ] && werror=--enable-werror
"$top/configure" --prefix="$prefix" $werror >/dev/null
make -j"$jobs" >/dev/null

passed=0
failed=0

# 1. Everything, as root, from the build tree.
set +e
make -j"$jobs" check
set -e
for trs in $(find . -name '*.trs'); do
	p=$(grep -c '^:test-result: PASS' "$trs" || true)
	s=$(grep -c '^:test-result: SKIP' "$trs" || true)
	f=$(grep -c -E '^:test-result: (FAIL|ERROR|XPASS)' "$trs" || true)
	passed=$((passed + p + s))
	failed=$((failed + f))
done
[ -f test-suite.log ] && grep -E '^(FAIL|ERROR)' test-suite.log || true

# 2. The integration tests again, unprivileged, against installed binaries.
make install >/dev/null
mkdir -p "$prefix/tests/integ" "$prefix/tests/progs"
cp "$top"/tests/integ/*.sh "$prefix/tests/integ/"
for p in tests/progs/*; do
	[ -f "$p" ] && [ -x "$p" ] && cp "$p" "$prefix/tests/progs/"
done
chmod -R a+rX "$prefix"

# integ LABEL USER HUTCH HUTCH_EXEC: the integration tests copied under
# $prefix/tests, run as USER against installed binaries only; counted.
integ() {
	for t in "$prefix"/tests/integ/*.sh; do
		case $t in */lib.sh) continue ;; esac
		out=$(su "$2" -s /bin/sh -c "cd / && env -i PATH=/usr/bin:/bin \
			HUTCH='$3' HUTCH_EXEC='$4' \
			HUTCH_PROGS='$prefix/tests/progs' HUTCH_MUST_WORK='${HUTCH_MUST_WORK:-0}' \
			HUTCH_INSTALLED=1 sh '$t'" 2>&1) || true
		p=$(printf '%s\n' "$out" | grep -c '^ok ' || true)
		f=$(printf '%s\n' "$out" | grep -c '^not ok ' || true)
		printf '%s\n' "$out" | sed "s|^|[$1 $(basename "$t")] |" | grep -E 'not ok|SKIP|^\[.*\] #' || true
		echo "[$1] $(basename "$t"): $p passed, $f failed"
		if [ "$p" = 0 ] && [ "$f" = 0 ]; then
			f=1 # a script that ran nothing proves nothing
		fi
		passed=$((passed + p))
		failed=$((failed + f))
	done
}
integ "$unpriv" "$unpriv" "$prefix/bin/hutch" "$prefix/libexec/hutch/hutch-exec"

# 3. The release tarball builds and passes its own checks.
if [ "${HUTCH_DISTCHECK:-1}" = 1 ]; then
	if make -j"$jobs" distcheck DISTCHECK_CONFIGURE_FLAGS="$werror" >distcheck.log 2>&1; then
		passed=$((passed + 1))
		echo "distcheck: passed"
	else
		failed=$((failed + 1))
		echo "distcheck: FAILED"
		tail -40 distcheck.log
	fi
fi

# The Debian package, as a distribution would ship it: built from the
# release tarball (packaging/build-deb.sh: dpkg-buildpackage, then lintian
# with errors fatal), installed with apt-get, no set-id file and no file
# capabilities in it, the integration tests against /usr/bin/hutch as root
# and as the unprivileged user, then removed. Root only (apt-get);
# HUTCH_DEB=0 leaves it out. The package is the machine's, not this run's:
# a lock keeps two runs on one machine from installing and removing it
# under each other's tests.
if [ "${HUTCH_DEB:-1}" = 1 ] && [ "$(id -u)" = 0 ] && command -v dpkg-buildpackage >/dev/null 2>&1; then
	exec 9>/tmp/hutch-ci-deb.lock
	flock 9
	debout=$(mktemp -d /tmp/hutch-deb-out.XXXXXX)
	chmod 755 "$debout" # apt's _apt user reads the .deb from here
	deb=$(sh "$top/packaging/build-deb.sh" "$debout" 2>"$debout/build.log" | tail -n 1) || deb=
	grep -E '^build-deb: (lintian|unit test: FAIL)' "$debout/build.log" || true
	if [ -n "$deb" ] && [ -f "$deb" ]; then
		passed=$((passed + 1))
		echo "deb: $(basename "$deb") built, lintian finds no error"
	else
		failed=$((failed + 1))
		echo "deb: the package build FAILED"
		tail -40 "$debout/build.log"
		deb=
	fi
	if [ -n "$deb" ] && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --reinstall "$deb" \
		>"$debout/install.log" 2>&1; then
		passed=$((passed + 1))
		echo "deb: installed with apt-get"
		# No setuid or setgid file, no file capabilities (hutch-exec(8)).
		privileged=$(dpkg -L hutch | while IFS= read -r f; do
			[ -f "$f" ] && [ ! -L "$f" ] || continue
			find "$f" -maxdepth 0 -perm /6000
			if command -v getcap >/dev/null 2>&1; then getcap "$f"; fi
		done)
		if [ -z "$privileged" ]; then
			passed=$((passed + 1))
			echo "deb: no set-id file and no file capabilities"
		else
			failed=$((failed + 1))
			echo "deb: privileged files: $privileged"
		fi
		integ "deb root" root /usr/bin/hutch /usr/libexec/hutch/hutch-exec
		integ "deb $unpriv" "$unpriv" /usr/bin/hutch /usr/libexec/hutch/hutch-exec
	elif [ -n "$deb" ]; then
		failed=$((failed + 1))
		echo "deb: apt-get install FAILED"
		tail -20 "$debout/install.log"
	fi
	if dpkg -s hutch >/dev/null 2>&1; then
		if DEBIAN_FRONTEND=noninteractive apt-get remove -y -qq hutch >"$debout/remove.log" 2>&1 &&
			[ ! -e /usr/bin/hutch ] && [ ! -e /usr/libexec/hutch ]; then
			passed=$((passed + 1))
			echo "deb: removed with apt-get"
		else
			failed=$((failed + 1))
			echo "deb: apt-get remove FAILED"
			tail -20 "$debout/remove.log"
		fi
	fi
	rm -rf "$debout"
	flock -u 9
	exec 9>&-
fi

echo "hutch: $passed passed, $failed failed"
[ "$failed" = 0 ]
