# SPDX-License-Identifier: GPL-2.0-only
#
# The one library of the shell tests (t/*.sh; sourced, never run: the
# runner skips t/_*.sh).  POSIX sh, so /bin/sh and bash scripts share it.
# The runner exports HUGEBUF_TEST_DIR, HUGEBUF_ENGINE, HUGEBUF_CLI and FIO;
# run by hand, they default to this tree.
#
# Conventions (every test counts its sub-checks):
#   t_ok MSG          "ok: MSG", one sub-check passed
#   fail MSG          "FAIL: MSG", one sub-check failed; the test goes on,
#                     t_done exits 1
#   t_skip_check MSG  "  skip: MSG", one sub-check that cannot run here
#                     (counted, MSG is its reason); the test goes on
#   skip MSG          "SKIP: MSG", counted, and the test ends (t_done):
#                     a skip (77) even after passed sub-checks
#   t_fail_now MSG    "FAIL: MSG" and the test ends (t_done: exit 1)
#   t_info MSG        an indented line of detail
#   t_done            the closing line "PASS|FAIL|SKIP: NAME (P passed, F
#                     failed, S skipped: reasons)" and exit 0, 1 or 77:
#                     PASS only when a sub-check passed and none failed
#   t_require         engine + CLI + fio + python3, and T_DIR (fio tests)
#   t_need_*          one requirement each, skip when it is missing
#   T_DIR             the test's scratch directory (t_tmpdir)
# Every resource a test takes (mounts, loop devices, pool sizes, sysfs
# settings, network namespaces, processes) is released by a command
# registered with t_atexit; they run on every exit path, newest first,
# and T_DIR is removed last.

T_TOP=$(cd "$(dirname "$0")/.." && pwd)
: "${HUGEBUF_ENGINE:=$T_TOP/engines/hugebuf.so}"
: "${HUGEBUF_CLI:=$T_TOP/cli/hugebuf}"
: "${FIO:=fio}"
: "${HUGEBUF_TEST_DIR:=/var/tmp}"
T_CHECK="python3 $T_TOP/t/_fio-check.py"
export HUGEBUF_ENGINE HUGEBUF_CLI FIO HUGEBUF_TEST_DIR

T_POOL=/sys/kernel/mm/hugepages/hugepages-2048kB
T_ATEXIT=
T_DIR=
T_FAILED=0
T_PASSED=0
T_SKIPPED=0
T_REASONS=
T_HOGS=

# ---- exit paths --------------------------------------------------------

t_atexit() {
	T_ATEXIT="$*; $T_ATEXIT"
}

t_cleanup() {
	t_rc=$?
	trap - EXIT INT TERM
	eval "$T_ATEXIT" >/dev/null 2>&1
	[ -n "$T_DIR" ] && rm -rf "$T_DIR"
	exit $t_rc
}
trap t_cleanup EXIT
trap 'exit 130' INT TERM

# T_FAILED counts the failed sub-checks (a test may also set it to 1)
t_ok() {
	echo "ok: $*"
	T_PASSED=$((T_PASSED + 1))
}

fail() {
	echo "FAIL: $*"
	T_FAILED=$((T_FAILED + 1))
}

# one skip reason more for the closing line (each distinct reason once)
t_add_reason() {
	case "; $T_REASONS;" in
	*"; $*;"*) ;;
	*) T_REASONS="${T_REASONS:+$T_REASONS; }$*" ;;
	esac
}

t_skip_check() {
	echo "  skip: $*"
	T_SKIPPED=$((T_SKIPPED + 1))
	t_add_reason "$*"
}

skip() {
	echo "SKIP: $*"
	T_SKIPPED=$((T_SKIPPED + 1))
	T_GAVE_UP=1
	t_add_reason "$*"
	t_done
}

t_fail_now() {
	fail "$*"
	t_done
}

t_info() {
	echo "  $*"
}

