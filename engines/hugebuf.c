// SPDX-License-Identifier: GPL-2.0-only
/*
 * hugebuf: fio external ioengine for io_uring fixed (registered) buffers on
 * hugepages.
 *
 *   fio --ioengine=external:/path/hugebuf.so --backing=hugetlb ...
 *   fio --enghelp=/path/hugebuf.so
 *
 * The engine owns the I/O buffers: it allocates them with lib/ (hb_alloc,
 * folio aligned), lays io_u i out at base + head_offset + i * stride with
 * the stride rounded up to the folio size, registers them (one iovec per
 * io_u, or a few <= 1 GiB regions), and reports what the running kernel
 * makes of them (lib/'s model over the probed page map).
 *
 * Built against the configured source tree of the fio it loads into.
 * fio 3.33 (FIO_IOOPS_VERSION 31) is the reference; newer ABIs are handled
 * by the FIO_IOOPS_VERSION conditionals below.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include <liburing.h>

#include "fio.h"
#include "optgroup.h"
#include "verify.h"

#include "hugebuf.h"

#define HB_LOG_PREFIX	"hugebuf: "
/* most SQEs one io_u may be split into by chunk_size */
#define HB_MAX_PIECES	4096
/* O_DIRECT needs the buffer aligned to the logical block size (>= 512) */
#define HB_DIO_ALIGN	512

/*
 * fio 3.36 (519fb6da) took engine_data out of the union with io_u->index;
 * up to then (3.33 = ops version 31, 3.34/3.35 = 32) the two share storage,
 * so a pointer in engine_data would overwrite the index fio and we use as
 * the slot and buffer number.  Ops version 33 is the first with the split.
 */
#if FIO_IOOPS_VERSION >= 33
#define HB_ENGINE_DATA_FREE	1
#else
#define HB_ENGINE_DATA_FREE	0
#endif

enum hb_layout {
	HB_LAYOUT_PER_IO = 0,	/* one registered buffer per io_u */
	HB_LAYOUT_REGION,	/* io_us carved from <= 1 GiB regions */
};

enum hb_check {
	HB_CHECK_OFF = 0,
	HB_CHECK_WARN,
	HB_CHECK_REQUIRE,
};

struct hb_slot;

/* One SQE's worth of an io_u: what is left to transfer. */
struct hb_piece {
	struct hb_slot *slot;
	unsigned long long off;	/* file offset */
	char *addr;
	unsigned long long len;
};

/* Engine state of one io_u, found by io_u->index. */
struct hb_slot {
	struct io_u *io_u;
	unsigned int pending;	/* pieces in flight */
	unsigned int nr_pieces;
	unsigned long long done;
	int error;
	bool eof;
	struct hb_piece *pieces;
};

/* Per-buffer result of probe + model, for the report. */
struct hb_bufstat {
	unsigned int min_folios, max_folios;
	unsigned int min_bvecs, max_bvecs;
	unsigned int min_io_segs, max_io_segs;
	unsigned int not_coalesced;	/* more bvecs than folios */
	bool all_coalesced;		/* the model's imu->coalesced */
	uint64_t imu_bytes, imu_bytes_4k;
	uint64_t min_folio, max_folio;	/* folio sizes the probe saw */
	enum hb_probe_source source;
	char note[160];
};

struct hb_data {
	struct io_uring ring;
	bool ring_ok;
	bool reported;
	struct hb_backing backing;
	struct hb_buf buf;
	bool buf_ok;
	struct hb_kmodel km;

	unsigned long long max_bs;
	unsigned long long stride;	/* distance between io_u buffers */
	unsigned int depth;
	unsigned int slots_per_region;
	unsigned int nr_iovecs;
	struct iovec *iovecs;		/* what is (or would be) registered */
	struct hb_slot *slots;
	unsigned int max_pieces;

	/* io_us queued since the last commit, for issue_time */
	struct io_u **queued;
	unsigned int nr_queued;
	unsigned int sqes_pending;	/* prepared but not submitted */

	/* completed io_us waiting for ->event() */
	struct io_u **events;
	unsigned int nr_events;

	/* report */
	struct hb_bufstat st;
	double register_usec;
	long vmpin_kb;
	bool defer_taskrun;
	char dev[64];
	bool dev_ok;
	uint64_t dev_r0, dev_w0;
	uint64_t ios[2];
};

struct hb_options {
	void *pad;		/* fio stores the thread_data pointer here */
	char *backing;
	char *hugepage_size;
	unsigned int layout;
	unsigned long long head_offset;
	unsigned int fixedbufs;
	unsigned int registerfiles;
	unsigned int sqpoll;
	unsigned int sqpoll_cpu;
	unsigned int sqpoll_cpu_set;
	unsigned int hipri;
	unsigned int defer_taskrun;
	unsigned long long chunk_size;
	unsigned int coalesce_check;
	unsigned int report;
	char *report_json;
};

static int hb_sqpoll_cpu_cb(void *data, unsigned long long *val)
{
	struct hb_options *o = data;

	o->sqpoll_cpu = *val;
	o->sqpoll_cpu_set = 1;
	return 0;
}

