#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# kernel/repeat.sh: run a few tests many times in the guests of
# kernel/ktest.sh, to catch what a full run shows once in a while (7.0's
# I/O hang, docs/known-issues.md).  Each test of t/static/ named
# is copied COUNT times into a scratch KTEST_BINDIR (names NN-TEST), every
# guest program of kernel/probe is replaced by a stub that skips (the
# CLI comes along, for ktest.sh's detection verdict), and
# ktest.sh runs with that, KTEST_NVME_SUITE=all (so every copy runs on the
# main disk and again on the NVMe namespace), no liburing, no IOMMU guest,
# no fio, and the console logs kept.  Other KTEST_* variables pass through
# (KTEST_KERNELS: which guests, two at a time by default).  A hung I/O
# dumps the kernel's tasks and CPUs to the console (t_submit_wait()).
# The verdicts ktest.sh draws from the stubbed probes' output (sendzc,
# bio-profile) are failures: read the tests' results, not the total.
#
# Usage: kernel/repeat.sh COUNT TEST...
#   e.g. KTEST_KERNELS="7.0 7.1" kernel/repeat.sh 20 regbuf-unaligned-start \
#            regbuf-small-in-folio
set -u -o pipefail

KDIR=$(cd "$(dirname "$0")" && pwd)
TOP=$(dirname "$KDIR")
# every guest program of kernel/probe/, each stubbed below
PROBES=$(cd "$KDIR/probe" && for c in *.c; do echo "${c%.c}"; done)

die() { echo "repeat: error: $*" >&2; exit 1; }

[ $# -ge 2 ] || die "usage: kernel/repeat.sh COUNT TEST... (see its header)"
count=$1
shift
case $count in
'' | *[!0-9]*) die "COUNT '$count' is not a number: give 1 to 99" ;;
esac
if [ "$count" -lt 1 ] || [ "$count" -gt 99 ]; then
	die "COUNT $count is out of range: give 1 to 99"
fi
for t in "$@"; do
	[ -x "$TOP/t/static/$t" ] ||
		die "no t/static/$t: run 'make static', or name a test of t/"
done

scratch=$(mktemp -d "${TMPDIR:-/tmp}/hugebuf-repeat.XXXXXX") ||
	die "mktemp failed"
trap 'rm -rf "$scratch"' EXIT
mkdir "$scratch/bin" "$scratch/probe"
# the CLI too, so that ktest.sh's detection and coalescing verdicts hold
[ -x "$TOP/t/static/hugebuf" ] && cp "$TOP/t/static/hugebuf" "$scratch/bin/"
for t in "$@"; do
	for i in $(seq -w 1 "$count"); do
		cp "$TOP/t/static/$t" "$scratch/bin/$i-$t"
	done
done
for p in $PROBES; do
	printf '#!/bin/sh\necho "%s skip=left out by kernel/repeat.sh"\nexit 77\n' \
		"$p" >"$scratch/probe/$p"
	chmod +x "$scratch/probe/$p"
done

KTEST_BINDIR=$scratch/bin KTEST_PROBEDIR=$scratch/probe \
	KTEST_ENGINE=$scratch/no-engine KTEST_NVME_SUITE=all \
	KTEST_LIBURING=none KTEST_IOMMU_KERNELS='' KTEST_KEEP=1 \
	"$KDIR/ktest.sh"
