#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
#
# make bench-instr: user-space instructions per I/O, counted by callgrind,
# of fio's hooks around the engine -- td_io_queue (->queue and fio's
# accounting of it), td_io_commit (->commit) and io_u_queued_complete
# (->getevents, ->event and fio's completion work) -- for hugebuf's
# defaults and fio's built-in io_uring engine (fixedbufs=1
# registerfiles=1 mem=shmhuge), both with registerfiles and --thread (one
# process: callgrind sees the engine), a fixed number_ios (io_size=1t:
# number_ios alone ends the job), divided by the I/Os fio did, with
# LD_BIND_NOW=1 for both.  Plus hugebuf's start-up: hbe_init + hbe_post_init.
#
# Instruction counts do not depend on the machine's load, so one run per
# engine and point is enough (4K QD32 per I/O: 1735 and 1731 for fio's
# io_uring at 5,000 and 20,000 I/Os, 1819 and 1818 for hugebuf); they do depend on fio's binary, liburing
# and the kernel's answers (short reads, -EAGAIN), which the table names.
#
#   bench/instr.py [--points 4k-qd32,...] [--json FILE]
#
# Environment: HUGEBUF_ENGINE (engines/hugebuf.so), FIO (fio),
# HUGEBUF_INSTR_FILE (/var/tmp/hugebuf-instr.dat, 1 GiB, made with random
# data if missing and kept), HUGEBUF_INSTR_HUGEPAGES (2M pages the run
# needs free: 200).  Root (it raises nr_hugepages, then puts it back).
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ENGINE = os.environ.get("HUGEBUF_ENGINE",
                        os.path.join(TOP, "engines", "hugebuf.so"))
FIO = os.environ.get("FIO", "fio")
FILE = os.environ.get("HUGEBUF_INSTR_FILE", "/var/tmp/hugebuf-instr.dat")
FILE_MIB = 1024
NEED_PAGES = int(os.environ.get("HUGEBUF_INSTR_HUGEPAGES", "200"))
POOL = "/sys/kernel/mm/hugepages/hugepages-2048kB"

HOOKS = ("td_io_queue", "td_io_commit", "io_u_queued_complete")
STARTUP = ("hbe_init", "hbe_post_init")

# name, rw, bs, iodepth, number_ios, hugebuf's extra options, the
# built-in's extra options or None (no equivalent: compared with the
# built-in at the same rw/bs/iodepth, and said so)
POINTS = [
    ("4k-qd1", "randread", "4k", 1, 5000, [], []),
    ("4k-qd32", "randread", "4k", 32, 5000, [], []),
    ("128k-qd16", "randread", "128k", 16, 5000, [], []),
    ("8m-qd16", "randread", "8m", 16, 1000, [], []),
    ("4k-qd32-write", "randwrite", "4k", 32, 5000, [], []),
    ("128k-qd16-chunk32k", "randread", "128k", 16, 10000,
     ["--chunk_size=32k"], None),
    ("8m-qd16-vec4", "randread", "8m", 16, 1000,
     ["--vec_iovecs=4", "--vec_offset=4096"], None),
]
NO_EQUIV = {
    "128k-qd16-chunk32k": "fio's io_uring has no chunk_size: against "
    "its 128k READ_FIXED",
    "8m-qd16-vec4": "fio 3.33's io_uring has no READV_FIXED: against "
    "its 8m READ_FIXED",
}
PASSTHROUGH_NOTE = ("passthrough (cmd_type=nvme) against io_uring_cmd: "
                    "needs an NVMe generic char device (/dev/ng*n*)")


def die(msg):
    sys.stderr.write("bench-instr: %s\n" % msg)
    sys.exit(1)


def make_file():
    if os.path.exists(FILE) and os.path.getsize(FILE) >= FILE_MIB << 20:
        return
    sys.stderr.write("bench-instr: writing %d MiB of random data to %s\n"
                     % (FILE_MIB, FILE))
    with open("/dev/urandom", "rb") as src, open(FILE, "wb") as dst:
        for _ in range(FILE_MIB):
            dst.write(src.read(1 << 20))


def pool_read(name):
    with open(os.path.join(POOL, name)) as f:
        return int(f.read())