static struct fio_option options[] = {
	{
		.name	= "backing",
		.lname	= "hugebuf buffer backing",
		.type	= FIO_OPT_STR_STORE,
		.off1	= offsetof(struct hb_options, backing),
		.def	= "hugetlb",
		.help	= "Buffer memory: hugetlb|memfd|thp|mthp|4k|libhugetlbfs",
		.category = FIO_OPT_C_ENGINE,
		.group	= FIO_OPT_G_INVALID,
	},
	{
		.name	= "hugepage_size",
		.lname	= "hugebuf folio size",
		.type	= FIO_OPT_STR_STORE,
		.off1	= offsetof(struct hb_options, hugepage_size),
		.help	= "Page/folio size of the backing: 2M|1G (hugetlb, memfd) or an mTHP size (mthp)",
		.category = FIO_OPT_C_ENGINE,
		.group	= FIO_OPT_G_INVALID,
	},
	{
		.name	= "layout",
		.lname	= "hugebuf buffer layout",
		.type	= FIO_OPT_STR,
		.off1	= offsetof(struct hb_options, layout),
		.def	= "per-io",
		.help	= "per-io: one registered buffer per io_u; region: io_us inside few <= 1 GiB registered regions",
		.posval	= {
			{ .ival = "per-io", .oval = HB_LAYOUT_PER_IO,
			  .help = "one registered buffer per io_u" },
			{ .ival = "region", .oval = HB_LAYOUT_REGION,
			  .help = "few registered regions, io_us inside" },
		},
		.category = FIO_OPT_C_ENGINE,
		.group	= FIO_OPT_G_INVALID,
	},
	{
		.name	= "head_offset",
		.lname	= "hugebuf head offset",
		.type	= FIO_OPT_STR_VAL,
		.off1	= offsetof(struct hb_options, head_offset),
		.def	= "0",
		.help	= "Start every buffer this many bytes into its first folio",
		.category = FIO_OPT_C_ENGINE,
		.group	= FIO_OPT_G_INVALID,
	},
	{
		.name	= "fixedbufs",
		.lname	= "hugebuf fixed buffers",
		.type	= FIO_OPT_BOOL,
		.off1	= offsetof(struct hb_options, fixedbufs),
		.def	= "1",
		.help	= "1: register the buffers (READ/WRITE_FIXED); 0: same buffers through plain READ/WRITE",
		.category = FIO_OPT_C_ENGINE,
		.group	= FIO_OPT_G_INVALID,
	},
	{
		.name	= "registerfiles",
		.lname	= "hugebuf register files",
		.type	= FIO_OPT_STR_SET,
		.off1	= offsetof(struct hb_options, registerfiles),
		.help	= "Register the job's files with io_uring (IOSQE_FIXED_FILE)",
		.category = FIO_OPT_C_ENGINE,
		.group	= FIO_OPT_G_INVALID,
	},
	{
		.name	= "sqpoll",
		.lname	= "hugebuf SQ polling",
		.type	= FIO_OPT_STR_SET,
		.off1	= offsetof(struct hb_options, sqpoll),
		.help	= "Submit through a kernel SQ polling thread (IORING_SETUP_SQPOLL)",
		.category = FIO_OPT_C_ENGINE,
		.group	= FIO_OPT_G_INVALID,
	},
	{
		.name	= "sqpoll_cpu",
		.lname	= "hugebuf SQ poll CPU",
		.type	= FIO_OPT_INT,
		.cb	= hb_sqpoll_cpu_cb,
		.help	= "CPU the SQ polling thread is bound to (IORING_SETUP_SQ_AFF)",
		.category = FIO_OPT_C_ENGINE,
		.group	= FIO_OPT_G_INVALID,
	},
	{
		.name	= "hipri",
		.lname	= "hugebuf polled completions",
		.type	= FIO_OPT_STR_SET,
		.off1	= offsetof(struct hb_options, hipri),
		.help	= "Poll for completions (IORING_SETUP_IOPOLL, needs direct=1)",
		.category = FIO_OPT_C_ENGINE,
		.group	= FIO_OPT_G_INVALID,
	},
	{
		.name	= "defer_taskrun",
		.lname	= "hugebuf deferred task work",
		.type	= FIO_OPT_BOOL,
		.off1	= offsetof(struct hb_options, defer_taskrun),
		.def	= "1",
		.help	= "SINGLE_ISSUER + DEFER_TASKRUN where the kernel has them (falls back on EINVAL)",
		.category = FIO_OPT_C_ENGINE,
		.group	= FIO_OPT_G_INVALID,
	},
	{
		.name	= "chunk_size",
		.lname	= "hugebuf chunk size",
		.type	= FIO_OPT_STR_VAL,
		.off1	= offsetof(struct hb_options, chunk_size),
		.def	= "0",
		.help	= "Split every I/O larger than this into pieces submitted together (0: off)",
		.category = FIO_OPT_C_ENGINE,
		.group	= FIO_OPT_G_INVALID,
	},
	{
		.name	= "coalesce_check",
		.lname	= "hugebuf coalescing check",
		.type	= FIO_OPT_STR,
		.off1	= offsetof(struct hb_options, coalesce_check),
		.def	= "warn",
		.help	= "off|warn|require: require fails the job before any I/O if the kernel would not coalesce the buffers",
		.posval	= {
			{ .ival = "off", .oval = HB_CHECK_OFF,
			  .help = "do not check" },
			{ .ival = "warn", .oval = HB_CHECK_WARN,
			  .help = "print a warning" },
			{ .ival = "require", .oval = HB_CHECK_REQUIRE,
			  .help = "fail the job" },
		},
		.category = FIO_OPT_C_ENGINE,
		.group	= FIO_OPT_G_INVALID,
	},
	{
		.name	= "report",
		.lname	= "hugebuf report",
		.type	= FIO_OPT_STR,
		.off1	= offsetof(struct hb_options, report),
		.def	= "on",
		.help	= "on|off: print the buffer/coalescing report at job end",
		.posval	= {
			{ .ival = "on", .oval = 1, .help = "print it" },
			{ .ival = "off", .oval = 0, .help = "do not" },
			{ .ival = "1", .oval = 1, .help = "print it" },
			{ .ival = "0", .oval = 0, .help = "do not" },
		},
		.category = FIO_OPT_C_ENGINE,
		.group	= FIO_OPT_G_INVALID,
	},
	{
		.name	= "report_json",
		.lname	= "hugebuf JSON report",
		.type	= FIO_OPT_STR_STORE,
		.off1	= offsetof(struct hb_options, report_json),
		.help	= "Append the report as one JSON line per job to this file (default: $HUGEBUF_REPORT_JSON)",
		.category = FIO_OPT_C_ENGINE,
		.group	= FIO_OPT_G_INVALID,
	},
	{
		.name	= NULL,
	},
};

static struct hb_slot *hb_slot_of(struct hb_data *hd, struct io_u *io_u)
{
	return &hd->slots[io_u->index];
}

static bool hb_is_hugetlb(const struct hb_backing *b)
{
	return b->kind == HB_BACKING_HUGETLB || b->kind == HB_BACKING_MEMFD ||
	       b->kind == HB_BACKING_LIBHUGETLBFS;
}

/* ------------------------------------------------------------------ */
/* option checks (init): every failure is one line naming the fix      */
/* ------------------------------------------------------------------ */

static int hb_parse_backing(struct hb_options *o, struct hb_backing *b)
{
	const char *kind = o->backing ? o->backing : "hugetlb";
	const char *size = o->hugepage_size;
	char spec[96];

	if (strchr(kind, ':') && size && *size) {
		log_err(HB_LOG_PREFIX "backing=%s already names its page size: "
			"drop hugepage_size=%s, or write backing=%.*s "
			"hugepage_size=%s\n", kind, size,
			(int)(strchr(kind, ':') - kind), kind, size);
		return -EINVAL;
	}
	if (strchr(kind, ':') || !size || !*size)
		snprintf(spec, sizeof(spec), "%s", kind);
	else if (!strcmp(kind, "hugetlb") || !strcmp(kind, "memfd") ||
		 !strcmp(kind, "mthp"))
		snprintf(spec, sizeof(spec), "%s:%s", kind, size);
	else
		snprintf(spec, sizeof(spec), "%s", kind);

	if (!strcmp(spec, "mthp")) {
		log_err(HB_LOG_PREFIX "backing=mthp needs hugepage_size=<mTHP "
			"size>, e.g. hugepage_size=64K\n");
		return -EINVAL;
	}
	if (hb_backing_parse(spec, b)) {
		log_err(HB_LOG_PREFIX "%s\n", hb_errmsg());
		return -EINVAL;
	}
	if (size && *size && (!strcmp(kind, "thp") || !strcmp(kind, "4k"))) {
		uint64_t sz;

		if (hb_parse_size(size, &sz) || sz != b->folio_size) {
			log_err(HB_LOG_PREFIX "hugepage_size=%s does not apply "
				"to backing=%s (its folio size is %llu): drop "
				"hugepage_size or use backing=mthp\n", size,
				kind, (unsigned long long)b->folio_size);
			return -EINVAL;
		}
	}
	return 0;
}

