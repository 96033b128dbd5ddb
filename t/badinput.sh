#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# second-fio: fio's option parser (the engine and fio rows)
#
# Bad input: every row of t/badinput.tab, the one table of invalid CLI
# arguments, engine options and missing resources, must end with the
# expected non-zero exit, no crash, and one message line that names the
# option (or the resource and its fix) and matches the row's pattern.
# Rows marked "known:" are reported bugs: XFAIL while wrong, XPASS once
# fixed.  Rows whose "needs:" this machine cannot meet are SKIPs.
#
# HB_BADINPUT_ONLY=cli|engine runs one part (check-asan runs the CLI rows
# with the ASan CLI).  Skips (77) when neither part can run.
set -u
. "$(dirname "$0")/_fio-lib.sh"

tab=$T_TOP/t/badinput.tab
only=${HB_BADINPUT_ONLY:-}
passed=0
failed=0
skipped=0
have_cli=0
have_engine=0
[ -x "$HUGEBUF_CLI" ] && have_cli=1
[ -f "$HUGEBUF_ENGINE" ] && command -v "$FIO" >/dev/null && have_engine=1
[ "$only" = engine ] && have_cli=0
[ "$only" = cli ] && have_engine=0
[ $have_cli = 1 ] || [ $have_engine = 1 ] ||
	skip "neither the CLI ($HUGEBUF_CLI) nor fio + the engine are there: run make"
t_tmpdir cd
data=$T_DIR/bad.dat

trim() {
	local s=$1
	s=${s#"${s%%[![:space:]]*}"}
	s=${s%"${s##*[![:space:]]}"}
	printf '%s' "$s"
}

# the values of the table's @NAME@ placeholders, computed once
placeholders() {
	local d kb
	# 8 MiB buffers take 4 pages each: ask for more than are free
	POOL_OVER=$(($(t_free_hugepages) / 4 + 8))
	MTHP_OFF=
	for d in /sys/kernel/mm/transparent_hugepage/hugepages-*kB; do
		case "$d" in *-2048kB | *-1048576kB) continue ;; esac
		grep -q '\[never\]' "$d/enabled" 2>/dev/null || continue
		kb=${d##*/hugepages-}
		MTHP_OFF=${kb%kB}K
		break
	done
	RAMFS=
	if [ "$(id -u)" = 0 ] && mkdir -p "$T_DIR/ramfs" &&
		mount -t ramfs none "$T_DIR/ramfs" 2>/dev/null; then
		RAMFS=$T_DIR/ramfs
		t_atexit "umount $RAMFS"
	fi
}

subst() {
	local s=$1
	s=${s//@POOL_OVER@/$POOL_OVER}
	s=${s//@MTHP_OFF@/$MTHP_OFF}
	s=${s//@RAMFS@/$RAMFS}
	printf '%s' "$s"
}

# unmet NEEDS: prints why the row cannot run here, nothing when it can
unmet() {
	local w p1g=/sys/kernel/mm/hugepages/hugepages-1048576kB
	for w in $1; do
		case $w in
		root) [ "$(id -u)" = 0 ] || { echo "needs root"; return; } ;;
		ramfs) [ -n "$RAMFS" ] || { echo "cannot mount a ramfs (needs root)"; return; } ;;
		mthp-off) [ -n "$MTHP_OFF" ] ||
			{ echo "no mTHP size is offered and disabled"; return; } ;;
		no-free-1g)
			[ "$(cat "$p1g/free_hugepages" 2>/dev/null || echo 0)" = 0 ] ||
				[ -w "$p1g/nr_hugepages" ] ||
				{ echo "this machine has free 1G pages (root empties the pool for the row)"; return; } ;;
		nocap-memlock=*)
			[ "$(id -u)" = 0 ] && command -v setpriv >/dev/null ||
				{ echo "needs root and setpriv to drop CAP_IPC_LOCK"; return; } ;;
		*) echo "unknown need '$w'"; return ;;
		esac
	done
}

# nocap_memlock KB CMD...: CMD without CAP_IPC_LOCK, RLIMIT_MEMLOCK KB
nocap_memlock() {
	local kb=$1
	shift
	setpriv --bounding-set=-ipc_lock --inh-caps=-ipc_lock \
		bash -c 'ulimit -l "$0" && exec "$@"' "$kb" "$@"
}

# run_row KIND ARGS OUTFILE NEEDS: prints the exit status
run_row() {
	local kind=$1 args=$2 out=$3 needs=$4 w wrap= rc
	for w in $needs; do
		case $w in
		# without CAP_IPC_LOCK RLIMIT_MEMLOCK counts (io_account_mem)
		nocap-memlock=*) wrap="nocap_memlock ${w#*=}" ;;
		esac
	done
	# no free 1G page: as root, the pool is emptied for the row and given
	# back after it (the runner reserves 1G pages for the cases that need
	# them); the pool is not touched when it has no free page already
	case " $needs " in
	*" no-free-1g "*) empty_1g_pool ;;
	esac
	# shellcheck disable=SC2086
	case $kind in
	cli)
		"$HUGEBUF_CLI" $args >"$out.stdout" 2>"$out"
		;;
	*)
		(cd "$T_DIR" && $wrap "$FIO" --name=bad \
			--ioengine=external:"$HUGEBUF_ENGINE" \
			--filename="$data" --size=16M --bs=1M --iodepth=2 \
			--direct=1 --rw=read $args --output="$out.stdout") \
			>"$out" 2>&1
		;;
	esac
	rc=$?
	restore_1g_pool
	echo $rc
}

