#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
#
# Tables, Markdown report and gnuplot plots from bench.py's results
# (one JSON object per line).  Run on its own to redo the report:
#   python3 bench/report.py bench/out/results-full.jsonl bench/out
import json
import math
import os
import shutil
import statistics
import subprocess
import sys

# one reading of sizes for every bench script (units.py)
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from units import GIB, KIB, MIB, parse_size, size_str  # noqa: E402,F401

METRICS = ("mibs", "cpu_gib", "cpu_run_gib", "p50", "p99", "req_io")
# the engine's defaults: what the key rows compare
DEFAULT_HB = "hugebuf hugetlb fixed"


def med(v):
    return statistics.median(v) if v else float("nan")


def fmt_num(x, nd=0):
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "-"
    if nd == 0:
        return "%.0f" % x
    return "%.*f" % (nd, x)


def fmt_cpu(x):
    if x is None or math.isnan(x):
        return "-"
    if x >= 0.1:
        return "%.3f" % x
    return "%.4f" % x


def fmt_range(v, f):
    if not v:
        return "-"
    return "%s (%s–%s)" % (f(med(v)), f(min(v)), f(max(v)))


def fmt_ratio(v):
    if not v:
        return "-"
    return "%.2f× (%.2f–%.2f)" % (med(v), min(v), max(v))


def fmt_ratio_short(v):
    if not v:
        return "-"
    return "%.2fx" % med(v)


def spread_pct(v):
    m = med(v)
    return 100.0 * (max(v) - min(v)) / m if v and m else float("nan")


class Data:
    def __init__(self, path):
        self.meta, self.end = {}, {}
        self.sweep, self.chunk, self.reg, self.cli = {}, {}, {}, {}
        self.vec, self.clone = {}, {}
        self.entries = {}
        # bench/regbench: (backing, size, case) -> {round: first rep}
        self.rb = {}
        for line in open(path):
            line = line.strip()
            if not line:
                continue
            r = json.loads(line)
            t = r.get("type")
            if t == "meta":
                self.meta = r
            elif t == "end":
                self.end = r
            elif t == "sweep":
                self.sweep.setdefault((r["rw"], r["bs"], r["config"]),
                                      {})[r["round"]] = r
            elif t == "chunk":
                self.chunk.setdefault((r["rw"], r["bs"], r["chunk"]),
                                      {})[r["round"]] = r
            elif t == "reg":
                self.reg.setdefault((r["backing"], r["bufsize"]),
                                    {})[r["round"]] = r
            elif t == "cli":
                self.cli[(r["backing"], r["bufsize"])] = r
            elif t == "vec":
                self.vec.setdefault(r["variant"], {})[r["round"]] = r
            elif t == "clone":
                self.clone.setdefault(r["variant"], {})[r["round"]] = r
            elif t == "regbench":
                if "error" in r or "skip" in r or r.get("rep", 0):
                    continue
                self.rb.setdefault((r["backing"], r["size"], r["case"]),
                                   {})[r.get("round", 0)] = r
            elif t == "entries":
                self.entries.setdefault(
                    (r["rw"], r["bs"], r["iodepth"], r["config"]),
                    {})[r["round"]] = r
        self.configs = self.meta.get("configs", [])
        self.builtin = set(self.meta.get("builtin", []))
        self.hugebuf = [c for c in self.configs if c not in self.builtin]
        # run after bench/fragment.py: compared with each other only
        self.fragmented = set(self.meta.get("fragmented", []))
        # run at a few points only (fragmented, pinned): no sweep curve
        self.limited = self.fragmented | \
            set(self.meta.get("point_limited", []))
        self.drawn = [c for c in self.hugebuf if c not in self.limited]
        pts = []
        for rw, bs, _ in self.sweep:
            if (rw, bs) not in pts:
                pts.append((rw, bs))
        self.points = sorted(pts, key=lambda p: (p[0], parse_size(p[1])))

    def depth(self, rw, bs):
        """The iodepth of a sweep point (meta's exceptions, else the
        default)."""
        for x in self.meta.get("point_iodepth", []):
            f = x.split()
            if f[0] == rw and f[1] == bs:
                return int(f[-1])
        return self.meta.get("iodepth", 0)

    def cpu_windows(self):
        """Per point, the min-max length in seconds of the CPU windows
        of its runs (the steady interval bench.py times the CPU over)."""
        out = []
        for rw, bs in self.points:
            w = [r.get("window", 0.0) for (pw, pb, _), runs in
                 self.sweep.items() if (pw, pb) == (rw, bs)
                 for r in runs.values() if r.get("window")]
            if w:
                out.append("%s %s %.1f–%.1f s" % (rw, bs, min(w), max(w)))
        return out

    def entry_points(self):
        pts = []
        for rw, bs, depth, _ in self.entries:
            if (rw, bs, depth) not in pts:
                pts.append((rw, bs, depth))
        return sorted(pts, key=lambda p: (p[0], parse_size(p[1]), p[2]))

    def entry_vals(self, rw, bs, depth, cfg):
        runs = self.entries.get((rw, bs, depth, cfg), {})
        return [runs[k]["per_io"] for k in sorted(runs)
                if runs[k].get("per_io") is not None]

    def entry_configs(self):
        """(hugebuf's, the built-in's) configuration of the entry runs"""
        cs = sorted(set(k[3] for k in self.entries))
        hb = [c for c in cs if c.startswith("hugebuf")]
        bi = [c for c in cs if not c.startswith("hugebuf")]
        return (hb[0] if hb else None), (bi[0] if bi else None)

    def entry_ratios(self, rw, bs, depth):
        hb, bi = self.entry_configs()
        a = self.entries.get((rw, bs, depth, hb), {})
        b = self.entries.get((rw, bs, depth, bi), {})
        return [a[k]["per_io"] / b[k]["per_io"] for k in sorted(set(a) & set(b))
                if a[k].get("per_io") is not None and b[k].get("per_io")]

    def vals(self, rw, bs, cfg, m):
        runs = self.sweep.get((rw, bs, cfg), {})
        return [runs[k][m] for k in sorted(runs)
                if runs[k].get(m) is not None]

    def ran(self, rw, bss):
        """The configurations of a table of @rw at @bss: every one but a
        fragmented or pinned one that ran at none of them"""
        return [c for c in self.configs if c not in self.limited or
                any(self.vals(rw, bs, c, "mibs") for bs in bss)]

    def contig(self, rw, bs, cfg):
        """Per round: the share of neighbouring buffer pages whose frames
        are neighbours (None where not measured)."""
        runs = self.sweep.get((rw, bs, cfg), {})
        return {k: (runs[k].get("contig") or {}).get("share")
                for k in runs}

    def contig_cell(self, rw, bs, cfg):
        """'36%' (median) or '36-78%' (min-max), '?' when not measured"""
        v = [x for x in self.contig(rw, bs, cfg).values() if x is not None]
        if not v:
            return "?"
        lo, hi = 100 * min(v), 100 * max(v)
        if round(lo) == round(hi):
            return "%.0f%%" % lo
        return "%.0f-%.0f%%" % (lo, hi)

    def best_builtin(self, rw, bs):
        """(highest-bandwidth built-in, lowest-CPU-per-GiB built-in)"""
        b = [c for c in self.configs if c in self.builtin
             and c not in self.fragmented and self.vals(rw, bs, c, "mibs")]
        if not b:
            return None, None
        bw = max(b, key=lambda c: med(self.vals(rw, bs, c, "mibs")))
        cpu = min(b, key=lambda c: med(self.vals(rw, bs, c, "cpu_gib")))
        return bw, cpu

    def pair(self, cfg):
        """The built-in configuration with the same memory and buffer
        mode: 4k <-> malloc, thp/hugetlb <-> shmhuge (2M)."""
        parts = cfg.split()
        mem = "malloc" if parts[1] == "4k" else "shmhuge"
        ref = "io_uring %s %s" % (mem, parts[2])
        if cfg in self.fragmented:
            # the built-in run after the fragmenter too
            return next((b for b in sorted(self.fragmented) if b in
                         self.builtin and b.startswith(ref + " ")), None)
        return ref if ref in self.builtin else None

    def ratios(self, rw, bs, cfg, ref, m):
        """Per-round ratios cfg/ref: runs of one round were neighbours
        in time."""
        a = self.sweep.get((rw, bs, cfg), {})
        b = self.sweep.get((rw, bs, ref), {})
        out = []
        for k in sorted(set(a) & set(b)):
            if a[k].get(m) is not None and b[k].get(m):
                out.append(a[k][m] / b[k][m])
        return out


# ------------------------------------------------------------------ #
# console                                                              #
# ------------------------------------------------------------------ #

def per_round_ratio(a, b, m):
    """a[m] / b[m] for the rounds both have."""
    return [a[k][m] / b[k][m] for k in a if k in b and b[k].get(m)
            and a[k].get(m) is not None]


# contiguity bands of the 4 KiB comparison: both sides in one band
# are "matched"; the edges are round shares, not tuned to a result
BANDS = ((0.0, 0.25, "scattered (<25%)"), (0.25, 0.75, "mixed (25-75%)"),
         (0.75, 1.01, "contiguous (>=75%)"))


def band(share):
    for lo, hi, name in BANDS:
        if share is not None and lo <= share < hi:
            return name
    return None


