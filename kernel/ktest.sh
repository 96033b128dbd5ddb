#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# kernel/ktest.sh: boot the kernels of kernel/kernels.tab under qemu (TCG):
# Debian's own prebuilt images, 5.10 to 7.3, fetched from the machine's
# mirror (kernel/kdeb.sh; one that cannot be had is a counted skip), and
# Debian's 6.1 source built with our config without and with the hugebuf
# series (kernel/patches/: "control" and "patched").  In each it runs
# the project's static tests (on virtio-blk and again on an emulated NVMe
# namespace), the hugebuf CLI, a short fio run, kernel/probe's measurement
# and the NVMe profile of the series in the guest, and print side-by-side
# tables.  The kernels of KTEST_IOMMU_KERNELS boot a second time as IOMMU
# guests (q35 with qemu's intel-iommu: kernel/kiommu.sh), where the DMA
# mapping work of registered-buffer I/O is counted strict, lazy and
# without translation and checked against lib's model.
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
#                  logs of a kept run (KTEST_KEEP=1), and the IOMMU
#                  guests' table and plot (RUNDIR/iommu-calls.{png,svg,md})
#
# Environment (defaults in brackets):
#   KTEST_CACHE         build cache, outside the clone [/var/tmp/hugebuf-kernel]
#   KTEST_BINDIR        static test programs + CLI 'hugebuf' [<top>/t/static]
#   KTEST_PROBEDIR      the harness's guest programs, kernel/probe/*.c built
#                       by 'make static' [<top>/kernel/static]
#   KTEST_ENGINE        fio engine [<top>/engines/hugebuf.so]
#   KTEST_FIO_JOB       fio job [<top>/examples/hugepage-randread-8m.fio]
#   KTEST_EXTRA         extra static binaries to run like the tests [""]
#   KTEST_LIBURING      "DIR NAME.t..." of liburing tests to run with its
#                       runtests.sh in every guest [the line of
#                       tools/liburing-check.sh --build-only: our exported
#                       tests and liburing 2.9's registered-buffer tests];
#                       "none" runs none
#   KTEST_KERNELS       kernels of kernel/kernels.tab to boot, in this
#                       order: names, "all" (every line) or "default"
#                       (its run=default lines) [default]
#   KTEST_JOBS          make -j [3]
#   KTEST_GUESTS        guests booted at once (each its own qemu, disks,
#                       console) [2]; 1 while file KTEST_HOST_BUSY exists
#   KTEST_MEM           guest memory [4G]
#   KTEST_NUMA_NODES    NUMA nodes of the guest, 1 or 2 (qemu -numa,
#                       memory split evenly; needs KTEST_SMP >= 2) [2]
#   KTEST_SMP           guest CPUs [2]
#   KTEST_ACCEL         qemu -accel [tcg]
#   KTEST_HUGEPAGES     2 MiB hugepages reserved in the guest [512]
#   KTEST_1G_PAGES      1 GiB hugepages reserved at boot [1]: qemu's -cpu
#                       max has pdpe1gb under TCG on any host, so the 1G
#                       rows run in the guests even where the host's CPU
#                       has no 1 GiB pages
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
#   KTEST_MAIN_NVME_OPTS  the "-device nvme" properties of an NVMe-only
#                       guest's main disk (kernels.tab's :nvme-only) [mdts=0]
#   KTEST_IOMMU_KERNELS which of KTEST_KERNELS also boot as an IOMMU guest,
#                       right after their DMA-direct guest: q35 with
#                       qemu's intel-iommu, the NVMe namespace behind it,
#                       strict then lazy invalidation (kernel/kiommu.sh)
#                       [the iommu=yes lines of kernels.tab]; "" boots none
#   KTEST_IOMMU_NVME_OPTS  the IOMMU guests' "-device nvme" properties
#                       [mdts=0: no controller limit, so that the
#                       driver's own limit, 4 MiB on 6.1 and 128 KiB
#                       (dma_opt_mapping_size) on 6.12, decides]
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
KTEST_PROBEDIR=${KTEST_PROBEDIR:-$TOP/kernel/static}
KTEST_ENGINE=${KTEST_ENGINE:-$TOP/engines/hugebuf.so}
KTEST_FIO_JOB=${KTEST_FIO_JOB:-$TOP/examples/hugepage-randread-8m.fio}
KTEST_EXTRA=${KTEST_EXTRA:-}
KTEST_LIBURING=${KTEST_LIBURING:-}
KTEST_KERNELS=${KTEST_KERNELS:-default}
KTEST_JOBS=${KTEST_JOBS:-3}
KTEST_GUESTS=${KTEST_GUESTS:-2}
KTEST_MEM=${KTEST_MEM:-4G}
KTEST_SMP=${KTEST_SMP:-2}
KTEST_ACCEL=${KTEST_ACCEL:-tcg}
# two NUMA nodes (a CPU and half the memory each): t/numa-placement's
KTEST_NUMA_NODES=${KTEST_NUMA_NODES:-2}
KTEST_HUGEPAGES=${KTEST_HUGEPAGES:-512}
KTEST_1G_PAGES=${KTEST_1G_PAGES:-1}
KTEST_TEST_TIMEOUT=${KTEST_TEST_TIMEOUT:-300}
KTEST_BOOT_TIMEOUT=${KTEST_BOOT_TIMEOUT:-1500}
KTEST_FIO_SIZE=${KTEST_FIO_SIZE:-64m}
KTEST_FIO_RUNTIME=${KTEST_FIO_RUNTIME:-5}
KTEST_KEEP=${KTEST_KEEP:-0}
KTEST_MAX_SECTORS_KB=${KTEST_MAX_SECTORS_KB-4096}
KTEST_NVME_SIZE=${KTEST_NVME_SIZE:-2G}
KTEST_NVME_OPTS=${KTEST_NVME_OPTS:-}
KTEST_IOMMU_NVME_OPTS=${KTEST_IOMMU_NVME_OPTS-mdts=0}
KTEST_NVME_SUITE=${KTEST_NVME_SUITE:-regbuf-thp-tail,regbuf-small-in-folio}
[ "$KTEST_NVME_SUITE" = 1 ] && KTEST_NVME_SUITE=all	# the old spelling

