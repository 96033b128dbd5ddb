#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# make check-all, the whole matrix (CI's .ci/run; make check, the user's
# tier on the running kernel, is tools/check-user.sh), from a fresh
# Debian clone: install what is
# missing (root), configure, build, run the test suite (t/runtests.sh), a
# seeded random job soak (t/soak.py, SOAK_SECONDS, HB_SKIP_SOAK=1), the
# ASan/UBSan + valgrind run (tools/check-asan.sh, HB_SKIP_ASAN=1 skips it),
# a fuzzing smoke run (t/fuzz/run.sh, FUZZ_SECONDS per target, default 30;
# HB_SKIP_FUZZ=1 skips it), the Debian packages and lintian
# (tools/deb-build.sh, HB_SKIP_DEB=1), the engine against a second fio
# (tools/fio-build.sh --check, HB_SKIP_FIO2=1), our exported tests and
# liburing's registered-buffer tests in liburing 2.9's tree
# (tools/liburing-check.sh, HB_SKIP_LIBURING=1) and the 6.1 kernel-patch
# harness under qemu (kernel/ktest.sh; HB_SKIP_KERNEL=1 skips it).  Prints
# one closing line that adds up every stage:
# "N passed, N failed, N skipped", and before it the stages' sub-check
# totals "sub-checks: N passed, N failed, N skipped" (from each stage's own
# "sub-checks:" line; a stage without one adds nothing there) and the list
# of every skip of the run with its reason, stage by stage.
set -u

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 1
t_start=$(date +%s)
t_mark=$t_start
stage_times=

# the machine's CPU time in ticks since boot, busy and all
# (/proc/stat's first line: user nice system idle iowait irq softirq
# steal ...; idle and iowait are the idle ones)
cpu_ticks() {
	local _cpu user nice sys idle iow irq sirq steal _rest
	read -r _cpu user nice sys idle iow irq sirq steal _rest </proc/stat
	echo "$((user + nice + sys + irq + sirq + steal)) $((user + nice + sys + idle + iow + irq + sirq + steal))"
}

# how busy the machine's CPUs were since ticks $1 $2 (cpu_ticks), in
# percent of all of them: a stage that leaves them idle is a stage
# another could run beside
busy_since() {	# $1 = busy ticks then, $2 = all ticks then
	local now
	now=$(cpu_ticks)
	set -- "$1" "$2" ${now}
	[ "$4" -gt "$2" ] || { echo "?"; return; }
	echo "$(((($3 - $1) * 100) / ($4 - $2)))"
}

cpu_start=$(cpu_ticks)
cpu_mark=$cpu_start

# each host stage's wall time and how busy the CPUs were meanwhile (the
# kernel stage beside it included), for the line after the last one:
# what a cold run spends where
took() {	# $1 = stage
	local now
	now=$(date +%s)
	stage_times="$stage_times $1 $((now - t_mark)) s ($(busy_since $cpu_mark)% busy),"
	t_mark=$now
	cpu_mark=$(cpu_ticks)
}

passed=0
failed=0
skipped=0
sub_passed=0
sub_failed=0
sub_skipped=0

# the stage's "sub-checks: P passed, F failed, S skipped" line, if any
count_sub_checks() {
	local line
	line=$(grep -E '^sub-checks: [0-9]+ passed, [0-9]+ failed, [0-9]+ skipped$' "$1" | tail -n 1)
	[ -n "$line" ] || return 0
	set -- $line
	sub_passed=$((sub_passed + $2))
	sub_failed=$((sub_failed + $4))
	sub_skipped=$((sub_skipped + $6))
}

# Every skip of the run, so that a matrix that shrinks is seen: each
# stage's "skipped: WHAT (N skipped): REASONS" lines (t/runtests.sh's, one
# per test that skipped anything) and "SKIP: WHAT" lines (kernel/ktest.sh's
# cases), and each stage skipped whole with its reason
skips=$(mktemp /tmp/hugebuf-check-skips.XXXXXX)

