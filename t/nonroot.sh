#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Non-root: as nobody (uid 65534, no capabilities, the default
# RLIMIT_MEMLOCK) the CLI and the engine work with the degraded probe
# (PFNs are hidden from unprivileged users, /proc/kpageflags is root's)
# and say so; a registration beyond RLIMIT_MEMLOCK fails with one line
# naming `ulimit -l`.  The binaries are copied to a directory nobody can
# read (the tree may not be).  Reads are checked against fio's crc32c
# headers.
. "$(dirname "$0")/_reliability-lib.sh"

r_need_engine
r_need_cli
r_nobody_setup 16
cd "$R_NB" || exit 1
memlock=$(r_as_nobody keep bash -c 'ulimit -l')
r_info "nobody's RLIMIT_MEMLOCK: $memlock KiB"
case $memlock in unlimited) r_skip "RLIMIT_MEMLOCK is unlimited: nothing to exceed" ;; esac
[ "$memlock" -ge 4096 ] || r_skip "RLIMIT_MEMLOCK is $memlock KiB: the working cases need 4096"
"$FIO" --name=layout --filename="$R_NB_DATA" --size=16M --rw=write \
	--bs=1M --verify=crc32c --do_verify=0 --output=/dev/null >/dev/null 2>&1
chown nobody "$R_NB_DATA"
r_baseline

# info: the probe is degraded and says how to get the exact one
out=$R_NB/info.out
r_as_nobody keep "$R_NB_CLI" info >"$out" 2>&1 || r_fail "hugebuf info as nobody: exit $?"
grep -q '^folio probe:.*degraded' "$out" || r_fail "hugebuf info as nobody does not say the probe is degraded: $(grep probe "$out")"
grep -q 'CAP_IPC_LOCK: no' "$out" || r_fail "hugebuf info as nobody claims CAP_IPC_LOCK"

# check within the limit: works, degraded probe, matches the model
out=$R_NB/check.out
r_as_nobody keep "$R_NB_CLI" check --backing=hugetlb:2M --size=2M \
	--file="$R_NB/check.dat" >"$out" 2>&1
rc=$?
if [ $rc != 0 ]; then
	r_fail "hugebuf check (2M) as nobody: exit $rc: $(tail -n 3 "$out")"
elif ! grep -q '^probe: *degraded' "$out"; then
	r_fail "hugebuf check as nobody does not report a degraded probe"
else
	r_info "check 2M as nobody: $(grep '^probe:' "$out" | cut -c1-100)"
fi

# the engine within the limit: 2 x 1M buffers, reads verified
out=$R_NB/job.out
r_as_nobody keep "$FIO" --name=nobody --ioengine=external:"$R_NB_ENGINE" \
	--filename="$R_NB_DATA" --size=16M --bs=1M --iodepth=2 --direct=1 \
	--rw=read --verify=crc32c --verify_fatal=1 --output-format=json \
	--output="$out" >"$out.err" 2>&1
rc=$?
if ! r_expect_read "$out" $rc $((16 << 20)) "engine job as nobody"; then
	:
elif ! grep -q '^hugebuf: nobody: .*probe degraded' "$out"; then
	r_fail "engine report as nobody does not say the probe is degraded: $(grep probe "$out")"
else
	r_info "engine as nobody: 16 MiB read and verified, probe degraded"
fi

# beyond the limit: one line naming ulimit -l, engine and CLI
out=$R_NB/over.out
r_run_job "$out" r_as_nobody keep "$FIO" --name=over \
	--ioengine=external:"$R_NB_ENGINE" --filename="$R_NB_DATA" --size=16M \
	--bs=2M --iodepth=$((memlock / 2048 + 2)) --direct=1 --rw=read
if ! r_one_engine_error "$out" 'ulimit -l' || [ $R_RC = 0 ]; then
	r_fail "engine beyond RLIMIT_MEMLOCK: exit $R_RC, wanted one line naming 'ulimit -l': $R_ERRS"
else
	r_info "engine beyond the limit: $R_ERRS"
fi
size=$(((memlock / 2048 + 2) * 2))M
out=$R_NB/over-cli.out
r_as_nobody keep "$R_NB_CLI" check --backing=hugetlb:2M --size="$size" \
	--file="$R_NB/check.dat" >"$out.stdout" 2>"$out"
rc=$?
if ! r_cli_refused $rc "$out" 'ulimit -l'; then
	r_fail "hugebuf check --size=$size beyond RLIMIT_MEMLOCK: exit $rc, wanted 3 and one line naming 'ulimit -l': $(cat "$out")"
else
	r_info "CLI beyond the limit: $(cat "$out")"
fi
r_check_baseline "after the nobody runs"
r_done
