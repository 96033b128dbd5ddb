#!/bin/busybox sh
# SPDX-License-Identifier: GPL-2.0-only
#
# kernel/guest-init.sh: /init of every kernel/ktest.sh guest (copied into
# the initramfs by kernel/kboot.sh).  It runs everything and reports on the
# serial console, which is all kernel/ktest.sh reads:
#   @@KTEST BEGIN <uname -r> ...     first line
#   @@KTEST RUN <name>               before each program, its output after
#   @@KTEST RESULT <name> <exit> <s> 0 pass, 77 skip, else fail
#   @@KTEST NVME / INFO / DMESG ...  queue limits, settings, bad kernel lines
#   @@KTEST END                      last line: the guest finished
# Settings come from /hugebuf/env (written by kboot.sh).
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
# The probes arm and disarm their kprobe events around every window, and
# enabling an event also starts the recording of task names, which
# registers the sched_switch and sched_wakeup tracepoints: a static call
# rewritten in __schedule() by text_poke_bp() (kernel/trace/trace.c:
# tracing_start_cmdline_record(), 6.1 to 7.x).  Under TCG on a loaded
# host a vCPU that hit the temporary int3 there with interrupts off can
# loop on it while the patching CPU waits for its sync IPI: a soft
# lockup that never ends (seen three times, 6.1 IOMMU guest).  Counting
# hits needs no task names, and kprobes' jump optimisation is more of
# the same patching.
echo 0 >/sys/kernel/tracing/options/record-cmd 2>/dev/null
echo 0 >/proc/sys/debug/kprobes-optimization 2>/dev/null
. /hugebuf/env

# wait until every path $3... exists, polling every $2 s, $1 polls at most
wait_paths() {	# polls, seconds, paths...
	polls=$1 every=$2
	shift 2
	for p in "$@"; do
		while ! [ -e "$p" ] && [ "$polls" -gt 0 ]; do
			polls=$((polls - 1))
			sleep "$every"
		done
	done
}

