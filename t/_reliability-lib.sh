# SPDX-License-Identifier: GPL-2.0-only
#
# Shared helpers of the reliability tests (t/fault-*.sh, t/badinput.sh,
# t/nonroot.sh, t/fio-clientserver.sh); sourced, never run (the runner
# skips t/_*.sh).  The runner exports HUGEBUF_TEST_DIR, HUGEBUF_ENGINE,
# HUGEBUF_CLI and FIO; by hand they default to this tree.
#
# Every resource a test takes (mounts, loop devices, pool sizes, network
# namespaces, processes) is released by a function registered with
# r_atexit, which runs on every exit path, in reverse order.

T_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
: "${HUGEBUF_ENGINE:=$T_TOP/engines/hugebuf.so}"
: "${HUGEBUF_CLI:=$T_TOP/t/hugebuf}"
: "${FIO:=fio}"
: "${HUGEBUF_TEST_DIR:=/var/tmp}"
export HUGEBUF_ENGINE HUGEBUF_CLI FIO HUGEBUF_TEST_DIR

R_POOL=/sys/kernel/mm/hugepages/hugepages-2048kB
R_ATEXIT=
R_DIR=
R_FAILED=0

r_atexit() {
	R_ATEXIT="$*; $R_ATEXIT"
}

r_cleanup() {
	local rc=$?
	trap - EXIT INT TERM
	eval "$R_ATEXIT" >/dev/null 2>&1
	[ -n "$R_DIR" ] && rm -rf "$R_DIR"
	exit $rc
}
trap r_cleanup EXIT
trap 'exit 130' INT TERM

r_skip() {
	echo "SKIP: $*"
	exit 77
}

r_fail() {
	echo "FAIL: $*"
	R_FAILED=1
}

r_fail_now() {
	echo "FAIL: $*"
	exit 1
}

r_info() {
	echo "  $*"
}

r_done() {
	[ $R_FAILED = 0 ] && exit 0
	exit 1
}

r_need_root() {
	[ "$(id -u)" = 0 ] || r_skip "needs root ($*)"
}

r_need_engine() {
	[ -f "$HUGEBUF_ENGINE" ] || r_skip "no engine at $HUGEBUF_ENGINE: run make"
	command -v "$FIO" >/dev/null 2>&1 || r_skip "fio not found: apt-get install fio"
}

r_need_cli() {
	[ -x "$HUGEBUF_CLI" ] || r_skip "no CLI at $HUGEBUF_CLI: run make"
}

r_need_cmd() {
	local c
	for c in "$@"; do
		command -v "$c" >/dev/null 2>&1 || r_skip "$c not found (apt-get install the package that has it)"
	done
}

# R_DIR: a private scratch directory on the test file system
r_tmpdir() {
	R_DIR=$(mktemp -d "$HUGEBUF_TEST_DIR/hb-rel.XXXXXX") ||
		r_skip "cannot create a directory in $HUGEBUF_TEST_DIR"
	# fio leaves verify state files in its working directory
	cd "$R_DIR" || r_skip "cannot enter $R_DIR"
}

r_hp_free() {
	cat "$R_POOL/free_hugepages" 2>/dev/null || echo 0
}

r_hp_nr() {
	cat "$R_POOL/nr_hugepages" 2>/dev/null || echo 0
}

# set the 2M pool to $1 pages, restored at exit
r_hp_set() {
	local old
	old=$(r_hp_nr)
	r_atexit "echo $old > $R_POOL/nr_hugepages"
	echo "$1" >"$R_POOL/nr_hugepages" 2>/dev/null
}

# VmPin of process $1 in kB (empty when it is gone)
r_vmpin() {
	awk '/^VmPin:/ { print $2 }' "/proc/$1/status" 2>/dev/null
}

# the fio command line of a small job with the engine; extra options follow
r_fio_engine() {
	"$FIO" --ioengine=external:"$HUGEBUF_ENGINE" --direct=1 "$@"
}

# number of lines of $1 starting with "hugebuf: " that are errors: every
# engine error is one such line; the report lines start "hugebuf: <job>:"
r_engine_errors() {
	grep '^hugebuf: ' "$1" | grep -v '^hugebuf: [^ :]*: '
}

# r_run_job OUT CMD...: run the fio command line CMD (it may start with
# timeout or r_as_nobody) with --output=OUT.fio and its stdout and stderr
# in OUT, then append OUT.fio to OUT: OUT holds the engine's lines and
# fio's report.  The exit code is left in R_RC.
r_run_job() {
	local out=$1
	shift
	"$@" --output="$out.fio" >"$out" 2>&1
	R_RC=$?
	cat "$out.fio" >>"$out" 2>/dev/null
}

