# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash
#
# kernel/kbuild.sh: the bzImages of kernel/ktest.sh, sourced by it.
# Debian's linux-source-6.1 without and with kernel/patches/, Debian's
# linux-source-6.12, sid's linux-source-7.2 and bullseye(-security)'s
# linux-source-5.10 (both fetched from the machine's own mirror, see
# fetch_linux_source), each allnoconfig + kernel/hugebuf.config
# (+ kernel/hugebuf-7.2.config for 7.2), cached in $KTEST_CACHE under a
# key of (source package version, fragment, compiler [, series]): a
# cached image is used as it is.
# Needs from ktest.sh: KDIR, TOP, KTEST_CACHE, KTEST_KERNELS, KTEST_JOBS,
# log, die, count.

TARBALL=/usr/src/linux-source-6.1.tar.xz
TARBALL_612=/usr/src/linux-source-6.12.tar.xz
FRAGMENT=$KDIR/hugebuf.config
# 7.2's own additions to the fragment (symbols the older kernels lack)
FRAGMENT_72=$KDIR/hugebuf-7.2.config
PATCHES=$KDIR/patches
SRC=$KTEST_CACHE/src/linux-source-6.1
BUILD=$KTEST_CACHE/build
SRC_612=$KTEST_CACHE/src612/linux-source-6.12
BUILD_612=$KTEST_CACHE/build-6.12
# 7.2 and 5.10 are not in bookworm: sid's and bullseye(-security)'s binary
# package linux-source-X.Y (an _all.deb holding
# /usr/src/linux-source-X.Y.tar.xz) is downloaded once into
# $KTEST_CACHE/deb-X.Y and taken apart there with dpkg -x
# (fetch_linux_source); delete that directory to take the newest
TARBALL_72=$KTEST_CACHE/deb-7.2/root/usr/src/linux-source-7.2.tar.xz
APT_72=$KTEST_CACHE/apt-sid
SRC_72=$KTEST_CACHE/src72/linux-source-7.2
BUILD_72=$KTEST_CACHE/build-7.2
TARBALL_510=$KTEST_CACHE/deb-5.10/root/usr/src/linux-source-5.10.tar.xz
APT_510=$KTEST_CACHE/apt-bullseye
SRC_510=$KTEST_CACHE/src510/linux-source-5.10
BUILD_510=$KTEST_CACHE/build-5.10
# 5.10's own additions to the fragment, when it has a file of them
FRAGMENT_510=
IMAGES=$KTEST_CACHE/images
# the fragment's CONFIG_LOCALVERSION marks a kernel built from our series;
# the unpatched baseline, 6.12 and 7.2 are built with it emptied, so their
# release strings are the plain upstream versions
HB_LOCALVERSION=$(sed -n 's/^CONFIG_LOCALVERSION="\(.*\)"$/\1/p' "$FRAGMENT")

# ---- source packages from the machine's own apt sources ----------------

APT_UPDATED=0
apt_updated() {
	[ $APT_UPDATED = 1 ] && return 0
	apt-get update -q >/dev/null 2>&1 || die "apt-get update failed"
	APT_UPDATED=1
}

# tools/check.sh may run this beside other stages: wait for dpkg's lock
apt_install() {
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
		-o DPkg::Lock::Timeout=900 "$@" >"$KTEST_CACHE/apt.log" 2>&1
}

# A kernel source package from the machine's own apt sources, installed
# when missing.  One the sources do not offer (a minimal root whose
# sources hold only bookworm lacks bookworm-security's linux-source-6.12)
# leaves WHY_SOURCE, the reason its kernels are a counted skip, naming
# the package and the suite that serves it; empty when the tarball is
# there.
source_package() {	# $1 = package, $2 = its tarball, $3 = Debian's suite
	WHY_SOURCE=
	[ -f "$2" ] && return 0
	if [ "$(id -u)" != 0 ]; then
		WHY_SOURCE="$1 is not installed (run as root to install it)"
		return 0
	fi
	apt_updated
	if [ -z "$(apt-cache policy "$1" 2>/dev/null |
		   sed -n 's/^ *Candidate: //p' | grep -v '(none)')" ]; then
		WHY_SOURCE="$1 is not in this machine's apt sources (Debian serves it in $3: add that suite to /etc/apt/sources.list)"
		return 0
	fi
	log "installing $1"
	apt_install "$1" ||
		die "apt-get install $1 failed, see $KTEST_CACHE/apt.log"
	[ -f "$2" ] || WHY_SOURCE="$2 still missing after installing $1"
}