# the block device (nvmeXnY) of the NVMe controller whose serial is $1:
# the kernel probes NVMe controllers asynchronously, so with two of them
# (an NVMe-only guest) the names are not stable.  The controller's
# namespace is a directory of /sys/class/nvme/nvmeX/ named as its disk
# (qemu's namespaces are not shared, so no multipath head); the serial may
# keep qemu's padding spaces.
nvme_disk() {	# serial
	for c in /sys/class/nvme/nvme*; do
		[ "$(tr -d ' \n' <"$c/serial" 2>/dev/null)" = "$1" ] || continue
		for n in "$c"/nvme*n*; do
			n=${n##*/}
			[ -e "/sys/block/$n" ] && echo "$n" && return 0
		done
	done
	return 1
}

# nvme_disk() of serial $1, polling every 0.2 s for up to 10 s; $2 and
# what /sys/class/nvme holds when there is none
wait_nvme() {	# serial, fallback
	for i in $(seq 50); do
		nvme_disk "$1" && return 0
		sleep 0.2
	done
	echo "@@KTEST INFO no NVMe controller of serial $1:" \
		$(for c in /sys/class/nvme/*; do echo "${c##*/}[$(cat $c/serial)]:" $(ls $c); done) >&2
	echo "$2"
}

# a Debian image's modules for the disks (kernel/kdeb.sh), in load order;
# then the disks may take a moment to appear
if [ -f /lib/modules/ktest/order ]; then
	for m in $(cat /lib/modules/ktest/order); do
		insmod /lib/modules/ktest/$m.ko ||
			echo "@@KTEST INFO insmod $m failed"
	done
	[ -n "$KTEST_MAIN_SERIAL" ] || wait_paths 50 0.2 /dev/vda
fi
# The main disk (ext4 scratch: the suite, the probe, hugebuf check, fio):
# virtio-blk vda, or in an NVMe-only guest (an image without its modules,
# kboot.sh) the NVMe controller of serial KTEST_MAIN_SERIAL.  NS is the
# emulated NVMe namespace of serial hugebuf0 (nvme-profile, passthrough,
# the failing disk), NG its generic character device.
MAIN=vda
[ -n "$KTEST_MAIN_SERIAL" ] && MAIN=$(wait_nvme "$KTEST_MAIN_SERIAL" none)
NS=$(wait_nvme hugebuf0 nvme0n1)
NG=ng${NS#nvme}
echo "@@KTEST INFO main disk $MAIN${KTEST_MAIN_SERIAL:+ (NVMe serial $KTEST_MAIN_SERIAL)}, namespace $NS"
ip link set lo up 2>/dev/null || ifconfig lo 127.0.0.1 up
[ "$(cat /proc/sys/vm/nr_hugepages)" -ge "$KTEST_HUGEPAGES" ] ||
	echo "$KTEST_HUGEPAGES" >/proc/sys/vm/nr_hugepages
g1=/sys/kernel/mm/hugepages/hugepages-1048576kB/nr_hugepages
echo "@@KTEST BEGIN $(uname -r) hugepages=$(cat /proc/sys/vm/nr_hugepages)" \
	"hugepages_1g=$(cat $g1 2>/dev/null || echo none)"
q=/sys/block/$MAIN/queue
echo "@@KTEST INFO $MAIN default max_sectors_kb=$(cat $q/max_sectors_kb)" \
	"max_hw_sectors_kb=$(cat $q/max_hw_sectors_kb)" \
	"max_segments=$(cat $q/max_segments)" \
	"max_segment_size=$(cat $q/max_segment_size)" \
	"virt_boundary_mask=$(cat $q/virt_boundary_mask 2>/dev/null || echo n/a)"
if [ -n "$KTEST_MAX_SECTORS_KB" ]; then
	echo "$KTEST_MAX_SECTORS_KB" >$q/max_sectors_kb
	echo "@@KTEST INFO $MAIN max_sectors_kb set to $(cat $q/max_sectors_kb)"
fi
# the emulated NVMe namespace: the limits the driver gave its queue and
# the SGL threshold (nvme_pci_use_sgls(): SGLs when the controller has them
# and the average segment is at least sgl_threshold bytes)
q=/sys/block/$NS/queue
if [ -d $q ]; then
	echo "@@KTEST NVME max_hw_sectors_kb=$(cat $q/max_hw_sectors_kb)" \
		"max_sectors_kb=$(cat $q/max_sectors_kb)" \
		"max_segments=$(cat $q/max_segments)" \
		"max_segment_size=$(cat $q/max_segment_size)" \
		"virt_boundary_mask=$(cat $q/virt_boundary_mask 2>/dev/null || echo n/a)" \
		"sgl_threshold=$(cat /sys/module/nvme/parameters/sgl_threshold 2>/dev/null || echo n/a)"
fi

# KTEST_ONLY (ktest.sh): a comma list of the suite's tests, the probes
# (kernel/probes.tab's names), "check" (hugebuf info and check) and "fio"
# to run; empty runs everything
only() {	# name
	[ -z "$KTEST_ONLY" ] && return 0
	case ",$KTEST_ONLY," in *",$1,"*) return 0 ;; esac
	return 1
}

run() {	# name, command...
	name=$1
	shift
	echo "@@KTEST RUN $name"
	s=$(date +%s)
	timeout "$KTEST_TEST_TIMEOUT" "$@" </dev/null 2>&1
	rc=$?
	echo "@@KTEST RESULT $name $rc $(($(date +%s) - s))"
}

# A probe that counts with the ftrace function profiler (its binary names
# function_profile_enabled) on a kernel that has none (no
# CONFIG_FUNCTION_PROFILER: Debian's configs) would count zeros: it is
# one skip instead, with the probe's own skip line (TAG skip=...)
run_profiled() {	# tag, name, program, args...
	tag=$1
	shift
	if ! [ -e /sys/kernel/tracing/function_profile_enabled ] &&
	   grep -q function_profile_enabled "$2"; then
		echo "@@KTEST RUN $1"
		echo "$tag skip=no function profiler: ${2##*/} counts with it and this kernel has no function_profile_enabled (CONFIG_FUNCTION_PROFILER)"
		echo "@@KTEST RESULT $1 77 0"
		return
	fi
	run "$@"
}

# a program that writes its own "@@KTEST RESULT name:CASE" lines; one
# that died or timed out is one more failed result
run_cases() {	# name, command...
	name=$1
	shift
	echo "@@KTEST RUN $name"
	timeout "$KTEST_TEST_TIMEOUT" "$@" </dev/null 2>&1
	rc=$?
	case $rc in
	0 | 1 | 77) ;;
	*) echo "@@KTEST RESULT $name $rc 0" ;;
	esac
}

# kernel/probes.tab's probes of stage $1 in guest $2 (main or iommu), in
# the table's order: the ones for this kernel (KTEST_KERNEL) whose needs
# are met, each run as its results column says (the table's header)
probes() {	# stage, guest
	p_stage=$1 p_guest=$2
	while read -r name guest stage kernels needs tag results judge report \
		prog args <&3; do
		case $name in '#'* | '') continue ;; esac
		[ "$guest" = "$p_guest" ] && [ "$stage" = "$p_stage" ] || continue
		only "$name" || continue
		probe_wanted "$kernels" "$needs" || continue
		[ "$args" = - ] && args=
		eval "set -- $args"
		prog=/hugebuf/bin/$prog
		case $results:,$needs, in
		exit:*,profiler,*) run_profiled "$tag" "$name" "$prog" "$@" ;;
		exit:*) run "$name" "$prog" "$@" ;;
		cases:*) run_cases "$name" "$prog" "$@" ;;
		*) "$prog" "$@" </dev/null 2>&1 ;;
		esac
	done 3</hugebuf/probes.tab
}