# r_one_engine_error OUT PATTERN: true when OUT holds exactly one engine
# error line (r_engine_errors) and it names PATTERN: the house rule for a
# refused job, one line naming the cause and the fix.  The error lines
# found are left in R_ERRS.
r_one_engine_error() {
	R_ERRS=$(r_engine_errors "$1")
	[ "$(echo "$R_ERRS" | grep -c .)" = 1 ] && echo "$R_ERRS" | grep -q "$2"
}

# r_expect_refused OUT RC PATTERN WHAT: the engine job of r_run_job OUT
# exited RC and must have been refused: a non-zero exit that is not a
# timeout or a signal (>= 124), one engine line naming PATTERN
# (r_one_engine_error), and no I/O.  r_fail naming WHAT otherwise.
r_expect_refused() {
	local out=$1 rc=$2 pat=$3 what=$4
	if [ "$rc" = 0 ] || [ "$rc" -ge 124 ]; then
		r_fail "$what: exit $rc, wanted 1"
	elif ! r_one_engine_error "$out" "$pat"; then
		r_fail "$what: wanted one engine line naming '$pat': $R_ERRS"
	else
		r_info "$what: exit $rc: $R_ERRS"
	fi
	if grep -q 'READ: bw=' "$out"; then
		r_fail "$what: the job did I/O"
	fi
}

# r_cli_refused RC ERR PATTERN: true when the CLI, its stderr in ERR,
# exited RC = 3 (refused) with exactly one line on stderr naming PATTERN
r_cli_refused() {
	[ "$1" = 3 ] && [ "$(wc -l <"$2")" = 1 ] && grep -q "$3" "$2"
}

# r_expect_fio_error RC ERR WANT NAME BYTES WHAT: a job over failing
# storage exited RC with fio error ERR (empty: no JSON) after BYTES.  It
# must end (RC >= 124 is a timeout: a hang, and the test stops there),
# exit non-zero, and report fio error WANT (NAME, e.g. 5 EIO).  r_fail
# naming WHAT otherwise; returns 0 when it did.
r_expect_fio_error() {
	local rc=$1 err=$2 want=$3 name=$4 bytes=$5 what=$6
	if [ "$rc" -ge 124 ]; then
		r_fail_now "$what: the job hung (timeout, exit $rc)"
	elif [ "$rc" = 0 ] || [ "${err:-0}" != "$want" ]; then
		r_fail "$what: exit $rc, fio error ${err:-none}, wanted $name ($want)"
		return 1
	fi
	r_info "$what: exit $rc, fio error $want ($name) after $bytes bytes"
}

# r_expect_read OUT RC BYTES WHAT: the JSON fio job of OUT (stderr in
# OUT.err) exited RC; it must have exited 0 with fio error 0 after
# reading exactly BYTES (its verify pass included).  r_fail naming WHAT
# otherwise; returns 0 when it did.
r_expect_read() {
	local out=$1 rc=$2 bytes=$3 what=$4 res
	res=$(r_fio_result "$out")
	set -- $res
	[ "$rc" = 0 ] && [ "$1" = 0 ] && [ "$2" = "$bytes" ] && return 0
	r_fail "$what: exit $rc, result $res: $(tail -n 3 "$out.err")"
	return 1
}

# wait up to $2 seconds (default 10) for pid $1 to exit; 1 if it did not
r_wait_gone() {
	local i=0 max=$((${2:-10} * 10))
	while kill -0 "$1" 2>/dev/null; do
		i=$((i + 1))
		[ $i -ge $max ] && return 1
		sleep 0.1
	done
	return 0
}

# the baseline of the hugepage pool, checked at the end of a test: the
# free count must come back once every process of the test is gone
r_baseline() {
	R_BASE_FREE=$(r_hp_free)
}

r_check_baseline() {
	local i now
	for i in $(seq 1 50); do
		now=$(r_hp_free)
		[ "$now" = "$R_BASE_FREE" ] && return 0
		sleep 0.1
	done
	r_fail "$1: HugePages_Free $now, was $R_BASE_FREE before the test (pages leaked, or another process uses the pool)"
}

# a small ext4 on a loop device over an image of $1 MiB in R_DIR, mounted
# at R_MNT; R_LOOP is the device.  Unmounted and detached at exit.
r_loop_ext4() {
	local img=$R_DIR/fs.img
	r_need_cmd losetup mkfs.ext4
	truncate -s "$1M" "$img" || r_skip "cannot create $img"
	R_LOOP=$(losetup --find --show "$img" 2>/dev/null) ||
		r_skip "losetup failed: no free loop device (or no loop support)"
	r_atexit "losetup -d $R_LOOP"
	mkfs.ext4 -q -F -b 4096 -O ^has_journal "$R_LOOP" >/dev/null 2>&1 ||
		r_fail_now "mkfs.ext4 on $R_LOOP failed"
	R_MNT=$R_DIR/mnt
	mkdir -p "$R_MNT"
	mount "$R_LOOP" "$R_MNT" || r_fail_now "mounting $R_LOOP failed"
	r_atexit "umount $R_MNT || umount -l $R_MNT"
}

