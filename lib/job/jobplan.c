// SPDX-License-Identifier: GPL-2.0-only
/*
 * The job plan: every rule a job's options must keep, checked in one pass
 * before anything is allocated or pinned.  The engine translates its
 * framework's options into a struct hb_jobplan once; this file decides
 * whether the plan can run (and what its layout is), and says why not in
 * one line naming the cause and the fix.  The order of the checks is the
 * order a job with several problems is told about them.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "job/job.h"

/* a size option past this came from a negative fio value (1 TiB) */
#define JOB_SIZE_SANE		(1ULL << 40)

/* ------------------------------------------------------------------ */
/* files and passthrough                                               */
/* ------------------------------------------------------------------ */

static bool set(const char *s)
{
	return s && *s;
}

/*
 * IORING_REGISTER_FILES takes one table of every file: a job that opens
 * fewer at a time than it has (open_files) would leave holes the engine
 * never fills (fio's io_uring engine has the same rule).
 */
static int check_registerfiles(const struct hb_jobplan *p)
{
	if (!p->registerfiles || p->nr_files == p->open_files)
		return 0;
	return hb_seterr(EINVAL, "registerfiles needs open_files equal to "
			 "nr_files (%u): drop open_files or registerfiles",
			 p->nr_files);
}

bool hb_is_nvme_generic(const char *path)
{
	char sys[64], link[PATH_MAX];
	struct stat st;
	ssize_t n;

	if (stat(path, &st) || !S_ISCHR(st.st_mode))
		return false;
	snprintf(sys, sizeof(sys), "/sys/dev/char/%u:%u/subsystem",
		 major(st.st_rdev), minor(st.st_rdev));
	n = readlink(sys, link, sizeof(link) - 1);
	if (n <= 0)
		return false;
	link[n] = '\0';
	return strstr(link, "/nvme-generic") != NULL;
}

/*
 * cmd_type: "nvme", "none", or unset.  As fio's io_uring_cmd, whose
 * cmd_type defaults to nvme, a job on NVMe generic devices only is a
 * passthrough job, a mix an error; cmd_type=nvme needs char devices.
 */
static int check_cmd_type(struct hb_jobplan *p)
{
	unsigned int i, chr = 0, ng = 0;
	const char *c = p->cmd_type;
	struct stat st;

	p->passthrough = false;
	if (set(c) && strcmp(c, "nvme") && strcmp(c, "none"))
		return hb_seterr(EINVAL, "cmd_type=%s is not supported: use "
				 "cmd_type=nvme (NVMe passthrough on "
				 "/dev/ngXnY) or drop it", c);
	if (c && !strcmp(c, "none"))
		return 0;
	for (i = 0; i < p->nr_files; i++) {
		if (!stat(p->files[i], &st) && S_ISCHR(st.st_mode))
			chr++;
		if (hb_is_nvme_generic(p->files[i]))
			ng++;
	}
	if (set(c)) {
		if (chr != p->nr_files)
			return hb_seterr(EINVAL, "cmd_type=nvme needs NVMe "
					 "generic char devices (/dev/ngXnY) as "
					 "files, %u of %u are not: use "
					 "filename=/dev/ng0n1 or drop cmd_type",
					 p->nr_files - chr, p->nr_files);
		p->passthrough = true;
		return 0;
	}
	if (ng && ng != p->nr_files)
		return hb_seterr(EINVAL, "some files are NVMe generic devices "
				 "and some are not: NVMe passthrough "
				 "(cmd_type=nvme) needs all of them on "
				 "/dev/ngXnY");
	p->passthrough = ng != 0;
	return 0;
}

/*
 * What an NVMe command through IORING_OP_URING_CMD (5.19, ee692a21e9bf)
 * cannot carry: no vectored fixed variant (io_uring/uring_cmd.c imports
 * one buffer), and RWF_* flags belong to read/write.  The char device is
 * opened without O_DIRECT, so direct=1 is only worth a note.
 */