# whether this kernel is among the comma list of globs $1 and the needs of
# comma list $2 are met here
probe_wanted() {	# kernels, needs
	set -f
	ok=
	for w in $(echo "$1" | tr , ' '); do
		# shellcheck disable=SC2254
		case $KTEST_KERNEL in $w) ok=1 ;; esac
	done
	set +f
	[ -n "$ok" ] || return 1
	for w in $(echo "$2" | tr , ' '); do
		case $w in
		ns) [ -b "/dev/$NS" ] || return 1 ;;
		nvmefs) [ "$nvme_fs" = 1 ] || return 1 ;;
		esac
	done
	return 0
}

nvme_fs=0
# the probes before any disk is mounted (sendzc-probe: loopback TCP only)
probes boot main
if ! mount -t ext4 -o noatime /dev/$MAIN /mnt; then
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
if [ -c /dev/$NG ]; then
	export HUGEBUF_PT_DEV=/dev/$NG
	export HUGEBUF_PT_OFFSET=$(($(cat /sys/block/$NS/size) * 512 - 134217728))
fi

# The tests of KTEST_NVME_SUITE ("all" or a comma list of names) with
# their files on /nvme (mounted), each reported as $1:NAME
nvme_suite() {	# $1 = prefix of the names
	main_dir=$HUGEBUF_TEST_DIR
	export HUGEBUF_TEST_DIR=/nvme/hugebuf-test
	mkdir -p "$HUGEBUF_TEST_DIR"
	cd "$HUGEBUF_TEST_DIR"
	for t in /hugebuf/tests/*; do
		[ -f "$t" ] && [ -x "$t" ] || continue
		case ",$KTEST_NVME_SUITE," in
		,all,|*,"$(basename "$t")",*) ;;
		*) continue ;;
		esac
		run "$1:$(basename "$t")" "$t"
	done
	export HUGEBUF_TEST_DIR=$main_dir
	cd "$HUGEBUF_TEST_DIR"
}

# An IOMMU guest (KTEST_IOMMU=1: q35 with qemu's intel-iommu, booted in
# strict mode) runs only what concerns the NVMe namespace behind the
# IOMMU: the folio-boundary data cases on it, a verify job of registered
# buffers, the engine's passthrough, and iommu-profile in strict mode,
# then again after the group's domain is switched to the flush queue
# ("DMA-FQ": lazy invalidation, allowed at run time from "DMA" since 5.15),
# and once more with no translation ("identity", the DMA-direct path).
# A DMA remapping fault the IOMMU reports fails the run.
iommu_guest() {
	grp=$(readlink /sys/block/$NS/device/device/iommu_group 2>/dev/null)
	grp=${grp##*/}
	echo "@@KTEST IOMMU group=${grp:-none}" \
		"type=$(cat /sys/kernel/iommu_groups/$grp/type 2>/dev/null)" \
		"cmdline=$(cat /proc/cmdline)"
	if [ -z "$grp" ]; then
		echo "@@KTEST RESULT iommu:group 1 0"
		return
	fi
	# requests as large as the driver allows (6.1's default max_sectors_kb
	# is 1280), so that a 2 MiB IOMMU page can occur
	q=/sys/block/$NS/queue
	cat $q/max_hw_sectors_kb >$q/max_sectors_kb
	echo "@@KTEST INFO $NS max_sectors_kb set to $(cat $q/max_sectors_kb)"
	mkdir -p /nvme
	if mount -t ext4 -o noatime /dev/$NS /nvme; then
		mkdir -p /nvme/fio
		nvme_suite iommu:test
		cd /
		[ -x /usr/bin/fio ] && [ -f /hugebuf/engine/hugebuf.so ] &&
			run iommu:fio-verify /usr/bin/fio /hugebuf/fio-iommu.job
		umount /nvme
	else
		echo "@@KTEST RESULT iommu:mount 1 0"
	fi
	probes raw iommu
	probes strict iommu
	if echo DMA-FQ >/sys/kernel/iommu_groups/$grp/type; then
		probes lazy iommu
	else
		echo "@@KTEST RESULT iommu:switch-to-lazy 1 0"
	fi
	# the DMA-direct column on the same machine and namespace: an
	# identity domain (no translation) needs the driver unbound while the
	# group's type changes
	pci=$(readlink /sys/block/$NS/device/device)
	pci=${pci##*/}
	if echo "$pci" >/sys/bus/pci/drivers/nvme/unbind &&
	   echo identity >/sys/kernel/iommu_groups/$grp/type &&
	   echo "$pci" >/sys/bus/pci/drivers/nvme/bind; then
		wait_paths 30 1 /dev/$NS /dev/$NG
		cat $q/max_hw_sectors_kb >$q/max_sectors_kb 2>/dev/null
		probes direct iommu
	else
		echo "@@KTEST RESULT iommu:switch-to-identity 1 0"
	fi
	# intel-iommu reports a remapping fault as "DMAR: [DMA Read ...]" or
	# "DMAR: DRHD: handling fault status"
	faults=$(dmesg | grep -E 'DMAR: \[DMA (Read|Write)|DRHD: handling fault')
	if [ -n "$faults" ]; then
		echo "$faults" | head -5 | sed 's/^/@@KTEST DMAR /'
		echo "@@KTEST RESULT iommu:dma-faults 1 0"
	else
		echo "@@KTEST RESULT iommu:dma-faults 0 0"
	fi
}