# ---- keys: image = (source package version, fragment, compiler [, series])

sha() { sha256sum | cut -c1-16; }

src_version() {	# $1 = package, $2 = tarball
	local v
	v=$(dpkg-query -W -f='${Version}' "$1" 2>/dev/null)
	[ -n "$v" ] || v=$(stat -c '%s-%Y' "$2" 2>/dev/null)
	echo "$v"
}

compute_keys() {
	SRC_ID=$(src_version linux-source-6.1 "$TARBALL")
	SRC_ID_612=$(src_version linux-source-6.12 "$TARBALL_612")
	SERIES=$(cd "$PATCHES" && ls [0-9][0-9][0-9][0-9]-*.patch 2>/dev/null)
	[ -n "$SERIES" ] || die "no patches in $PATCHES"
	KEY_U=$( { echo "$SRC_ID"; cat "$FRAGMENT"; gcc --version | head -1; } | sha)
	KEY_P=$( { echo "$KEY_U"; for p in $SERIES; do cat "$PATCHES/$p"; done; } | sha)
	KEY_612=$( { echo "$SRC_ID_612"; cat "$FRAGMENT"; gcc --version | head -1; } | sha)
	IMG_U=$IMAGES/bzImage-unpatched-$KEY_U
	IMG_P=$IMAGES/bzImage-patched-$KEY_P
	IMG_612=$IMAGES/bzImage-6.12-$KEY_612
	# 7.2's and 5.10's keys need their packages, fetched only when wanted
	KEY_72=- IMG_72= KEY_510=- IMG_510=
}

# ---- 7.2 and 5.10: another release's linux-source-X.Y from the mirror ------

# apt's first E: or W: line in log $1 that gives a reason
apt_reason() {
	grep -E '^(E|W):' "$1" | grep -v 'Download is performed unsandboxed' |
		head -n 1
}

# linux-source-$1 is in the cache: its tarball unpacked and the version
# file, which fetch_linux_source() writes last
fetched() {
	[ -f "$KTEST_CACHE/deb-$1/root/usr/src/linux-source-$1.tar.xz" ] &&
		[ -s "$KTEST_CACHE/deb-$1/version" ]
}

