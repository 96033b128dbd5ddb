// SPDX-License-Identifier: GPL-2.0-only
/*
 * seg-profile: lib's segment model (hb_model_segments()) against what the
 * kernel counts for one 8 MiB O_DIRECT READ_FIXED from a buffer of 4 KiB
 * pages whose PFNs are read from /proc/self/pagemap (issue 44, item 2).
 * Run by kernel/ktest.sh in the guests (probes.tab: seg-profile) and on a
 * host by t/seg-host.sh.
 *
 * Layouts of the buffer, each registered alone (4 KiB folios: one bvec
 * per page):
 *   alloc      8 MiB touched in order, as the page allocator gives it;
 *   scattered  every other page of 16 MiB, moved together by mremap();
 *   thp        one 4 KiB page, then THPs: the mix of folio sizes keeps
 *              io_uring from coalescing, so the bvecs are 4 KiB pages
 *              that are physically adjacent inside each THP (skipped when
 *              no THP can be had).
 * Each I/O is read WINDOWS times; other block I/O in a window can only add
 * to a count, so the figure compared is the minimum over the windows.
 *
 * With kprobe events (the guests' Debian kernels): per window
 *   requests     calls of nvme_setup_cmd() or virtio_queue_rq();
 *   sg_entries   the sum of __blk_rq_map_sg()'s return values, or on
 *                7.x NVMe the DMA iterator's segments (the true returns
 *                of blk_rq_dma_map_iter_start() and _next());
 *   nr_phys      the sum of the request's nr_phys_segments at
 *                __blk_rq_map_sg() (BTF argument; where the kernel
 *                cannot, not compared);
 *   NVMe         which of the PRP and SGL setup functions ran, and
 *                dma_pool_alloc() calls, the list pages;
 * each compared with the model for the running kernel, the disk's queue
 * limits (sysfs) and the controller's SGL support (Identify).
 *
 * Without kprobe events (a host kernel without KPROBE_EVENTS), from the
 * block tracepoints of a tracefs instance of its own, on virtio-blk:
 *   the requests' sectors at block_rq_issue, first issue of each (the
 *   split, which is nr_phys_segments' doing), and block_rq_requeue:
 *   without indirect descriptors a request takes sg_entries + 2 of the
 *   ring's 2 x nr_tags descriptors (virtblk_probe() sizes the tag set
 *   to half the ring), so when the model's descriptors of the I/O's
 *   requests all fit in the ring, no request may be requeued; when they
 *   do not, requeues are shown, not judged (a completion between two
 *   adds makes room).  Another's request on the disk holds descriptors
 *   too, so requeues are judged over the quiet windows alone: none of
 *   another's requests issued in the window or in flight as it began
 *   (no quiet window: shown, not judged, with the cause).
 *
 * With -f FILE it reads a file instead of a whole disk (a host whose disk
 * cannot be opened for O_DIRECT reads): FILE is on a disk or a partition
 * of one, its bytes [OFFSET, OFFSET + 8 MiB) (-o; 0 when neither -o nor -e
 * is given) are ONE extent (FIEMAP) that is written, not unwritten, and
 * the read is O_DIRECT.  The tracepoints see the whole disk: the disk's
 * dev_t and the sectors from the extent's address plus the partition's
 * start; the queue limits and the ring are the whole disk's.  Else it
 * skips, naming the cause.  Make FILE with fallocate and write it once
 * with O_DIRECT.
 *
 * Output: "SEGPROF key=value ..." lines, "SEGPROF model ... result=ok"
 * per judged figure; exit 0 pass, 1 fail, 77 skip (no device, no
 * pagemap PFNs, no tracing).
 *
 * With -m PID it does no I/O: it models the largest private anonymous
 * mapping of process PID (a running fio job's buffers) cut into I/Os of
 * -b bytes on the disk's limits, and prints the per-request segments,
 * scatterlist entries and descriptors averaged over those I/Os.
 *
 * With -S BYTES, on NVMe with SGLs the layouts run again with
 * nvme.sgl_threshold set to BYTES (put back after), so that the SGL path
 * is counted too.
 *
 * Usage: seg-profile -d /dev/DISK [-d ...] [-o OFFSET | -e FROM_END]
 *                    [-S BYTES] [-t TRACEFS]
 *        seg-profile -f FILE [-o OFFSET | -e FROM_END] [-t TRACEFS]
 *        seg-profile -m PID -b BYTES -d /dev/DISK
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/fiemap.h>
#include <linux/fs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "../../t/helpers.h"

#define MiB		(1024UL * 1024UL)
#define IO_SIZE		(8 * MiB)
#define NPAGES		(IO_SIZE / 4096)
#define WINDOWS		3
#define MAX_REQS	4096
#define GROUP		"hbseg"

static const char *tracefs = "/sys/kernel/tracing";
static char inst[256];		/* the tracepoint instance */
static bool kprobes;
static bool have_nr;		/* nr_phys_segments read at map_sg */
static bool nvme;
static bool nvme_sgls;
/* nvme.sgl_threshold as the layouts run (sysfs), and -S's value */
static unsigned int sgl_threshold = 32768;
static unsigned int sgl_try;
static struct hb_kmodel km;
static struct hb_queue_limits lim;
static unsigned int ring_descs;	/* virtio-blk without indirect: 2 x tags */
static char disk_name[64];	/* the whole disk, in sysfs */
static unsigned long begin_inflight;	/* its requests as a window began */
static unsigned long begin_missed;	/* kprobe misses as a window began */

/*
 * Where the I/O goes, and where the block tracepoints see it: on 6.18
 * block_rq_issue's dev is the whole disk's (rq->q->disk), its sector
 * blk_rq_pos(), after blk_partition_remap() added the partition's start.
 */
struct target {
	int fd;			/* the disk or the file read */
	dev_t dev;		/* the whole disk's dev_t */
	uint64_t io_off;	/* the read's offset in fd */
	uint64_t disk_off;	/* its first byte on the whole disk */
};

