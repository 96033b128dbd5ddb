#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
#
# Where a 4 KiB buffer's physical contiguity comes from (issue 44): the
# allocation patterns of fio's mem=malloc and of hugebuf's backing=4k,
# each right after the page allocator's free lists were left in a known
# state, measured from /proc/self/pagemap (as root).
#
#   contigexp.py [REPS] [MIB]
#
# Patterns (MIB bytes each, default 8):
#   hugebuf-4k   lib's alloc_4k(): a 2 MiB-aligned mapping, MADV_NOHUGEPAGE,
#                every page written in address order by the process
#   malloc-pin   fio's mem=malloc read job: malloc(), untouched until the
#                kernel faults it in one call on the process's behalf, as
#                io_uring_register_buffers() does (here
#                process_vm_writev(), which pins the pages in order too)
#   malloc-fill  malloc() and memset(), as fio fills a write job's buffers
# Free-list states made just before:
#   as-is        whatever the machine's other work left
#   freed-order  64 MiB faulted in and unmapped at once (freed in order)
#   freed-random 64 MiB faulted in, freed page by page in random order
# Each cell: the share of neighbouring pages whose frames follow each
# other (ascending) and that of frames one below the last (descending),
# median (min-max) over REPS.
import ctypes
import mmap
import os
import random
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pfnscan  # noqa: E402

PAGE = 4096
libc = ctypes.CDLL(None, use_errno=True)
libc.malloc.restype = ctypes.c_void_p
libc.malloc.argtypes = [ctypes.c_size_t]
libc.free.argtypes = [ctypes.c_void_p]
libc.memset.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_size_t]
# a fixed threshold: glibc would otherwise raise it to the size of the
# first buffer it unmaps, and serve the next one from the heap, already
# faulted in; fio's one allocation per job is a fresh mapping
M_MMAP_THRESHOLD = -3
libc.mallopt(M_MMAP_THRESHOLD, 128 << 10)


class IoVec(ctypes.Structure):
    _fields_ = [("base", ctypes.c_void_p), ("len", ctypes.c_size_t)]


def frames(addr, length):
    lo = addr // PAGE * PAGE
    hi = (addr + length + PAGE - 1) // PAGE * PAGE
    return pfnscan.pfns(os.getpid(), lo, hi)


def shares(fr):
    fr = [p for p in fr if p]
    pairs = max(len(fr) - 1, 1)
    up = sum(1 for a, b in zip(fr, fr[1:]) if b == a + 1)
    down = sum(1 for a, b in zip(fr, fr[1:]) if b + 1 == a)
    return up / pairs, down / pairs


def hugebuf_4k(length):
    m = mmap.mmap(-1, length + (2 << 20))
    base = ctypes.addressof(ctypes.c_char.from_buffer(m))
    off = -base % (2 << 20)
    m.madvise(mmap.MADV_NOHUGEPAGE, off, length)
    for o in range(off, off + length, PAGE):
        m[o] = 1
    r = shares(frames(base + off, length))
    m.close()
    return r


def malloc_pin(length):
    p = libc.malloc(length)
    src = ctypes.create_string_buffer(length)
    loc = IoVec(ctypes.addressof(src), length)
    rem = IoVec(p, length)
    n = libc.process_vm_writev(os.getpid(), ctypes.byref(loc), 1,
                               ctypes.byref(rem), 1, 0)
    if n != length:
        raise OSError(ctypes.get_errno(), "process_vm_writev")
    r = shares(frames(p, length))
    libc.free(p)
    return r


def malloc_fill(length):
    p = libc.malloc(length)
    libc.memset(p, 1, length)
    r = shares(frames(p, length))
    libc.free(p)
    return r


def freed_order():
    m = mmap.mmap(-1, 64 << 20)
    m.madvise(mmap.MADV_NOHUGEPAGE)
    for o in range(0, len(m), PAGE):
        m[o] = 1
    m.close()


def freed_random():
    m = mmap.mmap(-1, 64 << 20)
    m.madvise(mmap.MADV_NOHUGEPAGE)
    for o in range(0, len(m), PAGE):
        m[o] = 1
    offs = list(range(0, len(m), PAGE))
    random.shuffle(offs)
    for o in offs:
        m.madvise(mmap.MADV_DONTNEED, o, PAGE)
    m.close()


PATTERNS = (("hugebuf-4k", hugebuf_4k), ("malloc-pin", malloc_pin),
            ("malloc-fill", malloc_fill))
STATES = (("as-is", lambda: None), ("freed-order", freed_order),
          ("freed-random", freed_random))


def pcp_lists():
    """Per CPU: pages on the Normal zone's per-CPU lists, and their high
    mark (/proc/zoneinfo 'pagesets')."""
    out, zone, cpu = [], None, None
    for line in open("/proc/zoneinfo"):
        f = line.split()
        if f[:1] == ["Node"]:
            zone = f[3]
        elif f[:1] == ["cpu:"]:
            cpu = int(f[1])
        elif zone == "Normal" and f[:1] == ["count:"]:
            out.append([cpu, int(f[1]), 0])
        elif zone == "Normal" and f[:1] == ["high:"] and out:
            out[-1][2] = int(f[1])
    return out


def cell(v):
    return "%3.0f%% (%.0f-%.0f)" % (100 * statistics.median(v),
                                   100 * min(v), 100 * max(v))


def main():
    reps = int(sys.argv[1]) if len(sys.argv) > 1 else 5
    length = (int(sys.argv[2]) if len(sys.argv) > 2 else 8) << 20
    if os.geteuid():
        sys.exit("contigexp: the PFNs need CAP_SYS_ADMIN: run as root")
    random.seed(44)
    res = {}
    # states and patterns interleaved, so drift of the machine hits all
    for _ in range(reps):
        for sname, state in STATES:
            for pname, pattern in PATTERNS:
                state()
                res.setdefault((sname, pname), []).append(pattern(length))
    for cpu, count, high in pcp_lists():
        print("cpu %d: %d pages on its Normal zone lists, high %d (%d MiB)"
              % (cpu, count, high, high * PAGE >> 20))
    print("%-13s %-12s %-18s %-18s" % ("free lists", "pattern",
                                       "ascending", "descending"))
    for sname, _ in STATES:
        for pname, _ in PATTERNS:
            v = res[(sname, pname)]
            print("%-13s %-12s %-18s %-18s" % (
                sname, pname, cell([a for a, _ in v]),
                cell([d for _, d in v])))


if __name__ == "__main__":
    main()
