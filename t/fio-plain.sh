#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The report of a fixedbufs=0 job (plain O_DIRECT, no registered buffer):
#  - on hugetlb 2M and on 4k pages, one 8 MiB read at a time, the text has
#    the plain model's line and its requests beside the measured ones, and
#    report_json parses and carries the plain_* counts;
#  - the counts that do not depend on page frame numbers are the ones
#    "hugebuf plan --plain" prints for the same buffer and kernel (one
#    model, two users): on 4k pages adds and releases (a merge frees a bio
#    slot, so bios, batches and merge tests follow the PFNs); on 2M
#    hugetlb also bios, batches and merge tests (an 8 MiB read is one bio
#    and its batch ends never meet a folio end, whether or not the folios
#    are physically adjacent: t/unit-plain.c's first and third cases);
#  - the predicted requests per I/O are the measured ones and the one
#    verdict says so (matches_model), on hugetlb and on 4k pages (several
#    bios; a short last bio joins the request before it);
#  - a fixedbufs=1 job keeps its registered-buffer prediction and has no
#    plain model (plain_pfn empty, no plain line).
. "$(dirname "$0")/_fio-lib.sh"
t_require
[ "$(id -u)" = 0 ] || skip "needs root (the exact probe's PFNs)"
t_need_hugepages 16
E="external:$HUGEBUF_ENGINE"
F=$T_DIR/data
"$FIO" --name=lay --filename="$F" --size=8M --rw=write --bs=1M \
	--output=/dev/null >/dev/null 2>&1 || skip "cannot write $F"
JOB="--filename=$F --size=8M --rw=read --bs=8M --iodepth=1 --direct=1"

# field NAME KEY: KEY of the report_json line of job NAME
field() {
	python3 -c 'import json,sys; print(json.loads(open(sys.argv[1]).readline())[sys.argv[2]])' \
		"$T_DIR/$1.report" "$2"
}

# plain NAME BACKING PLAN_BACKING KEYS: one fixedbufs=0 job and its checks,
# KEYS the plain_* counts that must be hugebuf plan --plain's;
# sets PRED and MEAS (requests per I/O), both empty when the job gave
# nothing to compare
plain() {
	local n=$1 b=$2 pb=$3 keys=$4 line km pfn
	PRED='' MEAS=''
	if ! t_fio "$n" --name="$n" $JOB --ioengine="$E" --backing="$b" \
		--fixedbufs=0; then
		fail "$n: fio failed: $(head -n 2 "$T_DIR/$n.err")"
		return
	fi
	if $T_CHECK formats json "$T_DIR/$n.json" &&
		python3 -m json.tool "$T_DIR/$n.report" >/dev/null; then
		t_ok "$n: fio's JSON and report_json parse"
	else
		fail "$n: fio's JSON or report_json does not parse"
		return
	fi
	if [ -z "$(field "$n" device)" ]; then
		t_skip_check "$n: $HUGEBUF_TEST_DIR is not on a block device: no requests to model"
		return
	fi
	pfn=$(field "$n" plain_pfn)
	line=$(grep -F "hugebuf: $n: plain O_DIRECT model of one 8388608-byte I/O (PFNs $pfn): " \
		"$T_DIR/$n.err")
	if [ -n "$pfn" ] && [ -n "$line" ]; then
		t_ok "$n: ${line#hugebuf: "$n": }"
	else
		fail "$n: no plain model line for plain_pfn '$pfn'"
		grep '^hugebuf: ' "$T_DIR/$n.err" | sed 's/^/    /'
		return
	fi
	# the counts "hugebuf plan --plain" gives for the same buffer
	km=$(field "$n" kernel_model)
	if ! "$HUGEBUF_CLI" plan --backing="$pb" --size=8M --kernel="$km" \
		--plain --json >"$T_DIR/$n.plan" 2>"$T_DIR/$n.plan.err"; then
		fail "$n: hugebuf plan --plain --kernel=$km: $(head -n 1 "$T_DIR/$n.plan.err")"
	elif python3 - "$T_DIR/$n.report" "$T_DIR/$n.plan" $keys <<'PY'
import json, sys
r = json.loads(open(sys.argv[1]).readline())
p = json.load(open(sys.argv[2]))["plain"]
keys = sys.argv[3:] + ["folio_runs"]
if r["plain_pfn"] != "probed":
    # without PFNs both model the same synthetic layout
    keys += ["bios", "batches", "merge_tests", "bvecs", "same_page"]
bad = [k for k in keys if r["plain_" + k] != p[k]]
for k in bad:
    print("    plain_%s: report %s, plan %s" % (k, r["plain_" + k], p[k]))
sys.exit(1 if bad or not r["plain_adds"] else 0)
PY
	then
		t_ok "$n: $keys as hugebuf plan --plain --kernel=$km says ($(field "$n" plain_adds) adds)"
	else
		fail "$n: the report's plain counts differ from hugebuf plan --plain --kernel=$km"
	fi
	PRED=$(field "$n" requests_model)
	MEAS=$(python3 -c 'import json,sys; r=json.loads(open(sys.argv[1]).readline()); print(r["dev_reads"] // r["ios"])' \
		"$T_DIR/$n.report")
	if [ "$PRED" -gt 0 ] 2>/dev/null &&
		grep -qE "^hugebuf: $n: .* device requests per I/O .*; plain O_DIRECT model $PRED \(" \
			"$T_DIR/$n.err"; then
		t_ok "$n: the requests line has the plain prediction ($PRED), measured $MEAS per I/O"
	else
		fail "$n: requests_model '$PRED' is not on the requests line"
		PRED='' MEAS=''
		return
	fi
	rerun_while_disturbed "$n" "$b"
}