T0=$(date +%s)
# a kernel BUG, WARN_ON splat, soft lockup, Oops or bad page report, after the
# printk time
BAD_RE='\[ *[0-9]+\.[0-9]+\] (.*BUG: soft lockup|.*WARNING: CPU:|.*------------\[ cut here \]|.*kernel BUG at|BUG: |.*Oops|.*Bad page (state|map))'

log() { echo "ktest: $*" >&2; }
die() { echo "ktest: error: $*" >&2; exit 1; }
elapsed() { echo $(($(date +%s) - T0)); }

# the kernels: kernels.tab, cache keys, the series, configure, build
# shellcheck source=kernel/kbuild.sh
. "$KDIR/kbuild.sh"

# Debian's images: the private apt state, fetch, modules
# shellcheck source=kernel/kdeb.sh
. "$KDIR/kdeb.sh"

# the guests: initramfs, disks, qemu
# shellcheck source=kernel/kboot.sh
. "$KDIR/kboot.sh"

# the IOMMU guests' checks and table
# shellcheck source=kernel/kiommu.sh
. "$KDIR/kiommu.sh"

# the profile tables printed from the console logs
# shellcheck source=kernel/kreport.sh
. "$KDIR/kreport.sh"

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

# the last "PROBE key=value" of regbuf-probe in a console log
probe_val() { grep -a -o "PROBE $2=[^ ]*" "$1" | tail -1 | cut -d= -f2; }

