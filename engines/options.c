// SPDX-License-Identifier: GPL-2.0-only
/*
 * The engine's options: ours (backing, layout, head_offset, ...) and every
 * option of fio's own io_uring engine under fio's name, type and meaning,
 * so a job written for ioengine=io_uring runs with only the engine
 * swapped.  Every option goes into lib's job plan once (fio's memory
 * options mem=, hugepage-size and iomem_align in lib's words), and
 * lib's hb_jobplan_check() holds every rule they must keep.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include "hugebuf-engine.h"

#include "verify.h"

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

/*
 * defer_taskrun: the value, and whether the job gave it.  fio knows which
 * of its own options a job set (fio_option_is_set()), not which engine
 * options, and a job's opt_list leaves out its [global] section.  But fio
 * fills a fresh option struct with the defaults before it points the
 * struct's first field at the thread (ioengine_load()): a call with that
 * field NULL is the default, any later one the job's own value.
 */
static int hbe_defer_taskrun_cb(void *data, int *val)
{
	struct hbe_options *o = data;

	o->defer_taskrun = *val;
	if (o->pad)
		o->defer_taskrun_given = 1;
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
	HBE_OPT(.name = "contig", .lname = "hugebuf 4k contiguity",
		.type = FIO_OPT_STR, .off1 = HBE_OFF(contig), .def = "given",
		.help = "given|scattered|pin: backing=4k's pages as the "
			"allocator gives them, no two neighbours physically "
			"adjacent, or faulted in by the registration's pin",
		.posval = {
			{ .ival = "given", .oval = HB_CONTIG_GIVEN,
			  .help = "as the page allocator hands them out" },
			{ .ival = "scattered", .oval = HB_CONTIG_SCATTERED,
			  .help = "neighbouring pages in frames apart" },
			{ .ival = "pin", .oval = HB_CONTIG_PIN,
			  .help = "untouched until registered, as fio's "
				  "malloc buffers of a read job" },
		}),
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
		.cb = hbe_defer_taskrun_cb, .def = "1",
		.help = "SINGLE_ISSUER + DEFER_TASKRUN (6.1+); by default a "
			"kernel without them gets a plain ring and one line, "
			"an explicit 1 is an error there"),
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
#ifdef IOPRIO_MAX_PRIO_HINT
	/* fio's cmdprio code reads it (the ioprio's hint bits, 6.10+) */
	HBE_OPT(.name = "cmdprio_hint",
		.lname = "Asynchronous I/O priority hint", .type = FIO_OPT_INT,
		.off1 = HBE_OFF(cmdprio_options.hint[DDIR_READ]),
		.off2 = HBE_OFF(cmdprio_options.hint[DDIR_WRITE]),
		.minval = IOPRIO_MIN_PRIO_HINT, .maxval = IOPRIO_MAX_PRIO_HINT,
		.interval = 1, .help = "Set asynchronous IO priority hint"),
