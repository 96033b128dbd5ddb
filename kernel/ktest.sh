#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# kernel/ktest.sh: boot the kernels of kernel/kernels.tab under qemu (TCG):
# Debian's own prebuilt images, 5.10 to 7.3, fetched from the machine's
# mirror (kernel/kdeb.sh; one that cannot be had is a counted skip), and
# Debian's 6.1 source built with our config without and with the hugebuf
# series (kernel/patches/: "control" and "patched"; opt-in: each bugfix/
# patch alone, and Debian's 7.3 source with the mainline patch).  In each it runs
# the project's static tests (on virtio-blk and again on an emulated NVMe
# namespace), the hugebuf CLI, a short fio run and the probes of
# kernel/probes.tab (kernel/probe's programs: one line each says how it
# runs, is judged and printed), and prints side-by-side tables.  The kernels of KTEST_IOMMU_KERNELS boot a second time as IOMMU
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
#   --profile RUNDIR  print the per-kernel table and every probe's table
#                  again from the console logs of a kept run (KTEST_KEEP=1;
#                  kernel/kresults.sh writes them into kernel/results.md),
#                  and the IOMMU guests' plot (RUNDIR/iommu-calls.{png,svg,md})
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
#   KTEST_MEM           guest memory [5G]: with two NUMA nodes, 4G leaves
#                       no free 1 GiB-aligned GiB for the 1G pool at boot
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
#   KTEST_PROBES_TAB    the probe table the guests run and the host
#                       judges, e.g. a copy of probes.tab cut to the lines
#                       wanted [kernel/probes.tab]
#   KTEST_FIO2          a second fio for the probes that take its release's
#                       options (nvme-values: fio 3.41's io_uring values),
#                       built by tools/fio-build.sh in its source tree; the
#                       engine is built against that tree into the run's
#                       directory unless KTEST_ENGINE2 names one; "" none
#                       [$HB_FIO_CACHE/3.41/fio-3.41/fio if built]
#   KTEST_VALUE_NS      0 boots no value namespaces (kboot.sh: the NVMe
#                       controller of nvme-values and md-map, in the
#                       guests they run in; an IOMMU guest only where a
#                       probes copy has md-map's line as "iommu raw") [1]
#   KTEST_NVME_SUITE    tests to run again with their files on NVMe: all,
#                       0 (none), or a comma list of test names; the whole
#                       suite on NVMe costs ~13 min under TCG, so the
#                       default is the cases that check data at folio
#                       boundaries that are quick there [regbuf-thp-tail,
#                       regbuf-small-in-folio]
#   KTEST_APPEND        more kernel command line for every guest, e.g.
#                       edd=off (a value-namespace guest that stops in
#                       the setup code's EDD probe, docs/known-issues.md)
#                       [""]
#   KTEST_ONLY          a comma list of what the guests run: test
#                       names of the suite, probe names of
#                       kernel/probes.tab, "check" (hugebuf info and
#                       check) and "fio"; the rest is neither run nor
#                       judged (liburing's tests and the NVMe suite keep
#                       their own settings) [""]: everything
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
KTEST_MEM=${KTEST_MEM:-5G}
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
KTEST_ONLY=${KTEST_ONLY:-}
KTEST_APPEND=${KTEST_APPEND:-}
[ "$KTEST_NVME_SUITE" = 1 ] && KTEST_NVME_SUITE=all	# the old spelling
# tools/fio-build.sh's tree of fio 3.41, in its cache (HB_FIO_CACHE)
FIO2_DEFAULT=${HB_FIO_CACHE:-/var/tmp/hugebuf-fio}/3.41/fio-3.41/fio
[ -x "$FIO2_DEFAULT" ] || FIO2_DEFAULT=
KTEST_FIO2=${KTEST_FIO2-$FIO2_DEFAULT}
KTEST_ENGINE2=${KTEST_ENGINE2:-}

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

# ---- the probes: kernel/probes.tab -------------------------------------------

PROBES_TAB=${KTEST_PROBES_TAB:-$KDIR/probes.tab}
PROBE_COLUMNS="name guest stage kernels needs tag results judge report program"

# whether KTEST_ONLY lets the guests run $1 (a test, probe, check or fio)
ktest_only() {
	[ -z "$KTEST_ONLY" ] && return 0
	case ",$KTEST_ONLY," in *",$1,"*) return 0 ;; esac
	return 1
}