/* the kprobe events: name, definition; a missing symbol is left out */
struct kev {
	const char *name;
	const char *def;
	bool on;
};

static struct kev kevs[] = {
	{ "sg", "r:" GROUP "/sg __blk_rq_map_sg ret=$retval", false },
	{ "nr", "p:" GROUP "/nr __blk_rq_map_sg nr=rq->nr_phys_segments:u16",
	  false },
	{ "nr2", "p:" GROUP "/nr2 blk_rq_dma_map_iter_start "
	  "nr=req->nr_phys_segments:u16", false },
	{ "ds", "r:" GROUP "/ds blk_rq_dma_map_iter_start ret=$retval:u8",
	  false },
	{ "dn", "r:" GROUP "/dn blk_rq_dma_map_iter_next ret=$retval:u8",
	  false },
	{ "cmd", "p:" GROUP "/cmd nvme_setup_cmd", false },
	{ "vq", "p:" GROUP "/vq virtio_queue_rq", false },
	{ "pool", "p:" GROUP "/pool dma_pool_alloc", false },
	{ "prp", "p:" GROUP "/prp nvme_pci_setup_prps", false },
	{ "prp", "p:" GROUP "/prp nvme_pci_setup_data_prp", false },
	{ "sgl", "p:" GROUP "/sgl nvme_pci_setup_sgls", false },
	{ "sgl", "p:" GROUP "/sgl nvme_pci_setup_data_sgl", false },
	{ "prp1", "p:" GROUP "/prp1 nvme_setup_prp_simple", false },
	{ "sgl1", "p:" GROUP "/sgl1 nvme_setup_sgl_simple", false },
	{ "simple", "p:" GROUP "/simple nvme_pci_setup_data_simple", false },
};
#define NKEVS (sizeof(kevs) / sizeof(kevs[0]))

/* what one window counted */
struct counts {
	unsigned long requests, sg, nr, dma, pool, prp, sgl, simple;
	unsigned long iter_ends;	/* _next() returning false */
	unsigned long requeues, reqs_seen;
	unsigned long foreign;		/* another's requests on the disk */
	bool quiet;			/* none, and none in flight at begin */
	bool lost;			/* events lost in this window */
	unsigned long quiet_windows, quiet_requeues;	/* the minimum's */
	unsigned long start[MAX_REQS], sectors[MAX_REQS];
};

static bool ev_defined(const char *name)
{
	unsigned int i;

	for (i = 0; i < NKEVS; i++)
		if (kevs[i].on && !strcmp(kevs[i].name, name))
			return true;
	return false;
}

static void kprobes_close(void)
{
	char def[96];
	unsigned int i;

	t_trace_write(tracefs, "events/" GROUP "/enable", "0", false);
	for (i = 0; i < NKEVS; i++) {
		if (!kevs[i].on)
			continue;
		snprintf(def, sizeof(def), "-:" GROUP "/%s", kevs[i].name);
		t_trace_write(tracefs, "kprobe_events", def, true);
		kevs[i].on = false;
	}
}

/* 1: kprobe events made, 0: none in this kernel */
static int kprobes_open(void)
{
	char path[300];
	unsigned int i;

	snprintf(path, sizeof(path), "%s/kprobe_events", tracefs);
	if (access(path, W_OK))
		return 0;
	for (i = 0; i < NKEVS; i++) {
		if (ev_defined(kevs[i].name))
			continue;
		kevs[i].on = !t_trace_write(tracefs, "kprobe_events",
					    kevs[i].def, true);
	}
	have_nr = ev_defined("nr") || ev_defined("nr2");
	for (i = 0; i < NKEVS; i++)
		if (kevs[i].on)
			printf("SEGPROF event=%s def=\"%s\"\n", kevs[i].name,
			       kevs[i].def);
	if (!ev_defined("sg") && !ev_defined("ds"))
		return 0;
	return 1;
}

/* the block tracepoints in an instance of our own */
static int instance_open(void)
{
	char path[300];

	snprintf(inst, sizeof(inst), "%s/instances/hbseg-%d", tracefs,
		 (int)getpid());
	if (mkdir(inst, 0700))
		return 0;
	snprintf(path, sizeof(path), "%s/events/block/block_rq_issue/enable",
		 inst);
	if (t_knob_write(path, "1", O_TRUNC))
		return 0;
	snprintf(path, sizeof(path),
		 "%s/events/block/block_rq_requeue/enable", inst);
	if (t_knob_write(path, "1", O_TRUNC))
		return 0;
	return 1;
}

static void instance_close(void)
{
	if (inst[0])
		rmdir(inst);
}

static const char *trace_dir(void)
{
	return kprobes ? tracefs : inst;
}

/* the first line of a sysfs file, or "" */
static void read_line(const char *path, char *buf, int len)
{
	FILE *f = fopen(path, "r");

	buf[0] = '\0';
	if (f && !fgets(buf, len, f))
		buf[0] = '\0';
	if (f)
		fclose(f);
}

/*
 * The disk's requests in flight (sysfs inflight, blk_mq_in_flight_rw()),
 * read after the trace is cleared: one issued later is in the trace, one
 * in flight now is counted here.  A state, not a counter: any other
 * request makes the window not quiet.  1 where it cannot be read.
 */
static unsigned long disk_inflight(void)
{
	char path[128], v[64];
	unsigned long r, w;

	snprintf(path, sizeof(path), "/sys/block/%s/inflight", disk_name);
	read_line(path, v, sizeof(v));
	if (sscanf(v, "%lu %lu", &r, &w) != 2)
		return 1;
	return r + w;
}

/*
 * Events the trace did not keep since it was cleared: every CPU's ring
 * buffer overruns and dropped events (reset with the buffer).  A window
 * that lost any undercounts, and the minimum over the windows would take
 * it, so such a window is left out.
 */