/* The resources a backing needs must be there before we allocate. */
static int hb_check_resources(struct thread_data *td, struct hb_data *hd,
			      uint64_t map_len, uint64_t pin_bytes)
{
	const struct hb_backing *b = &hd->backing;
	struct hb_sysinfo si;
	char sz[32], bk[48];

	if (hb_sysinfo_read(&si)) {
		log_err(HB_LOG_PREFIX "%s\n", hb_errmsg());
		return -EINVAL;
	}
	hb_fmt_size(b->folio_size, sz, sizeof(sz));
	hb_backing_str(b, bk, sizeof(bk));

	if (hb_is_hugetlb(b)) {
		const struct hb_pool *pool = hb_sysinfo_pool(&si, b->folio_size);
		unsigned long need = map_len / b->folio_size;

		if (!pool) {
			log_err(HB_LOG_PREFIX "%s hugepages are not available "
				"on this machine (no /sys/kernel/mm/hugepages/"
				"hugepages-%llukB): boot with hugepagesz=%s "
				"hugepages=N, or use hugepage_size=2M\n", sz,
				(unsigned long long)(b->folio_size >> 10), sz);
			return -ENOENT;
		}
		if (b->folio_size >= (1ULL << 30) && pool->nr == 0) {
			log_err(HB_LOG_PREFIX "no %s hugepages are reserved "
				"(backing=%s needs %lu): boot with hugepagesz=%s "
				"hugepages=%lu, or use hugepage_size=2M\n", sz,
				bk, need, sz, need);
			return -ENOENT;
		}
		if (pool->free - pool->resv < need) {
			log_err(HB_LOG_PREFIX "backing=%s needs %lu free %s "
				"hugepages for iodepth=%u x bs=%llu, only %lu "
				"free: echo %lu > /sys/kernel/mm/hugepages/"
				"hugepages-%llukB/nr_hugepages (sysctl "
				"vm.nr_hugepages for the default size)\n", bk,
				need, sz, hd->depth, hd->max_bs,
				pool->free - pool->resv,
				pool->nr + need - (pool->free - pool->resv),
				(unsigned long long)(b->folio_size >> 10));
			return -ENOMEM;
		}
	}
	if (b->kind == HB_BACKING_MTHP && !hb_mthp_usable(&si, b->folio_size)) {
		log_err(HB_LOG_PREFIX "mTHP size %s is not enabled: echo "
			"madvise > /sys/kernel/mm/transparent_hugepage/"
			"hugepages-%llukB/enabled (as root)\n", sz,
			(unsigned long long)(b->folio_size >> 10));
		return -EOPNOTSUPP;
	}
	if (b->kind == HB_BACKING_THP && !strcmp(si.thp_enabled, "never")) {
		log_err(HB_LOG_PREFIX "THP is disabled: echo madvise > "
			"/sys/kernel/mm/transparent_hugepage/enabled\n");
		return -EOPNOTSUPP;
	}
	/*
	 * Registration charges RLIMIT_MEMLOCK unless the ring's creator has
	 * CAP_IPC_LOCK (io_account_mem() is skipped when ctx->user is NULL);
	 * a compound page is charged whole (io_buffer_account_pin()).
	 */
	if (pin_bytes && !si.cap_ipc_lock && si.memlock_cur != UINT64_MAX &&
	    pin_bytes > si.memlock_cur) {
		log_err(HB_LOG_PREFIX "registering %llu KiB of buffers needs "
			"RLIMIT_MEMLOCK >= that, the limit is %llu KiB: raise "
			"it with 'ulimit -l %llu' (or run with CAP_IPC_LOCK), "
			"or lower iodepth/bs\n",
			(unsigned long long)(pin_bytes >> 10),
			(unsigned long long)(si.memlock_cur >> 10),
			(unsigned long long)((pin_bytes >> 10) + 1024));
		return -ENOMEM;
	}
	(void)td;
	return 0;
}

/*
 * Lay io_u i out at base + head_offset + i * stride.  The stride is max_bs
 * rounded up to the folio size, so every buffer starts head_offset bytes
 * into a folio and (head_offset 0) covers whole folios from its start.
 */
static int hb_plan_layout(struct thread_data *td, struct hb_data *hd,
			  struct hb_options *o)
{
	uint64_t folio = hd->backing.folio_size;

	hd->depth = td->o.iodepth;
	hd->max_bs = td_max_bs(td);
	if (hd->max_bs >= folio) {
		hd->stride = (hd->max_bs + folio - 1) / folio * folio;
	} else {
		/* a power of two divides the folio: no buffer straddles one */
		hd->stride = HB_PAGE_SIZE;
		while (hd->stride < hd->max_bs)
			hd->stride <<= 1;
	}

	if (o->fixedbufs && hd->max_bs > HB_MAX_BUF_LEN) {
		log_err(HB_LOG_PREFIX "bs=%llu is over the kernel's 1 GiB limit "
			"for one registered buffer (io_buffer_validate): use "
			"bs<=1G or fixedbufs=0\n", hd->max_bs);
		return -EINVAL;
	}
	/*
	 * lib/ places every buffer head_offset bytes after a boundary of
	 * hb_backing_align() (the folio, or 2M for the 4k baseline): an
	 * offset past it would be a different layout from the one asked for.
	 */
	if (o->head_offset > HB_MAX_BUF_LEN * 1024ULL) {
		log_err(HB_LOG_PREFIX "head_offset=%lld is negative or too large: "
			"use a value below %llu for this backing\n",
			(long long)o->head_offset,
			(unsigned long long)hb_backing_align(&hd->backing));
		return -EINVAL;
	}
	if (o->head_offset >= hb_backing_align(&hd->backing)) {
		log_err(HB_LOG_PREFIX "head_offset=%llu is not inside the first "
			"folio: use a value below %llu for this backing\n",
			o->head_offset,
			(unsigned long long)hb_backing_align(&hd->backing));
		return -EINVAL;
	}
	if (td->o.odirect && o->head_offset % HB_DIO_ALIGN) {
		log_err(HB_LOG_PREFIX "head_offset=%llu is not a multiple of "
			"%d, which direct=1 needs: use a multiple of the "
			"logical block size, or direct=0\n", o->head_offset,
			HB_DIO_ALIGN);
		return -EINVAL;
	}
	if (o->layout == HB_LAYOUT_PER_IO) {
		hd->slots_per_region = 1;
		hd->nr_iovecs = hd->depth;
	} else {
		uint64_t k = HB_MAX_BUF_LEN / hd->stride;

		if (!k)
			k = 1;
		if (k > hd->depth)
			k = hd->depth;
		hd->slots_per_region = k;
		hd->nr_iovecs = (hd->depth + k - 1) / k;
	}
	if (o->fixedbufs && hd->nr_iovecs > HB_MAX_REG_BUFFERS) {
		log_err(HB_LOG_PREFIX "iodepth=%u needs %u registered buffers, "
			"the kernel allows %u: use layout=region or a lower "
			"iodepth\n", hd->depth, hd->nr_iovecs,
			HB_MAX_REG_BUFFERS);
		return -EINVAL;
	}
	hd->max_pieces = 1;
	if (o->chunk_size > HB_MAX_BUF_LEN * 1024ULL) {
		log_err(HB_LOG_PREFIX "chunk_size=%lld is negative or too large: "
			"use a positive size such as 1M, or 0 for off\n",
			(long long)o->chunk_size);
		return -EINVAL;
	}
	if (o->chunk_size) {
		uint64_t n = (hd->max_bs + o->chunk_size - 1) / o->chunk_size;

		if (o->chunk_size % HB_DIO_ALIGN && td->o.odirect) {
			log_err(HB_LOG_PREFIX "chunk_size=%llu is not a multiple "
				"of %d, which direct=1 needs\n", o->chunk_size,
				HB_DIO_ALIGN);
			return -EINVAL;
		}
		if (n > HB_MAX_PIECES) {
			log_err(HB_LOG_PREFIX "chunk_size=%llu splits bs=%llu "
				"into %llu pieces, at most %d are allowed: raise "
				"chunk_size\n", o->chunk_size, hd->max_bs,
				(unsigned long long)n, HB_MAX_PIECES);
			return -EINVAL;
		}
		hd->max_pieces = n;
	}
	return 0;
}

