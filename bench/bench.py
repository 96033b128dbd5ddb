#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
#
# hugebuf vs fio's built-in io_uring engine, side by side (bench/bench.sh).
#
# Workloads on one O_DIRECT file, both engines with registered files:
#   randread 8M qd16, randwrite 8M qd16, randread 4K qd32
# Engines:
#   built-in  ioengine=io_uring fixedbufs=1 mem=shmhuge hugepage-size=2M
#             registerfiles=1 (its best configuration)
#   hugebuf   the engine's defaults (hugetlb 2M, per-io, fixed buffers,
#             DEFER_TASKRUN) + registerfiles
# The engines alternate inside every round and the order flips each round,
# so drift on a noisy machine hits both; medians over the rounds are shown.
#
# CPU is the whole fio process tree: fio runs as our child and we take its
# rusage from wait4().  That includes fio's job processes (fio waits for
# them) and every thread of theirs; io_uring's io-wq workers and the SQPOLL
# thread are threads of the job process (create_io_thread()), so their time
# is in it too.  fio's own usr/sys is per job thread and misses them.
#
# Requests per I/O are the device's completed reads+writes
# (/sys/block/<dev>/stat) over the I/Os fio did: approximate if anything
# else uses the disk meanwhile.
import json
import os
import statistics
import subprocess
import sys
import time

GIB = 1 << 30


def whole_disk(path):
    st = os.stat(path)
    sysdev = "/sys/dev/block/%d:%d" % (os.major(st.st_dev), os.minor(st.st_dev))
    real = os.path.realpath(sysdev)
    if os.path.exists(os.path.join(real, "partition")):
        real = os.path.dirname(real)
    return os.path.basename(real)


def disk_ios(dev):
    f = open("/sys/block/%s/stat" % dev).read().split()
    return int(f[0]) + int(f[4])


def run_fio(fio, args, dev):
    before = disk_ios(dev) if dev else 0
    t0 = time.monotonic()
    p = subprocess.Popen([fio, "--output-format=json"] + args,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    out, err = b"", b""
    # read everything, then reap with wait4 for the rusage
    out, err = p.stdout.read(), p.stderr.read()
    _, status, ru = os.wait4(p.pid, 0)
    p.returncode = os.waitstatus_to_exitcode(status)
    wall = time.monotonic() - t0
    after = disk_ios(dev) if dev else 0
    text = out.decode(errors="replace")
    if p.returncode:
        sys.stderr.write(err.decode(errors="replace"))
        sys.stderr.write(text[-2000:])
        raise SystemExit("bench: fio failed (%d): %s" % (p.returncode, " ".join(args)))
    j = json.loads(text[text.find("\n{") + 1:] if not text.startswith("{") else text)
    job = j["jobs"][0]
    moved = job["read"]["io_bytes"] + job["write"]["io_bytes"]
    ios = job["read"]["total_ios"] + job["write"]["total_ios"]
    d = job["read"] if job["read"]["total_ios"] else job["write"]
    pct = d["clat_ns"].get("percentile", {})
    runtime = max(job["read"]["runtime"], job["write"]["runtime"]) / 1000.0
    return {
        "mibs": moved / (1 << 20) / runtime if runtime else 0,
        "iops": ios / runtime if runtime else 0,
        "cpu_gib": (ru.ru_utime + ru.ru_stime) / (moved / GIB) if moved else 0,
        "cpu": ru.ru_utime + ru.ru_stime,
        "p50": pct.get("50.000000", 0) / 1000.0,
        "p99": pct.get("99.000000", 0) / 1000.0,
        "req_io": (after - before) / ios if ios else 0,
        "wall": wall,
    }


def main():
    fio = os.environ.get("FIO", "fio")
    engine = os.environ["HUGEBUF_ENGINE"]
    path = os.environ["HUGEBUF_BENCH_FILE"]
    size = os.environ.get("HUGEBUF_BENCH_SIZE", "2G")
    runtime = os.environ.get("HUGEBUF_BENCH_RUNTIME", "5")
    rounds = int(os.environ.get("HUGEBUF_BENCH_ROUNDS", "3"))
    dev = whole_disk(path)

    common = ["--filename=" + path, "--size=" + size, "--direct=1",
              "--time_based", "--runtime=" + runtime, "--ramp_time=1",
              "--randrepeat=0", "--norandommap"]
    engines = {
        "built-in": ["--ioengine=io_uring", "--fixedbufs=1",
                     "--registerfiles=1", "--mem=shmhuge",
                     "--hugepage-size=2M"],
        "hugebuf": ["--ioengine=external:" + engine, "--registerfiles",
                    "--report=off"],
    }
    workloads = [
        ("randread 8M qd16", ["--rw=randread", "--bs=8M", "--iodepth=16"]),
        ("randwrite 8M qd16", ["--rw=randwrite", "--bs=8M", "--iodepth=16"]),
        ("randread 4K qd32", ["--rw=randread", "--bs=4K", "--iodepth=32"]),
    ]
    res = {(w, e): [] for w, _ in workloads for e in engines}
    order = list(engines)
    for r in range(rounds):
        for wname, wargs in workloads:
            for e in order:
                # the engine's ioengine= must precede its options
                args = ["--name=bench"] + engines[e][:1] + common + wargs + \
                    engines[e][1:]
                res[(wname, e)].append(run_fio(fio, args, dev))
            order.reverse()
        print("bench: round %d/%d done" % (r + 1, rounds), file=sys.stderr)

    med = {k: {m: statistics.median(x[m] for x in v) for m in v[0]}
           for k, v in res.items()}
    hdr = "%-18s %-9s %9s %9s %9s %9s %9s %7s" % (
        "workload", "engine", "MiB/s", "IOPS", "CPUs/GiB", "p50 us",
        "p99 us", "req/IO")
    print("device %s, file %s (%s), %s s per run, %d rounds, medians"
          % (dev, path, size, runtime, rounds))
    print(hdr)
    print("-" * len(hdr))
    for wname, _ in workloads:
        for e in engines:
            m = med[(wname, e)]
            print("%-18s %-9s %9.0f %9.0f %9.3f %9.0f %9.0f %7.2f" % (
                wname, e, m["mibs"], m["iops"], m["cpu_gib"], m["p50"],
                m["p99"], m["req_io"]))
        a, b = med[(wname, "hugebuf")], med[(wname, "built-in")]

        def ratio(k):
            return a[k] / b[k] if b[k] else float("nan")
        print("%-18s %-9s %9.2fx %8.2fx %8.2fx %8.2fx %8.2fx %6.2fx" % (
            "", "ratio", ratio("mibs"), ratio("iops"), ratio("cpu_gib"),
            ratio("p50"), ratio("p99"), ratio("req_io")))
    print()
    print("targets: bandwidth >= 1.00x, CPU/GiB <= 0.80x, 4K IOPS >= 0.95x, "
          "2 requests per 8 MiB I/O on virtio-blk")
    spread = {k: (min(x["mibs"] for x in v), max(x["mibs"] for x in v))
              for k, v in res.items()}
    print("MiB/s range over rounds: " + "; ".join(
        "%s/%s %.0f-%.0f" % (w.split()[0] + w.split()[1], e, lo, hi)
        for (w, e), (lo, hi) in spread.items()))


if __name__ == "__main__":
    main()