static unsigned long trace_lost(void)
{
	char path[300], line[128];
	unsigned long n = 0, v;
	int cpu;
	FILE *f;

	for (cpu = 0; cpu < 4096; cpu++) {
		snprintf(path, sizeof(path), "%s/per_cpu/cpu%d/stats",
			 trace_dir(), cpu);
		f = fopen(path, "r");
		if (!f)
			break;
		while (fgets(line, sizeof(line), f))
			if (sscanf(line, "overrun: %lu", &v) == 1 ||
			    sscanf(line, "dropped events: %lu", &v) == 1)
				n += v;
		fclose(f);
	}
	return n;
}

/* the kprobes' missed hits so far (kprobe_profile: name, hits, misses) */
static unsigned long kprobe_missed(void)
{
	char path[300], line[256], name[200];
	unsigned long hit, miss, n = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/kprobe_profile", tracefs);
	f = fopen(path, "r");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%199s %lu %lu", name, &hit, &miss) == 3)
			n += miss;
	fclose(f);
	return n;
}

static int window_begin(void)
{
	char path[300];

	snprintf(path, sizeof(path), "%s/trace", trace_dir());
	if (t_knob_write(path, "", O_TRUNC))
		return -1;
	if (kprobes) {
		begin_missed = kprobe_missed();
		return t_trace_write(tracefs, "events/" GROUP "/enable", "1",
				     false);
	}
	begin_inflight = disk_inflight();
	return 0;
}

/* "name=0x1f" or "name=31" after @key in @line */
static unsigned long field(const char *line, const char *key)
{
	const char *p = strstr(line, key);

	return p ? strtoul(p + strlen(key), NULL, 0) : 0;
}

static void count_kprobe_line(const char *line, struct counts *c)
{
	if (strstr(line, " sg: "))
		c->sg += field(line, "ret=");
	else if (strstr(line, " nr: ") || strstr(line, " nr2: "))
		c->nr += field(line, "nr=");
	else if (strstr(line, " ds: "))
		c->dma += field(line, "ret=") & 1;
	else if (strstr(line, " dn: ") && (field(line, "ret=") & 1))
		c->dma++;
	else if (strstr(line, " dn: "))
		c->iter_ends++;
	else if (strstr(line, " cmd: ") || strstr(line, " vq: "))
		c->requests++;
	else if (strstr(line, " pool: "))
		c->pool++;
	else if (strstr(line, " prp: ") || strstr(line, " prp1: "))
		c->prp++;
	else if (strstr(line, " sgl: ") || strstr(line, " sgl1: "))
		c->sgl++;
	else if (strstr(line, " simple: "))
		c->simple++;
}

/*
 * block_rq_issue "254,0 R 1040384 () 131072 + 2032 ..." and
 * block_rq_requeue "254,0 R () 131072 + 2032 ...": our disk and the
 * sectors of our I/O only (another's request in the window is not ours,
 * it is counted as foreign: it holds ring slots while ours wait)
 */
static void count_block_line(const char *line, const struct target *t,
			     struct counts *c)
{
	unsigned long sector, n, i, first = t->disk_off >> 9;
	char want[32];
	const char *p;

	snprintf(want, sizeof(want), " %u,%u ", major(t->dev),
		 minor(t->dev));
	p = strstr(line, want);
	if (!p)
		return;
	p = strstr(p, ") ");
	if (!p || sscanf(p + 2, "%lu + %lu", &sector, &n) != 2 ||
	    sector < first || sector >= first + (IO_SIZE >> 9)) {
		c->foreign += !!strstr(line, "block_rq_issue:");
		return;
	}
	if (strstr(line, "block_rq_requeue:")) {
		c->requeues++;
		return;
	}
	if (!strstr(line, "block_rq_issue:"))
		return;
	/* a requeued request is issued again: count its first issue */
	for (i = 0; i < c->reqs_seen && i < MAX_REQS; i++)
		if (c->start[i] == sector)
			return;
	if (c->reqs_seen < MAX_REQS) {
		c->start[c->reqs_seen] = sector;
		c->sectors[c->reqs_seen] = n;
	}
	c->reqs_seen++;
}

static int window_end(const struct target *t, struct counts *c)
{
	char path[300], line[1024];
	FILE *f;

	if (kprobes)
		t_trace_write(tracefs, "events/" GROUP "/enable", "0", false);
	snprintf(path, sizeof(path), "%s/trace", trace_dir());
	f = fopen(path, "r");
	if (!f)
		return -1;
	memset(c, 0, sizeof(*c));
	while (fgets(line, sizeof(line), f)) {
		if (line[0] == '#')
			continue;
		if (kprobes)
			count_kprobe_line(line, c);
		else
			count_block_line(line, t, c);
	}
	fclose(f);
	c->lost = trace_lost() ||
		  (kprobes && kprobe_missed() != begin_missed);
	if (!kprobes)
		c->requests = c->reqs_seen;
	c->quiet = !kprobes && !c->foreign && !begin_inflight;
	c->dma = c->dma ? c->dma : c->sg;
	return 0;
}

/*
 * The minimum of each figure over the windows; of the requeues also over
 * the quiet windows alone (another's request in flight holds ring
 * descriptors, so a requeue there says nothing of ours).
 */
static void keep_min(struct counts *m, const struct counts *c, int w)
{
	unsigned long qw = w ? m->quiet_windows : 0;
	unsigned long qr = m->quiet_requeues;

	if (!w)
		*m = *c;
#define KEEP(f) (m->f = c->f < m->f ? c->f : m->f)
	KEEP(requests);
	KEEP(sg);
	KEEP(nr);
	KEEP(dma);
	KEEP(pool);
	KEEP(prp);
	KEEP(sgl);
	KEEP(simple);
	KEEP(requeues);
	KEEP(iter_ends);
#undef KEEP
	if (c->quiet && (!qw || c->requeues < qr))
		qr = c->requeues;
	m->quiet_windows = qw + c->quiet;
	m->quiet_requeues = qr;
}

static int judge(const char *layout, const char *what, uint64_t model,
		 unsigned long counted)
{
	bool ok = model == counted;

	printf("SEGPROF model layout=%s figure=%s model=%llu counted=%lu "
	       "result=%s\n", layout, what, (unsigned long long)model,
	       counted, ok ? "ok" : "FAIL");
	return ok ? 0 : 1;
}