# KEYS' values (joined by /) on the last line of LOG matching RE: key=value
last_fields() {	# $1 = log, $2 = RE, keys...
	local log=$1 re=$2
	shift 2
	grep -a "$re" "$log" | tail -1 | awk -v keys="$*" '{
		for (i = 1; i <= NF; i++) { split($i, a, "="); v[a[1]] = a[2] }
		n = split(keys, k, " ")
		for (i = 1; i <= n; i++) printf "%s%s", (i > 1 ? "/" : ""), v[k[i]] }'
}

# what the guest's run NAME printed (between its RUN and RESULT lines)
run_output() {	# $1 = log, $2 = run name
	awk -v n="$2" '$0 == "@@KTEST RUN " n { on = 1; next }
		index($0, "@@KTEST RESULT " n " ") == 1 { on = 0 } on' "$1"
}

# the lines of a failed run that say why (its FAIL, error and not-ok
# lines, or its last lines when it printed none), so that a failure far
# from this machine can be read from the run's output alone
fail_lines() {	# $1 = log, $2 = run name
	local why
	why=$(run_output "$1" "$2" | grep -a -E 'FAIL|[Ee]rror|not ok|fail:|BAD' |
		grep -a -v -E 'fail=0|FAIL(ED)?=0' | head -n 8)
	[ -n "$why" ] || why=$(run_output "$1" "$2" | tail -n 4)
	printf '%s\n' "$why" | cut -c1-300 | sed 's/^/    /'
}

