#!/bin/sh
# tests/ci.sh: the README's test command. On a fresh Debian 12 machine, as
# root: installs what the build and the tests need (apt-get), builds with
# warnings as errors when HUTCH_WERROR=1, runs every test as root from the
# build tree (make check, then make distcheck), installs into a
# world-readable temporary prefix and runs the integration tests again as an
# unprivileged user against the installed binaries only. Then: a second
# tree built with --enable-sanitizers (ASan + UBSan) runs make check; a
# third, dynamically linked, runs the unit tests and a few CLI commands
# under valgrind memcheck; fuzz/run.sh runs each libFuzzer harness for
# HUTCH_FUZZ_SECONDS (60). Ends with one "N passed, N failed" line.
# The package then runs in VMs on Debian's 6.1 and 6.12 kernels under
# systemd (tests/vm/run.sh; tests/vm/README). HUTCH_MUST_WORK=1 turns a
# missing kernel feature into a failure instead of a skip; HUTCH_DISTCHECK,
# HUTCH_SANITIZERS, HUTCH_VALGRIND, HUTCH_FUZZ, HUTCH_DEB and HUTCH_VM=0
# leave a step out.
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
jobs=$(nproc 2>/dev/null || echo 2)
unpriv=${HUTCH_TEST_USER:-nobody}

if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
	apt-get update -qq
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
		build-essential autoconf automake pkg-config libseccomp-dev \
		libjson-c-dev libcunit1-dev nettle-dev libcap-ng-dev bubblewrap util-linux binutils \
		python3 procps clang libclang-rt-dev valgrind musl-tools strace >/dev/null
	# The Debian package step, the completion test (bash-completion) and
	# the man-page lint (mandoc).
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
		debhelper dpkg-dev fakeroot lintian bash-completion mandoc man-db >/dev/null
	# The real jobs of the build and convert policies (jobs-build.sh,
	# jobs-convert.sh) and CPython's regression tests (python-regrtest.sh).
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
		make gcc python3-venv libreoffice-writer-nogui ghostscript pandoc \
		imagemagick libpython3.11-testsuite >/dev/null
	# The network proxy's real clients and the servers they reach
	# (net-proxy.sh, bench/proxy.sh): curl, git, pip, and openssl for
	# the TLS server's certificate.
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
		curl git python3-pip openssl ca-certificates >/dev/null
	# Runtimes that reserve address space they never touch, under the
	# memory limit without a cgroup (memory-limit.sh); npm's test and
	# install on an overlay of a package (npm-overlay.sh).
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
		nodejs default-jre-headless golang-go >/dev/null
	# Debian's npm, unless the nodejs installed brings its own (a
	# nodesource nodejs conflicts with Debian's npm package).
	command -v npm >/dev/null 2>&1 ||
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
			npm >/dev/null
	# jobs-convert.sh checks that gs in the jail honours /etc/papersize:
	# A4, unlike what gs falls back to without the file.
	[ -f /etc/papersize ] || echo a4 >/etc/papersize
	# The VM matrix (tests/vm/README).
	if [ "${HUTCH_VM:-1}" = 1 ]; then
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
			mmdebstrap qemu-system-x86 qemu-utils cpio kmod xz-utils e2fsprogs \
			debian-archive-keyring >/dev/null
	fi
fi

cd "$top"
autoreconf -fi >/dev/null 2>&1
prefix=$(mktemp -d /tmp/hutch-ci.XXXXXX)
build=$(mktemp -d /tmp/hutch-build.XXXXXX)
sbuild=$(mktemp -d /tmp/hutch-sanitize.XXXXXX)
vbuild=$(mktemp -d /tmp/hutch-valgrind.XXXXXX)
chmod 755 "$prefix"
trap 'rm -rf "$build" "$sbuild" "$vbuild" "$prefix"' EXIT

cd "$build"
werror=
[ "${HUTCH_WERROR:-0}" = 1 ] && werror=--enable-werror
"$top/configure" --prefix="$prefix" $werror >/dev/null
make -j"$jobs" >/dev/null