# the table's lines without comments: name guest stage kernels needs tag
# results judge report program [arguments...]
probe_rows() { grep -v -e '^#' -e '^[[:space:]]*$' "$PROBES_TAB"; }

# whether probe $1 of the main guest (or of guest $3) runs on kernel $2
# in this run
probe_runs_on() {	# name, kernel [, guest]
	local name guest kernels
	ktest_only "$1" || return 1
	while read -r name guest _ kernels _; do
		[ "$name" = "$1" ] && [ "$guest" = "${3:-main}" ] &&
			probe_on_kernel "$kernels" "$2" && return 0
	done < <(probe_rows)
	return 1
}

# the probes' programs, once each
probe_programs() { probe_rows | awk '!seen[$10]++ { print $10 }'; }

# the names of guest $1's probes, once each, in order
probe_names() { probe_rows | awk -v g="$1" '$2 == g && !seen[$1]++ { print $1 }'; }

# whether kernel $2 is among the comma list of globs $1 (the kernels column)
probe_on_kernel() {	# kernels, kernel
	local w ws
	IFS=, read -r -a ws <<<"$1"
	for w in "${ws[@]}"; do
		# shellcheck disable=SC2053
		[[ $2 == $w ]] && return 0
	done
	return 1
}

# Every line of the table well formed, every program there: a bad line is
# one message naming it and what to fix
check_probes_tab() {
	local name guest stage needs results judge report prog n=0 where w
	local -A seen=()
	[ -f "$PROBES_TAB" ] || die "no $PROBES_TAB"
	while read -r name guest stage _ needs _ results judge report prog _; do
		n=$((n + 1))
		where="kernel/probes.tab, probe $n ($name)"
		[ -n "$prog" ] ||
			die "$where: fewer than the columns $PROBE_COLUMNS"
		[ -z "${seen[$guest,$name]:-}" ] ||
			die "$where: a second $guest probe of that name: rename one"
		seen[$guest,$name]=1
		case $guest:$stage in
		main:boot | main:nvmefs | main:disk | main:raw | main:late) ;;
		iommu:raw | iommu:strict | iommu:lazy | iommu:direct) ;;
		*) die "$where: guest/stage $guest/$stage is none of main/{boot,nvmefs,disk,raw,late}, iommu/{raw,strict,lazy,direct}" ;;
		esac
		for w in ${needs//,/ }; do
			case $w in
			- | ns | nvmefs | profiler) ;;
			*) die "$where: need $w is none of ns, nvmefs, profiler (or -)" ;;
			esac
		done
		case $results in
		exit | cases | own:?*) ;;
		*) die "$where: results $results is none of exit, cases, own:PREFIX[,PREFIX]" ;;
		esac
		case $judge in
		rc | verdicts:?* | verdicts+:?*) ;;
		*) declare -F "judge_$judge" >/dev/null ||
			die "$where: judge $judge is none of rc, verdicts:RE, verdicts+:RE, and ktest.sh has no judge_$judge" ;;
		esac
		case $report in
		- | lines) ;;
		*) declare -F "$report" >/dev/null ||
			die "$where: report $report is no function of kreport.sh or kiommu.sh (or - or lines)" ;;
		esac
		[ -f "$KDIR/probe/$prog" ] || [ -f "$KDIR/probe/$prog.c" ] ||
			die "$where: no kernel/probe/$prog or kernel/probe/$prog.c"
	done < <(probe_rows)
}

