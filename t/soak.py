#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
#
# Randomized job soak: a seeded generator draws fio jobs from the engine's
# options (its table, as `fio --enghelp` lists it) and fio's (sizes, block
# size ranges and splits, iodepth and batch settings, rw mixes, verify
# algorithms, threads and jobs, files, odd offsets), runs each with
# verify on, and checks after each:
#   - fio exited 0 with no job error and every write-only job read back
#     all it wrote (0 verify errors), or it refused the combination: a
#     non-zero exit with a one-line "hugebuf: " (or fio's own "fio: ")
#     cause and no I/O or verify error;
#   - never a crash (signal) or a hang (timeout);
#   - a verify failure counts against the engine unless the same job
#     fails its verify through fio's psync engine too (fio's own limit:
#     fio 3.33 cannot verify rw=rw over several files);
#   - HugePages_Free, the kernel's outstanding page pins (FOLL_PIN
#     acquired - released, /proc/vmstat) and the SysV shared memory
#     segments back to their baseline.
#
#   t/soak.py [--seed N] [--seconds S] [--jobs N] [--keep DIR]
#
# Run by `make soak SECONDS=...` and by tools/check.sh (a fixed seed for a
# few minutes).  Hugetlb user: run it under the shared hugetlb lock, with
# the pools reserved (t/_testenv.sh; make soak does both but the lock); as
# root it switches the mTHP size its jobs draw to madvise for its run.  Ends
# with "sub-checks: P passed, F failed, 0 skipped" (one per job) and
# "1 passed, 0 failed, 0 skipped" (or 0 passed, 1 failed), the form
# t/runtests.sh and tools/check.sh count.  A failing job is printed as a
# fio command line to rerun.
import argparse
import json
import os
import random
import re
import subprocess
import sys
import tempfile
import time

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ENGINE = os.environ.get("HUGEBUF_ENGINE",
                        os.path.join(TOP, "engines", "hugebuf.so"))
FIO = os.environ.get("FIO", "fio")
POOL = "/sys/kernel/mm/hugepages/hugepages-2048kB/free_hugepages"

# The engine options drawn, value -> weight by repetition.  Every name must
# be in the engine's table (checked against fio --enghelp before the run).
ENGINE_DOMAIN = {
    "backing": ["hugetlb", "hugetlb", "memfd", "thp", "4k", "shm", "mthp"],
    "layout": ["per-io", "per-io", "region"],
    "head_offset": ["0", "0", "0", "4096", "512"],
    "defer_taskrun": ["1", "1", "0"],
    "chunk_size": ["0", "0", "0", "16k", "12k", "64k"],
    "vec_iovecs": ["0", "0", "0", "2", "4"],
    "vec_offset": ["0", "4096"],
    "clone_buffers": ["off", "off", "off", "split", "same"],
    "coalesce_check": ["warn", "warn", "off"],
    "fixedbufs": ["1", "1", "0"],
    "registerfiles": ["0", "1"],
    "sqthread_poll": ["0", "0", "0", "1"],
    "nonvectored": ["1", "1", "0"],
    "force_async": ["0", "0", "0", "4"],
    "atomic_writes": ["0"] * 9 + ["1"],
}
# fio's own options
FIO_DOMAIN = {
    "rw": ["write", "randwrite", "randwrite", "rw", "randrw"],
    "size": ["2M", "4M", "8M", "16M"],
    "iodepth": ["1", "2", "8", "16", "32"],
    "iodepth_batch_submit": ["1", "1", "4"],
    "iodepth_batch_complete_min": ["1", "1", "0", "4"],
    "iodepth_batch_complete_max": ["0", "0", "8"],
    "verify": ["crc32c", "md5", "sha1", "xxhash", "crc64", "sha256"],
    "direct": ["1", "1", "1", "0"],
    "offset": ["0", "0", "4k", "4608", "1M"],
    "nrfiles": ["1", "1", "2"],
    "numjobs": ["1", "1", "2"],
    "thread": ["1", "0"],
    "verify_async": ["0", "0", "0", "2"],
}
BS_CHOICES = [["--bs=4k"], ["--bs=16k"], ["--bs=64k"], ["--bs=128k"],
              ["--bs=1M"], ["--bsrange=4k-64k"],
              ["--bssplit=4k/50:64k/30:256k/20"]]

