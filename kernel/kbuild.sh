# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash
#
# kernel/kbuild.sh: the guest kernels of kernel/ktest.sh and the packages
# it needs, sourced by it.
# kernel/kernels.tab lists them; this file reads it (kernel_field,
# kernels_where) for ktest.sh, kboot.sh and kiommu.sh.  Only our series is
# compiled: Debian's linux-source-6.1, allnoconfig + kernel/hugebuf.config,
# once without kernel/patches/ ("control") and once with them ("patched"),
# cached in $KTEST_CACHE/images under a key of (source package version,
# fragment, compiler [, series]).  A "fix" kernel (kernels.tab's
# build:fix:PATCH lines) is the control with one patch of kernel/patches/
# alone, built in the control's tree, so that make rebuilds only what the
# patch touches.  The "mainline" kernel (build:mainline) is Debian's
# linux-source-7.3 with kernel/patches/mainline, fetched and built by
# kernel/k73.sh's functions, sourced here.  Every other kernel is Debian's
# own prebuilt image (kernel/kdeb.sh).
# Needs from ktest.sh: KDIR, TOP, KTEST_CACHE, KTEST_KERNELS, KTEST_JOBS,
# log, die, count.

# shellcheck source=kernel/checkpatch.sh
. "$KDIR/checkpatch.sh"

# linux-source-7.3 and its build with the mainline patch (build:mainline)
# shellcheck source=kernel/k73.sh
. "$KDIR/k73.sh"

KERNELS_TAB=$KDIR/kernels.tab
TARBALL=/usr/src/linux-source-6.1.tar.xz
FRAGMENT=$KDIR/hugebuf.config
# the debug kernel: the patched one with KASAN and lockdep on top
FRAGMENT_DEBUG=$KDIR/hugebuf-debug.config
PATCHES=$KDIR/patches
SRC=$KTEST_CACHE/src/linux-source-6.1
BUILD=$KTEST_CACHE/build
BUILD_DEBUG=$KTEST_CACHE/build-debug
IMAGES=$KTEST_CACHE/images
# the fragment's CONFIG_LOCALVERSION marks a kernel built from our series;
# the control is built with it emptied, so its release is the plain 6.1.N
HB_LOCALVERSION=$(sed -n 's/^CONFIG_LOCALVERSION="\(.*\)"$/\1/p' "$FRAGMENT")

# ---- the table ---------------------------------------------------------------

# column $2 (name source model coal imufail iommu run) of kernel $1's line
kernel_field() {	# $1 = kernel, $2 = column
	awk -v k="$1" -v f="$2" '
	BEGIN { n = split("name source model coal imufail iommu run", c, " ")
		for (i = 1; i <= n; i++) col[c[i]] = i }
	/^#/ || NF == 0 { next }
	$1 == k { print $col[f]; exit }' "$KERNELS_TAB"
}

# the kernels whose column $1 matches the regular expression $2, in order
kernels_where() {	# $1 = column, $2 = ERE
	awk -v f="$1" -v re="$2" '
	BEGIN { n = split("name source model coal imufail iommu run", c, " ")
		for (i = 1; i <= n; i++) col[c[i]] = i }
	/^#/ || NF == 0 { next }
	$col[f] ~ re { printf "%s%s", s, $1; s = " " }' "$KERNELS_TAB"
}

# KTEST_KERNELS "default" (the table's run=default lines), "all" (every
# line) or names; KTEST_IOMMU_KERNELS unset: the iommu=yes lines among them
resolve_kernels() {
	local k
	case $KTEST_KERNELS in
	default) KTEST_KERNELS=$(kernels_where run '^default$') ;;
	all) KTEST_KERNELS=$(kernels_where name .) ;;
	esac
	for k in $KTEST_KERNELS; do
		[ -n "$(kernel_field "$k" source)" ] ||
			die "KTEST_KERNELS: unknown kernel $k (kernel/kernels.tab has: $(kernels_where name .))"
	done
	if [ "${KTEST_IOMMU_KERNELS-unset}" = unset ]; then
		KTEST_IOMMU_KERNELS=
		for k in $KTEST_KERNELS; do
			[ "$(kernel_field "$k" iommu)" = yes ] &&
				KTEST_IOMMU_KERNELS="$KTEST_IOMMU_KERNELS $k"
		done
		KTEST_IOMMU_KERNELS=${KTEST_IOMMU_KERNELS# }
	fi
}

