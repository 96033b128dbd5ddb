#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
#
# What one registration does in the kernel, counted: bench/regbench -t
# (trace events of its own task, in a tracefs instance of its own) for a
# few backings and sizes, one buffer registered REPEAT times on the same
# mapping, the first being the mapping's first registration.
#
#   bench/regtrace.py [--backings B,..] [--sizes S,..] [--repeat N]
#                     [--runs N] [--memset] [--events SYS:EV,..]
#                     [--funcs F,..]
#                     [--json FILE]
#
# Prints one line per registration: the time, the trace time from the
# first to the last page allocation (the page array's, then the imu's:
# the pin and the coalescing check lie between them), the unregistration
# time, and the counts of the events that grow with the work: page and slab
# allocations (by order and bytes), vmalloc areas, faults, TLB flushes,
# compaction, context switches.  Root; it reserves nothing itself (the
# hugetlb backings need free 2 MiB hugepages).  bench/README.md
# ("Registration") has what it found on this machine.
import argparse
import json
import os
import subprocess
import sys

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REGBENCH = os.environ.get("HUGEBUF_REGBENCH",
                          os.path.join(TOP, "bench", "regbench"))
EVENTS = ("kmem:kmalloc,kmem:kfree,kmem:mm_page_alloc,kmem:mm_page_free,"
          "vmalloc:alloc_vmap_area,vmalloc:purge_vmap_area_lazy,"
          "exceptions:page_fault_user,exceptions:page_fault_kernel,"
          "tlb:tlb_flush,compaction:mm_compaction_begin,"
          "compaction:mm_compaction_try_to_compact_pages,"
          "migrate:mm_migrate_pages,sched:sched_switch")
# the columns: (heading, event key in regbench's JSON)
COLUMNS = (("kmalloc", "kmalloc"), ("kmalloc B", "kmalloc bytes"),
           ("pg o0", "mm_page_alloc order=0"),
           ("pg o7", "mm_page_alloc order=7"),
           ("pg o9", "mm_page_alloc order=9"),
           ("vmap", "alloc_vmap_area"), ("faults", "page_fault_user"),
           ("kfaults", "page_fault_kernel"), ("tlb", "tlb_flush"),
           ("compact", "mm_compaction_try_to_compact_pages"),
           ("switch", "sched_switch"))


def alloc_gap_us(ev):
    """The first to the last page allocation of the window: from the page
    array's (io_pin_pages()) to the imu's (io_alloc_imu()), with the pin
    and the coalescing check between them."""
    sp = ev.get("spans_us", {}).get("mm_page_alloc")
    return sp[1] - sp[0] if sp else None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--backings", default="hugetlb:2M,thp")
    ap.add_argument("--sizes", default="64M,256M,1G")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--runs", type=int, default=1,
                    help="fresh processes (mappings) per point")
    ap.add_argument("--memset", action="store_true")
    ap.add_argument("--events", default=EVENTS)
    ap.add_argument("--funcs", default="")
    ap.add_argument("--json")
    a = ap.parse_args()
    keep = open(a.json, "w") if a.json else None
    print("%-10s %-5s %3s %9s %9s %9s  %s" % (
        "backing", "size", "rep", "reg_us", "alloc_gap", "unreg_us",
        " ".join("%9s" % h for h, _ in COLUMNS)))
    rc = 0
    pts = [(b, s) for _ in range(a.runs) for b in a.backings.split(",")
           for s in a.sizes.split(",")]
    for b, s in pts:
        cmd = [REGBENCH, "-c", "one", "-r", str(a.repeat)]
        if a.memset:
            cmd.append("-m")
        if a.events:
            cmd += ["-t", a.events]
        if a.funcs:
            cmd += ["-f", a.funcs]
        p = subprocess.run(cmd + [b, s], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE)
        for line in p.stdout.decode(errors="replace").splitlines():
            r = json.loads(line)
            if keep:
                keep.write(json.dumps(r) + "\n")
            if "register_us" not in r:
                print("%-10s %-5s %s" % (b, s, r.get(
                    "error", r.get("skip"))))
                rc = 1
                continue
            ev = r.get("events", {})
            gap = alloc_gap_us(ev)
            print("%-10s %-5s %3d %9.0f %9s %9.0f  %s%s" % (
                b, s, r["rep"], r["register_us"],
                "%.0f" % gap if gap is not None else "-",
                r["unregister_us"],
                " ".join("%9d" % ev.get(k, 0) for _, k in COLUMNS),
                "  LOST" if ev.get("lost") else ""))
            if a.funcs:
                print("    functions: " + ", ".join(
                    "%s %d" % (f, ev.get(f, 0))
                    for f in a.funcs.split(",")))
        if p.returncode not in (0, 77):
            sys.stderr.write(p.stderr.decode(errors="replace"))
    if keep:
        keep.close()
    return rc


if __name__ == "__main__":
    sys.exit(main())

