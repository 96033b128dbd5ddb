#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# hugebuf plan --plain, a pure model (nothing allocated):
#  - the text names the assumption of the synthetic layout (no PFNs), has
#    the plain counts, a requests line only with queue limits, and a
#    contrast line only where the other way of adding pages differs;
#  - --json parses; its plain object has requests only with queue limits;
#    its contrast is the plain model with plain_folio_runs flipped, so
#    6.1's contrast is 6.1+hugebuf's plain counts and the other way round
#    (the series adds folio runs and keeps 6.1's merge test);
#  - without --plain, plan's output has no plain part.
# The bad inputs (unaligned --offset or --size) are rows of t/badinput.tab.
. "$(dirname "$0")/_fio-lib.sh"
t_need_cli
t_need_cmd python3
t_tmpdir

# the buffer every case plans: 8 MiB of 2M hugetlb pages
ph() {
	"$HUGEBUF_CLI" plan --backing=hugetlb:2M --size=8M "$@"
}

# run NAME ARGS...: hugebuf ARGS to $T_DIR/NAME, exit 0 wanted
run() {
	r_n=$1
	shift
	if "$@" >"$T_DIR/$r_n" 2>"$T_DIR/$r_n.err"; then
		return 0
	fi
	fail "$*: exit $?: $(head -n 1 "$T_DIR/$r_n.err")"
	return 1
}

# ---- text ----
if run t61 ph --kernel=6.1 --plain; then
	if grep -q '^plain: .*no PFNs: folios never physically adjacent' "$T_DIR/t61" &&
		grep -qE '^  adds: +[0-9]+ \(4 KiB pages\)$' "$T_DIR/t61" &&
		grep -qE '^  contrast: +with folio runs: [0-9]+ adds' "$T_DIR/t61" &&
		! grep -q '^  requests:' "$T_DIR/t61"; then
		t_ok "6.1 text: assumption, page adds, contrast, no requests without limits ($(grep '^  contrast:' "$T_DIR/t61" | sed 's/^ *//'))"
	else
		fail "6.1 text lacks the assumption, the adds or the contrast, or has requests"
		sed 's/^/    /' "$T_DIR/t61"
	fi
fi
if run tq ph --kernel=6.12 --plain --queue-limits=4M,254,4G; then
	if grep -qE '^  adds: +[0-9]+ \(folio runs\)$' "$T_DIR/tq" &&
		grep -qE '^  requests: +[1-9][0-9]*$' "$T_DIR/tq" &&
		grep -qE '^  contrast: +page by page:' "$T_DIR/tq"; then
		t_ok "6.12 text with queue limits: folio runs, $(grep '^  requests:' "$T_DIR/tq" | sed 's/^ *//')"
	else
		fail "6.12 text with queue limits lacks folio runs, requests or contrast"
		sed 's/^/    /' "$T_DIR/tq"
	fi
fi
# 4 KiB folios: a run is one page, both ways add the same
if run t4k "$HUGEBUF_CLI" plan --backing=4k --size=1M --plain; then
	if grep -q '^  adds:' "$T_DIR/t4k" && ! grep -q '^  contrast:' "$T_DIR/t4k"; then
		t_ok "4k text: no contrast where both ways add the same"
	else
		fail "4k text: a contrast line, or no adds"
	fi
fi
if run tno ph; then
	if ! grep -q '^plain:' "$T_DIR/tno"; then
		t_ok "without --plain: no plain part"
	else
		fail "without --plain: plan printed a plain part"
	fi
fi

# ---- JSON ----
for k in 6.1 6.1+hugebuf 6.12; do
	f=$T_DIR/j$k
	if run "j$k" ph --kernel="$k" --plain --json; then
		if python3 -m json.tool "$f" >/dev/null; then
			t_ok "--kernel=$k --plain --json parses"
		else
			fail "--kernel=$k --plain --json does not parse: $(head -c 200 "$f")"
		fi
	fi
done
run jq ph --kernel=6.12 --plain --queue-limits=4M,254,4G --json
if msg=$(python3 - "$T_DIR/j6.1" "$T_DIR/j6.1+hugebuf" "$T_DIR/j6.12" "$T_DIR/jq" 2>&1 <<'PY'
import json, sys
a, b, c, q = (json.load(open(f)) for f in sys.argv[1:5])
pa, pb, pc, pq = a["plain"], b["plain"], c["plain"], q["plain"]
counts = ("bios", "batches", "adds", "merge_tests", "bvecs", "same_page",
          "releases", "max_bvecs")
bad = []
def same(x, y, what):
    d = [k for k in counts if x[k] != y[k]]
    if d:
        bad.append("%s: %s" % (what, ", ".join(
            "%s %s/%s" % (k, x[k], y[k]) for k in d)))
if pa["folio_runs"] or not pb["folio_runs"] or not pc["folio_runs"]:
    bad.append("folio_runs: 6.1 %s, 6.1+hugebuf %s, 6.12 %s" % (
        pa["folio_runs"], pb["folio_runs"], pc["folio_runs"]))
for p in (pa, pb, pc, pq):
    if p["contrast"]["folio_runs"] == p["folio_runs"]:
        bad.append("contrast.folio_runs is not flipped")
    if "requests" in p or "requests" in p["contrast"]:
        if p is not pq:
            bad.append("requests without queue limits")
if "requests" not in pq or "requests" not in pq["contrast"] or not pq["requests"]:
    bad.append("no requests with --queue-limits")
same(pa["contrast"], pb, "6.1's contrast vs 6.1+hugebuf")
same(pb["contrast"], pa, "6.1+hugebuf's contrast vs 6.1")
if pa["adds"] <= pb["adds"]:
    bad.append("6.1 adds %d not above the series' %d" % (pa["adds"], pb["adds"]))
print("; ".join(bad) if bad else "6.1 %d page adds, 6.1+hugebuf %d folio runs, 6.12 %d merge tests" %
      (pa["adds"], pb["adds"], pc["merge_tests"]))
sys.exit(1 if bad else 0)
PY
); then
	t_ok "JSON: contrast = the flag flipped, requests only with queue limits ($msg)"
else
	fail "JSON: the plain objects do not fit together: $msg"
fi

t_done