passed=0
failed=0

# stage NAME: print how long the stage before took, so a CI log shows where
# its minutes go (the budget is 60).
stage_name=build
stage_start=$(date +%s)
stage() {
	echo "ci: $stage_name took $(($(date +%s) - stage_start)) s"
	stage_name=$1
	stage_start=$(date +%s)
}

# tally RC NAME: add up the results make check (exit status RC) left in
# the current tree. A make check that failed while no test did (a test
# program that does not build) is one failure.
tally() {
	tally_before=$failed
	for trs in $(find . -name '*.trs'); do
		p=$(grep -c '^:test-result: PASS' "$trs" || true)
		s=$(grep -c '^:test-result: SKIP' "$trs" || true)
		f=$(grep -c -E '^:test-result: (FAIL|ERROR|XPASS)' "$trs" || true)
		passed=$((passed + p + s))
		failed=$((failed + f))
	done
	if [ "$1" != 0 ] && [ "$failed" = "$tally_before" ]; then
		failed=$((failed + 1))
		echo "$2: make check FAILED before its tests could"
	fi
}

stage "make check as root"
# 1. Everything, as root, from the build tree.
set +e
make -j"$jobs" check
rc=$?
set -e
tally "$rc" "make check"
[ -f test-suite.log ] && grep -E '^(FAIL|ERROR)' test-suite.log || true

stage "integration as $unpriv"
# 2. The integration tests again, unprivileged, against installed binaries.
make install >/dev/null
mkdir -p "$prefix/tests/integ" "$prefix/tests/progs" "$prefix/tests/escape" "$prefix/examples" \
	"$prefix/tests/policy"