is_built() { case $(kernel_field "$1" source) in build:*) return 0 ;; esac; return 1; }

# built here from Debian's 6.1 tree: every build: kernel but the mainline one
is_built_61() { is_built "$1" && [ "$(kernel_field "$1" source)" != build:mainline ]; }


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

# the packages the harness needs, installed when missing (root)
ensure_packages() {
	local missing="" pair cmd pkg k
	for pair in qemu-system-x86_64:qemu-system-x86 busybox:busybox-static \
		    flex:flex bison:bison bc:bc cpio:cpio mkfs.ext4:e2fsprogs \
		    xz:xz-utils make:make gcc:gcc fio:fio perl:perl file:file; do
		cmd=${pair%%:*} pkg=${pair#*:}
		command -v "$cmd" >/dev/null 2>&1 || missing="$missing $pkg"
	done
	[ -f /usr/include/libelf.h ] || missing="$missing libelf-dev"
	[ -f /usr/include/liburing.h ] || missing="$missing liburing-dev"
	[ -f /usr/include/openssl/ssl.h ] || missing="$missing libssl-dev"
	if [ -n "$missing" ]; then
		[ "$(id -u)" = 0 ] || die "missing packages:$missing (run as root or install them)"
		log "installing:$missing"
		apt_updated
		apt_install $missing ||
			die "apt-get install failed, see $KTEST_CACHE/apt.log"
	fi
	# all of the list read (not grep -q): pipefail would count the
	# SIGPIPE of the writer grep -q left early as "no applet"
	busybox --list 2>/dev/null | grep -x timeout >/dev/null ||
		die "busybox has no timeout applet"
	# the 6.1 tree of our kernels, when one of them is to boot
	WHY_SRC_61=
	for k in $KTEST_KERNELS; do
		is_built_61 "$k" || continue
		source_package linux-source-6.1 "$TARBALL" bookworm
		WHY_SRC_61=$WHY_SOURCE
		break
	done
}

# ---- keys: image = (source package version, fragment, compiler [, series])

sha() { sha256sum | cut -c1-16; }

src_version() {	# $1 = package, $2 = tarball
	local v
	v=$(dpkg-query -W -f='${Version}' "$1" 2>/dev/null)
	[ -n "$v" ] || v=$(stat -c '%s-%Y' "$2" 2>/dev/null)
	echo "$v"
}

# the patches of kernel/patches/series (a quilt series: bugfix/ then
# features/) in the order they apply
series_patches() {
	sed -n 's|^\([a-z_]*/[^ #]*\.patch\)$|\1|p' "$PATCHES/series"
}

# a patch's diff alone, from its first 'diff --git' to a mail's signature
# or the end: the image's key, so that editing a changelog does not
# rebuild the kernel
patch_diff() {
	awk '/^diff --git / { on = 1 } on && /^-- $/ { exit } on' "$1"
}

# (the control's image keeps its old name, bzImage-unpatched-KEY, so that
# caches made before the rename stay valid)
compute_keys() {
	SRC_ID=$(src_version linux-source-6.1 "$TARBALL")
	SERIES=$(series_patches)
	[ -n "$SERIES" ] || die "$PATCHES/series lists no patch"
	for p in $SERIES; do
		[ -f "$PATCHES/$p" ] || die "$PATCHES/series lists $p, which is not there"
	done
	KEY_U=$( { echo "$SRC_ID"; cat "$FRAGMENT"; gcc --version | head -1; } | sha)
	KEY_P=$( { echo "$KEY_U"; for p in $SERIES; do patch_diff "$PATCHES/$p"; done; } | sha)
	KEY_D=$( { echo "$KEY_P"; cat "$FRAGMENT_DEBUG"; } | sha)
	IMG_U=$IMAGES/bzImage-unpatched-$KEY_U
	for p in $(kernels_where source '^build:fix:'); do
		p=$(kernel_field "$p" source)
		p=${p#build:fix:}
		[ -f "$PATCHES/$p" ] ||
			die "kernel/kernels.tab: build:fix:$p: no kernel/patches/$p"
	done
	IMG_P=$IMAGES/bzImage-patched-$KEY_P
	IMG_D=$IMAGES/bzImage-debug-$KEY_D
}

# ---- source tree: unpack once, apply/revert the series by backup ---------

unpack_source() {
	local top=$(dirname "$SRC") stamp
	stamp=$top/.unpacked
	[ -d "$SRC" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$SRC_ID" ] && return 0
	log "unpacking $TARBALL ($SRC_ID) into $top"
	rm -rf "$top" "$BUILD" "$BUILD_DEBUG"
	mkdir -p "$top"
	tar -C "$top" -xf "$TARBALL" || die "unpacking $TARBALL failed"
	[ -d "$SRC" ] || die "$TARBALL did not contain $(basename "$SRC")/"
	echo "$SRC_ID" >"$stamp"
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
	local n=${1:-999} p i=0 list=
	for p in $SERIES; do
		i=$((i + 1))
		[ $i -le "$n" ] || break
		list="$list $p"
	done
	# shellcheck disable=SC2086
	apply_patches $list
}

# apply patches $@ (paths under kernel/patches, in order) to the pristine
# tree, keeping a copy of every file they touch for revert_series
apply_patches() {
	local bak=$KTEST_CACHE/src/backup p f
	revert_series
	mkdir -p "$bak/files"
	: >"$bak/.files"
	: >"$bak/.series"
	for p in "$@"; do
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

# allnoconfig + the fragment in $BUILD, keyed by KEY_U; then
# CONFIG_LOCALVERSION=$1 (the fragment's for our series, "" for the
# control), which alone only rebuilds what depends on the release string
configure_kernel() {	# $1 = localversion
	local lv=$1 l
	if ! [ -f "$BUILD/.config" ] ||
	   [ "$(head -1 "$BUILD/.ktest-config" 2>/dev/null)" != "$KEY_U" ]; then
		mkdir -p "$BUILD"
		log "configuring linux-source-6.1: allnoconfig + $(basename "$FRAGMENT")"
		make -C "$SRC" O="$BUILD" ARCH=x86_64 allnoconfig \
			KCONFIG_ALLCONFIG="$FRAGMENT" >"$KTEST_CACHE/config.log" 2>&1 ||
			die "configuration failed, see $KTEST_CACHE/config.log"
		for l in $(grep '^CONFIG_[A-Z0-9_]*=' "$FRAGMENT"); do
			grep -qxF "$l" "$BUILD/.config" ||
				die "$l from $(basename "$FRAGMENT") did not survive kconfig"
		done
		echo "$KEY_U" >"$BUILD/.ktest-config"
	fi
	[ "$(sed -n 2p "$BUILD/.ktest-config")" = "lv=$lv" ] && return 0
	"$SRC/scripts/config" --file "$BUILD/.config" --set-str LOCALVERSION "$lv" &&
		make -C "$SRC" O="$BUILD" ARCH=x86_64 olddefconfig \
			>>"$KTEST_CACHE/config.log" 2>&1 ||
		die "setting CONFIG_LOCALVERSION failed, see $KTEST_CACHE/config.log"
	printf '%s\nlv=%s\n' "$KEY_U" "$lv" >"$BUILD/.ktest-config"
}

# The debug kernel's own build tree (the control and patched builds keep
# theirs incremental): allnoconfig + both fragments, keyed by KEY_D, with
# the series' CONFIG_LOCALVERSION
configure_debug() {
	local all=$KTEST_CACHE/debug.config l
	[ -f "$BUILD_DEBUG/.config" ] &&
		[ "$(cat "$BUILD_DEBUG/.ktest-config" 2>/dev/null)" = "$KEY_D" ] &&
		return 0
	mkdir -p "$BUILD_DEBUG"
	cat "$FRAGMENT" "$FRAGMENT_DEBUG" >"$all"
	log "configuring linux-source-6.1: allnoconfig + $(basename "$FRAGMENT") + $(basename "$FRAGMENT_DEBUG")"
	make -C "$SRC" O="$BUILD_DEBUG" ARCH=x86_64 allnoconfig \
		KCONFIG_ALLCONFIG="$all" >"$KTEST_CACHE/config-debug.log" 2>&1 ||
		die "debug configuration failed, see $KTEST_CACHE/config-debug.log"
	for l in $(grep '^CONFIG_[A-Z0-9_]*=' "$all"); do
		grep -qxF "$l" "$BUILD_DEBUG/.config" ||
			die "$l did not survive kconfig in the debug build"
	done
	echo "$KEY_D" >"$BUILD_DEBUG/.ktest-config"
}

make_image() {	# $1 = label, $2 = destination [, $3 = build tree]
	local t=$(date +%s) src=$SRC build=${3:-$BUILD}
	log "building $1 bzImage (make -j$KTEST_JOBS, log: $KTEST_CACHE/build-$1.log)"
	make -C "$src" O="$build" ARCH=x86_64 -j"$KTEST_JOBS" bzImage \
		>"$KTEST_CACHE/build-$1.log" 2>&1 ||
		{ tail -30 "$KTEST_CACHE/build-$1.log" >&2; die "$1 build failed"; }
	# io_uring/ since 5.19
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

# the bzImage of kernel $1 (a Debian image's once deb_ready has run)
image_of() {
	case $(kernel_field "$1" source) in
	build:control) echo "$IMG_U" ;;
	build:patched) echo "$IMG_P" ;;
	build:debug) echo "$IMG_D" ;;
	build:fix:*) fix_image "$1" ;;
	build:mainline) mainline_image ;;
	deb:*) echo "${DEB_IMG[$1]:-}" ;;
	esac
}

