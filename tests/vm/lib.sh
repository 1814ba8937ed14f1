# tests/vm/lib.sh: what the VM harness scripts share (sourced, POSIX sh).
# The cache holds the root image and one boot bundle per kernel; CI keeps
# it between its steps, so only a missing or outdated piece is rebuilt.

vm_here=$(cd "$(dirname "$0")" && pwd)
if [ -n "${HUTCH_VM_CACHE:-}" ]; then
	vm_cache=$HUTCH_VM_CACHE
elif [ "$(id -u)" = 0 ]; then
	vm_cache=/var/cache/hutch-vm
else
	vm_cache=${XDG_CACHE_HOME:-$HOME/.cache}/hutch-vm
fi
vm_mirror=${HUTCH_VM_MIRROR:-http://deb.debian.org/debian}
vm_keyring=/usr/share/keyrings/debian-archive-keyring.gpg

vm_say() { printf 'vm: %s\n' "$*" >&2; }
vm_die() { vm_say "$*"; exit 2; }

# vm_recipe_digest FILE...: a digest of the files a cached piece is built
# from, so that changing the recipe rebuilds it.
vm_recipe_digest() { cat "$@" | sha256sum | cut -c1-16; }

# vm_apt_init SUITE TMPDIR: apt-get with a private state directory holding only
# SUITE of the Debian archive: the host's own sources and status neither
# help nor matter (a bookworm host fetches a trixie kernel the same way).
vm_apt_init() {
	mkdir -p "$2/apt/lists/partial" "$2/apt/cache/archives/partial" "$2/apt/etc/parts"
	: >"$2/apt/status"
	# A backports suite needs its base suite beside it (busybox-static).
	for s in "$1" "${1%-backports}"; do
		echo "deb [signed-by=$vm_keyring] $vm_mirror $s main"
	done | uniq >"$2/apt/etc/sources.list"
	vm_apt_opts="-o Dir::State=$2/apt -o Dir::State::Lists=$2/apt/lists
		-o Dir::State::status=$2/apt/status -o Dir::Cache=$2/apt/cache
		-o Dir::Etc::SourceList=$2/apt/etc/sources.list -o Dir::Etc::SourceParts=$2/apt/etc/parts
		-o Dir::Etc::Preferences=/dev/null -o Dir::Etc::PreferencesParts=$2/apt/etc/parts
		-o APT::Default-Release=$1 -o Debug::NoLocking=1 -o APT::Sandbox::User=root"
	# shellcheck disable=SC2086
	apt-get -qq $vm_apt_opts update >&2
}

# vm_apt_download PKG...: fetch .deb files into the current directory.
vm_apt_download() {
	# shellcheck disable=SC2086
	apt-get -qq $vm_apt_opts download "$@" >&2
}
