// SPDX-License-Identifier: GPL-2.0-only
/*
 * The engine's options: ours (backing, layout, head_offset, ...) and every
 * option of fio's own io_uring engine under fio's name, type and meaning,
 * so a job written for ioengine=io_uring runs with only the engine
 * swapped.  fio's memory options (mem=, hugepage-size, iomem_align) map
 * onto lib backings and the head offset here.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>

#include "hugebuf-engine.h"

/* RWF_* as the running kernel reads them (include/uapi/linux/fs.h) */
#define HBE_RWF_NOWAIT		0x00000008	/* 4.14 */
#define HBE_RWF_DONTCACHE	0x00000080	/* 6.14, b9f958d4f146 */
#define HBE_RWF_ATOMIC		0x00000040	/* 6.11, c34fc6f26ab8 */

static int hbe_sqpoll_cpu_cb(void *data, long long *val)
{
	struct hbe_options *o = data;

	o->sqpoll_cpu = *val;
	o->sqpoll_cpu_set = 1;
	return 0;
}

#define HBE_OPT(...)	{ .category = FIO_OPT_C_ENGINE,			\
			  .group = FIO_OPT_G_IOURING, __VA_ARGS__ }
#define HBE_OFF(field)	offsetof(struct hbe_options, field)

struct fio_option hbe_option_table[] = {
	/* ours */
	HBE_OPT(.name = "backing", .lname = "hugebuf buffer backing",
		.type = FIO_OPT_STR_STORE, .off1 = HBE_OFF(backing),
		.help = "Buffer memory: hugetlb|memfd|thp|mthp|4k|shm|"
			"hugetlbfs:PATH|libhugetlbfs (default hugetlb, or what "
			"mem= says)"),
	HBE_OPT(.name = "hugepage_size", .lname = "hugebuf folio size",
		.type = FIO_OPT_STR_STORE, .off1 = HBE_OFF(hugepage_size),
		.help = "Page/folio size of the backing: 2M|1G (hugetlb, memfd, "
			"shm) or an mTHP size (mthp)"),
	HBE_OPT(.name = "layout", .lname = "hugebuf buffer layout",
		.type = FIO_OPT_STR, .off1 = HBE_OFF(layout), .def = "per-io",
		.help = "per-io: one registered buffer per io_u; region: io_us "
			"inside few <= 1 GiB registered regions",
		.posval = {
			{ .ival = "per-io", .oval = HBE_LAYOUT_PER_IO,
			  .help = "one registered buffer per io_u" },
			{ .ival = "region", .oval = HBE_LAYOUT_REGION,
			  .help = "few registered regions, io_us inside" },
		}),
	HBE_OPT(.name = "head_offset", .lname = "hugebuf head offset",
		.type = FIO_OPT_STR_VAL, .off1 = HBE_OFF(head_offset),
		.def = "0",
		.help = "Start every buffer this many bytes into its first "
			"folio (fio's iomem_align means the same)"),
	HBE_OPT(.name = "defer_taskrun", .lname = "hugebuf deferred task work",
		.type = FIO_OPT_BOOL, .off1 = HBE_OFF(defer_taskrun),
		.def = "1",
		.help = "SINGLE_ISSUER + DEFER_TASKRUN where the kernel has "
			"them (falls back on EINVAL)"),
	HBE_OPT(.name = "chunk_size", .lname = "hugebuf chunk size",
		.type = FIO_OPT_STR_VAL, .off1 = HBE_OFF(chunk_size),
		.def = "0",
		.help = "Split every I/O larger than this into pieces "
			"submitted together (0: off)"),
	HBE_OPT(.name = "vec_iovecs", .lname = "hugebuf vectored fixed I/O",
		.type = FIO_OPT_INT, .off1 = HBE_OFF(vec_iovecs), .def = "0",
		.minval = 0, .maxval = 64,
		.help = "Issue every read/write as READV_FIXED/WRITEV_FIXED "
			"(6.15+) with this many iovecs cut from the io_u's "
			"registered buffer (0: off)"),
	HBE_OPT(.name = "vec_offset", .lname = "hugebuf vectored cut offset",
		.type = FIO_OPT_STR_VAL, .off1 = HBE_OFF(vec_offset),
		.def = "0",
		.help = "Move every vec_iovecs cut this many bytes on, so the "
			"iovecs start inside folios and cross their ends"),
	HBE_OPT(.name = "clone_buffers", .lname = "hugebuf cloned tables",
		.type = FIO_OPT_STR, .off1 = HBE_OFF(clone_buffers),
		.def = "off",
		.help = "With thread and numjobs: the first job registers, the "
			"others clone its table (IORING_REGISTER_CLONE_BUFFERS, "
			"6.12+) instead of registering their own",
		.posval = {
			{ .ival = "off", .oval = HBE_CLONE_OFF,
			  .help = "every job registers its own buffers" },
			{ .ival = "split", .oval = HBE_CLONE_SPLIT,
			  .help = "one table, a slice of buffers per job" },
			{ .ival = "same", .oval = HBE_CLONE_SAME,
			  .help = "one table, every job on the same buffers "
				  "(pins 1/numjobs; no verify)" },
		}),
	HBE_OPT(.name = "atomic_writes", .lname = "hugebuf RWF_ATOMIC",
		.type = FIO_OPT_STR_SET, .off1 = HBE_OFF(atomic_writes),
		.help = "Write with RWF_ATOMIC (6.11+, direct=1): every file "
			"must take the job's block sizes as untorn writes "
			"(statx STATX_WRITE_ATOMIC), else a one-line error"),
	HBE_OPT(.name = "coalesce_check", .lname = "hugebuf coalescing check",
		.type = FIO_OPT_STR, .off1 = HBE_OFF(coalesce_check),
		.def = "warn",
		.help = "off|warn|require: require fails the job before any "
			"I/O if the kernel would not coalesce the buffers",
		.posval = {
			{ .ival = "off", .oval = HBE_CHECK_OFF,
			  .help = "do not check" },
			{ .ival = "warn", .oval = HBE_CHECK_WARN,
			  .help = "print a warning" },
			{ .ival = "require", .oval = HBE_CHECK_REQUIRE,
			  .help = "fail the job" },
		}),
	HBE_OPT(.name = "report", .lname = "hugebuf report",
		.type = FIO_OPT_STR, .off1 = HBE_OFF(report), .def = "on",
		.help = "on|off: print the buffer/coalescing report at job end "
			"(on stderr when fio's output is json or terse)",
		.posval = {
			{ .ival = "on", .oval = 1, .help = "print it" },
			{ .ival = "off", .oval = 0, .help = "do not" },
			{ .ival = "1", .oval = 1, .help = "print it" },
			{ .ival = "0", .oval = 0, .help = "do not" },
		}),
	HBE_OPT(.name = "report_json", .lname = "hugebuf JSON report",
		.type = FIO_OPT_STR_STORE, .off1 = HBE_OFF(report_json),
		.help = "Append the report as one JSON line per job to this "
			"file (default: $HUGEBUF_REPORT_JSON)"),