#endif
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
#ifdef HBE_FIO_341_OPTIONS
	/*
	 * fio 3.41's io_uring / io_uring_cmd options.  FUA, write_mode,
	 * verify_mode, deac, md_per_io_size and the protection information
	 * options are fields of the NVMe commands the engine sends through
	 * passthrough (engines/nvme.c hbe_nvme_modes()); without
	 * passthrough lib's job check refuses the first five by name
	 * (check_nvme_extras()), and the PI options act on nothing.
	 */
	HBE_OPT(.name = "readfua", .lname = "Read fua flag support",
		.type = FIO_OPT_BOOL, .off1 = HBE_OFF(readfua), .def = "0",
		.help = "Set FUA flag (force unit access) for all Read "
			"operations (NVMe passthrough)"),
	HBE_OPT(.name = "writefua", .lname = "Write fua flag support",
		.type = FIO_OPT_BOOL, .off1 = HBE_OFF(writefua), .def = "0",
		.help = "Set FUA flag (force unit access) for all Write "
			"operations (NVMe passthrough)"),
	HBE_OPT(.name = "write_mode", .lname = "NVMe write command",
		.type = FIO_OPT_STR, .off1 = HBE_OFF(write_mode),
		.def = "write",
		.help = "NVMe command for writes through passthrough: write, "
			"uncor, zeroes, verify",
		.posval = {
			{ .ival = "write", .oval = HBE_WMODE_WRITE,
			  .help = "NVMe Write" },
			{ .ival = "uncor", .oval = HBE_WMODE_UNCOR,
			  .help = "Write Uncorrectable" },
			{ .ival = "zeroes", .oval = HBE_WMODE_ZEROES,
			  .help = "Write Zeroes" },
			{ .ival = "verify", .oval = HBE_WMODE_VERIFY,
			  .help = "Verify" },
		}),
	HBE_OPT(.name = "verify_mode", .lname = "NVMe verify command",
		.type = FIO_OPT_STR, .off1 = HBE_OFF(verify_mode),
		.def = "read",
		.help = "NVMe command of the verify phase through passthrough: "
			"read, compare",
		.posval = {
			{ .ival = "read", .oval = HBE_VMODE_READ,
			  .help = "NVMe Read, data compared by fio" },
			{ .ival = "compare", .oval = HBE_VMODE_COMPARE,
			  .help = "NVMe Compare, data compared by the device" },
		}),
	HBE_OPT(.name = "deac", .lname = "Deallocate bit for write zeroes",
		.type = FIO_OPT_BOOL, .off1 = HBE_OFF(deac), .def = "0",
		.help = "Set DEAC for write zeroes (NVMe passthrough)"),
	HBE_OPT(.name = "md_per_io_size",
		.lname = "Separate Metadata Buffer Size per I/O",
		.type = FIO_OPT_INT, .off1 = HBE_OFF(md_per_io_size),
		.def = "0",
		.help = "Separate metadata buffer per I/O (NVMe passthrough; "
			"in the buffers' backing)"),
	HBE_OPT(.name = "pi_act", .lname = "Protection Information Action",
		.type = FIO_OPT_BOOL, .off1 = HBE_OFF(pi_act), .def = "1",
		.help = "PRACT: the controller inserts and strips protection "
			"information (0, host-made PI, is refused)"),
	HBE_OPT(.name = "pi_chk", .lname = "Protection Information Check",
		.type = FIO_OPT_STR_STORE, .off1 = HBE_OFF(pi_chk),
		.help = "Protection information the controller checks: "
			"GUARD,REFTAG,APPTAG"),
	HBE_OPT(.name = "apptag", .lname = "Application Tag",
		.type = FIO_OPT_INT, .off1 = HBE_OFF(apptag), .def = "0x1234",
		.help = "Application tag of protection information"),
	HBE_OPT(.name = "apptag_mask", .lname = "Application Tag Mask",
		.type = FIO_OPT_INT, .off1 = HBE_OFF(apptag_mask),
		.def = "0xffff",
		.help = "Application tag mask of protection information"),
#endif
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

/*
 * fio's mem= in lib's words: malloc/mmap/mmapshared are 4 KiB pages, shm
 * plain SysV shm, shmhuge SHM_HUGETLB and mmaphuge MAP_HUGETLB (both at
 * hugepage-size, which fio itself only rounds to), and mmaphuge:FILE a
 * file on hugetlbfs.  What has no backing here gets its one line in
 * @ps->mem_refused, for the check to say in its turn.
 */
static void hbe_plan_mem(struct thread_data *td, struct hb_jobplan *p,
			 struct hbe_plan_strings *ps)
{
	const char *file = td->o.mmapfile;
	enum fio_memtype t = td->o.mem_type;
	const char *name = hbe_mem_name(t);

	snprintf(ps->mem_name, sizeof(ps->mem_name), "%s%s%s", name,
		 file ? ":" : "", file ? file : "");
	p->mem_name = ps->mem_name;
	p->mem_kind = ps->mem_kind;
	switch (t) {
	case MEM_MALLOC:
	case MEM_MMAP:
	case MEM_MMAPSHARED:
		if (file && *file)
			snprintf(ps->mem_refused, sizeof(ps->mem_refused),
				 "mem=%s:%s maps a regular file, which this "
				 "engine does not: use mem=%s, or "
				 "mem=mmaphuge:%s on hugetlbfs", name, file,
				 name, file);
		snprintf(ps->mem_kind, sizeof(ps->mem_kind), "4k");
		break;
	case MEM_SHM:
		snprintf(ps->mem_kind, sizeof(ps->mem_kind), "shm");
		break;
	case MEM_SHMHUGE:
		snprintf(ps->mem_kind, sizeof(ps->mem_kind), "shm");
		p->mem_page_size = td->o.hugepage_size;
		break;
	case MEM_MMAPHUGE:
		if (file && *file) {
			snprintf(ps->mem_kind, sizeof(ps->mem_kind),
				 "hugetlbfs:%s", file);
			break;
		}
		snprintf(ps->mem_kind, sizeof(ps->mem_kind), "hugetlb");
		p->mem_page_size = td->o.hugepage_size;
		break;
	default:
		snprintf(ps->mem_refused, sizeof(ps->mem_refused), "mem=%s is "
			 "not a memory this engine can register: use "
			 "mem=mmaphuge or backing=", name);
		break;
	}
	if (ps->mem_refused[0])
		p->mem_refused = ps->mem_refused;
}