note_skips() {	# $1 = stage log, $2 = stage
	grep -a -E '^(skipped: |SKIP: )' "$1" |
		sed -E -e 's/^(skipped|SKIP): //' -e "s|^|$2: |" >>"$skips"
}

stage_skipped() {	# $1 = stage, $2 = why
	skipped=$((skipped + 1))
	echo "$1: the whole stage: $2" >>"$skips"
}

# a stage switched off by its HB_SKIP_* variable is listed, not counted
stage_off() {	# $1 = stage, $2 = variable
	echo "$1: not run ($2=1)" >>"$skips"
}

print_skips() {
	[ -s "$skips" ] || return 0
	echo "check: what was skipped, by stage (identical lines counted):"
	sort "$skips" | uniq -c | sed -E 's/^ *([0-9]+) /  \1x /' | cut -c1-240
}

# the closing lines: the skips, the sub-check totals, then the stages'
# totals
closing_lines() {
	print_skips
	rm -f "$skips"
	echo "sub-checks: $sub_passed passed, $sub_failed failed, $sub_skipped skipped"
	echo "$passed passed, $failed failed, $skipped skipped"
}

count_stage() {
	# add the stage's own closing line to the totals
	local line p f s
	count_sub_checks "$1"
	line=$(grep -E '^[0-9]+ passed, [0-9]+ failed(, [0-9]+ skipped)?$' "$1" | tail -n 1)
	if [ -z "$line" ]; then
		failed=$((failed + 1))
		echo "check: stage $2 printed no result line: counted as 1 failure"
		return
	fi
	note_skips "$1" "$2"
	p=$(echo "$line" | sed -E 's/^([0-9]+) passed.*/\1/')
	f=$(echo "$line" | sed -E 's/.* ([0-9]+) failed.*/\1/')
	s=$(echo "$line" | sed -nE 's/.* ([0-9]+) skipped$/\1/p')
	passed=$((passed + p))
	failed=$((failed + f))
	skipped=$((skipped + ${s:-0}))
}

stage_fail() {
	echo "check: $1"
	failed=$((failed + 1))
	closing_lines
	exit 1
}

if [ "$(id -u)" = 0 ]; then
	tools/deps.sh || stage_fail "make deps failed"
	took deps
fi
if [ ! -f config-host.mak ]; then
	./configure || stage_fail "./configure failed (see above)"
fi
make -j"$(nproc)" all static >/tmp/hugebuf-build.log 2>&1 ||
	{ tail -n 40 /tmp/hugebuf-build.log; stage_fail "build failed (log: /tmp/hugebuf-build.log)"; }
took build

# the hugepage pools every stage on the host allocates from (2M, and the
# 1G pages of the 1G cases), reserved once as root and given back at exit
# (t/_testenv.sh; t/runtests.sh alone does the same)
# shellcheck source=t/_testenv.sh
. t/_testenv.sh
testenv_setup

