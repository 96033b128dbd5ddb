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
#
# Prints one line per problem and exits 1 if there was any.
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


def check_report_line(rep):
    tag = "%s(%s %s off=%d bs=%d)" % (rep.get("job"), rep.get("backing"),
                                       rep.get("layout"),
                                       rep.get("head_offset", -1),
                                       rep.get("bs", -1))
    missing = [f for f in FIELDS if f not in rep]
    if missing:
        bad("%s: report lacks %s" % (tag, ", ".join(missing)))
        return
    # the first buffer is always full length; later regions may be shorter
    p = plan(rep["backing"], rep["buffer_len"], rep["head_offset"])
    if p is None:
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
    if rep["kernel_model"] != p["kernel"]:
        bad("%s: kernel model %s, plan uses %s" %
            (tag, rep["kernel_model"], p["kernel"]))
    if rep["bs"] > rep["buffer_len"]:
        bad("%s: bs %d larger than the buffer %d" %
            (tag, rep["bs"], rep["buffer_len"]))
    if rep["stride"] < rep["bs"]:
        bad("%s: stride %d below bs %d: buffers overlap" %
            (tag, rep["stride"], rep["bs"]))
    if os.geteuid() == 0 and rep["probe"] != "exact":
        bad("%s: probe is %s as root" % (tag, rep["probe"]))


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


def main():
    if len(sys.argv) < 3:
        print(__doc__ if __doc__ else "usage: see the header", file=sys.stderr)
        return 2
    if sys.argv[1] == "run":
        check_run(sys.argv[2], sys.argv[3:])
    elif sys.argv[1] == "report":
        check_report(sys.argv[2], int(sys.argv[3]))
    else:
        print("unknown check " + sys.argv[1], file=sys.stderr)
        return 2
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
