#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# bench/threadevents.py's accounting on a hand-made trace: events are
# charged to the task current on their CPU (an interrupt to the one it
# interrupted), switches to the task switched out, wakeups to the task
# woken; only events inside the window count; run time and handler time
# are clipped to the window and a hard interrupt nested in a softirq is
# taken out of the softirq's time; a system call's time stops while its
# thread is switched out; a wakeup's wait runs until the switch in; fio's threads get bench.py's kinds
# (an unsampled thread by its TGID and name).  A window a CPU's
# overwritten events may have reached is not complete.  Then, as root
# with tracefs, a real trace of a short sleep: its system calls and
# switches land on its own thread.
. "$(dirname "$0")/_fio-lib.sh"
t_need_cmd python3

trace=$(cat <<'EOF'
# tracer: nop
           other-900     (    900) [000] d..2.    99.900000: sched_switch: prev_comm=other prev_pid=900 prev_prio=120 prev_state=R ==> next_comm=fio next_pid=500 next_prio=120
             fio-500     (    500) [000] d....   100.050000: tlb_flush: pages:-1 reason:remote shootdown (1)
             fio-500     (    500) [000] d....   100.060000: ipi_send_cpu: cpu=1 callsite=native_flush_tlb_multi+0x6b/0x140 callback=0x0
             fio-500     (    500) [000] d.h..   100.100000: irq_handler_entry: irq=36 name=virtio1-req.0
             fio-500     (    500) [000] d.h..   100.100010: irq_handler_exit: irq=36 ret=handled
             fio-500     (    500) [000] ..s..   100.100011: softirq_entry: vec=4 [action=BLOCK]
             fio-500     (    500) [000] d.h..   100.100020: irq_handler_entry: irq=36 name=virtio1-req.0
             fio-500     (    500) [000] d.h..   100.100025: irq_handler_exit: irq=36 ret=handled
             fio-500     (    500) [000] ..s..   100.100041: softirq_exit: vec=4 [action=BLOCK]
             fio-500     (    500) [000] .....   100.200000: sys_enter: NR 230 (1, 0, 7ffd, 0, 0, 0)
             fio-500     (    500) [000] d..2.   100.300000: sched_switch: prev_comm=fio prev_pid=500 prev_prio=120 prev_state=S ==> next_comm=swapper/0 next_pid=0 next_prio=120
          <idle>-0       (-------) [001] d..2.   100.500000: sched_switch: prev_comm=swapper/1 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=fio next_pid=501 next_prio=120
             fio-501     (    500) [001] .....   100.550000: sys_enter: NR 426 (3, 0, 1, 1, 0, 8)
             fio-501     (    500) [001] .....   100.560000: sys_exit: NR 426 = 0
             fio-501     (    500) [001] d.h..   100.600000: local_timer_entry: vector=236
             fio-501     (    500) [001] d.h..   100.600001: hrtimer_expire_entry: hrtimer=00000000a function=hrtimer_wakeup now=100600001000
             fio-501     (    500) [001] d.h..   100.600002: sched_wakeup: comm=fio pid=500 prio=120 target_cpu=000
             fio-501     (    500) [001] d.h..   100.600004: local_timer_exit: vector=236
             fio-501     (    500) [001] d..2.   100.700000: sched_switch: prev_comm=fio prev_pid=501 prev_prio=120 prev_state=R+ ==> next_comm=iou-wrk-501 next_pid=502 next_prio=120
     iou-wrk-501-502     (    500) [001] d....   100.800000: page_fault_user: address=0x7f00 ip=0x7f00 error_code=0x14
          <idle>-0       (-------) [000] d..2.   100.900000: sched_switch: prev_comm=swapper/0 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=fio next_pid=500 next_prio=120
             fio-500     (    500) [000] .....   100.950000: sys_exit: NR 230 = 0
             fio-500     (    500) [000] .....   101.200000: sys_enter: NR 230 (1, 0, 7ffd, 0, 0, 0)
     iou-wrk-501-502     (    500) [001] d..2.   101.500000: sched_switch: prev_comm=iou-wrk-501 prev_pid=502 prev_prio=120 prev_state=S ==> next_comm=swapper/1 next_pid=0 next_prio=120
EOF
)

