#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
#
# hugebuf vs fio's built-in io_uring engine, side by side (bench/bench.sh).
#
#   bench.py [--full] [--report-only]
#
# Sections (all on one O_DIRECT file, both engines with registered files):
#   sweep  randread/randwrite over block sizes; hugebuf with backing
#          4k/thp/hugetlb x fixed/plain buffers, fio's io_uring with
#          fixedbufs on/off x mem=malloc/shmhuge (2M)
#   reg    registration cost against buffer size per backing: the engine's
#          timed io_uring_register_buffers, its model (imu bytes, bvecs),
#          one READ_FIXED of the whole buffer (device requests), and the
#          CLI's `hugebuf check --json` (kernel memory per registration)
#   regbench  bench/regbench in every round, per backing (4k, thp,
#          mthp:16K, mthp:64K, hugetlb:2M, memfd, shm) and size (64M..1G):
#          one buffer, and a table of 64 slices of it in one call and one
#          by one, each timed on a charged ring beside lib's count model
#          (pages, heads, scan_reads, ring_lookups).  HUGEBUF_BENCH_ONLY=
#          regbench runs this section alone (no scratch file, no fio).
#   chunk  32 MiB I/O from plain (non-fixed) hugetlb buffers, chunk_size
#          off and on: bandwidth and p50/p99 completion latency
#   entries kernel entries per I/O: io_uring_enter calls of the whole fio
#          process under `strace -f -c` for a fixed number_ios, hugebuf
#          with its defaults against fio's io_uring in its best
#          configuration (fixedbufs, mem=shmhuge): 4 KiB randread at
#          iodepth 1 and 32, 128 KiB randread, 8 MiB randread and
#          randwrite.  Counts, not times: strace slows the run, so these
#          runs are separate from the timed ones.
#
# Every configuration of one point (workload, block size) runs back to
# back inside a round, in a fresh order each round, so drift on a noisy
# machine hits them alike; ratios are taken per round between runs that
# were neighbours in time, and the median (min-max) over rounds is shown.
#
# CPU: fio runs with --thread, so the whole fio process is one thread
# group: job threads, io_uring's io-wq workers and SQPOLL thread
# (create_io_thread() makes them threads of the submitting process).  We
# sample the nanosecond sum_exec_runtime of every thread
# (/proc/PID/task/*/schedstat) and the device counters every 50 ms, find
# the interval where the device moved the workload's data, and charge the
# CPU spent inside it (trimmed at both ends) to the bytes fio moved in it.
# That leaves out setup (allocation, fio's buffer fill, registration,
# probing), which a few-second run would otherwise dominate; the whole
# run's CPU from wait4() is kept as well (cpu_run).  Interrupt time on
# other tasks is charged to nobody, the same for both engines.
#
# Requests per I/O: the device's completed requests in the workload's
# direction during the run over fio's I/Os (all of them: no ramp_time).
# Other I/O on the disk only adds, so the minimum over rounds is the
# signal.
import json
import math
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fragment  # noqa: E402
import pfnscan  # noqa: E402
import report  # noqa: E402
from units import GIB, KIB, MIB, parse_size, size_str  # noqa: E402,F401

SAMPLE = 0.05
TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def env(name, default):
    v = os.environ.get(name)
    return v if v else default


# ------------------------------------------------------------------ #
# configurations                                                       #
# ------------------------------------------------------------------ #

class Config:
    def __init__(self, name, engine, args, builtin, backing, fixed,
                 frag=False, points=None):
        self.name = name
        self.engine = engine
        self.args = args
        self.builtin = builtin
        self.backing = backing
        self.fixed = fixed
        # run after bench/fragment.py left isolated frames on every
        # CPU's free lists; only at @points (None: everywhere)
        self.frag = frag
        self.points = points

    def runs_at(self, rw, bs):
        return self.points is None or (rw, bs) in self.points


# the 4 KiB pair also run "fragmented": both sides' buffers drawn from
# free lists of isolated frames (bench/fragment.py), at the points
# whose CPU per GiB the like-for-like table compares
FRAG_POINTS = (("randread", "8M"), ("randread", "32M"))
FRAG_SUFFIX = " fragmented"
# seconds of the fragmenter's set-up per GiB of the job's buffers, for
# the run's time estimate
FRAG_S_PER_GIB = 11


def configs(engine_so, full):
    out = []
    backings = ["4k", "thp", "hugetlb"]
    fixeds = [1, 0] if full else [1]
    if not full:
        backings = ["4k", "hugetlb"]
    for b in backings:
        for f in fixeds:
            out.append(Config(
                "hugebuf %s %s" % (b, "fixed" if f else "plain"),
                "--ioengine=external:" + engine_so,
                ["--backing=" + b, "--fixedbufs=%d" % f,
                 "--registerfiles", "--report=off"], False, b, f))
    mems = ["malloc", "shmhuge"]
    for m in mems:
        for f in fixeds:
            out.append(Config(
                "io_uring %s %s" % (m, "fixed" if f else "plain"),
                "--ioengine=io_uring",
                ["--fixedbufs=%d" % f, "--registerfiles=1", "--mem=" + m,
                 "--hugepage-size=2M"], True,
                "4k" if m == "malloc" else "shm 2M", f))
    if fragment.factor() > 0:
        out.extend(frag_configs(out))
    out.extend(pin_configs(out))
    return out


