#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Fragmented free lists for a 4 KiB job (bench's "fragmented" pair).

Before the job starts, one holder process per online CPU, pinned to it,
maps anonymous memory (MADV_NOHUGEPAGE: no huge page even with THP
enabled=always), faults every page in, then frees one page of each pair
of buddy frames it holds and keeps the other.  The job then draws its
order-0 pages from lists of isolated frames; when it has ended, the
holders exit and free the rest.

The page allocator this models (6.18, mm/page_alloc.c):
  - an order-0 fault takes the head of the faulting CPU's per-CPU list
    (__rmqueue_pcplist());
  - a freed order-0 page goes to the head of the freeing CPU's list
    (free_unref_folios() -> free_frame_to_pcp... list_add()), and an
    overfull list gives its tail back to the buddy lists
    (free_pcppages_bulk());
  - a frame given back to the buddy lists merges with its buddy
    (PFN ^ 1 at order 0) only when that buddy is free too
    (__free_one_page()).
So a freed frame whose buddy stays held cannot merge, and frames freed
in ascending PFN order are handed out descending, two or more frames
apart: no two pages the job draws from them are neighbours either way.

Which pages to free needs their PFNs (/proc/self/pagemap, as root).
Without them every other page by address is freed: the holder's own
pages are mostly drawn in runs, where that is the same choice.

  fragment.py --hold CPU PAGES   a holder: frees PAGES isolated frames
                                 on CPU, prints "ready FREED HELD" and
                                 holds the rest until stdin closes
  fragment.py MIB                one holder per CPU for MIB MiB each,
                                 reports, frees it all again
"""
import mmap
import os
import struct
import subprocess
import sys
import time

PAGE = 4096
PRESENT = 1 << 63
PFN_MASK = (1 << 55) - 1
# how many pages each holder frees per MiB of the job's buffers: the
# whole buffer on every CPU (the job's thread may fault on either), and
# as much again for fio's own allocations and the holder's shortfall
# (bench/README.md, "A matched baseline for the 4 KiB pair")
FACTOR = 2


def pick(frames):
    """The indexes of the pages to free, in the order to free them.

    @frames: the PFN of each page of a mapping, None where not present
    and 0 where unknown (no CAP_SYS_ADMIN).  With PFNs, two kinds of
    frame, the first kind first:
      - an even frame whose buddy (PFN + 1) is this mapping's too: the
        buddy stays held, so the freed frame cannot merge at order 0;
      - a frame whose buddy is not this mapping's and neither of whose
        neighbours (PFN - 1, PFN + 1) is freed: it can merge only with
        a buddy someone else frees.
    No two freed frames are neighbours, so however a list hands them
    out, no two pages drawn from them follow each other; they are freed
    in ascending PFN order.  Without PFNs: the even pages by address
    (a holder's own pages are mostly drawn in runs, where that is the
    same choice)."""
    if any(p == 0 for p in frames):
        return [i for i in range(0, len(frames), 2)
                if frames[i] is not None]
    where = {p: i for i, p in enumerate(frames) if p is not None}
    paired = [p for p in sorted(where) if p % 2 == 0 and p + 1 in where]
    chosen = set(paired)
    lone = []
    for p in sorted(where):
        if p ^ 1 in where or p - 1 in chosen or p + 1 in chosen:
            continue
        chosen.add(p)
        lone.append(p)
    return [where[p] for p in paired + lone]


def own_frames(lo, n):
    """The PFNs of this process's @n pages from address @lo."""
    with open("/proc/self/pagemap", "rb") as f:
        f.seek(lo // PAGE * 8)
        raw = f.read(n * 8)
    return [e & PFN_MASK if e & PRESENT else None
            for (e,) in struct.iter_unpack("<Q", raw)]


# MADV_POPULATE_WRITE (5.14): the kernel faults the range in, in
# address order, as writes would; Python's mmap module lacks the name
MADV_POPULATE_WRITE = 23


def fault_in(m):
    """Every page of @m written, in address order, 4 KiB pages only."""
    m.madvise(mmap.MADV_NOHUGEPAGE)
    try:
        m.madvise(MADV_POPULATE_WRITE)
    except OSError:
        for off in range(0, len(m), PAGE):
            m[off] = 1


def hold(cpu, want):
    """A holder on @cpu: fault in twice @want pages (and a margin for
    frames whose buddy is not its own), free @want isolated frames of
    them, hold the rest until stdin closes.  All are faulted in before
    any is freed: a fault after a free would take that frame back."""
    import ctypes
    os.sched_setaffinity(0, {cpu})
    n = 2 * want + want // 8 + 256
    m = mmap.mmap(-1, n * PAGE, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
    fault_in(m)
    lo = ctypes.addressof(ctypes.c_char.from_buffer(m))
    # the first @want of pick()'s order, then freed in ascending PFN
    # order (a subset keeps pick()'s no-neighbours property)
    fr = own_frames(lo, n)
    idx = sorted(pick(fr)[:want], key=lambda i: fr[i] or i)
    for i in idx:
        m.madvise(mmap.MADV_DONTNEED, i * PAGE, PAGE)
    sys.stdout.write("ready %d %d\n" % (len(idx), n - len(idx)))
    sys.stdout.flush()
    sys.stdin.read()


class Holders:
    """One holder per online CPU, each freeing @pages isolated frames;
    release() ends them (their memory goes back)."""

    def __init__(self, pages):
        t0 = time.monotonic()
        self.procs = []
        self.freed = self.held = 0
        cmd = [sys.executable, os.path.abspath(__file__), "--hold"]
        try:
            for cpu in sorted(os.sched_getaffinity(0)):
                self.procs.append(subprocess.Popen(
                    cmd + [str(cpu), str(pages)], stdin=subprocess.PIPE,
                    stdout=subprocess.PIPE))
            for p in self.procs:
                line = p.stdout.readline().split()
                if len(line) != 3 or line[0] != b"ready":
                    raise OSError("fragment: a holder exited (%s): not "
                                  "enough memory?" % p.wait())
                self.freed += int(line[1])
                self.held += int(line[2])
        except BaseException:
            self.release()
            raise
        self.secs = time.monotonic() - t0

    def release(self):
        for p in self.procs:
            try:
                p.stdin.close()
            except OSError:
                pass
        for p in self.procs:
            p.wait()
        self.procs = []

    def summary(self):
        return {"cpus": len(self.procs), "freed_pages": self.freed,
                "held_pages": self.held, "secs": round(self.secs, 3)}


def pages_for(buf_bytes):
    """The frames each holder frees for a job of @buf_bytes buffers."""
    return FACTOR * buf_bytes // PAGE


def main():
    a = sys.argv[1:]
    if len(a) == 3 and a[0] == "--hold":
        hold(int(a[1]), int(a[2]))
        return
    if len(a) != 1 or not a[0].isdigit():
        sys.exit("fragment: usage: fragment.py MIB (or --hold CPU PAGES)")
    h = Holders(int(a[0]) << 20 >> 12)
    print("fragment: %s" % h.summary())
    h.release()


if __name__ == "__main__":
    main()
