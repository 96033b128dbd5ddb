/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The one helper file of the guest programs of kernel/probe/ (built by
 * 'make static' into kernel/static/, run in the qemu guests by
 * kernel/ktest.sh).  Everything lib/ already measures (VmPin, free
 * hugepages, block-device counters, folio layout, allocation) comes from
 * lib/include/hugebuf.h; this file holds only what the guest programs need on top:
 * kernel call counts (kprobe events), knob writes, the per-task fault
 * injection, the FOLL_PIN counter, one fixed I/O, one data pattern.
 */
#ifndef HUGEBUF_PROBE_UTIL_H
#define HUGEBUF_PROBE_UTIL_H

#include <errno.h>
#include <fcntl.h>
#include <liburing.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <unistd.h>

#include "hugebuf.h"
#include "hugebuf-report.h"

#define PROBE_PAGE (4ULL << 10)
#define PROBE_HPAGE (2ULL << 20)

/*
 * Write @val to a sysfs/procfs/debugfs/tracefs file, opened with
 * O_WRONLY | @flags: 0 or -errno.  tracefs's set_ftrace_filter and
 * kprobe_events drop what they hold when opened with O_TRUNC
 * (ftrace_regex_open(), probes_open()) and add to it otherwise.
 */
int probe_write(const char *path, const char *val, int flags);
/*
 * Call counts of kernel functions, exact, on any config with
 * KPROBE_EVENTS (Debian's have no FUNCTION_PROFILER):
 * probe_count_open() makes a kprobe event "hbprof/NAME" on each
 * /proc/kallsyms entry of @syms[0..@n) and of its compiler clones
 * ("sym.isra.0", "sym.constprop.0"); a function that kprobe events refuse
 * as notrace (no KPROBE_EVENTS_ON_NOTRACE: all of the kernel's lib/, e.g.
 * sg_next()) gets a hardware execute breakpoint on every CPU instead
 * (perf_event_open(), PERF_TYPE_BREAKPOINT), said in a line
 * "@tag counter=SYM how=breakpoint".  @counted[i]: the number of counters
 * of @syms[i], 0 when it has none, each of those with a line
 * "@tag untraceable=SYM why=not-in-kallsyms|ERRNO" (inlined, renamed, or
 * refused).  Returns the number of symbols counted, -1 without
 * kprobe_events; when it is not > 0, after one line "@tag skip=REASON".
 * probe_count_enable(): arm or disarm them all (0 or -errno).
 * probe_count_begin() / probe_count_end(): one window; end puts each
 * symbol's calls since begin in @hits[0..@n) (kprobe_profile's hits plus
 * misses: a hit that nests in another kprobe's handler skips the handler
 * but is counted as missed on its own probe) and returns the misses
 * among them, -1 when the counters cannot be read.
 * probe_count_close(): disarm and remove every counter.
 */
int probe_count_open(const char *tracefs, const char *const *syms, size_t n,
		     int *counted, const char *tag);
int probe_count_enable(bool on);
void probe_count_begin(void);
long probe_count_end(unsigned long *hits);
void probe_count_close(void);
/*
 * The requests an I/O made, counted where the kernel makes them: the NVMe
 * driver sets up each request's command once (nvme_setup_cmd(), from
 * nvme_prep_rq(), through nvme_queue_rq() and nvme_queue_rqs(), 6.1 to
 * 7.x; again only for a requeued request, which can only add).  The disk's
 * statistics (/sys/block/<disk>/stat) are not an exact count of one I/O:
 * blk_mq_end_request() ends the request's bios (blk_update_request()),
 * which completes the I/O and wakes its reader, before it counts the
 * request (__blk_mq_end_request_acct(), blk_account_io_done(); 6.1 and
 * 6.12 block/blk-mq.c, and blk_mq_end_request_batch() likewise), so a
 * reader that reads the counter at once may miss the I/O's last request.
 */
#define PROBE_REQ_SYM "nvme_setup_cmd"
/* CLOCK_MONOTONIC in microseconds: the user-space wall time of an I/O */
double probe_now_usec(void);
/*
 * tracefs (at @tracefs) helpers of the profiling programs.
 * probe_trace_write(): @s into @file, added to what it holds (@append) or
 * replacing it (O_TRUNC); 0 or -errno.
 * probe_kprobe_profile(): kprobe_profile's hits and misses of @event
 * (a miss: a hit while another kprobe ran, dropped); -1 when absent.
 * probe_disk_ios(): completed reads or writes of block device @disk.
 */