/*
 * Bytes fio's own carving writes to, through the iomem_alloc hook, before
 * post_init moves the buffers to the plan's layout: iodepth * max_bs,
 * plus a page and iomem_align of alignment slack, rounded up to
 * hugepage-size for mem=shmhuge/mmaphuge (init_io_u_buffers()), plus
 * another page and iomem_align (allocate_io_mem()).  The plan maps at
 * least this much.
 */
static uint64_t hbe_fio_len(struct thread_data *td)
{
	uint64_t slack = HB_PAGE_SIZE + td->o.mem_align;
	uint64_t fios = (uint64_t)td->o.iodepth * td_max_bs(td) + slack;
	uint64_t hps = td->o.hugepage_size;

	if ((td->o.mem_type == MEM_SHMHUGE ||
	     td->o.mem_type == MEM_MMAPHUGE) && hps)
		fios = (fios + hps - 1) / hps * hps;
	return fios + slack;
}

int hbe_options_plan(struct thread_data *td, struct hbe_options *o,
		     struct hb_jobplan *p, struct hbe_plan_strings *ps)
{
	struct fio_file *f;
	unsigned int i;

	memset(p, 0, sizeof(*p));
	ps->files = calloc(td->o.nr_files ? td->o.nr_files : 1,
			  sizeof(*ps->files));
	if (!ps->files)
		return -ENOMEM;
	for_each_file(td, f, i)
		ps->files[i] = f->file_name;
	p->files = ps->files;
	p->nr_files = td->o.nr_files;
	p->open_files = td->o.open_files;
	p->registerfiles = o->registerfiles;
	p->cmd_type = o->cmd_type;

	p->backing = o->backing;
	p->hugepage_size = o->hugepage_size;
	p->contig = o->contig;
	if (fio_option_is_set(&td->o, hugepage_size))
		p->fw_hugepage_size = td->o.hugepage_size;
	if (fio_option_is_set(&td->o, mem_type))
		hbe_plan_mem(td, p, ps);
	p->head_offset = o->head_offset;
	p->mem_align = td->o.mem_align;

	p->depth = td->o.iodepth;
	p->max_bs = td_max_bs(td);
	p->min_len = hbe_fio_len(td);
	p->layout = o->layout;
	p->fixedbufs = o->fixedbufs;
	/* hbe_place_io_us() fills a writing job's buffers before registering */
	p->fills_buffers = td_write(td);
	p->direct = td->o.odirect;
	p->vec_iovecs = o->vec_iovecs;
	p->vec_offset = o->vec_offset;
	p->chunk_size = o->chunk_size;
	p->clone = o->clone_buffers;
	p->threads = td->o.use_thread;
	p->verify = td->o.verify != VERIFY_NONE;
	p->job_name = td->o.name;
	p->atomic_writes = o->atomic_writes;
	p->uncached = o->uncached;
	p->nowait = o->nowait;
#ifdef HBE_FIO_341_OPTIONS
	p->read_fua = o->readfua;
	p->write_fua = o->writefua;
	p->write_mode = o->write_mode == HBE_WMODE_UNCOR ? "uncor" :
			o->write_mode == HBE_WMODE_ZEROES ? "zeroes" :
			o->write_mode == HBE_WMODE_VERIFY ? "verify" : NULL;
	p->verify_compare = o->verify_mode == HBE_VMODE_COMPARE;
	p->deac = o->deac;
	p->md_per_io_size = o->md_per_io_size;
#endif
	return 0;
}

/*
 * fio refuses mem= for an engine with an iomem_alloc hook ("option
 * 'mem/iomem' conflicts", memory.c allocate_io_mem()); here mem= has
 * become the backing, so it is no longer a request to fio's allocator.
 */
void hbe_options_took_mem(struct thread_data *td)
{
	unsigned int off = offsetof(struct thread_options, mem_type);
	unsigned int i, bits = 8 * sizeof(uint64_t);

	if (!fio_option_is_set(&td->o, mem_type))
		return;
	for (i = 0; i < FIO_MAX_OPTS && fio_options[i].name; i++) {
		if (fio_options[i].off1 != off)
			continue;
		td->o.set_options[i / bits] &= ~((uint64_t)1 << (i % bits));
	}
}