/*
 * Bytes to map: our layout, and at least what fio's own carving writes to
 * before post_init moves the buffers (init_io_u_buffers(): iodepth *
 * max_bs from a page aligned base plus iomem_align, plus alignment slack).
 */
static uint64_t hb_alloc_len(struct thread_data *td, struct hb_data *hd,
			     struct hb_options *o)
{
	uint64_t ours = (uint64_t)(hd->depth - 1) * hd->stride + hd->max_bs;
	uint64_t fios = (uint64_t)hd->depth * hd->max_bs + td->o.mem_align +
			4 * HB_PAGE_SIZE;

	(void)o;
	return ours > fios ? ours : fios;
}

static void hb_free_data(struct hb_data *hd)
{
	unsigned int i;

	if (!hd)
		return;
	if (hd->ring_ok)
		io_uring_queue_exit(&hd->ring);
	if (hd->buf_ok)
		hb_free(&hd->buf);
	if (hd->slots) {
		for (i = 0; i < hd->depth; i++)
			free(hd->slots[i].pieces);
	}
	free(hd->slots);
	free(hd->iovecs);
	free(hd->queued);
	free(hd->events);
	free(hd);
}

static int hb_init(struct thread_data *td)
{
	struct hb_options *o = td->eo;
	struct hb_data *hd;
	uint64_t len, map_len, pin;
	unsigned int i;
	int ret;

	if (fio_option_is_set(&td->o, mem_type)) {
		log_err(HB_LOG_PREFIX "mem=/iomem= cannot be used with this "
			"engine, it allocates the buffers itself: remove mem= "
			"and choose backing=\n");
		td_verror(td, EINVAL, "hugebuf init");
		return 1;
	}
	if (td->o.mem_align) {
		log_err(HB_LOG_PREFIX "iomem_align= is not used by this engine: "
			"remove it and use head_offset=\n");
		td_verror(td, EINVAL, "hugebuf init");
		return 1;
	}
	if (o->registerfiles && td->o.nr_files != td->o.open_files) {
		log_err(HB_LOG_PREFIX "registerfiles needs open_files equal to "
			"nr_files (%u): drop open_files or registerfiles\n",
			td->o.nr_files);
		td_verror(td, EINVAL, "hugebuf init");
		return 1;
	}

	hd = calloc(1, sizeof(*hd));
	if (!hd)
		return 1;
	td->io_ops_data = hd;

	ret = hb_parse_backing(o, &hd->backing);
	if (!ret)
		ret = hb_plan_layout(td, hd, o);
	if (ret)
		goto fail;

	len = hb_alloc_len(td, hd, o);
	/* hb_alloc() maps whole folios; fixed buffers pin all of them */
	map_len = (o->head_offset + len + hd->backing.folio_size - 1) /
		  hd->backing.folio_size * hd->backing.folio_size;
	pin = o->fixedbufs ? map_len : 0;
	ret = hb_check_resources(td, hd, map_len, pin);
	if (ret)
		goto fail;

	hd->slots = calloc(hd->depth, sizeof(*hd->slots));
	hd->iovecs = calloc(hd->nr_iovecs, sizeof(*hd->iovecs));
	hd->queued = calloc(hd->depth, sizeof(*hd->queued));
	hd->events = calloc(hd->depth, sizeof(*hd->events));
	if (!hd->slots || !hd->iovecs || !hd->queued || !hd->events)
		goto nomem;
	for (i = 0; i < hd->depth; i++) {
		hd->slots[i].pieces = calloc(hd->max_pieces,
					     sizeof(struct hb_piece));
		if (!hd->slots[i].pieces)
			goto nomem;
	}

	ret = hb_alloc(&hd->backing, len, o->head_offset, &hd->buf);
	if (ret) {
		log_err(HB_LOG_PREFIX "%s\n", hb_errmsg());
		goto fail;
	}
	hd->buf_ok = true;
	return 0;
nomem:
	log_err(HB_LOG_PREFIX "out of memory for the engine's tables\n");
fail:
	td_verror(td, ret < 0 ? -ret : ENOMEM, "hugebuf init");
	hb_free_data(hd);
	td->io_ops_data = NULL;
	return 1;
}

#if HB_ENGINE_DATA_FREE
static int hb_io_u_init(struct thread_data *td, struct io_u *io_u)
{
	struct hb_data *hd = td->io_ops_data;

	hb_slot_of(hd, io_u)->io_u = io_u;
	io_u->engine_data = hb_slot_of(hd, io_u);
	return 0;
}
#else
static int hb_io_u_init(struct thread_data *td, struct io_u *io_u)
{
	struct hb_data *hd = td->io_ops_data;

	/* 3.33: engine_data aliases io_u->index; leave both alone */
	hb_slot_of(hd, io_u)->io_u = io_u;
	return 0;
}
#endif

/* fio's buffer allocation hook: hand over what init allocated. */
static int hb_iomem_alloc(struct thread_data *td, size_t total_mem)
{
	struct hb_data *hd = td->io_ops_data;

	if (!hd || !hd->buf_ok)
		return 1;
	if (total_mem > hd->buf.map_len) {
		log_err(HB_LOG_PREFIX "fio wants %zu bytes of buffers, the "
			"engine planned %zu: this fio carves buffers "
			"differently, please report it\n", total_mem,
			hd->buf.map_len);
		return 1;
	}
	td->orig_buffer = hd->buf.map;
	return 0;
}

static void hb_iomem_free(struct thread_data *td)
{
	/* the mapping is released with the ring in cleanup */
	td->orig_buffer = NULL;
}

/* ------------------------------------------------------------------ */
/* post_init: move the buffers, probe + model, ring, registration      */
/* ------------------------------------------------------------------ */

static void hb_place_buffers(struct thread_data *td, struct hb_data *hd,
			     struct hb_options *o)
{
	char *base = hd->buf.addr;
	unsigned int i;