# run CMD...: one sub-check named by MSG that passes when CMD exits 0
# (CMD prints its own FAIL lines)
t_check() {
	t_what=$1
	shift
	if "$@"; then
		t_ok "$t_what"
	else
		fail "$t_what"
	fi
}

t_done() {
	t_counts="$T_PASSED passed, $T_FAILED failed, $T_SKIPPED skipped"
	if [ "$T_FAILED" != 0 ]; then
		echo "FAIL: $(basename "$0") ($t_counts${T_REASONS:+: $T_REASONS})"
		exit 1
	fi
	if [ "$T_PASSED" = 0 ] || [ "${T_GAVE_UP:-0}" = 1 ]; then
		if [ "$T_SKIPPED" = 0 ]; then
			T_SKIPPED=1
			T_REASONS="no check ran"
			t_counts="0 passed, 0 failed, 1 skipped"
		fi
		echo "SKIP: $(basename "$0") ($t_counts: $T_REASONS)"
		exit 77
	fi
	echo "PASS: $(basename "$0") ($t_counts${T_REASONS:+: $T_REASONS})"
	exit 0
}

# ---- requirements ------------------------------------------------------

t_need_root() {
	[ "$(id -u)" = 0 ] || skip "needs root ($*)"
}

t_need_engine() {
	[ -f "$HUGEBUF_ENGINE" ] || skip "no engine at $HUGEBUF_ENGINE: run make"
	command -v "$FIO" >/dev/null 2>&1 || skip "fio not found: apt-get install fio"
}

t_need_cli() {
	[ -x "$HUGEBUF_CLI" ] || skip "no CLI at $HUGEBUF_CLI: run make"
}

# every program is installed by make deps (tools/deps.sh)
t_need_cmd() {
	for t_c in "$@"; do
		command -v "$t_c" >/dev/null 2>&1 ||
			skip "$t_c not found: run make deps (tools/deps.sh)"
	done
}

# T_DIR: a private scratch directory on the test file system; "t_tmpdir
# cd" also makes it the working directory (fio leaves verify state files
# in its working directory)
t_tmpdir() {
	if [ -z "$T_DIR" ]; then
		T_DIR=$(mktemp -d "$HUGEBUF_TEST_DIR/hb-test.XXXXXX") ||
			skip "cannot create a directory in $HUGEBUF_TEST_DIR"
	fi
	if [ "${1:-}" = cd ]; then
		cd "$T_DIR" || skip "cannot enter $T_DIR"
	fi
	return 0
}

# the fio tests' requirements: engine, CLI, fio, python3 (fio's JSON) and
# T_DIR
t_require() {
	t_need_engine
	t_need_cli
	command -v python3 >/dev/null 2>&1 ||
		skip "python3 not found (checks fio's JSON): run make deps"
	t_tmpdir
}

# ---- the hugepage pool ---------------------------------------------------

t_free_hugepages() {
	cat "$T_POOL/free_hugepages" 2>/dev/null || echo 0
}

# skip the test unless $1 2M hugepages are free
t_need_hugepages() {
	local free
	free=$(t_free_hugepages)
	[ "$free" -ge "$1" ] ||
		skip "needs $1 free 2M hugepages, $free free: echo 1024 > /proc/sys/vm/nr_hugepages"
}

t_hp_nr() {
	cat "$T_POOL/nr_hugepages" 2>/dev/null || echo 0
}

# set the 2M pool to $1 pages, restored at exit
t_hp_set() {
	t_old=$(t_hp_nr)
	t_atexit "echo $t_old > $T_POOL/nr_hugepages"
	echo "$1" >"$T_POOL/nr_hugepages" 2>/dev/null
}

# the baseline of the pool, checked at the end of a test: the free count
# must come back once every process of the test is gone
t_baseline() {
	T_BASE_FREE=$(t_free_hugepages)
}