# the probe a result line belongs to, per guest kind: PROBE_OF[guest,name]
# for a probe's own result, PROBE_OF[guest,prefix:] for its cases
declare -A PROBE_OF
load_probes() {
	local name guest results p
	while read -r name guest _ _ _ _ results _; do
		PROBE_OF[$guest,$name]=$name
		case $results in
		cases) PROBE_OF[$guest,$name:]=$name ;;
		own:*)	for p in ${results//[:,]/ }; do
				[ "$p" = own ] || PROBE_OF[$guest,$p:]=$name
			done ;;
		esac
	done < <(probe_rows)
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
# lines, or its last eight lines when it printed none: a liburing test's
# own reason comes before the runner's four closing lines), so that a
# failure far from this machine can be read from the run's output alone
fail_lines() {	# $1 = log, $2 = run name
	local why
	why=$(run_output "$1" "$2" | grep -a -E 'FAIL|[Ee]rror|not ok|fail:|BAD' |
		grep -a -v -E 'fail=0|FAIL(ED)?=0' | head -n 8)
	[ -n "$why" ] || why=$(run_output "$1" "$2" | tail -n 8)
	printf '%s\n' "$why" | cut -c1-300 | sed 's/^/    /'
}

# parse one console log, count results and fill R[<label>,<field>]
collect() {	# $1 = label, $2 = qemu exit status
	local k=$1 log=$WORK/console-$1.log.txt p=0 f=0 s=0 name rc bad
	local np=0 nf=0 ns=0 ok fld json lp=0 lf=0 ls=0 g=main pr exp
	local -A pc=()
	case $k in *-iommu) g=iommu ;; esac
	if ! grep -q '^@@KTEST END' "$log"; then
		count fail "$k: guest did not finish (qemu exit $2, see console log)"
		R[$k,hang]=yes
	fi
	while read -r _ _ name rc _; do
		case $name in
		check-json) continue ;;	# the same run as 'check', for machines
		esac
		exp=$(model_exit "$log" "$name")
		case $rc:${exp:-any} in
		*:any) ;;
		"$exp:$exp")
			[ "$rc" = 77 ] && exp=any ;;	# skips are counted below
		*)	ok=f; count fail "$k $name: exit $rc, the model expects $exp"
			fail_lines "$log" "$name"
			exp=done ;;
		esac
		case $rc:$exp in
		*:done) ;;
		1:1) ok=p; count pass "$k $name: exit 1, the kernel's bug, as the model expects of this release" ;;
		0:*) ok=p; count pass "$k $name" ;;
		77:*) ok=s; count skip "$k $name$(run_output "$log" "$name" |
			grep -a -m1 -o ' skip=.*')" ;;	# the probe's reason
		*)	if liburing_refusal_confirmed "$log" "$name"; then
				ok=s; count skip "$k $name: its page-mixture case expects a hugetlb page and 4 KiB pages as one buffer, refused here with EINVAL as modelled (edd478269640; test:regbuf-mixed-folios)"
			else
				ok=f; count fail "$k $name (exit $rc)"
				fail_lines "$log" "$name"
			fi ;;
		esac
		# a probe's results: passed/failed/skipped per probe
		pr=${PROBE_OF[$g,$name]:-${PROBE_OF[$g,${name%%:*}:]:-}}
		[ -n "$pr" ] && pc[$pr,$ok]=$((${pc[$pr,$ok]:-0} + 1))
		case $name:$ok in
		nvme:test:*:p) np=$((np + 1)) ;;
		nvme:test:*:f) nf=$((nf + 1)) ;;
		nvme:test:*:s) ns=$((ns + 1)) ;;
		liburing:*:p) lp=$((lp + 1)) ;;
		liburing:*:f) lf=$((lf + 1)) ;;
		liburing:*:s) ls=$((ls + 1)) ;;
		test:*:p) p=$((p + 1)) ;;
		test:*:f) f=$((f + 1)) ;;
		test:*:s) s=$((s + 1)) ;;
		esac
	done < <(grep -a '^@@KTEST RESULT ' "$log")
	R[$k,suite]="$p/$f/$s"
	R[$k,nvsuite]="$np/$nf/$ns"
	R[$k,liburing]="$lp/$lf/$ls"
	for pr in $(probe_names $g); do
		[ -n "${pc[$pr,p]:-}${pc[$pr,f]:-}${pc[$pr,s]:-}" ] &&
			R[$k,probe:$pr]="${pc[$pr,p]:-0}/${pc[$pr,f]:-0}/${pc[$pr,s]:-0}"
	done
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
	row "imu alloc failure: ENOMEM/attempts, 4 KiB" fault_n_4k
	row "  leaked pins/VmPin kB/free hugepages, 4 KiB" fault_4k
	row "imu alloc failure: ENOMEM/attempts, 2M" fault_n_2M
	row "  leaked pins/VmPin kB/free hugepages, 2M" fault_2M
	row "plain I/O alloc fail: ok/FAIL/leaks/bad" fplain
	for r in $(probe_names main); do
		row "probe $r passed/failed/skipped" "probe:$r"
	done
	row "kernel BUG/WARNING/Oops/Bad page lines" bad
	printf '\nNVMe passthrough jobs (kernel/probe/passthrough.sh), job:'
	printf 'predicted/what the kprobes saw\n'
	for k in $KTEST_KERNELS; do
		printf '  %-10s %s\n' "$k" "${R[$k,ptjobs]:-n/a}"
	done
	printf '\n'
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
	ktest_only check || return 0
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