def frag_configs(cfgs):
    """The 4 KiB pair (hugebuf 4k fixed, io_uring malloc fixed) again,
    each run after the fragmenter, at FRAG_POINTS only."""
    out = []
    for c in cfgs:
        if c.backing == "4k" and c.fixed:
            out.append(Config(c.name + FRAG_SUFFIX, c.engine, c.args,
                              c.builtin, c.backing, c.fixed, frag=True,
                              points=FRAG_POINTS))
    return out


# hugebuf's 4 KiB fixed buffers again with contig=pin: left untouched
# for the registration's long-term pin to fault in, so they come from
# the unmovable free lists as fio's untouched malloc buffers of a read
# job do (docs/lib-notes.md): the as-drawn pair drawn from the same
# lists.  Read points only (a writing job fills its buffers first).
PIN_POINTS = FRAG_POINTS
PIN_SUFFIX = " pinned"


def pin_configs(cfgs):
    """hugebuf 4k fixed as drawn, again with contig=pin at PIN_POINTS;
    report.py pairs it with io_uring malloc fixed by its name."""
    return [Config(c.name + PIN_SUFFIX, c.engine, c.args + ["--contig=pin"],
                   c.builtin, c.backing, c.fixed, points=PIN_POINTS)
            for c in cfgs if c.backing == "4k" and c.fixed and
            not c.builtin and not c.frag]


# ------------------------------------------------------------------ #
# measurement                                                          #
# ------------------------------------------------------------------ #

def whole_disk(path):
    # the file's directory when there is no file (HUGEBUF_BENCH_ONLY)
    st = os.stat(path if os.path.exists(path) else os.path.dirname(path))
    sysdev = "/sys/dev/block/%d:%d" % (os.major(st.st_dev),
                                       os.minor(st.st_dev))
    real = os.path.realpath(sysdev)
    if os.path.exists(os.path.join(real, "partition")):
        real = os.path.dirname(real)
    return os.path.basename(real)


def disk_stat(dev):
    f = open("/sys/block/%s/stat" % dev).read().split()
    # reads completed, sectors read, writes completed, sectors written
    return int(f[0]), int(f[2]), int(f[4]), int(f[6])


def thread_kind(pid, tid, comm=None):
    """Which of fio's threads @tid is: "main" (the process's own thread),
    "iou" (io_uring's io-wq workers and SQPOLL thread, iou-wrk-N and
    iou-sqp-N) or "job" (fio's job threads and its helper thread).
    @comm is the thread's name, read from /proc when not given."""
    if tid == str(pid):
        return "main"
    if comm is None:
        try:
            with open("/proc/%d/task/%s/comm" % (pid, tid)) as f:
                comm = f.read()
        except OSError:
            return "job"
    return "iou" if comm.startswith("iou-") else "job"


def tree_cpu_ns(pid, seen, kinds=None):
    """Sum of sum_exec_runtime over the threads of @pid; a thread that
    exited keeps its last sampled value in @seen.  With @kinds, each
    thread's kind (thread_kind()) is kept there by tid."""
    base = "/proc/%d/task" % pid
    try:
        tids = os.listdir(base)
    except OSError:
        return None
    for tid in tids:
        try:
            with open("%s/%s/schedstat" % (base, tid)) as f:
                seen[tid] = int(f.read().split()[0])
        except (OSError, ValueError, IndexError):
            continue
        if kinds is not None and tid not in kinds:
            kinds[tid] = thread_kind(pid, tid)
    return sum(seen.values())


# the kinds thread_kind() gives, in the order reports print them
THREAD_KINDS = ("main", "job", "iou")


def cpu_by_kind(seen, kinds):
    """@seen's nanoseconds summed per thread kind."""
    out = dict.fromkeys(THREAD_KINDS, 0)
    for tid, ns in seen.items():
        out[kinds.get(tid, "job")] += ns
    return out