# A leak leaves fewer pages free than the baseline; more free means
# another process gave pages back (the pool is the machine's), not ours.
t_check_baseline() {
	t_now=$(t_settle "$T_BASE_FREE" ge t_free_hugepages)
	if [ "$t_now" -ge "$T_BASE_FREE" ]; then
		t_ok "$1: HugePages_Free back at $T_BASE_FREE (now $t_now)"
		return 0
	fi
	fail "$1: HugePages_Free $t_now, was $T_BASE_FREE before the test (pages leaked, or another process uses the pool)"
}

# ---- the settle rule -------------------------------------------------------

# t_settle WANT eq|ge|still CMD [ARGS...]: the one settle rule of the
# shell tests (the C tests' t_settle(), t/helpers/settle.c, is the same).
# A counter another activity or the kernel's deferred work can move
# (the hugepage pool, VmPin after a ring goes, diskstats, whose request
# is counted at its completion, which may follow the CQE) is read by CMD
# until it equals WANT (eq), is at least WANT (ge) or has stood still
# for 0.3 s (still), for 5 s at most; prints the last reading, which the
# caller judges.
t_settle() {
	local want=$1 until=$2 v last still=0 i=0
	shift 2
	v=$("$@")
	while [ $i -lt 50 ]; do
		case $until in
		eq) [ "$v" = "$want" ] && break ;;
		ge) [ -n "$v" ] && [ "$v" -ge "$want" ] 2>/dev/null && break ;;
		*) [ $still -ge 3 ] && break ;;
		esac
		sleep 0.1
		i=$((i + 1))
		last=$v
		v=$("$@")
		if [ "$v" = "$last" ]; then
			still=$((still + 1))
		else
			still=0
		fi
	done
	echo "$v"
}

# t_hog N: a background process holding N 2M hugepages (faulted in) until
# killed.  t_hog all: every free page, and it keeps taking pages that
# other processes free, so the pool stays empty while it runs.  T_HOG is
# its pid (T_HOGS every hog's); killed at exit.
t_hog() {
	python3 -c '
import mmap, sys, time
MAP_HUGETLB = 0x40000
held = []
def take(n):
    got = 0
    while n is None or got < n:
        try:
            m = mmap.mmap(-1, 1 << 21, flags=mmap.MAP_PRIVATE |
                          mmap.MAP_ANONYMOUS | MAP_HUGETLB)
        except OSError:
            if n is None:
                break
            raise
        m[0] = 1
        held.append(m)
        got += 1
    return got
every = sys.argv[1] == "all"
take(None if every else int(sys.argv[1]))
print("held", len(held), flush=True)
while True:
    time.sleep(0.05)
    if every:
        take(None)
' "$1" >"$T_DIR/hog.out" 2>&1 &
	T_HOG=$!
	T_HOGS="$T_HOGS $T_HOG"
	t_atexit "kill $T_HOG"
	for t_i in $(seq 1 100); do
		grep -q held "$T_DIR/hog.out" 2>/dev/null && return 0
		kill -0 $T_HOG 2>/dev/null || break
		sleep 0.1
	done
	return 1
}

# t_mthp: set T_MTHP to the first mTHP size that MADV_HUGEPAGE can get,
# e.g. "64K"; as root, enable 64K for the test (restored at exit) if none
# is.  Returns 1 (T_MTHP empty) when there is none.  Not in a subshell: the
# restore is registered with t_atexit.
t_mthp() {
	T_MTHP=
	for t_d in /sys/kernel/mm/transparent_hugepage/hugepages-*kB; do
		[ -f "$t_d/enabled" ] || continue
		case "${t_d##*/hugepages-}" in 2048kB | 1048576kB) continue ;; esac
		t_en=$(sed 's/.*\[\(.*\)\].*/\1/' "$t_d/enabled")
		case "$t_en" in
		always | madvise)
			T_MTHP=$(echo "${t_d##*/hugepages-}" | sed 's/kB$/K/')
			return 0 ;;
		esac
	done
	t_d=/sys/kernel/mm/transparent_hugepage/hugepages-64kB
	[ -w "$t_d/enabled" ] || return 1
	t_en=$(sed 's/.*\[\(.*\)\].*/\1/' "$t_d/enabled")
	echo madvise >"$t_d/enabled" 2>/dev/null || return 1
	t_atexit "echo $t_en > $t_d/enabled"
	T_MTHP=64K
	return 0
}