/* one 4 KiB-page buffer of NPAGES pages at @buf: PFNs, model, I/O */
static int run_layout(const char *layout, void *buf,
		      const struct target *t)
{
	static struct hb_phys_bvec bv[NPAGES];
	static struct hb_seg_req reqs[MAX_REQS];
	struct hb_seg_cfg cfg = { HB_SEG_DRV_VIRTIO_BLK, false, 0 };
	struct io_uring ring;
	static struct counts c, m;
	struct hb_seg_pred p;
	uint64_t pfn[NPAGES], ent[NPAGES], adj = 0, descs = 0;
	unsigned long sized = 0;
	struct iovec iov = { buf, IO_SIZE };
	unsigned int i;
	int pm, ret, w, lost = 0, fail = 0;

	memset(&m, 0, sizeof(m));
	if (nvme)
		cfg = (struct hb_seg_cfg){ HB_SEG_DRV_NVME_PCI, nvme_sgls,
					   sgl_threshold };
	pm = hb_pagemap_open();
	if (pm < 0 || hb_pagemap_read(pm, (uintptr_t)buf, NPAGES, ent)) {
		printf("SEGPROF skip=no pagemap: %s\n", hb_errmsg());
		return 77;
	}
	close(pm);
	for (i = 0; i < NPAGES; i++) {
		pfn[i] = hb_pagemap_pfn(ent[i]);
		if (!pfn[i]) {
			printf("SEGPROF skip=no PFNs in pagemap (not root?)\n");
			return 77;
		}
		adj += i && pfn[i] == pfn[i - 1] + 1;
	}
	if (hb_phys_bvecs_4k(pfn, NPAGES, 0, IO_SIZE, bv) != (int)NPAGES ||
	    hb_model_segments(&km, bv, NPAGES, &lim, &cfg, reqs, MAX_REQS,
			      &p)) {
		printf("SEGPROF layout=%s error=model:%s\n", layout,
		       hb_errmsg());
		return 1;
	}
	printf("SEGPROF layout=%s adjacent_pairs=%llu/%lu requests=%u "
	       "nr_phys=%llu sg_entries=%llu prp=%llu sgl_descs=%llu "
	       "lists=%llu sgl_requests=%u virtio_descs=%llu gen=%s\n",
	       layout, (unsigned long long)adj, NPAGES - 1, p.requests,
	       (unsigned long long)p.nr_phys_segments,
	       (unsigned long long)p.sg_entries,
	       (unsigned long long)p.prp_entries,
	       (unsigned long long)p.sgl_descs,
	       (unsigned long long)p.desc_lists, p.sgl_requests,
	       (unsigned long long)p.virtio_descs, hb_seg_gen_name(p.gen));
	if (io_uring_queue_init(4, &ring, 0)) {
		printf("SEGPROF skip=no io_uring\n");
		return 77;
	}
	ret = io_uring_register_buffers(&ring, &iov, 1);
	if (ret) {
		printf("SEGPROF layout=%s error=register:%s\n", layout,
		       strerror(-ret));
		io_uring_queue_exit(&ring);
		return 1;
	}
	/* one read outside the windows: TCG translates the path once */
	ret = t_io(&ring, IORING_OP_READ_FIXED, t->fd, buf, IO_SIZE,
		   t->io_off, 0);
	for (w = 0; ret == (int)IO_SIZE && w < WINDOWS; w++) {
		if (window_begin()) {
			ret = -EIO;
			break;
		}
		ret = t_io(&ring, IORING_OP_READ_FIXED, t->fd, buf, IO_SIZE,
			   t->io_off, 0);
		if (window_end(t, &c)) {
			ret = -EIO;
			break;
		}
		if (c.lost)
			lost++;
		else
			keep_min(&m, &c, w - lost);
	}
	io_uring_unregister_buffers(&ring);
	io_uring_queue_exit(&ring);
	if (ret != (int)IO_SIZE) {
		printf("SEGPROF layout=%s error=io:%d\n", layout, ret);
		return 1;
	}
	if (lost)
		printf("SEGPROF layout=%s windows_with_lost_events=%d\n",
		       layout, lost);
	if (lost == WINDOWS) {
		printf("SEGPROF layout=%s skip=trace events lost in every "
		       "window\n", layout);
		return 0;
	}
	fail |= judge(layout, "requests", p.requests, m.requests);
	if (kprobes) {
		fail |= judge(layout, nvme && hb_seg_gen_of(&km) ==
			      HB_SEG_GEN_DMA_ITER ? "dma_segments" :
			      "sg_entries", p.sg_entries, m.dma);
		if (have_nr)
			fail |= judge(layout, "nr_phys_segments",
				      p.nr_phys_segments, m.nr);
		/*
		 * 7.x: nvme_pci_setup_data_sgl() calls _next() until it
		 * returns false, the PRP setup stops at the last byte: one
		 * false return per SGL request of more than one segment
		 */
		if (nvme && hb_seg_gen_of(&km) == HB_SEG_GEN_DMA_ITER) {
			unsigned long multi = 0;

			for (i = 0; i < p.requests && i < MAX_REQS; i++)
				multi += reqs[i].sgl &&
					 reqs[i].nr_phys_segments > 1;
			fail |= judge(layout, "sgl_iter_requests", multi,
				      m.iter_ends);
		}
		/* a setup function inlined in this build is not judged */
		if (nvme && ev_defined("sgl") && ev_defined("prp"))
			fail |= judge(layout, "sgl_requests", p.sgl_requests,
				      m.sgl);
		if (nvme && ev_defined("pool"))
			fail |= judge(layout, "list_pages", p.desc_lists,
				      m.pool);
		return fail;
	}
	/* tracepoints: every request's sectors, then the ring */
	for (i = 0; i < p.requests && i < MAX_REQS; i++) {
		descs += reqs[i].virtio_descs;
		if (i >= c.reqs_seen)
			continue;
		if (reqs[i].bytes >> 9 == c.sectors[i]) {
			sized++;
			continue;
		}
		printf("SEGPROF layout=%s request=%u model_sectors=%llu "
		       "issued=%lu result=FAIL\n", layout, i,
		       (unsigned long long)(reqs[i].bytes >> 9), c.sectors[i]);
		fail = 1;
	}
	fail |= judge(layout, "requests_of_model_size", p.requests, sized);
	printf("SEGPROF layout=%s windows=%d quiet_windows=%lu\n", layout,
	       WINDOWS, m.quiet_windows);
	if (descs > ring_descs)
		printf("SEGPROF layout=%s ring=%u model_descs=%llu "
		       "requeues=%lu judged=no\n", layout, ring_descs,
		       (unsigned long long)descs, m.requeues);
	else if (!m.quiet_windows)
		printf("SEGPROF layout=%s ring=%u model_descs=%llu "
		       "requeues=%lu judged=no cause=another's requests on "
		       "%s in every window\n", layout, ring_descs,
		       (unsigned long long)descs, m.requeues, disk_name);
	else
		fail |= judge(layout, "requeues(ring holds all)", 0,
			      m.quiet_requeues);
	return fail;
}

