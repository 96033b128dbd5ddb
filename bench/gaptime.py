#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
#
# bench/gaptime.py: the CPU per GiB of bench/cpu-gap.sh's configurations
# side by side, timed the way `make bench` times them (bench.py's
# run_point(): schedstat sum_exec_runtime of fio's threads over the
# interval where the device moved the data, and both sides' contiguity).
# Every round runs each configuration once per block size, in a fresh
# order, so drift hits them alike; ratios are against fio's malloc run of
# the same round.
#
#   gaptime.py [--events[=JSONL]] FILE IODEPTH ROUNDS RUNTIME[,RUNTIME..]
#              BS[,BS..] NAME=ARGS...
#
# --events: also count, over the same window, what lands on and runs in
# each thread kind (bench/threadevents.py: system calls, switches,
# interrupts, faults, TLB flushes, IPIs, timers, and the time in
# interrupt handlers; root, tracefs), printed per run and as medians
# per second and per GiB against the reference; with =JSONL each run's
# counts (per thread of fio's) are appended there as well.
#
# RUNTIME: seconds per run; with more than one, every round runs each (a
# short run's CPU window lies closer to the job's set-up and exit).
#
# NAME=ARGS: a configuration, its fio arguments separated by spaces;
# the one named "fio" is the reference.  The pseudo-argument --frag
# runs it after bench/fragment.py (bench.py's "fragmented" pair); a
# fragmented configuration's reference is the one named "fio-frag" when
# there is one.  Run by bench/cpu-gap.sh.
import json
import os
import random
import statistics
import sys
import types

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench  # noqa: E402
import threadevents  # noqa: E402

# keys a per-run line shows (the summary shows every key seen)
RUN_KEYS = ("ns:run", "ns:woken_to_run", "ns:hardirq", "ns:softirq",
            "ns:vector", "switch:voluntary", "switch:preempted", "woken")
# the summary leaves out counts under this many per second in every
# configuration, and shows only these of the machine's other tasks
MIN_RATE = 0.5
OTHER_KEYS = ("ns:run", "ns:hardirq", "ns:softirq", "ns:vector")


def med(xs, fmt="%.2f"):
    f = "%s (%s-%s)" % (fmt, fmt, fmt)
    return f % (statistics.median(xs), min(xs), max(xs))


def kind_text(r):
    """CPU-seconds per second of the run's window by thread kind."""
    return " ".join("%s %.4f" % (k, r["cpu_rate_kind"][k])
                    for k in bench.THREAD_KINDS)


def ev_rate(r, kind, key):
    """Events (or ns) per second of @r's window for one thread kind."""
    return r["events"]["kind"].get(kind, {}).get(key, 0) / r["window"]


def ev_text(r):
    """One run's counts per second of its main and job threads."""
    out = []
    for k in ("main", "job"):
        out.append("%s: %s" % (k, " ".join(
            "%s %.*f" % (key, 0 if key.startswith("ns:") else 1,
                         ev_rate(r, k, key) / (1e3 if key.startswith(
                             "ns:") else 1)) for key in RUN_KEYS)))
    return "; ".join(out) + ("" if r["events"]["complete"] else
                             " (trace lost events in the window)")


def ev_summary(res, sizes, cfgs, rounds):
    """Per block size, thread kind and key: each configuration's median
    per second and per GiB, and the ratio of its median per second to
    its reference's (ns keys in microseconds per second)."""
    names = [c.name for c in cfgs]
    for bs in sizes:
        runs = {c.name: [res[k] for k in sorted(res)
                         if k[1:] == (bs, c.name) and "events" in res[k]
                         and res[k]["events"]["complete"]]
                for c in cfgs}
        print("## events %s %gs: per second (per GiB), median over rounds;"
              " ns:* in us; xR: median per second against the reference"
              % bs)
        print("##   %-5s %-36s %s" % ("kind", "key", " ".join(
            "%22s" % n for n in names)))
        for kind in bench.THREAD_KINDS + ("idle", "other"):
            keys = sorted({key for rs in runs.values() for r in rs
                           for key in r["events"]["kind"].get(kind, {})
                           if kind != "other" or key in OTHER_KEYS})
            for key in keys:
                scale = 1e3 if key.startswith("ns:") else 1
                med_s, cells = {}, []
                for c in cfgs:
                    rs = runs[c.name]
                    if not rs:
                        cells.append("%22s" % "-")
                        continue
                    s = statistics.median(ev_rate(r, kind, key) / scale
                                          for r in rs)
                    g = statistics.median(
                        ev_rate(r, kind, key) / scale /
                        (r["mibs"] / 1024.0) for r in rs)
                    med_s[c.name] = s
                    cells.append("%10.1f (%9.1f)" % (s, g))
                if max(med_s.values() or [0]) < MIN_RATE:
                    continue
                ratios = []
                for c in cfgs:
                    ref = "fio-frag" if c.frag and "fio-frag" in names \
                        else "fio"
                    if c.name != ref and c.name in med_s and \
                            med_s.get(ref):
                        ratios.append("%s x%.2f" % (
                            c.name, med_s[c.name] / med_s[ref]))
                print("##   %-5s %-36s %s  %s" % (kind, key[:36],
                                                  " ".join(cells),
                                                  " ".join(ratios)))