	/* fio's io_uring_cmd engine */
	HBE_OPT(.name = "cmd_type", .lname = "Uring cmd type",
		.type = FIO_OPT_STR_STORE, .off1 = HBE_OFF(cmd_type),
		.help = "nvme: NVMe read/write commands through "
			"IORING_OP_URING_CMD on /dev/ngXnY (the default when "
			"every file is one); none: read/write"),

	/* fio's io_uring engine (3.33 engines/io_uring.c options[]) */
	HBE_OPT(.name = "hipri", .lname = "High Priority",
		.type = FIO_OPT_STR_SET, .off1 = HBE_OFF(hipri),
		.help = "Use polled IO completions (IORING_SETUP_IOPOLL)"),
#ifdef FIO_HAVE_IOPRIO_CLASS
	HBE_OPT(.name = "cmdprio_percentage",
		.lname = "high priority percentage", .type = FIO_OPT_INT,
		.off1 = HBE_OFF(cmdprio_options.percentage[DDIR_READ]),
		.off2 = HBE_OFF(cmdprio_options.percentage[DDIR_WRITE]),
		.minval = 0, .maxval = 100,
		.help = "Send high priority I/O this percentage of the time"),
	HBE_OPT(.name = "cmdprio_class",
		.lname = "Asynchronous I/O priority class", .type = FIO_OPT_INT,
		.off1 = HBE_OFF(cmdprio_options.class[DDIR_READ]),
		.off2 = HBE_OFF(cmdprio_options.class[DDIR_WRITE]),
		.minval = IOPRIO_MIN_PRIO_CLASS + 1,
		.maxval = IOPRIO_MAX_PRIO_CLASS, .interval = 1,
		.help = "Set asynchronous IO priority class"),
	HBE_OPT(.name = "cmdprio",
		.lname = "Asynchronous I/O priority level", .type = FIO_OPT_INT,
		.off1 = HBE_OFF(cmdprio_options.level[DDIR_READ]),
		.off2 = HBE_OFF(cmdprio_options.level[DDIR_WRITE]),
		.minval = IOPRIO_MIN_PRIO, .maxval = IOPRIO_MAX_PRIO,
		.interval = 1, .help = "Set asynchronous IO priority level"),
	HBE_OPT(.name = "cmdprio_bssplit",
		.lname = "Priority percentage block size split",
		.type = FIO_OPT_STR_STORE,
		.off1 = HBE_OFF(cmdprio_options.bssplit_str),
		.help = "Set priority percentages for different block sizes"),
#endif
	/*
	 * fio's flag (fixedbufs, fixedbufs=1, fixedbufs=0), on by default
	 * here: registered buffers are what this engine is for.
	 */
	HBE_OPT(.name = "fixedbufs", .lname = "Fixed (pre-mapped) IO buffers",
		.type = FIO_OPT_STR_SET, .off1 = HBE_OFF(fixedbufs),
		.def = "1", .no_warn_def = 1,
		.help = "Pre map IO buffers: READ/WRITE_FIXED (default on; "
			"fixedbufs=0: the same buffers through READ/WRITE)"),
	HBE_OPT(.name = "registerfiles", .lname = "Register file set",
		.type = FIO_OPT_STR_SET, .off1 = HBE_OFF(registerfiles),
		.help = "Pre-open/register files (IOSQE_FIXED_FILE)"),
	HBE_OPT(.name = "sqthread_poll", .alias = "sqpoll",
		.lname = "Kernel SQ thread polling", .type = FIO_OPT_STR_SET,
		.off1 = HBE_OFF(sqpoll),
		.help = "Offload submission/completion to kernel thread "
			"(IORING_SETUP_SQPOLL)"),
	HBE_OPT(.name = "sqthread_poll_cpu", .alias = "sqpoll_cpu",
		.lname = "SQ Thread Poll CPU", .type = FIO_OPT_INT,
		.cb = hbe_sqpoll_cpu_cb,
		.help = "What CPU to run SQ thread polling on "
			"(IORING_SETUP_SQ_AFF)"),
	HBE_OPT(.name = "nonvectored", .lname = "Non-vectored",
		.type = FIO_OPT_INT, .off1 = HBE_OFF(nonvectored), .def = "-1",
		.help = "Use non-vectored read/write commands (0: READV/WRITEV "
			"when fixedbufs=0)"),
	HBE_OPT(.name = "uncached", .lname = "Uncached", .type = FIO_OPT_INT,
		.off1 = HBE_OFF(uncached),
		.help = "Use RWF_DONTCACHE for buffered read/writes (6.14+)"),
	HBE_OPT(.name = "nowait", .lname = "RWF_NOWAIT", .type = FIO_OPT_BOOL,
		.off1 = HBE_OFF(nowait),
		.help = "Use RWF_NOWAIT for reads/writes"),
	HBE_OPT(.name = "force_async", .lname = "Force async",
		.type = FIO_OPT_INT, .off1 = HBE_OFF(force_async),
		.help = "Set IOSQE_ASYNC every N requests"),
	{
		.name = NULL,
	},
};