# the kernel config of kernel $1: the build tree's or the image's own
kernel_config() {
	case $(kernel_field "$1" source) in
	build:debug) echo "$BUILD_DEBUG/.config" ;;
	build:mainline) echo "$(mainline_image).config" ;;
	build:*) echo "$BUILD/.config" ;;
	*) echo "${DEB_CONFIG[$1]:-}" ;;
	esac
}

# why kernel $1's config lacks CONFIG options $2... (the first it does not
# set, or that there is no config: an NVMe-only image's is not served,
# kdeb.sh), nothing when it sets them all
config_missing() {	# $1 = kernel, $2... = option names without CONFIG_
	local k=$1 cfg o
	cfg=$(kernel_config "$k")
	shift
	if ! [ -f "$cfg" ]; then
		if [ -n "${DEB_NVMEONLY[$k]:-}" ]; then
			echo "its config is not served (${DEB_NVMEONLY[$k]}: an NVMe-only guest), so CONFIG_$1 is unknown"
		else
			echo "no config found, so CONFIG_$1 is unknown"
		fi
		return 0
	fi
	for o in "$@"; do
		grep -q "^CONFIG_$o=[ym]" "$cfg" ||
			{ echo "the kernel's config has no CONFIG_$o"; return 0; }
	done
}

# ---- fix kernels: the control and one patch ---------------------------------