/* ------------------------------------------------------------------ */
/* td->eo while a forked job runs                                       */
/* ------------------------------------------------------------------ */

/*
 * fio 3.33 frees a forked job's option struct in the parent after fork()
 * (backend.c run_threads()) while td->eo, shared with the job, still
 * points at it until the job's free_ioengine(): a job killed in between
 * has its options freed twice by the parent's fio_options_free().  So a
 * forked job keeps them in hd->o from the start of init to the start of
 * cleanup (or init's failure), td->eo NULL meanwhile; threads share one
 * heap, and io_submit_mode=offload copies td->eo after init, so both
 * keep it.  The story: docs/engine-notes.md.
 */
static bool hbe_options_hideable(struct thread_data *td)
{
	return !td->o.use_thread && td->o.io_submit_mode != IO_MODE_OFFLOAD;
}

void hbe_options_hide(struct thread_data *td, struct hbe_data *hd)
{
	if (!hbe_options_hideable(td) || td->eo != hd->o)
		return;
	td->eo = NULL;
	hd->eo_hidden = true;
}

/* cleanup: fio's free_ioengine() frees the options as before */
void hbe_options_restore(struct thread_data *td, struct hbe_data *hd)
{
	if (!hd->eo_hidden)
		return;
	td->eo = hd->o;
	hd->eo_hidden = false;
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

/*
 * uncached: fio 3.33 sends RWF_UNCACHED (0x40) from a patch set that never
 * went upstream; since 6.11 that bit is RWF_ATOMIC (c34fc6f26ab8), and the
 * merged uncached I/O is RWF_DONTCACHE (0x80, 6.14, b9f958d4f146), which
 * fio master sends.  Send RWF_DONTCACHE where lib's ring-feature table
 * says the kernel has it (HB_FEAT_DONTCACHE, decided at init: without it
 * hbe_options_features() said the fallback's line).
 */
static int hbe_uncached_flags(struct thread_data *td, struct hbe_options *o,
			      const unsigned char *act)
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
	if (act[HB_FEAT_DONTCACHE] != HB_FEAT_USE)
		return 0;
	hbe_note(HBE_LOG_PREFIX "uncached=%u: RWF_DONTCACHE (kernel %s; not "
		 "fio 3.33's 0x40, which this kernel reads as RWF_ATOMIC)\n",
		 o->uncached, u.release);
	return HBE_RWF_DONTCACHE;
}

/*
 * RWF_ATOMIC from a registered buffer is EINVAL where the model says the
 * kernel takes it only from user memory (hb_kmodel's atomic_ubuf_only,
 * 6.11+): the writes go as IORING_OP_WRITE from the same hugepage
 * buffers, which stay registered for the reads; the kernel pins a
 * write's pages for that I/O.  Not for vec_iovecs (a vectored write of
 * several iovecs is refused as well, and the option asks for
 * WRITEV_FIXED) nor passthrough (no RWF_ATOMIC there).  @opt names the
 * option in the line.
 */
static bool hbe_atomic_unregistered(const struct hbe_options *o,
				    const struct hb_jobplan *p,
				    const struct hbe_uring_opts *u,
				    const char *opt)
{
	if (!(u->write_flags & HBE_RWF_ATOMIC) || !o->fixedbufs ||
	    p->vec_iovecs || p->passthrough || !p->km.atomic_ubuf_only)
		return false;
	hbe_note(HBE_LOG_PREFIX "%s: atomic writes go unregistered "
		 "(IORING_OP_WRITE from the same hugepage buffers): kernel %s "
		 "takes RWF_ATOMIC only from user memory (6.11+)\n", opt,
		 p->km.name);
	return true;
}

void hbe_options_uring(struct thread_data *td, struct hbe_options *o,
		       const struct hb_jobplan *p, const unsigned char *act,
		       struct hbe_uring_opts *u)
{
	memset(u, 0, sizeof(*u));
	/* -1 (fio's default): READ/WRITE, which every 5.6+ kernel has */
	u->vectored = !o->fixedbufs && o->nonvectored == 0;
	u->rw_flags = hbe_uncached_flags(td, o, act);
	if (o->nowait)
		u->rw_flags |= HBE_RWF_NOWAIT;
	u->force_async = o->force_async;
	/* the plan checked that atomic_writes comes with direct=1 */
	if (o->atomic_writes)
		u->write_flags = HBE_RWF_ATOMIC;
#ifdef HBE_FIO_341_OPTIONS
	/*
	 * fio's atomic=1 (FIO_ATOMICWRITES): RWF_ATOMIC on every write, as
	 * fio 3.41's io_uring sends it, with no check of ours: the file or
	 * device answers (6.11+, c34fc6f26ab8: -EINVAL outside its atomic
	 * write unit limits, -EOPNOTSUPP without them or without O_DIRECT).
	 * fio clears oatomic for a job that does not write.
	 */
	if (td->o.oatomic)
		u->write_flags = HBE_RWF_ATOMIC;
#endif
	u->write_unreg = hbe_atomic_unregistered(o, p, u, o->atomic_writes ?
						 "atomic_writes" : "atomic=1");
}