static void *map_touched(size_t len, int advice)
{
	char *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	size_t i;

	if (p == MAP_FAILED)
		return NULL;
	madvise(p, len, advice);
	for (i = 0; i < len; i += 4096)
		p[i] = 1;
	return p;
}

/* every other page of 2 x IO_SIZE, moved next to each other */
static void *map_scattered(void)
{
	char *src = map_touched(2 * IO_SIZE, MADV_NOHUGEPAGE);
	char *dst = mmap(NULL, IO_SIZE, PROT_NONE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	size_t i;

	if (!src || dst == MAP_FAILED)
		return NULL;
	for (i = 0; i < NPAGES; i++)
		if (mremap(src + 2 * i * 4096, 4096, 4096,
			   MREMAP_MAYMOVE | MREMAP_FIXED,
			   dst + i * 4096) == MAP_FAILED)
			return NULL;
	munmap(src, 2 * IO_SIZE);
	return dst;
}

/* a 4 KiB page, then THPs up to IO_SIZE; NULL when no THP came */
static void *map_thp(void)
{
	size_t span = IO_SIZE + 4 * MiB;
	char *p = mmap(NULL, span, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char *a, *buf;
	size_t i;

	if (p == MAP_FAILED)
		return NULL;
	a = (char *)(((uintptr_t)p + 4 * MiB - 1) & ~(2 * MiB - 1));
	buf = a - 4096;
	madvise(a - 2 * MiB, 2 * MiB, MADV_NOHUGEPAGE);
	madvise(a, IO_SIZE, MADV_HUGEPAGE);
	for (i = 0; i < IO_SIZE; i += 4096)
		buf[i] = 1;
	return t_thp_backed(a, IO_SIZE - 2 * MiB) ? buf : NULL;
}

/*
 * virtio-blk's ring when the device has no indirect descriptors (feature
 * bit 28, VIRTIO_RING_F_INDIRECT_DESC), else 0
 */
static unsigned int virtio_ring(const char *disk)
{
	char path[160], feat[160], tags[32];

	snprintf(path, sizeof(path), "/sys/block/%s/device/features", disk);
	read_line(path, feat, sizeof(feat));
	if (strlen(feat) < 29 || feat[28] != '0')
		return 0;
	snprintf(path, sizeof(path), "/sys/block/%s/mq/0/nr_tags", disk);
	read_line(path, tags, sizeof(tags));
	return 2 * (unsigned int)strtoul(tags, NULL, 10);
}

/*
 * The whole disk @disk's driver, ring and queue limits, the line that
 * names them, @t's place on it; @idfd answers NVMe's Identify: 0, or 77
 */
static int disk_setup(const char *disk, int idfd, const struct target *t)
{
	snprintf(disk_name, sizeof(disk_name), "%s", disk);
	nvme = !strncmp(disk, "nvme", 4);
	nvme_sgls = nvme && t_nvme_sgls(idfd);
	ring_descs = nvme ? 0 : virtio_ring(disk);
	if (hb_blkdev_queue_limits(disk, false, &lim)) {
		printf("SEGPROF skip=%s\n", hb_errmsg());
		return 77;
	}
	printf("SEGPROF disk=%s kernel=%s offset=%llu max_bytes=%llu "
	       "max_segments=%u max_segment_size=%llu virt_boundary=%llu "
	       "nvme_sgls=%d ring=%u\n", disk, km.name,
	       (unsigned long long)t->disk_off,
	       (unsigned long long)lim.max_hw_bytes,
	       lim.max_segments, (unsigned long long)lim.max_segment_size,
	       (unsigned long long)lim.virt_boundary_mask, nvme_sgls,
	       ring_descs);
	if (!kprobes && !ring_descs) {
		printf("SEGPROF skip=%s: no kprobe events, and no virtio-blk "
		       "ring without indirect descriptors\n", disk);
		return 77;
	}
	return 0;
}

/* the disk @dev at @off (from its end when @from_end): 0, or 77 */
static int open_disk(const char *dev, bool from_end, uint64_t off,
		     struct target *t)
{
	const char *disk = strrchr(dev, '/') ? strrchr(dev, '/') + 1 : dev;
	uint64_t size = 0;
	struct stat st;

	t->fd = open(dev, O_RDONLY | O_DIRECT);
	if (t->fd < 0) {
		printf("SEGPROF skip=cannot open %s for O_DIRECT reads: %s\n",
		       dev, strerror(errno));
		return 77;
	}
	if (fstat(t->fd, &st) || !S_ISBLK(st.st_mode) ||
	    ioctl(t->fd, BLKGETSIZE64, &size) || size < off + IO_SIZE) {
		printf("SEGPROF skip=no whole disk %s with %llu bytes\n", dev,
		       (unsigned long long)(off + IO_SIZE));
		close(t->fd);
		return 77;
	}
	if (from_end)
		off = size - off;
	t->dev = st.st_rdev;
	t->io_off = off;
	t->disk_off = off;
	if (disk_setup(disk, t->fd, t)) {
		close(t->fd);
		return 77;
	}
	return 0;
}

/*
 * Bytes [@off, @off + IO_SIZE) of the file @fd as ONE written extent
 * (FIEMAP): the address of byte @off on the file system's device, 0, or
 * 77 with the cause.  ext4 maps a direct read extent by extent
 * (ext4_iomap_begin() -> ext4_map_blocks(), one bio per mapping), so a
 * read across two extents is two bios that the block layer merges or
 * not; an unwritten extent reads as zeroes with no I/O at all
 * (iomap_dio_iter(): IOMAP_UNWRITTEN -> iomap_dio_hole_iter()).
 */
#define NOT_PLAIN (FIEMAP_EXTENT_UNKNOWN | FIEMAP_EXTENT_DELALLOC | \
		   FIEMAP_EXTENT_ENCODED | FIEMAP_EXTENT_DATA_ENCRYPTED | \
		   FIEMAP_EXTENT_NOT_ALIGNED | FIEMAP_EXTENT_DATA_INLINE | \
		   FIEMAP_EXTENT_DATA_TAIL)

static int file_extent(int fd, const char *path, uint64_t off,
		       uint64_t *phys)
{
	struct fiemap *fm = calloc(1, sizeof(*fm) +
				   2 * sizeof(struct fiemap_extent));
	struct fiemap_extent *fe;
	int ret = 77;

	if (!fm)
		return 1;
	fm->fm_start = off;
	fm->fm_length = IO_SIZE;
	fm->fm_flags = FIEMAP_FLAG_SYNC;
	fm->fm_extent_count = 2;
	fe = &fm->fm_extents[0];
	if (ioctl(fd, FS_IOC_FIEMAP, fm))
		printf("SEGPROF skip=no FIEMAP on %s: %s\n", path,
		       strerror(errno));
	else if (fm->fm_mapped_extents != 1)
		printf("SEGPROF skip=%s: bytes %llu..+%lu are in %s extents, "
		       "not one: make a fresh file with fallocate\n", path,
		       (unsigned long long)off, IO_SIZE,
		       fm->fm_mapped_extents ? "2 or more" : "0");
	else if (fe->fe_logical > off ||
		 fe->fe_logical + fe->fe_length < off + IO_SIZE)
		printf("SEGPROF skip=%s: bytes %llu..+%lu are not all in its "
		       "extent (a hole): make the file with fallocate\n",
		       path, (unsigned long long)off, IO_SIZE);
	else if (fe->fe_flags & FIEMAP_EXTENT_UNWRITTEN)
		printf("SEGPROF skip=%s: its extent is unwritten (a read "
		       "returns zeroes without I/O): write it once with "
		       "O_DIRECT\n", path);
	else if (fe->fe_flags & NOT_PLAIN)
		printf("SEGPROF skip=%s: extent flags 0x%x, not a plain "
		       "extent on the device\n", path, fe->fe_flags);
	else
		ret = 0;
	if (!ret)
		*phys = fe->fe_physical + (off - fe->fe_logical);
	free(fm);
	return ret;
}

/* a directory with an entry other than . and .. */
static bool has_entries(const char *path)
{
	DIR *d = opendir(path);
	struct dirent *e;
	bool any = false;

	while (d && !any && (e = readdir(d)))
		any = strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
	if (d)
		closedir(d);
	return any;
}

/*
 * The start in bytes of the file system's device @st_dev on its whole
 * disk (sysfs start, in 512-byte sectors; none on a whole disk), and the
 * whole disk's dev_t: 0, or 77 (a stacked device: dm, md, whose sectors
 * are not one disk's)
 */
static int disk_place(dev_t st_dev, const char *disk, uint64_t *start,
		      dev_t *whole)
{
	char path[160], v[64];
	unsigned int ma, mi;

	snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/start",
		 major(st_dev), minor(st_dev));
	read_line(path, v, sizeof(v));
	*start = strtoull(v, NULL, 10) * 512;
	snprintf(path, sizeof(path), "/sys/block/%s/dev", disk);
	read_line(path, v, sizeof(v));
	if (sscanf(v, "%u:%u", &ma, &mi) != 2) {
		printf("SEGPROF skip=no %s\n", path);
		return 77;
	}
	*whole = makedev(ma, mi);
	snprintf(path, sizeof(path), "/sys/block/%s/slaves", disk);
	if (has_entries(path)) {
		printf("SEGPROF skip=%s is stacked on other devices (%s): its "
		       "sectors are not one disk's\n", disk, path);
		return 77;
	}
	return 0;
}

