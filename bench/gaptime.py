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
#   gaptime.py FILE IODEPTH ROUNDS RUNTIME[,RUNTIME..] BS[,BS..] NAME=ARGS...
#
# RUNTIME: seconds per run; with more than one, every round runs each (a
# short run's CPU window lies closer to the job's set-up and exit).
#
# NAME=ARGS: a configuration, its fio arguments separated by spaces;
# the one named "fio" is the reference.  The pseudo-argument --frag
# runs it after bench/fragment.py (bench.py's "fragmented" pair); a
# fragmented configuration's reference is the one named "fio-frag" when
# there is one.  Run by bench/cpu-gap.sh.
import os
import random
import statistics
import sys
import types

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench  # noqa: E402


def med(xs, fmt="%.2f"):
    f = "%s (%s-%s)" % (fmt, fmt, fmt)
    return f % (statistics.median(xs), min(xs), max(xs))


def kind_text(r):
    """CPU-seconds per second of the run's window by thread kind."""
    return " ".join("%s %.4f" % (k, r["cpu_rate_kind"][k])
                    for k in bench.THREAD_KINDS)


def main():
    if len(sys.argv) < 7:
        sys.exit("gaptime: usage: gaptime.py FILE IODEPTH ROUNDS "
                 "RUNTIME[,..] BS[,BS..] NAME=ARGS...: see bench/cpu-gap.sh")
    path, depth, rounds = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    runtimes = [float(x) for x in sys.argv[4].split(",")]
    sizes = [(bs, rt) for bs in sys.argv[5].split(",") for rt in runtimes]
    cfgs = []
    for spec in sys.argv[6:]:
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
