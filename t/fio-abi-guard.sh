#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# second-fio: each engine loaded into the other fio release
#
# The engine's load-time guard (hbe_check_fio_release() in
# engines/hugebuf.c): fio has no stable engine ABI and its own ops-version
# check misses releases that changed struct layouts without a bump, so an
# engine built for one fio must refuse to run inside another.
# t/hugebuf-abitest.so is the engine built as if for "fio-0.0-abitest"
# (make tests).  Inside the real fio it must be refused before any hook
# runs: a job exits non-zero with one "hugebuf: error:" line naming both
# releases and the rebuild command, writes nothing, and --enghelp is
# refused the same way; the engine built for this fio loads and runs.
# With HUGEBUF_OTHER_FIO and HUGEBUF_OTHER_ENGINE (a second fio release and
# the engine built for it) each engine is also loaded into the other fio.
. "$(dirname "$0")/_fio-lib.sh"
t_require
WRONG=$T_TOP/t/hugebuf-abitest.so
[ -f "$WRONG" ] || t_fail_now "$WRONG is missing: run make"
running=$("$FIO" --version 2>/dev/null)
[ -n "$running" ] || skip "$FIO --version printed nothing"
F=$T_DIR/data
head -c 4194304 /dev/urandom >"$F"
sum0=$(cksum <"$F")
line="hugebuf: error: this engine was built for fio-0.0-abitest and cannot run inside $running: rebuild it against $running's source"

# guard_refused NAME OUT RC [LINE]: fio failed, with exactly one guard
# line (LINE, default the abitest engine's)
guard_refused() {
	want=${4:-$line}
	n=$(grep -cF -- "$want" "$2")
	if [ "$3" != 0 ] && [ "$3" -lt 124 ] && [ "$n" = 1 ] &&
		[ "$(grep -c '^hugebuf: error:' "$2")" = 1 ]; then
		t_ok "$1: refused, $(grep -F -- "$want" "$2" | cut -c1-100)..."
	else
		fail "$1: exit $3, $n guard lines; output:"
		sed 's/^/    /' "$2" | head -8
	fi
}

(cd "$T_DIR" && timeout -k 10 120 "$FIO" --name=wrong \
	--ioengine="external:$WRONG" --filename="$F" --size=4M --bs=1M \
	--rw=write --direct=1) >"$T_DIR/wrong.out" 2>&1
guard_refused "a write job inside $running" "$T_DIR/wrong.out" $?
[ "$(cksum <"$F")" = "$sum0" ] && t_ok "the refused write job wrote nothing" ||
	fail "the refused write job changed $F"
grep -q '^hugebuf: wrong:' "$T_DIR/wrong.out" &&
	fail "the refused engine reported a job (a hook ran)" ||
	t_ok "no hook of the refused engine ran (no report)"

timeout -k 10 60 "$FIO" --enghelp="$WRONG" >"$T_DIR/help.out" 2>&1
guard_refused "--enghelp inside $running" "$T_DIR/help.out" $?

(cd "$T_DIR" && timeout -k 10 120 "$FIO" --name=right \
	--ioengine="external:$HUGEBUF_ENGINE" --filename="$F" --size=4M \
	--bs=1M --rw=read --direct=1 --backing=4k) >"$T_DIR/right.out" 2>&1
rc=$?
if [ $rc = 0 ] && ! grep -q 'was built for' "$T_DIR/right.out"; then
	t_ok "the engine built for $running loads and runs"
else
	fail "the engine built for $running: exit $rc"
	sed 's/^/    /' "$T_DIR/right.out" | head -8
fi
# two real releases: the engine built for the other fio inside this one,
# and this one's engine inside the other (tools/fio-build.sh --check sets
# both; built_for reads the release an engine names in fio's error)
if [ -z "${HUGEBUF_OTHER_FIO:-}" ] || [ -z "${HUGEBUF_OTHER_ENGINE:-}" ]; then
	t_skip_check "one fio here: the cross-load of two real releases runs in tools/fio-build.sh --check"
else
	other=$("$HUGEBUF_OTHER_FIO" --version 2>/dev/null)
	if [ "$other" = "$running" ]; then
		t_skip_check "HUGEBUF_OTHER_FIO is the same release ($running)"
	else
		(cd "$T_DIR" && timeout -k 10 120 "$FIO" --name=cross \
			--ioengine="external:$HUGEBUF_OTHER_ENGINE" \
			--filename="$F" --size=4M --bs=1M --rw=write \
			--direct=1) >"$T_DIR/cross1.out" 2>&1
		guard_refused "the $other engine inside $running" \
			"$T_DIR/cross1.out" $? \
			"hugebuf: error: this engine was built for $other and cannot run inside $running"
		(cd "$T_DIR" && timeout -k 10 120 "$HUGEBUF_OTHER_FIO" \
			--name=cross --ioengine="external:$HUGEBUF_ENGINE" \
			--filename="$F" --size=4M --bs=1M --rw=write \
			--direct=1) >"$T_DIR/cross2.out" 2>&1
		guard_refused "the $running engine inside $other" \
			"$T_DIR/cross2.out" $? \
			"hugebuf: error: this engine was built for $running and cannot run inside $other"
		[ "$(cksum <"$F")" = "$sum0" ] &&
			t_ok "the refused cross-loaded jobs wrote nothing" ||
			fail "a refused cross-loaded job changed $F"
	fi
fi
t_done