if [ "${KTEST_IOMMU:-0}" = 1 ]; then
	iommu_guest
	dmesg | grep -E "$KTEST_BAD_RE" | sed 's/^/@@KTEST DMESG /'
	echo "@@KTEST END"
	cd /
	sync
	umount /mnt
	reboot -f
fi

for t in /hugebuf/tests/*; do
	[ -f "$t" ] && [ -x "$t" ] || continue
	only "$(basename "$t")" || continue
	run "test:$(basename "$t")" "$t"
done
# liburing 2.9's runner (bash) with our exported folio-boundary tests and
# its own registered-buffer tests, one at a time, from a copy on the main disk (the
# tests keep their O_DIRECT scratch files in the current directory); its
# skip is 77 with TEST_GNU_EXITCODE, its timeout a failure here
if [ -f /hugebuf/liburing/list ]; then
	rm -rf /mnt/liburing
	cp -r /hugebuf/liburing /mnt/liburing
	cd /mnt/liburing
	# io_uring_passthrough.t writes from LBA 0 of the device it is given:
	# the namespace of serial hugebufpt, which holds nothing else
	# (kboot.sh), through its generic character device
	pt=$(nvme_disk hugebufpt) && [ -c "/dev/ng${pt#nvme}" ] &&
		echo "TEST_MAP[io_uring_passthrough.t]=/dev/ng${pt#nvme}" >>config.local
	for t in $(cat list); do
		run "liburing:${t%.t}" sh -c 'TEST_GNU_EXITCODE=1 \
			/usr/bin/bash ./runtests.sh "$1" >/tmp/lr.out 2>&1
			rc=$?
			cat /tmp/lr.out
			grep -q "timed out" /tmp/lr.out && rc=124
			exit $rc' sh "$t"
	done
	cd "$HUGEBUF_TEST_DIR"
fi
# the same data-verified suite with its files on the NVMe namespace
mkdir -p /nvme
if [ -b /dev/$NS ]; then
	if mount -t ext4 -o noatime /dev/$NS /nvme; then
		nvme_fs=1
	else
		echo "@@KTEST RESULT nvme:mount 1 0"
	fi
fi
if [ "$KTEST_NVME_SUITE" != 0 ] && [ $nvme_fs = 1 ]; then
	nvme_suite nvme:test
fi
# the probes that use the namespace's ext4 (fault-device: a failing disk),
# then the ones on the main disk (regbuf-probe)
probes nvmefs main
probes disk main
if [ -x /hugebuf/bin/hugebuf ] && only check; then
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
	# its kernel_coalesced and matches_model are ktest's coalescing
	# verdict (check_coalescing)
	run check-json /hugebuf/bin/hugebuf check --backing=hugetlb:2M \
		--size=8M --file=/mnt/hugebuf-check.dat --json
fi
if [ -x /usr/bin/fio ] && [ -f /hugebuf/engine/hugebuf.so ] && only fio; then
	run fio /usr/bin/fio /hugebuf/fio.job
	# plain O_DIRECT (fixedbufs=0) from every backing and head offset,
	# each write read back and verified
	run fio-plain /usr/bin/fio /hugebuf/fio-plain.job
fi
# the series' profile: raw O_DIRECT I/O past the end of /nvme's ext4,
# unmounted first (6.8+ without BLK_DEV_WRITE_MOUNTED refuses to open a
# mounted disk for writing)
umount /nvme 2>/dev/null
# the probes of the raw region (the passthrough jobs, nvme-profile,
# bio-profile, fault-plain), then the last ones: regcost-probe, its 1 GiB
# scale, and fault-regbuf, which on a kernel without the stable patch
# leaves pins (and a hugepage) behind
probes raw main
probes late main
dmesg | grep -E "$KTEST_BAD_RE" | sed 's/^/@@KTEST DMESG /'
echo "@@KTEST END"
cd /
sync
umount /mnt
reboot -f