cp "$top"/tests/integ/*.sh "$prefix/tests/integ/"
# Test policies (each says why it needs more room than a shipped one).
cp "$top"/tests/policy/*.json "$prefix/tests/policy/"
# jobs-build.sh runs the README's example as written there.
cp "$top/README" "$prefix/tests/README"
for p in tests/progs/*; do
	[ -f "$p" ] && [ -x "$p" ] && cp "$p" "$prefix/tests/progs/"
done
# npm-overlay.sh's fixture packages.
cp -R "$top/tests/npm" "$prefix/tests/npm"
# The serve tests drive the server with both example clients.
cp "$top/examples/hutch_client.py" examples/hutch-client "$prefix/examples/"
cp "$top"/tests/escape/run.sh "$top"/tests/escape/escape.py "$top"/tests/escape/probes*.c \
	"$top"/tests/escape/probes.h "$top"/tests/escape/launch.py "$top"/tests/escape/via_serve.py \
	"$prefix/tests/escape/"
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

# escape_suite LABEL COMMAND...: tests/escape/run.sh, every attack probe
# under every shipped policy plus its no-jail control; its closing
# "N passed, N failed" line joins the totals.
escape_suite() {
	label=$1
	shift
	out=$("$@" 2>&1) || true
	printf '%s\n' "$out" | grep -E '^(FAIL|not ok)' | sed "s|^|[$label escape] |" || true
	line=$(printf '%s\n' "$out" | grep -E '^[0-9]+ passed, [0-9]+ failed$' | tail -1 || true)
	echo "[$label] escape: ${line:-no summary line}"
	if [ -n "$line" ]; then
		p=${line%% passed*}
		f=${line#*, }
		f=${f%% failed}
	else
		p=0
		f=1
	fi
	passed=$((passed + p))
	failed=$((failed + f))
}
stage "escape suites"
# As root from the build tree, and unprivileged against the installed tree
# with the bare environment a daemon's system user has. Two streams run
# side by side, one per user: a user's suites stay one after the other, so
# a probe that fills a per-user limit (RLIMIT_NPROC of an unprivileged
# caller's jails) never meets another suite of the same user.
esc_out=$(mktemp -d /tmp/hutch-escape-out.XXXXXX)
(
	escape_suite root env HUTCH="$build/hutch" HUTCH_EXEC="$build/hutch-exec" \
		HUTCH_POLICY_PATH="$top/policy" sh "$top/tests/escape/run.sh"
	# Through `hutch serve` (via_serve.py): as root through the
	# forkserver (a root server pools nothing).
	escape_suite "root serve" env HUTCH="$build/hutch" HUTCH_EXEC="$build/hutch-exec" \
		HUTCH_POLICY_PATH="$top/policy" HUTCH_ESCAPE_SERVE="--pool 2" \
		HUTCH_ESCAPE_POLICIES="default strict network" sh "$top/tests/escape/run.sh"
	# Once more as root with --explain: its listener answers "continue"
	# to every open and exec, so every probe must fail the same way with
	# it (default, strict and network: build's and convert's seccomp
	# sections are default's, so the listener has nothing new to answer).
	escape_suite "root --explain" env HUTCH="$build/hutch" HUTCH_EXEC="$build/hutch-exec" \
		HUTCH_POLICY_PATH="$top/policy" HUTCH_ESCAPE_EXTRA_ARGS=--explain \
		HUTCH_ESCAPE_POLICIES="default strict network" \
		sh "$top/tests/escape/run.sh"
	echo "$passed $failed" >"$esc_out/root.sum"
) >"$esc_out/root.log" 2>&1 &
esc_root=$!
(
	escape_suite "$unpriv" su "$unpriv" -s /bin/sh -c "cd / && env -i PATH=/usr/bin:/bin \
		HUTCH='$prefix/bin/hutch' sh '$prefix/tests/escape/run.sh'"
	# Through serve, every jail a pooled one (--pool 2).
	escape_suite "$unpriv serve --pool" su "$unpriv" -s /bin/sh -c "cd / && env -i PATH=/usr/bin:/bin \
		HUTCH='$prefix/bin/hutch' HUTCH_ESCAPE_SERVE='--pool 2' sh '$prefix/tests/escape/run.sh'"
	# Again with each probe's program on stdin, not an input file: a
	# request with no mounts of its own takes a jail whose whole root
	# and Landlock rules were built ahead (hutch-exec(8), "The
	# template"; via_serve.py fails a probe that did not get one).
	escape_suite "$unpriv serve --pool, whole" su "$unpriv" -s /bin/sh -c "cd / && env -i PATH=/usr/bin:/bin \
		HUTCH='$prefix/bin/hutch' HUTCH_ESCAPE_SERVE='--pool 2' HUTCH_ESCAPE_WHOLE=1 \
		sh '$prefix/tests/escape/run.sh'"
	echo "$passed $failed" >"$esc_out/unpriv.sum"
) >"$esc_out/unpriv.log" 2>&1 &
esc_unpriv=$!
wait "$esc_root" || true
wait "$esc_unpriv" || true
base_p=$passed base_f=$failed
for s in root unpriv; do
	cat "$esc_out/$s.log"
	if [ -s "$esc_out/$s.sum" ]; then
		read -r p f <"$esc_out/$s.sum"
		passed=$((passed + p - base_p))
		failed=$((failed + f - base_f))
	else
		failed=$((failed + 1))
		echo "[$s] escape: the stream ended without its totals"
	fi
done
rm -rf "$esc_out"

stage distcheck
# 3. The release tarball builds and passes its own checks.
if [ "${HUTCH_DISTCHECK:-1}" = 1 ]; then
	if make -j"$jobs" distcheck DISTCHECK_CONFIGURE_FLAGS="$werror" >distcheck.log 2>&1; then
		passed=$((passed + 1))
		echo "distcheck: passed"
	else
		failed=$((failed + 1))
		echo "distcheck: FAILED"
		tail -40 distcheck.log
		# Which tests, and their own words: the tail above is the summary.
		dlog=$(find . -path '*/_build/sub/test-suite.log' | head -1)
		if [ -n "$dlog" ]; then
			grep -E '^(FAIL|ERROR)' "$dlog" | sed 's/^/[distcheck] /' || true
			grep -E -B2 -A25 '^(not ok|Bail out|ERROR)' "$dlog" | head -150 |
				sed 's/^/[distcheck] /' || true
		fi
	fi