# "error read_bytes write_bytes read_ios write_ios short_read short_write"
# of the first job of fio's JSON output $1 (our report lines before the
# JSON are skipped); "none" when there is no JSON
r_fio_result() {
	python3 - "$1" <<'PY'
import json, sys
text = open(sys.argv[1], errors="replace").read()
start = text.find("\n{") + 1 if not text.startswith("{") else 0
try:
    j = json.loads(text[start:])["jobs"][0]
except Exception:
    print("none")
    sys.exit(0)
r, w = j["read"], j["write"]
print(j["error"], r["io_bytes"], w["io_bytes"], r["total_ios"],
      w["total_ios"], r.get("short_ios", 0), w.get("short_ios", 0))
PY
}

# r_hog N: a background process holding N 2M hugepages (faulted in) until
# killed; R_HOG is its pid.  Prints nothing; killed at exit.
r_hog() {
	python3 -c '
import mmap, sys, time
n = int(sys.argv[1])
if n > 0:
    m = mmap.mmap(-1, n << 21, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS | 0x40000)
    for i in range(n):
        m[i << 21] = 1
print("held", n, flush=True)
time.sleep(3600)
' "$1" >"$R_DIR/hog.out" 2>&1 &
	R_HOG=$!
	r_atexit "kill $R_HOG"
	local i
	for i in $(seq 1 100); do
		grep -q held "$R_DIR/hog.out" 2>/dev/null && return 0
		kill -0 $R_HOG 2>/dev/null || break
		sleep 0.1
	done
	return 1
}

# the pid of the first child of $1 (fio's job process), waiting up to 10 s
r_child_of() {
	local i c
	for i in $(seq 1 100); do
		c=$(pgrep -P "$1" | head -n 1)
		[ -n "$c" ] && { echo "$c"; return 0; }
		sleep 0.1
	done
	return 1
}

# the child of fio's main process $1 that has something pinned (the job
# that registered its buffers; fio may fork short-lived helpers first),
# waiting up to 20 s
r_pinned_child() {
	local i c v
	for i in $(seq 1 200); do
		for c in $(pgrep -P "$1"); do
			v=$(r_vmpin "$c")
			[ -n "$v" ] && [ "$v" -gt 0 ] && { echo "$c"; return 0; }
		done
		kill -0 "$1" 2>/dev/null || return 1
		sleep 0.1
	done
	return 1
}

# R_NB: a directory nobody (uid 65534) can use, holding copies of the
# engine and the CLI (the tree may not be readable by nobody) and a data
# file of $1 MiB owned by nobody.  R_NB_ENGINE, R_NB_CLI, R_NB_DATA.
r_nobody_setup() {
	r_need_root "it switches to the user nobody"
	r_need_cmd setpriv
	id -u nobody >/dev/null 2>&1 || r_skip "no user nobody on this machine"
	R_NB=$(mktemp -d /var/tmp/hb-nobody.XXXXXX) || r_skip "cannot create a directory in /var/tmp"
	r_atexit "rm -rf $R_NB"
	chmod 0755 "$R_NB"
	chown nobody "$R_NB"
	R_NB_ENGINE=$R_NB/hugebuf.so
	R_NB_CLI=$R_NB/hugebuf
	R_NB_DATA=$R_NB/data
	install -m 0755 "$HUGEBUF_ENGINE" "$R_NB_ENGINE" 2>/dev/null
	install -m 0755 "$HUGEBUF_CLI" "$R_NB_CLI" 2>/dev/null
	"$FIO" --name=layout --filename="$R_NB_DATA" --size="${1:-16}M" \
		--rw=write --bs=1M --output=/dev/null >/dev/null 2>&1 ||
		r_fail_now "cannot create $R_NB_DATA"
	chown nobody "$R_NB_DATA"
}

# r_as_nobody MEMLOCK_KB CMD...: run CMD as nobody, no capabilities, with
# RLIMIT_MEMLOCK of MEMLOCK_KB (or "keep")
r_as_nobody() {
	local lim=$1
	shift
	bash -c '[ "$0" = keep ] || ulimit -l "$0" || exit 125
		exec setpriv --reuid=65534 --regid=65534 --clear-groups \
		--inh-caps=-all --bounding-set=-all -- "$@"' "$lim" "$@"
}