static int check_passthrough(struct hb_jobplan *p)
{
	const char *what = NULL;

	if (!p->passthrough)
		return 0;
	if (p->vec_iovecs)
		what = "vec_iovecs (vectored fixed passthrough is not in the "
		       "kernel)";
	else if (p->atomic_writes)
		what = "atomic_writes (an RWF_ flag; NVMe commands are atomic "
		       "up to the namespace's AWUN by themselves)";
	else if (p->uncached)
		what = "uncached (passthrough bypasses the page cache anyway)";
	else if (p->nowait)
		what = "nowait (an RWF_ flag of read/write, not of commands)";
	else
		p->pt_direct_ignored = p->direct;
	if (what)
		return hb_seterr(EINVAL, "cmd_type=nvme does not take %s: drop "
				 "it", what);
	return 0;
}

/*
 * fio 3.41's io_uring_cmd sets NVMe's FUA bit, sends Write Uncorrectable,
 * Write Zeroes (with DEAC), Verify or Compare instead of Write and Read:
 * fields of an NVMe command, which the engine sends through passthrough
 * (engines/nvme.c).  Plain reads and writes have no such field, and fio
 * 3.41's io_uring takes the options there without effect; a job that
 * asks for them without passthrough is refused by name instead.
 */
/* The first NVMe command field the plan asks for, NULL: none. */
static const char *nvme_field(const struct hb_jobplan *p, char *wm,
			      size_t len, const char **what)
{
	if (p->read_fua) {
		*what = "NVMe's FUA bit on reads";
		return "readfua=1";
	}
	if (p->write_fua) {
		*what = "NVMe's FUA bit on writes";
		return "writefua=1";
	}
	if (p->write_mode) {
		snprintf(wm, len, "write_mode=%s", p->write_mode);
		*what = "another NVMe command than Write";
		return wm;
	}
	if (p->verify_compare) {
		*what = "NVMe Compare";
		return "verify_mode=compare";
	}
	if (p->deac) {
		*what = "Write Zeroes with its deallocate bit";
		return "deac=1";
	}
	return NULL;
}

static int check_nvme_extras(const struct hb_jobplan *p)
{
	const char *opt, *what = NULL;
	char wm[64];

	opt = p->passthrough ? NULL : nvme_field(p, wm, sizeof(wm), &what);
	if (opt)
		return hb_seterr(EINVAL, "%s asks for %s, a field of NVMe "
				 "commands that plain reads and writes do "
				 "not carry (fio's io_uring takes it without "
				 "effect): use cmd_type=nvme on /dev/ngXnY, "
				 "as fio's io_uring_cmd does, or drop it",
				 opt, what);
	if (p->md_per_io_size && p->clone != HB_JOB_CLONE_OFF)
		return hb_seterr(EINVAL, "md_per_io_size with clone_buffers: "
				 "the metadata buffers are a job's own, not "
				 "in the shared mapping: drop one of them");
	return 0;
}

/* ------------------------------------------------------------------ */
/* backing: backing=/hugepage_size= or mem=, and the head offset       */
/* ------------------------------------------------------------------ */

/* lib's one message for a hugetlb size the kernel does not offer */
static int check_hugepage_size(const char *opt, uint64_t size)
{
	char sz[32], msg[512];

	if (!hbi_check_hugepage_size(size))
		return 0;
	hb_fmt_size(size, sz, sizeof(sz));
	snprintf(msg, sizeof(msg), "%s", hb_errmsg());
	return hb_seterr(EINVAL, "%s=%s: %s", opt, sz, msg);
}

/* backing= and hugepage_size= as one spec ("hugetlb:1G", ...) */
static int own_spec(const struct hb_jobplan *p, char *spec, size_t len)
{
	const char *kind = set(p->backing) ? p->backing : "hugetlb";
	const char *size = p->hugepage_size;
	const char *colon = strchr(kind, ':');
	bool sized = !strcmp(kind, "hugetlb") || !strcmp(kind, "memfd") ||
		     !strcmp(kind, "mthp") || !strcmp(kind, "shm");
	char fsz[32];

	if (colon && set(size))
		return hb_seterr(EINVAL, "backing=%s already names its page "
				 "size: drop hugepage_size=%s, or write "
				 "backing=%.*s hugepage_size=%s", kind, size,
				 (int)(colon - kind), kind, size);
	/* fio's own hugepage-size sizes a hugetlb backing too */
	if (sized && strcmp(kind, "mthp") && !set(size) &&
	    p->fw_hugepage_size) {
		hb_fmt_size(p->fw_hugepage_size, fsz, sizeof(fsz));
		size = fsz;
	}
	if (!strcmp(kind, "mthp") && !set(size))
		return hb_seterr(EINVAL, "backing=mthp needs hugepage_size="
				 "<mTHP size>, e.g. hugepage_size=64K");
	if (sized && set(size))
		snprintf(spec, len, "%s:%s", kind, size);
	else
		snprintf(spec, len, "%s", kind);
	return 0;
}

