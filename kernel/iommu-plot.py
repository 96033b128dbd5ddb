#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
#
# kernel/iommu-plot.py RUNDIR OUTBASE: the DMA-mapping work of one 8 MiB
# READ_FIXED on the block path under qemu's emulated Intel IOMMU, per
# kernel and buffer backing, from the consoles of kernel/ktest.sh's IOMMU
# guests (RUNDIR/console-<kernel>-iommu.log.txt, kept by KTEST_KEEP=1).
# The lines read are kernel/probe/iommu-profile.c's:
#   IOMMUPROF <label> ios=N requests_min=R data=...
#   IOMMUPROF <label> sym=NAME hits=H min=M   (H summed over the N
#                                                     I/Os: per I/O H/N)
#   IOMMUPROF <label> ptes map_calls=.. map_4k=A map_2m=B ... missed=0
#                                                    (already per I/O: the
#                                                     minimum over windows)
# with <label> = "mode=M path=P op=O backing=B size=S".
#
# Writes (python3, stdlib only; gnuplot for the pictures):
#   OUTBASE.png, OUTBASE.svg   5 panels side by side, log y, x = kernel,
#                              one bar per backing (2M, THP, 4K)
#   OUTBASE.gp                 the gnuplot script (also without gnuplot)
#   OUTBASE-<panel>.dat        one per panel: the numbers plotted
#   OUTBASE.md                 a Markdown table of the same numbers
# Exit 0 (also when gnuplot is missing: one line says so), 1 when RUNDIR
# is missing or holds no IOMMUPROF line.

import os
import re
import shutil
import subprocess
import sys

# ---- style: copied from bench/report.py (gp_terms(), BACKING_STYLE and
# run_gnuplot()'s behaviour); keep the two in sync ----
BACKING_STYLE = {"4k": ("#d62728", 7), "thp": ("#ff7f0e", 9),
                 "hugetlb": ("#1f77b4", 5)}


def gp_terms(base):
    return [("pngcairo noenhanced size 1400,640 font 'DejaVu Sans,11'",
             base + ".png"),
            ("svg noenhanced size 1400,640 dynamic font 'DejaVu Sans,11'",
             base + ".svg")]


# ---- what is plotted ----
SIZE = 8388608			# 8 MiB
PATH = "block"
OP = "read"			# READ_FIXED
# the probe's backing names, in plot order, with their style and title
BACKINGS = [("2M", "hugetlb", "2M (hugetlb)"), ("thp", "thp", "THP"),
            ("4k", "4k", "4K")]
# console-<kernel>-iommu.log.txt: known kernels first, in this order
KERNELS = [("control", "6.1"), ("6.1", "Debian 6.1"),
           ("patched", "6.1 + series"), ("6.12", "6.12"), ("7.3", "7.3")]
ZERO_AT = 0.5			# a 0 on a log axis is drawn here
TITLE = ("Under an IOMMU (qemu intel-iommu, TCG): DMA-mapping work per "
         "8 MiB READ_FIXED, counted")
FIX = "run KTEST_KEEP=1 kernel/ktest.sh first"

LOG_RE = re.compile(r"^console-(.+)-iommu\.log\.txt$")
LINE_RE = re.compile(r"IOMMUPROF (mode=\S+ path=\S+ op=\S+ backing=\S+ "
                     r"size=\d+) (.*)$")


def die(msg):
    print("iommu-plot: %s" % msg, file=sys.stderr)
    sys.exit(1)


def kv(text):
    return dict(w.split("=", 1) for w in text.split() if "=" in w)


def label_of(kernel):
    return dict(KERNELS).get(kernel, kernel)


def find_logs(rundir):
    """[(kernel, path)]: the known kernels in KERNELS' order, then others"""
    found = {}
    for name in os.listdir(rundir):
        m = LOG_RE.match(name)
        if m:
            found[m.group(1)] = os.path.join(rundir, name)
    order = [k for k, _ in KERNELS if k in found]
    order += sorted(k for k in found if k not in order)
    return [(k, found[k]) for k in order]