def contig_rounds(d, rw, bs, c, pr):
    """Per round of (c, pr): (bw ratio, cpu ratio, c's share, pr's)"""
    a = d.sweep.get((rw, bs, c), {})
    b = d.sweep.get((rw, bs, pr), {})
    out = []
    for k in sorted(set(a) & set(b)):
        if not b[k].get("mibs"):
            continue
        bw = a[k]["mibs"] / b[k]["mibs"]
        cpu = a[k]["cpu_gib"] / b[k]["cpu_gib"] \
            if a[k].get("cpu_gib") and b[k].get("cpu_gib") else None
        sa = (a[k].get("contig") or {}).get("share")
        sb = (b[k].get("contig") or {}).get("share")
        out.append((bw, cpu, sa, sb))
    return out


def contig_bands(rounds):
    """{band: [bw ratios]} of the rounds whose two sides share a band,
    and the number of rounds that do not"""
    out, unmatched = {}, 0
    for bw, _, sa, sb in rounds:
        if band(sa) and band(sa) == band(sb):
            out.setdefault(band(sa), []).append(bw)
        else:
            unmatched += 1
    return out, unmatched


def fourk_pairs(d):
    return [(c, d.pair(c)) for c in d.hugebuf
            if c.split()[1] == "4k" and d.pair(c)]


def contig_lines(d):
    """Console: the 4 KiB rows per round with both sides' contiguity."""
    L = []
    for c, pr in fourk_pairs(d):
        for rw, bs in d.points:
            rounds = contig_rounds(d, rw, bs, c, pr)
            if not rounds:
                continue
            cells = ["%.2fx [%s/%s]" % (
                bw, "?" if sa is None else "%.0f%%" % (100 * sa),
                "?" if sb is None else "%.0f%%" % (100 * sb))
                for bw, _, sa, sb in rounds]
            L.append("%s / %s %s %s: %s" % (
                c, pr.replace("io_uring ", ""), rw, bs, ", ".join(cells)))
    if L:
        L.insert(0, "4 KiB like for like per round: bandwidth ratio "
                 "[hugebuf's / built-in's contiguity]:")
        L.append("")
    return L


def contig_markdown(d, rw):
    """The 4 KiB comparison per contiguity band, and its spread."""
    L = []
    for c, pr in fourk_pairs(d):
        rows = []
        for bs in [b for (w, b) in d.points if w == rw]:
            rounds = contig_rounds(d, rw, bs, c, pr)
            if not rounds:
                continue
            bands, unmatched = contig_bands(rounds)
            row = [bs]
            for _, _, name in BANDS:
                row.append(fmt_ratio(bands.get(name, [])))
            row.append(str(unmatched))
            row.append(", ".join("%.2f× [%s/%s]" % (
                bw, "?" if sa is None else "%.0f%%" % (100 * sa),
                "?" if sb is None else "%.0f%%" % (100 * sb))
                for bw, _, sa, sb in rounds))
            rows.append(row)
        if not rows:
            continue
        L.append("\n#### %s against %s by physical contiguity\n" % (
            c, pr.replace("io_uring ", "")))
        L.append("Bandwidth ratio of the rounds whose two sides fall in "
                 "the same band of adjacent neighbouring pages; rounds "
                 "in different bands are counted, not compared.  The "
                 "page allocator decides a 4 KiB buffer's runs: what "
                 "the free lists hold when it is faulted in "
                 "(docs/lib-notes.md, \"Physical contiguity of 4 KiB "
                 "buffers\"), so the spread of this ratio across rounds "
                 "follows the contiguity each side drew.\n")
        L.append(md_table(["bs"] + [n for _, _, n in BANDS] +
                          ["unmatched", "per round [hugebuf/built-in]"],
                          rows))
    return L


def vec_rows(d):
    rows = []
    base = d.vec.get("fixed", {})
    for v in ("fixed", "vectored"):
        runs = d.vec.get(v)
        if not runs:
            continue
        mb = [r["mibs"] for r in runs.values()]
        cpu = [r["cpu_gib"] for r in runs.values() if r.get("cpu_gib")]
        rows.append([v, fmt_range(mb, fmt_num),
                     fmt_ratio(per_round_ratio(runs, base, "mibs"))
                     if v != "fixed" else "1",
                     fmt_cpu(med(cpu)) if cpu else "-",
                     fmt_ratio(per_round_ratio(runs, base, "cpu_gib"))
                     if v != "fixed" else "1",
                     "%.2f" % min(r["req_io"] for r in runs.values())])
    return rows


def clone_rows(d):
    rows = []
    for v in ("off", "split", "same"):
        runs = d.clone.get(v)
        if not runs:
            continue
        rows.append([v, "%d" % max(r["vmpin_max_kb"] for r in runs.values()),
                     fmt_range([r["ready_usec_max"] / 1000.0
                                for r in runs.values()],
                               lambda x: "%.1f" % x),
                     fmt_range([r["register_usec_sum"] / 1000.0
                                for r in runs.values()],
                               lambda x: "%.2f" % x),
                     fmt_range([r["mibs"] for r in runs.values()],
                               fmt_num)])
    return rows


VEC_HEAD = ["8M randread, hugetlb", "MiB/s", "bw vs fixed", "CPU-s/GiB",
            "cpu vs fixed", "req/IO"]
CLONE_HEAD = ["clone_buffers (4 jobs)", "VmPin max kB",
              "ready ms (slowest job)", "register+clone ms (all jobs)",
              "MiB/s (all)"]


def extra_lines(d):
    out = []
    for head, rows in ((VEC_HEAD, vec_rows(d)), (CLONE_HEAD, clone_rows(d))):
        if not rows:
            continue
        out.append("  ".join("%-22s" % h for h in head))
        for r in rows:
            out.append("  ".join("%-22s" % c for c in r))
        out.append("")
    return out


def entry_cell(d, rw, bs, cfg):
    """The sweep table's ent/IO: the entry runs' median at the point's
    block size and depth, for the configurations they ran."""
    v = d.entry_vals(rw, bs, d.depth(rw, bs), cfg)
    return "%.3f" % med(v) if v else "-"


# the CPU targets: 4 KiB randread (CPU per I/O = CPU per GiB at one block
# size) and 8 MiB read and write
CPU_POINTS = (("randread", "4K"), ("randread", "8M"), ("randwrite", "8M"))


def cpu_rows(d):
    """hugebuf's defaults against the built-in: per-round ratios of
    CPU (leanest built-in) and bandwidth/IOPS (fastest), with the load
    average over the point's runs."""
    rows = []
    for rw, bs in CPU_POINTS:
        bw_ref, cpu_ref = d.best_builtin(rw, bs)
        if not bw_ref or not d.vals(rw, bs, DEFAULT_HB, "mibs"):
            continue
        loads = [r["load"] for (a, b, _), runs in d.sweep.items()
                 if (a, b) == (rw, bs) for r in runs.values()]
        rows.append(["%s %s iodepth %d" % (rw, bs, d.depth(rw, bs)),
                     "%s: %s" % (cpu_ref, fmt_ratio(
                         d.ratios(rw, bs, DEFAULT_HB, cpu_ref, "cpu_gib"))),
                     "%s: %s" % (bw_ref, fmt_ratio(
                         d.ratios(rw, bs, DEFAULT_HB, bw_ref, "mibs"))),
                     "%.1f–%.1f" % (min(loads), max(loads))])
    return rows


CPU_HEAD = ["point", "CPU ratio (per I/O = per GiB)",
            "bandwidth (= IOPS) ratio", "load average"]


def entry_rows(d):
    """One row per entry point: hugebuf's and the built-in's
    io_uring_enter calls per I/O, median (min-max) over the rounds, and
    the per-round ratio."""
    hb, bi = d.entry_configs()
    rows = []
    for rw, bs, depth in d.entry_points():
        a = d.entry_vals(rw, bs, depth, hb)
        b = d.entry_vals(rw, bs, depth, bi)
        f = lambda x: "%.3f" % x
        rows.append(["%s %s iodepth %d" % (rw, bs, depth),
                     fmt_range(a, f) if a else "-",
                     fmt_range(b, f) if b else "-",
                     fmt_ratio(d.entry_ratios(rw, bs, depth))
                     if a and b else "-"])
    return rows


ENTRY_HEAD = ["point", "hugebuf entries/IO", "built-in entries/IO",
              "ratio"]


def entry_lines(d):
    rows = entry_rows(d)
    if not rows:
        return []
    hb, bi = d.entry_configs()
    out = ["kernel entries per I/O (io_uring_enter calls of the fio process, "
           "strace -f -c, fixed number_ios):",
           "hugebuf = %s (defaults), built-in = %s" % (hb, bi),
           "  ".join("%-24s" % h for h in ENTRY_HEAD)]
    for r in rows:
        out.append("  ".join("%-24s" % c for c in r))
    out.append("")
    return out