# t_pmd_thp_off / t_pmd_thp_restore: with PMD THP enabled, MADV_HUGEPAGE
# gives 2M folios wherever they fit, so mTHP runs switch it off meanwhile.
T_PMD=/sys/kernel/mm/transparent_hugepage/hugepages-2048kB/enabled
t_pmd_thp_off() {
	[ -w "$T_PMD" ] || return 0
	T_PMD_SAVED=$(sed 's/.*\[\(.*\)\].*/\1/' "$T_PMD")
	t_atexit "echo $T_PMD_SAVED > $T_PMD"
	echo never >"$T_PMD"
}

t_pmd_thp_restore() {
	[ -n "${T_PMD_SAVED:-}" ] && echo "$T_PMD_SAVED" >"$T_PMD"
	return 0
}

# ---- running fio ---------------------------------------------------------

# t_fio NAME ARGS...: run fio with JSON output to $T_DIR/NAME.json and the
# engine report to $T_DIR/NAME.report; fio's exit code is returned and its
# stderr kept in $T_DIR/NAME.err.
t_fio() {
	t_name=$1
	shift
	rm -f "$T_DIR/$t_name.report"
	# from $T_DIR: a failed verify leaves its state files in the cwd
	(cd "$T_DIR" && HUGEBUF_REPORT_JSON=$T_DIR/$t_name.report \
		timeout -k 10 300 "$FIO" --output-format=json \
		--output="$T_DIR/$t_name.json" "$@" 2>"$T_DIR/$t_name.err" \
		>"$T_DIR/$t_name.out")
}

# t_expect_fail NAME 'message' ARGS...: fio must exit non-zero and print
# the message (grep -F) on stderr or stdout.
t_expect_fail() {
	t_name=$1 t_msg=$2
	shift 2
	t_expect_fail_cmd "$t_name" "$t_msg" "$FIO" "$@"
}

# t_expect_fail_cmd NAME 'message' COMMAND ARGS...: the same for a command
# that runs fio (e.g. under setpriv).
t_expect_fail_cmd() {
	t_name=$1 t_msg=$2
	shift 2
	if (cd "$T_DIR" && timeout -k 10 120 "$@") >"$T_DIR/$t_name.txt" 2>&1; then
		fail "$t_name: fio succeeded, expected: $t_msg"
		return
	fi
	if ! grep -qF -- "$t_msg" "$T_DIR/$t_name.txt"; then
		fail "$t_name: fio failed without '$t_msg':"
		sed 's/^/    /' "$T_DIR/$t_name.txt" | head -8
		return
	fi
	t_ok "$t_name: $(grep -F -- "$t_msg" "$T_DIR/$t_name.txt" | head -1)"
}

# t_run_job OUT CMD...: run the fio command line CMD (it may start with
# timeout or t_as_nobody) with --output=OUT.fio and its stdout and stderr
# in OUT, then append OUT.fio to OUT: OUT holds the engine's lines and
# fio's report.  The exit code is left in T_RC.
t_run_job() {
	t_out=$1
	shift
	"$@" --output="$t_out.fio" >"$t_out" 2>&1
	T_RC=$?
	cat "$t_out.fio" >>"$t_out" 2>/dev/null
}

# the lines of $1 starting with "hugebuf: " that are errors: every engine
# error is one such line; the report lines start "hugebuf: <job>:"
t_engine_errors() {
	grep '^hugebuf: ' "$1" | grep -v '^hugebuf: [^ :]*: '
}