# The kernel stage (kernel/ktest.sh: the guests under qemu, about 20 of a
# run's minutes) starts with the first host stage and runs beside them:
# those sleep more than they compute (time-based fio jobs, the soak, the
# fuzzers), the guests share no hugepage pool, pin no page and have no
# timing threshold on the host, so two cores do both: one guest at a
# time beside the suite and the soak (which read the machine's own pins,
# pool and requests, and whose fio jobs have per-job timeouts), two
# beside ASan, the second fio, liburing, the fuzzers and the packages
# (their counters read through the settle rules, docs/testing.md).  Its
# output is printed, and counted, after the last host stage.  It boots Debian's
# images first; our two kernels are built meanwhile by a build ahead
# (kernel/ktest.sh --build-only; it takes the kernel cache's lock for
# each kernel, and the stage boots each as soon as its image is there).
# The build runs at the stages' own priority: from an empty cache the
# kernel stage is the longest road (a build, then three guests), and a
# niced build got the CPUs only once the host stages were done.  HB_KERNEL_BESIDE=0 runs the stage after the
# host stages instead, HB_KERNEL_AHEAD=0 has it build the kernels itself.
kbuild_pid=
kstage_pid=
kbuild_log=/tmp/hugebuf-kbuild-ahead.log
kstage_log=/tmp/hugebuf-kernel-stage.log
kernel_stage=0
[ "${HB_SKIP_KERNEL:-0}" != 1 ] && [ -x kernel/ktest.sh ] && kernel_stage=1
stop_background() {
	[ -n "$kbuild_pid" ] && kill -- "-$kbuild_pid" 2>/dev/null
	[ -n "$kstage_pid" ] && kill -- "-$kstage_pid" 2>/dev/null
	kbuild_pid= kstage_pid=
}
trap 'stop_background; rm -f "${host_busy:-}"; testenv_restore' EXIT
# The guests' probes of fio 3.41's values (nvme-values, md-map) take the
# second fio from its cache as ktest.sh starts (KTEST_FIO2): from an
# empty cache the fio-3.41 stage built it only after those guests had
# run, and they skipped whole.  So it is built first; the stage then
# finds it in the cache.
if [ $kernel_stage = 1 ] && [ "${HB_SKIP_FIO2:-0}" != 1 ]; then
	tools/fio-build.sh >/tmp/hugebuf-fio2-ahead.log 2>&1 ||
		echo "check: fio 3.41 not built ahead" \
			"($(tail -n 1 /tmp/hugebuf-fio2-ahead.log)):" \
			"the guests' fio 3.41 probes will skip"
	took fio2-ahead
fi
if [ $kernel_stage = 1 ] && command -v setsid >/dev/null; then
	if [ "${HB_KERNEL_AHEAD:-1}" = 1 ]; then
		setsid kernel/ktest.sh --build-only >"$kbuild_log" 2>&1 &
		kbuild_pid=$!
		echo "check: building the guest kernels in the background (log: $kbuild_log)"
	fi
	if [ "${HB_KERNEL_BESIDE:-1}" = 1 ]; then
		# one guest at a time until the soak is done (host_busy below)
		host_busy=$(mktemp /tmp/hugebuf-host-busy.XXXXXX)
		KTEST_HOST_BUSY=$host_busy setsid kernel/ktest.sh >"$kstage_log" 2>&1 &
		kstage_pid=$!
		echo "check: the kernel stage runs beside the host stages (log: $kstage_log)"
	fi
fi

log=$(mktemp /tmp/hugebuf-check.XXXXXX)
t/runtests.sh | tee "$log"
count_stage "$log" "t/runtests.sh"
took runtests

# The randomized job soak (t/soak.py, make soak): a fixed seed for about
# SOAK_SECONDS (150); HB_SKIP_SOAK=1 skips it.
if [ "${HB_SKIP_SOAK:-0}" != 1 ]; then
	t/soak.py --seed 1 --seconds "${SOAK_SECONDS:-150}" 2>&1 | tee "$log"
	count_stage "$log" "t/soak.py"
	took soak
else
	stage_off t/soak.py HB_SKIP_SOAK
fi

# From here on the kernel stage may boot its second guest: the later
# stages read their counters through the settle rules (docs/testing.md)
# or own them (the second fio's compat rows count a loop device of their
# own), the fuzzers run for FUZZ_SECONDS each, the packages compile.
# The suite and the soak stay before this line: the soak's pin baseline
# is the host's (nr_foll_pin_* of /proc/vmstat, read after
# vm.stat_refresh), and two guests beside either leave their time-based
# fio jobs less CPU than their per-job timeouts were set for.
[ -n "${host_busy:-}" ] && rm -f "$host_busy"

if [ "${HB_SKIP_ASAN:-0}" != 1 ]; then
	tools/check-asan.sh 2>&1 | tee "$log"
	count_stage "$log" "tools/check-asan.sh"
	took asan
else
	stage_off tools/check-asan.sh HB_SKIP_ASAN
fi