/* hugepage_size= given to a backing whose folio size it is not */
static int check_unsized(const struct hb_jobplan *p)
{
	const char *size = p->hugepage_size;
	uint64_t sz;

	if (!set(size) || (p->b.kind != HB_BACKING_THP &&
			   p->b.kind != HB_BACKING_4K))
		return 0;
	if (!hb_parse_size(size, &sz) && sz == p->b.folio_size)
		return 0;
	return hb_seterr(EINVAL, "hugepage_size=%s does not apply to "
			 "backing=%s (its folio size is %llu): drop "
			 "hugepage_size or use backing=mthp", size,
			 p->backing ? p->backing : "hugetlb",
			 (unsigned long long)p->b.folio_size);
}

/* mem= unset: the backing is backing= and hugepage_size= */
static int plan_own_backing(struct hb_jobplan *p, const char *mine)
{
	int ret = hb_backing_parse(mine, &p->b);

	if (!ret && hb_backing_is_hugetlb(&p->b) &&
	    p->b.kind != HB_BACKING_HUGETLBFS &&
	    p->b.kind != HB_BACKING_LIBHUGETLBFS)
		ret = check_hugepage_size(p->hugepage_size ? "hugepage_size" :
					  "hugepage-size", p->b.folio_size);
	return ret ?: check_unsized(p);
}

static bool same_backing(const struct hb_backing *a,
			 const struct hb_backing *b)
{
	return a->kind == b->kind && a->folio_size == b->folio_size &&
	       !strcmp(a->path, b->path);
}

/*
 * mem= set: it is the backing (shmhuge and mmaphuge at fio's
 * hugepage-size, which must exist); backing=/hugepage_size= may only say
 * the same.
 */
static int plan_mem_backing(struct hb_jobplan *p, const char *mine)
{
	char spec[HB_BACKING_STR_MAX], sz[32];
	struct hb_backing own;
	int ret;

	if (p->mem_refused)
		return hb_seterr(EINVAL, "%s", p->mem_refused);
	if (p->mem_page_size) {
		ret = check_hugepage_size("hugepage-size", p->mem_page_size);
		if (ret)
			return ret;
		hb_fmt_size(p->mem_page_size, sz, sizeof(sz));
		snprintf(spec, sizeof(spec), "%s:%s", p->mem_kind, sz);
	} else {
		snprintf(spec, sizeof(spec), "%s", p->mem_kind);
	}
	ret = hb_backing_parse(spec, &p->b);
	if (ret || (!p->backing && !p->hugepage_size))
		return ret;
	ret = hb_backing_parse(mine, &own);
	if (ret)
		return ret;
	if (!same_backing(&own, &p->b))
		return hb_seterr(EINVAL, "mem=%s and backing=%s contradict "
				 "(mem=%s is backing=%s here): keep one of "
				 "them", p->mem_name, mine, p->mem_name, spec);
	return 0;
}

static int plan_backing(struct hb_jobplan *p)
{
	char mine[HB_BACKING_STR_MAX];
	int ret;

	ret = own_spec(p, mine, sizeof(mine));
	if (ret)
		return ret;
	return p->mem_name ? plan_mem_backing(p, mine) :
	       plan_own_backing(p, mine);
}

/*
 * contig= shapes 4 KiB pages (a larger folio has its own runs), and pin
 * needs them untouched until registration: hb_contig_check().
 */