	for (i = 0; i < hd->depth; i++) {
		struct io_u *io_u = hd->slots[i].io_u;

		io_u->buf = base + (uint64_t)i * hd->stride;
		/*
		 * init_io_u_buffers() filled fio's own carving; fill ours
		 * the same way so writes carry the same kind of data.
		 */
		if (td_write(td)) {
			io_u_fill_buffer(td, io_u, td->o.min_bs[DDIR_WRITE],
					 hd->max_bs);
#if FIO_IOOPS_VERSION == 31
			if (td->o.verify_pattern_bytes)
				fill_verify_pattern(td, io_u->buf, hd->max_bs,
						    io_u, 0, 0);
#endif
		}
	}
	for (i = 0; i < hd->nr_iovecs; i++) {
		unsigned int first = i * hd->slots_per_region;
		unsigned int n = hd->depth - first;

		if (n > hd->slots_per_region)
			n = hd->slots_per_region;
		hd->iovecs[i].iov_base = base + (uint64_t)first * hd->stride;
		hd->iovecs[i].iov_len = (uint64_t)(n - 1) * hd->stride +
					hd->max_bs;
	}
	(void)o;
}

static unsigned int hb_buf_index(struct hb_data *hd, struct io_u *io_u)
{
	return io_u->index / hd->slots_per_region;
}

static void hb_stat_minmax(unsigned int *lo, unsigned int *hi,
			   unsigned int v, bool first)
{
	if (first || v < *lo)
		*lo = v;
	if (first || v > *hi)
		*hi = v;
}

/*
 * What the running kernel makes of each registered buffer: probe the real
 * page map and run lib/'s model of io_sqe_buffer_register() over it, then
 * model io_import_fixed() for a max_bs I/O at every io_u in that buffer.
 */
static int hb_model_buffers(struct hb_data *hd)
{
	struct hb_bufstat *st = &hd->st;
	unsigned int i;
	int ret;

	ret = hb_kmodel_running(&hd->km);
	if (ret) {
		log_err(HB_LOG_PREFIX "%s\n", hb_errmsg());
		return ret;
	}
	memset(st, 0, sizeof(*st));
	st->all_coalesced = true;
	for (i = 0; i < hd->nr_iovecs; i++) {
		uint64_t addr = (uintptr_t)hd->iovecs[i].iov_base;
		uint64_t len = hd->iovecs[i].iov_len;
		struct hb_probe p;
		struct hb_bvec *bv;
		struct hb_imu imu;
		unsigned int j;

		ret = hb_probe(hd->iovecs[i].iov_base, len, &hd->backing, &p);
		if (ret) {
			log_err(HB_LOG_PREFIX "%s\n", hb_errmsg());
			return ret;
		}
		bv = calloc(p.nr_pages ? p.nr_pages : 1, sizeof(*bv));
		if (!bv) {
			hb_probe_free(&p);
			return -ENOMEM;
		}
		memset(&imu, 0, sizeof(imu));
		ret = hb_model_register(&hd->km, p.pages, addr, len, bv, &imu);
		if (ret) {
			log_err(HB_LOG_PREFIX "%s\n", hb_errmsg());
			free(bv);
			hb_probe_free(&p);
			return ret;
		}
		imu.bvec = bv;
		hb_stat_minmax(&st->min_folios, &st->max_folios, p.nr_folios,
			       i == 0);
		if (i == 0 || p.min_folio < st->min_folio)
			st->min_folio = p.min_folio;
		if (i == 0 || p.max_folio > st->max_folio)
			st->max_folio = p.max_folio;
		hb_stat_minmax(&st->min_bvecs, &st->max_bvecs, imu.nr_bvecs,
			       i == 0);
		st->all_coalesced &= imu.coalesced;
		/* one bvec per folio is the best any kernel can do */
		if (imu.nr_bvecs > p.nr_folios)
			st->not_coalesced++;
		st->imu_bytes += hb_imu_bytes(&hd->km, imu.nr_bvecs);
		st->imu_bytes_4k += hb_imu_bytes(&hd->km,
						 hb_nr_pages(addr, len));
		st->source = p.source;
		snprintf(st->note, sizeof(st->note), "%s", p.note);

		for (j = 0; j < hd->slots_per_region; j++) {
			uint64_t ioaddr = addr + (uint64_t)j * hd->stride;
			struct hb_import imp;

			if (ioaddr + hd->max_bs > addr + len)
				break;
			if (hb_model_import(&hd->km, &imu, ioaddr, hd->max_bs,
					    &imp))
				continue;
			hb_stat_minmax(&st->min_io_segs, &st->max_io_segs,
				       imp.nr_segs_exact, i == 0 && j == 0);
		}
		free(bv);
		hb_probe_free(&p);
	}
	return 0;
}

static bool hb_would_coalesce(struct hb_data *hd)
{
	return hd->backing.folio_size > HB_PAGE_SIZE &&
	       hd->km.gen != HB_KGEN_NONE && hd->st.not_coalesced == 0;
}

static int hb_queue_init(struct thread_data *td, struct hb_data *hd,
			 struct hb_options *o)
{
	struct io_uring_params p;
	unsigned int entries, cq;
	int ret;

	entries = hd->depth > hd->max_pieces ? hd->depth : hd->max_pieces;
	if (entries > 4096)
		entries = 4096;
	cq = hd->depth * hd->max_pieces;
	if (cq < 2 * entries)
		cq = 2 * entries;

	memset(&p, 0, sizeof(p));
	p.flags = IORING_SETUP_CQSIZE | IORING_SETUP_CLAMP;
	p.cq_entries = cq;
	if (o->hipri)
		p.flags |= IORING_SETUP_IOPOLL;
	if (o->sqpoll) {
		p.flags |= IORING_SETUP_SQPOLL;
		if (o->sqpoll_cpu_set) {
			p.flags |= IORING_SETUP_SQ_AFF;
			p.sq_thread_cpu = o->sqpoll_cpu;
		}
	} else if (o->defer_taskrun) {
		p.flags |= IORING_SETUP_SINGLE_ISSUER |
			   IORING_SETUP_DEFER_TASKRUN;
	}
	ret = io_uring_queue_init_params(entries, &hd->ring, &p);
	if (ret == -EINVAL && (p.flags & IORING_SETUP_DEFER_TASKRUN)) {
		/* older kernel (< 6.1): go without deferred task work */
		p.flags &= ~(IORING_SETUP_SINGLE_ISSUER |
			     IORING_SETUP_DEFER_TASKRUN);
		ret = io_uring_queue_init_params(entries, &hd->ring, &p);
	}
	if (ret) {
		if (ret == -ENOSYS)
			log_err(HB_LOG_PREFIX "the kernel has no io_uring (or "
				"it is disabled: sysctl kernel.io_uring_disabled=0)\n");
		else if (ret == -ENOMEM)
			log_err(HB_LOG_PREFIX "io_uring_setup: out of memory "
				"for a ring of %u entries (ulimit -l on "
				"kernels before 5.12)\n", entries);
		else if (ret == -EPERM)
			log_err(HB_LOG_PREFIX "io_uring_setup not permitted "
				"(sysctl kernel.io_uring_disabled, or sqpoll "
				"as non-root before 5.11)\n");
		else
			log_err(HB_LOG_PREFIX "io_uring_setup: %s\n",
				strerror(-ret));
		td_verror(td, -ret, "io_uring_queue_init");
		return 1;
	}
	hd->ring_ok = true;
	hd->defer_taskrun = p.flags & IORING_SETUP_DEFER_TASKRUN;

	if (o->registerfiles) {
		ret = io_uring_register_files_sparse(&hd->ring,
						     td->o.nr_files);
		if (ret) {
			log_err(HB_LOG_PREFIX "cannot register %u files: %s\n",
				td->o.nr_files, strerror(-ret));
			td_verror(td, -ret, "io_uring_register_files_sparse");
			return 1;
		}
	}
	return 0;
}