# regbuf-probe's judge: every guest is recognised without HUGEBUF_KERNEL:
# the model chosen (kernels.tab's model column) and whether the version and
# the behaviour agree
judge_detection() {	# kernel, console log, probe name
	local k=$1 want
	want=$(kernel_field "$k" model)
	# shellcheck disable=SC2053
	if [[ ${R[$k,kchosen]:-none} != $want ]]; then
		count fail "$k: model ${R[$k,kchosen]:-none}, expected $want"
	elif [ "${R[$k,kagreed]:-}" != yes ]; then
		count fail "$k: version ${R[$k,kver]} and behaviour ${R[$k,kbeh]} disagree"
	else
		count pass "$k recognised as ${R[$k,kchosen]}"
	fi
}

# fault-regbuf's judge: every allocation of a registration failed once:
# 6.1 without the stable patch leaks the pins, the others leave nothing
# behind (5.10 allocates the imu before pin_user_pages(), so its failure
# has no pins to drop: io_sqe_buffer_register() in 5.10's
# io_uring/io_uring.c); kernels.tab's imufail column.  A config without
# fault injection is one counted skip.
FAULT_CONFIG="FAULT_INJECTION FAILSLAB FAIL_PAGE_ALLOC FAULT_INJECTION_DEBUG_FS FAIL_MAKE_REQUEST"
judge_imufail() {	# kernel, console log, probe name
	local k=$1 b v want miss
	# shellcheck disable=SC2086
	miss=$(config_missing "$k" $FAULT_CONFIG)
	if [ -n "$miss" ]; then
		count skip "$k imu allocation failure: $miss (fault-regbuf, fault-plain, fault-device cannot inject)"
		return
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
}

# A verdicts judge (kernel/probes.tab): every line of LOG matching ^TAG RE
# is one check.  Its verdict is its last result= word (ok passes, skip
# skips, anything else fails: bio-profile's and iommu-profile's model
# lines), or without one (regcost-probe -s's scale lines) a last word
# "ok" passes and a " skip=" reason skips.  verdicts+: no such line fails,
# unless a "TAG skip=" line says why the program counted nothing.
judge_verdicts() {	# label, console log, probe name, tag, judge
	local k=$1 log=$2 name=$3 tag=$4 re=${5#*:} line res n=0
	while read -r line; do
		n=$((n + 1))
		case $line in
		*result=*) res=${line##*result=}; res=${res%% *} ;;
		*" ok") res=ok ;;
		*" skip="*) res=skip ;;
		*) res=fail ;;
		esac
		case $res in
		ok) count pass "$k $name: ${line#"$tag" }" ;;
		skip) count skip "$k $name: ${line#"$tag" }" ;;
		*) count fail "$k $name: ${line#"$tag" }" ;;
		esac
	done < <(grep -a "^$tag $re" "$log" 2>/dev/null)
	case $5 in verdicts+:*) ;; *) return 0 ;; esac
	[ $n = 0 ] || return 0
	if grep -aq "^$tag skip=" "$log" 2>/dev/null; then
		count skip "$k $name: $(grep -a -m1 "^$tag skip=" "$log")"
	else
		count fail "$k: $name printed no verdict line (^$tag $re)"
	fi
}

# A cases probe writes its own "@@KTEST RESULT name:CASE" lines: a guest
# that finished without one lost the probe
judge_cases() {	# label, console log, probe name
	[ "${R[$1,hang]:-}" = yes ] && return
	grep -aq "^@@KTEST RESULT $3:" "$2" ||
		count fail "$1: $3 reported no case"
}

# Every probe of kernel/probes.tab judged in every guest it ran in (its
# results were counted by collect()): its cases, its verdict lines, or
# its judge_* function
judge_probes() {	# kernels of the DMA-direct guests, of the IOMMU guests
	local name guest kernels tag results judge k ks label log
	while read -r name guest _ kernels _ tag results judge _ _ _ <&3; do
		ks=$1
		[ "$guest" = iommu ] && ks=$2
		ktest_only "$name" || continue
		for k in $ks; do
			probe_on_kernel "$kernels" "$k" || continue
			label=$k
			[ "$guest" = iommu ] && label=$k-iommu
			log=$WORK/console-$label.log.txt
			[ "$results" = cases ] && judge_cases "$label" "$log" "$name"
			case $judge in
			rc) ;;
			verdicts:* | verdicts+:*)
				judge_verdicts "$label" "$log" "$name" "$tag" "$judge" ;;
			*) "judge_$judge" "$k" "$log" "$name" ;;
			esac
		done
	done 3< <(probe_rows)
}