static int plan_contig(struct hb_jobplan *p)
{
	unsigned int use = 0;
	int ret;

	if (!p->fixedbufs)
		use |= HB_CONTIG_UNREGISTERED;
	if (p->fills_buffers)
		use |= HB_CONTIG_WRITTEN;
	if (p->md_per_io_size)
		use |= HB_CONTIG_UNREG_PARTS;
	if (p->clone != HB_JOB_CLONE_OFF)
		use |= HB_CONTIG_SHARED;
	p->b.contig = p->contig;
	ret = hb_contig_check(&p->b, use);
	if (ret)
		p->b.contig = HB_CONTIG_GIVEN;
	return ret;
}

/* iomem_align is fio's name for the offset of every buffer */
static int plan_head(struct hb_jobplan *p)
{
	p->head = p->head_offset;
	if (!p->mem_align)
		return 0;
	/* head_offset=0 is the default: only another offset contradicts */
	if (p->head_offset && p->head_offset != p->mem_align)
		return hb_seterr(EINVAL, "iomem_align=%u and head_offset=%llu "
				 "contradict (both place the buffers): keep "
				 "one of them", p->mem_align,
				 (unsigned long long)p->head_offset);
	p->head = p->mem_align;
	return 0;
}

/* RWF_ATOMIC (6.11, c34fc6f26ab8) is refused for buffered I/O */
static int check_atomic(const struct hb_jobplan *p)
{
	if (!p->atomic_writes || p->direct)
		return 0;
	return hb_seterr(EINVAL, "atomic_writes needs direct=1 (RWF_ATOMIC is "
			 "for direct I/O): set direct=1 or drop atomic_writes");
}

/* ------------------------------------------------------------------ */
/* layout: slot i at head + i * stride                                 */
/* ------------------------------------------------------------------ */

/* direct=1: the strictest logical block size of the job's files */
static unsigned int job_dio_align(const struct hb_jobplan *p)
{
	unsigned int i, align = 512;

	if (!p->direct)
		return 0;
	for (i = 0; i < p->nr_files; i++) {
		unsigned int a = hb_dio_align(p->files[i]);

		if (a > align)
			align = a;
	}
	return align;
}

/*
 * A registered buffer holds at least one I/O: bs up to the kernel's
 * per-buffer limit (SZ_1G up to 7.1, SZ_1T from 7.2: p->km, lib/model/
 * kmodel.c) and up to what one read or write moves (MAX_RW_COUNT).
 */
static int check_bs(const struct hb_jobplan *p)
{
	uint64_t lim = hb_kmodel_buf_len_max(&p->km, p->head);
	char sz[16];

	if (!p->fixedbufs)
		return 0;
	if (p->max_bs > lim) {
		hb_fmt_size(lim, sz, sizeof(sz));
		return hb_seterr(EINVAL, "bs=%llu is over kernel %s's %s limit "
				 "for one registered buffer: use bs<=%s, "
				 "fixedbufs=0%s",
				 (unsigned long long)p->max_bs, p->km.name, sz,
				 sz, p->km.buf_len_max < HB_MAX_RW_COUNT ?
				 ", or a 7.2+ kernel (b4e41050b212)" : "");
	}
	if (p->max_bs > HB_MAX_RW_COUNT)
		return hb_seterr(EINVAL, "bs=%llu is over the %llu bytes one "
				 "read or write moves (MAX_RW_COUNT): use "
				 "bs<=%llu", (unsigned long long)p->max_bs,
				 HB_MAX_RW_COUNT, HB_MAX_RW_COUNT);
	return 0;
}

/*
 * hb_alloc() places every buffer head bytes after a boundary of
 * hb_backing_align() (the folio, or 2M for the 4k baseline): an offset
 * past it would be a different layout from the one asked for, and
 * direct I/O needs it on the logical block size.
 */
static int check_head(const struct hb_jobplan *p)
{
	uint64_t align = hb_backing_align(&p->b);

	if (p->head > JOB_SIZE_SANE)
		return hb_seterr(EINVAL, "head_offset=%lld is negative or too "
				 "large: use a value below %llu for this "
				 "backing", (long long)p->head,
				 (unsigned long long)align);
	if (p->head >= align)
		return hb_seterr(EINVAL, "head_offset=%llu is not inside the "
				 "first folio: use a value below %llu for "
				 "this backing", (unsigned long long)p->head,
				 (unsigned long long)align);
	return hbi_check_dio_multiple("head_offset", p->head, p->dio_align);
}