static int hb_register(struct thread_data *td, struct hb_data *hd)
{
	struct timespec t0, t1;
	long pin0, pin1;
	int ret;

	pin0 = hb_vmpin_kb();
	clock_gettime(CLOCK_MONOTONIC, &t0);
	ret = hb_register_buffers(&hd->ring, hd->iovecs, hd->nr_iovecs);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (ret) {
		log_err(HB_LOG_PREFIX "%s\n", hb_errmsg());
		td_verror(td, -ret, "io_uring_register_buffers");
		return 1;
	}
	pin1 = hb_vmpin_kb();
	hd->register_usec = (t1.tv_sec - t0.tv_sec) * 1e6 +
			    (t1.tv_nsec - t0.tv_nsec) / 1e3;
	hd->vmpin_kb = (pin0 >= 0 && pin1 >= 0) ? pin1 - pin0 : -1;
	return 0;
}

static int hb_post_init(struct thread_data *td)
{
	struct hb_data *hd = td->io_ops_data;
	struct hb_options *o = td->eo;
	char bk[48];
	int ret;

	if (!hd || !hd->buf_ok || td->error)
		return 1;
	hb_place_buffers(td, hd, o);

	ret = hb_model_buffers(hd);
	if (ret) {
		td_verror(td, -ret, "hugebuf probe");
		return 1;
	}
	hb_backing_str(&hd->backing, bk, sizeof(bk));
	if (hd->st.min_folio != hd->backing.folio_size ||
	    hd->st.max_folio != hd->backing.folio_size)
		log_info(HB_LOG_PREFIX "warning: backing=%s asked for %llu-byte "
			 "folios, the probe saw %llu..%llu (THP/mTHP are best "
			 "effort: for mTHP echo never > /sys/kernel/mm/"
			 "transparent_hugepage/hugepages-2048kB/enabled "
			 "while testing; for THP free or compact memory)\n",
			 bk, (unsigned long long)hd->backing.folio_size,
			 (unsigned long long)hd->st.min_folio,
			 (unsigned long long)hd->st.max_folio);
	if (o->coalesce_check != HB_CHECK_OFF && !hb_would_coalesce(hd)) {
		bool req = o->coalesce_check == HB_CHECK_REQUIRE;

		(req ? log_err : log_info)(HB_LOG_PREFIX "%s: kernel %s "
			"would not coalesce these buffers (backing=%s, "
			"%u-%u bvecs for %u-%u folios per buffer)%s\n",
			req ? "error" : "warning", hd->km.name, bk,
			hd->st.min_bvecs, hd->st.max_bvecs,
			hd->st.min_folios, hd->st.max_folios,
			req ? ": use hugepage backing with head_offset "
			      "0, or coalesce_check=warn" : "");
		if (req) {
			td_verror(td, EINVAL, "coalesce_check=require");
			return 1;
		}
	}

	if (hb_queue_init(td, hd, o))
		return 1;
	if (o->fixedbufs && hb_register(td, hd))
		return 1;
	return 0;
}

/* ------------------------------------------------------------------ */
/* files                                                               */
/* ------------------------------------------------------------------ */

static void hb_dev_start(struct hb_data *hd, struct fio_file *f)
{
	if (hd->dev[0] || f->filetype == FIO_TYPE_CHAR)
		return;
	if (hb_blkdev_of_path(f->file_name, hd->dev, sizeof(hd->dev))) {
		hd->dev[0] = '-';	/* tried, not block backed */
		return;
	}
	hd->dev_ok = !hb_blkdev_ios(hd->dev, &hd->dev_r0, &hd->dev_w0);
}

static int hb_open_file(struct thread_data *td, struct fio_file *f)
{
	struct hb_data *hd = td->io_ops_data;
	struct hb_options *o = td->eo;
	int ret;

	ret = generic_open_file(td, f);
	if (ret) {
		if (td->o.odirect && (td->error == EINVAL || errno == EINVAL))
			log_err(HB_LOG_PREFIX "the file system of %s does not "
				"support O_DIRECT (direct=1): use a file on "
				"ext4/xfs or a block device, or direct=0\n",
				f->file_name);
		return ret;
	}
	if (!hd)
		return 0;
	hb_dev_start(hd, f);
	if (o->registerfiles && hd->ring_ok) {
		ret = io_uring_register_files_update(&hd->ring, f->fileno,
						     &f->fd, 1);
		if (ret < 0) {
			log_err(HB_LOG_PREFIX "cannot register %s: %s\n",
				f->file_name, strerror(-ret));
			td_verror(td, -ret, "io_uring_register_files_update");
			if (generic_close_file(td, f))
				log_err(HB_LOG_PREFIX "closing %s failed too\n",
					f->file_name);
			return 1;
		}
	}
	return 0;
}

static int hb_close_file(struct thread_data *td, struct fio_file *f)
{
	struct hb_data *hd = td->io_ops_data;
	struct hb_options *o = td->eo;

	if (hd && o->registerfiles && hd->ring_ok) {
		int none = -1;

		io_uring_register_files_update(&hd->ring, f->fileno, &none, 1);
	}
	return generic_close_file(td, f);
}

/* ------------------------------------------------------------------ */
/* I/O                                                                 */
/* ------------------------------------------------------------------ */

static void hb_prep_piece(struct thread_data *td, struct hb_data *hd,
			  struct io_uring_sqe *sqe, struct hb_piece *pc)
{
	struct hb_options *o = td->eo;
	struct io_u *io_u = pc->slot->io_u;
	struct fio_file *f = io_u->file;
	int fd = o->registerfiles ? f->fileno : f->fd;

	if (io_u->ddir == DDIR_READ) {
		if (o->fixedbufs)
			io_uring_prep_read_fixed(sqe, fd, pc->addr, pc->len,
						 pc->off,
						 hb_buf_index(hd, io_u));
		else
			io_uring_prep_read(sqe, fd, pc->addr, pc->len,
					   pc->off);
	} else if (io_u->ddir == DDIR_WRITE) {
		if (o->fixedbufs)
			io_uring_prep_write_fixed(sqe, fd, pc->addr, pc->len,
						  pc->off,
						  hb_buf_index(hd, io_u));
		else
			io_uring_prep_write(sqe, fd, pc->addr, pc->len,
					    pc->off);
	} else {
		io_uring_prep_fsync(sqe, fd, io_u->ddir == DDIR_DATASYNC ?
					     IORING_FSYNC_DATASYNC : 0);
	}
	if (o->registerfiles)
		sqe->flags |= IOSQE_FIXED_FILE;
	io_uring_sqe_set_data(sqe, pc);
}

static int hb_submit_piece(struct thread_data *td, struct hb_data *hd,
			   struct hb_piece *pc)
{
	struct io_uring_sqe *sqe;

	sqe = io_uring_get_sqe(&hd->ring);
	while (!sqe) {
		int ret = io_uring_submit(&hd->ring);

		if (ret < 0 && ret != -EAGAIN && ret != -EBUSY &&
		    ret != -EINTR)
			return ret;
		hd->sqes_pending = 0;
		sqe = io_uring_get_sqe(&hd->ring);
	}
	hb_prep_piece(td, hd, sqe, pc);
	pc->slot->pending++;
	hd->sqes_pending++;
	return 0;
}