def pool_raise():
    """Raise the 2M pool so NEED_PAGES are free; returns the old
    nr_hugepages to restore, or None when nothing changed."""
    nr, free = pool_read("nr_hugepages"), pool_read("free_hugepages")
    if free >= NEED_PAGES:
        return None
    with open(os.path.join(POOL, "nr_hugepages"), "w") as f:
        f.write(str(nr + NEED_PAGES - free))
    if pool_read("free_hugepages") < NEED_PAGES:
        pool_restore(nr)
        die("cannot get %d free 2M hugepages (memory fragmented?): "
            "echo 3 > /proc/sys/vm/drop_caches and retry" % NEED_PAGES)
    return nr


def pool_restore(nr):
    if nr is not None:
        with open(os.path.join(POOL, "nr_hugepages"), "w") as f:
            f.write(str(nr))


def engine_args(which, point):
    if which == "hugebuf":
        return ["--ioengine=external:" + ENGINE, "--registerfiles"] + \
            point[5]
    return ["--ioengine=io_uring", "--fixedbufs=1", "--registerfiles=1",
            "--mem=shmhuge", "--hugepage-size=2M"] + (point[6] or [])


def fio_args(which, point):
    name, rw, bs, depth, nios = point[:5]
    return ["--name=instr", "--filename=" + FILE,
            "--size=%dm" % FILE_MIB, "--io_size=1t", "--direct=1",
            "--thread",
            "--randrepeat=0", "--norandommap", "--rw=" + rw, "--bs=" + bs,
            "--iodepth=%d" % depth, "--number_ios=%d" % nios,
            "--output-format=json"] + engine_args(which, point)


# callgrind_annotate --inclusive=yes: "  1,234 ( 0.5%)  file:fn [obj]"
LINE = re.compile(r"^\s*([\d,]+)\s+(?:\(\s*[\d.]+%\)\s+)?(\S+)")