def console(d):
    m = d.meta
    print("device %s, file %s (%s), %gs per run, iodepth %d, %d rounds, "
          "medians; CPU = whole fio process (io-wq included), steady "
          "state" % (m["dev"], m["path"], m["size"], m["runtime"],
                     m["iodepth"], m["rounds"]))
    if m.get("point_iodepth") or m.get("point_runtime"):
        print("except: " + ", ".join(m.get("point_iodepth", []) +
                                     ["%ss" % x for x in
                                      m.get("point_runtime", [])]))
    if d.cpu_windows():
        print("CPU windows: " + ", ".join(d.cpu_windows()))
    w = max([22] + [len(c) for c in d.configs])
    hdr = "%-9s %-4s %-*s %6s %10s %8s %7s %7s %6s %6s %6s %6s %6s" % (
        "workload", "bs", w, "engine", "MiB/s", "min-max", "CPUs/GiB",
        "p50 ms", "p99 ms", "req/IO", "bw/bi", "cpu/bi", "bw/pr",
        "cpu/pr") + " %6s %8s" % ("ent/IO", "contig")
    print(hdr)
    print("-" * len(hdr))
    for rw, bs in d.points:
        bw_ref, cpu_ref = d.best_builtin(rw, bs)
        for c in d.configs:
            mb = d.vals(rw, bs, c, "mibs")
            if not mb:
                continue
            if c in d.builtin:
                rb = ("*" if c == bw_ref else "")
                rc = ("+" if c == cpu_ref else "")
                pb = pc = ""
            else:
                # a fragmented run only against its fragmented pair
                rb = rc = ""
                if c not in d.fragmented:
                    rb = fmt_ratio_short(d.ratios(rw, bs, c, bw_ref,
                                                  "mibs"))
                    rc = fmt_ratio_short(d.ratios(rw, bs, c, cpu_ref,
                                                  "cpu_gib"))
                pr = d.pair(c)
                pb = fmt_ratio_short(d.ratios(rw, bs, c, pr, "mibs"))
                pc = fmt_ratio_short(d.ratios(rw, bs, c, pr, "cpu_gib"))
            cpu = d.vals(rw, bs, c, "cpu_gib")
            print("%-9s %-4s %-*s %6.0f %10s %8s %7.1f %7.1f %6.2f %6s "
                  "%6s %6s %6s" % (
                      rw, bs, w, c, med(mb), "%.0f-%.0f" % (min(mb), max(mb)),
                      fmt_cpu(med(cpu)) if cpu else "-",
                      med(d.vals(rw, bs, c, "p50")) / 1000,
                      med(d.vals(rw, bs, c, "p99")) / 1000,
                      min(d.vals(rw, bs, c, "req_io")), rb, rc, pb, pc) +
                  " %6s %8s" % (entry_cell(d, rw, bs, c),
                                 d.contig_cell(rw, bs, c)))
        print()
    for line in contig_lines(d):
        print(line)
    for line in extra_lines(d):
        print(line)
    for line in entry_lines(d):
        print(line)
    for line in regbench_lines(d):
        print(line)
    rows = cpu_rows(d)
    if rows:
        print("%s against the built-in, per-round ratios, median "
              "(min-max):" % DEFAULT_HB)
        for r in rows:
            print("  %-26s CPU %s; bandwidth %s; load %s" % tuple(r))
        print()
    print("contig: share of neighbouring buffer pages in neighbouring "
          "page frames, min-max over\nrounds (hugebuf: its report_json; "
          "built-in: fio's /proc/PID/pagemap).")
    print("bw/bi: hugebuf MiB/s over the fastest built-in configuration "
          "(*), cpu/bi: CPU-s/GiB over\nthe leanest (+); bw/pr, cpu/pr: "
          "over the built-in with the same memory and mode\n(4k = malloc, "
          "thp/hugetlb = shmhuge 2M).  Ratios per round, median.  req/IO: "
          "minimum\nover rounds.")


# ------------------------------------------------------------------ #
# plots                                                                #
# ------------------------------------------------------------------ #

STYLE = {
    "hugebuf 4k fixed": ("#d62728", 1, 7),
    "hugebuf 4k plain": ("#d62728", 2, 6),
    "hugebuf thp fixed": ("#ff7f0e", 1, 9),
    "hugebuf thp plain": ("#ff7f0e", 2, 8),
    "hugebuf hugetlb fixed": ("#1f77b4", 1, 5),
    "hugebuf hugetlb plain": ("#1f77b4", 2, 4),
    "io_uring malloc fixed": ("#2ca02c", 1, 13),
    "io_uring malloc plain": ("#2ca02c", 2, 12),
    "io_uring shmhuge fixed": ("#9467bd", 1, 11),
    "io_uring shmhuge plain": ("#9467bd", 2, 10),
}
BACKING_STYLE = {"4k": ("#d62728", 7), "thp": ("#ff7f0e", 9),
                 "hugetlb": ("#1f77b4", 5)}


def write_sweep_dat(d, outdir, rw, metric, scale=1.0):
    """One block per config: bs_KiB median min max."""
    path = os.path.join(outdir, "sweep-%s-%s.dat" % (rw, metric))
    names = []
    with open(path, "w") as f:
        f.write("# %s %s: bs_KiB median min max, one block per config\n"
                % (rw, metric))
        for c in d.configs:
            if c in d.limited:
                # two points only: the like-for-like table has them
                continue
            rows = []
            for prw, bs in d.points:
                if prw != rw:
                    continue
                v = [x * scale for x in d.vals(rw, bs, c, metric)]
                if v:
                    rows.append((parse_size(bs) // KIB, med(v), min(v),
                                 max(v)))
            if not rows:
                continue
            f.write("# %s\n" % c)
            for r in rows:
                f.write("%d %g %g %g\n" % r)
            f.write("\n\n")
            names.append(c)
    return path, names


def gp_lines(path, names, with_err=True):
    parts = []
    for i, c in enumerate(names):
        col, dash, pt = STYLE.get(c, ("#000000", 1, 1))
        parts.append("'%s' index %d using 1:2%s with %s lc rgb '%s' "
                     "dt %d pt %d ps 0.8 lw 1.6 title '%s'" % (
                         path, i, ":3:4" if with_err else "",
                         "yerrorlines" if with_err else "linespoints",
                         col, dash, pt, c))
    return ", \\\n     ".join(parts)


def gp_terms(base):
    return [("pngcairo noenhanced size 1400,640 font 'DejaVu Sans,11'",
             base + ".png"),
            ("svg noenhanced size 1400,640 dynamic font 'DejaVu Sans,11'",
             base + ".svg")]


XTICS = ("set xtics ('128K' 128, '256K' 256, '512K' 512, '1M' 1024, "
         "'2M' 2048, '4M' 4096, '8M' 8192, '16M' 16384, '32M' 32768)\n")


def plot_sweep(d, outdir, metric, ylabel, title, logy, scale=1.0):
    panels = []
    for rw in ("randread", "randwrite"):
        p, names = write_sweep_dat(d, outdir, rw, metric, scale)
        if names:
            panels.append((rw, p, names))
    if not panels:
        return None
    base = os.path.join(outdir, "bench-%s" % metric.replace("_", "-"))
    script = ""
    for term, out in gp_terms(base):
        script += "set terminal %s\nset output '%s'\n" % (term, out)
        script += "set multiplot layout 1,%d title '%s'\n" % (
            len(panels), title)
        for rw, p, names in panels:
            script += ("reset\nset logscale x 2\n%sset xrange [96:44000]\n"
                       "set grid\nset key outside below horizontal maxrows 3 "
                       "font ',9' width -2\nunset xlabel\n"
                       "set ylabel '%s'\nset title '%s against block size, O_DIRECT, "
                       "iodepth %d (median, bars min-max)'\n" % (
                           XTICS, ylabel, rw, d.meta["iodepth"]))
            if metric == "req_io":
                script += "set logscale y\nset yrange [0.8:*]\n"
            else:
                script += "set logscale y\n" if logy else \
                    "set yrange [0:*]\n"
            script += "plot " + gp_lines(p, names) + "\n"
        script += "unset multiplot\nset output\n"
    return run_gnuplot(script, base)