static enum fio_q_status hb_queue(struct thread_data *td, struct io_u *io_u)
{
	struct hb_data *hd = td->io_ops_data;
	struct hb_options *o = td->eo;
	struct hb_slot *s = hb_slot_of(hd, io_u);
	unsigned long long left, chunk, off;
	char *addr;
	unsigned int n;
	int ret;

	fio_ro_check(td, io_u);

	if (io_u->ddir == DDIR_TRIM) {
		io_u->error = EOPNOTSUPP;
		return FIO_Q_COMPLETED;
	}

	chunk = io_u->xfer_buflen;
	if (o->chunk_size && ddir_rw(io_u->ddir) && chunk > o->chunk_size)
		chunk = o->chunk_size;
	n = ddir_rw(io_u->ddir) ? (io_u->xfer_buflen + chunk - 1) / chunk : 1;
	if (!n)
		n = 1;
	if (io_uring_sq_space_left(&hd->ring) < n && hd->nr_queued)
		return FIO_Q_BUSY;

	s->io_u = io_u;
	s->pending = 0;
	s->nr_pieces = n;
	s->done = 0;
	s->error = 0;
	s->eof = false;
	left = io_u->xfer_buflen;
	off = io_u->offset;
	addr = io_u->xfer_buf;
	for (unsigned int i = 0; i < n; i++) {
		struct hb_piece *pc = &s->pieces[i];
		unsigned long long l = left < chunk ? left : chunk;

		pc->slot = s;
		pc->off = off;
		pc->addr = addr;
		pc->len = l;
		ret = hb_submit_piece(td, hd, pc);
		if (ret) {
			/* earlier pieces are in flight; fail the rest */
			s->error = -ret;
			if (!s->pending) {
				io_u->error = -ret;
				return FIO_Q_COMPLETED;
			}
			break;
		}
		off += l;
		addr += l;
		left -= l;
	}
	hd->queued[hd->nr_queued++] = io_u;
	return FIO_Q_QUEUED;
}

/*
 * FIO_ASYNCIO_SETS_ISSUE_TIME: the engine stamps issue_time when the I/O
 * really went to the kernel (after io_uring_enter), and tells fio it was
 * queued, so slat/clat are measured from submission like fio's io_uring.
 */
static void hb_mark_issued(struct thread_data *td, struct hb_data *hd)
{
	struct timespec now;
	unsigned int i;

	if (fio_fill_issue_time(td)) {
		fio_gettime(&now, NULL);
		for (i = 0; i < hd->nr_queued; i++) {
			struct io_u *io_u = hd->queued[i];

			memcpy(&io_u->issue_time, &now, sizeof(now));
			io_u_queued(td, io_u);
		}
		if (td->o.read_iolog_file)
			memcpy(&td->last_issue, &now, sizeof(now));
	}
	io_u_mark_submit(td, hd->nr_queued);
	hd->nr_queued = 0;
}

static int hb_submit_all(struct hb_data *hd)
{
	int ret;

	for (;;) {
		ret = io_uring_submit(&hd->ring);
		if (ret >= 0)
			break;
		if (ret == -EINTR)
			continue;
		if (ret == -EAGAIN || ret == -EBUSY) {
			/* make room: let completions run, then retry */
			io_uring_get_events(&hd->ring);
			usleep(1);
			continue;
		}
		return ret;
	}
	hd->sqes_pending = 0;
	return 0;
}

static int hb_commit(struct thread_data *td)
{
	struct hb_data *hd = td->io_ops_data;
	int ret;

	if (!hd->nr_queued && !hd->sqes_pending)
		return 0;
	ret = hb_submit_all(hd);
	if (ret) {
		td_verror(td, -ret, "io_uring_submit");
		return ret;
	}
	hb_mark_issued(td, hd);
	return 0;
}

static void hb_slot_done(struct hb_data *hd, struct hb_slot *s)
{
	struct io_u *io_u = s->io_u;

	if (s->error) {
		io_u->error = s->error;
	} else {
		io_u->error = 0;
		if (s->done < io_u->xfer_buflen)
			io_u->resid = io_u->xfer_buflen - s->done;
		if (ddir_rw(io_u->ddir))
			hd->ios[io_u->ddir == DDIR_WRITE]++;
	}
	hd->events[hd->nr_events++] = io_u;
}

/*
 * One CQE.  A short transfer is resubmitted for the remainder (0 = end of
 * file: the rest is reported as resid); -EAGAIN is resubmitted as is.
 */
static int hb_complete_piece(struct thread_data *td, struct hb_data *hd,
			     struct hb_piece *pc, int res)
{
	struct hb_slot *s = pc->slot;
	bool rw = ddir_rw(s->io_u->ddir);

	s->pending--;
	if (res == -EAGAIN || res == -EINTR)
		goto resubmit;
	if (res < 0) {
		if (!s->error)
			s->error = -res;
	} else if (rw) {
		s->done += res;
		if (res == 0) {
			s->eof = true;
		} else if ((unsigned long long)res < pc->len && !s->eof &&
			   !s->error) {
			pc->off += res;
			pc->addr += res;
			pc->len -= res;
			goto resubmit;
		}
	}
	if (!s->pending)
		hb_slot_done(hd, s);
	return 0;
resubmit:
	if (hb_submit_piece(td, hd, pc)) {
		if (!s->error)
			s->error = EIO;
		if (!s->pending)
			hb_slot_done(hd, s);
	}
	return 0;
}

static int hb_reap(struct thread_data *td, struct hb_data *hd,
		   unsigned int max)
{
	struct io_uring_cqe *cqe;
	unsigned int seen = 0;

	while (hd->nr_events < max && !io_uring_peek_cqe(&hd->ring, &cqe)) {
		struct hb_piece *pc = io_uring_cqe_get_data(cqe);
		int res = cqe->res;

		io_uring_cqe_seen(&hd->ring, cqe);
		seen++;
		hb_complete_piece(td, hd, pc, res);
	}
	return seen;
}

static int hb_getevents(struct thread_data *td, unsigned int min,
			unsigned int max, const struct timespec *t)
{
	struct hb_data *hd = td->io_ops_data;
	struct io_uring_cqe *cqe;
	int ret;

	(void)t;
	hd->nr_events = 0;
	if (max > hd->depth)
		max = hd->depth;
	if (hd->defer_taskrun)
		io_uring_get_events(&hd->ring);
	for (;;) {
		hb_reap(td, hd, max);
		/* resubmitted remainders go out right away */
		if (hd->sqes_pending) {
			ret = hb_submit_all(hd);
			if (ret) {
				td_verror(td, -ret, "io_uring_submit");
				return ret;
			}
		}
		if (hd->nr_events >= min || hd->nr_events >= max)
			break;
		ret = io_uring_wait_cqe(&hd->ring, &cqe);
		if (ret && ret != -EINTR && ret != -EAGAIN &&
		    ret != -ETIME) {
			td_verror(td, -ret, "io_uring_wait_cqe");
			return ret;
		}
	}
	return hd->nr_events;
}