# Download the binary package linux-source-$1 (an _all.deb holding
# /usr/src/linux-source-$1.tar.xz) of suites $3... into $KTEST_CACHE/deb-$1
# (once) and unpack it there with dpkg -x; $2 is its private apt state.
# When several suites serve it, apt takes the newest version among them,
# so a suite that lacks it or whose index cannot be had is a fallback,
# not a failure.  The mirror, components and keyring are the machine's
# own: the deb entries of its release (tools/apt-sources.sh), each suite
# derived from the machine's suite of the same kind (sid and bullseye from
# bookworm, bullseye-security from bookworm-security), in a private apt
# state: /etc/apt and /var/lib/apt are not touched.  apt-get checks the
# signature of each InRelease with that keyring, the Packages index
# against InRelease, and the .deb against the SHA-256 the index gives for
# it, so what dpkg -x unpacks is the signed package.  Sets FETCH_VERSION
# (the package version) and FETCH_TARBALL; returns 1 with the reason in
# FETCH_WHY when the package cannot be had (no apt source, mirror
# unreachable, package not served).  Delete deb-X.Y to take the newest.
fetch_linux_source() {	# $1 = X.Y, $2 = apt state dir, $3... = suites
	local ver=$1 apt=$2 codename deb s pairs="" dir
	shift 2
	dir=$KTEST_CACHE/deb-$ver
	FETCH_TARBALL=$dir/root/usr/src/linux-source-$ver.tar.xz
	FETCH_WHY= FETCH_VERSION=
	if ! fetched "$ver"; then
		codename=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
		[ -n "$codename" ] ||
			{ FETCH_WHY="no VERSION_CODENAME in /etc/os-release"; return 1; }
		# suite "<release>-<kind>" from the machine's "$codename-<kind>"
		for s in "$@"; do
			case $s in
			*-*) pairs="$pairs $codename-${s#*-} $s" ;;
			*) pairs="$pairs $codename $s" ;;
			esac
		done
		# shellcheck source=tools/apt-sources.sh
		. "$TOP/tools/apt-sources.sh"
		# shellcheck disable=SC2086
		apt_state_binaries "$apt" $pairs ||
			{ FETCH_WHY="no enabled apt source of $codename to derive $* from"; return 1; }
		log "fetching linux-source-$ver from $* (apt-get download, logs in $apt)"
		# apt-get update says W: for an index it cannot fetch and
		# E: (exit 100) for a suite the mirror lacks; either way the
		# other suites' indexes are in, so the download decides, and
		# update's first such line is the reason when it fails.  (apt's
		# "unsandboxed" W: is about the download directory, not a
		# reason.)
		apt_state_run "$apt" -o Acquire::Languages=none update \
			>"$apt/update.log" 2>&1 ||
			log "apt-get update of $* exited non-zero (a suite missing?): $(apt_reason "$apt/update.log")"
		rm -rf "$dir"
		mkdir -p "$dir"
		if ! (cd "$dir" && apt_state_run "$apt" download \
			"linux-source-$ver") >"$apt/fetch.log" 2>&1; then
			if [ -n "$(apt_reason "$apt/update.log")" ]; then
				FETCH_WHY="the index of $* cannot be had: $(apt_reason "$apt/update.log") (see $apt/update.log)"
			else
				FETCH_WHY="the mirror does not serve linux-source-$ver in $*: $(apt_reason "$apt/fetch.log") (see $apt/fetch.log)"
			fi
			return 1
		fi
		for deb in "$dir/linux-source-${ver}"_*_all.deb; do break; done
		[ -f "$deb" ] ||
			{ FETCH_WHY="apt-get download left no linux-source-$ver .deb in $dir, see $apt/fetch.log"; return 1; }
		dpkg -x "$deb" "$dir/root" ||
			{ FETCH_WHY="$deb does not unpack with dpkg -x"; return 1; }
		[ -f "$FETCH_TARBALL" ] ||
			{ FETCH_WHY="$deb holds no usr/src/linux-source-$ver.tar.xz"; return 1; }
		dpkg-deb -f "$deb" Version >"$dir/version"
		log "linux-source-$ver $(cat "$dir/version"): $(grep -m1 '^Get:' "$apt/fetch.log" | cut -d' ' -f2-4)"
		rm -f "$deb"
	fi
	FETCH_VERSION=$(cat "$dir/version")
}

# sid's linux-source-7.2; sets SRC_ID_72 (the package version), KEY_72 and
# IMG_72, or WHY_72
fetch_source_72() {
	fetch_linux_source 7.2 "$APT_72" sid ||
		{ WHY_72=$FETCH_WHY; return 1; }
	SRC_ID_72=$FETCH_VERSION
	KEY_72=$( { echo "$SRC_ID_72"; cat "$FRAGMENT" "$FRAGMENT_72";
		gcc --version | head -1; } | sha)
	IMG_72=$IMAGES/bzImage-7.2-$KEY_72
}

# bullseye's linux-source-5.10, bullseye-security's when it has one (the
# newer stable release); sets SRC_ID_510, KEY_510 and IMG_510, or WHY_510
fetch_source_510() {
	fetch_linux_source 5.10 "$APT_510" bullseye-security bullseye ||
		{ WHY_510=$FETCH_WHY; return 1; }
	SRC_ID_510=$FETCH_VERSION
	KEY_510=$( { echo "$SRC_ID_510"; cat "$FRAGMENT" $FRAGMENT_510;
		gcc --version | head -1; } | sha)
	IMG_510=$IMAGES/bzImage-5.10-$KEY_510
}

# ---- source tree: unpack once, apply/revert the series by backup ---------