def parse_log(path):
    """{(mode, backing): {"ios", "requests", "sym": {name: per I/O},
    "map_4k", "map_2m"}} for the 8 MiB block reads of one console"""
    cases = {}
    with open(path, "rb") as f:
        text = f.read().decode(errors="replace")
    for line in text.splitlines():
        m = LINE_RE.search(line.rstrip("\r"))
        if not m:
            continue
        lab, rest = kv(m.group(1)), m.group(2)
        if (lab["path"] != PATH or lab["op"] != OP or
                int(lab["size"]) != SIZE):
            continue
        c = cases.setdefault((lab["mode"], lab["backing"]),
                             {"sym": {}, "hits": {}})
        v = kv(rest)
        if "ios" in v:
            c["ios"] = int(v["ios"])
            c["requests"] = int(v["requests_min"])
        elif "sym" in v:
            c["hits"][v["sym"]] = int(v["hits"])
        elif rest.startswith("ptes ") and v.get("missed") == "0":
            c["map_4k"] = int(v["map_4k"])
            c["map_2m"] = int(v["map_2m"])
    for c in cases.values():
        n = c.get("ios")
        if n:
            c["sym"] = {s: h / n for s, h in c["hits"].items()}
    return cases


def fmt(v):
    if v is None:
        return "–"
    return "%d" % v if v == int(v) else "%.2f" % v


# ---- the figures: (key, panel title, ylabel, getter(cases, backing)) ----
def sym_of(mode, sym):
    def get(cases, bk):
        return cases.get((mode, bk), {}).get("sym", {}).get(sym)
    return get


def maps_of(mode):
    """__iommu_map, or 7.x's iommu_map_nosync() where the kernel has no
    __iommu_map (the profile counts what the kernel has)"""
    def get(cases, bk):
        sym = cases.get((mode, bk), {}).get("sym", {})
        return sym.get("__iommu_map", sym.get("iommu_map_nosync"))
    return get


def ptes(cases, bk):
    c = cases.get(("strict", bk), {})
    if "map_4k" not in c:
        return None
    return c["map_4k"] + c["map_2m"]


# (key, title, ylabel, getter, mode named in the title)
PANELS = [
    ("ptes", "IOMMU PTEs written (4K + 2M)", "PTEs per I/O", ptes,
     "strict"),
    ("iommu-map", "__iommu_map (7.x: iommu_map_nosync)",
     "calls per I/O", maps_of("strict"), "strict"),
    ("iova", "IOVA allocs (alloc_iova_fast)", "calls per I/O",
     sym_of("strict", "alloc_iova_fast"), "strict"),
    ("iotlb", "IOTLB syncs (intel_iommu_tlb_sync)", "calls per I/O",
     sym_of("strict", "intel_iommu_tlb_sync"), "strict"),
    ("iotlb-lazy", "IOTLB syncs (intel_iommu_tlb_sync)", "calls per I/O",
     sym_of("lazy", "intel_iommu_tlb_sync"), "lazy"),
]


def write_dat(base, key, title, get, runs):
    """one row per kernel: index, then per backing the value ('?' when
    not counted), then the value drawn (0 -> ZERO_AT)"""
    path = "%s-%s.dat" % (base, key)
    top = ZERO_AT
    with open(path, "w") as f:
        f.write("# %s per 8 MiB READ_FIXED (block), per I/O\n" % title)
        f.write("# index kernel %s %s\n" % (
            " ".join(b for b, _, _ in BACKINGS),
            " ".join("drawn_" + b for b, _, _ in BACKINGS)))
        for i, (k, cases) in enumerate(runs):
            vals = [get(cases, b) for b, _, _ in BACKINGS]
            top = max([top] + [v for v in vals if v is not None])
            f.write("%d \"%s\" %s %s\n" % (
                i, label_of(k),
                " ".join("?" if v is None else "%g" % v for v in vals),
                " ".join("?" if v is None else "%g" % max(v, ZERO_AT)
                         for v in vals)))
    return path, top