/* ------------------------------------------------------------------ */
/* mem= / hugepage-size / iomem_align -> backing and head offset       */
/* ------------------------------------------------------------------ */

static const char *hbe_mem_name(enum fio_memtype t)
{
	switch (t) {
	case MEM_MALLOC:
		return "malloc";
	case MEM_SHM:
		return "shm";
	case MEM_SHMHUGE:
		return "shmhuge";
	case MEM_MMAP:
		return "mmap";
	case MEM_MMAPHUGE:
		return "mmaphuge";
	case MEM_MMAPSHARED:
		return "mmapshared";
	default:
		return "cudamalloc";
	}
}

/* lib's one message for a hugetlb size the kernel does not offer */
static int hbe_check_hugepage_size(const char *opt, uint64_t size)
{
	char sz[32];

	if (!hb_check_hugepage_size(size))
		return 0;
	hb_fmt_size(size, sz, sizeof(sz));
	log_err(HBE_LOG_PREFIX "%s=%s: %s\n", opt, sz, hb_errmsg());
	return -EINVAL;
}

/*
 * fio's mem= as a lib backing spec: malloc/mmap/mmapshared are 4 KiB
 * pages, shm plain SysV shm, shmhuge SHM_HUGETLB and mmaphuge MAP_HUGETLB
 * (both at hugepage-size, which fio itself only rounds to), and
 * mmaphuge:FILE a file on hugetlbfs.
 */
