#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
#
# Checks for the t/fio-*.sh tests (not a test itself: the runner skips
# files starting with '_').
#
#   _fio-check.py run FIO_OUTPUT [--nonzero-read] [--nonzero-write] [--verify]
#       every job of fio's JSON output (fio --output-format=json
#       --output=FIO_OUTPUT; our report lines before the JSON are skipped)
#       has error 0 and moved bytes; --verify: as many bytes read back as
#       written.
#   _fio-check.py report REPORT_JSONL NJOBS
#       the engine's JSON report lines (HUGEBUF_REPORT_JSON): NJOBS lines,
#       every field present, and each line consistent with
#       `$HUGEBUF_CLI plan` for the same backing, size and offset.
#   _fio-check.py result FIO_OUTPUT
#       prints "error read_bytes write_bytes read_ios write_ios short_read
#       short_write" of the first job, or "none" when there is no JSON.
#   _fio-check.py summary FIO_JSON
#       prints "error bytes ios" over all jobs (the worst error, bytes and
#       I/Os read plus written), or "nojson 0 0".
#   _fio-check.py clients FIO_JSON HOST...
#       fio --client: every HOST read bytes without error, and "All
#       clients" adds up to the hosts.
#   _fio-check.py clone-split FIO_JSON REPORT_JSONL
#       clone_buffers=split: four jobs verified, one source, three clones.
#   _fio-check.py verify-lat FIO_JSON
#       every job but time-based, bssplit-randrw and 4k-pin (a read
#       job) read back all it wrote; every direction with I/Os has its
#       latencies filled in.
#   _fio-check.py formats FORMATS FIO_STDOUT
#       fio's stdout of --output-format=FORMATS is what scripts expect.
#   _fio-check.py jobname REPORT_JSONL FIO_JSON NAME
#       one report line and fio's first job both carry the job name NAME.
#   _fio-check.py vectored FIO_JSON REPORT_JSONL
#       vec_iovecs jobs: each wrote and verified without error, one report
#       per job with at least 2 iovecs and as many bvecs.
#
# Every fio JSON the t/*.sh tests read is read here.  Prints one line per
# problem and exits 1 if there was any (result and summary print their
# line and exit 0).
import json
import os
import subprocess
import sys

FIELDS = ("job", "backing", "folio_size", "layout", "head_offset",
          "fixedbufs", "kernel_model", "nr_buffers", "buffer_len", "bs",
          "stride", "folios_per_buffer", "bvecs_per_buffer", "bvecs_per_io",
          "coalesced", "imu_bytes", "imu_bytes_4k", "register_usec",
          "vmpin_kb", "probe", "device", "requests_per_io")

problems = []


def bad(msg):
    problems.append(msg)
    print("FAIL: " + msg)


def load_fio(path):
    text = open(path).read()
    if text.startswith("{"):
        start = 0
    else:
        start = text.find("\n{") + 1
        if start == 0:
            bad("%s: no JSON in fio's output" % path)
            return None
    return json.loads(text[start:])


def check_run(path, opts):
    out = load_fio(path)
    if out is None:
        return
    if not out.get("jobs"):
        bad("%s: no jobs in fio's output" % path)
    for j in out.get("jobs", []):
        name = j["jobname"]
        r, w = j["read"]["io_bytes"], j["write"]["io_bytes"]
        if j["error"]:
            bad("%s: job %s error %d" % (path, name, j["error"]))
        if r + w == 0:
            bad("%s: job %s moved no bytes" % (path, name))
        if "--nonzero-read" in opts and r == 0:
            bad("%s: job %s read nothing" % (path, name))
        if "--nonzero-write" in opts and w == 0:
            bad("%s: job %s wrote nothing" % (path, name))
        if "--verify" in opts and (w == 0 or r != w):
            bad("%s: job %s wrote %d bytes but verified %d" %
                (path, name, w, r))
        for d in ("read", "write"):
            if j[d]["total_ios"] and j[d]["short_ios"]:
                bad("%s: job %s: %d short %s I/Os reached fio" %
                    (path, name, j[d]["short_ios"], d))