# parse one console log, count results and fill R[<label>,<field>]
collect() {	# $1 = label, $2 = qemu exit status
	local k=$1 log=$WORK/console-$1.log.txt p=0 f=0 s=0 name rc bad
	local np=0 nf=0 ns=0 ok fld pp=0 pf=0 qp=0 qf=0 qs=0 json lp=0 lf=0
	local ls=0 zp=0 zf=0 zs=0
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
		77) ok=s; count skip "$k $name$(run_output "$log" "$name" |
			grep -a -m1 -o ' skip=.*')" ;;	# the probe's reason
		*)	if liburing_refusal_confirmed "$log" "$name"; then
				ok=s; count skip "$k $name: its page-mixture case expects a hugetlb page and 4 KiB pages as one buffer, refused here with EINVAL as modelled (edd478269640; test:regbuf-mixed-folios)"
			else
				ok=f; count fail "$k $name (exit $rc)"
				fail_lines "$log" "$name"
			fi ;;
		esac
		case $name:$ok in
		pt:*:p) pp=$((pp + 1)) ;;
		pt:*:f) pf=$((pf + 1)) ;;
		pt-path:*:p) qp=$((qp + 1)) ;;
		pt-path:*:f) qf=$((qf + 1)) ;;
		pt-path:*:s) qs=$((qs + 1)) ;;
		nvme:test:*:p) np=$((np + 1)) ;;
		nvme:test:*:f) nf=$((nf + 1)) ;;
		nvme:test:*:s) ns=$((ns + 1)) ;;
		liburing:*:p) lp=$((lp + 1)) ;;
		liburing:*:f) lf=$((lf + 1)) ;;
		liburing:*:s) ls=$((ls + 1)) ;;
		sendzc:*:p) zp=$((zp + 1)) ;;
		sendzc:*:f) zf=$((zf + 1)) ;;
		sendzc:*:s) zs=$((zs + 1)) ;;
		test:*:p) p=$((p + 1)) ;;
		test:*:f) f=$((f + 1)) ;;
		test:*:s) s=$((s + 1)) ;;
		esac
	done < <(grep -a '^@@KTEST RESULT ' "$log")
	R[$k,suite]="$p/$f/$s"
	R[$k,nvsuite]="$np/$nf/$ns"
	R[$k,liburing]="$lp/$lf/$ls"
	R[$k,sendzc]="$zp/$zf/$zs"
	R[$k,pt]="$pp/$pf"
	R[$k,ptpath]="$qp/$qf/$qs"
	R[$k,ptjobs]=$(grep -a '^PT job=' "$log" | awk '{
		for (i = 2; i <= NF; i++) { split($i, a, "="); v[a[1]] = a[2] }
		saw = v["copied"] > 0 ? "copied" : "mapped"
		if (v["seen"] != "") saw = v["seen"]
		printf "%s%s:%s/%s", n++ ? " " : "", v["job"], v["predicted"], saw
		delete v }')
	for fld in max_hw_sectors_kb max_sectors_kb max_segments \
		   max_segment_size virt_boundary_mask sgl_threshold; do
		R[$k,nv_$fld]=$(last_fields "$log" '^@@KTEST NVME ' $fld)
	done
	R[$k,nv_mdts]=$(last_fields "$log" '^NVPROF ctrl ' mdts)
	R[$k,nv_sgls]=$(last_fields "$log" '^NVPROF ctrl ' sgls)
	for fld in 4k 2M; do
		R[$k,fault_$fld]=$(last_fields "$log" "^FAULT summary case=$fld " \
			leaked_pages vmpin_delta_kb hugepages_free_delta)
		R[$k,fault_n_$fld]=$(last_fields "$log" \
			"^FAULT summary case=$fld " enomem attempts)
	done
	R[$k,faildev]=$(last_fields "$log" '^FAILDEV disk=' acked eio bad \
		pins_delta)
	# fault-plain: its cases passed/failed, and the attempts that left a
	# pin or page behind or read bad data, summed over its cases
	R[$k,fplain]=$(grep -a '^FAULTPLAIN summary ' "$log" | awk '{
		for (i = 3; i <= NF; i++) { split($i, a, "="); v[a[1]] = a[2] }
		ok += v["result"] == "ok"; bad += v["result"] != "ok"
		leak += v["leak_attempts"]; data += v["bad_data"] }
		END { if (NR) printf "%d/%d/%d/%d", ok, bad, leak, data }')
	for fld in read:4k read:2M write:4k write:2M; do
		R[$k,nvreq_$fld]=$(grep -a "^NVPROF op=${fld%:*} backing=${fld#*:} ios=" "$log" |
			tail -1 | awk '{ split($4, i, "="); split($5, r, "=");
				if (i[2] > 0) printf "%g", r[2] / i[2] }')
	done
	# hugebuf check --json's verdicts (cli/hugebuf.c: check_json())
	json=$(run_output "$log" check-json)
	R[$k,cjrc]=$(grep -a '^@@KTEST RESULT check-json ' "$log" | tail -1 |
		cut -d' ' -f4)
	R[$k,coal]=$(echo "$json" | grep -a -o '"kernel_coalesced": *"[a-z]*"' |
		tail -1 | cut -d'"' -f4)
	R[$k,match]=$(echo "$json" | grep -a -o '"matches_model": *[a-z]*' |
		tail -1 | sed 's/.*: *//')
	R[$k,verdict]="${R[$k,coal]:-n/a}/${R[$k,match]:-n/a}"
	R[$k,nbvec]=$(echo "$json" | grep -a -o '"nr_bvecs": *[0-9]*' | tail -1 | sed 's/.*: *//')
	for fld in reqs:reqs_hugetlb reqs4k:reqs_4k kmem:kmem_per_512m_kb \
		   kver:kdetect_version kbeh:kdetect_behaviour \
		   kagreed:kdetect_agreed kchosen:kdetect_chosen kms:kdetect_usec; do
		R[$k,${fld%%:*}]=$(probe_val "$log" "${fld#*:}")
	done
	R[$k,bw]=$(grep -a -o 'READ: bw=[^ ,]*' "$log" | head -1 | cut -d= -f2)
	# the console may put an escape sequence before the first line
	R[$k,release]=$(grep -a -o '@@KTEST BEGIN [^ ]*' "$log" | head -1 | cut -d' ' -f3)
	# the guest's 1 GiB pool at boot: where the 1G rows could run
	R[$k,pool1g]=$(grep -a -o '@@KTEST BEGIN .*hugepages_1g=[a-z0-9]*' "$log" |
		head -1 | sed 's/.*hugepages_1g=//')
	# kernel messages carry a [ timestamp ]; the guest also greps dmesg
	bad=$( { grep -a -E "^$BAD_RE" "$log";
		 grep -a '^@@KTEST DMESG ' "$log" | sed -e 's/^@@KTEST DMESG //'; } |
		sort -u | wc -l)
	R[$k,bad]=$bad
	if [ "$bad" -gt 0 ]; then
		count fail "$k: $bad kernel BUG/WARNING/Oops/Bad page line(s):"
		{ grep -a -E "^$BAD_RE" "$log";
		  grep -a '^@@KTEST DMESG ' "$log"; } | head -8; bad_trace "$log"
	else
		count pass "$k kernel log clean"
	fi
	grep -a '^PROBE-CASE .* FAIL' "$log" | sed "s/^/$k: /"
}