/* IORING_MAX_REG_BUFFERS (io_sqe_buffers_register(): -EINVAL above) */
static int check_nr_buffers(const struct hb_jobplan *p)
{
	if (!p->fixedbufs || p->nr_iovecs <= HB_MAX_REG_BUFFERS)
		return 0;
	return hb_seterr(EINVAL, "iodepth=%u needs %u registered buffers, the "
			 "kernel allows %u: use layout=region or a lower "
			 "iodepth", p->depth, p->nr_iovecs, HB_MAX_REG_BUFFERS);
}

/*
 * vec_iovecs: READV_FIXED/WRITEV_FIXED (6.15, 9ef4cbbcb4ac) need
 * registered buffers, and one SQE per I/O (the cuts are made over the
 * whole I/O); the cut offset must leave every cut inside the block.
 */
static int check_vectored(const struct hb_jobplan *p)
{
	if (!p->vec_iovecs)
		return 0;
	if (!p->fixedbufs)
		return hb_seterr(EINVAL, "vec_iovecs=%u needs fixedbufs (it "
				 "issues READV_FIXED/WRITEV_FIXED): drop "
				 "fixedbufs=0 or vec_iovecs", p->vec_iovecs);
	if (p->chunk_size)
		return hb_seterr(EINVAL, "vec_iovecs and chunk_size both cut "
				 "the I/O: use one of them");
	if (p->vec_offset >= p->max_bs)
		return hb_seterr(EINVAL, "vec_offset=%llu is not below bs=%llu: "
				 "use a smaller offset",
				 (unsigned long long)p->vec_offset,
				 (unsigned long long)p->max_bs);
	return 0;
}

/* chunk_size: whole logical blocks, and at most HB_JOB_MAX_PIECES SQEs */
static int check_chunk(struct hb_jobplan *p)
{
	uint64_t n;
	int ret;

	p->max_pieces = 1;
	if (p->chunk_size > JOB_SIZE_SANE)
		return hb_seterr(EINVAL, "chunk_size=%lld is negative or too "
				 "large: use a positive size such as 1M, or 0 "
				 "for off", (long long)p->chunk_size);
	if (!p->chunk_size)
		return 0;
	n = (p->max_bs + p->chunk_size - 1) / p->chunk_size;
	ret = hbi_check_dio_multiple("chunk_size", p->chunk_size,
				    p->dio_align);
	if (ret)
		return ret;
	if (n > HB_JOB_MAX_PIECES)
		return hb_seterr(EINVAL, "chunk_size=%llu splits bs=%llu into "
				 "%llu pieces, at most %d are allowed: raise "
				 "chunk_size", (unsigned long long)p->chunk_size,
				 (unsigned long long)p->max_bs,
				 (unsigned long long)n, HB_JOB_MAX_PIECES);
	p->max_pieces = n;
	return 0;
}

/*
 * Lay slot i out at head + i * stride.  hbi_slot_stride() rounds max_bs up
 * to the folio size when it is at least one folio, else to a power of two
 * (which divides the folio): every buffer starts head bytes into a folio
 * or into a power-of-two block of one, and crosses no folio it does not
 * need.
 */
static int plan_layout(struct hb_jobplan *p)
{
	uint64_t max_len;
	int ret;

	p->dio_align = job_dio_align(p);
	p->stride = hbi_slot_stride(&p->b, p->max_bs);
	ret = check_bs(p);
	if (!ret)
		ret = check_head(p);
	if (ret)
		return ret;
	/* a region is one buffer: at most the kernel's limit (kmodel.c) */
	max_len = hb_kmodel_buf_len_max(&p->km, p->head);
	p->slots_per_region = p->layout == HB_JOB_PER_IO ? 1 :
			      hbi_slots_per_region(p->stride, p->depth,
						  max_len);
	p->nr_iovecs = (p->depth + p->slots_per_region - 1) /
		       p->slots_per_region;
	ret = check_nr_buffers(p);
	if (!ret)
		ret = check_vectored(p);
	if (!ret)
		ret = check_chunk(p);
	return ret;
}

