#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# kernel/ktest.sh: build Debian's 6.1 kernel without and with the hugebuf
# series (kernel/patches/) and Debian's linux-source-6.12 (a stable kernel
# that carries the 2025 coalescing fixes), boot each under qemu (TCG), run
# the project's static tests (on virtio-blk and again on an emulated NVMe
# namespace), the hugebuf CLI, a short fio run, kernel/probe's measurement
# and the NVMe profile of the series in the guest, and print side-by-side
# tables.
# No guest sets HUGEBUF_KERNEL: every one must be recognised by its release
# string and by behaviour (hugebuf info).
#
# Usage: kernel/ktest.sh [--build-only] [--checkpatch] [--bisect]
#                        [--profile RUNDIR] [--help]
#
#   --build-only   build (or find in the cache) the bzImages and stop
#   --checkpatch   run scripts/checkpatch.pl --strict on every patch, in the
#                  unpacked source tree, and stop
#   --bisect       build the tree after each patch of the series and stop
#   --profile RUNDIR  print the NVMe profile tables again from the console
#                  logs of a kept run (KTEST_KEEP=1)
#
# Environment (defaults in brackets):
#   KTEST_CACHE         build cache, outside the clone [/var/tmp/hugebuf-kernel]
#   KTEST_BINDIR        static test programs + CLI 'hugebuf' [<top>/t/static]
#   KTEST_ENGINE        fio engine [<top>/engines/hugebuf.so]
#   KTEST_FIO_JOB       fio job [<top>/examples/hugepage-randread-8m.fio]
#   KTEST_EXTRA         extra static binaries to run like the tests [""]
#   KTEST_KERNELS       which kernels to build and boot
#                       [unpatched patched 6.12]
#   KTEST_JOBS          make -j [3]
#   KTEST_MEM           guest memory [3G]
#   KTEST_NUMA_NODES    NUMA nodes of the guest, 1 or 2 (qemu -numa,
#                       memory split evenly; needs KTEST_SMP >= 2) [2]
#   KTEST_SMP           guest CPUs [2]
#   KTEST_HUGEPAGES     2 MiB hugepages reserved in the guest [512]
#   KTEST_TEST_TIMEOUT  seconds per test program in the guest [300]
#   KTEST_BOOT_TIMEOUT  seconds per guest boot, whole run [1500]
#   KTEST_FIO_SIZE      fio size override [64m]
#   KTEST_FIO_RUNTIME   fio runtime override, seconds [5]
#   KTEST_KEEP          keep the per-run work dir (console logs) [0]
#   KTEST_MAX_SECTORS_KB  guest vda max_sectors_kb; 6.1 defaults to 1280,
#                       the 6.18 host has 4096; empty keeps the default [4096]
#   KTEST_NVME_SIZE     emulated NVMe namespace; ext4 on all but its last
#                       128 MiB, where nvme-profile does raw I/O [2G]
#   KTEST_NVME_OPTS     extra qemu "-device nvme" properties, e.g. mdts=9
#                       (qemu's default mdts=7 is 512 KiB per command) [""]
#   KTEST_NVME_SUITE    tests to run again with their files on NVMe: all,
#                       0 (none), or a comma list of test names; the whole
#                       suite on NVMe costs ~13 min under TCG, so the
#                       default is the cases that check data at folio
#                       boundaries that are quick there [regbuf-thp-tail,
#                       regbuf-small-in-folio]
#
# Exit status: 0 when everything ran and passed, 1 otherwise (a failed test,
# a kernel BUG/WARNING/Oops/Bad page, a timeout or a build failure).
set -u -o pipefail

KDIR=$(cd "$(dirname "$0")" && pwd)
TOP=$(dirname "$KDIR")
KTEST_CACHE=${KTEST_CACHE:-/var/tmp/hugebuf-kernel}
KTEST_BINDIR=${KTEST_BINDIR:-$TOP/t/static}
KTEST_ENGINE=${KTEST_ENGINE:-$TOP/engines/hugebuf.so}
KTEST_FIO_JOB=${KTEST_FIO_JOB:-$TOP/examples/hugepage-randread-8m.fio}
KTEST_EXTRA=${KTEST_EXTRA:-}
KTEST_KERNELS=${KTEST_KERNELS:-unpatched patched 6.12}
KTEST_JOBS=${KTEST_JOBS:-3}
KTEST_MEM=${KTEST_MEM:-3G}
KTEST_SMP=${KTEST_SMP:-2}
# two NUMA nodes (one CPU and half the memory each): t/numa-placement binds
# to each and checks where the hugepages come from; 1 boots a flat guest
KTEST_NUMA_NODES=${KTEST_NUMA_NODES:-2}
KTEST_HUGEPAGES=${KTEST_HUGEPAGES:-512}
KTEST_TEST_TIMEOUT=${KTEST_TEST_TIMEOUT:-300}
KTEST_BOOT_TIMEOUT=${KTEST_BOOT_TIMEOUT:-1500}
KTEST_FIO_SIZE=${KTEST_FIO_SIZE:-64m}
KTEST_FIO_RUNTIME=${KTEST_FIO_RUNTIME:-5}
KTEST_KEEP=${KTEST_KEEP:-0}
KTEST_MAX_SECTORS_KB=${KTEST_MAX_SECTORS_KB-4096}
KTEST_NVME_SIZE=${KTEST_NVME_SIZE:-2G}
KTEST_NVME_OPTS=${KTEST_NVME_OPTS:-}
KTEST_NVME_SUITE=${KTEST_NVME_SUITE:-regbuf-thp-tail,regbuf-small-in-folio}
# "1" meant the whole suite before the list existed
[ "$KTEST_NVME_SUITE" = 1 ] && KTEST_NVME_SUITE=all