P1G=/sys/kernel/mm/hugepages/hugepages-1048576kB
# run_row runs in a command substitution: it gives the pool back itself
P1G_SAVED=
empty_1g_pool() {
	[ "$(cat "$P1G/free_hugepages" 2>/dev/null || echo 0)" != 0 ] || return 0
	P1G_SAVED=$(cat "$P1G/nr_hugepages")
	echo 0 >"$P1G/nr_hugepages"
}

restore_1g_pool() {
	[ -n "$P1G_SAVED" ] || return 0
	echo "$P1G_SAVED" >"$P1G/nr_hugepages"
	P1G_SAVED=
}

# check_row: prints nothing when the row holds, else what is wrong
check_row() {
	local kind=$1 want=$2 pattern=$3 rc=$4 out=$5 lines
	if [ "$rc" -ge 128 ]; then
		echo "killed by signal $((rc - 128))"
		return
	fi
	if [ "$want" = nz ]; then
		[ "$rc" != 0 ] || { echo "exit 0, wanted non-zero"; return; }
	elif [ "$rc" != "$want" ]; then
		echo "exit $rc, wanted $want"
		return
	fi
	case $kind in
	cli)
		lines=$(wc -l <"$out")
		[ "$lines" = 1 ] || { echo "$lines lines on stderr, wanted 1"; return; }
		grep -q '^hugebuf: ' "$out" || { echo "message does not start with 'hugebuf: '"; return; }
		[ ! -s "$out.stdout" ] || { echo "usage error also wrote to stdout"; return; }
		grep -qE -e "$pattern" "$out" || echo "message does not match /$pattern/"
		;;
	engine)
		lines=$(grep -c '^hugebuf: ' "$out")
		[ "$lines" = 1 ] || { echo "$lines 'hugebuf: ' lines, wanted 1"; return; }
		grep '^hugebuf: ' "$out" | grep -qE -e "$pattern" ||
			echo "message does not match /$pattern/"
		;;
	fio)
		grep -qE -e "$pattern" "$out" || echo "fio's message does not match /$pattern/"
		;;
	esac
}

# empty unless the engine part computes them (CLI rows use none)
POOL_OVER= MTHP_OFF= RAMFS=
if [ $have_engine = 1 ]; then
	# the data file once, so rows do not lay it out again
	"$FIO" --name=layout --filename="$data" --size=16M --rw=write \
		--bs=1M --output=/dev/null >/dev/null 2>&1 ||
		t_fail_now "cannot create $data with fio"
	placeholders
fi

n=0
while IFS= read -r line; do
	case "$line" in '#'* | '') continue ;; esac
	n=$((n + 1))
	# fields split by " | " (a pattern may hold a bare "|")
	IFS=$'\x1f' read -r kind want args pattern f5 f6 <<<"${line// | /$'\x1f'}"
	kind=$(trim "$kind")
	want=$(trim "$want")
	args=$(trim "$args")
	pattern=$(trim "$pattern")
	needs=
	known=
	for f in "$(trim "${f5:-}")" "$(trim "${f6:-}")"; do
		case $f in
		needs:*) needs=${f#needs:} ;;
		known:*) known=$f ;;
		esac
	done
	case $kind in
	cli) [ $have_cli = 1 ] || continue ;;
	engine | fio) [ $have_engine = 1 ] || continue ;;
	*) echo "FAIL  row $n: unknown kind '$kind'"; failed=$((failed + 1)); continue ;;
	esac
	why=$(unmet "$needs")
	if [ -n "$why" ]; then
		skipped=$((skipped + 1))
		printf 'SKIP   %-6s %s: %s\n' "$kind" "$args" "$why"
		continue
	fi
	args=$(subst "$args")
	pattern=$(subst "$pattern")
	out=$T_DIR/row$n.out
	rc=$(run_row "$kind" "$args" "$out" "$needs")
	why=$(check_row "$kind" "$want" "$pattern" "$rc" "$out")
	msg=$(grep -m1 -E '^(hugebuf|fio): ' "$out" | cut -c1-150)
	if [ -z "$why" ] && [ -z "$known" ]; then
		passed=$((passed + 1))
		printf 'PASS   %-6s %s\n' "$kind" "$args"
	elif [ -z "$why" ]; then
		failed=$((failed + 1))
		printf 'XPASS  %-6s %s: fixed, remove the known: mark of this row\n' "$kind" "$args"
	elif [ -n "$known" ]; then
		skipped=$((skipped + 1))
		printf 'XFAIL  %-6s %s: %s (%s)\n' "$kind" "$args" "$why" "${known#known: }"
	else
		failed=$((failed + 1))
		printf 'FAIL   %-6s %s: %s\n' "$kind" "$args" "$why"
		sed 's/^/       | /' "$out" | head -n 6
	fi
	[ -n "$msg" ] && [ "${HB_BADINPUT_VERBOSE:-0}" = 1 ] && echo "       $msg"
done <"$tab"

echo "badinput: $n rows: $passed held, $failed failed, $skipped known bugs (XFAIL) or not possible here (SKIP)"
echo "$passed passed, $failed failed, $skipped skipped"
T_PASSED=$passed
T_FAILED=$failed
T_SKIPPED=$skipped
[ "$skipped" = 0 ] || t_add_reason "known bugs (XFAIL) or rows not possible here"
t_done