# stderr lines that mean data or I/O went wrong, never a refusal
BAD = re.compile(r"verify|bad magic|io_u error|crc|md5|sha|xxhash|"
                 r"Segmentation|Aborted|assert|BUG", re.I)


def engine_options():
    p = subprocess.run([FIO, "--enghelp=" + ENGINE], stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT)
    names = set()
    for line in p.stdout.decode(errors="replace").splitlines():
        m = re.match(r"^(\w+)\s+:", line)
        if m:
            names.add(m.group(1))
    return names


def free_pages():
    try:
        return int(open(POOL).read())
    except (OSError, ValueError):
        return 0


def pins():
    """FOLL_PIN pins held system-wide.  The two counters are node stats
    whose per-CPU deltas (up to the vmstat threshold each, 36 pages on
    2 CPUs and 24 GiB) reach /proc/vmstat only when vmstat_update() folds
    them; writing vm.stat_refresh (root) folds them now.  Without it a
    baseline read beside a busy CPU stays off by that delta for good: the
    "pins: -4" and "+10" seen with a guest beside the soak."""
    try:
        with open("/proc/sys/vm/stat_refresh", "w") as f:
            f.write("1")
    except OSError:
        pass
    v = {}
    for line in open("/proc/vmstat"):
        k, _, n = line.partition(" ")
        v[k] = int(n)
    return v.get("nr_foll_pin_acquired", 0) - \
        v.get("nr_foll_pin_released", 0)


def shm_segments():
    return len(open("/proc/sysvipc/shm").read().splitlines()) - 1


def state():
    return {"hugepages_free": free_pages(), "pins": pins(),
            "sysv_shm": shm_segments()}


# the direction a leak moves each counter: fewer pages free, more pins
# held, more segments; a move the other way is another process giving
# back what it held (all three are the machine's), not the job's leak
LEAK_SIGN = {"hugepages_free": -1, "pins": 1, "sysv_shm": 1}


def settled(base, limit=30.0):
    """The soak's one settle rule (the C tests' t_settle() and the shell
    tests' t_settle are the same rule): wait for the pool, pins and
    segments to come back (a ring is torn down after its process exits);
    return the differences left in a leak's direction.  They come back
    in about 0.1 s; the pin count is system-wide (any O_DIRECT I/O on the
    machine pins), and once 48 pins stayed past 8 s after a job that
    settles in 0.1 s when rerun: a leak never comes back, so waiting
    longer hides none."""
    t_end = time.monotonic() + limit
    while True:
        now = state()
        diff = {k: now[k] - base[k] for k in base
                if (now[k] - base[k]) * LEAK_SIGN[k] > 0}
        if not diff or time.monotonic() > t_end:
            return diff
        time.sleep(0.1)


def gen_job(rng, n, workdir):
    """One job: fio's command line arguments (without the output ones)."""
    o = {k: rng.choice(v) for k, v in ENGINE_DOMAIN.items()}
    f = {k: rng.choice(v) for k, v in FIO_DOMAIN.items()}
    # mostly combinations that run, sometimes ones the engine refuses
    if o["backing"] == "mthp" and rng.random() < 0.8:
        o["hugepage_size"] = "%dK" % MTHP_SIZE_KB
    if o["vec_iovecs"] != "0" and o["chunk_size"] != "0" and \
            rng.random() < 0.8:
        o["chunk_size"] = "0"
    if o["vec_iovecs"] != "0" and rng.random() < 0.8:
        o["fixedbufs"] = "1"
    if o["clone_buffers"] != "off" and rng.random() < 0.8:
        f["thread"], f["numjobs"], o["fixedbufs"] = "1", "2", "1"
        if o["clone_buffers"] == "same":
            o["clone_buffers"] = "split"
    if o["vec_iovecs"] == "0":
        del o["vec_iovecs"], o["vec_offset"]
    args = ["--name=soak%d" % n, "--ioengine=external:" + ENGINE,
            "--directory=" + workdir, "--do_verify=1", "--verify_fatal=1",
            "--randrepeat=0", "--report=off"]
    args += ["--%s=%s" % (k, v) for k, v in sorted(f.items())]
    args += rng.choice(BS_CHOICES)
    args += ["--%s=%s" % (k, v) for k, v in sorted(o.items())]
    return args