def plot_reg(d, outdir):
    if not d.reg:
        return None
    base = os.path.join(outdir, "bench-reg-fio")
    files = {}
    for b in ("4k", "thp", "hugetlb"):
        sizes = sorted({s for (bb, s) in d.reg if bb == b}, key=parse_size)
        if not sizes:
            continue
        p = os.path.join(outdir, "reg-%s.dat" % b)
        with open(p, "w") as f:
            f.write("# buffer_MiB register_ms_median min max "
                    "kmem_KiB_per_reg_measured kmem_KiB_predicted\n")
            for s in sizes:
                t = [r["register_ms"] for r in d.reg[(b, s)].values()]
                cli = d.cli.get((b, s), {}).get("check", {}).get("kmem", {})
                n = cli.get("registrations") or 1
                meas = cli.get("delta_kb", float("nan")) / n
                pred = cli.get("predicted_kb", float("nan")) / n
                f.write("%d %g %g %g %g %g\n" % (
                    parse_size(s) // MIB, med(t), min(t), max(t),
                    max(meas, 0.5), max(pred, 0.5)))
        files[b] = p
    script = ""
    xt = ("set xtics ('64M' 64, '128M' 128, '256M' 256, '512M' 512, "
          "'1G' 1024)\n")
    for term, out in gp_terms(base):
        script += "set terminal %s\nset output '%s'\n" % (term, out)
        script += ("set multiplot layout 1,2 title 'Registration cost "
                   "against buffer size (one io_uring_register_"
                   "buffers call)'\n")
        script += ("reset\nset logscale xy 2\n%sset grid\nset key top left"
                   "\nset xlabel 'buffer size'\nset ylabel 'ms'\n"
                   "set xrange [48:1400]\nset format y '%%g'\n"
                   "set title 'time (median, bars min-max)'\n" % xt)
        script += "plot " + ", \\\n     ".join(
            "'%s' using 1:2:3:4 with yerrorlines lc rgb '%s' pt %d lw 1.6 "
            "title '%s'" % (p, BACKING_STYLE[b][0], BACKING_STYLE[b][1], b)
            for b, p in files.items()) + "\n"
        script += ("reset\nset logscale xy 2\n%sset grid\nset key top left"
                   "\nset xlabel 'buffer size'\nset ylabel 'KiB per "
                   "registration'\nset xrange [48:1400]\nset format y "
                   "'%%g'\nset title 'kernel memory (imu): measured "
                   "(solid) vs model (dashed)'\nset label 1 'thp and hugetlb overlap; a measured 0 is drawn at 0.5' at graph 0.02, graph 0.04 font ',9'\nset yrange [0.4:*]\n" % xt)
        script += "plot " + ", \\\n     ".join(
            "'%s' using 1:5 with linespoints lc rgb '%s' pt %d lw 1.6 "
            "title '%s measured', '%s' using 1:6 with lines lc rgb '%s' "
            "dt 2 lw 1.2 title '%s model'" % (
                p, BACKING_STYLE[b][0], BACKING_STYLE[b][1], b, p,
                BACKING_STYLE[b][0], b)
            for b, p in files.items()) + "\n"
        script += "unset multiplot\nset output\n"
    return run_gnuplot(script, base)


def run_gnuplot(script, base):
    gp = base + ".gp"
    with open(gp, "w") as f:
        f.write("# generated by bench/report.py\n" + script)
    if not shutil.which("gnuplot"):
        print("bench: gnuplot not found, plots skipped: apt-get install "
              "gnuplot", file=sys.stderr)
        return None
    p = subprocess.run(["gnuplot", gp], stderr=subprocess.PIPE)
    if p.returncode:
        print("bench: gnuplot failed on %s: %s" % (
            gp, p.stderr.decode(errors="replace").strip()), file=sys.stderr)
        return None
    return base


# ------------------------------------------------------------------ #
# Markdown                                                             #
# ------------------------------------------------------------------ #

def md_table(head, rows):
    out = ["| " + " | ".join(head) + " |",
           "|" + "|".join("---" for _ in head) + "|"]
    for r in rows:
        out.append("| " + " | ".join(r) + " |")
    return "\n".join(out) + "\n"


# the split model is lib's hb_predict_requests(), asked through the CLI
TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MODEL_KERNEL = None     # major.minor of the measured kernel (main())
_predicted = {}


def hugebuf_cli():
    """$HUGEBUF_CLI, else the tree's cli/hugebuf, else an installed
    hugebuf."""
    for c in (os.environ.get("HUGEBUF_CLI"),
              os.path.join(TOP, "cli", "hugebuf"), shutil.which("hugebuf")):
        if c and os.access(c, os.X_OK):
            return c
    sys.exit("bench: no hugebuf CLI (run make, or set HUGEBUF_CLI): the "
             "request predictions come from 'hugebuf plan --json'")