# The engine against a second fio: sid's 3.41, built once into
# /var/tmp/hugebuf-fio (tools/fio-build.sh), and every fio-facing test run
# with it (counted like the suite's); 77 = the mirror does not serve that
# source, one skip.
if [ "${HB_SKIP_FIO2:-0}" != 1 ]; then
	tools/fio-build.sh --check 2>&1 | tee "$log"
	rc=${PIPESTATUS[0]}
	if [ "$rc" = 77 ]; then
		stage_skipped "tools/fio-build.sh --check" \
			"$(grep -a '^fio-build: ' "$log" | tail -n 1)"
	else
		count_stage "$log" "tools/fio-build.sh --check"
	fi
	took fio-3.41
else
	stage_off "tools/fio-build.sh --check" HB_SKIP_FIO2
fi

# Our exported folio-boundary tests (t/liburing/) and liburing's own
# registered-buffer tests, built and run inside Debian 13's liburing 2.9
# source with its Makefile and runtests.sh (tools/liburing-check.sh, cached
# in /var/tmp/hugebuf-liburing); 77 = the source cannot be had, one skip.
if [ "${HB_SKIP_LIBURING:-0}" != 1 ]; then
	tools/liburing-check.sh >"$log" 2>&1
	rc=$?
	tail -n 40 "$log"
	if [ $rc = 77 ]; then
		stage_skipped tools/liburing-check.sh "$(tail -n 1 "$log")"
	else
		count_stage "$log" "tools/liburing-check.sh"
	fi
	took liburing
else
	stage_off tools/liburing-check.sh HB_SKIP_LIBURING
fi


if [ "${HB_SKIP_FUZZ:-0}" != 1 ]; then
	FUZZ_SECONDS=${FUZZ_SECONDS:-30} t/fuzz/run.sh 2>&1 | tee "$log"
	count_stage "$log" "t/fuzz/run.sh"
	took fuzz
else
	stage_off t/fuzz/run.sh HB_SKIP_FUZZ
fi

# The Debian packages: dpkg-buildpackage in a scratch copy, then lintian
# (tools/deb-build.sh: exit 0 only with no lintian error); installing
# them is tools/fresh-root.sh's step, not a developer machine's.
if [ "${HB_SKIP_DEB:-0}" != 1 ]; then
	tools/deb-build.sh >"$log" 2>&1
	rc=$?
	tail -n 12 "$log"
	if [ $rc = 0 ]; then
		passed=$((passed + 1))
		echo "PASS  Debian packages built, lintian: no errors"
	else
		failed=$((failed + 1))
		echo "check: the Debian package stage failed (tools/deb-build.sh)"
	fi
	took deb
else
	stage_off tools/deb-build.sh HB_SKIP_DEB
fi

echo "check: host stages done after $(($(date +%s) - t_start)) s:${stage_times%,}"
[ -n "${host_busy:-}" ] && rm -f "$host_busy"
if [ $kernel_stage = 1 ]; then
	# a kernel the build ahead failed to make is built (and its failure
	# reported) by the stage's ktest.sh, which takes the lock when free
	if [ -n "$kstage_pid" ]; then
		echo "check: waiting for the kernel stage (kernel/ktest.sh)"
		wait "$kstage_pid"
		kstage_pid=
		cat "$kstage_log" >"$log"
		cat "$log"
	else
		kernel/ktest.sh 2>&1 | tee "$log"
	fi
	count_stage "$log" "kernel/ktest.sh"
	if [ -n "$kbuild_pid" ]; then
		wait "$kbuild_pid" ||
			{ echo "check: the kernel build ahead failed:"; tail -n 5 "$kbuild_log"; }
		kbuild_pid=
		grep -E 'built in|kernels ready' "$kbuild_log"
	fi
	echo "check: kernel stage done after $(($(date +%s) - t_start)) s"
	echo "check: the CPUs were $(busy_since $cpu_start)% busy over the whole run ($(nproc) CPUs)"
else
	stage_off kernel/ktest.sh HB_SKIP_KERNEL
fi
rm -f "$log"

closing_lines
[ $failed = 0 ]
