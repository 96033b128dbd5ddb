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
. "$(dirname "$0")/_fio-lib.sh"

t_need_engine
t_need_cli
t_nobody_setup 16
cd "$T_NB" || exit 1
memlock=$(t_as_nobody keep bash -c 'ulimit -l')
t_info "nobody's RLIMIT_MEMLOCK: $memlock KiB"
case $memlock in unlimited) skip "RLIMIT_MEMLOCK is unlimited: nothing to exceed" ;; esac
[ "$memlock" -ge 4096 ] || skip "RLIMIT_MEMLOCK is $memlock KiB: the working cases need 4096"
"$FIO" --name=layout --filename="$T_NB_DATA" --size=16M --rw=write \
	--bs=1M --verify=crc32c --do_verify=0 --output=/dev/null >/dev/null 2>&1
chown nobody "$T_NB_DATA"
t_baseline

# info: the probe is degraded and says how to get the exact one
out=$T_NB/info.out
t_as_nobody keep "$T_NB_CLI" info >"$out" 2>&1 && t_ok "hugebuf info as nobody: exit 0" ||
	fail "hugebuf info as nobody: exit $?"
grep -q '^folio probe:.*degraded' "$out" && t_ok "hugebuf info as nobody: the probe is degraded" ||
	fail "hugebuf info as nobody does not say the probe is degraded: $(grep probe "$out")"
grep -q 'CAP_IPC_LOCK: no' "$out" && t_ok "hugebuf info as nobody: no CAP_IPC_LOCK" ||
	fail "hugebuf info as nobody claims CAP_IPC_LOCK"

# check within the limit: works, degraded probe, matches the model
out=$T_NB/check.out
t_as_nobody keep "$T_NB_CLI" check --backing=hugetlb:2M --size=2M \
	--file="$T_NB/check.dat" >"$out" 2>&1
rc=$?
if [ $rc != 0 ]; then
	fail "hugebuf check (2M) as nobody: exit $rc: $(tail -n 3 "$out")"
elif ! grep -q '^probe: *degraded' "$out"; then
	fail "hugebuf check as nobody does not report a degraded probe"
else
	t_ok "check 2M as nobody: $(grep '^probe:' "$out" | cut -c1-100)"
fi

# the engine within the limit: 2 x 1M buffers, reads verified
out=$T_NB/job.out
t_as_nobody keep "$FIO" --name=nobody --ioengine=external:"$T_NB_ENGINE" \
	--filename="$T_NB_DATA" --size=16M --bs=1M --iodepth=2 --direct=1 \
	--rw=read --verify=crc32c --verify_fatal=1 --output-format=json \
	--output="$out" >"$out.err" 2>&1
rc=$?
if ! t_expect_read "$out" $rc $((16 << 20)) "engine job as nobody"; then
	:
# under --output-format=json the engine's report goes to stderr (1a1b350)
elif ! cat "$out" "$out.err" | grep -q '^hugebuf: nobody: .*probe degraded'; then
	fail "engine report as nobody does not say the probe is degraded: $(cat "$out" "$out.err" | grep probe)"
else
	t_ok "engine as nobody: 16 MiB read and verified, probe degraded"
fi

# beyond the limit: one line naming ulimit -l, engine and CLI
out=$T_NB/over.out
t_run_job "$out" t_as_nobody keep "$FIO" --name=over \
	--ioengine=external:"$T_NB_ENGINE" --filename="$T_NB_DATA" --size=16M \
	--bs=2M --iodepth=$((memlock / 2048 + 2)) --direct=1 --rw=read
if ! t_one_engine_error "$out" 'ulimit -l' || [ $T_RC = 0 ]; then
	fail "engine beyond RLIMIT_MEMLOCK: exit $T_RC, wanted one line naming 'ulimit -l': $T_ERRS"
else
	t_ok "engine beyond the limit: $T_ERRS"
fi
size=$(((memlock / 2048 + 2) * 2))M
out=$T_NB/over-cli.out
t_as_nobody keep "$T_NB_CLI" check --backing=hugetlb:2M --size="$size" \
	--file="$T_NB/check.dat" >"$out.stdout" 2>"$out"
rc=$?
if ! t_cli_refused $rc "$out" 'ulimit -l'; then
	fail "hugebuf check --size=$size beyond RLIMIT_MEMLOCK: exit $rc, wanted 3 and one line naming 'ulimit -l': $(cat "$out")"
else
	t_ok "CLI beyond the limit: $(cat "$out")"
fi
t_check_baseline "after the nobody runs"
t_done