static struct io_u *hb_event(struct thread_data *td, int event)
{
	struct hb_data *hd = td->io_ops_data;

	return hd->events[event];
}

/* ------------------------------------------------------------------ */
/* report                                                              */
/* ------------------------------------------------------------------ */

static void hb_report(struct thread_data *td, struct hb_data *hd)
{
	struct hb_options *o = td->eo;
	const struct hb_bufstat *st = &hd->st;
	uint64_t dr = 0, dw = 0, ios = hd->ios[0] + hd->ios[1];
	bool have_dev = false, approx;
	char bk[48], fs[32], line[1024];
	const char *path;
	double rpi = 0;
	FILE *jf;

	if (hd->dev_ok && td->o.odirect) {
		uint64_t r1, w1;

		if (!hb_blkdev_ios(hd->dev, &r1, &w1) && ios) {
			dr = r1 - hd->dev_r0;
			dw = w1 - hd->dev_w0;
			rpi = (double)(dr + dw) / ios;
			have_dev = true;
		}
	}
	/* the counters are per device: other jobs' I/O lands there too */
	approx = thread_number > 1;
	hb_backing_str(&hd->backing, bk, sizeof(bk));
	hb_fmt_size(hd->backing.folio_size, fs, sizeof(fs));

	if (o->report) {
		log_info("hugebuf: %s: backing=%s folio=%s layout=%s "
			 "head_offset=%llu fixedbufs=%u kernel-model=%s\n",
			 td->o.name, bk, fs,
			 o->layout == HB_LAYOUT_REGION ? "region" : "per-io",
			 o->head_offset, o->fixedbufs, hd->km.name);
		log_info("hugebuf: %s: %u buffer(s) of %llu bytes: folios "
			 "%u-%u, bvecs %u-%u per buffer (%s), bvecs per "
			 "%llu-byte I/O %u-%u\n", td->o.name, hd->nr_iovecs,
			 (unsigned long long)hd->iovecs[0].iov_len,
			 st->min_folios, st->max_folios, st->min_bvecs,
			 st->max_bvecs,
			 st->all_coalesced ? "coalesced" : hb_would_coalesce(hd) ?
			 "one bvec per folio" : "not coalesced",
			 hd->max_bs, st->min_io_segs, st->max_io_segs);
		log_info("hugebuf: %s: imu %llu bytes vs %llu with 4K pages, "
			 "register %.0f us, pinned %ld KiB, probe %s%s%s%s\n",
			 td->o.name, (unsigned long long)st->imu_bytes,
			 (unsigned long long)st->imu_bytes_4k,
			 hd->register_usec, hd->vmpin_kb,
			 st->source == HB_PROBE_KPAGEFLAGS ? "exact" :
			 "degraded", st->note[0] ? " (" : "", st->note,
			 st->note[0] ? ")" : "");
		if (have_dev)
			log_info("hugebuf: %s: %s: %.2f device requests per "
				 "I/O (%llu reads + %llu writes for %llu "
				 "I/Os)%s\n", td->o.name, hd->dev, rpi,
				 (unsigned long long)dr, (unsigned long long)dw,
				 (unsigned long long)ios, approx ?
				 ", approximate: other jobs ran on the device" :
				 "");
		/* a forked job may leave without flushing stdio */
		log_info_flush();
	}
	path = o->report_json && *o->report_json ? o->report_json :
	       getenv("HUGEBUF_REPORT_JSON");
	if (!path || !*path)
		return;
	snprintf(line, sizeof(line),
		 "{\"job\":\"%s\",\"subjob\":%u,\"backing\":\"%s\","
		 "\"folio_size\":%llu,\"layout\":\"%s\",\"head_offset\":%llu,"
		 "\"fixedbufs\":%u,\"kernel_model\":\"%s\",\"nr_buffers\":%u,"
		 "\"buffer_len\":%llu,\"bs\":%llu,\"stride\":%llu,"
		 "\"folio_size_seen\":{\"min\":%llu,\"max\":%llu},"
		 "\"folios_per_buffer\":{\"min\":%u,\"max\":%u},"
		 "\"bvecs_per_buffer\":{\"min\":%u,\"max\":%u},"
		 "\"bvecs_per_io\":{\"min\":%u,\"max\":%u},"
		 "\"coalesced\":%s,\"imu_bytes\":%llu,\"imu_bytes_4k\":%llu,"
		 "\"register_usec\":%.1f,\"vmpin_kb\":%ld,\"probe\":\"%s\","
		 "\"device\":\"%s\",\"dev_reads\":%llu,\"dev_writes\":%llu,"
		 "\"ios\":%llu,\"requests_per_io\":%.4f,"
		 "\"requests_approximate\":%s}\n",
		 td->o.name, td->subjob_number, bk,
		 (unsigned long long)hd->backing.folio_size,
		 o->layout == HB_LAYOUT_REGION ? "region" : "per-io",
		 o->head_offset, o->fixedbufs, hd->km.name, hd->nr_iovecs,
		 (unsigned long long)hd->iovecs[0].iov_len, hd->max_bs,
		 hd->stride, (unsigned long long)st->min_folio,
		 (unsigned long long)st->max_folio, st->min_folios,
		 st->max_folios, st->min_bvecs,
		 st->max_bvecs, st->min_io_segs, st->max_io_segs,
		 st->all_coalesced ? "true" : "false",
		 (unsigned long long)st->imu_bytes,
		 (unsigned long long)st->imu_bytes_4k, hd->register_usec,
		 hd->vmpin_kb,
		 st->source == HB_PROBE_KPAGEFLAGS ? "exact" : "degraded",
		 have_dev ? hd->dev : "", (unsigned long long)dr,
		 (unsigned long long)dw, (unsigned long long)ios, rpi,
		 approx ? "true" : "false");
	jf = fopen(path, "a");
	if (!jf) {
		log_err(HB_LOG_PREFIX "cannot write report_json=%s: %s\n",
			path, strerror(errno));
		return;
	}
	fputs(line, jf);
	fclose(jf);
}

static void hb_cleanup(struct thread_data *td)
{
	struct hb_data *hd = td->io_ops_data;

	if (!hd)
		return;
	if (hd->ring_ok && !td->error && !hd->reported) {
		hd->reported = true;
		hb_report(td, hd);
	}
	hb_free_data(hd);
	td->io_ops_data = NULL;
}

/* dlopen_ioengine() looks this symbol up by name */
struct ioengine_ops ioengine = {
	.name			= "hugebuf",
	.version		= FIO_IOOPS_VERSION,
	.flags			= FIO_NO_OFFLOAD | FIO_ASYNCIO_SETS_ISSUE_TIME,
	.init			= hb_init,
	.post_init		= hb_post_init,
	.io_u_init		= hb_io_u_init,
	.queue			= hb_queue,
	.commit			= hb_commit,
	.getevents		= hb_getevents,
	.event			= hb_event,
	.cleanup		= hb_cleanup,
	.open_file		= hb_open_file,
	.close_file		= hb_close_file,
	.get_file_size		= generic_get_file_size,
	.iomem_alloc		= hb_iomem_alloc,
	.iomem_free		= hb_iomem_free,
	.options		= options,
	.option_struct_size	= sizeof(struct hb_options),
};