# t_one_engine_error OUT PATTERN: true when OUT holds exactly one engine
# error line (t_engine_errors) and it names PATTERN: the house rule for a
# refused job, one line naming the cause and the fix.  The error lines
# found are left in T_ERRS.
t_one_engine_error() {
	T_ERRS=$(t_engine_errors "$1")
	[ "$(echo "$T_ERRS" | grep -c .)" = 1 ] && echo "$T_ERRS" | grep -q "$2"
}

# t_expect_refused OUT RC PATTERN WHAT: the engine job of t_run_job OUT
# exited RC and must have been refused: a non-zero exit that is not a
# timeout or a signal (>= 124), one engine line naming PATTERN
# (t_one_engine_error), and no I/O.  fail naming WHAT otherwise.
t_expect_refused() {
	if [ "$2" = 0 ] || [ "$2" -ge 124 ]; then
		fail "$4: exit $2, wanted 1"
	elif ! t_one_engine_error "$1" "$3"; then
		fail "$4: wanted one engine line naming '$3': $T_ERRS"
	else
		t_ok "$4: exit $2: $T_ERRS"
	fi
	if grep -q 'READ: bw=' "$1"; then
		fail "$4: the job did I/O"
	else
		t_ok "$4: no I/O"
	fi
}

# t_cli_refused RC ERR PATTERN: true when the CLI, its stderr in ERR,
# exited RC = 3 (refused) with exactly one line on stderr naming PATTERN
t_cli_refused() {
	[ "$1" = 3 ] && [ "$(wc -l <"$2")" = 1 ] && grep -q "$3" "$2"
}

# t_expect_fio_error RC ERR WANT NAME BYTES WHAT: a job over failing
# storage exited RC with fio error ERR (empty: no JSON) after BYTES.  It
# must end (RC >= 124 is a timeout: a hang, and the test stops there),
# exit non-zero, and report fio error WANT (NAME, e.g. 5 EIO).  fail
# naming WHAT otherwise; returns 0 when it did.
t_expect_fio_error() {
	if [ "$1" -ge 124 ]; then
		t_fail_now "$6: the job hung (timeout, exit $1)"
	elif [ "$1" = 0 ] || [ "${2:-0}" != "$3" ]; then
		fail "$6: exit $1, fio error ${2:-none}, wanted $4 ($3)"
		return 1
	fi
	t_ok "$6: exit $1, fio error $3 ($4) after $5 bytes"
}

# t_expect_read OUT RC BYTES WHAT: the JSON fio job of OUT (stderr in
# OUT.err) exited RC; it must have exited 0 with fio error 0 after
# reading exactly BYTES (its verify pass included).  fail naming WHAT
# otherwise; returns 0 when it did.
t_expect_read() {
	t_res=$(t_fio_result "$1")
	# shellcheck disable=SC2086
	set -- "$@" $t_res
	if [ "$2" = 0 ] && [ "$5" = 0 ] && [ "$6" = "$3" ]; then
		t_ok "$4: read $3 bytes"
		return 0
	fi
	fail "$4: exit $2, result $t_res: $(tail -n 3 "$1.err")"
	return 1
}

# "error read_bytes write_bytes read_ios write_ios short_read short_write"
# of the first job of fio's JSON output $1 (our report lines before the
# JSON are skipped); "none" when there is no JSON
t_fio_result() {
	$T_CHECK result "$1"
}

# ---- processes -----------------------------------------------------------

# VmPin of process $1 in kB (empty when it is gone)
t_vmpin() {
	awk '/^VmPin:/ { print $2 }' "/proc/$1/status" 2>/dev/null
}

# wait up to $2 seconds (default 10) for pid $1 to exit; 1 if it did not
t_wait_gone() {
	t_i=0
	t_max=$((${2:-10} * 10))
	while kill -0 "$1" 2>/dev/null; do
		t_i=$((t_i + 1))
		[ $t_i -ge $t_max ] && return 1
		sleep 0.1
	done
	return 0
}