int probe_trace_write(const char *tracefs, const char *file, const char *s,
		      bool append);
int probe_kprobe_profile(const char *tracefs, const char *event,
			 unsigned long *hits, unsigned long *misses);
long probe_disk_ios(const char *disk, bool write);
/* probe_write() without extra flags. */
int probe_put(const char *path, const char *val);
/* The number a one-value file holds, -1 when it cannot be read. */
long probe_get_num(const char *path);
/*
 * FOLL_PIN pins held system-wide: nr_foll_pin_acquired -
 * nr_foll_pin_released of /proc/vmstat (mm/gup.c, 5.10+), after
 * vm.stat_refresh has folded the per-CPU deltas in.
 */
long probe_pins_held(void);
/* Sleep @ms milliseconds. */
void probe_sleep_ms(int ms);
/*
 * @probe(@arg) once it reads @want, or its last value after @ms
 * milliseconds (looked at every 10 ms).  A plain read can let its pages
 * go from a work item after the call returned (bio_check_pages_dirty()
 * punts to bio_dirty_work when a page is not dirty any more, 5.10 to
 * 7.3), and a ring's buffers are unpinned by its exit work: a count that
 * comes back was only late, a leak never comes back.
 */
long probe_settle(long (*probe)(void *), void *arg, long want, int ms);
/*
 * Wait up to @ms milliseconds for the pins held and the free 2 MiB
 * hugepages to stand still for 300 ms: the program before this one may
 * still be letting its buffers go (5.10's io_ring_exit_work() unpins a
 * ring's buffers after its process has exited).  false when they never
 * did.
 */
bool probe_quiet(int ms);
/* probe_pins_held() and hb_hugepages_free() for probe_settle() */
long probe_pins_of(void *arg);
long probe_free_2m_of(void *arg);
/*
 * The kernel's per-task fault injection (CONFIG_FAULT_INJECTION, FAILSLAB,
 * FAIL_PAGE_ALLOC and their debugfs knobs): probe_fault_setup() makes the
 * slab and page-allocator sites count GFP_KERNEL calls too (ignore-gfp-wait
 * off, every order) and opens this thread's fail-nth; 0, or -1 after one
 * "@tag skip=<reason>" line on stdout.  probe_fail_nth_arm(@n) makes the
 * @n-th allocation of this thread from then on fail (n >= 1);
 * probe_fail_nth_disarm() stops counting and returns what was left of the
 * count: 0 when the failure was injected, > 0 when fewer than @n
 * allocations came, -1 when it cannot be read.  Between the two calls
 * this thread makes no allocation of its own beyond what it measures.
 */
int probe_fault_setup(const char *tag);
int probe_fail_nth_arm(int n);
long probe_fail_nth_disarm(void);
/*
 * One READ_FIXED / WRITE_FIXED of registered buffer @idx, waited for:
 * cqe->res, or -errno when the submission failed.
 */
int probe_rw_fixed(struct io_uring *ring, bool write, int fd, void *addr,
		   unsigned int len, off_t off, int idx);
/*
 * hb_backing_parse(@backing) + hb_alloc(); on failure one line on stderr
 * with lib's message, and -errno.
 */
int probe_alloc(const char *backing, size_t len, size_t head_offset,
		struct hb_buf *buf);
/*
 * Whether lib's exact probe (pagemap PFNs + /proc/kpageflags) sees every
 * page of [@addr, @addr + @len) in a folio of at least 2 MiB.
 */
bool probe_thp_backed(const void *addr, size_t len);

/*
 * The data pattern of every guest program: the byte at pattern offset
 * @off (a file or device offset) of pattern @seed.  Each 8-byte word
 * depends on its offset and the seed, so data that lands at the wrong
 * offset, or comes from another case, does not match.
 */
uint8_t probe_pat(uint64_t seed, uint64_t off);
void probe_pat_fill(void *buf, size_t len, uint64_t seed, uint64_t off);
/* Index of the first byte that differs from the pattern, or -1. */
long probe_pat_check(const void *buf, size_t len, uint64_t seed, uint64_t off);

#endif
