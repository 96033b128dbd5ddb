# SPDX-License-Identifier: GPL-2.0-only
"""What lands on and runs in each of fio's threads during bench.py's CPU
window, counted from a tracefs instance of its own.

bench.py's run_fio() starts the trace just before fio and stops it once
fio has exited; count() then takes the events whose timestamps fall in
the same window as the CPU figure (trace_clock "mono" is the
CLOCK_MONOTONIC of Python's time.monotonic()), and adds them up per
thread and per thread kind (bench.THREAD_KINDS, plus "idle" for the
per-CPU idle tasks and "other" for every other task).

Each event is charged to the task that was current on its CPU when it
fired, which for an interrupt is the task it interrupted: without
CONFIG_IRQ_TIME_ACCOUNTING that task's sum_exec_runtime pays for the
handler (update_curr() charges wall time between two scheduler clock
reads).  Keys:
  sys:NAME                 system calls made (raw_syscalls:sys_enter)
  switch:voluntary         switched out asleep (sched_switch prev_state
  switch:preempted         not R) or while runnable (R, R+)
  in-cpu:N, in-from:KIND   switched in: on which CPU, after which kind
                           of task
  woken, wakes             woken up (sched_wakeup pid) / woke another
  migrated                 moved to another CPU (sched_migrate_task)
  hardirq:NAME             device interrupt handlers run on the thread
  softirq:NAME             softirqs run on it (not in ksoftirqd)
  vector:NAME              local APIC vectors: local_timer,
                           reschedule, call_function(_single), irq_work
  fault:user, fault:kernel page faults (exceptions:page_fault_*)
  tlb:REASON               TLB flushes (tlb:tlb_flush), by reason
  ipi:CALLSITE             IPIs sent from the thread (ipi:ipi_send_*),
                           by the function that sent them
  hrtimer:FN, timer:FN     timers expired while it was current
  io_uring:EVENT           io_uring tracepoints in its context
and the nanoseconds (from the trace's microsecond timestamps):
  ns:run                   on a CPU (sched_switch in to out)
  ns:hardirq, ns:softirq, ns:vector
                           inside those handlers, each net of what
                           nested in it (a hard interrupt in a softirq)
  ns:woken_to_run          from being woken (sched_wakeup) to being
                           switched in: sched_clock time a task woken
                           onto an idle CPU is charged for, as its
                           exec_start is the wakeup's clock (the wakeup
                           asks __schedule() to skip its clock update,
                           rq_clock_skip_update())
  ns:sys:NAME              on a CPU inside that system call (from
                           sys_enter to sys_exit, less the time switched
                           out; interrupts that land in it included)
The trace is system-wide (bench's own system calls filtered out) and in
overwrite mode, so a long set-up loses its oldest events, not the
window's; a window whose CPU lost events before it ended is refused."""
import os
import re
import subprocess

TRACEFS = "/sys/kernel/tracing"
INSTANCE = "hugebuf-bench"
# kB per CPU: a 32M job's set-up (512 MiB of 4 KiB pages) fits
BUFFER_KB = 32768

EVENTS = (
    "raw_syscalls/sys_enter", "raw_syscalls/sys_exit",
    "sched/sched_switch", "sched/sched_wakeup", "sched/sched_migrate_task",
    "irq/irq_handler_entry", "irq/irq_handler_exit",
    "irq/softirq_entry", "irq/softirq_exit",
    "irq_vectors/local_timer_entry", "irq_vectors/local_timer_exit",
    "irq_vectors/reschedule_entry", "irq_vectors/reschedule_exit",
    "irq_vectors/call_function_entry", "irq_vectors/call_function_exit",
    "irq_vectors/call_function_single_entry",
    "irq_vectors/call_function_single_exit",
    "irq_vectors/irq_work_entry", "irq_vectors/irq_work_exit",
    "exceptions/page_fault_user", "exceptions/page_fault_kernel",
    "tlb/tlb_flush", "ipi/ipi_send_cpu", "ipi/ipi_send_cpumask",
    "timer/hrtimer_expire_entry", "timer/timer_expire_entry",
    "io_uring/io_uring_submit_req", "io_uring/io_uring_complete",
    "io_uring/io_uring_cqring_wait", "io_uring/io_uring_task_add",
    "io_uring/io_uring_task_work_run", "io_uring/io_uring_local_work_run",
    "io_uring/io_uring_queue_async_work",
)