def inclusive(outfile, names):
    p = subprocess.run(["callgrind_annotate", "--inclusive=yes",
                        "--threshold=100", outfile],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if p.returncode:
        die("callgrind_annotate failed: %s" % p.stderr.decode().strip())
    got = {}
    for line in p.stdout.decode(errors="replace").splitlines():
        m = LINE.match(line)
        fn = m.group(2).rsplit(":", 1)[-1] if m else None
        if fn in names and fn not in got:
            got[fn] = int(m.group(1).replace(",", ""))
    return got


def commit_in_queue(outfile):
    """td_io_commit's inclusive instructions in the calls td_io_queue
    makes (fio commits from td_io_queue once iodepth_batch io_us are
    queued: ioengines.c), which the sum counts twice."""
    p = subprocess.run(["callgrind_annotate", "--tree=caller",
                        "--inclusive=yes", "--threshold=100", outfile],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if p.returncode:
        die("callgrind_annotate failed: %s" % p.stderr.decode().strip())
    callers = {}
    for line in p.stdout.decode(errors="replace").splitlines():
        f = line.split()
        if not f or not f[0][0].isdigit():
            callers = {}
            continue
        n = int(f[0].replace(",", ""))
        rest = line.split(")", 1)[-1].split()
        if len(rest) >= 2 and rest[0] == "<":
            callers[rest[1].rsplit(":", 1)[-1]] = n
        elif len(rest) >= 2 and rest[0] == "*":
            if rest[1].rsplit(":", 1)[-1] == "td_io_commit":
                return callers.get("td_io_queue", 0)
            callers = {}
    return 0


def run(which, point):
    cfd, cpath = tempfile.mkstemp(prefix="hugebuf-instr-", suffix=".cg")
    os.close(cfd)
    cmd = ["valgrind", "--tool=callgrind", "--callgrind-out-file=" + cpath,
           FIO] + fio_args(which, point)
    # symbols bound at load: the first call of each of the engine's
    # imports (fio_gettime, io_u_queued, liburing) would otherwise charge
    # ld.so's lazy binding, a start-up cost, to the first I/O's hooks
    envv = dict(os.environ, LD_BIND_NOW="1")
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, env=envv)
        if p.returncode:
            die("%s failed (exit %d):\n%s" % (
                " ".join(cmd), p.returncode,
                p.stderr.decode(errors="replace")[-2000:]))
        text = p.stdout.decode(errors="replace")
        try:
            j = json.loads(text[text.find("{"):])
        except ValueError:
            die("fio's JSON does not parse: %s" % " ".join(cmd))
        job = j["jobs"][0]
        ios = job["read"]["total_ios"] + job["write"]["total_ios"]
        if not ios:
            die("fio did no I/O: %s" % " ".join(cmd))
        got = inclusive(cpath, HOOKS + STARTUP)
        nested = commit_in_queue(cpath)
    finally:
        os.unlink(cpath)
    missing = [h for h in HOOKS if h not in got]
    if missing:
        die("callgrind found no %s in %s (fio without symbols?)" % (
            ", ".join(missing), " ".join(cmd)))
    r = {"ios": ios, "cmd": " ".join(cmd)}
    for h in HOOKS:
        r[h] = got[h] / float(ios)
    r["sum"] = sum(r[h] for h in HOOKS)
    # each instruction once: the commits td_io_queue makes are in it
    r["distinct"] = r["sum"] - nested / float(ios)
    if which == "hugebuf":
        r["startup"] = sum(got.get(s, 0) for s in STARTUP)
        for s in STARTUP:
            r[s] = got.get(s, 0)
    return r


def table(results):
    cols = ("td_io_queue", "td_io_commit", "io_u_queued_complete", "sum",
            "distinct")
    print("instructions per I/O (callgrind, inclusive): fio io_uring / "
          "hugebuf / ratio")
    print("| point | I/Os | " + " | ".join(cols) +
          " | hbe_init + hbe_post_init |")
    print("|---|---|" + "---|" * len(cols) + "---|")
    for name, fr, hr in results:
        cells = ["%.0f / %.0f / %.2fx" % (fr[c], hr[c], hr[c] / fr[c])
                 for c in cols]
        cells[-2] = "**" + cells[-2] + "**"
        print("| %s | %d / %d | %s | %.2f M |" % (
            name, fr["ios"], hr["ios"], " | ".join(cells),
            hr["startup"] / 1e6))
    print("- sum: the three hooks' inclusive counts as issue 31 defines it; "
          "fio calls td_io_commit from td_io_queue, so the sum counts "
          "those commits twice; distinct: each instruction once")
    for name, _, _ in results:
        if name in NO_EQUIV:
            print("- %s: %s" % (name, NO_EQUIV[name]))
    print("- not run: " + PASSTHROUGH_NOTE)


def main():
    ap = argparse.ArgumentParser(description="instructions per I/O, "
                                 "hugebuf against fio's io_uring")
    ap.add_argument("--points", default="",
                    help="comma separated: " +
                    ",".join(p[0] for p in POINTS))
    ap.add_argument("--json", help="also write the results here")
    a = ap.parse_args()
    want = [x for x in a.points.split(",") if x]
    unknown = [x for x in want if x not in [p[0] for p in POINTS]]
    if unknown:
        die("unknown point %s: use one of %s" % (
            ",".join(unknown), ",".join(p[0] for p in POINTS)))
    if not os.path.exists(ENGINE):
        die("no engine at %s: run make" % ENGINE)
    for tool in ("valgrind", "callgrind_annotate", FIO):
        if not shutil.which(tool):
            die("%s not found: apt-get install valgrind fio" % tool)
    make_file()
    old = pool_raise()
    results = []
    try:
        for point in POINTS:
            if want and point[0] not in want:
                continue
            fr = run("io_uring", point)
            hr = run("hugebuf", point)
            results.append((point[0], fr, hr))
            sys.stderr.write("bench-instr: %s: sum %.0f / %.0f = %.2fx\n" %
                             (point[0], fr["sum"], hr["sum"],
                              hr["sum"] / fr["sum"]))
    finally:
        pool_restore(old)
    table(results)
    if a.json:
        with open(a.json, "w") as f:
            json.dump([{"point": n, "io_uring": fr, "hugebuf": hr}
                       for n, fr, hr in results], f, indent=1)


if __name__ == "__main__":
    main()
