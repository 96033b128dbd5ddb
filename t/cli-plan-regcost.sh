#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# hugebuf plan's registration cost, a pure model (nothing allocated):
#  - 1 GiB of 16 KiB mTHP in one buffer: the accounting scan is
#    n (n - 1) / 2 reads of its 65536 folios on 6.18 (coalesced: one
#    entry per folio), four times that per page on 6.1 (heads 4 pages
#    apart), none but 65536 lookups on 7.2 and on 6.1+hugebuf (the
#    series' per-ring count, io_uring 5/5);
#  - 64 buffers of 8 MiB: 64 times 512 * 511 / 2 in one call on 6.18
#    (the 6.13 table rework: the call's own buffers are not scanned), as
#    much as one 512 MiB buffer one by one, and on 6.12 in one call;
#  - the warning line (lib's bound) only where the scan is slow, in text
#    and JSON, and the JSON parses.
# The bad --buffers values are rows of t/badinput.tab.
. "$(dirname "$0")/_fio-lib.sh"
t_need_cli
t_need_cmd python3
t_tmpdir

# reads KERNEL ARGS...: the scan_reads and ring_lookups and whether a
# warning came, from plan --json
reads() {
	r_k=$1
	shift
	"$HUGEBUF_CLI" plan --kernel="$r_k" "$@" --json | python3 -c '
import json, sys
r = json.load(sys.stdin)["register"]
print(r["scan_reads"], r["ring_lookups"], "warning" in r, r["slow"])'
}

# expect WHAT WANT KERNEL ARGS...
expect() {
	e_what=$1
	e_want=$2
	shift 2
	e_got=$(reads "$@" 2>"$T_DIR/err") || {
		fail "$e_what: plan failed: $(head -n 1 "$T_DIR/err")"
		return
	}
	if [ "$e_got" = "$e_want" ]; then
		t_ok "$e_what: $e_got"
	else
		fail "$e_what: reads, lookups, warning, slow $e_got, expected $e_want"
	fi
}

n=65536
quad=$((n * (n - 1) / 2))
expect "1G of 16K on 6.18" "$quad 0 True True" 6.18 --backing=mthp:16K --size=1G
expect "1G of 16K on 6.1+hugebuf" "0 $n False False" 6.1+hugebuf \
	--backing=mthp:16K --size=1G
expect "1G of 16K on 6.1 (per page)" "$((4 * quad)) 0 True True" 6.1 \
	--backing=mthp:16K --size=1G
expect "1G of 16K on 7.2" "0 $n False False" 7.2 --backing=mthp:16K --size=1G
per=$((512 * 511 / 2))
expect "64 x 8M of 16K, one call, 6.18" "$((64 * per)) 0 False False" 6.18 \
	--backing=mthp:16K --size=8M --buffers=64
m=32768
expect "64 x 8M of 16K, one by one, 6.18" "$((m * (m - 1) / 2)) 0 True True" \
	6.18 --backing=mthp:16K --size=8M --buffers=64 --one-by-one
expect "64 x 8M of 16K, one call, 6.12" "$((m * (m - 1) / 2)) 0 True True" \
	6.12 --backing=mthp:16K --size=8M --buffers=64
expect "1G of 2M hugetlb on 6.18" "$((512 * 511 / 2)) 0 False False" 6.18 \
	--backing=hugetlb:2M --size=1G

# the text: the register and accounting lines, the warning on its own line
if "$HUGEBUF_CLI" plan --kernel=6.18 --backing=mthp:16K --size=1G \
	>"$T_DIR/t" 2>"$T_DIR/err"; then
	if grep -qE '^register: +1 buffer in one call: 262144 pages pinned, 65536 bvecs, 65536 compound heads$' "$T_DIR/t" &&
		grep -qE "^accounting: +$quad entries read by headpage_already_acct" "$T_DIR/t" &&
		grep -qE '^warning: +registering will take long: .*7\.2\+ kernel \(or 6\.1 with hugebuf.s series\)$' "$T_DIR/t"; then
		t_ok "text: register, accounting and warning lines"
	else
		fail "text lacks the register, accounting or warning line"
		sed 's/^/    /' "$T_DIR/t"
	fi
else
	fail "plan --kernel=6.18 --backing=mthp:16K --size=1G: exit $?"
fi
if "$HUGEBUF_CLI" plan --kernel=7.2 --backing=mthp:16K --size=1G >"$T_DIR/t72" &&
	grep -qE '^accounting: +65536 lookups' "$T_DIR/t72" &&
	! grep -q '^warning:' "$T_DIR/t72"; then
	t_ok "text on 7.2: lookups, no warning"
else
	fail "text on 7.2: no lookups line, or a warning"
fi

t_done