/*
 * clone_buffers: IORING_REGISTER_CLONE_BUFFERS (6.12, 7cc2a6eadcd7)
 * clones a table of registered buffers between rings of one process.
 */
static int check_clone(const struct hb_jobplan *p)
{
	if (p->clone == HB_JOB_CLONE_OFF)
		return 0;
	if (!p->fixedbufs)
		return hb_seterr(EINVAL, "clone_buffers shares registered "
				 "buffers: drop fixedbufs=0 or clone_buffers");
	if (!p->threads)
		return hb_seterr(EINVAL, "clone_buffers needs thread (the jobs "
				 "must share one process); processes share "
				 "pages through backing=hugetlbfs:PATH instead");
	if (p->clone == HB_JOB_CLONE_SAME && p->verify)
		return hb_seterr(EINVAL, "clone_buffers=same puts every job on "
				 "the same buffers, so verify cannot hold: use "
				 "clone_buffers=split, or no verify");
	if (!p->job_name || strlen(p->job_name) >= HB_JOB_NAME_MAX)
		return hb_seterr(EINVAL, "clone_buffers: job name too long: use "
				 "at most %d bytes", HB_JOB_NAME_MAX - 1);
	return 0;
}

/*
 * Everything allocating and registering the layout needs (pool,
 * THP/mTHP, memlock as the kernel will charge it): lib's one preflight,
 * over the same slot layout the engine registers.
 */
static int check_resources(struct hb_jobplan *p)
{
	struct hb_bufset plan = {
		.backing = p->b,
		.registered = p->fixedbufs,
	};
	uint64_t ours = (uint64_t)(p->depth - 1) * p->stride + p->max_bs;
	char bk[HB_BACKING_STR_MAX], msg[512];
	struct iovec *iov = NULL;
	struct hb_sysinfo si;
	unsigned int nr = 0;
	int ret;

	/*
	 * md_per_io_size: a metadata buffer per slot after the last slot's
	 * data, page aligned, in the same backing (not registered: the
	 * kernel maps metadata per command, bio_integrity_map_user())
	 */
	p->md_off = 0;
	if (p->md_per_io_size) {
		p->md_off = (ours + HB_PAGE_SIZE - 1) &
			    ~(uint64_t)(HB_PAGE_SIZE - 1);
		ours = p->md_off + (uint64_t)p->depth * p->md_per_io_size;
	}
	p->len = ours > p->min_len ? ours : p->min_len;
	plan.map_len = hbi_map_len(&p->b, p->len, p->head);
	ret = hb_sysinfo_read(&si);
	if (!ret)
		ret = hb_slot_iovecs(p->head, p->depth, p->stride, p->max_bs,
				     p->slots_per_region, &iov, &nr);
	if (!ret) {
		plan.iov = iov;
		plan.nr_iov = nr;
		ret = hbi_preflight(&si, &p->km, &plan);
	}
	free(iov);
	if (!ret)
		return 0;
	hb_backing_str(&p->b, bk, sizeof(bk));
	snprintf(msg, sizeof(msg), "%s", hb_errmsg());
	return hb_seterr(ret, "backing=%s, iodepth=%u x bs=%llu: %s", bk,
			 p->depth, (unsigned long long)p->max_bs, msg);
}

int hb_jobplan_check(struct hb_jobplan *p)
{
	int ret;

	p->pt_direct_ignored = false;
	if (!p->depth || !p->max_bs)
		return hb_seterr(EINVAL, "a job plan needs iodepth and bs of "
				 "at least 1");
	ret = check_registerfiles(p);
	if (!ret)
		ret = hb_kmodel_running(&p->km);
	if (!ret)
		ret = check_cmd_type(p);
	if (!ret)
		ret = check_passthrough(p);
	if (!ret)
		ret = check_nvme_extras(p);
	if (!ret)
		ret = plan_backing(p);
	if (!ret)
		ret = plan_contig(p);
	if (!ret)
		ret = plan_head(p);
	if (!ret)
		ret = check_atomic(p);
	if (!ret)
		ret = plan_layout(p);
	if (!ret)
		ret = check_clone(p);
	if (!ret)
		ret = check_resources(p);
	return ret;
}
