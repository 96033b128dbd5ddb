#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# bench/fragment.py's choice of the frames to free (pick()): every freed
# frame either has its buddy (PFN ^ 1) held by the same mapping or has
# no buddy there and no freed neighbour, no two freed frames are
# neighbours (PFN +- 1), and an even frame whose buddy is held is
# always freed; without PFNs (0: no CAP_SYS_ADMIN) the even pages by
# address.  Checked on hand-made frame lists and seeded random ones.
# Then one holder per CPU runs for 1 MiB and reports its frames.
. "$(dirname "$0")/_fio-lib.sh"
t_need_cmd python3

# pick's output on FRAMES (Python list syntax), as PFNs, must be WANT
picks() {
	got=$(python3 -c "import sys
sys.path.insert(0, '$T_TOP/bench')
import fragment
f = $1
print(' '.join(str(f[i]) for i in fragment.pick(f)))")
	if [ "$got" = "$2" ]; then
		t_ok "$3: frees [$got]"
	else
		fail "$3: frees [$got], want [$2]"
	fi
}

picks "[100, 101, 102, 103, 104, 105]" "100 102 104" \
	"an ascending run"
picks "[105, 104, 103, 102, 101, 100]" "100 102 104" \
	"a descending run (freed in ascending order)"
picks "[200, 203, 205, 206]" "200 203 205" \
	"lone frames: of the neighbours 205 and 206 one"
picks "[9, 10, 11]" "10" \
	"9 (buddy 8 not held) beside the freed 10 stays held"
picks "[10, 11, 12]" "10 12" \
	"12 (buddy 13 not held) two frames from the freed 10"
picks "[7, None, 8, 9]" "8" \
	"an absent page is skipped"
picks "[0, 0, None, 0, 0]" "0 0" \
	"no PFNs: the even present pages by address"

# seeded random lists: the properties, not a fixed answer
out=$(python3 -c "import random, sys
sys.path.insert(0, '$T_TOP/bench')
import fragment
rng = random.Random(44)
bad = 0
for n in range(300):
    owned = rng.sample(range(1, 4000), rng.randint(1, 1500))
    f = [p if rng.random() > 0.05 else None for p in owned]
    idx = fragment.pick(f)
    where = set(p for p in f if p is not None)
    freed = [f[i] for i in idx]
    fs = set(freed)
    why = None
    if len(fs) != len(idx) or None in fs:
        why = 'an index twice or an absent page'
    elif any(p + 1 in fs for p in fs):
        why = 'two neighbouring frames freed'
    elif any(p ^ 1 in fs for p in fs):
        why = 'both frames of a buddy pair freed'
    elif any(p % 2 == 0 and p + 1 in where and p not in fs for p in where):
        why = 'an even frame with its buddy held was kept'
    elif any(p ^ 1 not in where and (p - 1 in fs or p + 1 in fs)
             for p in fs):
        why = 'a frame without its buddy freed beside a freed one'
    if why:
        bad += 1
        print('list %d: %s' % (n, why))
print('bad %d' % bad)")
case "$out" in
"bad 0") t_ok "300 seeded random lists: every property holds" ;;
*) fail "random lists: $(echo "$out" | head -n 3 | tr '\n' ' ')" ;;
esac

# the holders: one per CPU, each frees its frames and reports them
cpus=$(python3 -c "import os; print(len(os.sched_getaffinity(0)))")
out=$(python3 "$T_TOP/bench/fragment.py" 1 2>&1)
unmov=$(echo "$out" | sed -n "s/.*'unmovable_pages': \([0-9]*\).*/\1/p")
n=$(echo "$out" | sed -n "s/.*'cpus': \([0-9]*\).*/\1/p")
if [ "$n" = "$cpus" ] && [ "$unmov" = $((cpus * 256)) ]; then
	t_ok "fragment.py 1: $n holders, 256 unmovable frames freed each"
else
	fail "fragment.py 1: $out (want $cpus holders," \
		"$((cpus * 256)) unmovable frames)"
fi

t_done