def fio_json(out):
    """fio's JSON report on stdout (after any lines before it), or None."""
    try:
        return json.loads(out[out.find("{"):])
    except ValueError:
        return None


def classify(rc, err, out_json, args):
    """'ok', 'refused' or a failure message."""
    if rc is None:
        return "hang: killed after the timeout"
    if rc < 0 or rc > 128:
        return "crash: exit %d" % rc
    if rc == 0:
        j = fio_json(out_json)
        if j is None:
            return "exit 0 without fio's JSON"
        writeonly = any(a in args for a in ("--rw=write", "--rw=randwrite"))
        for job in j.get("jobs", []):
            r, w = job["read"]["io_bytes"], job["write"]["io_bytes"]
            if job["error"]:
                return "job %s: error %d" % (job["jobname"], job["error"])
            if w == 0 and (writeonly or r == 0):
                # a small mixed job may draw only reads
                return "job %s moved nothing" % job["jobname"] \
                    if r == 0 else "job %s wrote nothing" % job["jobname"]
            if writeonly and r != w:
                return "job %s wrote %d bytes, verified %d" % (
                    job["jobname"], w, r)
        return "ok"
    lines = [x for x in err.splitlines() if x.strip()]
    causes = [x for x in lines if x.startswith("hugebuf: ") or
              x.startswith("fio: ")]
    bad = [x for x in lines if BAD.search(x) and
           not x.startswith("hugebuf: ")]
    if bad:
        return "exit %d with an I/O or verify error: %s" % (rc, bad[0])
    if not causes:
        return "exit %d without a one-line cause: %s%s" % (
            rc, lines[-1] if lines else "(no output)",
            json_errors(out_json))
    return "refused"


def json_errors(out_json):
    """The jobs' error codes in fio's JSON, to name a silent failure."""
    j = fio_json(out_json)
    if j is None:
        return "; no JSON on stdout"
    errs = ["%s: error %d" % (job.get("jobname"), job.get("error", 0))
            for job in j.get("jobs", []) if job.get("error")]
    return "; JSON: " + (", ".join(errs) if errs else "no job error")


def fio_own(args, workdir, timeout):
    """The same job through fio's psync engine, without ours: True when it
    fails its verify too (a limit of fio itself, e.g. fio 3.33 cannot
    verify rw=rw over several files), so the engine is not to blame."""
    ours = set(ENGINE_DOMAIN) | {"hugepage_size", "report", "ioengine"}
    ref = [x for x in args
           if x[2:].split("=")[0] not in ours] + ["--ioengine=psync"]
    for f in os.listdir(workdir):
        os.unlink(os.path.join(workdir, f))
    try:
        p = subprocess.run([FIO, "--output=/dev/null"] + ref,
                           stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE, cwd=workdir,
                           timeout=timeout)
    except subprocess.TimeoutExpired:
        return False
    return p.returncode != 0 and \
        "verify:" in p.stderr.decode(errors="replace")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--seconds", type=float, default=150)
    ap.add_argument("--jobs", type=int, default=0,
                    help="stop after this many jobs (0: by time)")
    ap.add_argument("--timeout", type=int, default=90)
    ap.add_argument("--verbose", action="store_true")
    a = ap.parse_args()

    if not os.path.exists(ENGINE):
        print("SKIP: no engine at %s: run make" % ENGINE)
        print("0 passed, 0 failed, 1 skipped")
        return 77
    have = engine_options()
    missing = sorted(k for k in ENGINE_DOMAIN if k not in have)
    if missing:
        print("FAIL: soak draws options the engine does not have: %s "
              "(update t/soak.py's ENGINE_DOMAIN with engines/options.c)"
              % ", ".join(missing))
        print("0 passed, 1 failed, 0 skipped")
        return 1
    undrawn = sorted(have - set(ENGINE_DOMAIN) - {"hugepage_size"})
    print("soak: seed %d, %gs; engine options not drawn: %s" % (
        a.seed, a.seconds, ", ".join(undrawn)))

    restore_mthp = mthp_enable(MTHP_SIZE_KB)
    try:
        return soak(a)
    finally:
        restore_mthp()