print_table() {
	local k w=18 r
	# a column as wide as the longest release string (Debian's are long)
	for k in $KTEST_KERNELS; do
		r=${R[$k,release]:-}
		[ ${#r} -lt $((w - 2)) ] || w=$((${#r} + 2))
	done
	printf '\n%-44s' ""
	for k in $KTEST_KERNELS; do printf '%*s' $w "$k"; done
	printf '\n'
	row() {	# title, field
		printf '%-44s' "$1"
		for k in $KTEST_KERNELS; do printf '%*s' $w "${R[$k,$2]:-n/a}"; done
		printf '\n'
	}
	row "uname -r" release
	row "1 GiB hugepages at boot (the 1G rows)" pool1g
	row "model from the version" kver
	row "model from behaviour" kbeh
	row "version and behaviour agree" kagreed
	row "model used (no HUGEBUF_KERNEL)" kchosen
	row "behaviour check, microseconds" kms
	row "requests / 8 MiB READ_FIXED, 2M hugetlb" reqs
	row "requests / 8 MiB READ_FIXED, 4 KiB pages" reqs4k
	row "kernel memory kB / 512 MiB registration" kmem
	row "hugebuf check: coalesced/matches model" verdict
	row "suite passed/failed/skipped" suite
	row "suite on NVMe passed/failed/skipped" nvsuite
	row "liburing runtests.sh passed/failed/skipped" liburing
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
	row "passthrough path = prediction pass/fail/skip" ptpath
	row "imu alloc failure: ENOMEM/attempts, 4 KiB" fault_n_4k
	row "  leaked pins/VmPin kB/free hugepages, 4 KiB" fault_4k
	row "imu alloc failure: ENOMEM/attempts, 2M" fault_n_2M
	row "  leaked pins/VmPin kB/free hugepages, 2M" fault_2M
	row "plain I/O alloc fail: ok/FAIL/leaks/bad" fplain
	row "SEND_ZC cases passed/failed/skipped" sendzc
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
		want=$(kernel_field "$k" model)
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

# The coalescing verdict is hugebuf check's (cli/hugebuf.c), not the
# harness's: it counts the block requests of an 8 MiB READ_FIXED and the
# kernel memory of its registrations and compares them with the model of
# the same probed pages, uncoalesced and coalesced ("kernel_coalesced"),
# and with the running kernel's model ("matches_model").  6.1 registers one
# bvec per page (io_sqe_buffer_register()); the series, 6.12
# (a8edbb424b13) and later one per folio.  So the patched kernel must
# coalesce where the control does not, each as its own model predicts.
# 5.10 (its io_uring is 5.15's, io_sqe_buffer_register() in
# io_uring/io_uring.c) registers one bvec per page like 6.1.  Each kernel's expectation: kernels.tab's coal column.
check_coalescing() {
	local k want got
	for k in $KTEST_KERNELS; do
		want=$(kernel_field "$k" coal) got=${R[$k,coal]:-}
		if [ -z "${R[$k,cjrc]:-}" ]; then
			count skip "$k coalescing: hugebuf check --json did not run (no $KTEST_BINDIR/hugebuf, or the guest stopped before it)"
		elif [ -z "$got" ] || [ -z "${R[$k,match]:-}" ]; then
			count fail "$k: hugebuf check --json gave no verdict (exit ${R[$k,cjrc]})"
		elif [ "$got" != "$want" ]; then
			count fail "$k: hugebuf check says coalesced $got, expected $want"
		elif [ "${R[$k,match]}" != true ]; then
			count fail "$k: coalesced $got, but not as its model ${R[$k,kchosen]:-?} predicts (hugebuf check)"
		else
			count pass "$k coalesced: $got, as its model predicts (hugebuf check)"
		fi
	done
}

# every allocation of a registration failed once (fault-regbuf): 6.1
# without the stable patch leaks the pins, the others leave nothing behind (5.10
# allocates the imu before pin_user_pages(), so its failure has no pins
# to drop: io_sqe_buffer_register() in 5.10's io_uring/io_uring.c);
# kernels.tab's imufail column.  A config without fault injection is one
# counted skip.
FAULT_CONFIG="FAULT_INJECTION FAILSLAB FAIL_PAGE_ALLOC FAULT_INJECTION_DEBUG_FS FAIL_MAKE_REQUEST"
check_fault() {
	local k b v want miss
	for k in $KTEST_KERNELS; do
		# shellcheck disable=SC2086
		miss=$(config_missing "$k" $FAULT_CONFIG)
		if [ -n "$miss" ]; then
			count skip "$k imu allocation failure: $miss (fault-regbuf, fault-plain, fault-device cannot inject)"
			continue
		fi
		want=$(kernel_field "$k" imufail)
		for b in 4k 2M; do
			v=${R[$k,fault_$b]:-}
			if [ -z "$v" ]; then
				count fail "$k: fault-regbuf $b did not report"
				continue
			fi
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

# lib's model of plain O_DIRECT (hb_model_plain) against every count
# bio-profile took: one check per figure and case, the verdict made in the
# guest by hb_plain_count_matches() (its "BIOPROF model ... result=" lines)
check_plain_model() {
	local k log line res n
	for k in $KTEST_KERNELS; do
		log=$WORK/console-$k.log.txt
		n=0
		while read -r line; do
			n=$((n + 1))
			res=${line##*result=}
			res=${res%% *}
			case $res in
			ok) count pass "$k plain model: ${line#BIOPROF model }" ;;
			skip) count skip "$k plain model: ${line#BIOPROF model }" ;;
			*) count fail "$k plain model: ${line#BIOPROF model }" ;;
			esac
		done < <(grep -a '^BIOPROF model .*result=' "$log" 2>/dev/null)
		grep -aq '^BIOPROF skip=' "$log" 2>/dev/null && n=$((n + 1)) &&
			count skip "$k plain model: bio-profile $(grep -a -m1 '^BIOPROF skip=' "$log")"
		[ $n -gt 0 ] || count fail "$k: bio-profile printed no model check"
	done
}

# regcost-probe -s's lines, one check each: a registration whose VmPin
# charge was the model's ("ok"), a backing this guest could not give
# (its skip= reason), or a mismatch or error
check_regscale() {
	local k log line
	for k in $KTEST_KERNELS; do
		log=$WORK/console-$k.log.txt
		while read -r line; do
			line=${line#REGCOST scale }
			case $line in
			*" ok") count pass "$k regscale: $line" ;;
			*" skip="*) count skip "$k regscale: $line" ;;
			*) count fail "$k regscale: $line" ;;
			esac
		done < <(grep -a '^REGCOST scale backing=' "$log" 2>/dev/null)
	done
}