# "comm-TID (TGID) [CPU] FLAGS SECS.USECS: EVENT: FIELDS"; the TGID
# column is there with options/record-tgid ("-------" when unknown)
LINE = re.compile(r"^\s*(?P<comm>.*?)-(?P<tid>\d+)\s+"
                  r"(?:\(\s*(?P<tgid>[\d-]+)\)\s+)?\[(?P<cpu>\d+)\]\s+"
                  r"(?:\S+\s+)?(?P<ts>\d+\.\d+):\s+(?P<ev>\w+):\s?"
                  r"(?P<rest>.*)$")
SOFTIRQ = re.compile(r"vec=\d+ \[action=(\w+)\]")
FIELD = {k: re.compile(r"\b%s=(\S+)" % k) for k in (
    "prev_pid", "prev_state", "next_pid", "next_comm", "pid", "name",
    "function", "callsite", "comm")}
TLB = re.compile(r"reason:([^(]+?) \(")
VECTORS = ("local_timer", "reschedule", "call_function_single",
           "call_function", "irq_work")


def field(name, text):
    m = FIELD[name].search(text)
    return m.group(1) if m else None


def syscall_names():
    """Syscall numbers -> names, from the system's unistd header (the
    numbers alone where it is missing)."""
    names = {}
    for path in ("/usr/include/x86_64-linux-gnu/asm/unistd_64.h",
                 "/usr/include/asm/unistd_64.h",
                 "/usr/include/aarch64-linux-gnu/asm/unistd.h",
                 "/usr/include/asm-generic/unistd.h"):
        try:
            for line in open(path):
                m = re.match(r"#define __NR_(\w+)\s+(\d+)\s*$", line)
                if m:
                    names.setdefault(int(m.group(2)), m.group(1))
        except OSError:
            continue
        if names:
            break
    return names