TARBALL=/usr/src/linux-source-6.1.tar.xz
TARBALL_612=/usr/src/linux-source-6.12.tar.xz
FRAGMENT=$KDIR/hugebuf.config
PATCHES=$KDIR/patches
SRC=$KTEST_CACHE/src/linux-source-6.1
BUILD=$KTEST_CACHE/build
SRC_612=$KTEST_CACHE/src612/linux-source-6.12
BUILD_612=$KTEST_CACHE/build-6.12
IMAGES=$KTEST_CACHE/images
# the fragment's CONFIG_LOCALVERSION marks a kernel built from our series;
# the unpatched baseline and 6.12 are built with it emptied, so their
# release strings are the plain upstream versions
HB_LOCALVERSION=$(sed -n 's/^CONFIG_LOCALVERSION="\(.*\)"$/\1/p' "$FRAGMENT")
T0=$(date +%s)
# a kernel BUG, WARN_ON splat, Oops or bad page report, after the printk time
BAD_RE='\[ *[0-9]+\.[0-9]+\] (.*WARNING: CPU:|.*------------\[ cut here \]|.*kernel BUG at|BUG: |.*Oops|.*Bad page (state|map))'

log() { echo "ktest: $*" >&2; }
die() { echo "ktest: error: $*" >&2; exit 1; }
elapsed() { echo $(($(date +%s) - T0)); }

# ---- dependencies ----------------------------------------------------------

ensure_packages() {
	local missing="" pair cmd pkg
	for pair in qemu-system-x86_64:qemu-system-x86 busybox:busybox-static \
		    flex:flex bison:bison bc:bc cpio:cpio mkfs.ext4:e2fsprogs \
		    xz:xz-utils make:make gcc:gcc fio:fio perl:perl; do
		cmd=${pair%%:*} pkg=${pair#*:}
		command -v "$cmd" >/dev/null 2>&1 || missing="$missing $pkg"
	done
	[ -f /usr/include/libelf.h ] || missing="$missing libelf-dev"
	[ -f /usr/include/liburing.h ] || missing="$missing liburing-dev"
	[ -f /usr/include/openssl/ssl.h ] || missing="$missing libssl-dev"
	[ -f "$TARBALL" ] || missing="$missing linux-source-6.1"
	case " $KTEST_KERNELS " in
	*" 6.12 "*) [ -f "$TARBALL_612" ] || missing="$missing linux-source-6.12" ;;
	esac
	[ -z "$missing" ] && return 0
	[ "$(id -u)" = 0 ] || die "missing packages:$missing (run as root or install them)"
	log "installing:$missing"
	apt-get update -q >/dev/null 2>&1 || die "apt-get update failed"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
		$missing >"$KTEST_CACHE/apt.log" 2>&1 ||
		die "apt-get install failed, see $KTEST_CACHE/apt.log"
	[ -f "$TARBALL" ] || die "$TARBALL still missing after installing linux-source-6.1"
	busybox --list 2>/dev/null | grep -qx timeout ||
		die "busybox has no timeout applet"
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
}

# ---- source tree: unpack once, apply/revert the series by backup ---------

