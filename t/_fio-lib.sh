# SPDX-License-Identifier: GPL-2.0-only
#
# Shared helpers of the t/fio-*.sh tests (sourced; the runner skips files
# starting with '_').  The runner exports HUGEBUF_TEST_DIR, HUGEBUF_ENGINE,
# HUGEBUF_CLI and FIO; run by hand, they default to this tree.

T_TOP=$(cd "$(dirname "$0")/.." && pwd)
: "${HUGEBUF_ENGINE:=$T_TOP/engines/hugebuf.so}"
: "${HUGEBUF_CLI:=$T_TOP/t/hugebuf}"
: "${FIO:=fio}"
: "${HUGEBUF_TEST_DIR:=/var/tmp}"
T_CHECK="python3 $T_TOP/t/_fio-check.py"
export HUGEBUF_ENGINE HUGEBUF_CLI FIO HUGEBUF_TEST_DIR

skip() {
	echo "SKIP: $*"
	exit 77
}

fail() {
	echo "FAIL: $*"
	T_FAILED=1
}

t_require() {
	[ -f "$HUGEBUF_ENGINE" ] || skip "no engine at $HUGEBUF_ENGINE: run make"
	[ -x "$HUGEBUF_CLI" ] || skip "no CLI at $HUGEBUF_CLI: run make"
	command -v "$FIO" >/dev/null 2>&1 || skip "fio not found: apt-get install fio"
	command -v python3 >/dev/null 2>&1 ||
		skip "python3 not found (checks fio's JSON): apt-get install python3"
	T_DIR=$(mktemp -d "$HUGEBUF_TEST_DIR/fio-test.XXXXXX") ||
		skip "cannot create a directory in $HUGEBUF_TEST_DIR"
	trap t_cleanup EXIT
	T_FAILED=0
}

# Functions registered here run at exit (restore sysfs settings, unmount).
T_ATEXIT=
t_atexit() {
	T_ATEXIT="$*; $T_ATEXIT"
}

t_cleanup() {
	eval "$T_ATEXIT" 2>/dev/null
	rm -rf "$T_DIR"
}

t_free_hugepages() {
	cat /sys/kernel/mm/hugepages/hugepages-2048kB/free_hugepages 2>/dev/null ||
		echo 0
}

# t_mthp: set T_MTHP to the first mTHP size that MADV_HUGEPAGE can get,
# e.g. "64K"; as root, enable 64K for the test (restored at exit) if none
# is.  Returns 1 (T_MTHP empty) when there is none.  Not in a subshell: the
# restore is registered with t_atexit.
t_mthp() {
	local d en
	T_MTHP=
	for d in /sys/kernel/mm/transparent_hugepage/hugepages-*kB; do
		[ -f "$d/enabled" ] || continue
		case "${d##*/hugepages-}" in 2048kB | 1048576kB) continue ;; esac
		en=$(sed 's/.*\[\(.*\)\].*/\1/' "$d/enabled")
		case "$en" in
		always | madvise)
			T_MTHP=$(echo "${d##*/hugepages-}" | sed 's/kB$/K/')
			return 0 ;;
		esac
	done
	d=/sys/kernel/mm/transparent_hugepage/hugepages-64kB
	[ -w "$d/enabled" ] || return 1
	en=$(sed 's/.*\[\(.*\)\].*/\1/' "$d/enabled")
	echo madvise >"$d/enabled" 2>/dev/null || return 1
	t_atexit "echo $en > $d/enabled"
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

# t_fio NAME ARGS...: run fio with JSON output to $T_DIR/NAME.json and the
# engine report to $T_DIR/NAME.report; fio's exit code is returned and its
# stderr kept in $T_DIR/NAME.err.
t_fio() {
	local name=$1
	shift
	rm -f "$T_DIR/$name.report"
	# from $T_DIR: a failed verify leaves its state files in the cwd
	(cd "$T_DIR" && HUGEBUF_REPORT_JSON=$T_DIR/$name.report \
		timeout -k 10 300 "$FIO" --output-format=json \
		--output="$T_DIR/$name.json" "$@" 2>"$T_DIR/$name.err" \
		>"$T_DIR/$name.out")
}

# t_expect_fail NAME 'message' ARGS...: fio must exit non-zero and print
# the message (grep -F) on stderr or stdout.
t_expect_fail() {
	local name=$1 msg=$2
	shift 2
	t_expect_fail_cmd "$name" "$msg" "$FIO" "$@"
}

# t_expect_fail_cmd NAME 'message' COMMAND ARGS...: the same for a command
# that runs fio (e.g. under setpriv).
t_expect_fail_cmd() {
	local name=$1 msg=$2
	shift 2
	if (cd "$T_DIR" && timeout -k 10 120 "$@") >"$T_DIR/$name.txt" 2>&1; then
		fail "$name: fio succeeded, expected: $msg"
		return
	fi
	if ! grep -qF -- "$msg" "$T_DIR/$name.txt"; then
		fail "$name: fio failed without '$msg':"
		sed 's/^/    /' "$T_DIR/$name.txt" | head -8
		return
	fi
	echo "ok: $name: $(grep -F -- "$msg" "$T_DIR/$name.txt" | head -1)"
}

t_done() {
	if [ "$T_FAILED" != 0 ]; then
		echo "FAIL: $(basename "$0")"
		exit 1
	fi
	echo "PASS: $(basename "$0")"
	exit 0
}
