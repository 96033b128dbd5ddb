#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# Each bad option or missing resource: fio exits non-zero and the engine's
# one-line message (cause and fix) is printed, with no crash or hang.
. "$(dirname "$0")/_fio-lib.sh"
t_require

F=$T_DIR/data
base() {
	echo --name=e --ioengine=external:"$HUGEBUF_ENGINE" --filename="$F" \
		--size=8M --rw=read --bs=1M --iodepth=2
}

# shellcheck disable=SC2046
t_expect_fail bad-backing "unknown backing 'bogus'" $(base) --backing=bogus
t_expect_fail mthp-no-size "backing=mthp needs hugepage_size" \
	$(base) --backing=mthp
t_expect_fail bs-over-1g "over the kernel's 1 GiB limit" \
	$(base) --bs=2G --size=2G --direct=1
t_expect_fail mem-conflict "mem=/iomem= cannot be used" \
	$(base) --mem=shmhuge
t_expect_fail require-4k "would not coalesce" \
	$(base) --backing=4k --coalesce_check=require
t_expect_fail dio-offset "is not a multiple of 512" \
	$(base) --direct=1 --head_offset=0x1234
t_expect_fail chunk-limit "at most 4096 are allowed" \
	$(base) --bs=64M --size=64M --chunk_size=4k --backing=4k

# no free hugepages: ask for more than the pool has free
free=$(t_free_hugepages)
t_expect_fail no-hugepages "free 2M hugepages" \
	$(base) --bs=8M --size=8M --iodepth=$((free / 4 + 8))
grep -q "nr_hugepages" "$T_DIR/no-hugepages.txt" ||
	fail "no-hugepages: the message does not name nr_hugepages"

# an mTHP size that is not enabled
for d in /sys/kernel/mm/transparent_hugepage/hugepages-*kB; do
	case "$d" in *-2048kB | *-1048576kB) continue ;; esac
	grep -q '\[never\]' "$d/enabled" 2>/dev/null || continue
	kb=${d##*/hugepages-}
	t_expect_fail mthp-disabled "is not enabled: echo madvise > $d/enabled" \
		$(base) --backing=mthp --hugepage_size="${kb%kB}K"
	break
done

# 1G pages
p1g=/sys/kernel/mm/hugepages/hugepages-1048576kB
if [ ! -d "$p1g" ]; then
	t_expect_fail no-1g "1G hugepages are not available" \
		$(base) --backing=hugetlb --hugepage_size=1G
elif [ "$(cat "$p1g/nr_hugepages")" = 0 ]; then
	t_expect_fail no-1g "no 1G hugepages are reserved" \
		$(base) --backing=hugetlb --hugepage_size=1G
else
	echo "skip: no-1g: this machine has 1G pages"
fi

# memlock: without CAP_IPC_LOCK, 16 MiB of buffers over an 8 MiB limit
if command -v setpriv >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
	t_expect_fail_cmd memlock "ulimit -l" setpriv --bounding-set=-ipc_lock \
		--inh-caps=-ipc_lock sh -c \
		"ulimit -l 8192 && exec $FIO $(base) --bs=8M --size=16M"
else
	echo "skip: memlock: needs root and setpriv to drop CAP_IPC_LOCK"
fi

# O_DIRECT on a file system without it (ramfs)
mnt=$T_DIR/ramfs
mkdir -p "$mnt"
if [ "$(id -u)" = 0 ] && mount -t ramfs none "$mnt" 2>/dev/null; then
	t_atexit "umount $mnt"
	t_expect_fail no-odirect "does not support O_DIRECT" \
		--name=e --ioengine=external:"$HUGEBUF_ENGINE" \
		--filename="$mnt/f" --size=4M --rw=read --bs=1M --direct=1
	umount "$mnt"
else
	echo "skip: no-odirect: cannot mount a ramfs (needs root)"
fi

t_done