# The mTHP size the jobs draw (hugepage_size=64K): as root it is switched
# to madvise for the soak and given back after it, so that the mthp jobs
# run rather than meet the engine's "mTHP 64kB is disabled" refusal.
MTHP_SIZE_KB = 64


def mthp_enable(kb):
    """Make mTHP size KB usable; returns the function that restores it."""
    path = "/sys/kernel/mm/transparent_hugepage/hugepages-%dkB/enabled" % kb
    try:
        mode = re.search(r"\[(\w+)\]", open(path).read()).group(1)
    except (OSError, AttributeError):
        return lambda: None
    if mode in ("always", "madvise") or os.geteuid() != 0:
        return lambda: None
    with open(path, "w") as f:
        f.write("madvise")
    print("soak: mTHP %dkB set to madvise for the soak (was %s)" % (kb, mode))

    def restore():
        with open(path, "w") as f:
            f.write(mode)
    return restore


def soak(a):
    rng = random.Random(a.seed)
    workdir = tempfile.mkdtemp(prefix="hugebuf-soak.",
                               dir=os.environ.get("HUGEBUF_TEST_DIR",
                                                  "/var/tmp"))
    base = state()
    t_end = time.monotonic() + a.seconds
    n = ok = refused = failed = fio_limit = 0
    reasons = {}
    try:
        while (a.jobs and n < a.jobs) or \
                (not a.jobs and time.monotonic() < t_end):
            args = gen_job(rng, n, workdir)
            n += 1
            outp = os.path.join(workdir, "out.json")
            cmd = [FIO, "--output-format=json", "--output=" + outp] + args
            t0 = time.monotonic()
            try:
                p = subprocess.run(cmd, stdout=subprocess.PIPE,
                                   stderr=subprocess.PIPE, cwd=workdir,
                                   timeout=a.timeout)
                rc = p.returncode
                err = p.stderr.decode(errors="replace") + \
                    p.stdout.decode(errors="replace")
            except subprocess.TimeoutExpired:
                rc, err = None, ""
            try:
                text = open(outp).read()
            except OSError:
                text = ""
            verdict = classify(rc, err, text, args)
            if verdict.startswith("exit") and "verify" in verdict and \
                    fio_own(args, workdir, a.timeout):
                verdict = "fio"
            t1 = time.monotonic()
            diff = settled(base)
            if a.verbose:
                print("  job %d: %s, fio %.1fs, settle %.1fs" % (
                    n, verdict, t1 - t0, time.monotonic() - t1))
            for f in os.listdir(workdir):
                os.unlink(os.path.join(workdir, f))
            if verdict == "refused":
                refused += 1
                cause = next(x for x in err.splitlines()
                             if x.startswith("hugebuf: ") or
                             x.startswith("fio: "))
                key = re.sub(r"\d+", "N", cause)[:90]
                reasons[key] = reasons.get(key, 0) + 1
            if verdict not in ("ok", "refused", "fio") or diff:
                failed += 1
                print("FAIL: job %d: %s%s" % (
                    n, verdict,
                    "; not back to baseline: %s" % diff if diff else ""))
                print("  rerun: %s %s" % (FIO, " ".join(args)))
                base = state()
            elif verdict == "ok":
                ok += 1
            elif verdict == "fio":
                fio_limit += 1
    finally:
        for f in os.listdir(workdir):
            os.unlink(os.path.join(workdir, f))
        os.rmdir(workdir)
    print("soak: %d jobs: %d ran and verified, %d refused in one line, "
          "%d failed verify under fio's psync engine too (fio's own "
          "limit), %d failed" % (n, ok, refused, fio_limit, failed))
    for k, v in sorted(reasons.items(), key=lambda x: -x[1]):
        print("  refused %3d: %s" % (v, k))
    print("sub-checks: %d passed, %d failed, 0 skipped" % (
        ok + refused + fio_limit, failed))
    print("%d passed, %d failed, 0 skipped" % (0 if failed else 1,
                                               1 if failed else 0))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