def size_arg(n):
    for unit, suf in ((GIB, "G"), (MIB, "M"), (KIB, "K")):
        if n % unit == 0:
            return "%d%s" % (n // unit, suf)
    return str(n)


def predicted_requests(size, seg, lim):
    """Device requests of one READ_FIXED of @size bytes from folios of
    @seg bytes under the queue limits @lim: `hugebuf plan
    --queue-limits=... --json` ("predicted_requests"), i.e. lib's
    hb_predict_requests() over the model's bvec table for the kernel the
    results were measured on."""
    if seg <= 4096:
        backing = "4k"
    elif seg in (2 * MIB, GIB):
        backing = "hugetlb:" + size_arg(seg)
    else:
        backing = "mthp:" + size_arg(seg)
    ql = "%d,%d,%d" % (lim["max_sectors"], lim["max_segments"],
                       lim["max_segment_size"])
    key = (size, backing, ql, MODEL_KERNEL)
    if key not in _predicted:
        cmd = [hugebuf_cli(), "plan", "--backing=" + backing,
               "--size=" + size_arg(size), "--queue-limits=" + ql, "--json"]
        if MODEL_KERNEL:
            cmd.append("--kernel=" + MODEL_KERNEL)
        p = subprocess.run(cmd, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE)
        try:
            _predicted[key] = int(json.loads(p.stdout)["predicted_requests"])
        except (ValueError, KeyError):
            sys.exit("bench: %s failed (exit %d): %s" % (
                " ".join(cmd), p.returncode,
                p.stderr.decode(errors="replace").strip()))
    return _predicted[key]


def key_rows(d):
    """8M randread/randwrite: the engine's default vs the best built-in,
    and requests per 8 MiB for 4k vs hugetlb."""
    out = []
    for rw in ("randread", "randwrite"):
        if (rw, "8M") not in d.points:
            continue
        bw_ref, cpu_ref = d.best_builtin(rw, "8M")
        hb = DEFAULT_HB
        out.append({
            "rw": rw, "bw_ref": bw_ref, "cpu_ref": cpu_ref,
            "mibs": d.vals(rw, "8M", hb, "mibs"),
            "mibs_ref": d.vals(rw, "8M", bw_ref, "mibs"),
            "cpu": d.vals(rw, "8M", hb, "cpu_gib"),
            "cpu_refv": d.vals(rw, "8M", cpu_ref, "cpu_gib"),
            "bw_ratio": d.ratios(rw, "8M", hb, bw_ref, "mibs"),
            "cpu_ratio": d.ratios(rw, "8M", hb, cpu_ref, "cpu_gib"),
            "req": {c: d.vals(rw, "8M", c, "req_io") for c in d.configs},
        })
    return out


def straddles(v):
    return bool(v) and min(v) <= 1.0 <= max(v)


def verdict(v, what):
    if not v:
        return "not measured"
    if straddles(v) or abs(med(v) - 1.0) < 0.03:
        if not straddles(v):
            return "%s %.2f×: every round on one side of 1 but within " \
                "3%%, too small to call" % (what, med(v))
        return "%s within noise (rounds span %.2f–%.2f)" % (
            what, min(v), max(v))
    return "%s %.2f× (every round %s 1)" % (
        what, med(v), "above" if min(v) > 1 else "below")


def markdown(d, outdir, plots):
    m, e = d.meta, d.end
    L = []
    L.append("<!-- SPDX-License-Identifier: GPL-2.0-only -->")
    L.append("# hugebuf benchmark: %s\n" % (
        "bench-full" if m.get("full") else "bench (quick)"))
    loads = [r["load"] for runs in d.sweep.values() for r in runs.values()]
    L.append("Generated by `make %s` (bench/bench.sh, bench/bench.py, "
             "bench/report.py).\n" % (
                 "bench-full" if m.get("full") else "bench"))
    lim = m.get("limits", {})
    L.append(md_table(["", ""], [
        ["date", "%s – %s" % (m.get("start", "?"), e.get("end", "?"))],
        ["kernel / fio", "%s / %s" % (m.get("kernel"), m.get("fio"))],
        ["CPUs", str(m.get("nproc"))],
        ["file", "%s (%s) on %s, O_DIRECT, written with random data" % (
            m["path"], m["size"], m["dev"])],
        ["queue limits", "max_sectors %d KiB, max_segments %d, "
         "max_segment_size %d" % (
             lim.get("max_sectors", 0) // KIB, lim.get("max_segments", 0),
             lim.get("max_segment_size", 0))],
        ["per point", ("except " + ", ".join(
            m.get("point_iodepth", []) +
            ["%ss" % x for x in m.get("point_runtime", [])]) + "; "
            if m.get("point_iodepth") or m.get("point_runtime") else "") +
         "%gs time_based, iodepth %d, randrepeat=0, "
         "norandommap, --thread, registerfiles on both engines" % (
             m["runtime"], m["iodepth"])],
        ["CPU windows", ", ".join(d.cpu_windows()) or "-"],
        ["rounds", "%d; each round runs every configuration of a point "
         "back to back in a fresh random order" % m["rounds"]],
        ["load average", "%.1f at start, %.1f at the end; %.1f–%.1f over "
         "the runs" % (m.get("load_start", 0), e.get("load_end", 0),
                       min(loads) if loads else 0,
                       max(loads) if loads else 0)],
        ["elapsed", "%.1f min" % (e.get("elapsed", 0) / 60.0)],
    ]))
    L.append("")
    L.append("Cells are *median (min–max)* over the rounds.  **CPU** is "
             "CPU-seconds per GiB moved, counted for the whole fio process "
             "(fio runs with `--thread`; its job threads and io_uring's "
             "io-wq/SQPOLL threads are one thread group), sampled in ns "
             "from every thread's schedstat over the steady part of the "
             "run (setup — allocation, buffer fill, registration, probe — "
             "is left out; `cpu_run_gib` in the raw results has the whole "
             "run from wait4()).  **Ratios** are hugebuf over a built-in "
             "configuration, per round (runs that were neighbours in "
             "time), then median (min–max): bandwidth against the "
             "fastest built-in configuration at that point, CPU against "
             "the leanest.  **req/IO** is the device's completed "
             "requests in the workload's direction over fio's I/Os, for "
             "the whole run; other I/O on the disk only adds, so "
             "the minimum is the signal.\n")

    # key rows (none in a run of the registration section alone)
    kr = key_rows(d)
    if kr:
        L.append("## Key rows\n")
    rows = []
    for k in kr:
        rows.append([k["rw"] + " 8M", DEFAULT_HB,
                     fmt_range(k["mibs"], fmt_num),
                     "%s: %s" % (k["bw_ref"], fmt_range(k["mibs_ref"],
                                                        fmt_num)),
                     fmt_ratio(k["bw_ratio"]),
                     fmt_range(k["cpu"], fmt_cpu),
                     "%s: %s" % (k["cpu_ref"], fmt_range(k["cpu_refv"],
                                                         fmt_cpu)),
                     fmt_ratio(k["cpu_ratio"])])
    if rows:
        L.append(md_table(["point", "hugebuf", "MiB/s",
                           "best built-in MiB/s", "bandwidth ratio",
                           "CPU s/GiB", "leanest built-in CPU s/GiB",
                           "CPU ratio"], rows))
    rows = cpu_rows(d)
    if rows:
        L.append("\n### CPU of %s against the built-in\n" % DEFAULT_HB)
        L.append("Per-round ratios, median (min–max); CPU against the "
                 "leanest built-in configuration, bandwidth against the "
                 "fastest.  At one block size CPU per I/O and CPU per GiB "
                 "give the same ratio, and so do IOPS and bandwidth.  The "
                 "load average is the 1-minute one at the start of each "
                 "run of that point.\n")
        L.append(md_table(CPU_HEAD, rows))
    rows = entry_rows(d)
    if rows:
        hb, bi = d.entry_configs()
        L.append("\n## Kernel entries per I/O\n")
        L.append("`io_uring_enter` calls of the whole fio process "
                 "(`strace -f -c -e trace=io_uring_enter`) over the I/Os "
                 "fio completed, for a fixed `number_ios`; hugebuf is `%s` "
                 "(its defaults: DEFER_TASKRUN), the built-in `%s`, both "
                 "with registered files.  Counts, not times: these runs "
                 "are separate from the timed ones, in the same rounds.  "
                 "hugebuf's count includes lib's one-off kernel behaviour "
                 "probe (one entry per process).\n" % (hb, bi))
        L.append(md_table(ENTRY_HEAD, rows))
    rows = []
    for k in kr:
        for c in ("hugebuf 4k fixed", "hugebuf hugetlb fixed",
                  "hugebuf 4k plain", "hugebuf hugetlb plain",
                  "io_uring malloc fixed", "io_uring shmhuge fixed"):
            v = k["req"].get(c)
            if v:
                rows.append([k["rw"] + " 8M", c, "%.2f" % min(v),
                             "%.2f" % med(v)])
    if rows:
        seg4k = predicted_requests(8 * MIB, 4096, lim) if lim else 0
        seg2m = predicted_requests(8 * MIB, 2 * MIB, lim) if lim else 0
        L.append("\nRequests per 8 MiB I/O (the coalescing signal; the "
                 "split model predicts %d with 4 KiB bvecs and %d with "
                 "2 MiB bvecs on this queue):\n" % (seg4k, seg2m))
        L.append(md_table(["point", "configuration", "req/IO min",
                           "req/IO median"], rows))

    # sweep tables
    for rw in ("randread", "randwrite"):
        bss = [bs for prw, bs in d.points if prw == rw]
        if not bss:
            continue
        L.append("\n## %s: block size sweep\n" % rw)
        for metric, title, f in (
                ("mibs", "Bandwidth, MiB/s", fmt_num),
                ("cpu_gib", "CPU-seconds per GiB (whole fio process, "
                 "steady state)", fmt_cpu),
                ("p50", "p50 completion latency, ms",
                 lambda x: "%.2f" % (x / 1000)),
                ("p99", "p99 completion latency, ms",
                 lambda x: "%.2f" % (x / 1000))):
            L.append("\n### %s\n" % title)
            rows = []
            for c in d.ran(rw, bss):
                row = [c]
                for bs in bss:
                    v = d.vals(rw, bs, c, metric)
                    row.append(fmt_range(v, f) if metric in ("mibs",
                                                             "cpu_gib")
                               else (f(med(v)) if v else "-"))
                rows.append(row)
            L.append(md_table(["configuration"] + bss, rows))
        L.append("\n### Requests per I/O (minimum / median)\n")
        rows = []
        for c in d.ran(rw, bss):
            row = [c]
            for bs in bss:
                v = d.vals(rw, bs, c, "req_io")
                row.append("%.2f / %.2f" % (min(v), med(v)) if v else "-")
            rows.append(row)
        L.append(md_table(["configuration"] + bss, rows))
        L.append("\n### Ratios against the built-in engine: bandwidth "
                 "(vs fastest) / CPU per GiB (vs leanest)\n")
        rows = []
        refs = ["reference"]
        for bs in bss:
            bw_ref, cpu_ref = d.best_builtin(rw, bs)
            refs.append("%s / %s" % (
                (bw_ref or "-").replace("io_uring ", ""),
                (cpu_ref or "-").replace("io_uring ", "")))
        rows.append(refs)
        for c in d.drawn:
            row = [c]
            for bs in bss:
                bw_ref, cpu_ref = d.best_builtin(rw, bs)
                rb = d.ratios(rw, bs, c, bw_ref, "mibs")
                rc = d.ratios(rw, bs, c, cpu_ref, "cpu_gib")
                row.append("%s / %s" % (fmt_ratio(rb), fmt_ratio(rc))
                           if rb else "-")
            rows.append(row)
        L.append(md_table(["configuration"] + bss, rows))
        L.append("\n### Like for like: bandwidth / CPU per GiB / CPU per "
                 "second against the built-in configuration with the same "
                 "memory and mode (4k = malloc, thp and hugetlb = shmhuge "
                 "2M)\n")
        L.append("Each cell names both sides' physical contiguity "
                 "(hugebuf's / the built-in's share of neighbouring "
                 "buffer pages in neighbouring page frames, min–max over "
                 "the rounds).  CPU per second is the CPU-seconds each "
                 "fio process used per second of its CPU window: where "
                 "it is near 1.00× and bandwidth is not, the CPU per "
                 "GiB ratio restates the bandwidth ratio (bench/README.md, "
                 "\"Where the CPU at 8M and 32M goes\")." +
                 ("  The rows named *fragmented* ran both sides after "
                  "bench/fragment.py left isolated frames on every CPU's "
                  "free lists, so both draw (nearly) no adjacent pages: "
                  "the 4 KiB pair at matched contiguity on purpose "
                  "(bench/README.md, \"A matched baseline for the 4 KiB "
                  "pair\")." if d.fragmented else "") +
                 ("  The rows named *pinned* ran hugebuf's 4k buffers "
                  "with contig=pin, faulted in by the registration's "
                  "long-term pin as fio's malloc buffers of a read job "
                  "are, so both sides draw from the unmovable free lists "
                  "(bench/README.md, \"The pinned 4 KiB row\")."
                  if any(c.endswith(" pinned") for c in d.hugebuf)
                  else "") + "\n")
        rows = []
        for c in d.hugebuf:
            pr = d.pair(c)
            row = [c, (pr or "-").replace("io_uring ", "")]
            for bs in bss:
                rb = d.ratios(rw, bs, c, pr, "mibs")
                rc = d.ratios(rw, bs, c, pr, "cpu_gib")
                rs = d.ratios(rw, bs, c, pr, "cpu_rate")
                row.append("%s / %s / %s [%s vs %s]" % (
                    fmt_ratio(rb), fmt_ratio(rc), fmt_ratio(rs),
                    d.contig_cell(rw, bs, c),
                    d.contig_cell(rw, bs, pr) if pr else "-")
                    if rb else "-")
            rows.append(row)
        L.append(md_table(["configuration", "against"] + bss, rows))
        L.extend(contig_markdown(d, rw))

    # registration
    if d.reg:
        L.append("\n## Registration cost against buffer size\n")
        L.append("One `io_uring_register_buffers` of one buffer, timed by "
                 "the engine (fio job with bs = buffer size, iodepth 1, one "
                 "READ_FIXED of the whole buffer; the engine's report JSON). "
                 "*bvecs* and *imu* are lib/'s model over the probed page "
                 "map (`hugebuf plan`/the engine); *kernel memory* is "
                 "`hugebuf check --json`: the slab+vmalloc growth per "
                 "registration measured over several registrations of the "
                 "same buffer, against the model's allocation.  *Requests* "
                 "are the device requests of that single whole-buffer "
                 "READ_FIXED, against the split model for folio-sized "
                 "and 4 KiB bvecs: the measured bvec granularity.\n")
        rows = []
        for b in ("4k", "thp", "hugetlb"):
            for s in sorted({s for (bb, s) in d.reg if bb == b},
                            key=parse_size):
                runs = list(d.reg[(b, s)].values())
                t = [r["register_ms"] for r in runs]
                req = [r["requests"] for r in runs]
                folio = min(r["folio_seen"] for r in runs)
                cli = d.cli.get((b, s), {})
                chk = cli.get("check", {})
                km = chk.get("kmem", {})
                n = km.get("registrations") or 1
                size = parse_size(s)
                rows.append([
                    b, s, "%d K" % (folio // KIB),
                    fmt_range(t, lambda x: "%.2f" % x),
                    "%d" % runs[0]["bvecs"],
                    "%d" % runs[0]["imu_bytes"],
                    "%.0f / %.0f" % (km.get("delta_kb", float("nan")) / n,
                                     km.get("predicted_kb", float("nan")) / n)
                    if km else "-",
                    "%d" % min(req),
                    "%d / %d" % (predicted_requests(size, folio, lim),
                                 predicted_requests(size, 4096, lim)),
                    str(chk.get("kernel_coalesced", "-")),
                    "%d" % (runs[0]["vmpin_kb"] // KIB)])
        L.append(md_table(["backing", "buffer", "folio seen",
                           "register ms", "bvecs (model)",
                           "imu bytes (model)",
                           "kernel memory KiB/reg measured / model",
                           "requests (min)", "predicted folio / 4K",
                           "kernel coalesced", "VmPin MiB"], rows))

    if d.rb:
        L.extend(regbench_markdown(d))
    # vectored fixed I/O
    if d.vec:
        L.append("\n## Vectored fixed I/O against one fixed I/O, 8 MiB "
                 "randread\n")
        L.append("hugebuf on 2 MiB hugetlb buffers; `vec_iovecs=4 "
                 "vec_offset=4096` issues READV_FIXED with 4 iovecs whose "
                 "cuts sit 4 KiB into folios, so each crosses a folio end "
                 "(7 bvecs per I/O instead of 4).  Ratios per round, "
                 "median (min-max).\n")
        L.append(md_table(VEC_HEAD, vec_rows(d)))
    # cloned tables
    if d.clone:
        L.append("\n## One registered table for 4 jobs (clone_buffers)\n")
        L.append("`--thread --numjobs=4`, iodepth 4, bs 8M randread on "
                 "hugetlb.  off: every job registers its own buffers; "
                 "split: the first job registers every job's slice and "
                 "the others clone the table (their own slices, so data "
                 "stays apart); same: every job on the same buffers.  VmPin "
                 "is fio's whole process at its largest; ready is a job's "
                 "time from ->init to its first possible I/O.\n")
        L.append(md_table(CLONE_HEAD, clone_rows(d)))

    # chunk
    if d.chunk:
        L.append("\n## chunk_size with plain (non-fixed) hugetlb buffers, "
                 "32 MiB I/O\n")
        L.append("`--backing=hugetlb --fixedbufs=0`, bs=32M, iodepth %d; "
                 "each I/O is split into chunk_size pieces submitted "
                 "together.\n" % m["iodepth"])
        rows = []
        for rw in ("randread", "randwrite"):
            chs = sorted({c for (r, _, c) in d.chunk if r == rw},
                         key=lambda x: parse_size(x) if x != "0" else 0)
            base = d.chunk.get((rw, "32M", "0"), {})
            for ch in chs:
                runs = d.chunk[(rw, "32M", ch)]
                mb = [r["mibs"] for r in runs.values()]
                ratio = [runs[k]["mibs"] / base[k]["mibs"]
                         for k in runs if k in base and base[k]["mibs"]]
                rows.append([
                    rw, "off" if ch == "0" else ch,
                    fmt_range(mb, fmt_num),
                    fmt_ratio(ratio) if ch != "0" else "1",
                    fmt_range([r["p50"] / 1000 for r in runs.values()],
                              lambda x: "%.1f" % x),
                    fmt_range([r["p99"] / 1000 for r in runs.values()],
                              lambda x: "%.1f" % x),
                    fmt_cpu(med([r["cpu_gib"] for r in runs.values()])),
                    "%.2f" % min(r["req_io"] for r in runs.values())])
        L.append(md_table(["workload", "chunk_size", "MiB/s",
                           "vs no chunking", "p50 ms", "p99 ms",
                           "CPU s/GiB", "req/IO min"], rows))

    # noise
    L.append("\n## How noisy it was\n")
    sp = []
    for key, runs in d.sweep.items():
        v = [r["mibs"] for r in runs.values()]
        if len(v) > 1:
            sp.append((spread_pct(v), key))
    rsp = []
    for rw, bs in d.points:
        bw_ref, _ = d.best_builtin(rw, bs)
        for c in d.drawn:
            v = d.ratios(rw, bs, c, bw_ref, "mibs")
            if len(v) > 1:
                rsp.append(100.0 * (max(v) - min(v)) / med(v))
    if sp:
        sp.sort()
        L.append("Bandwidth spread (max−min over median) of one "
                 "configuration across rounds: median %.0f%%, worst %.0f%% "
                 "(%s %s %s).  The same spread for the per-round "
                 "hugebuf/built-in bandwidth ratios: median %.0f%%, worst "
                 "%.0f%%.  Load average over the runs: %.1f–%.1f on %s "
                 "CPUs.  A ratio whose min–max straddles 1.00 is noise at "
                 "this run length.\n" % (
                     med([s for s, _ in sp]), sp[-1][0], sp[-1][1][0],
                     sp[-1][1][1], sp[-1][1][2],
                     med(rsp) if rsp else float("nan"),
                     max(rsp) if rsp else float("nan"),
                     min(loads), max(loads), m.get("nproc")))

    L.append("\n## What the figures mean\n")
    L.extend(interpretation(d, lim))

    if plots:
        L.append("\n## Plots\n")
        for p in plots:
            b = os.path.basename(p)
            L.append("![%s](%s.png)  \n[SVG](%s.svg)\n" % (b, b, b))
    L.append("\nRaw results: `%s` (one JSON object per run).\n" %
             os.path.basename(d.path))
    path = os.path.join(outdir, "report.md")
    with open(path, "w") as f:
        f.write("\n".join(L))
    return path


def same_memory_note(*refs):
    if all(r and "shmhuge" in r for r in refs):
        return ("The built-in references run on 2 MiB folios too "
                "(shmhuge), with the same request counts, so a "
                "difference here comes from the engines' submission and "
                "completion paths (or the fixed/plain choice), not from "
                "coalescing.")
    return ("A built-in reference here runs on 4 KiB pages (malloc), so "
            "part of the difference is the backing, not the engine.")


def interpretation(d, lim):
    """A few data-driven sentences: coalescing vs the block layer's own
    folio merging vs noise."""
    L = []

    def r8(rw, c):
        v = d.vals(rw, "8M", c, "req_io")
        return min(v) if v else None
    rw = "randread"
    a, b = r8(rw, "hugebuf 4k fixed"), r8(rw, "hugebuf hugetlb fixed")
    pa, pb = r8(rw, "hugebuf 4k plain"), r8(rw, "hugebuf hugetlb plain")
    if a and b:
        L.append("- **Coalescing (registration time, io_uring).** With fixed "
                 "buffers the bio points straight at the registered "
                 "buffer's bvec array, so the request count shows its "
                 "granularity: an 8 MiB READ_FIXED takes %.2f requests from "
                 "4 KiB pages and %.2f from 2 MiB hugetlb folios (one bvec "
                 "per folio, split only at max_sectors).  The registration "
                 "table shows the same thing at registration: the imu and "
                 "the kernel memory shrink by the folio/page ratio, the "
                 "whole-buffer READ_FIXED needs the folio-sized number of "
                 "requests.  Fewer requests per I/O is where fixed "
                 "hugepage buffers win bandwidth over fixed 4 KiB ones "
                 "on this queue." % (a, b))
    if pa and pb:
        L.append("- **The block layer's own folio merging (6.12+).** Plain "
                 "(non-fixed) O_DIRECT from hugetlb memory takes %.2f "
                 "requests per 8 MiB, the same as the coalesced fixed "
                 "buffer: `bio_iov_iter_get_pages()` pins per I/O and adds "
                 "each folio as one bvec (\"block: introduce folio "
                 "awareness\", ed9832bc08db).  So the hugepage advantage "
                 "of *plain* buffers is not io_uring's doing, and the "
                 "`fixed` vs `plain` gap on hugepages is the per-I/O pin "
                 "and unpin cost (CPU), not request count.  From 4 KiB "
                 "pages plain I/O takes %.2f requests: pages are only "
                 "merged when physically adjacent." % (pb, pa))
    cf = d.vals("randread", "8M", "hugebuf hugetlb fixed", "cpu_gib")
    cp = d.vals("randread", "8M", "hugebuf hugetlb plain", "cpu_gib")
    c4f = d.vals("randread", "8M", "hugebuf 4k fixed", "cpu_gib")
    c4p = d.vals("randread", "8M", "hugebuf 4k plain", "cpu_gib")
    if cf and cp and c4f and c4p:
        L.append("- **Fixed vs plain: CPU.**  At 8M randread the whole fio "
                 "process spends %s CPU-s/GiB with fixed hugetlb buffers "
                 "and %s with the same buffers plain; %s and %s from 4 KiB "
                 "pages.  Plain I/O pins and unpins the pages on every "
                 "I/O (per folio since 6.12, per page before); fixed "
                 "buffers did that once, at registration." % (
                     fmt_cpu(med(cf)), fmt_cpu(med(cp)), fmt_cpu(med(c4f)),
                     fmt_cpu(med(c4p))))
    bw4 = d.ratios("randread", "8M", "hugebuf 4k fixed",
                   "hugebuf hugetlb fixed", "mibs")
    if bw4:
        L.append("- **What the request count costs.**  On this virtio "
                 "disk the 8M randread bandwidth of fixed 4 KiB buffers "
                 "is %s of fixed hugetlb buffers (per-round ratio): the "
                 "same bytes in %.1f× as many requests." % (
                     fmt_ratio(bw4), (a / b) if a and b else float("nan")))
    if d.reg:
        L.append("- **Registration.**  Time grows with the number of pages "
                 "pinned for 4 KiB memory, and is ~10× smaller for 2 MiB "
                 "folios; most of that is GUP walking PMDs rather than "
                 "coalescing (docs/kernel-rules.md §10), so it is not a "
                 "coalescing signal by itself.  The imu costs 16 bytes per "
                 "bvec, so 4 KiB pages cost 4 MiB of "
                 "unreclaimable slab per 512 MiB (6 MiB of vmalloc for "
                 "1 GiB) while coalesced buffers need a few KiB, "
                 "which the measurement cannot resolve (it reads 0: "
                 "small objects land in partly used slabs).")
    if d.chunk:
        for rw in ("randread", "randwrite"):
            base = d.chunk.get((rw, "32M", "0"))
            if not base:
                continue
            best = None
            for (r, _, ch), runs in d.chunk.items():
                if r != rw or ch == "0":
                    continue
                ratio = [runs[k]["mibs"] / base[k]["mibs"]
                         for k in runs if k in base]
                p99 = med([x["p99"] for x in runs.values()]) / \
                    med([x["p99"] for x in base.values()])
                if best is None or med(ratio) > med(best[1]):
                    best = (ch, ratio, p99)
            if best:
                L.append("- **chunk_size, 32M %s from plain hugetlb "
                         "buffers.**  Best chunk_size=%s: %s, p99 %.2f× "
                         "of unchunked.  Requests per I/O do not change "
                         "(the block layer splits at max_sectors "
                         "either way), so chunking only adds SQEs here."
                         % (rw, best[0], verdict(best[1], "bandwidth"),
                            best[2]))
    for rw in ("randread", "randwrite"):
        if (rw, "8M") not in d.points:
            continue
        bw_ref, cpu_ref = d.best_builtin(rw, "8M")
        rb = d.ratios(rw, "8M", DEFAULT_HB, bw_ref, "mibs")
        rc = d.ratios(rw, "8M", DEFAULT_HB, cpu_ref, "cpu_gib")
        L.append("- **8M %s, hugebuf (hugetlb, fixed) vs the built-in "
                 "engine.** %s; %s.  %s" % (
                     rw, verdict(rb, "bandwidth (vs %s)" % bw_ref),
                     verdict(rc, "CPU per GiB (vs %s)" % cpu_ref),
                     same_memory_note(bw_ref, cpu_ref)))
    L.append("- **Noise.** The device is a virtio disk shared with "
             "whatever else runs on the host and in this VM (kernel "
             "builds, tests); absolute MiB/s drift by tens of percent "
             "between rounds, which is why configurations are "
             "interleaved and compared per round.  Request counts are "
             "the steadiest signal (minimum over rounds); CPU per GiB at "
             "large block sizes is a few milliseconds per GiB, so small "
             "absolute differences there are within noise unless every "
             "round agrees.")
    return L


# ------------------------------------------------------------------ #
# registration: bench/regbench                                         #
# ------------------------------------------------------------------ #

# the backings in the order of the tables and the plot, 4 KiB pages first
RB_ORDER = ("4k", "shm", "thp", "mthp:16K", "mthp:64K", "hugetlb:2M",
            "memfd")
RB_CASES = ("one", "call", "each")
RB_CASE_TEXT = {"one": "one buffer", "call": "64 buffers, one call",
                "each": "64 buffers, one by one"}
RB_STYLE = {"4k": ("#d62728", 7), "shm": ("#8c564b", 13),
            "thp": ("#ff7f0e", 9), "mthp:16K": ("#9467bd", 11),
            "mthp:64K": ("#e377c2", 15), "hugetlb:2M": ("#1f77b4", 5),
            "memfd": ("#17becf", 4)}


def rb_backings(d):
    seen = sorted({b for (b, _, _) in d.rb},
                  key=lambda b: (RB_ORDER.index(b) if b in RB_ORDER
                                 else len(RB_ORDER), b))
    return seen


def rb_sizes(d, b):
    return sorted({sz for (bb, sz, _) in d.rb if bb == b})


def rb_ms(d, b, sz, case, key="register_us"):
    runs = d.rb.get((b, sz, case), {})
    return [runs[k][key] / 1000.0 for k in sorted(runs)
            if runs[k].get(key) is not None]


def rb_model(d, b, sz, case):
    """lib's counts for the point: the first round's (the folio layout
    the probe saw; the same every round unless THP fell back)."""
    runs = d.rb.get((b, sz, case), {})
    return runs[min(runs)]["model"] if runs else {}


def loglog_slope(xs, ys):
    """Least-squares slope of log y against log x: the growth order.
    None with fewer than two sizes or a value that is not positive."""
    pts = [(math.log(x), math.log(y)) for x, y in zip(xs, ys)
           if x > 0 and y and y > 0]
    if len(pts) < 2 or len(pts) != len(xs):
        return None
    mx = sum(p[0] for p in pts) / len(pts)
    my = sum(p[1] for p in pts) / len(pts)
    sxx = sum((p[0] - mx) ** 2 for p in pts)
    if not sxx:
        return None
    return sum((p[0] - mx) * (p[1] - my) for p in pts) / sxx


# the model's work counts that grow with the buffer: the pages pinned and
# the hugepage accounting's scan reads (to 7.1) or ring lookups (7.2+)
RB_COUNTS = ("pages", "scan_reads", "ring_lookups")


def rb_order(d, b, case):
    """The model's predicted order for @b and @case: the growth exponent
    (log-log slope over the sizes measured) of its dominant count, the
    one of RB_COUNTS that is largest at the largest size.  The model has
    counts, not times per count, so this is a count comparison.
    Returns (exponent or None, count name, {count: exponent})."""
    sizes = rb_sizes(d, b)
    if not sizes:
        return None, None, {}
    orders = {}
    for c in RB_COUNTS:
        v = [rb_model(d, b, sz, case).get(c, 0) for sz in sizes]
        if any(v):
            orders[c] = loglog_slope(sizes, v)
    last = rb_model(d, b, sizes[-1], case)
    dom = max((c for c in orders), key=lambda c: last.get(c, 0),
              default=None)
    return (orders.get(dom) if dom else None), dom, orders


def rb_fit(d, b, case, key="register_us"):
    """The measured order: the log-log slope of the median time over
    the sizes measured, and of the fastest round's."""
    sizes = [sz for sz in rb_sizes(d, b) if rb_ms(d, b, sz, case, key)]
    if len(sizes) < 2:
        return None, None, sizes
    return (loglog_slope(sizes, [med(rb_ms(d, b, sz, case, key))
                                 for sz in sizes]),
            loglog_slope(sizes, [min(rb_ms(d, b, sz, case, key))
                                 for sz in sizes]), sizes)


def fmt_ms(x):
    if x >= 100:
        return "%.0f" % x
    if x >= 10:
        return "%.1f" % x
    return "%.2f" % x


def fmt_big(n):
    return "%.3g" % n if n >= 1e6 else "%d" % n


def rb_rows(d):
    """One row per backing and size: each case's register time, median
    (min-max) over the rounds, and the model's counts."""
    rows = []
    for b in rb_backings(d):
        for sz in rb_sizes(d, b):
            row = [b, size_str(sz)]
            for case in RB_CASES:
                t = rb_ms(d, b, sz, case)
                row.append(fmt_range(t, fmt_ms) if t else "-")
            m1 = rb_model(d, b, sz, "one")
            runs = d.rb.get((b, sz, "one"), {})
            folio = min((r["folio_min"] for r in runs.values()),
                        default=0)
            row += [fmt_range(rb_ms(d, b, sz, "one", "unregister_us"),
                              fmt_ms),
                    "%d K" % (folio // KIB) if folio else "-",
                    fmt_big(m1.get("pages", 0)), fmt_big(m1.get("heads", 0)),
                    " / ".join(fmt_big(rb_model(d, b, sz, c).get(
                        "scan_reads", 0)) for c in RB_CASES)]
            rows.append(row)
    return rows


RB_HEAD = ["backing", "size", "one buffer ms", "64 in one call ms",
           "64 one by one ms", "unregister ms (one)", "folio seen",
           "pages", "heads", "scan reads one / call / each"]


def rb_fit_rows(d):
    rows = []
    for b in rb_backings(d):
        for case in RB_CASES:
            fm, fmin, sizes = rb_fit(d, b, case)
            order, dom, orders = rb_order(d, b, case)
            if fm is None:
                continue
            rows.append([b, RB_CASE_TEXT[case],
                         "%s–%s" % (size_str(sizes[0]), size_str(sizes[-1])),
                         "%.2f" % fm, "%.2f" % fmin,
                         "%.2f (%s)" % (order, dom) if order is not None
                         else "-",
                         ", ".join("%s %.2f" % (c, o) for c, o in
                                   sorted(orders.items()) if o is not None)])
    return rows


RB_FIT_HEAD = ["backing", "case", "sizes", "fitted order (medians)",
               "fitted order (fastest round)",
               "model's order (dominant count)", "every count's order"]


def regbench_lines(d):
    if not d.rb:
        return []
    rings = sorted({r.get("ring", "charged") for runs in d.rb.values()
                    for r in runs.values()})
    out = ["registration (bench/regbench, %s ring): register ms, "
           "median (min-max) over rounds" % "/".join(rings),
           "  ".join("%-14s" % h for h in RB_HEAD[:6])]
    for r in rb_rows(d):
        out.append("  ".join("%-14s" % c for c in r[:6]))
    out.append("")
    out.append("growth order of the time against the size (log-log "
               "least squares) and the model's:")
    for r in rb_fit_rows(d):
        out.append("  %-10s %-24s %s: time %s (fastest %s), model %s" % (
            r[0], r[1], r[2], r[3], r[4], r[5]))
    out.append("")
    return out


def regbench_markdown(d):
    m = d.meta.get("regbench", {})
    L = ["\n## Registration time against buffer size (bench/regbench)\n"]
    L.append("`bench/regbench BACKING SIZE` in every round, the points in a "
             "fresh order: lib's allocator (every page faulted in), lib's "
             "probe of the real folios, lib's model "
             "(`hb_model_register_cost()`), then on a fresh ring (%s) one "
             "buffer of SIZE, 64 buffers of SIZE/64 (the same memory) in "
             "one `IORING_REGISTER_BUFFERS`, and the same 64 one by one "
             "(a sparse table and 64 updates), each timed around the "
             "system calls.  Cells are *median (min–max)* over the "
             "rounds.%s\n" % (
                 "/".join(sorted({r.get("ring", "charged")
                                  for runs in d.rb.values()
                                  for r in runs.values()})),
                 "  Capped: " + ", ".join("%s at %s" % (b, c) for b, c in
                                          sorted(m.get("cap", {}).items()))
                 + "." if m.get("cap") else ""))
    L.append(md_table(RB_HEAD, rb_rows(d)))
    L.append("\nThe growth order of the time over the sizes measured "
             "(least squares of log time on log size), beside the model's: "
             "the same slope of the model's dominant count (of pages, scan "
             "reads and ring lookups, the largest at the largest size).  "
             "The model has no time per count, so its order is a count's, "
             "not a time's.\n")
    L.append(md_table(RB_FIT_HEAD, rb_fit_rows(d)))
    return L


def plot_regbench(d, outdir):
    if not d.rb:
        return None
    base = os.path.join(outdir, "bench-registration")
    panels = []
    for case in RB_CASES:
        files = []
        for b in rb_backings(d):
            rows = [(sz, rb_ms(d, b, sz, case)) for sz in rb_sizes(d, b)]
            rows = [(sz, t) for sz, t in rows if t]
            if not rows:
                continue
            p = os.path.join(outdir, "regbench-%s-%s.dat" % (
                case, b.replace(":", "-")))
            with open(p, "w") as f:
                f.write("# buffer_MiB register_ms_median min max\n")
                for sz, t in rows:
                    f.write("%d %g %g %g\n" % (sz // MIB, med(t), min(t),
                                                max(t)))
            files.append((b, p))
        if files:
            panels.append((case, files))
    if not panels:
        return None
    xt = ("set xtics ('64M' 64, '128M' 128, '256M' 256, '512M' 512, "
          "'1G' 1024)\n")
    script = ""
    for term, out in gp_terms(base):
        script += "set terminal %s\nset output '%s'\n" % (term, out)
        script += ("set multiplot layout 1,%d title 'Registration time "
                   "against buffer size, %s (bench/regbench, %s ring; "
                   "median, bars min-max)'\n" % (
                       len(panels), d.meta.get("kernel", ""),
                       "/".join(sorted({r.get("ring", "charged")
                                        for runs in d.rb.values()
                                        for r in runs.values()}))))
        for case, files in panels:
            script += ("reset\nset logscale xy 2\n%sset grid\nset key top "
                       "left font ',9'\nset xlabel 'size'\nset ylabel "
                       "'ms'\nset xrange [48:1400]\nset format y '%%g'\n"
                       "set title '%s'\n" % (xt, RB_CASE_TEXT[case]))
            script += "plot " + ", \\\n     ".join(
                "'%s' using 1:2:3:4 with yerrorlines lc rgb '%s' pt %d "
                "lw 1.6 title '%s'" % (p, RB_STYLE.get(b, ("#000000", 1))[0],
                                       RB_STYLE.get(b, ("#000000", 1))[1], b)
                for b, p in files) + "\n"
        script += "unset multiplot\nset output\n"
    return run_gnuplot(script, base)


# ------------------------------------------------------------------ #
# the guests: regcost-probe -s in a kept kernel/ktest.sh run           #
# ------------------------------------------------------------------ #

def guest_scale(rundir):
    """{guest: {backing: {field: value}}} from the REGCOST scale lines
    (kernel/probe/regcost-probe.c -s) of rundir/console-GUEST.log.txt."""
    out = {}
    for name in sorted(os.listdir(rundir)):
        if not (name.startswith("console-") and
                name.endswith(".log.txt")):
            continue
        g = name[len("console-"):-len(".log.txt")]
        with open(os.path.join(rundir, name), errors="replace") as f:
            for line in f:
                if not line.startswith("REGCOST scale backing="):
                    continue
                v = dict(x.split("=", 1) for x in line.split()[2:]
                         if "=" in x)
                if "register_us" in v:
                    out.setdefault(g, {})[v["backing"]] = v
    return out


def guest_order(g):
    """kernels.tab's guests in release order, control/patched/debug by
    their base (6.1)."""
    base = {"control": "6.1", "patched": "6.1", "debug": "6.1"}.get(g, g)
    try:
        key = tuple(int(x) for x in base.split("."))
    except ValueError:
        key = (999,)
    return key, g


def guest_lines(rundir):
    """Each guest's 1 GiB registration time as a ratio to Debian 6.1's
    and to control's (the same 6.1 built here), beside the model's
    counts in that guest: times under TCG, once, are compared only as
    ratios."""
    gs = guest_scale(rundir)
    out = ["1 GiB registered in one call in each guest (regcost-probe -s "
           "1024, %s): time as a ratio to 6.1's and control's, beside the "
           "model's counts" % rundir,
           "| guest | backing | register ms | vs 6.1 | vs control | heads "
           "| scan reads | ring lookups | scan reads vs 6.1 |",
           "|---|---|---|---|---|---|---|---|---|"]
    for g in sorted(gs, key=guest_order):
        for b in ("thp", "shmem"):
            v = gs[g].get(b)
            if not v:
                continue
            t = float(v["register_us"]) / 1000.0

            def ratio(ref, key="register_us"):
                r = gs.get(ref, {}).get(b)
                if not r or not float(r[key]):
                    return "-"
                return "%.3f" % (float(v[key]) / float(r[key]))
            out.append("| %s | %s | %.1f | %s | %s | %s | %s | %s | %s |" % (
                g, b, t, ratio("6.1"), ratio("control"), v["heads"],
                v["scan_reads"], v["ring_lookups"],
                ratio("6.1", "scan_reads")))
    if len(out) == 3:
        out.append("(no REGCOST scale lines in %s)" % rundir)
    return out


def main(results, outdir):
    d = Data(results)
    d.path = results
    if not d.meta:
        sys.exit("bench: no results in %s: run make bench first" % results)
    global MODEL_KERNEL
    rel = str(d.meta.get("kernel", ""))
    MODEL_KERNEL = ".".join(rel.split("-")[0].split(".")[:2]) or None
    console(d)
    plots = []
    for metric, ylabel, title, logy in (
            ("mibs", "MiB/s", "Bandwidth against block size", False),
            ("cpu_gib", "CPU-seconds per GiB (whole fio process)",
             "CPU per GiB against block size", True),
            ("req_io", "device requests per I/O",
             "Requests per I/O against block size (coalescing signal)",
             True)):
        p = plot_sweep(d, outdir, metric, ylabel, title, logy)
        if p:
            plots.append(p)
    p = plot_reg(d, outdir)
    if p:
        plots.append(p)
    p = plot_regbench(d, outdir)
    if p:
        plots.append(p)
    path = markdown(d, outdir, plots)
    print("\nreport: %s; plots: %s" % (
        path, ", ".join(os.path.basename(p) + ".{png,svg}" for p in plots)
        or "none"))


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--guests":
        print("\n".join(guest_lines(sys.argv[2])))
        sys.exit(0)
    if len(sys.argv) != 3:
        sys.exit("usage: report.py RESULTS.jsonl OUTDIR\n"
                 "       report.py --guests KEPT_KTEST_RUN_DIR")
    main(sys.argv[1], sys.argv[2])