fi

stage sanitizers
# 4. A second tree with ASan and UBSan runs the unit and integration tests.
# Leak checks stay on (STYLE.md section 9). Programs that run inside jails
# (tests/progs/try-syscall) are built without sanitizers: Makefile.am says
# why. A tree that does not build counts as one failure.
if [ "${HUTCH_SANITIZERS:-1}" = 1 ]; then
	cd "$sbuild"
	if "$top/configure" --enable-sanitizers $werror >configure.log 2>&1 &&
		make -j"$jobs" >make.log 2>&1; then
		before_p=$passed before_f=$failed
		set +e
		make -j"$jobs" check >check.log 2>&1
		rc=$?
		set -e
		tally "$rc" sanitizers
		[ "$rc" = 0 ] || grep -E '^make.*\*\*\*|error:' check.log | head -10 | sed 's/^/[sanitizers] /'
		grep -s -E '^(FAIL|ERROR)' test-suite.log | sed 's/^/[sanitizers] /' || true
		find tests -name '*.log' -exec grep -h -E -A12 '^==[0-9]+==ERROR|runtime error:' {} + |
			head -60 | sed 's/^/[sanitizers] /' || true
		echo "sanitizers: $((passed - before_p)) passed, $((failed - before_f)) failed"
	else
		failed=$((failed + 1))
		tail -30 make.log configure.log 2>/dev/null
		echo "sanitizers: the build FAILED"
	fi
	cd "$build"
fi

stage valgrind
# 5. valgrind memcheck: the unit tests (through make check, so they see
# the same environment) and a sample of CLI runs, in a dynamically linked
# tree (memcheck cannot replace malloc in a static-pie binary). No errors,
# no definite leaks. somalloc=nouserintercepts leaves the allocator
# wrappers some unit tests define to themselves. Children are not traced:
# hutch-exec and the jail are not valgrind's to run (and valgrind lacks
# pidfd_open and Landlock, so `hutch run` here gets as far as its probe
# failing, which still runs parsing, narrowing and the failure result).
# test-collect and test-changes are left out here: bookworm's valgrind
# (3.19) does not know openat2, every lookup collection and the change set
# make (they fail closed, ENOSYS); they run in the plain and the ASan
# rounds.
if [ "${HUTCH_VALGRIND:-1}" = 1 ]; then
	vg="valgrind -q --error-exitcode=1 --leak-check=full --errors-for-leak-kinds=definite
		--show-leak-kinds=definite --soname-synonyms=somalloc=nouserintercepts
		--trace-children=no"
	cd "$vbuild"
	if "$top/configure" --disable-static-binaries >configure.log 2>&1 &&
		make -j"$jobs" >make.log 2>&1; then
		before_p=$passed before_f=$failed
		set +e
		make -j"$jobs" check TESTS='$(filter-out tests/unit/test-collect tests/unit/test-changes,$(UNIT_TESTS))' \
			LOG_COMPILER="$(echo $vg)" >check.log 2>&1
		rc=$?
		set -e
		tally "$rc" valgrind
		[ "$rc" = 0 ] || grep -E '^make.*\*\*\*|error:' check.log | head -10 | sed 's/^/[valgrind] /'
		grep -s -E '^(FAIL|ERROR)' test-suite.log | sed 's/^/[valgrind] /' || true
		# The CLI under valgrind, with its own cache: a failed probe is
		# cached per digest, and these runs cannot pass one.
		vcache=$(mktemp -d /dev/shm/hutch-valgrind-cache.XXXXXX)
		i=0
		while IFS= read -r cmd; do
			i=$((i + 1))
			if env XDG_RUNTIME_DIR="$vcache" HUTCH_POLICY_PATH="$top/policy" \
				HUTCH_EXEC="$vbuild/hutch-exec" sh -c "$(echo $vg) ./hutch $cmd" \
				</dev/null >"cli-$i.out" 2>"cli-$i.err"; then
				passed=$((passed + 1))
			else
				failed=$((failed + 1))
				echo "[valgrind] hutch $cmd: FAILED"
				grep -v -E '^--[0-9]+-- ' "cli-$i.err" | head -40 | sed 's/^/[valgrind] /'
			fi
		done <<-EOF
			policy show default
			policy check $top/policy/strict.json
			run --dry-run -- true
			run --json -- /bin/echo hi
			run --json --request $top/fuzz/corpus/request/design-example.json
		EOF
		rm -rf "$vcache"
		echo "valgrind: $((passed - before_p)) passed, $((failed - before_f)) failed"
	else
		failed=$((failed + 1))
		tail -30 make.log configure.log 2>/dev/null
		echo "valgrind: the build FAILED"
	fi
	cd "$build"