# A kept run read back (--profile): its kernels, IOMMU guests and Debian
# packages from its run.info, each console log collected as after the run
# (its messages left out: the run printed them)
replay_run() {	# run directory
	local f=$1/run.info key val k
	WORK=$1
	if [ -f "$f" ]; then
		while read -r key val; do
			case $key in
			kernels) KTEST_KERNELS=$val ;;
			iommu) KTEST_IOMMU_KERNELS=$val ;;
			package) k=${val%% *}; [ "$k" = "$val" ] || DEB_PKGVER[$k]=${val#* } ;;
			esac
		done <"$f"
	fi
	KTEST_KERNELS=$(for k in $KTEST_KERNELS; do
		[ -f "$WORK/console-$k.log.txt" ] && echo "$k"; done | xargs)
	for k in $KTEST_KERNELS; do
		collect "$k" kept >/dev/null
		[ -f "$WORK/console-$k-iommu.log.txt" ] && collect "$k-iommu" kept >/dev/null
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
	check_probes_tab
	load_probes
	case "${1:-}" in
	--build-only) mode=build ;;
	--checkpatch) mode=checkpatch ;;
	--bisect) mode=bisect ;;
	--profile)
		[ -d "${2:-}" ] || die "--profile needs a kept run directory (KTEST_KEEP=1)"
		replay_run "$2"
		print_table
		print_kernels_md
		print_probes "$2" "$KTEST_KERNELS" "$KTEST_IOMMU_KERNELS"
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
	# what the run was, for --profile and kernel/kresults.sh
	{
		echo "date $(date -u '+%Y-%m-%d %H:%M UTC')"
		echo "command $(env | grep '^KTEST_' | sort | tr '\n' ' ')kernel/ktest.sh"
		echo "commit $(git -C "$TOP" describe --always --dirty 2>/dev/null || echo unknown)"
	} >"$WORK/run.info"
	for f in $(probe_programs); do
		[ -f "$KDIR/probe/$f" ] || [ -x "$KTEST_PROBEDIR/$f" ] ||
			die "no $KTEST_PROBEDIR/$f: run 'make static' first"
	done
	make_fio_job "$WORK/fio.job"
	find_engine2
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
	# build of it is under way), and so must the mainline patch, every
	# run that boots the kernel built with it (in the 7.3 tree)
	for k in $KTEST_KERNELS; do
		[ "$(kernel_field "$k" source)" = build:mainline ] || continue
		if run_checkpatch_mainline >"$WORK/checkpatch-mainline.log" 2>&1; then
			count pass "checkpatch --strict: 0 errors, 0 warnings in kernel/patches/mainline"
		else
			count fail "checkpatch --strict: kernel/patches/mainline has findings ($WORK/checkpatch-mainline.log):"
			grep -E '^(ERROR|WARNING|CHECK)' "$WORK/checkpatch-mainline.log" | head -5
		fi
	done
	for k in $KTEST_KERNELS; do is_built_61 "$k" && break; k=; done
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
	judge_probes "$KTEST_KERNELS" "$iommu_booted"
	print_table
	print_kernels_md
	print_probes "$WORK" "$KTEST_KERNELS" "$iommu_booted"
	# the plot of calls per I/O (kernel/iommu-plot.py), kept with the logs
	[ -n "$iommu_booted" ] && [ "$KTEST_KEEP" != 0 ] &&
		command -v python3 >/dev/null 2>&1 &&
		"$KDIR/iommu-plot.py" "$WORK" "$WORK/iommu-calls" >&2
	{
		echo "kernels $KTEST_KERNELS"
		echo "iommu ${iommu_booted# }"
		for k in $KTEST_KERNELS; do
			echo "package $k ${DEB_PKGVER[$k]:-}"
		done
		echo "seconds $(elapsed)"
		echo "result $NPASS passed, $NFAIL failed, $NSKIP skipped"
	} >>"$WORK/run.info"
	log "console logs: $WORK (total $(elapsed) s)"
	if [ "$KTEST_KEEP" = 0 ] && [ $NFAIL = 0 ]; then
		rm -rf "$WORK"
	fi
	echo "$NPASS passed, $NFAIL failed, $NSKIP skipped"
	[ $NFAIL = 0 ]
}

main "$@"
