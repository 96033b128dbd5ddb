#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Fragmented free lists for a 4 KiB job (bench's "fragmented" pair).

Before the job starts, one holder process per online CPU, pinned to it,
leaves isolated order-0 frames on the CPU's two lists a 4 KiB buffer is
drawn from, and holds their buddies until the job has ended:
  - movable: anonymous memory (MADV_NOHUGEPAGE: no huge page even with
    THP enabled=always), every page faulted in, then one frame of each
    buddy pair freed (MADV_DONTNEED), as hugebuf's backing=4k buffers
    are faulted by being written;
  - unmovable: pages of pairs of pipes, one pipe of each pair drained,
    as the pages io_uring_register_buffers() faults in itself (fio's
    untouched mem=malloc buffers of a read job), see hold_unmovable().

The page allocator this models (6.18, mm/page_alloc.c):
  - an order-0 allocation takes the head of the CPU's per-CPU list of
    its migrate type (__rmqueue_pcplist()); an empty list is refilled
    from the buddy lists, smallest order first (rmqueue_bulk());
  - a freed order-0 page goes to the head of the freeing CPU's list
    (free_unref_folios()), and an overfull list gives its tail back to
    the buddy lists (free_pcppages_bulk());
  - a frame given back to the buddy lists merges with its buddy
    (PFN ^ 1 at order 0) only when that buddy is free too
    (__free_one_page()).
So a freed frame whose buddy stays held cannot merge, and if no two
freed frames are neighbours, no two pages the job draws from them
follow each other, in whatever order the lists hand them out.

Which pages to free needs their PFNs (/proc/self/pagemap, as root).
Without them every other page by address is freed: the holder's own
pages are mostly drawn in runs, where that is the same choice.

  fragment.py --hold CPU PAGES   a holder: frees PAGES isolated frames
                                 of each kind on CPU, prints "ready
                                 FREED HELD UNMOVABLE" and holds the
                                 rest until stdin closes
  fragment.py MIB                one holder per CPU for MIB MiB each,
                                 reports, frees it all again
"""
import fcntl
import mmap
import os
import resource
import struct
import subprocess
import sys
import time

PAGE = 4096
PRESENT = 1 << 63
PFN_MASK = (1 << 55) - 1
# how many frames each holder frees per page of the job's buffers, on
# each of the two lists: the whole buffer on every CPU (the job's
# thread may fault on either) and a quarter more for fio's own
# allocations (bench/README.md, "A matched baseline for the 4 KiB
# pair"); HUGEBUF_BENCH_FRAG sets another
FACTOR = 1.25
F_SETPIPE_SZ = 1031


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


def hold_unmovable(want):
    """@want isolated unmovable frames on this CPU's lists, from pairs
    of pipes: one page written to each in turn, so frames handed out in
    a run alternate between them; then the first of each pair drained.
    A pipe page is alloc_page(GFP_HIGHUSER | __GFP_ACCOUNT) (6.18
    fs/pipe.c, anon_pipe_get_page()): order 0 and unmovable, the lists
    io_uring_register_buffers() draws from when it faults a buffer in
    itself, as for fio's untouched malloc() buffers of a read job:
    __gup_longterm_locked() (mm/gup.c) runs under memalloc_pin_save(),
    and current_gfp_context() then drops __GFP_MOVABLE.  The pipes are
    returned to hold the other half."""
    page = b"\0" * PAGE
    pairs = []
    # pages per pipe: a larger pipe than fs.pipe-max-size needs
    # CAP_SYS_RESOURCE (pipe_set_size()); four descriptors per pair
    slots = int(open("/proc/sys/fs/pipe-max-size").read()) // PAGE
    lim = resource.getrlimit(resource.RLIMIT_NOFILE)
    fds = 4 * -(-want // slots) + 64
    if lim[0] < fds:
        if lim[1] != resource.RLIM_INFINITY and lim[1] < fds:
            sys.exit("fragment: %d pipe descriptors wanted, RLIMIT_NOFILE "
                     "is %d: raise it (ulimit -n) or lower "
                     "HUGEBUF_BENCH_FRAG" % (fds, lim[1]))
        resource.setrlimit(resource.RLIMIT_NOFILE, (fds, lim[1]))
    while want > 0:
        n = min(want, slots)
        pair = os.pipe() + os.pipe()
        for fd in (pair[1], pair[3]):
            fcntl.fcntl(fd, F_SETPIPE_SZ, n * PAGE)
        pairs.append((pair, n))
        want -= n
    # every pipe written before any is drained: a page written after a
    # drain would take the drained frame back
    for (rd, wr, rd2, wr2), n in pairs:
        for _ in range(n):
            os.write(wr, page)
            os.write(wr2, page)
    freed = 0
    for (rd, wr, rd2, wr2), n in pairs:
        left = n * PAGE
        while left:
            left -= len(os.read(rd, min(left, 1 << 20)))
        freed += n
    return freed, pairs


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
    freed, pipes = hold_unmovable(want)
    sys.stdout.write("ready %d %d %d\n" % (len(idx), n - len(idx), freed))
    sys.stdout.flush()
    sys.stdin.read()


class Holders:
    """One holder per online CPU, each freeing @pages isolated frames;
    release() ends them (their memory goes back)."""

    def __init__(self, pages):
        t0 = time.monotonic()
        self.procs = []
        self.freed = self.held = self.unmovable = 0
        cmd = [sys.executable, os.path.abspath(__file__), "--hold"]
        try:
            for cpu in sorted(os.sched_getaffinity(0)):
                self.procs.append(subprocess.Popen(
                    cmd + [str(cpu), str(pages)], stdin=subprocess.PIPE,
                    stdout=subprocess.PIPE))
            for p in self.procs:
                line = p.stdout.readline().split()
                if len(line) != 4 or line[0] != b"ready":
                    raise OSError("fragment: a holder exited (%s): not "
                                  "enough memory?" % p.wait())
                self.freed += int(line[1])
                self.held += int(line[2])
                self.unmovable += int(line[3])
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
                "held_pages": self.held, "unmovable_pages": self.unmovable,
                "secs": round(self.secs, 3)}


def factor():
    """HUGEBUF_BENCH_FRAG's factor, or FACTOR (0: no fragmented runs)"""
    v = os.environ.get("HUGEBUF_BENCH_FRAG", "")
    try:
        f = float(v) if v else FACTOR
    except ValueError:
        sys.exit("fragment: HUGEBUF_BENCH_FRAG=%s is not a number: give "
                 "0 (off) or the frames per buffer page, e.g. 1.25" % v)
    if f < 0:
        sys.exit("fragment: HUGEBUF_BENCH_FRAG=%s is negative: give 0 "
                 "(off) or the frames per buffer page, e.g. 1.25" % v)
    return f


def pages_for(buf_bytes):
    """The frames each holder frees, of each kind, for a job of
    @buf_bytes buffers."""
    return int(factor() * buf_bytes) // PAGE


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