/*
 * -f: the file @path at @off (from its end when @from_end), its extent
 * placed on the whole disk: 0, or 77
 */
static int open_file(const char *path, bool from_end, uint64_t off,
		     struct target *t)
{
	struct hb_file_limits fl;
	char disk[64], dev[80];
	uint64_t phys, start;
	struct stat st;
	int idfd, ret;

	t->fd = open(path, O_RDONLY | O_DIRECT);
	if (t->fd < 0) {
		printf("SEGPROF skip=cannot open %s for O_DIRECT reads: %s\n",
		       path, strerror(errno));
		return 77;
	}
	ret = 77;
	if (fstat(t->fd, &st) || !S_ISREG(st.st_mode) ||
	    (uint64_t)st.st_size < off + IO_SIZE)
		printf("SEGPROF skip=%s is no regular file of %llu bytes or "
		       "more\n", path, (unsigned long long)(off + IO_SIZE));
	else if (hb_blkdev_of_path(path, disk, sizeof(disk)))
		printf("SEGPROF skip=%s\n", hb_errmsg());
	/* ext4 data=journal, verity...: O_DIRECT falls back to buffered */
	else if (!hb_file_limits(path, &fl) && fl.dio_known &&
		 !fl.dio_mem_align)
		printf("SEGPROF skip=%s: no direct I/O on its file system "
		       "(statx dio_mem_align 0)\n", path);
	else
		ret = 0;
	if (!ret && from_end)
		off = st.st_size - off;
	if (!ret)
		ret = file_extent(t->fd, path, off, &phys);
	if (!ret)
		ret = disk_place(st.st_dev, disk, &start, &t->dev);
	if (ret) {
		close(t->fd);
		return ret;
	}
	t->io_off = off;
	t->disk_off = start + phys;
	printf("SEGPROF file=%s file_offset=%llu extent_byte=%llu "
	       "partition_start=%llu disk_offset=%llu\n", path,
	       (unsigned long long)off, (unsigned long long)phys,
	       (unsigned long long)start, (unsigned long long)t->disk_off);
	/* NVMe's Identify needs the disk itself; elsewhere it is not read */
	snprintf(dev, sizeof(dev), "/dev/%s", disk);
	idfd = strncmp(disk, "nvme", 4) ? -1 : open(dev, O_RDONLY);
	if (!strncmp(disk, "nvme", 4) && idfd < 0) {
		printf("SEGPROF skip=cannot open %s for the controller's SGL "
		       "support: %s\n", dev, strerror(errno));
		close(t->fd);
		return 77;
	}
	ret = disk_setup(disk, idfd, t);
	if (idfd >= 0)
		close(idfd);
	if (ret)
		close(t->fd);
	return ret;
}

