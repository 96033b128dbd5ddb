#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# make check, the user's tier: does the running kernel handle registered
# hugepage buffers right, and does hugebuf work on it?  Installs what is
# missing for that alone (root: tools/deps.sh --user: Debian's fio and
# the build tools, no qemu, no second fio, no sanitizers, fuzzers or
# packages), configures, builds and runs the suite (t/runtests.sh) on the
# running kernel: the unit tests, the regression matrix (t/regbuf-*), the
# engine end to end under fio, the CLI and every bad input, each behaviour
# once (HB_TEST_TIER=user: the tests that sweep a matrix run one point per
# behaviour).  Its last lines: what it leaves to make check-all
# (tools/check.sh, CI's command: every other kernel under qemu, the
# second fio, sanitizers, fuzzers, the soak, the packages, liburing's
# tree, and the full sweeps), every skip with its reason, and
# "N passed, N failed, N skipped".
#
# HB_CHECK_USER_TESTS="t/a.sh t/b.t" runs those instead of the tier's set.
set -u

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 1
t_start=$(date +%s)

# The suite's tests that make check leaves to make check-all, with why:
# each is about fio's own behaviour, the source, the docs or the harness
# more than about the running kernel
leave_out() {
	cat <<'EOF'
t/kernel-mails.sh	the 6.1 series' mails (kernel/patches/), for the series' maintainers
t/install.sh	make install and make uninstall into a scratch root
t/lib-layers.sh	lib/'s one-way layers, a property of the source
t/style.sh	kernel coding style (checkpatch.pl), a property of the source
t/docs-match.sh	the man pages against the code's options and fields
t/iommu-plot.sh	the qemu harness's IOMMU plot
t/run-main-safety.sh	examples/run-main.sh's refusal of paths it did not write
t/fio-compat.sh	fio's io_uring options one by one beside fio's own engine
t/fio-verify-family.sh	fio's verify options one by one beside fio's own engine
t/fio-output.sh	fio's output formats with the engine swapped in
t/fio-entries.sh	io_uring_enter calls per I/O beside fio's own engine
t/fio-killed-job.sh	fio's parent after a job is killed (fio's backend)
t/fio-clientserver.sh	fio's client/server mode
EOF
}

# What the rest of make check-all runs that make check does not: one
# line each, printed in the closing summary
check_all_only() {
	cat <<'EOF'
kernel/kernels.tab's kernels under qemu: our 6.1 series, 5.10 to 7.3
the engine against a second fio, 3.41 (tools/fio-build.sh --check)
the job soak (t/soak.py), ASan, UBSan and valgrind, the fuzzers
liburing 2.9's tree with our exported tests, the Debian packages
EOF
}

# The tests whose sweep HB_TEST_TIER=user cuts to one point per
# behaviour, and what the full sweep adds in make check-all
sweeps() {
	cat <<'EOF'
t/fio-verify-matrix.sh	bs 128K and 8M, and the memfd:2M backing
t/fio-clone.sh	15 more runs of the source-ends-first race (5 here)
t/fio-examples.sh	2 s per example job (1 s here)
EOF
}

closing() {	# passed failed skipped
	echo "$1 passed, $2 failed, $3 skipped"
	[ "$2" = 0 ]
	exit $?
}

if [ "$(id -u)" = 0 ]; then
	tools/deps.sh --user || { echo "check: make deps (--user) failed"; closing 0 1 0; }
fi
if [ ! -f config-host.mak ]; then
	./configure || { echo "check: ./configure failed (see above)"; closing 0 1 0; }
fi
build_log=$(mktemp /tmp/hugebuf-check-build.XXXXXX)
if ! make -j"$(nproc)" all >"$build_log" 2>&1; then
	tail -n 40 "$build_log"
	echo "check: the build failed (log: $build_log)"
	closing 0 1 0
fi
# t/seg-host.sh's program, the guest probe seg-profile linked static:
# built where configure found a static liburing, else that test says why
if grep -q '^LIBURING_STATIC=yes' config-host.mak &&
   ! make kernel/static/seg-profile >"$build_log" 2>&1; then
	tail -n 40 "$build_log"
	echo "check: kernel/static/seg-profile did not build (log: $build_log)"
	closing 0 1 0
fi
rm -f "$build_log"
echo "check: built in $(($(date +%s) - t_start)) s"

if [ -n "${HB_CHECK_USER_TESTS:-}" ]; then
	tests=$HB_CHECK_USER_TESTS
else
	# t/runtests.sh's own set (every t/*.t and t/*.sh but the runner
	# and t/_* helpers) less those left out
	tests=$(ls t/*.t t/*.sh | grep -v -E '^t/(runtests\.sh|_)' |
		grep -v -x -F -f <(leave_out | cut -f1))
fi

# the suite's own closing lines (skips, sub-checks, totals) are printed
# after the summary below, so that the totals are the last line
log=$(mktemp /tmp/hugebuf-check-user.XXXXXX)
trap 'rm -f "$log"' EXIT
# shellcheck disable=SC2086
HB_TEST_TIER=user t/runtests.sh $tests 2>&1 | tee "$log" |
	grep -a --line-buffered -v -E '^(skipped: |sub-checks: |[0-9]+ passed, [0-9]+ failed, [0-9]+ skipped$)'
line=$(grep -a -E '^[0-9]+ passed, [0-9]+ failed, [0-9]+ skipped$' "$log" | tail -n 1)

echo
echo "check: the running kernel ($(uname -r)) in $(($(date +%s) - t_start)) s."
echo "check: left to make check-all (tools/check.sh):"
check_all_only | sed 's/^/  - /'
leave_out | sed -E 's/^([^\t]*)\t(.*)/  - \1: \2/'
sweeps | sed -E 's/^([^\t]*)\t(.*)/  - \1: \2/'
if grep -a -q '^skipped: ' "$log"; then
	echo "check: skipped, with the reasons:"
	grep -a '^skipped: ' "$log" | sed 's/^skipped: /  /' | cut -c1-240
fi
grep -a -E '^sub-checks: ' "$log" | tail -n 1
[ -n "$line" ] || { echo "check: t/runtests.sh printed no result line"; closing 0 1 0; }
set -- $line
closing "$1" "$3" "$5"