fi

stage fuzzing
# 6. Fuzzing: each harness for a bounded time over a copy of its corpus,
# then its regression inputs; a harness that ran clean is one pass.
if [ "${HUTCH_FUZZ:-1}" = 1 ]; then
	set +e
	out=$(FUZZ_SECONDS=${HUTCH_FUZZ_SECONDS:-60} sh "$top/fuzz/run.sh" "$build" 2>&1)
	rc=$?
	set -e
	printf '%s\n' "$out" | sed 's/^/[fuzz] /'
	p=$(printf '%s\n' "$out" | grep -c -E '^fuzz-[a-z-]+( regressions)?: .*: ok$' || true)
	f=$(printf '%s\n' "$out" | grep -c -E '^fuzz-[a-z-]+( regressions)?: .*: FAILED$' || true)
	if [ "$rc" != 0 ] && [ "$f" = 0 ]; then
		f=1 # it failed before any harness ran
	fi
	passed=$((passed + p))
	failed=$((failed + f))
fi

stage "package and VM matrix"
# The Debian package, as a distribution would ship it: built from the
# release tarball (packaging/build-deb.sh: dpkg-buildpackage, then lintian
# with errors fatal), installed with apt-get, no set-id file and no file
# capabilities in it, the integration tests against /usr/bin/hutch as root
# and as the unprivileged user, then removed. Root only (apt-get);
# HUTCH_DEB=0 leaves it out. The package is the machine's, not this run's:
# a lock keeps two runs on one machine from installing and removing it
# under each other's tests.
if [ "${HUTCH_DEB:-1}" = 1 ] && [ "$(id -u)" = 0 ] && command -v dpkg-buildpackage >/dev/null 2>&1; then
	# Descriptor 8: the tests use 9 as "surely closed" (and close it anyway).
	exec 8>/tmp/hutch-ci-deb.lock
	flock 8
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
	# The same package in VMs booting Debian's own kernels under systemd
	# (tests/vm/README); its closing line joins the totals.
	if [ -n "$deb" ] && [ "${HUTCH_VM:-1}" = 1 ]; then
		set +e
		out=$(HUTCH_MUST_WORK=${HUTCH_MUST_WORK:-0} sh "$top/tests/vm/run.sh" "$build" "$deb" 2>&1)
		set -e
		printf '%s\n' "$out" | grep -v -E '^vm: [0-9]+ passed' || true
		line=$(printf '%s\n' "$out" | grep -E '^vm: [0-9]+ passed, [0-9]+ failed$' | tail -1 || true)
		if [ -n "$line" ]; then
			line=${line#vm: }
			passed=$((passed + ${line%% passed*}))
			f=${line#*, }
			failed=$((failed + ${f%% failed}))
		else
			failed=$((failed + 1))
			echo "vm: no summary line"
		fi
	fi
	rm -rf "$debout"
	flock -u 8
	exec 8>&-
fi

stage done
echo "hutch: $passed passed, $failed failed"
echo "hutch: $passed passed, $failed failed"
[ "$failed" = 0 ]
