#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# make fuzz: build the libFuzzer targets of t/fuzz/ with clang
# (-fsanitize=fuzzer,address,undefined, lib/ instrumented too) and give
# each a time-boxed run from its seed corpus t/fuzz/corpus/<target>/.
# A crash, a sanitizer report or a model/reference mismatch (the targets
# abort() with "FINDING: ...") fails the target; the input is kept in the
# output directory.  The seed corpus in the tree is only read: new inputs
# go to a scratch copy.
#
# Environment:
#   FUZZ_SECONDS   seconds per target (default 60)
#   FUZZ_TARGETS   targets to run (default: every t/fuzz/fuzz-*.c)
#   FUZZ_OUT       build and work directory (default /tmp/hugebuf-fuzz)
#   FUZZ_JOBS      parallel fuzzing processes per target (default 1)
# Prints the executions of every target and ends with
# "N passed, N failed, N skipped" (one per target).
set -u

top=$(cd "$(dirname "$0")/../.." && pwd)
secs=${FUZZ_SECONDS:-60}
out=${FUZZ_OUT:-/tmp/hugebuf-fuzz}
cc=${FUZZ_CC:-clang}
passed=0
failed=0
skipped=0

finish() {
	echo "$passed passed, $failed failed, $skipped skipped"
	[ $failed = 0 ]
	exit
}

cd "$top" || exit 1
targets=${FUZZ_TARGETS:-$(ls t/fuzz/fuzz-*.c | sed "s|t/fuzz/||; s|\.c$||" | tr "\n" " ")}

if ! command -v "$cc" >/dev/null; then
	echo "SKIP: $cc not found: apt-get install clang (libFuzzer is part of it)"
	skipped=$(echo $targets | wc -w)
	finish
fi
if [ ! -f config-host.h ]; then
	echo "fuzz: not configured: run ./configure first"
	failed=1
	finish
fi

mkdir -p "$out/obj" || exit 1
san="-fsanitize=address,undefined -fno-sanitize-recover=all"
cflags="-std=gnu11 -g -O1 -fno-omit-frame-pointer -Wall -Wextra -Werror \
	-D_GNU_SOURCE -D_FILE_OFFSET_BITS=64 -Ilib/include -Ilib -It/fuzz \
	-include $top/config-host.h $san"
libs="-luring -ldl"

# lib/ with coverage feedback (fuzzer-no-link), then each target
build() {
	local objs= src o
	for src in lib/*/*.c; do
		o=$out/obj/$(basename "$src" .c).o
		$cc $cflags -fsanitize=fuzzer-no-link -c -o "$o" "$src" ||
			return 1
		objs="$objs $o"
	done
	# the CLI's objects but main.o (libFuzzer has the main()), for fuzz-cli
	local cliobjs=
	for src in cli/*.c; do
		[ "$src" = cli/main.c ] && continue
		o=$out/obj/cli-$(basename "$src" .c).o
		$cc $cflags -Icli -fsanitize=fuzzer-no-link -c -o "$o" "$src" ||
			return 1
		cliobjs="$cliobjs $o"
	done
	for t in $targets; do
		local extra=
		[ "$t" = fuzz-cli ] && extra="-Icli $cliobjs"
		# shellcheck disable=SC2086
		# the shared reference model of t/helpers/ (fuzz-model)
		$cc $cflags -It -fsanitize=fuzzer -o "$out/$t" "t/fuzz/$t.c" \
			t/helpers/refmodel.c $extra $objs $libs || return 1
	done
}

echo "fuzz: building $targets with $cc (libFuzzer + ASan + UBSan) in $out"
if ! build >"$out/build.log" 2>&1; then
	tail -n 30 "$out/build.log"
	echo "fuzz: build failed (log: $out/build.log)"
	failed=1
	finish
fi

total=0
for t in $targets; do
	seeds=t/fuzz/corpus/$t
	work=$out/corpus-$t
	rm -rf "$work"
	# findings of an earlier run are not this run's
	rm -rf "$out/artifacts-$t"
	mkdir -p "$work" "$out/artifacts-$t"
	[ -d "$seeds" ] && cp "$seeds"/* "$work"/ 2>/dev/null
	log=$out/$t.log
	jobs=
	[ "${FUZZ_JOBS:-1}" -gt 1 ] && jobs="-jobs=$FUZZ_JOBS -workers=$FUZZ_JOBS"
	# from $out: with -jobs libFuzzer writes fuzz-N.log to the cwd
	# shellcheck disable=SC2086
	(cd "$out" && "$out/$t" -max_total_time="$secs" -timeout=20 \
		-rss_limit_mb=2048 -print_final_stats=1 $jobs \
		-artifact_prefix="$out/artifacts-$t/" "$work") >"$log" 2>&1
	rc=$?
	[ -n "$jobs" ] && cat "$out"/fuzz-*.log >>"$log" 2>/dev/null
	execs=$(grep -E '^stat::number_of_executed_units:' "$log" |
		awk '{ s += $2 } END { print s + 0 }')
	units=$(ls "$work" | wc -l)
	total=$((total + execs))
	# a slow-unit- file is libFuzzer's timing report (an input over its
	# 10 s mark, which a busy machine reaches), not a fault: it is
	# listed, not counted; a hang still ends as a timeout- finding
	findings=$(ls "$out/artifacts-$t" | grep -vc '^slow-unit-')
	slow=$(ls "$out/artifacts-$t" | grep -c '^slow-unit-')
	[ "$slow" = 0 ] || echo "      note: $t: $slow slow input(s) kept in $out/artifacts-$t (timing, not a finding)"
	if [ $rc = 0 ] && [ "$findings" = 0 ]; then
		passed=$((passed + 1))
		printf 'PASS  %-14s %10s executions in %ss, corpus %s, 0 findings\n' \
			"$t" "$execs" "$secs" "$units"
	else
		failed=$((failed + 1))
		printf 'FAIL  %-14s %10s executions, exit %s, %s finding(s) in %s\n' \
			"$t" "$execs" "$rc" "$findings" "$out/artifacts-$t"
		grep -E 'FINDING|ERROR: |runtime error|SUMMARY' "$log" |
			head -n 5 | sed 's/^/      | /'
	fi
done
echo "fuzz: $total executions in total (logs in $out)"
finish