static int hbe_mem_spec(struct thread_data *td, char *spec, size_t len)
{
	unsigned long long hps = td->o.hugepage_size;
	const char *file = td->o.mmapfile;
	enum fio_memtype t = td->o.mem_type;
	char sz[32];

	hb_fmt_size(hps, sz, sizeof(sz));
	switch (t) {
	case MEM_MALLOC:
	case MEM_MMAP:
	case MEM_MMAPSHARED:
		if (file && *file) {
			log_err(HBE_LOG_PREFIX "mem=%s:%s maps a regular file, "
				"which this engine does not: use mem=%s, or "
				"mem=mmaphuge:%s on hugetlbfs\n",
				hbe_mem_name(t), file, hbe_mem_name(t), file);
			return -EINVAL;
		}
		snprintf(spec, len, "4k");
		return 0;
	case MEM_SHM:
		snprintf(spec, len, "shm");
		return 0;
	case MEM_SHMHUGE:
		if (hbe_check_hugepage_size("hugepage-size", hps))
			return -EINVAL;
		snprintf(spec, len, "shm:%s", sz);
		return 0;
	case MEM_MMAPHUGE:
		if (file && *file) {
			snprintf(spec, len, "hugetlbfs:%s", file);
			return 0;
		}
		if (hbe_check_hugepage_size("hugepage-size", hps))
			return -EINVAL;
		snprintf(spec, len, "hugetlb:%s", sz);
		return 0;
	default:
		log_err(HBE_LOG_PREFIX "mem=%s is not a memory this engine can "
			"register: use mem=mmaphuge or backing=\n",
			hbe_mem_name(t));
		return -EINVAL;
	}
}

/* backing= and our hugepage_size= as one spec ("hugetlb:1G", ...) */
static int hbe_own_spec(struct thread_data *td, struct hbe_options *o,
			char *spec, size_t len)
{
	const char *kind = o->backing && *o->backing ? o->backing : "hugetlb";
	const char *size = o->hugepage_size;
	bool sized = !strcmp(kind, "hugetlb") || !strcmp(kind, "memfd") ||
		     !strcmp(kind, "mthp") || !strcmp(kind, "shm");
	char fsz[32];

	if (strchr(kind, ':') && size && *size) {
		log_err(HBE_LOG_PREFIX "backing=%s already names its page size: "
			"drop hugepage_size=%s, or write backing=%.*s "
			"hugepage_size=%s\n", kind, size,
			(int)(strchr(kind, ':') - kind), kind, size);
		return -EINVAL;
	}
	/* fio's own hugepage-size sizes a hugetlb backing too */
	if (sized && strcmp(kind, "mthp") && (!size || !*size) &&
	    fio_option_is_set(&td->o, hugepage_size)) {
		hb_fmt_size(td->o.hugepage_size, fsz, sizeof(fsz));
		size = fsz;
	}
	if (!strcmp(kind, "mthp") && (!size || !*size)) {
		log_err(HBE_LOG_PREFIX "backing=mthp needs hugepage_size=<mTHP "
			"size>, e.g. hugepage_size=64K\n");
		return -EINVAL;
	}
	if (sized && size && *size)
		snprintf(spec, len, "%s:%s", kind, size);
	else
		snprintf(spec, len, "%s", kind);
	return 0;
}

static int hbe_parse_spec(const char *spec, struct hb_backing *b)
{
	if (hb_backing_parse(spec, b)) {
		log_err(HBE_LOG_PREFIX "%s\n", hb_errmsg());
		return -EINVAL;
	}
	return 0;
}

static bool hbe_same_backing(const struct hb_backing *a,
			     const struct hb_backing *b)
{
	return a->kind == b->kind && a->folio_size == b->folio_size &&
	       !strcmp(a->path, b->path);
}