# unpack $1 (a tarball) into the directory above $2 (its top directory)
# unless the stamp there says it holds version $3; $4 = its build dir
unpack_tree() {	# $1 = tarball, $2 = src, $3 = version, $4 = build
	local top stamp
	top=$(dirname "$2")
	stamp=$top/.unpacked
	[ -d "$2" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$3" ] && return 0
	log "unpacking $1 ($3) into $top"
	rm -rf "$top" "$4"
	mkdir -p "$top"
	tar -C "$top" -xf "$1" || die "unpacking $1 failed"
	[ -d "$2" ] || die "$1 did not contain $(basename "$2")/"
	echo "$3" >"$stamp"
}

unpack_source() { unpack_tree "$TARBALL" "$SRC" "$SRC_ID" "$BUILD"; }
unpack_source_612() {
	unpack_tree "$TARBALL_612" "$SRC_612" "$SRC_ID_612" "$BUILD_612"
}
unpack_source_72() {
	unpack_tree "$TARBALL_72" "$SRC_72" "$SRC_ID_72" "$BUILD_72"
}
unpack_source_510() {
	unpack_tree "$TARBALL_510" "$SRC_510" "$SRC_ID_510" "$BUILD_510"
}

# files a patch touches (a/ side and b/ side)
patch_files() {
	sed -n -e 's|^--- a/||p' -e 's|^+++ b/||p' "$1" | sort -u
}

# put every file the applied series touched back to its pristine copy; the
# copies get a fresh mtime, so make rebuilds exactly what depends on them
revert_series() {
	local bak=$KTEST_CACHE/src/backup f
	[ -d "$bak" ] || return 0
	log "reverting $(cat "$bak/.series" 2>/dev/null | wc -l) applied patch(es)"
	while read -r f; do
		if [ -f "$bak/files/$f" ]; then
			cp "$bak/files/$f" "$SRC/$f"
		else
			rm -f "$SRC/$f"
		fi
	done <"$bak/.files"
	rm -rf "$bak"
}

# apply the first $1 patches of the series (default: all)
apply_series() {
	local n=${1:-999} bak=$KTEST_CACHE/src/backup p f i=0
	revert_series
	mkdir -p "$bak/files"
	: >"$bak/.files"
	: >"$bak/.series"
	for p in $SERIES; do
		i=$((i + 1))
		[ $i -le "$n" ] || break
		for f in $(patch_files "$PATCHES/$p"); do
			grep -qxF "$f" "$bak/.files" && continue
			echo "$f" >>"$bak/.files"
			if [ -f "$SRC/$f" ]; then
				mkdir -p "$bak/files/$(dirname "$f")"
				cp -p "$SRC/$f" "$bak/files/$f"
			fi
		done
		patch -d "$SRC" -p1 -s --forward --batch <"$PATCHES/$p" \
			>"$KTEST_CACHE/patch.log" 2>&1 ||
			{ cat "$KTEST_CACHE/patch.log" >&2; die "$p does not apply"; }
		echo "$p" >>"$bak/.series"
	done
}

# allnoconfig + the fragment in $2 (build dir) from source $1, keyed by $3;
# then CONFIG_LOCALVERSION=$4 (the fragment's for our series, "" otherwise),
# which alone only rebuilds what depends on the release string.  $5 is a
# fragment of this kernel's own, merged after the common one (the merge
# is $2/ktest-fragment.config).
configure_kernel() {	# $1 = src, $2 = build, $3 = key, $4 = localversion [, $5]
	local src=${1:-$SRC} build=${2:-$BUILD} key=${3:-$KEY_U} lv=${4-} l
	local frag=$FRAGMENT names
	names=$(basename "$FRAGMENT")
	if ! [ -f "$build/.config" ] ||
	   [ "$(head -1 "$build/.ktest-config" 2>/dev/null)" != "$key" ]; then
		mkdir -p "$build"
		if [ -n "${5:-}" ]; then
			frag=$build/ktest-fragment.config
			cat "$FRAGMENT" "$5" >"$frag"
			names="$names + $(basename "$5")"
		fi
		log "configuring $(basename "$src"): allnoconfig + $names"
		make -C "$src" O="$build" ARCH=x86_64 allnoconfig \
			KCONFIG_ALLCONFIG="$frag" >"$KTEST_CACHE/config.log" 2>&1 ||
			die "configuration failed, see $KTEST_CACHE/config.log"
		for l in $(grep '^CONFIG_[A-Z0-9_]*=' "$frag"); do
			grep -qxF "$l" "$build/.config" ||
				die "$l from $names did not survive kconfig in $(basename "$src")"
		done
		echo "$key" >"$build/.ktest-config"
	fi
	[ "$(sed -n 2p "$build/.ktest-config")" = "lv=$lv" ] && return 0
	"$src/scripts/config" --file "$build/.config" --set-str LOCALVERSION "$lv" &&
		make -C "$src" O="$build" ARCH=x86_64 olddefconfig \
			>>"$KTEST_CACHE/config.log" 2>&1 ||
		die "setting CONFIG_LOCALVERSION failed, see $KTEST_CACHE/config.log"
	printf '%s\nlv=%s\n' "$key" "$lv" >"$build/.ktest-config"
}

make_image() {	# $1 = label, $2 = destination [, $3 = src, $4 = build]
	local t=$(date +%s) src=${3:-$SRC} build=${4:-$BUILD}
	log "building $1 bzImage (make -j$KTEST_JOBS, log: $KTEST_CACHE/build-$1.log)"
	make -C "$src" O="$build" ARCH=x86_64 -j"$KTEST_JOBS" bzImage \
		>"$KTEST_CACHE/build-$1.log" 2>&1 ||
		{ tail -30 "$KTEST_CACHE/build-$1.log" >&2; die "$1 build failed"; }
	# io_uring/ since 5.19, fs/io_uring.c before (5.10)
	if grep -E '(warning|error):' "$KTEST_CACHE/build-$1.log" |
	   grep -qE 'io_uring(/|\.c:)'; then
		grep -E '(warning|error):' "$KTEST_CACHE/build-$1.log" |
			grep -E 'io_uring(/|\.c:)' >&2
		die "$1 build has io_uring warnings"
	fi
	mkdir -p "$IMAGES"
	cp "$build/arch/x86/boot/bzImage" "$2.tmp" && mv "$2.tmp" "$2"
	log "$1 bzImage built in $(($(date +%s) - t)) s"
}

# the bzImage of kernel $1 (empty for 7.2 until its package is fetched)
image_of() {
	case $1 in
	unpatched) echo "$IMG_U" ;;
	patched) echo "$IMG_P" ;;
	6.12) echo "$IMG_612" ;;
	7.2) echo "$IMG_72" ;;
	5.10) echo "$IMG_510" ;;
	esac
}

