#!/bin/sh
# packaging/build-deb.sh [OUTDIR]: build the Debian package of hutch the way
# a distribution would, from the release tarball: `make dist` in a scratch
# build tree, the tarball unpacked as hutch_VERSION.orig.tar.gz, this
# directory's debian/ put in place, `dpkg-buildpackage -us -uc -b`, then
# `lintian --fail-on error`. Works from a clean clone (it runs autoreconf)
# and leaves nothing in the source tree but autoreconf's output. Copies the
# .deb files to OUTDIR (default: the current directory) and prints the path
# of the hutch .deb as its last line. Needs the Build-Depends of
# debian/control plus dpkg-dev, debhelper, fakeroot and lintian.
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
out=$(cd "${1:-.}" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/hutch-deb.XXXXXX")
trap 'rm -rf "$work"' EXIT
say() { printf 'build-deb: %s\n' "$*" >&2; }

# fail STEP LOG: the end of a step's log, then stop.
fail() {
	say "$1 FAILED; the end of $2:"
	tail -40 "$2" >&2
	exit 1
}

# 1. The release tarball.
say "make dist"
(cd "$top" && autoreconf -fi) >"$work/autoreconf.log" 2>&1 || fail autoreconf "$work/autoreconf.log"
mkdir "$work/dist"
(cd "$work/dist" && "$top/configure" && make dist) >"$work/dist.log" 2>&1 ||
	fail "make dist" "$work/dist.log"
set -- "$work"/dist/hutch-*.tar.gz
[ $# = 1 ] && [ -f "$1" ] || fail "make dist (no single hutch-*.tar.gz)" "$work/dist.log"
tarball=$1
upstream=${tarball##*/hutch-}
upstream=${upstream%.tar.gz}

# 2. The Debian source tree: orig tarball, unpacked, debian/ added.
deb_version=$(dpkg-parsechangelog -l "$top/packaging/debian/changelog" -S Version)
if [ "${deb_version%-*}" != "$upstream" ]; then
	say "packaging/debian/changelog is at $deb_version but the source is $upstream:"
	say "add a changelog entry for $upstream-1 (dch -v $upstream-1)"
	exit 1
fi
cp "$tarball" "$work/hutch_$upstream.orig.tar.gz"
tar -C "$work" -xzf "$tarball"
src=$work/hutch-$upstream
cp -R "$top/packaging/debian" "$src/debian"

# 3. Build the binary package.
say "dpkg-buildpackage -us -uc -b ($deb_version)"
: "${DEB_BUILD_OPTIONS:=parallel=$(nproc 2>/dev/null || echo 2)}"
export DEB_BUILD_OPTIONS
(cd "$src" && dpkg-buildpackage -us -uc -b) >"$work/build.log" 2>&1 ||
	fail dpkg-buildpackage "$work/build.log"
grep -E '^(PASS|FAIL|SKIP|ERROR): ' "$work/build.log" | sed 's/^/build-deb: unit test: /' >&2 || true

# 4. lintian: errors fail the build; warnings are shown.
set -- "$work"/hutch_*.changes
say "lintian $(basename "$1")"
if ! lintian --fail-on error --display-info "$1" >"$work/lintian.log" 2>&1; then
	sed 's/^/build-deb: lintian: /' "$work/lintian.log" >&2
	say "lintian reported errors"
	exit 1
fi
sed 's/^/build-deb: lintian: /' "$work/lintian.log" >&2
[ -s "$work/lintian.log" ] || say "lintian: no tags"

# 5. Hand the packages over.
for d in "$work"/*.deb; do
	cp "$d" "$out/"
done
ls "$out"/hutch_"$deb_version"_*.deb