/* hugepage_size= given to a backing whose folio size it is not */
static int hbe_check_unsized(struct hbe_options *o, const struct hb_backing *b)
{
	const char *size = o->hugepage_size;
	uint64_t sz;

	if (!size || !*size || (b->kind != HB_BACKING_THP &&
				b->kind != HB_BACKING_4K))
		return 0;
	if (!hb_parse_size(size, &sz) && sz == b->folio_size)
		return 0;
	log_err(HBE_LOG_PREFIX "hugepage_size=%s does not apply to backing=%s "
		"(its folio size is %llu): drop hugepage_size or use "
		"backing=mthp\n", size, o->backing ? o->backing : "hugetlb",
		(unsigned long long)b->folio_size);
	return -EINVAL;
}

static int hbe_plan_backing(struct thread_data *td, struct hbe_options *o,
			    struct hb_backing *b)
{
	char spec[HB_BACKING_STR_MAX], mine[HB_BACKING_STR_MAX];
	char mem[HB_BACKING_STR_MAX];
	struct hb_backing own;
	int ret;

	ret = hbe_own_spec(td, o, mine, sizeof(mine));
	if (ret)
		return ret;
	if (!fio_option_is_set(&td->o, mem_type)) {
		ret = hbe_parse_spec(mine, b);
		if (!ret && hb_backing_is_hugetlb(b) &&
		    b->kind != HB_BACKING_HUGETLBFS &&
		    b->kind != HB_BACKING_LIBHUGETLBFS)
			ret = hbe_check_hugepage_size(o->hugepage_size ?
						      "hugepage_size" :
						      "hugepage-size",
						      b->folio_size);
		return ret ?: hbe_check_unsized(o, b);
	}
	ret = hbe_mem_spec(td, spec, sizeof(spec));
	if (!ret)
		ret = hbe_parse_spec(spec, b);
	if (ret)
		return ret;
	snprintf(mem, sizeof(mem), "%s%s%s", hbe_mem_name(td->o.mem_type),
		 td->o.mmapfile ? ":" : "",
		 td->o.mmapfile ? td->o.mmapfile : "");
	if (!o->backing && !o->hugepage_size)
		return 0;
	if (hbe_parse_spec(mine, &own))
		return -EINVAL;
	if (!hbe_same_backing(&own, b)) {
		log_err(HBE_LOG_PREFIX "mem=%s and backing=%s contradict (mem=%s "
			"is backing=%s here): keep one of them\n", mem, mine,
			mem, spec);
		return -EINVAL;
	}
	return 0;
}

/* iomem_align is fio's name for the offset of every buffer */
static int hbe_plan_head(struct thread_data *td, struct hbe_options *o,
			 uint64_t *head_offset)
{
	*head_offset = o->head_offset;
	if (!td->o.mem_align)
		return 0;
	/* head_offset=0 is the default: only another offset contradicts */
	if (o->head_offset && o->head_offset != td->o.mem_align) {
		log_err(HBE_LOG_PREFIX "iomem_align=%u and head_offset=%llu "
			"contradict (both place the buffers): keep one of "
			"them\n", td->o.mem_align, o->head_offset);
		return -EINVAL;
	}
	*head_offset = td->o.mem_align;
	return 0;
}

/*
 * fio refuses mem= for an engine with an iomem_alloc hook ("option
 * 'mem/iomem' conflicts", memory.c allocate_io_mem()); here mem= has
 * become the backing, so it is no longer a request to fio's allocator.
 */
static void hbe_unset_mem(struct thread_data *td)
{
	unsigned int off = offsetof(struct thread_options, mem_type);
	unsigned int i, bits = 8 * sizeof(uint64_t);

	for (i = 0; i < FIO_MAX_OPTS && fio_options[i].name; i++) {
		if (fio_options[i].off1 != off)
			continue;
		td->o.set_options[i / bits] &= ~((uint64_t)1 << (i % bits));
	}
}

int hbe_options_plan(struct thread_data *td, struct hbe_options *o,
		     struct hb_backing *b, uint64_t *head_offset)
{
	int ret;

	ret = hbe_plan_backing(td, o, b);
	if (!ret)
		ret = hbe_plan_head(td, o, head_offset);
	if (!ret && fio_option_is_set(&td->o, mem_type))
		hbe_unset_mem(td);
	return ret;
}

/* ------------------------------------------------------------------ */
/* per-SQE options for the running kernel                              */
/* ------------------------------------------------------------------ */