/* kprobe events, else the block tracepoints: 0, or 77 */
static int open_counting(void)
{
	if (hb_kmodel_running(&km)) {
		printf("SEGPROF skip=%s\n", hb_errmsg());
		return 77;
	}
	kprobes = kprobes_open() == 1;
	if (!kprobes) {
		kprobes_close();
		if (!instance_open()) {
			instance_close();
			printf("SEGPROF skip=no kprobe events and no block "
			       "tracepoints in %s\n", tracefs);
			return 77;
		}
	}
	printf("SEGPROF counting=%s\n", kprobes ? "kprobes" : "tracepoints");
	return 0;
}

#define SGL_PARAM "/sys/module/nvme/parameters/sgl_threshold"

/* nvme.sgl_threshold now, or the default where it cannot be read */
static unsigned int read_sgl_threshold(void)
{
	char v[32];

	read_line(SGL_PARAM, v, sizeof(v));
	return v[0] ? (unsigned int)strtoul(v, NULL, 10) : 32768;
}

/* the three layouts, their names after @pass: 0, 1 or 77 */
static int run_layouts(const char *pass, const struct target *t)
{
	char name[64];
	int ret, fail = 0;
	void *buf;

	sgl_threshold = read_sgl_threshold();
	snprintf(name, sizeof(name), "alloc%s", pass);
	buf = map_touched(IO_SIZE, MADV_NOHUGEPAGE);
	ret = buf ? run_layout(name, buf, t) : 1;
	if (ret == 77)
		return 77;
	fail |= ret;
	snprintf(name, sizeof(name), "scattered%s", pass);
	buf = map_scattered();
	fail |= buf ? run_layout(name, buf, t) : 1;
	snprintf(name, sizeof(name), "thp%s", pass);
	buf = map_thp();
	if (buf)
		fail |= run_layout(name, buf, t);
	else
		printf("SEGPROF layout=%s skip=no THP\n", name);
	return fail;
}

/*
 * The layouts on one disk, or on one file's extent (@file): 0, 1 or 77.
 * With -S on NVMe with SGLs, again with nvme.sgl_threshold at that value
 * (then put back), so that the SGL path runs too.
 */
static int run_disk(const char *dev, bool file, bool from_end, uint64_t off)
{
	struct target t;
	unsigned int was;
	char v[32];
	int ret;

	ret = file ? open_file(dev, from_end, off, &t) :
		     open_disk(dev, from_end, off, &t);
	if (ret)
		return ret;
	ret = run_layouts("", &t);
	if (ret != 77 && nvme && nvme_sgls && sgl_try) {
		was = read_sgl_threshold();
		snprintf(v, sizeof(v), "%u", sgl_try);
		if (t_knob_write(SGL_PARAM, v, O_TRUNC)) {
			printf("SEGPROF layout=sgl skip=cannot write %s\n",
			       SGL_PARAM);
		} else {
			printf("SEGPROF sgl_threshold=%u (was %u)\n", sgl_try,
			       was);
			if (run_layouts("-sgl", &t) == 1)
				ret = 1;
			snprintf(v, sizeof(v), "%u", was);
			t_knob_write(SGL_PARAM, v, O_TRUNC);
		}
	}
	close(t.fd);
	return ret;
}

/* the largest private anonymous writable mapping of @pid */
static int largest_anon(int pid, uint64_t *start, uint64_t *len)
{
	char path[64], line[512], perm[8];
	unsigned long a, b, ino;
	int n;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/maps", pid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	*len = 0;
	while (fgets(line, sizeof(line), f)) {
		n = sscanf(line, "%lx-%lx %7s %*s %*s %lu", &a, &b, perm, &ino);
		if (n == 4 && !ino && perm[0] == 'r' && perm[1] == 'w' &&
		    perm[3] == 'p' && b - a > *len && !strstr(line, "[")) {
			*start = a;
			*len = b - a;
		}
	}
	fclose(f);
	return *len ? 0 : -1;
}

/* the PFNs of @nr pages of @pid from @va: 0, or -1 (a page not present) */
static int pid_pfns(int fd, uint64_t va, unsigned int nr, uint64_t *pfn)
{
	unsigned int i;

	if (pread(fd, pfn, nr * 8ULL, (off_t)(va / 4096 * 8)) !=
	    (ssize_t)(nr * 8ULL))
		return -1;
	for (i = 0; i < nr; i++) {
		pfn[i] = hb_pagemap_pfn(pfn[i]);
		if (!pfn[i])
			return -1;
	}
	return 0;
}