unpack_source() {
	local stamp=$KTEST_CACHE/src/.unpacked
	if [ -d "$SRC" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$SRC_ID" ]; then
		return 0
	fi
	log "unpacking $TARBALL ($SRC_ID) into $KTEST_CACHE/src"
	rm -rf "$KTEST_CACHE/src" "$BUILD"
	mkdir -p "$KTEST_CACHE/src"
	tar -C "$KTEST_CACHE/src" -xf "$TARBALL" || die "unpacking $TARBALL failed"
	[ -d "$SRC" ] || die "$TARBALL did not contain linux-source-6.1/"
	echo "$SRC_ID" >"$stamp"
}

unpack_source_612() {
	local stamp=$KTEST_CACHE/src612/.unpacked
	if [ -d "$SRC_612" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$SRC_ID_612" ]; then
		return 0
	fi
	log "unpacking $TARBALL_612 ($SRC_ID_612) into $KTEST_CACHE/src612"
	rm -rf "$KTEST_CACHE/src612" "$BUILD_612"
	mkdir -p "$KTEST_CACHE/src612"
	tar -C "$KTEST_CACHE/src612" -xf "$TARBALL_612" ||
		die "unpacking $TARBALL_612 failed"
	[ -d "$SRC_612" ] || die "$TARBALL_612 did not contain linux-source-6.12/"
	echo "$SRC_ID_612" >"$stamp"
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
# which alone only rebuilds what depends on the release string
configure_kernel() {	# $1 = src, $2 = build, $3 = key, $4 = localversion
	local src=${1:-$SRC} build=${2:-$BUILD} key=${3:-$KEY_U} lv=${4-} l
	if ! [ -f "$build/.config" ] ||
	   [ "$(head -1 "$build/.ktest-config" 2>/dev/null)" != "$key" ]; then
		mkdir -p "$build"
		log "configuring $(basename "$src"): allnoconfig + $(basename "$FRAGMENT")"
		make -C "$src" O="$build" ARCH=x86_64 allnoconfig \
			KCONFIG_ALLCONFIG="$FRAGMENT" >"$KTEST_CACHE/config.log" 2>&1 ||
			die "configuration failed, see $KTEST_CACHE/config.log"
		for l in $(grep '^CONFIG_[A-Z0-9_]*=' "$FRAGMENT"); do
			grep -qxF "$l" "$build/.config" ||
				die "$l from $(basename "$FRAGMENT") did not survive kconfig in $(basename "$src")"
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
	if grep -E '(warning|error):' "$KTEST_CACHE/build-$1.log" | grep -q io_uring/; then
		grep -E '(warning|error):' "$KTEST_CACHE/build-$1.log" | grep io_uring/ >&2
		die "$1 build has io_uring warnings"
	fi
	mkdir -p "$IMAGES"
	cp "$build/arch/x86/boot/bzImage" "$2.tmp" && mv "$2.tmp" "$2"
	log "$1 bzImage built in $(($(date +%s) - t)) s"
}

wants() { case " $KTEST_KERNELS " in *" $1 "*) return 0 ;; esac; return 1; }

build_kernels() {
	local k
	for k in $KTEST_KERNELS; do
		case $k in
		unpatched | patched | 6.12) ;;
		*) die "KTEST_KERNELS: unknown kernel $k" ;;
		esac
	done
	if wants unpatched && [ ! -f "$IMG_U" ]; then
		unpack_source
		configure_kernel "$SRC" "$BUILD" "$KEY_U" ""
		revert_series
		make_image unpatched "$IMG_U"
	fi
	if wants patched && [ ! -f "$IMG_P" ]; then
		unpack_source
		configure_kernel "$SRC" "$BUILD" "$KEY_U" "$HB_LOCALVERSION"
		apply_series
		make_image patched "$IMG_P"
	fi
	if wants 6.12 && [ ! -f "$IMG_612" ]; then
		unpack_source_612
		configure_kernel "$SRC_612" "$BUILD_612" "$KEY_612" ""
		make_image 6.12 "$IMG_612" "$SRC_612" "$BUILD_612"
	fi
	log "bzImages: $(for k in $KTEST_KERNELS; do printf '%s ' "$k"; done)($KEY_U / $KEY_P / $KEY_612)"
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

# ---- initramfs ---------------------------------------------------------------

# copy a dynamically linked binary and every library ldd names, keeping paths
copy_with_libs() {	# $1 = file, $2 = root
	local f=$1 root=$2 lib
	mkdir -p "$root$(dirname "$f")"
	cp -L "$f" "$root$f"
	for lib in $(ldd "$f" 2>/dev/null | grep -o '/[^ ]*'); do
		[ -e "$root$lib" ] && continue
		mkdir -p "$root$(dirname "$lib")"
		cp -L "$lib" "$root$lib"
	done
}

# the probe measures through lib/ (pagemap, VmPin, kernel memory, request
# counts, hb_kmodel_detect): linked statically against lib/libhugebuf.a
build_probe() {	# $1 = output
	[ -f "$TOP/lib/libhugebuf.a" ] ||
		make -C "$TOP" lib >"$WORK/probe-build.log" 2>&1 ||
		{ cat "$WORK/probe-build.log" >&2; die "building lib/ failed"; }
	gcc -static -O2 -Wall -Wextra -D_GNU_SOURCE -I"$TOP/lib" \
		-include "$TOP/config-host.h" -o "$1" \
		"$KDIR/probe/regbuf-probe.c" "$KDIR/probe/probe-util.c" \
		"$TOP/lib/libhugebuf.a" -luring \
		>>"$WORK/probe-build.log" 2>&1 ||
		{ cat "$WORK/probe-build.log" >&2; die "building regbuf-probe failed"; }
	gcc -static -O2 -Wall -Wextra -D_GNU_SOURCE -o "$(dirname "$1")/nvme-profile" \
		"$KDIR/probe/nvme-profile.c" "$KDIR/probe/probe-util.c" -luring \
		>>"$WORK/probe-build.log" 2>&1 ||
		{ cat "$WORK/probe-build.log" >&2; die "building nvme-profile failed"; }
	for f in fault-regbuf fault-device; do
		gcc -static -O2 -Wall -Wextra -D_GNU_SOURCE -o "$(dirname "$1")/$f" \
			"$KDIR/probe/$f.c" "$KDIR/probe/probe-util.c" -luring \
			>>"$WORK/probe-build.log" 2>&1 ||
			{ cat "$WORK/probe-build.log" >&2; die "building $f failed"; }
	done
}

# the fio job for the guest: our overrides first, then the example minus the
# keys we override
make_fio_job() {	# $1 = output
	{
		echo "; generated by kernel/ktest.sh from $(basename "$KTEST_FIO_JOB")"
		echo "[global]"
		echo "ioengine=external:/hugebuf/engine/hugebuf.so"
		echo "directory=/mnt/fio"
		echo "size=$KTEST_FIO_SIZE"
		echo "runtime=$KTEST_FIO_RUNTIME"
		echo "time_based"
		if [ -f "$KTEST_FIO_JOB" ]; then
			grep -vE '^[[:space:]]*(ioengine|directory|filename|size|io_size|runtime|time_based|loops|nrfiles)[[:space:]]*(=|$)' \
				"$KTEST_FIO_JOB"
		else
			echo "rw=randread"
			echo "bs=8m"
			echo "direct=1"
			echo "[hugepage-randread-8m]"
		fi
	} >"$1"
}

write_init() {	# $1 = root
	cat >"$1/init" <<'EOF'
#!/bin/busybox sh
# SPDX-License-Identifier: GPL-2.0-only
# /init of the kernel/ktest.sh guest: run everything, report on the console
/bin/busybox --install -s /bin
export PATH=/bin:/usr/bin:/sbin:/usr/sbin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null
mkdir -p /dev/shm /dev/hugepages /tmp /mnt
mount -t tmpfs tmpfs /dev/shm
mount -t tmpfs tmpfs /tmp
mount -t hugetlbfs hugetlbfs /dev/hugepages
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null
. /hugebuf/env
ip link set lo up 2>/dev/null || ifconfig lo 127.0.0.1 up
[ "$(cat /proc/sys/vm/nr_hugepages)" -ge "$KTEST_HUGEPAGES" ] ||
	echo "$KTEST_HUGEPAGES" >/proc/sys/vm/nr_hugepages
echo "@@KTEST BEGIN $(uname -r) hugepages=$(cat /proc/sys/vm/nr_hugepages)"
q=/sys/block/vda/queue
echo "@@KTEST INFO vda default max_sectors_kb=$(cat $q/max_sectors_kb)" \
	"max_hw_sectors_kb=$(cat $q/max_hw_sectors_kb)" \
	"max_segments=$(cat $q/max_segments)" \
	"max_segment_size=$(cat $q/max_segment_size)"
if [ -n "$KTEST_MAX_SECTORS_KB" ]; then
	echo "$KTEST_MAX_SECTORS_KB" >$q/max_sectors_kb
	echo "@@KTEST INFO vda max_sectors_kb set to $(cat $q/max_sectors_kb)"
fi
# the emulated NVMe namespace: the limits the driver gave its queue and
# the SGL threshold (nvme_pci_use_sgls(): SGLs when the controller has them
# and the average segment is at least sgl_threshold bytes)
q=/sys/block/nvme0n1/queue
if [ -d $q ]; then
	echo "@@KTEST NVME max_hw_sectors_kb=$(cat $q/max_hw_sectors_kb)" \
		"max_sectors_kb=$(cat $q/max_sectors_kb)" \
		"max_segments=$(cat $q/max_segments)" \
		"max_segment_size=$(cat $q/max_segment_size)" \
		"virt_boundary_mask=$(cat $q/virt_boundary_mask 2>/dev/null || echo n/a)" \
		"sgl_threshold=$(cat /sys/module/nvme/parameters/sgl_threshold 2>/dev/null || echo n/a)"
fi
if ! mount -t ext4 -o noatime /dev/vda /mnt; then
	echo "@@KTEST RESULT mount-disk 1 0"
	echo "@@KTEST END"
	sync
	reboot -f
fi
mkdir -p "$HUGEBUF_TEST_DIR" /mnt/fio /mnt/probe
cd "$HUGEBUF_TEST_DIR"
# t/regbuf-passthrough may overwrite the namespace's raw region, past the
# end of its ext4 (the last 128 MiB; nvme-profile and passthrough.sh use
# it later, one at a time)
if [ -c /dev/ng0n1 ]; then
	export HUGEBUF_PT_DEV=/dev/ng0n1
	export HUGEBUF_PT_OFFSET=$(($(cat /sys/block/nvme0n1/size) * 512 - 134217728))
fi

run() {	# name, command...
	name=$1
	shift
	echo "@@KTEST RUN $name"
	s=$(date +%s)
	timeout "$KTEST_TEST_TIMEOUT" "$@" </dev/null 2>&1
	rc=$?
	echo "@@KTEST RESULT $name $rc $(($(date +%s) - s))"
}

for t in /hugebuf/tests/*; do
	[ -f "$t" ] && [ -x "$t" ] || continue
	run "test:$(basename "$t")" "$t"
done
# the same data-verified suite with its files on the NVMe namespace
mkdir -p /nvme
nvme_fs=0
if [ -b /dev/nvme0n1 ]; then
	if mount -t ext4 -o noatime /dev/nvme0n1 /nvme; then
		nvme_fs=1
	else
		echo "@@KTEST RESULT nvme:mount 1 0"
	fi
fi
if [ "$KTEST_NVME_SUITE" != 0 ] && [ $nvme_fs = 1 ]; then
	vda_dir=$HUGEBUF_TEST_DIR
	export HUGEBUF_TEST_DIR=/nvme/hugebuf-test
	mkdir -p "$HUGEBUF_TEST_DIR"
	cd "$HUGEBUF_TEST_DIR"
	for t in /hugebuf/tests/*; do
		[ -f "$t" ] && [ -x "$t" ] || continue
		case ",$KTEST_NVME_SUITE," in
		,all,|*,"$(basename "$t")",*) ;;
		*) continue ;;
		esac
		run "nvme:test:$(basename "$t")" "$t"
	done
	export HUGEBUF_TEST_DIR=$vda_dir
	cd "$HUGEBUF_TEST_DIR"
fi
# a failing disk: fail_make_request on nvme0n1 for the writing task only
[ $nvme_fs = 1 ] &&
	run fault-device /hugebuf/bin/fault-device /nvme/faildev.dat nvme0n1
run probe /hugebuf/bin/regbuf-probe -d /mnt/probe
if [ -x /hugebuf/bin/hugebuf ]; then
	# no HUGEBUF_KERNEL anywhere: the generation comes from the release
	# string and the behaviour check
	run info /hugebuf/bin/hugebuf info
	for b in hugetlb:2M memfd:2M thp 4k; do
		run "check:$b" /hugebuf/bin/hugebuf check --backing=$b \
			--size=8M --file=/mnt/hugebuf-check.dat
	done
	# the THP moved by mremap to a non-congruent address (3a3c6d61577d)
	run check:thp-moved /hugebuf/bin/hugebuf check --backing=thp --moved \
		--size=8M --file=/mnt/hugebuf-check.dat
	run check-json /hugebuf/bin/hugebuf check --backing=hugetlb:2M \
		--size=8M --file=/mnt/hugebuf-check.dat --json
fi
if [ -x /usr/bin/fio ] && [ -f /hugebuf/engine/hugebuf.so ]; then
	run fio /usr/bin/fio /hugebuf/fio.job
fi
# the series' profile: raw O_DIRECT I/O past the end of /nvme's ext4,
# unmounted first (6.8+ without BLK_DEV_WRITE_MOUNTED refuses to open a
# mounted disk for writing)
umount /nvme 2>/dev/null
# the engine's NVMe passthrough (cmd_type=nvme) on the same raw region:
# fio verify from hugetlb, THP and 4 KiB buffers, and the mapping path the
# engine predicts against the kernel's (kprobes)
[ -c /dev/ng0n1 ] && /hugebuf/bin/passthrough.sh /dev/ng0n1 \
	/hugebuf/engine/hugebuf.so
if [ -b /dev/nvme0n1 ]; then
	run nvme-profile /hugebuf/bin/nvme-profile -d /dev/nvme0n1 -n 8
fi
# last: on a kernel without patch 0001 it leaves pins (and a hugepage) behind
run fault-regbuf /hugebuf/bin/fault-regbuf
dmesg | grep -E "$KTEST_BAD_RE" | sed 's/^/@@KTEST DMESG /'
echo "@@KTEST END"
cd /
sync
umount /mnt
reboot -f
EOF
	chmod +x "$1/init"
}

build_initramfs() {	# $1 = label, $2 = HUGEBUF_KERNEL value or "", $3 = output
	local root=$WORK/root-$1 f
	rm -rf "$root"
	mkdir -p "$root"/{bin,sbin,usr/bin,proc,sys,dev,tmp,mnt,hugebuf/tests,hugebuf/bin,hugebuf/engine}
	cp "$(command -v busybox)" "$root/bin/busybox"
	file -L "$root/bin/busybox" 2>/dev/null | grep -q dynamic &&
		die "busybox is not static: install busybox-static"
	if [ -d "$KTEST_BINDIR" ]; then
		for f in "$KTEST_BINDIR"/*; do
			[ -f "$f" ] && [ -x "$f" ] || continue
			if [ "$(basename "$f")" = hugebuf ]; then
				cp "$f" "$root/hugebuf/bin/hugebuf"
			else
				cp "$f" "$root/hugebuf/tests/"
			fi
		done
	fi
	for f in $KTEST_EXTRA; do
		[ -f "$f" ] || die "KTEST_EXTRA: $f not found"
		cp "$f" "$root/hugebuf/tests/"
	done
	cp "$WORK/regbuf-probe" "$WORK/nvme-profile" "$WORK/fault-regbuf" \
		"$WORK/fault-device" "$KDIR/probe/passthrough.sh" \
		"$root/hugebuf/bin/"
	copy_with_libs /usr/bin/fio "$root"
	if [ -f "$KTEST_ENGINE" ]; then
		copy_with_libs "$(readlink -f "$KTEST_ENGINE")" "$root"
		cp "$KTEST_ENGINE" "$root/hugebuf/engine/hugebuf.so"
	fi
	cp "$WORK/fio.job" "$root/hugebuf/fio.job"
	cp "$TOP/examples/nvme-passthrough.fio" "$root/hugebuf/"
	{
		echo "export HUGEBUF_TEST_DIR=/mnt/hugebuf-test"
		[ -n "$2" ] && echo "export HUGEBUF_KERNEL=$2"
		echo "KTEST_TEST_TIMEOUT=$KTEST_TEST_TIMEOUT"
		echo "KTEST_HUGEPAGES=$KTEST_HUGEPAGES"
		echo "KTEST_MAX_SECTORS_KB=$KTEST_MAX_SECTORS_KB"
		echo "KTEST_NVME_SUITE=$KTEST_NVME_SUITE"
		echo "KTEST_BAD_RE='$BAD_RE'"
		echo "export LD_LIBRARY_PATH=/lib/x86_64-linux-gnu:/usr/lib/x86_64-linux-gnu"
	} >"$root/hugebuf/env"
	write_init "$root"
	(cd "$root" && find . | cpio -o -H newc --quiet) >"$3" ||
		die "cpio failed"
}

# ---- boot and collect ------------------------------------------------------

boot_kernel() {	# $1 = label, $2 = bzImage, $3 = initramfs; console to $WORK/console-$1.log
	local disk=$WORK/disk-$1.img console=$WORK/console-$1.log rc
	local nvme=$WORK/nvme-$1.img mb
	rm -f "$disk" "$nvme"
	truncate -s 2G "$disk"
	mkfs.ext4 -F -q -E lazy_itable_init=0,lazy_journal_init=0 "$disk" \
		>"$WORK/mkfs-$1.log" 2>&1 || die "mkfs.ext4 failed"
	# ext4 on all but the last 128 MiB: nvme-profile's raw region
	truncate -s "$KTEST_NVME_SIZE" "$nvme"
	mb=$(($(stat -c %s "$nvme") / 1048576 - 128))
	[ $mb -ge 256 ] || die "KTEST_NVME_SIZE=$KTEST_NVME_SIZE is too small"
	mkfs.ext4 -F -q -E lazy_itable_init=0,lazy_journal_init=0 "$nvme" \
		"${mb}M" >>"$WORK/mkfs-$1.log" 2>&1 || die "mkfs.ext4 (nvme) failed"
	numa_args
	log "booting $1 kernel under qemu (TCG), console: $console"
	timeout --kill-after=10 "$KTEST_BOOT_TIMEOUT" \
		qemu-system-x86_64 -machine pc,accel=tcg -cpu max \
		-m "$KTEST_MEM" -smp "$SMP_ARG" "${NUMA_ARGS[@]}" \
		-kernel "$2" -initrd "$3" \
		-append "console=ttyS0 loglevel=5 panic=-1 hugepages=$KTEST_HUGEPAGES transparent_hugepage=madvise" \
		-drive file="$disk",format=raw,if=virtio \
		-drive if=none,id=nvm,file="$nvme",format=raw \
		-device nvme,serial=hugebuf0,drive=nvm${KTEST_NVME_OPTS:+,$KTEST_NVME_OPTS} \
		-nographic -no-reboot -net none </dev/null >"$console" 2>&1
	rc=$?
	tr -d '\r' <"$console" >"$console.txt"
	rm -f "$disk" "$nvme"
	[ $rc = 124 ] || [ $rc = 137 ] && log "$1: qemu timed out after $KTEST_BOOT_TIMEOUT s"
	return $rc
}

# qemu arguments for KTEST_NUMA_NODES=2: each node one memory backend of
# half of KTEST_MEM and one CPU (the rest of the CPUs go to node 0), every
# CPU its own socket
numa_args() {
	local mb
	NUMA_ARGS=()
	SMP_ARG=$KTEST_SMP
	[ "$KTEST_NUMA_NODES" = 2 ] && [ "$KTEST_SMP" -ge 2 ] || return 0
	# one socket per CPU: CPUs sharing a cache across two nodes make the
	# scheduler warn at boot (topology_sane)
	SMP_ARG="$KTEST_SMP,sockets=$KTEST_SMP,cores=1,threads=1"
	case $KTEST_MEM in
	*G) mb=$((${KTEST_MEM%G} * 1024)) ;;
	*M) mb=${KTEST_MEM%M} ;;
	*) mb=$KTEST_MEM ;;
	esac
	NUMA_ARGS=(-object "memory-backend-ram,id=m0,size=$((mb / 2))M"
		-object "memory-backend-ram,id=m1,size=$((mb - mb / 2))M"
		-numa "node,nodeid=0,cpus=0-$((KTEST_SMP - 2)),memdev=m0"
		-numa "node,nodeid=1,cpus=$((KTEST_SMP - 1)),memdev=m1")
}

# ---- results ---------------------------------------------------------------

declare -A R
NPASS=0 NFAIL=0 NSKIP=0

count() {	# $1 = pass|fail|skip, $2 = what
	case $1 in
	pass) NPASS=$((NPASS + 1)) ;;
	fail) NFAIL=$((NFAIL + 1)); echo "FAIL: $2" ;;
	skip) NSKIP=$((NSKIP + 1)); echo "SKIP: $2" ;;
	esac
}

# parse one console log, count results and fill R[<label>,<field>]
collect() {	# $1 = label, $2 = qemu exit status
	local k=$1 log=$WORK/console-$1.log.txt p=0 f=0 s=0 name rc bad line
	local np=0 nf=0 ns=0 ok fld pp=0 pf=0 qp=0 qf=0
	if ! grep -q '^@@KTEST END' "$log"; then
		count fail "$k: guest did not finish (qemu exit $2, see console log)"
		R[$k,hang]=yes
	fi
	while read -r _ _ name rc _; do
		case $name in
		check-json) continue ;;	# the same run as 'check', for machines
		esac
		case $rc in
		0) ok=p; count pass "$k $name" ;;
		77) ok=s; count skip "$k $name" ;;
		*) ok=f; count fail "$k $name (exit $rc)" ;;
		esac
		case $name:$ok in
		pt:*:p) pp=$((pp + 1)) ;;
		pt:*:f) pf=$((pf + 1)) ;;
		pt-path:*:p) qp=$((qp + 1)) ;;
		pt-path:*:f) qf=$((qf + 1)) ;;
		nvme:test:*:p) np=$((np + 1)) ;;
		nvme:test:*:f) nf=$((nf + 1)) ;;
		nvme:test:*:s) ns=$((ns + 1)) ;;
		test:*:p) p=$((p + 1)) ;;
		test:*:f) f=$((f + 1)) ;;
		test:*:s) s=$((s + 1)) ;;
		esac
	done < <(grep -a '^@@KTEST RESULT ' "$log")
	R[$k,suite]="$p/$f/$s"
	R[$k,nvsuite]="$np/$nf/$ns"
	R[$k,pt]="$pp/$pf"
	R[$k,ptpath]="$qp/$qf"
	R[$k,ptjobs]=$(grep -a '^PT job=' "$log" | awk '{
		for (i = 2; i <= NF; i++) { split($i, a, "="); v[a[1]] = a[2] }
		saw = v["copied"] > 0 ? "copied" : "mapped"
		if (v["seen"] != "") saw = v["seen"]
		printf "%s%s:%s/%s", n++ ? " " : "", v["job"], v["predicted"], saw
		delete v }')
	line=$(grep -a '^@@KTEST NVME ' "$log" | tail -1)
	for fld in max_hw_sectors_kb max_sectors_kb max_segments \
		   max_segment_size virt_boundary_mask sgl_threshold; do
		R[$k,nv_$fld]=$(echo "$line" | grep -o "$fld=[^ ]*" | cut -d= -f2)
	done
	line=$(grep -a '^NVPROF ctrl ' "$log" | tail -1)
	R[$k,nv_mdts]=$(echo "$line" | grep -o 'mdts=[^ ]*' | cut -d= -f2)
	R[$k,nv_sgls]=$(echo "$line" | grep -o 'sgls=[^ ]*' | cut -d= -f2)
	for fld in 4k 2M; do
		line=$(grep -a "^FAULT summary case=$fld " "$log" | tail -1)
		R[$k,fault_$fld]=$(echo "$line" | awk '{ for (i = 3; i <= NF; i++) {
			split($i, a, "="); v[a[1]] = a[2] }
			if (NF) printf "%s/%s/%s", v["leaked_pages"], v["vmpin_delta_kb"],
				v["hugepages_free_delta"] }')
		R[$k,fault_n_$fld]=$(echo "$line" | awk '{ for (i = 3; i <= NF; i++) {
			split($i, a, "="); v[a[1]] = a[2] }
			if (NF) printf "%s/%s", v["enomem"], v["attempts"] }')
	done
	R[$k,faildev]=$(grep -a '^FAILDEV disk=' "$log" | tail -1 | awk '{
		for (i = 2; i <= NF; i++) { split($i, a, "="); v[a[1]] = a[2] }
		printf "%s/%s/%s/%s", v["acked"], v["eio"], v["bad"], v["pins_delta"] }')
	for fld in read:4k read:2M write:4k write:2M; do
		R[$k,nvreq_$fld]=$(grep -a "^NVPROF op=${fld%:*} backing=${fld#*:} ios=" "$log" |
			tail -1 | awk '{ split($4, i, "="); split($5, r, "=");
				if (i[2] > 0) printf "%g", r[2] / i[2] }')
	done
	R[$k,reqs]=$(grep -a -o 'PROBE reqs_hugetlb=-\?[0-9]*' "$log" | tail -1 | cut -d= -f2)
	R[$k,reqs4k]=$(grep -a -o 'PROBE reqs_4k=-\?[0-9]*' "$log" | tail -1 | cut -d= -f2)
	R[$k,kmem]=$(grep -a -o 'PROBE kmem_per_512m_kb=-\?[0-9]*' "$log" | tail -1 | cut -d= -f2)
	R[$k,bw]=$(grep -a -o 'READ: bw=[^ ,]*' "$log" | head -1 | cut -d= -f2)
	# the console may put an escape sequence before the first line
	R[$k,release]=$(grep -a -o '@@KTEST BEGIN [^ ]*' "$log" | head -1 | cut -d' ' -f3)
	R[$k,kver]=$(grep -a -o 'PROBE kdetect_version=[^ ]*' "$log" | tail -1 | cut -d= -f2)
	R[$k,kbeh]=$(grep -a -o 'PROBE kdetect_behaviour=[^ ]*' "$log" | tail -1 | cut -d= -f2)
	R[$k,kagreed]=$(grep -a -o 'PROBE kdetect_agreed=[^ ]*' "$log" | tail -1 | cut -d= -f2)
	R[$k,kchosen]=$(grep -a -o 'PROBE kdetect_chosen=[^ ]*' "$log" | tail -1 | cut -d= -f2)
	R[$k,kms]=$(grep -a -o 'PROBE kdetect_usec=[^ ]*' "$log" | tail -1 | cut -d= -f2)
	# kernel messages carry a [ timestamp ]; the guest also greps dmesg
	bad=$( { grep -a -E "^$BAD_RE" "$log";
		 grep -a '^@@KTEST DMESG ' "$log" | sed -e 's/^@@KTEST DMESG //'; } |
		sort -u | wc -l)
	R[$k,bad]=$bad
	if [ "$bad" -gt 0 ]; then
		count fail "$k: $bad kernel BUG/WARNING/Oops/Bad page line(s):"
		{ grep -a -E "^$BAD_RE" "$log";
		  grep -a '^@@KTEST DMESG ' "$log"; } | head -8
	else
		count pass "$k kernel log clean"
	fi
	grep -a '^PROBE-CASE .* FAIL' "$log" | sed "s/^/$k: /"
}

print_table() {
	local k
	printf '\n%-44s' ""
	for k in $KTEST_KERNELS; do printf '%18s' "$k"; done
	printf '\n'
	row() {	# title, field
		printf '%-44s' "$1"
		for k in $KTEST_KERNELS; do printf '%18s' "${R[$k,$2]:-n/a}"; done
		printf '\n'
	}
	row "uname -r" release
	row "model from the version" kver
	row "model from behaviour" kbeh
	row "version and behaviour agree" kagreed
	row "model used (no HUGEBUF_KERNEL)" kchosen
	row "behaviour check, microseconds" kms
	row "requests / 8 MiB READ_FIXED, 2M hugetlb" reqs
	row "requests / 8 MiB READ_FIXED, 4 KiB pages" reqs4k
	row "kernel memory kB / 512 MiB registration" kmem
	row "suite passed/failed/skipped" suite
	row "suite on NVMe passed/failed/skipped" nvsuite
	row "nvme0n1 max_hw_sectors_kb" nv_max_hw_sectors_kb
	row "nvme0n1 max_sectors_kb" nv_max_sectors_kb
	row "nvme0n1 max_segments" nv_max_segments
	row "nvme0n1 max_segment_size" nv_max_segment_size
	row "nvme0n1 virt_boundary_mask" nv_virt_boundary_mask
	row "nvme sgl_threshold (bytes)" nv_sgl_threshold
	row "controller MDTS (Identify; 2^n pages)" nv_mdts
	row "controller SGLS (Identify)" nv_sgls
	row "nvme requests / 8 MiB READ_FIXED, 4 KiB" nvreq_read:4k
	row "nvme requests / 8 MiB READ_FIXED, 2M" nvreq_read:2M
	row "nvme requests / 8 MiB WRITE_FIXED, 4 KiB" nvreq_write:4k
	row "nvme requests / 8 MiB WRITE_FIXED, 2M" nvreq_write:2M
	row "fio bandwidth (shortened run)" bw
	row "failing nvme0n1: acked/EIO/bad/pins left" faildev
	row "passthrough fio verify jobs pass/fail" pt
	row "passthrough path = prediction pass/fail" ptpath
	row "imu alloc failure: ENOMEM/attempts, 4 KiB" fault_n_4k
	row "  leaked pins/VmPin kB/free hugepages, 4 KiB" fault_4k
	row "imu alloc failure: ENOMEM/attempts, 2M" fault_n_2M
	row "  leaked pins/VmPin kB/free hugepages, 2M" fault_2M
	row "kernel BUG/WARNING/Oops/Bad page lines" bad
	printf '\nNVMe passthrough jobs (kernel/probe/passthrough.sh), job:'
	printf 'predicted/what the kprobes saw\n'
	for k in $KTEST_KERNELS; do
		printf '  %-10s %s\n' "$k" "${R[$k,ptjobs]:-n/a}"
	done
	printf '\n'
}

# every guest is recognised without HUGEBUF_KERNEL: the model chosen and
# whether the version and the behaviour agree
check_detection() {
	local k want
	for k in $KTEST_KERNELS; do
		case $k in
		unpatched) want="6.1.*" ;;
		patched) want="6.1+hugebuf" ;;
		6.12) want="6.12.*" ;;
		esac
		# shellcheck disable=SC2053
		if [[ ${R[$k,kchosen]:-none} != $want ]]; then
			count fail "$k: model ${R[$k,kchosen]:-none}, expected $want"
		elif [ "${R[$k,kagreed]:-}" != yes ]; then
			count fail "$k: version ${R[$k,kver]} and behaviour ${R[$k,kbeh]} disagree"
		else
			count pass "$k recognised as ${R[$k,kchosen]}"
		fi
	done
}

# the patched kernel must coalesce where the unpatched one cannot
check_coalescing() {
	local ru=${R[unpatched,reqs]:-} rp=${R[patched,reqs]:-} kp=${R[patched,kmem]:-}
	case " $KTEST_KERNELS " in *" patched "*) ;; *) return 0 ;; esac
	if [ -z "$rp" ] || [ "$rp" -lt 0 ] 2>/dev/null; then
		count fail "patched: no request count measured"
	elif [ -n "$ru" ] && [ "$ru" -ge 0 ] && [ "$rp" -ge "$ru" ]; then
		count fail "patched: $rp requests per 8 MiB, not fewer than unpatched $ru"
	elif [ "$rp" -gt 2 ]; then
		count fail "patched: $rp requests per 8 MiB READ_FIXED, expected 2"
	else
		count pass "patched coalesces (requests)"
	fi
	if [ -z "$kp" ] || [ "$kp" -lt 0 ] || [ "$kp" -gt 64 ]; then
		count fail "patched: ${kp:-no} kB kernel memory per 512 MiB registration, expected ~8"
	else
		count pass "patched coalesces (imu memory)"
	fi
}

# every allocation of a registration failed once (fault-regbuf): 6.1
# without patch 0001 leaks the pins, the others leave nothing behind
check_fault() {
	local k b v want
	for k in $KTEST_KERNELS; do
		for b in 4k 2M; do
			v=${R[$k,fault_$b]:-}
			if [ -z "$v" ]; then
				count fail "$k: fault-regbuf $b did not report"
				continue
			fi
			case $k in
			unpatched) want=leak ;;
			*) want=none ;;
			esac
			case $want:$v in
			none:0/0/0 | leak:[1-9]*)
				count pass "$k imu allocation failure, $b: ${v%%/*} pins left" ;;
			none:*)
				count fail "$k: imu allocation failure, $b, left pins/VmPin/hugepages $v" ;;
			leak:*)
				count fail "$k: no pin leak seen, $b ($v): the injection missed the imu allocation" ;;
			esac
		done
	done
}

# ---- the series' profile on NVMe ---------------------------------------------

# one table in the shape of the series' perf diff: per 8 MiB I/O, column A
# (before) and column B (after), from nvme-profile's NVPROF lines
profile_diff() {	# op, fileA, backingA, fileB, backingB
	awk -v op="$1" -v fa="$2" -v ba="$3" -v fb="$4" -v bb="$5" '
	function kv(s, k,	a, i) {
		for (i = 1; i <= split(s, a, " "); i++)
			if (index(a[i], k "=") == 1)
				return substr(a[i], length(k) + 2)
		return ""
	}
	FNR == 1 { col = (FILENAME == fa && !seen++) ? "A" : "B"; bk = col == "A" ? ba : bb }
	!/^NVPROF op=/ || kv($0, "op") != op || kv($0, "backing") != bk { next }
	/ ios=/ { ios[col] = kv($0, "ios"); req[col] = kv($0, "requests"); next }
	/ sym=/ {
		s = kv($0, "sym")
		if (!(s in order)) { order[s] = ++n; name[n] = s }
		hits[col, s] = kv($0, "hits"); us[col, s] = kv($0, "usec")
	}
	END {
		if (!ios["A"] || !ios["B"]) { print "  (no profile: nvme-profile did not run)"; exit }
		printf "  %10s %10s %10s   %10s %10s %7s  %s\n", "calls", "calls", "delta",
			"time", "time", "ratio", "symbol"
		printf "  %10s %10s %10s   %10s %10s %7s  %s\n", "before", "after", "",
			"before", "after", "", ""
		printf "  %10g %10g %+10g   %10s %10s %7s  %s\n", req["A"] / ios["A"],
			req["B"] / ios["B"], req["B"] / ios["B"] - req["A"] / ios["A"],
			"", "", "", "device requests"
		for (i = 1; i <= n; i++) {
			s = name[i]
			ca = hits["A", s] / ios["A"]; cb = hits["B", s] / ios["B"]
			ta = us["A", s] / ios["A"]; tb = us["B", s] / ios["B"]
			if (ca == 0 && cb == 0)
				continue
			r = "-"
			if (ta > 0)
				r = sprintf("%.2f", tb / ta)
			printf "  %10g %10g %+10g   %10.1f %10.1f %7s  %s\n", ca, cb, cb - ca,
				ta, tb, r, s
		}
	}' "$2" "$4"
}

# per guest kernel: 4 KiB pages (before) against 2 MiB hugepages (after);
# then the series itself: unpatched against patched 6.1, both 2 MiB
print_profile() {	# dir with console-<kernel>.log.txt, kernels...
	local dir=$1 k op f
	shift
	printf '\nNVMe profile per 8 MiB O_DIRECT I/O on nvme0n1 (kernel/probe/nvme-profile.c).\n'
	printf 'Calls and requests are exact. Time is microseconds per I/O under TCG,\n'
	printf 'inclusive of callees (ftrace function profiler): compare ratios only.\n'
	for k in "$@"; do
		f=$dir/console-$k.log.txt
		[ -f "$f" ] || continue
		for op in read write; do
			printf '\n%s, %s_FIXED: before = 4 KiB pages, after = 2 MiB hugepages\n' \
				"$k ($(grep -a -o '@@KTEST BEGIN [^ ]*' "$f" | head -1 | cut -d' ' -f3))" \
				"$(echo $op | tr a-z A-Z)"
			profile_diff $op "$f" 4k "$f" 2M
		done
	done
	if [ -f "$dir/console-unpatched.log.txt" ] && [ -f "$dir/console-patched.log.txt" ]; then
		for op in read write; do
			printf '\nthe series, %s_FIXED from 2 MiB hugepages: before = unpatched 6.1, after = patched 6.1\n' \
				"$(echo $op | tr a-z A-Z)"
			profile_diff $op "$dir/console-unpatched.log.txt" 2M \
				"$dir/console-patched.log.txt" 2M
		done
	fi
	printf '\n'
}

# ---- main ------------------------------------------------------------------

main() {
	local mode=run k img hk rc
	case "${1:-}" in
	--build-only) mode=build ;;
	--checkpatch) mode=checkpatch ;;
	--bisect) mode=bisect ;;
	--profile)
		[ -d "${2:-}" ] || die "--profile needs a kept run directory (KTEST_KEEP=1)"
		print_profile "$2" $KTEST_KERNELS
		exit 0 ;;
	-h | --help) sed -n '3,/^set -u/p' "$0" | sed -e '/^set -u/d' -e 's/^# \{0,1\}//'; exit 0 ;;
	"") ;;
	*) die "unknown option $1 (see --help)" ;;
	esac
	mkdir -p "$KTEST_CACHE"
	exec 9>"$KTEST_CACHE/lock"
	flock -w 3600 9 || die "$KTEST_CACHE is locked by another ktest run"
	ensure_packages
	compute_keys
	case $mode in
	checkpatch) run_checkpatch; exit $? ;;
	bisect) run_bisect; exit $? ;;
	esac
	build_kernels
	log "kernels ready after $(elapsed) s"
	[ $mode = build ] && exit 0

	WORK=$(mktemp -d "$KTEST_CACHE/run.XXXXXX")
	build_probe "$WORK/regbuf-probe"
	make_fio_job "$WORK/fio.job"
	[ -d "$KTEST_BINDIR" ] || log "warning: $KTEST_BINDIR missing (run 'make static'): only the probe runs"
	[ -x "$KTEST_BINDIR/hugebuf" ] || log "warning: no $KTEST_BINDIR/hugebuf: 'hugebuf check' skipped"
	[ -f "$KTEST_ENGINE" ] || log "warning: no $KTEST_ENGINE: fio run skipped"
	for k in $KTEST_KERNELS; do
		case $k in
		unpatched) img=$IMG_U hk="" ;;
		patched) img=$IMG_P hk="" ;;
		6.12) img=$IMG_612 hk="" ;;
		*) die "KTEST_KERNELS: unknown kernel $k" ;;
		esac
		build_initramfs "$k" "$hk" "$WORK/initramfs-$k.cpio"
		boot_kernel "$k" "$img" "$WORK/initramfs-$k.cpio"
		rc=$?
		collect "$k" $rc
		log "$k done after $(elapsed) s"
	done
	check_coalescing
	check_detection
	check_fault
	print_table
	print_profile "$WORK" $KTEST_KERNELS
	log "console logs: $WORK (total $(elapsed) s)"
	if [ "$KTEST_KEEP" = 0 ] && [ $NFAIL = 0 ]; then
		rm -rf "$WORK"
	fi
	echo "$NPASS passed, $NFAIL failed, $NSKIP skipped"
	[ $NFAIL = 0 ]
}

main "$@"