/*
 * Where the engine's notes and text report go.  fio's stdout (or --output)
 * carries its own report: with json or terse in output_format
 * (--output-format, any combination) it must stay machine readable, so
 * ours goes to stderr.  Under fio --server everything log_info() prints is
 * sent to the client, which writes it into its own output whatever its
 * format (client.c handle_text()); the server cannot know that format, so
 * its notes stay on the server's stderr (report_json is written where the
 * job runs).
 */
void hbe_note(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	if (is_backend ||
	    (output_format & (FIO_OUTPUT_JSON | FIO_OUTPUT_TERSE))) {
		vfprintf(stderr, fmt, ap);
		fflush(stderr);
	} else {
		log_valist(fmt, ap);
		/* a forked job may leave without flushing stdio */
		log_info_flush();
	}
	va_end(ap);
}

static bool hbe_kernel_at_least(int major, int minor)
{
	struct utsname u;
	int a = 0, b = 0;

	if (uname(&u) || sscanf(u.release, "%d.%d", &a, &b) != 2)
		return false;
	return a > major || (a == major && b >= minor);
}

/*
 * uncached: fio 3.33 sends RWF_UNCACHED (0x40) from a patch set that never
 * went upstream; since 6.11 that bit is RWF_ATOMIC (c34fc6f26ab8), and the
 * merged uncached I/O is RWF_DONTCACHE (0x80, 6.14, b9f958d4f146), which
 * fio master sends.  Send RWF_DONTCACHE where the kernel has it.
 */
static int hbe_uncached_flags(struct thread_data *td, struct hbe_options *o)
{
	struct utsname u;

	if (!o->uncached)
		return 0;
	uname(&u);
	if (td->o.odirect) {
		hbe_note(HBE_LOG_PREFIX "uncached=%u: direct=1 bypasses the "
			 "page cache already: no RWF_DONTCACHE\n", o->uncached);
		return 0;
	}
	if (!hbe_kernel_at_least(6, 14)) {
		hbe_note(HBE_LOG_PREFIX "uncached=%u: kernel %s has no "
			 "RWF_DONTCACHE (6.14+): buffered I/O goes through the "
			 "page cache as usual\n", o->uncached, u.release);
		return 0;
	}
	hbe_note(HBE_LOG_PREFIX "uncached=%u: RWF_DONTCACHE (kernel %s; not "
		 "fio 3.33's 0x40, which this kernel reads as RWF_ATOMIC)\n",
		 o->uncached, u.release);
	return HBE_RWF_DONTCACHE;
}

int hbe_options_uring(struct thread_data *td, struct hbe_options *o,
		      struct hbe_uring_opts *u)
{
	memset(u, 0, sizeof(*u));
	/* -1 (fio's default): READ/WRITE, which every 5.6+ kernel has */
	u->vectored = !o->fixedbufs && o->nonvectored == 0;
	u->rw_flags = hbe_uncached_flags(td, o);
	if (o->nowait)
		u->rw_flags |= HBE_RWF_NOWAIT;
	u->force_async = o->force_async;
	if (o->atomic_writes) {
		if (!td->o.odirect) {
			log_err(HBE_LOG_PREFIX "atomic_writes needs direct=1 "
				"(RWF_ATOMIC is for direct I/O): set direct=1 "
				"or drop atomic_writes\n");
			return -EINVAL;
		}
		u->write_flags = HBE_RWF_ATOMIC;
	}
	return 0;
}

/*
 * atomic_writes: every write size the job can issue must be an untorn
 * write on @path (hb_check_atomic_write: a power of two within the unit
 * limits, in one segment; fio aligns offsets to the block size).
 */
int hbe_check_atomic_file(struct thread_data *td, const char *path)
{
	struct hb_file_limits l;
	unsigned long long bs;

	if (hb_file_limits(path, &l)) {
		log_err(HBE_LOG_PREFIX "atomic_writes: %s\n", hb_errmsg());
		return -EINVAL;
	}
	for (bs = td->o.min_bs[DDIR_WRITE]; bs; bs <<= 1) {
		if (hb_check_atomic_write(&l, bs, 0, 1)) {
			log_err(HBE_LOG_PREFIX "atomic_writes on %s: %s\n",
				path, hb_errmsg());
			return -EINVAL;
		}
		if (bs >= td->o.max_bs[DDIR_WRITE])
			break;
	}
	return 0;
}