# sendzc-probe runs in every guest before its disk is mounted: a guest
# that finished without one of its case lines lost the probe
check_sendzc() {
	local k
	for k in $KTEST_KERNELS; do
		[ "${R[$k,hang]:-}" = yes ] && continue
		grep -aq '^@@KTEST RESULT sendzc:' "$WORK/console-$k.log.txt" ||
			count fail "$k: sendzc-probe reported no case"
	done
}

# ---- main ------------------------------------------------------------------

# Boot guest $1 in the background once fewer than KTEST_GUESTS run (one
# while file KTEST_HOST_BUSY exists: tools/check.sh's host stages run);
# its qemu exit status goes to $WORK/rc-$1, read after the last one
GUEST_PIDS=()
start_guest() {	# label, bzImage, initramfs [, iommu]
	local pid live max
	while :; do
		max=$KTEST_GUESTS
		[ -n "${KTEST_HOST_BUSY:-}" ] && [ -e "$KTEST_HOST_BUSY" ] && max=1
		[ "$max" = "${GUEST_MAX:-}" ] ||
			log "$max guest(s) at once from $(elapsed) s"
		GUEST_MAX=$max
		live=()
		for pid in "${GUEST_PIDS[@]}"; do
			kill -0 "$pid" 2>/dev/null && live+=("$pid")
		done
		GUEST_PIDS=("${live[@]}")
		[ ${#GUEST_PIDS[@]} -lt "$max" ] && break
		sleep 2
	done
	( boot_kernel "$@"; echo $? >"$WORK/rc-$1"
	  log "$1 guest done after $(elapsed) s" ) &
	GUEST_PIDS+=($!)
}

main() {
	local mode=run k img rc f booted
	resolve_kernels
	case "${1:-}" in
	--build-only) mode=build ;;
	--checkpatch) mode=checkpatch ;;
	--bisect) mode=bisect ;;
	--profile)
		[ -d "${2:-}" ] || die "--profile needs a kept run directory (KTEST_KEEP=1)"
		print_profile "$2" $KTEST_KERNELS
		print_bioprof "$2" $KTEST_KERNELS
		print_faultplain "$2" $KTEST_KERNELS
		print_regscale "$2" $KTEST_KERNELS
		print_sendzc "$2" $KTEST_KERNELS
		print_iommu "$2" $KTEST_IOMMU_KERNELS
		"$KDIR/iommu-plot.py" "$2" "$2/iommu-calls" >&2
		exit 0 ;;
	-h | --help) sed -n '3,/^set -u/p' "$0" | sed -e '/^set -u/d' -e 's/^# \{0,1\}//'; exit 0 ;;
	"") ;;
	*) die "unknown option $1 (see --help)" ;;
	esac
	mkdir -p "$KTEST_CACHE"
	# the cache lock: held while a kernel tree is unpacked, patched or
	# built (and the series checked in it), not while guests run
	exec 9>"$KTEST_CACHE/lock"
	# one apt-get at a time: tools/check.sh starts a build ahead and this
	# run together, and apt-get update fails on a list lock it cannot take
	exec 7>"$KTEST_CACHE/deps.lock"
	flock -w 1800 7 || die "$KTEST_CACHE/deps.lock held for 30 minutes"
	ensure_packages
	flock -u 7
	compute_keys
	case $mode in
	checkpatch | bisect)
		[ -z "${WHY_SRC_61:-}" ] || die "--$mode needs the 6.1 tree: $WHY_SRC_61"
		flock -w 3600 9 || die "$KTEST_CACHE is locked by another ktest run"
		[ $mode = checkpatch ] && { run_checkpatch; exit $?; }
		run_bisect; exit $? ;;
	build)
		build_kernels
		log "kernels ready after $(elapsed) s"
		exit 0 ;;
	esac

	WORK=$(mktemp -d "$KTEST_CACHE/run.XXXXXX")
	for f in regbuf-probe nvme-profile bio-profile fault-regbuf fault-plain \
		 fault-device iommu-profile regcost-probe sendzc-probe; do
		[ -x "$KTEST_PROBEDIR/$f" ] ||
			die "no $KTEST_PROBEDIR/$f: run 'make static' first"
	done
	make_fio_job "$WORK/fio.job"
	[ -d "$KTEST_BINDIR" ] || log "warning: $KTEST_BINDIR missing (run 'make static'): only the probe runs"
	[ -x "$KTEST_BINDIR/hugebuf" ] || log "warning: no $KTEST_BINDIR/hugebuf: 'hugebuf check' skipped"
	[ -f "$KTEST_ENGINE" ] || log "warning: no $KTEST_ENGINE: fio run skipped"
	find_liburing_tests
	booted= iommu_booted=
	for k in $(boot_order); do
		ready_kernel "$k" || continue
		booted="$booted $k"
		img=$(image_of "$k")
		log "$k kernel ready after $(elapsed) s"
		build_initramfs "$k" "$WORK/initramfs-$k.cpio"
		start_guest "$k" "$img" "$WORK/initramfs-$k.cpio"
		iommu_wanted "$k" || continue
		iommu_booted="$iommu_booted $k"
		start_guest "$k-iommu" "$img" "$WORK/initramfs-$k.cpio" iommu
	done
	wait
	for k in $booted; do
		collect "$k" "$(cat "$WORK/rc-$k" 2>/dev/null || echo none)"
		iommu_wanted "$k" &&
			collect "$k-iommu" "$(cat "$WORK/rc-$k-iommu" 2>/dev/null || echo none)"
	done
	# the tables keep kernels.tab's order, whatever the boot order was
	KTEST_KERNELS=$(for k in $KTEST_KERNELS; do
		case " $booted " in *" $k "*) echo "$k" ;; esac; done | xargs)
	# the series must stay checkpatch --strict clean, every run that
	# boots a kernel built here (in the 6.1 tree: after the guests, so no
	# build of it is under way)
	for k in $KTEST_KERNELS; do is_built "$k" && break; k=; done
	if [ -n "$k" ]; then
		flock -w 3600 9 || die "$KTEST_CACHE is locked by another ktest run"
		if [ -n "${WHY_SRC_61:-}" ]; then
			count skip "checkpatch --strict: needs the 6.1 tree: $WHY_SRC_61"
		elif run_checkpatch >"$WORK/checkpatch.log" 2>&1; then
			count pass "checkpatch --strict: 0 errors, 0 warnings in every patch of kernel/patches"
		else
			count fail "checkpatch --strict: kernel/patches has findings ($WORK/checkpatch.log):"
			grep -E '^(ERROR|WARNING|CHECK)' "$WORK/checkpatch.log" | head -5
		fi
		flock -u 9
	fi
	check_coalescing
	check_detection
	check_fault
	check_plain_model
	check_regscale
	check_sendzc
	check_iommu_model $iommu_booted
	print_table
	print_kernels_md
	print_profile "$WORK" $KTEST_KERNELS
	print_bioprof "$WORK" $KTEST_KERNELS
	print_faultplain "$WORK" $KTEST_KERNELS
	print_regscale "$WORK" $KTEST_KERNELS
	print_sendzc "$WORK" $KTEST_KERNELS
	print_iommu "$WORK" $iommu_booted
	# the plot of calls per I/O (kernel/iommu-plot.py), kept with the logs
	[ -n "$iommu_booted" ] && [ "$KTEST_KEEP" != 0 ] &&
		command -v python3 >/dev/null 2>&1 &&
		"$KDIR/iommu-plot.py" "$WORK" "$WORK/iommu-calls" >&2
	log "console logs: $WORK (total $(elapsed) s)"
	if [ "$KTEST_KEEP" = 0 ] && [ $NFAIL = 0 ]; then
		rm -rf "$WORK"
	fi
	echo "$NPASS passed, $NFAIL failed, $NSKIP skipped"
	[ $NFAIL = 0 ]
}

main "$@"