/* the running kernel, as the lines name it */
static void hbe_kernel_name(char *buf, size_t len)
{
	const char *hidden = hb_ringfeat_hidden_above();
	struct utsname u;

	if (uname(&u))
		snprintf(u.release, sizeof(u.release), "?");
	if (*hidden)
		snprintf(buf, len, "%s (HUGEBUF_URING_FEATURES=%s)",
			 u.release, hidden);
	else
		snprintf(buf, len, "%s", u.release);
}

int hbe_options_features(struct hbe_options *o, const struct hb_jobplan *p,
			 bool odirect, unsigned char *act)
{
	static const char *const clone_name[] = {
		[HBE_CLONE_SPLIT] = "clone_buffers=split",
		[HBE_CLONE_SAME] = "clone_buffers=same",
	};
	struct hb_ringfeat_decision d;
	struct hb_ringfeat_job j;
	char kernel[128], vec[32];
	unsigned int have, f;
	int ret;

	ret = hb_ringfeat_probe(&have);
	if (ret < 0) {
		log_err(HBE_LOG_PREFIX "%s\n", hb_errmsg());
		return ret;
	}
	memset(&j, 0, sizeof(j));
	j.want[HB_FEAT_CQSIZE] = HB_FEAT_BY_DEFAULT;
	j.want[HB_FEAT_RING_FD] = HB_FEAT_BY_DEFAULT;
	/* SQPOLL: no deferred task work (the SQ thread runs it) */
	if (o->defer_taskrun && !o->sqpoll) {
		j.want[HB_FEAT_DEFER_TASKRUN] = HB_FEAT_BY_DEFAULT;
		if (o->defer_taskrun_given) {
			j.want[HB_FEAT_DEFER_TASKRUN] = HB_FEAT_ASKED;
			j.asked_by[HB_FEAT_DEFER_TASKRUN] = "defer_taskrun=1";
		}
	}
	/*
	 * registerfiles asks for registered files, which every kernel the
	 * engine runs on has; the sparse table is only how they go in
	 */
	if (o->registerfiles)
		j.want[HB_FEAT_FILES_SPARSE] = HB_FEAT_BY_DEFAULT;
	if (p->passthrough) {
		j.want[HB_FEAT_URING_CMD] = HB_FEAT_ASKED;
		j.asked_by[HB_FEAT_URING_CMD] =
			o->cmd_type && *o->cmd_type ? "cmd_type=nvme" :
			"NVMe passthrough (the files are /dev/ngXnY)";
	}
	if (p->clone == HB_JOB_CLONE_SPLIT || p->clone == HB_JOB_CLONE_SAME) {
		j.want[HB_FEAT_CLONE_BUFFERS] = HB_FEAT_ASKED;
		j.asked_by[HB_FEAT_CLONE_BUFFERS] = clone_name[p->clone];
	}
	/* direct=1 has no page cache to skip: hbe_uncached_flags() says so */
	if (o->uncached && !odirect)
		j.want[HB_FEAT_DONTCACHE] = HB_FEAT_BY_DEFAULT;
	if (p->vec_iovecs) {
		snprintf(vec, sizeof(vec), "vec_iovecs=%u", p->vec_iovecs);
		j.want[HB_FEAT_READV_FIXED] = HB_FEAT_ASKED;
		j.asked_by[HB_FEAT_READV_FIXED] = vec;
	}

	hbe_kernel_name(kernel, sizeof(kernel));
	ret = hb_ringfeat_decide(&j, have, kernel, &d);
	if (ret) {
		/* one line: the first refusal; no fallback notes around it */
		log_err(HBE_LOG_PREFIX "%s\n", hb_errmsg());
	} else {
		/* once per job, at init: fio's stdout stays its own */
		for (f = 0; f < HB_FEAT_NR; f++)
			if (d.act[f] == HB_FEAT_FALLBACK)
				hbe_note(HBE_LOG_PREFIX "%s\n", d.line[f]);
	}
	memcpy(act, d.act, HB_FEAT_NR);
	return ret;
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