/* -m: the model over every whole @bs of @pid's largest mapping */
static int model_pid(int pid, uint64_t bs, const char *dev)
{
	static struct hb_seg_req reqs[MAX_REQS];
	const char *disk = strrchr(dev, '/') ? strrchr(dev, '/') + 1 : dev;
	struct hb_seg_cfg cfg = { HB_SEG_DRV_VIRTIO_BLK, false, 32768 };
	uint64_t start, len, va, *pfn, adj = 0, pairs = 0, full = 0;
	uint64_t nr_req = 0, segs = 0, ents = 0, descs = 0, maxd = 0;
	unsigned int nios = 0, npg = (unsigned int)(bs / 4096), i;
	struct hb_phys_bvec *bv;
	struct hb_seg_pred p;
	char path[64];
	int fd;

	if (hb_kmodel_running(&km) || hb_blkdev_queue_limits(disk, false,
							      &lim)) {
		printf("SEGPROF skip=%s\n", hb_errmsg());
		return 77;
	}
	if (!strncmp(disk, "nvme", 4))
		cfg.driver = HB_SEG_DRV_NVME_PCI;
	ring_descs = virtio_ring(disk);
	snprintf(path, sizeof(path), "/proc/%d/pagemap", pid);
	fd = open(path, O_RDONLY);
	pfn = calloc(npg, sizeof(*pfn));
	bv = calloc(npg, sizeof(*bv));
	if (fd < 0 || !pfn || !bv || largest_anon(pid, &start, &len)) {
		printf("SEGPROF skip=no mapping or pagemap of pid %d\n", pid);
		return 77;
	}
	for (va = start; va + bs <= start + len; va += bs) {
		if (pid_pfns(fd, va, npg, pfn) ||
		    hb_phys_bvecs_4k(pfn, npg, 0, bs, bv) != (int)npg ||
		    hb_model_segments(&km, bv, npg, &lim, &cfg, reqs, MAX_REQS,
				      &p))
			continue;
		for (i = 1; i < npg; i++)
			adj += pfn[i] == pfn[i - 1] + 1;
		pairs += npg - 1;
		for (i = 0; i < p.requests && i < MAX_REQS; i++) {
			maxd = reqs[i].virtio_descs > maxd ?
			       reqs[i].virtio_descs : maxd;
			full += ring_descs &&
				2 * reqs[i].virtio_descs > ring_descs;
		}
		nios++;
		nr_req += p.requests;
		segs += p.nr_phys_segments;
		ents += p.sg_entries;
		descs += p.virtio_descs;
	}
	close(fd);
	free(pfn);
	free(bv);
	if (!nios || !nr_req) {
		printf("SEGPROF skip=no I/O of %llu bytes with all pages present "
		       "in pid %d\n", (unsigned long long)bs, pid);
		return 77;
	}
	printf("SEGPROF pid=%d mapping=%llu ios=%u adjacent=%.1f%% "
	       "requests/io=%.2f nr_phys/req=%.1f sg_entries/req=%.1f "
	       "virtio_descs/req=%.1f max_descs=%llu ring=%u "
	       "reqs_over_half_ring=%.1f%% kernel=%s\n", pid,
	       (unsigned long long)len, nios, 100.0 * adj / pairs,
	       (double)nr_req / nios, (double)segs / nr_req,
	       (double)ents / nr_req, (double)descs / nr_req,
	       (unsigned long long)maxd, ring_descs, 100.0 * full / nr_req,
	       km.name);
	return 0;
}

int main(int argc, char **argv)
{
	const char *dev[4], *file = NULL;
	unsigned int nd = 0, i;
	uint64_t off = 64 * MiB;
	bool from_end = false, usage = false, off_set = false;
	int opt, ret, fail = 0, skips = 0, pid = 0;
	uint64_t bs = IO_SIZE;

	while ((opt = getopt(argc, argv, "b:d:e:f:m:o:S:t:")) != -1) {
		switch (opt) {
		case 'S':
			sgl_try = (unsigned int)strtoul(optarg, NULL, 0);
			break;
		case 'b':
			bs = strtoull(optarg, NULL, 0);
			break;
		case 'm':
			pid = atoi(optarg);
			break;
		case 'd':
			if (nd < 4)
				dev[nd++] = optarg;
			break;
		case 'f':
			file = optarg;
			break;
		case 'e':
		case 'o':
			off = strtoull(optarg, NULL, 0);
			from_end = opt == 'e';
			off_set = true;
			break;
		case 't':
			tracefs = optarg;
			break;
		default:
			usage = true;
			break;
		}
	}
	/* a file is read from its start unless told */
	if (file && !off_set)
		off = 0;
	if (usage || (!nd && !file) || (pid && !nd) || off % 4096 ||
	    (from_end && off < IO_SIZE) || !bs || bs % 4096 ||
	    bs / 4096 > 65536) {
		fprintf(stderr, "usage: %s -d /dev/DISK [-d ...] [-o OFFSET | "
			"-e BYTES_FROM_END (4 KiB aligned)] [-S SGL_THRESHOLD] "
			"[-t TRACEFS]\n"
			"       %s -f FILE (one written extent of 8 MiB from "
			"OFFSET, default 0) [-o OFFSET | -e BYTES_FROM_END] "
			"[-t TRACEFS]\n"
			"       %s -m PID [-b BYTES (4 KiB multiple, <= 256 "
			"MiB)] -d /dev/DISK\n", argv[0], argv[0], argv[0]);
		return 1;
	}
	if (pid)
		return model_pid(pid, bs, dev[0]);
	ret = open_counting();
	if (ret)
		return ret;
	for (i = 0; i < nd; i++) {
		ret = run_disk(dev[i], false, from_end, off);
		skips += ret == 77;
		fail |= ret == 1;
	}
	if (file) {
		ret = run_disk(file, true, from_end, off);
		skips += ret == 77;
		fail |= ret == 1;
		nd++;
	}
	if (kprobes)
		kprobes_close();
	instance_close();
	printf("SEGPROF done fail=%d skipped=%d\n", fail, skips);
	return fail ? 1 : skips == (int)nd ? 77 : 0;
}