# The device's read count is the whole disk's: another reader of it (a
# guest's disk image read beside the test, a page cache miss) only adds
# requests, never takes one away.  A job that measured more than its
# prediction runs again, up to twice, and the last run is the one judged
# (its report and text); one that measured fewer is judged at once.
rerun_while_disturbed() {	# NAME BACKING
	local n=$1 b=$2 tries=1
	while [ "$MEAS" -gt "$PRED" ] 2>/dev/null && [ $tries -lt 3 ]; do
		echo "    $n: $MEAS requests per I/O measured, $PRED predicted: run again (the disk's count is shared)"
		t_fio "$n" --name="$n" $JOB --ioengine="$E" --backing="$b" \
			--fixedbufs=0 || return
		tries=$((tries + 1))
		# new pages: a 4k buffer's prediction follows its PFNs
		PRED=$(field "$n" requests_model)
		MEAS=$(python3 -c 'import json,sys; r=json.loads(open(sys.argv[1]).readline()); print(r["dev_reads"] // r["ios"])' \
			"$T_DIR/$n.report")
	done
}

# hugetlb 2M: predicted = measured, and the one verdict agrees
plain h hugetlb hugetlb:2M 'bios batches adds merge_tests releases'
if [ -n "$PRED" ]; then
	m=$(field h matches_model)
	if [ "$PRED" = "$MEAS" ] && [ "$m" = True ] &&
		grep -qE "^hugebuf: h: .*: $MEAS per I/O, coalesced [a-z]+, as modelled" \
			"$T_DIR/h.err"; then
		t_ok "hugetlb 2M: $PRED requests per I/O predicted, $MEAS measured, as modelled"
	else
		fail "hugetlb 2M: $PRED requests per I/O predicted, $MEAS measured, matches_model $m"
		grep -E '^hugebuf: h: ' "$T_DIR/h.err" | sed 's/^/    /'
	fi
fi

# 4k pages: the job reads one slot (iodepth 1), whose real PFNs the model
# read, so predicted = measured here too: several bios, split on their own,
# a short last one joining the request before it
plain p4 4k 4k 'adds releases'
if [ -n "$PRED" ]; then
	m=$(field p4 matches_model)
	if [ "$PRED" = "$MEAS" ] && [ "$m" = True ]; then
		t_ok "4k: $PRED requests per I/O predicted, $MEAS measured, as modelled"
	else
		fail "4k: $PRED requests per I/O predicted, $MEAS measured, matches_model $m"
		grep -E '^hugebuf: p4: ' "$T_DIR/p4.err" | sed 's/^/    /'
	fi
fi

# fixedbufs=1: the registered-buffer prediction, no plain model
if ! t_fio f $JOB --name=f --ioengine="$E" --backing=hugetlb; then
	fail "fixedbufs=1: fio failed: $(head -n 2 "$T_DIR/f.err")"
elif [ -z "$(field f plain_pfn)" ] && [ "$(field f plain_adds)" = 0 ] &&
	! grep -q 'plain O_DIRECT' "$T_DIR/f.err" &&
	grep -qE '^hugebuf: f: .*; model [0-9]+ \(uncoalesced' "$T_DIR/f.err"; then
	t_ok "fixedbufs=1: registered-buffer prediction, no plain model"
else
	fail "fixedbufs=1: the report has a plain model or lost its own"
	grep -E '^hugebuf: f: ' "$T_DIR/f.err" | sed 's/^/    /'
fi

t_done