check_kernel_names() {
	local k
	for k in $KTEST_KERNELS; do
		case $k in
		unpatched | patched | 6.12 | 7.2 | 5.10) ;;
		*) die "KTEST_KERNELS: unknown kernel $k (known: unpatched patched 6.12 7.2 5.10)" ;;
		esac
	done
}

# build kernel $1 unless its image is cached; the caller holds the cache
# lock (fd 9).  1 when it has no image and is not to be booted: 7.2 or
# 5.10 whose package cannot be had (a counted skip, the reason in
# WHY_NO_IMAGE).
build_kernel() {
	case $1 in
	unpatched | patched)
		[ -z "$WHY_SRC_61" ] || { WHY_NO_IMAGE=$WHY_SRC_61; return 1; } ;;
	6.12)
		[ -z "$WHY_SRC_612" ] || { WHY_NO_IMAGE=$WHY_SRC_612; return 1; } ;;
	esac
	case $1 in
	unpatched)
		[ -f "$IMG_U" ] && return 0
		unpack_source
		configure_kernel "$SRC" "$BUILD" "$KEY_U" ""
		revert_series
		make_image unpatched "$IMG_U" ;;
	patched)
		[ -f "$IMG_P" ] && return 0
		unpack_source
		configure_kernel "$SRC" "$BUILD" "$KEY_U" "$HB_LOCALVERSION"
		apply_series
		make_image patched "$IMG_P" ;;
	6.12)
		[ -f "$IMG_612" ] && return 0
		unpack_source_612
		configure_kernel "$SRC_612" "$BUILD_612" "$KEY_612" ""
		make_image 6.12 "$IMG_612" "$SRC_612" "$BUILD_612" ;;
	7.2)
		fetch_source_72 || { WHY_NO_IMAGE=$WHY_72; return 1; }
		[ -f "$IMG_72" ] && return 0
		unpack_source_72
		configure_kernel "$SRC_72" "$BUILD_72" "$KEY_72" "" "$FRAGMENT_72"
		make_image 7.2 "$IMG_72" "$SRC_72" "$BUILD_72" ;;
	5.10)
		fetch_source_510 || { WHY_NO_IMAGE=$WHY_510; return 1; }
		[ -f "$IMG_510" ] && return 0
		unpack_source_510
		configure_kernel "$SRC_510" "$BUILD_510" "$KEY_510" "" \
			$FRAGMENT_510
		make_image 5.10 "$IMG_510" "$SRC_510" "$BUILD_510" ;;
	esac
}

