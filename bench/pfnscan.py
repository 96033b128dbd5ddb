# SPDX-License-Identifier: GPL-2.0-only
"""Physical contiguity of another process's I/O buffers, as root: the
mappings of /proc/PID/maps whose size fits the buffers, their PFNs from
/proc/PID/pagemap (bit 63 present, bits 0-54 the PFN; 0 without
CAP_SYS_ADMIN), counted as lib's hb_contig_measure() counts them: runs
of consecutive frames, the longest, and the pairs of neighbouring pages
whose second frame follows the first.  Only present pages are counted,
and a pair only where both pages are present.

This is how bench measures fio's built-in engine, whose buffers lib
never sees: fio allocates them as one block of iodepth x bs (mem=malloc:
malloc(), a mapping of its own from 128 KiB; mem=shmhuge: a SysV
segment), so the mapping the buffers live in is the one of that size."""

import struct

PRESENT = 1 << 63
PFN_MASK = (1 << 55) - 1
PAGE = 4096
# how much larger than the buffers their mapping may be: malloc's header
# page, hugebuf's 2 MiB-aligned 4k mapping, a segment rounded to 2 MiB
SLACK = (2 << 20) + (64 << 10)


def buffer_mappings(pid, total):
    """(start, end) of the private or SysV mappings of [total, total +
    SLACK) bytes: anonymous, the heap or a SysV segment."""
    out = []
    with open("/proc/%d/maps" % pid) as f:
        for line in f:
            parts = line.split()
            lo, hi = (int(x, 16) for x in parts[0].split("-"))
            name = parts[5] if len(parts) > 5 else ""
            if not parts[1].startswith("rw"):
                continue
            if name and name != "[heap]" and not name.startswith("/SYSV") \
                    and not name.startswith("/anon_hugepage"):
                continue
            if total <= hi - lo < total + SLACK:
                out.append((lo, hi))
    return out


def pfns(pid, lo, hi):
    """The PFN of every page of [lo, hi), None where not present."""
    n = (hi - lo) // PAGE
    with open("/proc/%d/pagemap" % pid, "rb") as f:
        f.seek(lo // PAGE * 8)
        raw = f.read(n * 8)
    out = []
    for (e,) in struct.iter_unpack("<Q", raw):
        out.append(e & PFN_MASK if e & PRESENT else None)
    return out


def measure(frames):
    """hb_contig's counts over one mapping's frames (None: absent)."""
    c = {"pages": 0, "pairs": 0, "adjacent": 0, "runs": 0, "longest": 0,
         "descending": 0, "known": True}
    run, prev = 0, None
    for p in frames:
        if p is None:
            prev, run = None, 0
            continue
        if p == 0:
            c["known"] = False
        c["pages"] += 1
        if prev is not None:
            c["pairs"] += 1
        if prev is not None and p + 1 == prev:
            # frames handed out in reverse: a freed run served LIFO
            c["descending"] += 1
        if prev is not None and p == prev + 1:
            c["adjacent"] += 1
            run += 1
        else:
            c["runs"] += 1
            run = 1
        c["longest"] = max(c["longest"], run)
        prev = p
    return c


def scan(pid, total):
    """The contiguity of @pid's buffer mappings of about @total bytes,
    summed, or None when there is none (or it cannot be read)."""
    try:
        maps = buffer_mappings(pid, total)
        sums = None
        used = 0
        for lo, hi in maps:
            frames = pfns(pid, lo, hi)
            # the buffers are faulted in and pinned; a thread's stack of
            # the same size has a few pages
            if sum(1 for p in frames if p is not None) * PAGE < 0.9 * total:
                continue
            c = measure(frames)
            used += 1
            if sums is None:
                sums = c
                continue
            for k in ("pages", "pairs", "adjacent", "runs", "descending"):
                sums[k] += c[k]
            sums["longest"] = max(sums["longest"], c["longest"])
            sums["known"] &= c["known"]
    except (OSError, ValueError):
        return None
    if not sums or not sums["pages"] or not sums["known"]:
        return None
    sums["share"] = sums["adjacent"] / sums["pairs"] if sums["pairs"] \
        else 1.0
    sums["mappings"] = used
    sums["source"] = "pagemap"
    return sums