def plan(backing, size, offset):
    cli = os.environ["HUGEBUF_CLI"]
    res = subprocess.run([cli, "plan", "--backing=" + backing,
                          "--size=%d" % size, "--offset=%d" % offset,
                          "--json"], capture_output=True, text=True)
    if res.returncode:
        bad("hugebuf plan --backing=%s --size=%d --offset=%d: %s" %
            (backing, size, offset, res.stderr.strip()))
        return None
    return json.loads(res.stdout)


def folios_spanned(offset, length, folio):
    return (offset + length + folio - 1) // folio - offset // folio


def seen_sizes(rep):
    seen = rep.get("folio_size_seen") or {}
    return seen.get("min", 0), seen.get("max", 0)


def fell_back(tag, rep):
    """Whether the kernel gave smaller folios than the backing asks for.

    THP and mTHP are a request, not a promise: the fault path
    (do_anonymous_page(), alloc_anon_folio() since 6.8) falls back to a
    smaller order, down to 4 KiB pages, whenever a folio of the asked
    order cannot be had.  The report's folio_size_seen is what the probe
    found; a layout check judges that, and says so."""
    lo, hi = seen_sizes(rep)
    if lo == 0 or lo >= rep["folio_size"]:
        return False
    print("NOTE: %s: the kernel fell back to %d..%d-byte folios (backing "
          "asks %d): judged against the probed layout" %
          (tag, lo, hi, rep["folio_size"]))
    return True