# --build-only: every kernel of KTEST_KERNELS in turn, taking the cache
# lock for each and letting it go between two, so that a ktest run that
# waits for one of them (ready_kernel) can boot it while the next builds
build_kernels() {
	local k
	check_kernel_names
	for k in $KTEST_KERNELS; do
		flock -w 7200 9 || die "$KTEST_CACHE is locked by another ktest for 2 hours"
		build_kernel "$k" || log "$k: $WHY_NO_IMAGE"
		flock -u 9
	done
	log "bzImages: $KTEST_KERNELS ($KEY_U / $KEY_P / $KEY_612 / $KEY_72 / $KEY_510)"
}

# A run boots each kernel as soon as its image is there: the build ahead
# of tools/check.sh (ktest.sh --build-only, in the background) may still be
# making the later ones.  Wait while another ktest holds the cache lock
# (polled: flock would not say which kernel it is building), build it
# here when nobody does.  1 when the kernel has no image and is not booted
# (7.2 or 5.10 whose package cannot be had: counted as a skip here).
ready_kernel() {	# $1 = kernel
	local img waited=0 rc
	while :; do
		# 5.10's and 7.2's image names need their package's version:
		# read it once the build ahead has fetched the package (no
		# download then), not only under the lock, which the build
		# ahead holds while it makes the next kernel
		case $1 in
		7.2) [ -n "$IMG_72" ] || ! fetched 7.2 || fetch_source_72 ;;
		5.10) [ -n "$IMG_510" ] || ! fetched 5.10 || fetch_source_510 ;;
		esac
		img=$(image_of "$1")
		[ -n "$img" ] && [ -f "$img" ] && return 0
		if flock -n 9; then
			build_kernel "$1"
			rc=$?
			flock -u 9
			[ $rc = 0 ] && return 0
			count skip "$1 guest: $WHY_NO_IMAGE"
			return 1
		fi
		[ $waited = 0 ] && log "$1: waiting for the kernel build that holds $KTEST_CACHE/lock"
		[ $waited -lt 7200 ] || die "$KTEST_CACHE/lock held for 2 hours"
		sleep 5
		waited=$((waited + 5))
	done
}

run_checkpatch() {
	local p out rc=0
	unpack_source
	for p in $SERIES; do
		out=$(cd "$SRC" && ./scripts/checkpatch.pl --strict "$PATCHES/$p" 2>&1)
		echo "$p: $(echo "$out" | grep '^total:')"
		echo "$out" | grep -q '^total: 0 errors, 0 warnings' || {
			echo "$out"
			rc=1
		}
	done
	return $rc
}

run_bisect() {
	local n=0 p
	unpack_source
	configure_kernel "$SRC" "$BUILD" "$KEY_U" "$HB_LOCALVERSION"
	for p in $SERIES; do
		n=$((n + 1))
		apply_series $n
		make_image "bisect-$n" "$KTEST_CACHE/bisect.bzImage" || return 1
		log "tree builds after $p"
	done
	rm -f "$KTEST_CACHE/bisect.bzImage"
}

