#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Bad input: every row of t/badinput.tab (invalid CLI arguments and engine
# options) must end with the expected non-zero exit, no crash, and one
# message line that names the option and matches the row's pattern.  Rows
# marked "known:" are reported bugs: XFAIL while wrong, XPASS once fixed.
#
# HB_BADINPUT_ONLY=cli|engine runs one part (check-asan runs the CLI rows
# with the ASan CLI).  Skips (77) when neither part can run.
set -u
. "$(dirname "$0")/_reliability-lib.sh"

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
	r_skip "neither the CLI ($HUGEBUF_CLI) nor fio + the engine are there: run make"
r_tmpdir
data=$R_DIR/bad.dat

trim() {
	local s=$1
	s=${s#"${s%%[![:space:]]*}"}
	s=${s%"${s##*[![:space:]]}"}
	printf '%s' "$s"
}

# run_row KIND ARGS OUTFILE: prints the exit status
run_row() {
	local kind=$1 args=$2 out=$3
	# shellcheck disable=SC2086
	case $kind in
	cli)
		"$HUGEBUF_CLI" $args >"$out.stdout" 2>"$out"
		;;
	*)
		"$FIO" --name=bad --ioengine=external:"$HUGEBUF_ENGINE" \
			--filename="$data" --size=16M --bs=1M --iodepth=2 \
			--direct=1 --rw=read $args --output="$out.stdout" \
			>"$out" 2>&1
		;;
	esac
	echo $?
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

if [ $have_engine = 1 ]; then
	# the data file once, so rows do not lay it out again
	"$FIO" --name=layout --filename="$data" --size=16M --rw=write \
		--bs=1M --output=/dev/null >/dev/null 2>&1 ||
		r_fail_now "cannot create $data with fio"
fi

n=0
while IFS= read -r line; do
	case "$line" in '#'* | '') continue ;; esac
	n=$((n + 1))
	kind=$(trim "$(echo "$line" | awk -F ' [|] ' '{ print $1 }')")
	want=$(trim "$(echo "$line" | awk -F ' [|] ' '{ print $2 }')")
	args=$(trim "$(echo "$line" | awk -F ' [|] ' '{ print $3 }')")
	pattern=$(trim "$(echo "$line" | awk -F ' [|] ' '{ print $4 }')")
	known=$(trim "$(echo "$line" | awk -F ' [|] ' '{ print $5 }')")
	case $kind in
	cli) [ $have_cli = 1 ] || continue ;;
	engine | fio) [ $have_engine = 1 ] || continue ;;
	*) echo "FAIL  row $n: unknown kind '$kind'"; failed=$((failed + 1)); continue ;;
	esac
	out=$R_DIR/row$n.out
	rc=$(run_row "$kind" "$args" "$out")
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

echo "badinput: $n rows: $passed held, $failed failed, $skipped known bugs (XFAIL)"
echo "$passed passed, $failed failed, $skipped skipped"
[ $failed = 0 ] || exit 1
[ $passed -gt 0 ] || exit 77
exit 0