def vmpin_kb(pid):
    """VmPin of a process in kB (0 when it is gone or has none)."""
    try:
        with open("/proc/%d/status" % pid) as f:
            for line in f:
                if line.startswith("VmPin:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def loadavg():
    return float(open("/proc/loadavg").read().split()[0])


def io_window(samples, write, runtime, bw):
    """The steady part of fio's I/O, as (i0, i1) indexes into samples.
    The block statistics advance in bursts, so rates are taken over
    ~150 ms.  The I/O ends at the last sample moving at least 30% of fio's
    bandwidth @bw (bytes/s) in the workload's direction; it began
    @runtime seconds before that (time_based), or later if the device
    was quiet until then.  Other I/O on the disk can make the start look
    early but not earlier than that bound, and setup (allocation, buffer
    fill, registration) is left out.  Both ends are trimmed."""
    k = 3 if write else 1
    span = 3
    if len(samples) <= span or bw <= 0:
        return None

    def rate(i):
        a, b = samples[i - span], samples[i]
        return (b["disk"][k] - a["disk"][k]) * 512 / (b["t"] - a["t"])
    busy = [i for i in range(span, len(samples)) if rate(i) > 0.3 * bw]
    if not busy:
        return None
    t_end = samples[busy[-1]]["t"]
    t_first = samples[busy[0] - span]["t"]
    t_start = max(t_first, t_end - runtime)
    head = min(0.25, (t_end - t_start) * 0.15)
    tail = min(0.15, (t_end - t_start) * 0.1)
    i0 = next(i for i, x in enumerate(samples) if x["t"] >= t_start + head)
    i1 = max(i for i, x in enumerate(samples) if x["t"] <= t_end - tail)
    if i1 <= i0 or samples[i1]["t"] - samples[i0]["t"] < \
            min(0.5, runtime * 0.3):
        return None
    return i0, i1


def cli_json(*args):
    """`hugebuf ARGS --json` (the CLI of this tree, $HUGEBUF_CLI): the
    pool and queue facts come from lib/, not from a copy here."""
    cmd = [CLI] + list(args) + ["--json"]
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        return json.loads(p.stdout)
    except ValueError:
        raise FioError("%s failed (exit %d): %s" % (
            " ".join(cmd), p.returncode,
            p.stderr.decode(errors="replace").strip()))


def pool_settle(limit=5.0):
    """Wait for the 2M pool to settle after the previous run.  When a
    process with hugetlb buffers registered in io_uring exits, the ring
    is torn down later (io_ring_exit_work) and its pages come back after
    the process is gone; meanwhile resv_hugepages reads as a wrapped
    negative number (2^64 - N, seen on 6.18).  lib's pool check ignores
    such a resv (lib/resource/preflight.c), but the pages are not free yet either:
    wait while `hugebuf info --json` shows the default pool that way."""
    t_end = time.monotonic() + limit
    while time.monotonic() < t_end:
        try:
            pools = cli_json("info")["pools"]
            p = next(x for x in pools if x.get("default"))
        except (FioError, KeyError, StopIteration):
            return
        if p["resv"] <= p["nr"] + p["surplus"]:
            return
        time.sleep(0.02)


class FioError(Exception):
    pass


def run_fio(fio, args, dev, write, bs, runtime, report_json=None,
            buf_bytes=0, frag_bytes=0, tracer=None):
    outfd, outpath = tempfile.mkstemp(prefix="hugebuf-bench-", suffix=".json")
    os.close(outfd)
    envv = dict(os.environ)
    if report_json:
        envv["HUGEBUF_REPORT_JSON"] = report_json
    pool_settle()
    # the fragmenter's holders keep their frames until fio has exited
    holders = None
    if frag_bytes:
        try:
            holders = fragment.Holders(fragment.pages_for(frag_bytes))
        except OSError as e:
            raise FioError(str(e))
    load = loadavg()
    # bench/threadevents.py: the trace runs from just before fio starts
    # to its exit, and is counted over the CPU window below
    if tracer:
        tracer.start()
    t0 = time.monotonic()
    d0 = disk_stat(dev)
    try:
        p = subprocess.Popen([fio, "--output-format=json",
                              "--output=" + outpath] + args,
                             stdout=subprocess.DEVNULL,
                             stderr=subprocess.PIPE, env=envv)
    except OSError:
        if tracer:
            tracer.stop()
        if holders:
            holders.release()
        raise
    samples, seen, kinds = [], {}, {}
    vmpin_max = 0
    # the buffers' physical runs, read once the job is under way (the
    # pages are faulted in and registered by then)
    contig, contig_at = None, t0 + max(0.4 * runtime, 0.5)
    # sample until fio exits; wait4(WNOHANG) reaps it with its rusage
    while True:
        pid, status, ru = os.wait4(p.pid, os.WNOHANG)
        if pid:
            break
        vmpin_max = max(vmpin_max, vmpin_kb(p.pid))
        # until the buffers are there: fio may still be setting up
        if buf_bytes and contig is None and time.monotonic() >= contig_at:
            contig = pfnscan.scan(p.pid, buf_bytes)
        cpu = tree_cpu_ns(p.pid, seen, kinds)
        if cpu is not None:
            samples.append({"t": time.monotonic(), "cpu": cpu,
                            "kind": cpu_by_kind(seen, kinds),
                            "disk": disk_stat(dev)})
        time.sleep(SAMPLE)
    wall = time.monotonic() - t0
    d1 = disk_stat(dev)
    if tracer:
        tracer.stop()
    # (a holder also exits when bench does: its stdin closes)
    if holders:
        holders.release()
    err = p.stderr.read().decode(errors="replace")
    p.returncode = os.waitstatus_to_exitcode(status)
    try:
        text = open(outpath).read()
    finally:
        os.unlink(outpath)
    if p.returncode:
        raise FioError("fio failed (%d): %s\n%s%s" % (
            p.returncode, " ".join(args), err, text[-1500:]))
    j = json.loads(text[text.find("{"):])
    job = j["jobs"][0]
    d = job["write"] if write else job["read"]
    moved = d["io_bytes"]
    runtime_s = d["runtime"] / 1000.0
    pct = d["clat_ns"].get("percentile", {})
    r = {
        "mibs": moved / MIB / runtime_s if runtime_s else 0.0,
        "iops": d["total_ios"] / runtime_s if runtime_s else 0.0,
        "p50": pct.get("50.000000", 0) / 1000.0,
        "p99": pct.get("99.000000", 0) / 1000.0,
        "cpu_run": ru.ru_utime + ru.ru_stime,
        "cpu_run_gib": (ru.ru_utime + ru.ru_stime) / (moved / GIB)
        if moved else 0.0,
        "wall": wall,
        "load": load,
        "ios": d["total_ios"],
        "vmpin_max_kb": vmpin_max,
        "contig_scan": contig or None,
    }
    if holders:
        r["frag"] = holders.summary()
    k = 2 if write else 0
    win = io_window(samples, write, runtime, moved / runtime_s
                    if runtime_s else 0)
    if win:
        a, b = samples[win[0]], samples[win[1]]
        dt = b["t"] - a["t"]
        r["cpu_rate"] = (b["cpu"] - a["cpu"]) / 1e9 / dt
        # the same window's CPU per second by thread kind: where a
        # difference between two engines' CPU sits (job thread, io-wq)
        r["cpu_rate_kind"] = {k: (b["kind"][k] - a["kind"][k]) / 1e9 / dt
                              for k in b["kind"]}
        r["window"] = dt
        if tracer:
            r["events"] = tracer.count(
                lambda tid, tgid, comm: kinds.get(str(tid)) or (
                    thread_kind(p.pid, str(tid), comm or "")
                    if tgid == p.pid else None),
                a["t"], b["t"])
    else:
        # no steady interval found: no CPU figure rather than one that
        # includes setup
        r["cpu_rate"] = None
        r["window"] = 0.0
    gib_s = r["mibs"] / 1024.0
    r["cpu_gib"] = r["cpu_rate"] / gib_s if gib_s and win else None
    # fio's total_ios counts every I/O of the run (no ramp_time), so the
    # device's requests over the whole run only err upwards
    r["req_io"] = (d1[k] - d0[k]) / float(d["total_ios"]) \
        if d["total_ios"] else 0.0
    return r


# ------------------------------------------------------------------ #
# the plan                                                             #
# ------------------------------------------------------------------ #

class Plan:
    def __init__(self, full):
        self.full = full
        self.rounds = int(env("HUGEBUF_BENCH_ROUNDS", "3"))
        self.runtime = float(env("HUGEBUF_BENCH_RUNTIME",
                                 "2.5" if full else "1.5"))
        self.iodepth = int(env("HUGEBUF_BENCH_IODEPTH", "16"))
        # the large-block points of the quick run, whose CPU per GiB
        # the like-for-like table compares: a 1.5 s run leaves a CPU
        # window under a second, which swung one configuration's CPU
        # per GiB up to fourfold from round to round (bench/README.md,
        # "The 4 KiB CPU gap"); 5 s leaves 4.5 s
        cpu_rt = float(env("HUGEBUF_BENCH_CPU_RUNTIME", "5"))
        self.point_runtime = {} if full else {
            ("randread", "8M"): max(cpu_rt, self.runtime),
            ("randread", "32M"): max(cpu_rt, self.runtime)}
        # small-block IOPS point: the depth an IOPS test wants
        self.point_iodepth = {("randread", "4K"): 32}
        if full:
            bss = ["128K", "1M", "2M", "8M", "32M"]
            self.points = [(rw, bs) for rw in ("randread", "randwrite")
                           for bs in bss]
            self.reg_sizes = ["64M", "128M", "256M", "512M", "1G"]
            self.reg_backings = ["4k", "thp", "hugetlb"]
            self.chunks = ["0", "2M", "4M", "8M"]
        else:
            self.points = [("randread", bs) for bs in
                           ("4K", "128K", "1M", "8M", "32M")] + \
                          [("randwrite", "8M")]
            self.reg_sizes = ["64M", "256M", "1G"]
            self.reg_backings = ["4k", "thp", "hugetlb"]
            self.chunks = []
        # bench/regbench, every round: one buffer and a table of
        # REG_TABLE buffers in one call and one by one, per backing
        self.rb_sizes = env("HUGEBUF_BENCH_REG_SIZES",
                            "64M,128M,256M,512M,1G").split(",")
        self.rb_backings = env("HUGEBUF_BENCH_REG_BACKINGS",
                               ",".join(RB_BACKINGS)).split(",")
        # 16 KiB mTHP is quadratic up to 7.1: 1 GiB took 16 s on 6.18
        # (one buffer, then about as long again one by one), so bench
        # stops it at 256 MiB and bench-full runs it whole
        self.rb_cap = {} if full else {"mthp:16K": parse_size("256M")}
        self.only = env("HUGEBUF_BENCH_ONLY", "")

    def runtime_of(self, rw, bs):
        """The run length of the point (rw, bs) in seconds."""
        return self.point_runtime.get((rw, bs), self.runtime)


RB_BACKINGS = ("4k", "thp", "mthp:16K", "mthp:64K", "hugetlb:2M", "memfd",
               "shm")
RB_CASES = ("one", "call", "each")
REGBENCH = env("HUGEBUF_REGBENCH", os.path.join(TOP, "bench", "regbench"))


def run_regbench(ctx, backing, size, rng):
    """bench/regbench for one backing and size: one buffer, and a table
    of 64 slices of it in one call and one by one, in a fresh order; one
    JSON object per case.  A backing this machine lacks is skipped."""
    cases = list(RB_CASES)
    rng.shuffle(cases)
    cmd = [REGBENCH, "-c", ",".join(cases), backing, size]
    pool_settle()
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    out = []
    for line in p.stdout.decode(errors="replace").splitlines():
        try:
            out.append(json.loads(line))
        except ValueError:
            continue
    if p.returncode == 77:
        why = out[-1].get("skip", "") if out else ""
        log("regbench %s %s skipped: %s" % (backing, size, why))
        return []
    if p.returncode or any("error" in r for r in out):
        why = [r["error"] for r in out if "error" in r]
        raise FioError("%s failed (%d): %s %s" % (
            " ".join(cmd), p.returncode, "; ".join(why),
            p.stderr.decode(errors="replace").strip()))
    return out


def common_args(path, size, runtime, iodepth, rw, bs):
    return ["--name=bench", "--filename=" + path, "--size=" + size,
            "--direct=1", "--time_based", "--runtime=%gs" % runtime,
            "--randrepeat=0", "--norandommap", "--thread",
            "--iodepth=%d" % iodepth, "--rw=" + rw, "--bs=" + bs]


def hugebuf_report(path):
    try:
        lines = open(path).read().splitlines()
    except OSError:
        return {}
    return json.loads(lines[-1]) if lines else {}


def report_contig(rep):
    """The contig_* keys of hugebuf's report_json, as pfnscan gives them;
    None without PFNs."""
    if not rep.get("contig_known"):
        return None
    return {"pages": rep["contig_pages"], "pairs": rep["contig_pairs"],
            "adjacent": rep["contig_adjacent_pairs"],
            "runs": rep["contig_runs"],
            "longest": rep["contig_longest_bytes"] // 4096,
            "share": rep["contig_adjacent_share"], "mode": rep["contig"],
            "source": "report_json"}


def run_point(ctx, cfg, rw, bs, extra=(), tag="sweep"):
    rj = tempfile.mktemp(prefix="hugebuf-bench-rep-", suffix=".json")
    runtime = ctx["plan"].runtime_of(rw, bs)
    args = ["--name=bench", cfg.engine] + \
        common_args(ctx["path"], ctx["size"], runtime,
                    ctx["plan"].point_iodepth.get((rw, bs),
                                                  ctx["plan"].iodepth),
                    rw, bs)[1:] + cfg.args + list(extra)
    depth = ctx["plan"].point_iodepth.get((rw, bs), ctx["plan"].iodepth)
    try:
        r = run_fio(ctx["fio"], args, ctx["dev"], rw.endswith("write"),
                    parse_size(bs), runtime,
                    None if cfg.builtin else rj,
                    buf_bytes=depth * parse_size(bs),
                    frag_bytes=depth * parse_size(bs) if cfg.frag else 0,
                    tracer=ctx.get("events"))
        # each side's contiguity: hugebuf's own report, fio's buffers
        # read from its pagemap (the scan of hugebuf's is a cross-check)
        r["contig"] = r["contig_scan"]
        if not cfg.builtin:
            rep = hugebuf_report(rj)
            r["folio_seen"] = rep.get("folio_size_seen", {}).get("min", 0)
            r["bvecs_per_io"] = rep.get("bvecs_per_io", {}).get("max", 0)
            r["contig"] = report_contig(rep)
    finally:
        if os.path.exists(rj):
            os.unlink(rj)
    return r


# kernel entries per I/O: (rw, bs, iodepth, number_ios); an 8 MiB point
# stays within one pass over the default 2 GiB file
ENTRY_POINTS = [("randread", "4K", 1, 2000), ("randread", "4K", 32, 8000),
                ("randread", "128K", 16, 2000), ("randread", "8M", 16, 200),
                ("randwrite", "8M", 16, 200)]
# hugebuf with its defaults (hugetlb, fixed, DEFER_TASKRUN) and the
# built-in in its best configuration; both with registered files
ENTRY_CONFIGS = ("hugebuf hugetlb fixed", "io_uring shmhuge fixed")


def entry_args(ctx, cfg):
    if cfg.startswith("hugebuf"):
        return ["--ioengine=external:" + ctx["engine"], "--registerfiles",
                "--report=off"]
    return ["--ioengine=io_uring", "--fixedbufs=1", "--registerfiles=1",
            "--mem=shmhuge", "--hugepage-size=2M"]


def run_entries(ctx, cfg, rw, bs, depth, nios):
    """io_uring_enter calls of the whole fio process (every thread) for
    @nios I/Os, counted by strace -f -c; the same way for both engines."""
    sfd, spath = tempfile.mkstemp(prefix="hugebuf-bench-strace-")
    os.close(sfd)
    args = ["--name=entries", "--filename=" + ctx["path"],
            "--size=" + ctx["size"], "--direct=1", "--thread",
            "--randrepeat=0", "--norandommap", "--rw=" + rw, "--bs=" + bs,
            "--iodepth=%d" % depth, "--number_ios=%d" % nios,
            "--output-format=json"] + entry_args(ctx, cfg)
    pool_settle()
    try:
        p = subprocess.run(["strace", "-f", "-c", "-e",
                            "trace=io_uring_enter", "-o", spath,
                            ctx["fio"]] + args, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE)
        text = p.stdout.decode(errors="replace")
        calls = 0
        for line in open(spath):
            f = line.split()
            # "% time  seconds  usecs/call  calls  [errors]  syscall"
            if f and f[-1] == "io_uring_enter":
                calls = int(f[3])
    finally:
        os.unlink(spath)
    if p.returncode:
        raise FioError("fio under strace failed (%d): %s\n%s" % (
            p.returncode, " ".join(args),
            p.stderr.decode(errors="replace")))
    j = json.loads(text[text.find("{"):])
    d = j["jobs"][0]["write" if rw.endswith("write") else "read"]
    ios = d["total_ios"]
    return {"calls": calls, "ios": ios,
            "per_io": calls / float(ios) if ios else None,
            "load": loadavg()}


# vectored fixed I/O against plain fixed at 8M: the same
# hugetlb buffers, READV_FIXED with 4 iovecs whose cuts sit 4 KiB into
# folios, against one READ_FIXED
VEC_VARIANTS = {"fixed": [], "vectored": ["--vec_iovecs=4",
                                          "--vec_offset=4096"]}
# one registered table for 4 jobs (threads) against a table each
CLONE_VARIANTS = ("off", "split", "same")


def run_vec(ctx, variant):
    cfg = Config("hugebuf hugetlb fixed", "--ioengine=external:" +
                 ctx["engine"], ["--backing=hugetlb", "--fixedbufs=1",
                                 "--registerfiles", "--report=off"],
                 False, "hugetlb", 1)
    return run_point(ctx, cfg, "randread", "8M", VEC_VARIANTS[variant],
                     tag="vec")


def run_clone(ctx, variant):
    """4 jobs x iodepth 4 x 8M randread: fio's pinned memory (VmPin at
    its largest) and each job's time from init to its first possible
    I/O, with clone_buffers off (a table each), split or same."""
    rj = tempfile.mktemp(prefix="hugebuf-bench-clone-", suffix=".json")
    args = common_args(ctx["path"], ctx["size"], ctx["plan"].runtime, 4,
                       "randread", "8M") + \
        ["--ioengine=external:" + ctx["engine"], "--backing=hugetlb",
         "--registerfiles", "--report=off", "--numjobs=4",
         "--group_reporting", "--clone_buffers=" + variant]
    try:
        r = run_fio(ctx["fio"], args, ctx["dev"], False, parse_size("8M"),
                    ctx["plan"].runtime, rj)
        reps = [json.loads(x) for x in open(rj).read().splitlines()]
        ready = sorted(x.get("ready_usec", 0.0) for x in reps)
        r["ready_usec_max"] = ready[-1] if ready else 0.0
        r["ready_usec_med"] = ready[len(ready) // 2] if ready else 0.0
        r["register_usec_sum"] = sum(x.get("register_usec", 0.0)
                                     for x in reps)
    finally:
        if os.path.exists(rj):
            os.unlink(rj)
    return r


def run_reg(ctx, backing, size):
    """One READ_FIXED of a whole buffer of @size: the engine's timed
    registration, its model and the device requests of that one I/O."""
    rj = tempfile.mktemp(prefix="hugebuf-bench-reg-", suffix=".json")
    args = ["--name=reg", "--ioengine=external:" + ctx["engine"],
            "--filename=" + ctx["path"], "--size=" + ctx["size"],
            "--direct=1", "--rw=randread", "--bs=" + size, "--iodepth=1",
            "--number_ios=1", "--thread", "--randrepeat=0",
            "--backing=" + backing, "--fixedbufs=1", "--report=off"]
    envv = dict(os.environ, HUGEBUF_REPORT_JSON=rj)
    pool_settle()
    t0 = time.monotonic()
    p = subprocess.run([ctx["fio"], "--output-format=json"] + args,
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                       env=envv)
    wall = time.monotonic() - t0
    rep = hugebuf_report(rj)
    if os.path.exists(rj):
        os.unlink(rj)
    if p.returncode or not rep:
        raise FioError("fio failed (%d): %s\n%s" % (
            p.returncode, " ".join(args), p.stderr.decode(errors="replace")))
    return {
        "register_ms": rep["register_usec"] / 1000.0,
        "imu_bytes": rep["imu_bytes"],
        "bvecs": rep["bvecs_per_buffer"]["max"],
        "folio_seen": rep["folio_size_seen"]["min"],
        "vmpin_kb": rep["vmpin_kb"],
        "requests": rep["dev_reads"],
        "wall": wall,
    }


def run_cli(ctx, backing, size):
    """`hugebuf check --json` (kernel memory per registration, the
    running kernel's verdict) and `hugebuf plan --json` (the model)."""
    out = {}
    pool_settle()
    for cmd in (["plan", "--backing=" + backing, "--size=" + size],
                ["check", "--backing=" + backing, "--size=" + size]):
        p = subprocess.run([ctx["cli"]] + cmd + ["--json"],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        text = p.stdout.decode(errors="replace")
        if p.returncode not in (0, 1) or not text.strip():
            raise FioError("hugebuf %s failed (%d): %s" % (
                " ".join(cmd), p.returncode,
                p.stderr.decode(errors="replace").strip()))
        out[cmd[0]] = json.loads(text)
    return out


def queue_limits(dev):
    """The queue limits of /sys/block/DEV as lib reads them for its
    split model (`hugebuf plan --dev=DEV --json`)."""
    j = cli_json("plan", "--backing=4k", "--size=4K", "--dev=" + dev)
    return {"max_sectors": j["max_sectors_bytes"],
            "max_segments": j["max_segments"],
            "max_segment_size": j["max_segment_size"]}


def retried(what, fn, *args):
    """Run one measurement; on a shared machine another job may hold the
    hugepage pool or the disk for a moment, so wait and try again, and in
    the end skip the point rather than lose the whole run."""
    for delay in (5, 15, 30, None):
        try:
            return fn(*args)
        except FioError as e:
            msg = str(e).strip().splitlines()
            if delay is None:
                log("%s failed, skipped: %s" % (what, msg[-1] if msg else e))
                return None
            log("%s failed, retrying in %ds: %s" % (
                what, delay, msg[-1] if msg else e))
            time.sleep(delay)


def execute(plan, ctx, results_path):
    cfgs = configs(ctx["engine"], plan.full)
    chunk_cfg = Config("hugebuf hugetlb plain", "--ioengine=external:" +
                       ctx["engine"], ["--backing=hugetlb", "--fixedbufs=0",
                                       "--registerfiles", "--report=off"],
                       False, "hugetlb", 0)
    jobs = []
    for rw, bs in plan.points:
        jobs.append(("sweep", (rw, bs)))
    for rw in ("randread", "randwrite") if plan.chunks else ():
        jobs.append(("chunk", (rw, "32M")))
    jobs.append(("reg", None))
    if ctx.get("strace"):
        for pt in ENTRY_POINTS:
            jobs.append(("entries", pt))
    jobs.append(("vec", None))
    jobs.append(("clone", None))
    nsweep = sum(1 for rw, bs in plan.points for c in cfgs
                 if c.runs_at(rw, bs))
    nrun = nsweep + 2 * len(plan.chunks) + \
        len(VEC_VARIANTS) + len(CLONE_VARIANTS) + \
        (len(ENTRY_POINTS) * len(ENTRY_CONFIGS) if ctx.get("strace") else 0)
    nreg = len(plan.reg_sizes) * len(plan.reg_backings)
    rb_pts = [(b, s) for b in plan.rb_backings for s in plan.rb_sizes
              if parse_size(s) <= plan.rb_cap.get(b, GIB)]
    jobs.append(("regbench", None))
    if plan.only == "regbench":
        jobs, nrun, nreg = [("regbench", None)], 0, 0
    longer = sum(plan.runtime_of(rw, bs) - plan.runtime
                 for rw, bs in plan.points for c in cfgs
                 if c.runs_at(rw, bs))
    if plan.only == "regbench":
        longer = 0
    # the fragmenter's set-up: 4-7 s before a 32M run (512 MiB of
    # buffers) on 6.18, 2 CPUs (bench/README.md)
    frag_s = sum(FRAG_S_PER_GIB * plan.point_iodepth.get(
        (rw, bs), plan.iodepth) * parse_size(bs) / GIB
        for rw, bs in plan.points for c in cfgs
        if c.frag and c.runs_at(rw, bs)) * \
        fragment.factor() / fragment.FACTOR
    if plan.only == "regbench":
        frag_s = 0
    est = plan.rounds * (nrun * (plan.runtime + 0.7) + longer + frag_s) + \
        (plan.rounds if plan.full else 1) * nreg * 1.5 + \
        plan.rounds * len(rb_pts) * 1.5
    nrun += nreg + len(rb_pts)
    log("%s: %d rounds of %d runs%s, about %.0f min" % (
        "bench-full" if plan.full else "bench", plan.rounds, nrun,
        "" if plan.only == "regbench" else ", %gs each%s" % (
            plan.runtime, "".join(", %s %s %gs" % (rw, bs, t) for (rw, bs), t
                                  in sorted(plan.point_runtime.items()))),
        est / 60.0))
    out = open(results_path, "w")
    rng = random.Random(int(env("HUGEBUF_BENCH_SEED", "1")))
    lim = queue_limits(ctx["dev"])
    meta = {"type": "meta", "full": plan.full, "rounds": plan.rounds,
            "runtime": plan.runtime, "iodepth": plan.iodepth,
            "point_runtime": ["%s %s %g" % (rw, bs, t) for (rw, bs), t
                              in sorted(plan.point_runtime.items())],
            "point_iodepth": ["%s %s iodepth %d" % (rw, bs, d) for
                              (rw, bs), d in plan.point_iodepth.items()
                              if (rw, bs) in plan.points],
            "path": ctx["path"], "size": ctx["size"], "dev": ctx["dev"],
            "limits": lim, "kernel": os.uname().release,
            "fio": subprocess.run([ctx["fio"], "--version"],
                                  stdout=subprocess.PIPE).stdout.decode()
            .strip(), "start": time.strftime("%Y-%m-%d %H:%M:%S"),
            "nproc": os.cpu_count(), "load_start": loadavg(),
            "configs": [c.name for c in cfgs],
            "regbench": {"backings": plan.rb_backings,
                         "sizes": plan.rb_sizes,
                         "cap": {b: size_str(v) for b, v in
                                 plan.rb_cap.items()}},
            "builtin": [c.name for c in cfgs if c.builtin],
            "fragmented": [c.name for c in cfgs if c.frag],
            "point_limited": [c.name for c in cfgs if c.points],
            "frag_factor": fragment.factor()}
    out.write(json.dumps(meta) + "\n")
    t_start = time.monotonic()
    cli_done = set()
    for rnd in range(plan.rounds):
        order = jobs[:]
        rng.shuffle(order)
        for kind, key in order:
            if kind == "sweep":
                rw, bs = key
                cs = [c for c in cfgs if c.runs_at(rw, bs)]
                rng.shuffle(cs)
                for c in cs:
                    r = retried("%s %s %s" % (c.name, rw, bs), run_point,
                                ctx, c, rw, bs)
                    if r is None:
                        continue
                    r.update({"type": "sweep", "round": rnd, "rw": rw,
                              "bs": bs, "config": c.name})
                    out.write(json.dumps(r) + "\n")
            elif kind == "chunk":
                rw, bs = key
                cs = plan.chunks[:]
                rng.shuffle(cs)
                for ch in cs:
                    extra = ["--chunk_size=" + ch] if ch != "0" else []
                    r = retried("chunk_size=%s %s" % (ch, rw), run_point,
                                ctx, chunk_cfg, rw, bs, extra)
                    if r is None:
                        continue
                    r.update({"type": "chunk", "round": rnd, "rw": rw,
                              "bs": bs, "chunk": ch})
                    out.write(json.dumps(r) + "\n")
            elif kind == "entries":
                rw, bs, depth, nios = key
                cs = list(ENTRY_CONFIGS)
                rng.shuffle(cs)
                for c in cs:
                    r = retried("entries %s %s %s iodepth %d" % (
                        c, rw, bs, depth), run_entries, ctx, c, rw, bs,
                        depth, nios)
                    if r is None:
                        continue
                    r.update({"type": "entries", "round": rnd, "rw": rw,
                              "bs": bs, "iodepth": depth, "config": c})
                    out.write(json.dumps(r) + "\n")
            elif kind == "vec":
                vs = sorted(VEC_VARIANTS)
                rng.shuffle(vs)
                for v in vs:
                    r = retried("vectored %s" % v, run_vec, ctx, v)
                    if r is None:
                        continue
                    r.update({"type": "vec", "round": rnd, "variant": v})
                    out.write(json.dumps(r) + "\n")
            elif kind == "clone":
                vs = list(CLONE_VARIANTS)
                rng.shuffle(vs)
                for v in vs:
                    r = retried("clone_buffers=%s" % v, run_clone, ctx, v)
                    if r is None:
                        continue
                    r.update({"type": "clone", "round": rnd,
                              "variant": v})
                    out.write(json.dumps(r) + "\n")
            elif kind == "regbench":
                pts = rb_pts[:]
                rng.shuffle(pts)
                for b, sz in pts:
                    rs = retried("regbench %s %s" % (b, sz), run_regbench,
                                 ctx, b, sz, rng)
                    for r in rs or ():
                        r.update({"round": rnd})
                        out.write(json.dumps(r) + "\n")
                    out.flush()
            elif plan.full or rnd == 0:
                # bench: one round of these; bench-full: every round
                pts = [(b, s) for b in plan.reg_backings
                       for s in plan.reg_sizes]
                rng.shuffle(pts)
                for b, s in pts:
                    r = retried("registration %s %s" % (b, s), run_reg,
                                ctx, b, s)
                    if r is None:
                        continue
                    r.update({"type": "reg", "round": rnd, "backing": b,
                              "bufsize": s})
                    out.write(json.dumps(r) + "\n")
                    # the CLI once per point: its own medians inside
                    if (b, s) not in cli_done:
                        cli_done.add((b, s))
                        c = retried("hugebuf check %s %s" % (b, s),
                                    run_cli, ctx, b, s)
                        if c is None:
                            continue
                        c.update({"type": "cli", "backing": b,
                                  "bufsize": s})
                        out.write(json.dumps(c) + "\n")
            out.flush()
        el = time.monotonic() - t_start
        log("round %d/%d done, %.0f s, load %.1f" % (
            rnd + 1, plan.rounds, el, loadavg()))
    meta2 = {"type": "end", "elapsed": time.monotonic() - t_start,
             "load_end": loadavg(), "end": time.strftime("%Y-%m-%d %H:%M:%S")}
    out.write(json.dumps(meta2) + "\n")
    out.close()


def log(msg):
    print("bench: " + msg, file=sys.stderr, flush=True)


CLI = env("HUGEBUF_CLI", os.path.join(TOP, "cli", "hugebuf"))


def main():
    full = "--full" in sys.argv[1:]
    report_only = "--report-only" in sys.argv[1:]
    outdir = env("HUGEBUF_BENCH_OUT", os.path.join(TOP, "bench", "out"))
    os.makedirs(outdir, exist_ok=True)
    results = os.path.join(outdir, "results%s%s.jsonl" % (
        "-reg" if env("HUGEBUF_BENCH_ONLY", "") == "regbench" else "",
        "-full" if full else ""))
    if not report_only:
        plan = Plan(full)
        ctx = {
            "fio": env("FIO", "fio"),
            "engine": os.environ["HUGEBUF_ENGINE"],
            "cli": CLI,
            "path": os.environ["HUGEBUF_BENCH_FILE"],
            "size": env("HUGEBUF_BENCH_SIZE", "2G"),
            "plan": plan,
        }
        ctx["dev"] = whole_disk(ctx["path"])
        ctx["strace"] = subprocess.run(
            ["sh", "-c", "command -v strace"], stdout=subprocess.DEVNULL
        ).returncode == 0
        if not ctx["strace"]:
            log("strace not found (make deps): no kernel entries per I/O")
        execute(plan, ctx, results)
    report.main(results, outdir)


if __name__ == "__main__":
    main()
