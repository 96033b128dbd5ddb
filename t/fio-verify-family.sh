#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# second-fio: fio's verify code and io_uring engine of that release
#
# fio's verify family on the engine as on fio's io_uring engine: verify=
# with every algorithm, experimental_verify, verify_backlog, verify_async,
# verify_only and do_verify with randrw, buffered and direct.  Each row
# runs on both engines: same exit status, same bytes, error 0.
#
# Two rows show where fio 3.33's io_uring engine only seems to pass
# (engines/report.c hbe_warn_replay()): experimental_verify
# turns each replayed write into a read AFTER get_io_u() has already called
# ->prep, and io_uring builds its SQE there, so the "verify read" is a
# write of the expected data.  On a file zeroed behind fio's back, the
# engine (like psync) reports the damage and io_uring 3.33 passes; with
# norandommap a block written twice fails on the engine (correctly: the
# replay checks the first write) and passes on io_uring 3.33.  Both rows
# are EXPECTED differences on a fio that does not prep again after the
# flip (fio master does).
. "$(dirname "$0")/_fio-lib.sh"
t_require
t_need_hugepages 64

F=$T_DIR/vfile

# run TAG ENGINE ARGS...: sets RC and SUM ("error bytes")
run() {
	local tag=$1 eng=$2
	shift 2
	(cd "$T_DIR" && timeout -k 10 120 "$FIO" --output-format=json \
		--output="$T_DIR/$tag.json" --name="$tag" --filename="$F" \
		--ioengine="$eng" "$@" >"$T_DIR/$tag.out" 2>"$T_DIR/$tag.err")
	RC=$?
	# "error/bytes" (summary: "error bytes ios")
	SUM=$($T_CHECK summary "$T_DIR/$tag.json" | awk '{ print $1 "/" $2 }')
}

# row NAME [--pre ARGS... --] ARGS...: both engines, fresh file each time
row() {
	local name=$1 a b
	shift
	rm -f "$F"
	run "$name.uring" io_uring "$@"
	a="$RC/$SUM"
	rm -f "$F"
	run "$name.hb" "external:$HUGEBUF_ENGINE" "$@"
	b="$RC/$SUM"
	if [ "$a" = "$b" ] && [ "${a%%/*}" = 0 ] &&
		[ "$(echo "$a" | cut -d/ -f2)" = 0 ]; then
		t_ok "$(printf '%-28s %s' "$name" "$a")"
	else
		fail "$name: io_uring $a, hugebuf $b (rc/error/bytes)"
		grep -h 'verify\|hugebuf: .*\(error\|warning\)\|fio:' \
			"$T_DIR/$name".*.err | head -4 | sed 's/^/    /'
	fi
}

W="--size=4M --bs=16k --iodepth=8 --verify_fatal=1 --do_verify=1"
for alg in md5 crc64 crc32c crc32c-intel crc32 crc16 crc7 xxhash sha512 \
	sha256 sha1 sha3-224 sha3-256 sha3-384 sha3-512; do
	row "verify-$alg" --rw=randwrite --direct=1 $W --verify="$alg"
done
row verify-pattern --rw=randwrite --direct=1 $W --verify=pattern \
	--verify_pattern=0xdeadbeef
for io in 0 1; do
	d=buffered
	[ $io = 1 ] && d=direct
	row "randrw-do_verify-$d" --rw=randrw --direct=$io $W --verify=md5
	row "experimental-$d" --rw=randrw --direct=$io $W --verify=md5 \
		--experimental_verify=1
	row "backlog-$d" --rw=randwrite --direct=$io $W --verify=crc32c \
		--verify_backlog=16
	row "async-$d" --rw=randwrite --direct=$io $W --verify=md5 \
		--verify_async=2
done
row experimental-1m --rw=randrw --size=1M --verify=md5 --do_verify=1 \
	--experimental_verify=1

# verify_only: written once by io_uring, then verified by each engine
rm -f "$F"
run vo-write io_uring --rw=randwrite --direct=1 $W --verify=md5 --do_verify=0
for e in io_uring "external:$HUGEBUF_ENGINE"; do
	run "vo-${e%%:*}" "$e" --rw=randwrite --direct=1 $W --verify=md5 \
		--verify_only=1
	[ "$RC/${SUM%%/*}" = 0/0 ] && t_ok "verify_only on ${e%%:*}: $RC/$SUM" ||
		fail "verify_only on ${e%%:*}: $RC/$SUM"
done

# the check is real: zero the file, then experimental verify_only
rm -f "$F"
run zero-write io_uring --rw=randwrite --direct=1 $W --verify=md5 --do_verify=0
dd if=/dev/zero of="$F" bs=1M count=4 conv=notrunc status=none
run zero-hb "external:$HUGEBUF_ENGINE" --rw=randwrite --direct=1 $W \
	--verify=md5 --verify_only=1 --experimental_verify=1
if [ "$RC" != 0 ]; then
	t_ok "zeroed file, experimental verify_only: the engine reports it (rc $RC)"
else
	fail "zeroed file, experimental verify_only: the engine passed"
fi
run zero-uring io_uring --rw=randwrite --direct=1 $W --verify=md5 \
	--verify_only=1 --experimental_verify=1
[ "$RC" = 0 ] && echo "EXPECTED: io_uring $("$FIO" --version) passes the zeroed file (it writes during the replay)"

# norandommap + experimental_verify: the replay cannot verify overwrites
rm -f "$F"
run nrm-hb "external:$HUGEBUF_ENGINE" --rw=randrw --size=1M --verify=md5 \
	--do_verify=1 --experimental_verify=1 --norandommap
grep -q 'experimental_verify replays writes' "$T_DIR/nrm-hb.err" ||
	fail "norandommap + experimental_verify: no one-line warning"
[ "$RC" != 0 ] && echo "EXPECTED: norandommap + experimental_verify fails on the engine (overwritten blocks), as on psync"

t_done