# the patch of fix kernel $1 (kernels.tab's build:fix:PATCH)
fix_patch() { local s; s=$(kernel_field "$1" source); echo "${s#build:fix:}"; }

# its image, keyed by the control's key and the patch's diff
fix_image() {	# $1 = kernel
	echo "$IMAGES/bzImage-$1-$( { echo "$KEY_U"; patch_diff "$PATCHES/$(fix_patch "$1")"; } | sha)"
}

# Fix kernel $1: the control's own build tree ($BUILD), the pristine
# tree with only its patch, and CONFIG_LOCALVERSION "-hb$1": "-hbfix-NAME",
# which lib's model reads as 6.1 with that fix (hbi_kmodel_release_fix()).
# make rebuilds what the patch and the release string touch (the reverted
# and patched files get a fresh mtime), as it does between the control
# and the patched kernel.  Not in a copy of the tree: objtool's build
# records the tree's absolute path, so a copy rebuilds objtool, and with
# it every object.
build_fix() {	# $1 = kernel, $2 = destination image
	case $1 in
	fix-*) ;;
	*) die "kernel/kernels.tab: $1: a build:fix kernel's name must start with fix- (its release ends -hbfix-NAME)" ;;
	esac
	configure_kernel "-hb$1"
	apply_patches "$(fix_patch "$1")"
	make_image "$1" "$2"
}

# ---- the mainline kernel: Debian's 7.3 and kernel/patches/mainline --------

# its image (kernel/k73.sh: k73_build()), once linux-source-7.3 is
# unpacked (the key needs its version); "" before
mainline_image() {
	[ -f "$TOP73/.unpacked" ] && k73_image
}

# checkpatch --strict of the mainline patches in the 7.3 tree, as
# kmails.sh runs it before sending
run_checkpatch_mainline() {
	# shellcheck disable=SC2046
	checkpatch_each "$SRC73" $(k73_patches)
}

