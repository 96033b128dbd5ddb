#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# The engine on a kernel whose io_uring lacks what newer ones have (5.10:
# no SINGLE_ISSUER/DEFER_TASKRUN, registered ring fd, sparse file table,
# URING_CMD, CLONE_BUFFERS, READV_FIXED).  HUGEBUF_URING_FEATURES=5.10
# hides from the engine what upstream 5.10 did not have, so the fallback
# paths run on any kernel (on a real 5.10 it hides nothing more):
#  - a job that does not ask for a missing feature runs, verifies, and
#    says once per job in one line what the engine does instead, on
#    stderr when fio's stdout is JSON (which still parses);
#  - registerfiles (and sqthread_poll, which needs it) run on a table of
#    -1 slots registered with IORING_REGISTER_FILES;
#  - where strace is at hand: the ring really is set up without
#    DEFER_TASKRUN, its fd is not registered, the files go in by
#    IORING_REGISTER_FILES;
#  - a job that asks for one (defer_taskrun=1 on the command line or in
#    [global], vec_iovecs, clone_buffers) is refused in one line naming
#    the option, the feature, the release and the fix, before any I/O;
#  - a bad HUGEBUF_URING_FEATURES is one line too.
. "$(dirname "$0")/_fio-lib.sh"
t_require
t_tmpdir cd
E="external:$HUGEBUF_ENGINE"
OLD=5.10
# backing=4k: the fallbacks do not depend on the backing, the pool is
# left to the tests that need it
JOB="--ioengine=$E --backing=4k --directory=$T_DIR --size=8M --bs=64k
--iodepth=4 --direct=1 --report=off"

# old OUT ARGS...: one fio run on the old kernel's features (t_run_job:
# the engine's lines and fio's output in OUT, fio's alone in OUT.fio, the
# exit code in T_RC)
old() {
	t_o=$1
	shift
	export HUGEBUF_URING_FEATURES="$OLD"
	t_run_job "$T_DIR/$t_o" timeout -k 10 120 "$FIO" $JOB "$@"
	unset HUGEBUF_URING_FEATURES
}

# lines OUT PATTERN: how many engine lines of OUT name PATTERN
lines() {
	grep '^hugebuf: ' "$1" | grep -c -- "$2"
}

# ---- not asked: fall back, one line each, once per job ------------------

HUGEBUF_URING_FEATURES=$OLD timeout -k 10 120 "$FIO" --name=dflt $JOB \
	--rw=randwrite --verify=crc32c --do_verify=1 --verify_fatal=1 \
	--numjobs=2 --output-format=json >"$T_DIR/dflt.json" \
	2>"$T_DIR/dflt.err"
rc=$?
if [ $rc = 0 ] && $T_CHECK run "$T_DIR/dflt.json" --verify; then
	t_ok "default job, 2 jobs: exit 0, JSON on stdout parses, verified"
else
	fail "default job: exit $rc"
	sed 's/^/    /' "$T_DIR/dflt.err" | head -8
fi
grep -q '^hugebuf: ' "$T_DIR/dflt.json" &&
	fail "default job: engine lines on fio's JSON stdout"
n_dt=$(lines "$T_DIR/dflt.err" 'has no IORING_SETUP_SINGLE_ISSUER + IORING_SETUP_DEFER_TASKRUN (Linux 6.1+): the ring runs without')
n_fd=$(lines "$T_DIR/dflt.err" 'has no IORING_REGISTER_RING_FDS (Linux 5.18+): io_uring_enter() takes')
n_all=$(grep -c '^hugebuf: kernel .* has no ' "$T_DIR/dflt.err")
if [ "$n_dt" = 2 ] && [ "$n_fd" = 2 ] && [ "$n_all" = 4 ]; then
	t_ok "default job: one DEFER_TASKRUN and one ring fd line per job, nothing else missing"
else
	fail "default job: $n_dt DEFER_TASKRUN, $n_fd ring fd lines of $n_all, wanted 2, 2 of 4"
	grep '^hugebuf: ' "$T_DIR/dflt.err" | head -6
fi

old d0 --name=d0 --rw=randread --defer_taskrun=0
n_dt=$(lines "$T_DIR/d0" DEFER_TASKRUN)
n_fd=$(lines "$T_DIR/d0" RING_FDS)
if [ "$T_RC" = 0 ] && [ "$n_dt" = 0 ] && [ "$n_fd" = 1 ]; then
	t_ok "defer_taskrun=0: runs, only the ring fd line"
else
	fail "defer_taskrun=0: exit $T_RC, $n_dt DEFER_TASKRUN and $n_fd ring fd lines, wanted 0 and 1"
fi

old files --name=files --rw=randwrite --verify=crc32c --do_verify=1 \
	--verify_fatal=1 --nrfiles=3 --registerfiles --output-format=json