def gp_panel(path, top, title, ylabel, nkernels, mode):
    """clustered bars: x = kernel, one bar per backing, its count above
    it; the y range leaves a decade free at the top for the note"""
    nb = len(BACKINGS)
    w = 0.8 / nb
    s = ("reset\nset logscale y\nset yrange [0.4:%g]\nset format y '%%g'\n"
         "set grid ytics\nset xrange [-0.6:%g]\nset style fill solid 0.85 "
         "border -1\nset boxwidth %g absolute\nset datafile missing '?'\n"
         "set key outside below horizontal maxcols 3 samplen 2 width -2 "
         "font ',9'\n"
         "unset xlabel\nset ylabel '%s'\n"
         "set xtics rotate by 25 right font ',8'\n"
         "set title \"%s\\nper I/O, %s mode\" font ',10'\n"
         "set label 1 'a 0 is drawn at %g' at graph 0.02, graph 0.96 "
         "front font ',9'\n" % (top * 12, nkernels - 0.4, w, ylabel, title,
                                mode, ZERO_AT))
    parts = []
    for j, (b, st, name) in enumerate(BACKINGS):
        off = (j - (nb - 1) / 2.0) * w
        col = 3 + nb + j
        xt = ":xtic(2)" if j == 0 else ""
        parts.append("'%s' using ($1%+g):%d%s with boxes lc rgb '%s' "
                     "title '%s'" % (path, off, col, xt,
                                     BACKING_STYLE[st][0], name))
        parts.append("'%s' using ($1%+g):%d:(sprintf('%%g', column(%d))) "
                     "with labels offset 0,0.6 font ',8' notitle" % (
                         path, off, col, 3 + j))
    return s + "plot " + ", \\\n     ".join(parts) + "\n"


def run_gnuplot(script, base):
    gp = base + ".gp"
    with open(gp, "w") as f:
        f.write("# generated by kernel/iommu-plot.py\n" + script)
    if not shutil.which("gnuplot"):
        print("iommu-plot: gnuplot not found, plot skipped: apt-get install "
              "gnuplot", file=sys.stderr)
        return None
    p = subprocess.run(["gnuplot", gp], stderr=subprocess.PIPE)
    if p.returncode:
        print("iommu-plot: gnuplot failed on %s: %s" % (
            gp, p.stderr.decode(errors="replace").strip()), file=sys.stderr)
        return None
    return base


MD_HEAD = ["kernel", "backing", "requests", "PTEs 4K", "PTEs 2M",
           "__iommu_map", "IOVA allocs", "IOTLB syncs strict",
           "IOTLB syncs lazy"]


def write_md(base, runs):
    rows = []
    for k, cases in runs:
        for b, _, name in BACKINGS:
            st = cases.get(("strict", b), {})
            if not st:
                continue
            rows.append([label_of(k), name, fmt(st.get("requests")),
                         fmt(st.get("map_4k")), fmt(st.get("map_2m")),
                         fmt(maps_of("strict")(cases, b)),
                         fmt(sym_of("strict", "alloc_iova_fast")(cases, b)),
                         fmt(sym_of("strict", "intel_iommu_tlb_sync")(
                             cases, b)),
                         fmt(sym_of("lazy", "intel_iommu_tlb_sync")(
                             cases, b))])
    out = ["Per 8 MiB READ_FIXED on the block path, per I/O (strict unless "
           "named; requests: the minimum over the windows; __iommu_map: "
           "iommu_map_nosync on 7.x; IOVA allocs: alloc_iova_fast; IOTLB "
           "syncs: intel_iommu_tlb_sync; –: not counted). From "
           "kernel/probe/iommu-profile.c under qemu intel-iommu (TCG).", "",
           "| " + " | ".join(MD_HEAD) + " |",
           "|" + "|".join("---" for _ in MD_HEAD) + "|"]
    out += ["| " + " | ".join(r) + " |" for r in rows]
    with open(base + ".md", "w") as f:
        f.write("\n".join(out) + "\n")


def main(argv):
    if len(argv) != 3:
        print("usage: kernel/iommu-plot.py RUNDIR OUTBASE", file=sys.stderr)
        return 1
    rundir, base = argv[1], argv[2]
    if not os.path.isdir(rundir):
        die("no directory %s: %s" % (rundir, FIX))
    runs = []
    for k, path in find_logs(rundir):
        cases = parse_log(path)
        if cases:
            runs.append((k, cases))
    if not runs:
        die("no IOMMUPROF lines of an 8 MiB block read in %s/console-*-"
            "iommu.log.txt: %s" % (rundir, FIX))
    write_md(base, runs)
    script = ""
    dats = [write_dat(base, key, title, get, runs) + (title, ylabel, mode)
            for key, title, ylabel, get, mode in PANELS]
    for term, out in gp_terms(base):
        script += "set terminal %s\nset output '%s'\n" % (term, out)
        script += "set multiplot layout 1,%d title '%s'\n" % (
            len(dats), TITLE)
        for path, top, title, ylabel, mode in dats:
            script += gp_panel(path, top, title, ylabel, len(runs), mode)
        script += "unset multiplot\nset output\n"
    run_gnuplot(script, base)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
