#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# The engine warns before a slow registration, and the job still runs:
#  - layout=region over 512 MiB of 16 KiB mTHP (bs=8M iodepth=64, one
#    buffer of 32768 folios): up to 7.1 the hugepage accounting scan reads
#    32768 * 32767 / 2 entries, past lib's bound, so one "warning:
#    registering will take long" line comes, fio exits 0, and the report's
#    register_scan_reads is what `hugebuf plan` models for the running
#    kernel (linear from 7.2: no warning there, lookups instead);
#  - the default per-io layout (64 buffers of 8 MiB in one call): no
#    warning on 6.13 and later (the call's own buffers are not scanned).
# 16 KiB mTHP is enabled (madvise) for the test and PMD THP switched off,
# both restored; folios are best effort, so a run whose probe saw other
# sizes is a skip of the comparison.
. "$(dirname "$0")/_fio-lib.sh"
t_need_engine
t_need_cli
t_need_root
t_need_cmd python3
t_tmpdir

M16=/sys/kernel/mm/transparent_hugepage/hugepages-16kB/enabled
[ -w "$M16" ] || skip "no 16 KiB mTHP here (needs Linux 6.8+: $M16)"
m16_was=$(sed 's/.*\[\(.*\)\].*/\1/' "$M16")
t_atexit "echo $m16_was > $M16"
echo madvise >"$M16" || skip "cannot enable 16 KiB mTHP ($M16)"
t_pmd_thp_off

# job NAME LAYOUT: the 8M iodepth=64 write job with the report in NAME.report
job() {
	t_fio "$1" --name="$1" --ioengine=external:"$HUGEBUF_ENGINE" \
		--directory="$T_DIR" --filename=regcost.dat --size=64M \
		--backing=mthp:16K --layout="$2" --bs=8M --iodepth=64 \
		--rw=write --direct=1 --number_ios=8
}

# what the report and the plan say: folio sizes seen, reads, lookups
compare() {	# $1 = report, $2 = plan JSON
	python3 - "$1" "$2" <<'PY'
import json, sys
rep = json.load(open(sys.argv[1]))
rep = rep[0] if isinstance(rep, list) else rep
plan = json.load(open(sys.argv[2]))["register"]
seen = rep["folio_size_seen"]
if seen["min"] != 16384 or seen["max"] != 16384:
    print("skip folios of %d..%d bytes, not 16K" % (seen["min"], seen["max"]))
    sys.exit(0)
got = (rep["register_scan_reads"], rep["register_ring_lookups"])
want = (plan["scan_reads"], plan["ring_lookups"])
print("%s reads %d lookups %d, plan %d %d, slow %s" %
      ("ok" if got == want else "bad", got[0], got[1], want[0], want[1],
       plan["slow"]))
PY
}

if job region region; then
	"$HUGEBUF_CLI" plan --backing=mthp:16K --size=512M --json \
		>"$T_DIR/plan.json" 2>"$T_DIR/plan.err" ||
		t_fail_now "hugebuf plan failed: $(head -n 1 "$T_DIR/plan.err")"
	res=$(compare "$T_DIR/region.report" "$T_DIR/plan.json")
	slow=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["register"]["slow"])' "$T_DIR/plan.json")
	case $res in
	skip*) t_skip_check "region: the report is the plan's: ${res#skip }" ;;
	ok*) t_ok "region: report = plan: ${res#ok }" ;;
	*) fail "region: report and plan differ: ${res#bad }" ;;
	esac
	warned=no
	grep -q '^hugebuf: warning: registering will take long' \
		"$T_DIR/region.err" && warned=yes
	case $slow:$warned:$res in
	True:yes:*) t_ok "region: the warning came, and the job ran" ;;
	False:no:*) t_ok "region: no warning where the plan is not slow" ;;
	*:*:skip*) t_skip_check "region: the warning: the folios were not 16K" ;;
	*) fail "region: plan slow $slow, warned $warned" ;;
	esac
else
	fail "region job: fio exit $?: $(grep -v '^$' "$T_DIR/region.err" | tail -n 1)"
fi

if job perio per-io; then
	if grep -q 'registering will take long' "$T_DIR/perio.err"; then
		"$HUGEBUF_CLI" plan --backing=mthp:16K --size=8M --buffers=64 \
			--json >"$T_DIR/perio.plan"
		if grep -q '"slow":true' "$T_DIR/perio.plan"; then
			t_ok "per-io: warned, as the plan for this kernel says"
		else
			fail "per-io: warned where the plan is not slow"
		fi
	else
		t_ok "per-io: 64 buffers of 8M in one call, no warning"
	fi
else
	fail "per-io job: fio exit $?: $(grep -v '^$' "$T_DIR/perio.err" | tail -n 1)"
fi

t_done