# the pid of the first child of $1 (fio's job process), waiting up to 10 s
t_child_of() {
	for t_i in $(seq 1 100); do
		t_c=$(pgrep -P "$1" | head -n 1)
		[ -n "$t_c" ] && { echo "$t_c"; return 0; }
		sleep 0.1
	done
	return 1
}

# the child of fio's main process $1 that has something pinned (the job
# that registered its buffers; fio may fork short-lived helpers first),
# waiting up to 20 s
t_pinned_child() {
	for t_i in $(seq 1 200); do
		for t_c in $(pgrep -P "$1"); do
			t_v=$(t_vmpin "$t_c")
			[ -n "$t_v" ] && [ "$t_v" -gt 0 ] && { echo "$t_c"; return 0; }
		done
		kill -0 "$1" 2>/dev/null || return 1
		sleep 0.1
	done
	return 1
}

# ---- storage and users -----------------------------------------------------

# a small ext4 on a loop device over an image of $1 MiB in T_DIR, mounted
# at T_MNT; T_LOOP is the device.  Unmounted and detached at exit.
t_loop_ext4() {
	t_need_cmd losetup mkfs.ext4
	t_tmpdir
	t_img=$T_DIR/fs.img
	truncate -s "$1M" "$t_img" || skip "cannot create $t_img"
	T_LOOP=$(losetup --find --show "$t_img" 2>/dev/null) ||
		skip "losetup failed: no free loop device (or no loop support)"
	t_atexit "losetup -d $T_LOOP"
	mkfs.ext4 -q -F -b 4096 -O ^has_journal "$T_LOOP" >/dev/null 2>&1 ||
		t_fail_now "mkfs.ext4 on $T_LOOP failed"
	T_MNT=$T_DIR/mnt
	mkdir -p "$T_MNT"
	mount "$T_LOOP" "$T_MNT" || t_fail_now "mounting $T_LOOP failed"
	t_atexit "umount $T_MNT || umount -l $T_MNT"
}

# T_NB: a directory nobody (uid 65534) can use, holding copies of the
# engine and the CLI (the tree may not be readable by nobody) and a data
# file of $1 MiB owned by nobody.  T_NB_ENGINE, T_NB_CLI, T_NB_DATA.
t_nobody_setup() {
	t_need_root "it switches to the user nobody"
	t_need_cmd setpriv
	id -u nobody >/dev/null 2>&1 || skip "no user nobody on this machine"
	T_NB=$(mktemp -d /var/tmp/hb-nobody.XXXXXX) || skip "cannot create a directory in /var/tmp"
	t_atexit "rm -rf $T_NB"
	chmod 0755 "$T_NB"
	chown nobody "$T_NB"
	T_NB_ENGINE=$T_NB/hugebuf.so
	T_NB_CLI=$T_NB/hugebuf
	T_NB_DATA=$T_NB/data
	install -m 0755 "$HUGEBUF_ENGINE" "$T_NB_ENGINE" 2>/dev/null
	install -m 0755 "$HUGEBUF_CLI" "$T_NB_CLI" 2>/dev/null
	"$FIO" --name=layout --filename="$T_NB_DATA" --size="${1:-16}M" \
		--rw=write --bs=1M --output=/dev/null >/dev/null 2>&1 ||
		t_fail_now "cannot create $T_NB_DATA"
	chown nobody "$T_NB_DATA"
}

# t_as_nobody MEMLOCK_KB CMD...: run CMD as nobody, no capabilities, with
# RLIMIT_MEMLOCK of MEMLOCK_KB (or "keep")
t_as_nobody() {
	t_lim=$1
	shift
	bash -c '[ "$0" = keep ] || ulimit -l "$0" || exit 125
		exec setpriv --reuid=65534 --regid=65534 --clear-groups \
		--inh-caps=-all --bounding-set=-all -- "$@"' "$t_lim" "$@"
}