def usable():
    """None when this machine can trace, else why not."""
    if os.geteuid() != 0:
        return "not root"
    if not os.path.isdir(os.path.join(TRACEFS, "instances")):
        # root can mount it (a fresh machine has it unmounted until a
        # tool such as perf mounts it)
        subprocess.run(["mount", "-t", "tracefs", "nodev", TRACEFS],
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    if not os.path.isdir(os.path.join(TRACEFS, "instances")):
        return "no tracefs at %s and mounting it failed (mount -t " \
            "tracefs nodev %s)" % (TRACEFS, TRACEFS)
    return None


class Tracer:
    """A tracefs instance with EVENTS enabled, started and stopped around
    each fio run.  close() removes it."""

    def __init__(self, exclude_pid=None):
        why = usable()
        if why:
            raise OSError("threadevents: " + why)
        self.dir = os.path.join(TRACEFS, "instances", INSTANCE)
        if not os.path.isdir(self.dir):
            os.mkdir(self.dir)
        self.write("tracing_on", "0")
        self.write("trace_clock", "mono")
        self.write("buffer_size_kb", str(BUFFER_KB))
        self.write("options/overwrite", "1")
        self.write("options/record-tgid", "1")
        self.missing = []
        for ev in EVENTS:
            d = os.path.join(self.dir, "events", ev)
            if not os.path.isdir(d):
                self.missing.append(ev)
                continue
            if ev.startswith("raw_syscalls/") and exclude_pid:
                self.write("events/%s/filter" % ev,
                           "common_pid != %d" % exclude_pid)
            self.write("events/%s/enable" % ev, "1")
        self.names = syscall_names()
        self.lines = []

    def write(self, rel, text):
        with open(os.path.join(self.dir, rel), "w") as f:
            f.write(text)

    def start(self):
        self.write("trace", "")
        self.write("tracing_on", "1")

    def stop(self):
        """Stop tracing and keep the trace's lines and each CPU's
        overrun (events lost to the overwrite) for count()."""
        self.write("tracing_on", "0")
        self.overrun = {}
        base = os.path.join(self.dir, "per_cpu")
        for cpu in os.listdir(base):
            try:
                for line in open(os.path.join(base, cpu, "stats")):
                    if line.startswith("overrun:"):
                        self.overrun[int(cpu[3:])] = int(line.split()[1])
            except (OSError, ValueError):
                continue
        with open(os.path.join(self.dir, "trace")) as f:
            self.lines = f.read().splitlines()

    def close(self):
        try:
            self.write("tracing_on", "0")
            for ev in EVENTS:
                d = os.path.join(self.dir, "events", ev)
                if os.path.isdir(d):
                    self.write("events/%s/enable" % ev, "0")
            os.rmdir(self.dir)
        except OSError:
            pass

    def count(self, classify, t0, t1):
        return count(self.lines, classify, t0, t1, self.names,
                     self.overrun)


def parse(lines):
    """The trace's event lines as (ts, cpu, tid, tgid, comm, event, rest)."""
    out = []
    for line in lines:
        if line.startswith("#"):
            continue
        m = LINE.match(line)
        if not m:
            continue
        tgid = m.group("tgid")
        out.append((float(m.group("ts")), int(m.group("cpu")),
                    int(m.group("tid")),
                    int(tgid) if tgid and tgid.isdigit() else None,
                    m.group("comm"), m.group("ev"), m.group("rest")))
    return out


def event_keys(ev, rest, names):
    """The counting keys of one event, as (key, whose): whose is "cur"
    (the current task), or a tid from the event's fields."""
    if ev == "sys_enter":
        m = re.match(r"NR (\d+)", rest)
        if not m:
            return []
        nr = int(m.group(1))
        return [("sys:" + names.get(nr, str(nr)), "cur")]
    if ev == "sched_switch":
        state = field("prev_state", rest) or "?"
        kind = "preempted" if state.startswith("R") else "voluntary"
        return [("switch:" + kind, int(field("prev_pid", rest)))]
    if ev == "sched_wakeup":
        return [("woken", int(field("pid", rest))), ("wakes", "cur")]
    if ev == "sched_migrate_task":
        return [("migrated", int(field("pid", rest)))]
    if ev == "irq_handler_entry":
        return [("hardirq:%s" % field("name", rest), "cur")]
    if ev == "softirq_entry":
        m = SOFTIRQ.search(rest)
        return [("softirq:%s" % (m.group(1) if m else rest), "cur")]
    for v in VECTORS:
        if ev == v + "_entry":
            return [("vector:" + v, "cur")]
    if ev.startswith("page_fault_"):
        return [("fault:" + ev[len("page_fault_"):], "cur")]
    if ev == "tlb_flush":
        m = TLB.search(rest)
        return [("tlb:" + (m.group(1) if m else rest).replace(" ", "_"),
                 "cur")]
    if ev.startswith("ipi_send_"):
        site = (field("callsite", rest) or "?").split("+")[0]
        return [("ipi:" + site, "cur")]
    if ev == "hrtimer_expire_entry":
        return [("hrtimer:%s" % (field("function", rest) or "?")
                 .split("/")[0], "cur")]
    if ev == "timer_expire_entry":
        return [("timer:%s" % (field("function", rest) or "?"), "cur")]
    if ev.startswith("io_uring_"):
        return [("io_uring:" + ev[len("io_uring_"):], "cur")]
    return []


# handler events whose entry and exit bracket time charged to the
# interrupted task: entry event -> (exit event, ns key)
SPANS = {"irq_handler_entry": ("irq_handler_exit", "ns:hardirq"),
         "softirq_entry": ("softirq_exit", "ns:softirq")}
for _v in VECTORS:
    SPANS[_v + "_entry"] = (_v + "_exit", "ns:vector")
SPAN_EXITS = {v[0] for v in SPANS.values()}


def clip(a, b, t0, t1):
    return max(0.0, min(b, t1) - max(a, t0))


def count(lines, classify, t0, t1, names=None, overrun=None):
    """Per-thread counts over [t0, t1] of the trace @lines: returns
    {"tid": {tid: {key: n}}, "kind": {kind: {key: n}}, "complete": bool}.
    @classify(tid, tgid, comm) is a thread's kind, None for a task that
    is not fio's ("other"); tid 0 is "idle"."""
    names = names or {}
    evs = parse(lines)
    per = {}
    comm = {}
    tgid_of = {}

    def add(tid, key, n=1):
        d = per.setdefault(tid, {})
        d[key] = d.get(key, 0) + n

    # a CPU that lost events must still hold the window's start
    first = {}
    for ts, cpu, tid, tgid, cm, ev, rest in evs:
        first.setdefault(cpu, ts)
        if tgid is not None:
            tgid_of[tid] = tgid
        if ev == "sched_switch":
            nc = field("next_comm", rest)
            npid = field("next_pid", rest)
            if nc and npid:
                comm[int(npid)] = nc
    complete = all(first.get(c, t0) <= t0
                   for c, n in (overrun or {}).items() if n)
    cur = {}       # cpu -> (tid, since)
    stack = {}     # cpu -> [[exit event, key, start, tid, nested ns]]
    insys = {}     # tid -> [syscall key, on a CPU since (None: off)]
    came = {}      # (tid switched in, tid switched out) -> n
    woke = {}      # tid -> when it was woken, until it is switched in
    for ts, cpu, tid, tgid, cm, ev, rest in evs:
        inwin = t0 <= ts <= t1
        if ev == "sched_switch":
            prev = int(field("prev_pid", rest))
            nxt = int(field("next_pid", rest))
            if cpu in cur and cur[cpu][0] == prev:
                add(prev, "ns:run", 1e9 * clip(cur[cpu][1], ts, t0, t1))
            cur[cpu] = (nxt, ts)
            sc = insys.get(prev)
            if sc and sc[1] is not None:
                add(prev, sc[0], 1e9 * clip(sc[1], ts, t0, t1))
                sc[1] = None
            if nxt in insys:
                insys[nxt][1] = ts
            if nxt in woke:
                add(nxt, "ns:woken_to_run",
                    1e9 * clip(woke.pop(nxt), ts, t0, t1))
            if inwin:
                add(nxt, "in-cpu:%d" % cpu)
                came[(nxt, prev)] = came.get((nxt, prev), 0) + 1
        elif ev == "sched_wakeup":
            woke.setdefault(int(field("pid", rest)), ts)
        elif ev == "sys_enter" and tid:
            for key, _ in event_keys(ev, rest, names):
                insys[tid] = ["ns:" + key, ts]
        elif ev == "sys_exit" and tid in insys:
            sc = insys.pop(tid)
            if sc[1] is not None:
                add(tid, sc[0], 1e9 * clip(sc[1], ts, t0, t1))
        if ev in SPANS:
            stack.setdefault(cpu, []).append(
                [SPANS[ev][0], SPANS[ev][1], ts, tid, 0.0])
        elif ev in SPAN_EXITS:
            st = stack.get(cpu) or []
            if st and st[-1][0] == ev:
                _, key, start, owner, nested = st.pop()
                span = clip(start, ts, t0, t1)
                add(owner, key, 1e9 * max(0.0, span - nested))
                if st:
                    st[-1][4] += span
            else:
                # an exit without its entry (the trace began inside
                # the handler): nothing to charge
                stack[cpu] = []
        if not inwin:
            continue
        for key, whose in event_keys(ev, rest, names):
            add(tid if whose == "cur" else whose, key)
    # threads still on a CPU at the end of the trace
    for cpu, (tid, since) in cur.items():
        add(tid, "ns:run", 1e9 * clip(since, t1, t0, t1))

    def kind(tid):
        return "idle" if tid == 0 else \
            classify(tid, tgid_of.get(tid), comm.get(tid)) or "other"
    for (nxt, prev), n in came.items():
        add(nxt, "in-from:" + kind(prev), n)
    out = {"tid": {}, "kind": {}, "complete": complete}
    for tid, d in per.items():
        k = kind(tid)
        d = {key: int(round(n)) for key, n in d.items()}
        out["tid"][str(tid)] = dict(d, kind=k)
        agg = out["kind"].setdefault(k, {})
        for key, n in d.items():
            agg[key] = agg.get(key, 0) + n
    return out