# count()'s result for the trace over [100, 101] with OVERRUN, printed
# as "kind key value" lines, sorted, then "complete BOOL"
counted() {
	echo "$trace" | python3 -c "import sys
sys.path.insert(0, '$T_TOP/bench')
import bench, threadevents
kinds = {'500': 'main', '501': 'job'}
cls = lambda tid, tgid, comm: kinds.get(str(tid)) or (
    bench.thread_kind(500, str(tid), comm or '') if tgid == 500 else None)
r = threadevents.count(sys.stdin.read().splitlines(), cls, 100.0, 101.0,
                       {}, $1)
for k in sorted(r['kind']):
    for key in sorted(r['kind'][k]):
        print(k, key, r['kind'][k][key])
print('complete', r['complete'])"
}

want="idle in-cpu:0 1
idle in-from:main 1
idle ns:run 600000000
idle switch:preempted 2
iou fault:user 1
iou in-cpu:1 1
iou in-from:job 1
iou ns:run 300000000
job hrtimer:hrtimer_wakeup 1
job in-cpu:1 1
job in-from:idle 1
job ns:run 200000000
job ns:sys:426 10000000
job ns:vector 4000
job switch:preempted 1
job sys:426 1
job vector:local_timer 1
job wakes 1
main hardirq:virtio1-req.0 2
main in-cpu:0 1
main in-from:idle 1
main ipi:native_flush_tlb_multi 1
main ns:hardirq 15000
main ns:run 400000000
main ns:softirq 25000
main ns:sys:230 150000000
main ns:woken_to_run 299998000
main softirq:BLOCK 1
main switch:voluntary 1
main sys:230 1
main tlb:remote_shootdown 1
main woken 1
complete True"
got=$(counted "{0: 3}")
if [ "$got" = "$want" ]; then
	t_ok "hand-made trace: every count and time where it belongs"
else
	fail "hand-made trace: got (<) against want (>)"
	printf '%s\n' "$want" >"${TMPDIR:-/tmp}/te.$$"
	echo "$got" | diff - "${TMPDIR:-/tmp}/te.$$" | sed 's/^/    /'
	rm -f "${TMPDIR:-/tmp}/te.$$"
fi

got=$(counted "{1: 5}" | tail -n 1)
if [ "$got" = "complete False" ]; then
	t_ok "CPU 1 overwrote events and its trace starts in the window:" \
		"not complete"
else
	fail "CPU 1 overwrote events, trace starts in the window: $got"
fi

# a real trace: a process that sleeps twice, counted over its life
if [ "$(id -u)" != 0 ] || [ ! -d /sys/kernel/tracing/instances ]; then
	t_skip_check "a real trace needs root and tracefs"
	t_done
fi
got=$(python3 -c "import subprocess, sys, time
sys.path.insert(0, '$T_TOP/bench')
import threadevents
t = threadevents.Tracer()
try:
    t.start()
    t0 = time.monotonic()
    p = subprocess.Popen(['sh', '-c', 'sleep 0.1; sleep 0.1'])
    p.wait()
    t1 = time.monotonic()
    t.stop()
finally:
    t.close()
r = threadevents.count(t.lines, lambda tid, tgid, comm:
                       'main' if tid == p.pid else None, t0, t1, t.names,
                       t.overrun)
m = r['kind'].get('main', {})
print(sum(n for k, n in m.items() if k.startswith('sys:')) > 0,
      m.get('switch:voluntary', 0) >= 2, 0 < m.get('ns:run', 0) < 2e8)")
if [ "$got" = "True True True" ]; then
	t_ok "a real trace: the sleeper's system calls, its two sleeps and" \
		"its run time are on its thread"
else
	fail "a real trace: system calls, >= 2 sleeps, run time: $got"
fi
t_done