def main():
    argv = sys.argv[1:]
    ev_json = None
    events = any(a.startswith("--events") for a in argv)
    for a in argv:
        if a.startswith("--events="):
            ev_json = a.partition("=")[2]
    argv = [a for a in argv if not a.startswith("--events")]
    if len(argv) < 6:
        sys.exit("gaptime: usage: gaptime.py [--events[=JSONL]] FILE "
                 "IODEPTH ROUNDS RUNTIME[,..] BS[,BS..] NAME=ARGS...: "
                 "see bench/cpu-gap.sh")
    path, depth, rounds = argv[0], int(argv[1]), int(argv[2])
    runtimes = [float(x) for x in argv[3].split(",")]
    sizes = [(bs, rt) for bs in argv[4].split(",") for rt in runtimes]
    cfgs = []
    for spec in argv[5:]:
        name, _, args = spec.partition("=")
        args = args.split()
        builtin = "--ioengine=io_uring" in args
        eng = next(a for a in args if a.startswith("--ioengine="))
        frag = "--frag" in args
        cfgs.append(bench.Config(name, eng, [a for a in args if a != eng
                                             and a != "--frag"],
                                 builtin, "4k", 1, frag=frag))
    if "fio" not in [c.name for c in cfgs]:
        sys.exit("gaptime: no configuration named fio: it is the reference")
    ctx = {"path": path, "size": "%dG" % (os.stat(path).st_size >> 30),
           "fio": os.environ.get("FIO", "fio"),
           "dev": bench.whole_disk(path),
           "plan": None}
    if events:
        try:
            ctx["events"] = threadevents.Tracer(exclude_pid=os.getpid())
        except OSError as e:
            sys.exit("gaptime: --events: %s" % e)
        if ctx["events"].missing:
            print("# events not on this kernel: %s" %
                  " ".join(ctx["events"].missing))
    try:
        res = run_rounds(ctx, cfgs, sizes, rounds, depth, ev_json)
    finally:
        if events:
            ctx["events"].close()
    summary(res, sizes, cfgs, rounds)
    if events:
        ev_summary(res, sizes, cfgs, rounds)


def run_rounds(ctx, cfgs, sizes, rounds, depth, ev_json):
    """Every configuration at every size once per round, each round in a
    fresh order: {(round, size, name): run_point()'s result}."""
    rng = random.Random(1)
    res = {}
    for rnd in range(rounds):
        for bs in sizes:
            ctx["plan"] = types.SimpleNamespace(
                runtime=bs[1], iodepth=depth, point_iodepth={},
                runtime_of=lambda rw, size, rt=bs[1]: rt)
            order = cfgs[:]
            rng.shuffle(order)
            for c in order:
                r = bench.retried("%s %s" % (c.name, bs[0]),
                                  bench.run_point, ctx, c, "randread",
                                  bs[0].upper())
                if r is None or r.get("cpu_gib") is None:
                    continue
                res[(rnd, bs, c.name)] = r
                share = (r.get("contig") or {}).get("share")
                print("round %d %s %gs %-8s %5.0f MiB/s %.4f CPU-s/GiB "
                      "window %.2fs contig %s load %.2f%s" % (
                          rnd, bs[0], bs[1], c.name, r["mibs"],
                          r["cpu_gib"], r["window"],
                          "%.1f%%" % (100 * share) if share is not None
                          else "-", r["load"],
                          " frag %(freed_pages)d freed %(secs).1fs" %
                          r["frag"] if "frag" in r else ""), flush=True)
                print("  CPUs by thread: %s" % kind_text(r), flush=True)
                if "events" in r:
                    print("  events/s (ns:* in us/s): %s" % ev_text(r),
                          flush=True)
                    if ev_json:
                        ev_dump(ev_json, rnd, bs, c.name, r)
    return res


def ev_dump(path, rnd, bs, name, r):
    """One run's counts as a JSON line: fio's threads, each kind."""
    ev = r["events"]
    keep = {t: d for t, d in ev["tid"].items()
            if d["kind"] in bench.THREAD_KINDS}
    with open(path, "a") as f:
        f.write(json.dumps({
            "round": rnd, "bs": bs[0], "runtime": bs[1], "config": name,
            "mibs": r["mibs"], "cpu_rate": r["cpu_rate"],
            "cpu_rate_kind": r["cpu_rate_kind"], "window": r["window"],
            "contig": (r.get("contig") or {}).get("share"),
            "complete": ev["complete"], "kind": ev["kind"],
            "tid": keep}) + "\n")


def summary(res, sizes, cfgs, rounds):
    names = [c.name for c in cfgs]
    for bs in sizes:
        for c in cfgs:
            rs = [res[k] for k in sorted(res) if k[1:] == (bs, c.name)]
            if not rs:
                continue
            share = [100 * r["contig"]["share"] for r in rs
                     if (r.get("contig") or {}).get("share") is not None]
            line = "## %s %gs %-8s MiB/s %s CPU-s/GiB %s contig %s" % (
                bs[0], bs[1], c.name, med([r["mibs"] for r in rs], "%.0f"),
                med([r["cpu_gib"] for r in rs], "%.4f"),
                med(share, "%.1f") + "%" if share else "-")
            ref = "fio-frag" if c.frag and "fio-frag" in names else "fio"
            pairs = [(res[(k, bs, c.name)], res[(k, bs, ref)])
                     for k in range(rounds)
                     if (k, bs, c.name) in res and (k, bs, ref) in res]
            if c.name != ref and pairs:
                line += " vs %s: bw %s CPU %s CPU/s %s" % (
                    ref, med([a["mibs"] / b["mibs"] for a, b in pairs]),
                    med([a["cpu_gib"] / b["cpu_gib"] for a, b in pairs]),
                    med([a["cpu_rate"] / b["cpu_rate"] for a, b in pairs]))
            print(line)
            print("##   CPUs by thread, median (min-max): %s" % " ".join(
                "%s %s" % (k, med([r["cpu_rate_kind"][k] for r in rs],
                                  "%.4f"))
                for k in bench.THREAD_KINDS))


if __name__ == "__main__":
    main()