def backing_of_size(size):
    return "4k" if size <= 4096 else "mthp:%dK" % (size // 1024)


def check_fallback(tag, rep, ideal):
    """The report against the layout the kernel gave: folios and bvecs
    between what the largest and the smallest probed folio size give
    (hugebuf plan for each); imu and coalescing follow the mix and are
    not compared with the ideal layout's."""
    lo, hi = seen_sizes(rep)
    off, blen = rep["head_offset"], rep["buffer_len"]
    most = folios_spanned(off, blen, lo)
    least = folios_spanned(off, blen, hi)
    f = rep["folios_per_buffer"]
    if not least <= f["min"] <= f["max"] <= most:
        bad("%s: %d..%d folios per buffer, probed %d..%d-byte folios "
            "give %d..%d" % (tag, f["min"], f["max"], lo, hi, least, most))
    small = plan(backing_of_size(lo), blen, off % lo)
    if small is None:
        return
    b = rep["bvecs_per_buffer"]
    if not ideal["nr_bvecs"] <= b["max"] <= small["nr_bvecs"]:
        bad("%s: %d bvecs per buffer, hugebuf plan says %d for %d-byte "
            "folios and %d for %d-byte ones" %
            (tag, b["max"], ideal["nr_bvecs"], rep["folio_size"],
             small["nr_bvecs"], lo))


def check_contig(tag, rep):
    """The contiguity keys hold together: each buffer has pages - 1
    neighbouring pairs, and as many runs as pairs that do not follow;
    a scattered 4k buffer has no adjacent pair (issue 44); a pinned one
    was probed again once the registration had faulted it in, so as root
    its frames are known."""
    if "contig_known" not in rep:
        return
    nb = rep["nr_buffers"]
    if rep["contig_pairs"] != rep["contig_pages"] - nb:
        bad("%s: %d contig pairs in %d pages of %d buffers" %
            (tag, rep["contig_pairs"], rep["contig_pages"], nb))
    if rep["contig"] == "pin" and os.geteuid() == 0 and \
            not rep["contig_known"]:
        bad("%s: contig=pin, and the frames the pin drew were not probed" %
            tag)
    if not rep["contig_known"]:
        return
    if rep["contig_runs"] + rep["contig_adjacent_pairs"] != \
            rep["contig_pages"]:
        bad("%s: %d runs + %d adjacent pairs != %d pages" %
            (tag, rep["contig_runs"], rep["contig_adjacent_pairs"],
             rep["contig_pages"]))
    if rep["contig"] == "scattered" and rep["contig_adjacent_pairs"]:
        bad("%s: contig=scattered with %d adjacent pairs" %
            (tag, rep["contig_adjacent_pairs"]))


def check_report_line(rep):
    tag = "%s(%s %s off=%d bs=%d)" % (rep.get("job"), rep.get("backing"),
                                       rep.get("layout"),
                                       rep.get("head_offset", -1),
                                       rep.get("bs", -1))
    missing = [f for f in FIELDS if f not in rep]
    if missing:
        bad("%s: report lacks %s" % (tag, ", ".join(missing)))
        return
    check_contig(tag, rep)
    # the first buffer is always full length; later regions may be shorter
    p = plan(rep["backing"], rep["buffer_len"], rep["head_offset"])
    if p is None:
        return
    if rep["kernel_model"] != p["kernel"]:
        bad("%s: kernel model %s, plan uses %s" %
            (tag, rep["kernel_model"], p["kernel"]))
    if os.geteuid() == 0 and rep["probe"] != "exact":
        bad("%s: probe is %s as root" % (tag, rep["probe"]))
    if rep["bs"] > rep["buffer_len"]:
        bad("%s: bs %d larger than the buffer %d" %
            (tag, rep["bs"], rep["buffer_len"]))
    if rep["stride"] < rep["bs"]:
        bad("%s: stride %d below bs %d: buffers overlap" %
            (tag, rep["stride"], rep["bs"]))
    if fell_back(tag, rep):
        check_fallback(tag, rep, p)
        return
    if rep["bvecs_per_buffer"]["max"] != p["nr_bvecs"]:
        bad("%s: %d bvecs per buffer, hugebuf plan says %d" %
            (tag, rep["bvecs_per_buffer"]["max"], p["nr_bvecs"]))
    one_size = rep["layout"] == "per-io" or rep["nr_buffers"] == 1
    if one_size:
        if rep["bvecs_per_buffer"]["min"] != p["nr_bvecs"]:
            bad("%s: buffers differ: %d..%d bvecs" %
                (tag, rep["bvecs_per_buffer"]["min"],
                 rep["bvecs_per_buffer"]["max"]))
        if rep["imu_bytes"] != rep["nr_buffers"] * p["imu_bytes"]:
            bad("%s: imu %d bytes, plan says %d x %d" %
                (tag, rep["imu_bytes"], rep["nr_buffers"], p["imu_bytes"]))
        p4 = plan("4k", rep["buffer_len"], rep["head_offset"] % 4096)
        if p4 and rep["imu_bytes_4k"] != rep["nr_buffers"] * p4["imu_bytes"]:
            bad("%s: 4K imu %d bytes, plan says %d x %d" %
                (tag, rep["imu_bytes_4k"], rep["nr_buffers"],
                 p4["imu_bytes"]))
    if bool(rep["coalesced"]) != bool(p["coalesced"]) and one_size:
        bad("%s: coalesced=%s, plan says %s" %
            (tag, rep["coalesced"], p["coalesced"]))
    want = folios_spanned(rep["head_offset"], rep["buffer_len"],
                          rep["folio_size"])
    if rep["folios_per_buffer"]["max"] != want:
        bad("%s: %d folios per buffer, a %d-byte buffer at +%d spans %d" %
            (tag, rep["folios_per_buffer"]["max"], rep["buffer_len"],
             rep["head_offset"], want))


def check_report(path, njobs):
    try:
        lines = [l for l in open(path).read().splitlines() if l.strip()]
    except OSError as e:
        bad("%s: %s" % (path, e))
        return
    if len(lines) != njobs:
        bad("%s: %d report lines for %d jobs" % (path, len(lines), njobs))
    for l in lines:
        check_report_line(json.loads(l))


def fio_json_lenient(path):
    """fio's JSON after any report lines, or None"""
    try:
        text = open(path, errors="replace").read()
        start = text.find("\n{") + 1 if not text.startswith("{") else 0
        return json.loads(text[start:])
    except Exception:
        return None


def print_result(path):
    out = fio_json_lenient(path)
    try:
        j = out["jobs"][0]
    except Exception:
        print("none")
        return
    r, w = j["read"], j["write"]
    print(j["error"], r["io_bytes"], w["io_bytes"], r["total_ios"],
          w["total_ios"], r.get("short_ios", 0), w.get("short_ios", 0))


def print_summary(path):
    try:
        jobs = json.load(open(path))["jobs"]
        err = max(x["error"] for x in jobs)
    except Exception:
        print("nojson 0 0")
        return
    b = sum(x[d]["io_bytes"] for x in jobs for d in ("read", "write"))
    n = sum(x[d]["total_ios"] for x in jobs for d in ("read", "write"))
    print(err, b, n)


def check_clients(path, hosts):
    text = open(path, errors="replace").read()
    try:
        j = json.loads(text[text.index("{"):])
    except Exception as e:
        bad("no JSON from fio --client (%s)" % e)
        return
    stats = j.get("client_stats", [])
    total = 0
    for h in hosts:
        mine = [s for s in stats if s.get("hostname", "").startswith(h)
                and s.get("jobname") != "All clients"]
        if not mine:
            bad("no result from %s (hosts: %s)" %
                (h, sorted({s.get("hostname") for s in stats})))
            continue
        for s in mine:
            b = s["read"]["io_bytes"]
            print("  %s: job %s error %d, %d bytes read in %d I/Os" % (
                  h, s["jobname"], s["error"], b, s["read"]["total_ios"]))
            if s["error"] or b <= 0:
                bad("%s: error %d, %d bytes" % (h, s["error"], b))
            total += b
    agg = [s for s in stats if s.get("jobname") == "All clients"]
    if agg:
        print("  All clients: %d bytes read" % agg[0]["read"]["io_bytes"])
        if agg[0]["read"]["io_bytes"] != total:
            bad("All clients says %d bytes, the hosts add up to %d" %
                (agg[0]["read"]["io_bytes"], total))


def check_clone_split(path, report):
    jobs = json.load(open(path))["jobs"]
    reps = [json.loads(l) for l in open(report)]
    roles = sorted(r["shared"] for r in reps)
    ok = len(jobs) == 4 and roles == ["clone", "clone", "clone", "source"]
    for j in jobs:
        if j["error"] or not j["read"]["io_bytes"] or \
                not j["write"]["io_bytes"]:
            ok = False
    print("split: %d jobs, roles %s, errors %s, verified bytes %s" %
          (len(jobs), roles, [j["error"] for j in jobs],
           [j["read"]["io_bytes"] for j in jobs]))
    if not ok:
        bad("split: every job must verify, one source and three clones")


def check_verify_lat(path):
    j = load_fio(path)
    if j is None:
        return
    for job in j["jobs"]:
        name = job["jobname"]
        r, w = job["read"], job["write"]
        if name not in ("time-based", "bssplit-randrw", "4k-pin") and \
                w["io_bytes"] != r["io_bytes"]:
            bad("%s wrote %d, verified %d" %
                (name, w["io_bytes"], r["io_bytes"]))
        for d in (r, w):
            if d["total_ios"] and not (0 < d["clat_ns"]["mean"] and
                                       d["lat_ns"]["mean"] >=
                                       d["clat_ns"]["mean"]):
                bad("%s: latencies not filled in: clat %s lat %s" %
                    (name, d["clat_ns"]["mean"], d["lat_ns"]["mean"]))


def check_formats(formats, path):
    fmt, text = formats.split(","), open(path).read()
    if fmt == ["normal"]:
        if "hugebuf: " not in text:
            bad("%s: the engine's report is missing" % formats)
        return
    if "hugebuf: " in text:
        bad("%s: the engine's report leaked into stdout" % formats)
        return
    if any(f.startswith("json") for f in fmt):
        lines = text.splitlines(True)
        at = next((i for i, l in enumerate(lines) if l == "{\n"), None)
        try:
            obj, _ = json.JSONDecoder().raw_decode("".join(lines[at:]))
            if obj["jobs"][0]["error"] != 0:
                bad("%s: job error %d" % (formats, obj["jobs"][0]["error"]))
        except Exception as e:
            bad("%s: no JSON object in stdout (%s)" % (formats, e))
    if "terse" in fmt and not any(l.count(";") > 100
                                  for l in text.splitlines()):
        bad("%s: no terse line in stdout" % formats)


def check_jobname(report, path, name):
    try:
        rows = [json.loads(l) for l in open(report, encoding="utf-8")]
        fio = json.load(open(path, encoding="utf-8"))
    except Exception as e:
        bad("job name %s: %s" % (name, e))
        return
    if len(rows) != 1 or rows[0]["job"] != name:
        bad("job name %s: report lines %s" %
            (name, [r.get("job") for r in rows]))
    if fio["jobs"][0]["jobname"] != name:
        bad("job name %s: fio says %s" % (name, fio["jobs"][0]["jobname"]))


def check_vectored(path, report):
    jobs = json.load(open(path))["jobs"]
    reps = [json.loads(l) for l in open(report)]
    for j in jobs:
        if j["error"] or j["write"]["io_bytes"] == 0 or \
                j["read"]["io_bytes"] == 0:
            bad("%s: error %d, wrote %d, verified %d" %
                (j["jobname"], j["error"], j["write"]["io_bytes"],
                 j["read"]["io_bytes"]))
    for r in reps:
        if r["vec_iovecs"] < 2 or r["vec_bvecs"] < r["vec_iovecs"]:
            bad("%s: report says %d iovecs, %d bvecs" %
                (r["job"], r["vec_iovecs"], r["vec_bvecs"]))
        else:
            print("  %s: %d iovecs per I/O, %d bvecs in the model, %.2f "
                  "device requests per I/O" %
                  (r["job"], r["vec_iovecs"], r["vec_bvecs"],
                   r["requests_per_io"]))
    if len(reps) != len(jobs):
        bad("%d reports for %d jobs" % (len(reps), len(jobs)))


# name: (function, least number of arguments)
CHECKS = {
    "run": (lambda a: check_run(a[0], a[1:]), 1),
    "report": (lambda a: check_report(a[0], int(a[1])), 2),
    "result": (lambda a: print_result(a[0]), 1),
    "summary": (lambda a: print_summary(a[0]), 1),
    "clients": (lambda a: check_clients(a[0], a[1:]), 2),
    "clone-split": (lambda a: check_clone_split(a[0], a[1]), 2),
    "verify-lat": (lambda a: check_verify_lat(a[0]), 1),
    "formats": (lambda a: check_formats(a[0], a[1]), 2),
    "jobname": (lambda a: check_jobname(a[0], a[1], a[2]), 3),
    "vectored": (lambda a: check_vectored(a[0], a[1]), 2),
}


def main():
    if len(sys.argv) < 3 or sys.argv[1] not in CHECKS:
        print(__doc__ if __doc__ else "usage: see the header", file=sys.stderr)
        return 2
    fn, nargs = CHECKS[sys.argv[1]]
    if len(sys.argv) - 2 < nargs:
        print("%s needs %d arguments" % (sys.argv[1], nargs), file=sys.stderr)
        return 2
    try:
        fn(sys.argv[2:])
    except Exception as e:
        bad("%s %s: %s" % (sys.argv[1], " ".join(sys.argv[2:]), e))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