if [ "$T_RC" = 0 ] && $T_CHECK run "$T_DIR/files.fio" --verify &&
	[ "$(lines "$T_DIR/files" 'has no IORING_RSRC_REGISTER_SPARSE (Linux 5.19+): registerfiles registers a table of empty (-1) slots')" = 1 ]; then
	t_ok "registerfiles, 3 files: verified on a -1 table, one line"
else
	fail "registerfiles: exit $T_RC"
	grep '^hugebuf: \|err=' "$T_DIR/files" | head -6
fi

if [ "$(id -u)" = 0 ]; then
	old sqpoll --name=sqpoll --rw=randread --sqthread_poll \
		--output-format=json
	if [ "$T_RC" = 0 ] && $T_CHECK run "$T_DIR/sqpoll.fio" &&
		[ "$(lines "$T_DIR/sqpoll" SPARSE)" = 1 ] &&
		[ "$(lines "$T_DIR/sqpoll" DEFER_TASKRUN)" = 0 ]; then
		t_ok "sqthread_poll: runs on the -1 file table, no DEFER_TASKRUN line"
	else
		fail "sqthread_poll: exit $T_RC"
		grep '^hugebuf: \|err=' "$T_DIR/sqpoll" | head -6
	fi
else
	t_skip_check "sqthread_poll: SQPOLL needs root on kernels before 5.11"
fi

# what the ring really is: the job's own io_uring_setup (the probe's
# 4-entry rings come first) and its register calls
if command -v strace >/dev/null 2>&1; then
	HUGEBUF_URING_FEATURES=$OLD strace -f -qq \
		-e trace=io_uring_setup,io_uring_register -o "$T_DIR/st" \
		"$FIO" --name=st $JOB --rw=randread --nrfiles=2 \
		--registerfiles --iodepth=8 --output=/dev/null >/dev/null 2>&1
	# the job's ring has 8 entries, the probes' and kdetect's rings 4
	setup=$(grep 'io_uring_setup(8,' "$T_DIR/st")
	after=$(sed -n '/io_uring_setup(8,/,$p' "$T_DIR/st")
	if [ -n "$setup" ] && ! echo "$setup" | grep -q DEFER_TASKRUN &&
		! echo "$after" | grep -q 'REGISTER_RING_FDS' &&
		echo "$after" | grep -q 'IORING_REGISTER_FILES, \[-1, -1\]'; then
		t_ok "strace: no DEFER_TASKRUN, no registered ring fd, files as [-1, -1]"
	else
		fail "strace: the job's ring is not the fallback's"
		echo "$after" | cut -c1-160 | sed 's/^/    /' | head -8
	fi
else
	t_skip_check "strace not installed: the ring's flags are not looked at"
fi

# ---- asked for: refused in one line, no I/O ----------------------------

old dt1 --name=dt1 --rw=randread --defer_taskrun=1
t_expect_refused "$T_DIR/dt1" "$T_RC" \
	'defer_taskrun=1 needs IORING_SETUP_SINGLE_ISSUER + IORING_SETUP_DEFER_TASKRUN (Linux 6.1+), which kernel .*: set defer_taskrun=0' \
	"defer_taskrun=1"

cat >"$T_DIR/glob.fio" <<EOF
[global]
ioengine=$E
backing=4k
directory=$T_DIR
size=8M
bs=64k
defer_taskrun=1
rw=randread
[g]
EOF
export HUGEBUF_URING_FEATURES=$OLD
t_run_job "$T_DIR/globrun" timeout -k 10 120 "$FIO" "$T_DIR/glob.fio"
unset HUGEBUF_URING_FEATURES
t_expect_refused "$T_DIR/globrun" "$T_RC" 'defer_taskrun=1 needs' \
	"[global] defer_taskrun=1"

old vec --name=vec --rw=randread --vec_iovecs=4
t_expect_refused "$T_DIR/vec" "$T_RC" \
	'vec_iovecs=4 needs IORING_OP_READV_FIXED (Linux 6.15+), which kernel .*: drop vec_iovecs' \
	"vec_iovecs=4"

# (a thread's error line reaches both fio's --output and stderr)
HUGEBUF_URING_FEATURES=$OLD t_expect_fail clone \
	'clone_buffers=split needs IORING_REGISTER_CLONE_BUFFERS (Linux 6.12+), which kernel' \
	--name=clone $JOB --rw=randread --thread --clone_buffers=split

OLD=5.5
old base --name=base --rw=randread
t_expect_refused "$T_DIR/base" "$T_RC" \
	'the engine needs IORING_SETUP_CQSIZE + IORING_SETUP_CLAMP (Linux 5.6+)' \
	"a kernel before 5.6"

OLD=five.ten
old junk --name=junk --rw=randread
t_expect_refused "$T_DIR/junk" "$T_RC" \
	"HUGEBUF_URING_FEATURES='five.ten' is not a kernel release" \
	"HUGEBUF_URING_FEATURES=five.ten"
t_done