# build kernel $1 (control, patched, debug, a fix or mainline) unless its
# image is cached; the caller holds the cache lock (fd 9)
build_kernel() {
	local img
	case $(kernel_field "$1" source) in
	build:mainline) ;;
	build:*)
		[ -z "${WHY_SRC_61:-}" ] || { WHY_NO_IMAGE=$WHY_SRC_61; return 1; } ;;
	esac
	case $(kernel_field "$1" source) in
	build:control)
		[ -f "$IMG_U" ] && return 0
		unpack_source
		configure_kernel ""
		revert_series
		make_image control "$IMG_U" ;;
	build:patched)
		[ -f "$IMG_P" ] && return 0
		unpack_source
		configure_kernel "$HB_LOCALVERSION"
		apply_series
		make_image patched "$IMG_P" ;;
	build:debug)
		[ -f "$IMG_D" ] && return 0
		unpack_source
		configure_debug
		apply_series
		make_image debug "$IMG_D" "$BUILD_DEBUG" ;;
	build:fix:*)
		img=$(fix_image "$1")
		[ -f "$img" ] && return 0
		unpack_source
		build_fix "$1" "$img" ;;
	build:mainline)
		k73_fetch_source
		[ -f "$(mainline_image)" ] && return 0
		k73_build >/dev/null ;;
	esac
}

# --build-only: the built kernels of KTEST_KERNELS in turn, taking the
# cache lock for each and letting it go between two, so that a ktest run
# that waits for one of them (ready_kernel) can boot it while the next
# builds; then Debian's images are fetched (kdeb.sh)
build_kernels() {
	local k
	for k in $KTEST_KERNELS; do
		is_built "$k" || continue
		flock -w 7200 9 || die "$KTEST_CACHE is locked by another ktest for 2 hours"
		build_kernel "$k" || log "$k: $WHY_NO_IMAGE"
		flock -u 9
	done
	for k in $KTEST_KERNELS; do
		is_built "$k" || deb_ready "$k" || log "$k: $DEB_WHY"
	done
	log "bzImages: $KEY_U / $KEY_P"
}

# A run boots each kernel as soon as its image is there: the build ahead
# of tools/check.sh (ktest.sh --build-only, in the background) may still be
# making the later ones.  Wait while another ktest holds the cache lock
# (polled: flock would not say which kernel it is building), build it
# here when nobody does.  A Debian image is fetched (kdeb.sh); 1 when it
# cannot be had, counted as a skip here with the reason.
ready_kernel() {	# $1 = kernel
	local img waited=0 rc
	if ! is_built "$1"; then
		deb_ready "$1" && return 0
		count skip "$1 guest: $DEB_WHY"
		return 1
	fi
	while :; do
		img=$(image_of "$1")
		[ -f "$img" ] && return 0
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

# The kernels in the order they boot: every one whose image is there or
# is Debian's first, then those of ours whose build is still under way (the
# build ahead of tools/check.sh), so that no guest waits for a build while
# another could boot
boot_order() {
	local k late=
	for k in $KTEST_KERNELS; do
		if is_built "$k" && [ ! -f "$(image_of "$k")" ]; then
			late="$late $k"
		else
			echo "$k"
		fi
	done
	echo "$late"
}

# checkpatch_mail of patches $2... in tree $1: each one's total, and the
# whole output of one with findings
checkpatch_each() {	# $1 = tree, $2... = patches
	local tree=$1 p out rc=0
	shift
	for p in "$@"; do
		if out=$(checkpatch_mail "$tree" "$p"); then
			echo "${p#"$PATCHES"/}: $(echo "$out" | grep '^total:')"
		else
			echo "${p#"$PATCHES"/}: $(echo "$out" | grep '^total:')"
			echo "$out"
			rc=1
		fi
	done
	return $rc
}

run_checkpatch() {
	local p
	unpack_source
	# shellcheck disable=SC2046
	checkpatch_each "$SRC" $(for p in $SERIES; do echo "$PATCHES/$p"; done)
}

run_bisect() {
	local n=0 p
	unpack_source
	configure_kernel "$HB_LOCALVERSION"
	for p in $SERIES; do
		n=$((n + 1))
		apply_series $n
		make_image "bisect-$n" "$KTEST_CACHE/bisect.bzImage" || return 1
		log "tree builds after $p"
	done
	rm -f "$KTEST_CACHE/bisect.bzImage"
}

