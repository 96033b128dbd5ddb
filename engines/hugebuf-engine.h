/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Private to the engine: its options (engines/options.c) and what they
 * mean for the buffer plan, shared with the fio glue in engines/hugebuf.c.
 */
#ifndef HUGEBUF_ENGINE_H
#define HUGEBUF_ENGINE_H

#include "fio.h"
#include "optgroup.h"
#include "engines/cmdprio.h"

#include <liburing.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/uio.h>

/*
 * Everything declared from here on -- lib's API and the engine's own
 * functions across its files -- is hidden in engines/hugebuf.so: the
 * engine's calls into them bind inside the engine, not through the PLT,
 * and fio sees only the ops symbol (ioengine, made visible where it is
 * defined).  fio's and the C library's headers come first: what they
 * declare lives outside the engine.
 */
#pragma GCC visibility push(hidden)

#include "hugebuf.h"
#include "hugebuf-job.h"

#define HBE_LOG_PREFIX	"hugebuf: "

/* the option values are lib's plan values: no translation table */
enum hbe_layout {
	HBE_LAYOUT_PER_IO = HB_JOB_PER_IO,	/* one registered buffer per io_u */
	HBE_LAYOUT_REGION = HB_JOB_REGION,	/* io_us in <= 1 GiB regions */
};

enum hbe_clone {
	HBE_CLONE_OFF = HB_JOB_CLONE_OFF,
	HBE_CLONE_SPLIT = HB_JOB_CLONE_SPLIT,	/* a slice of one table per job */
	HBE_CLONE_SAME = HB_JOB_CLONE_SAME,	/* all jobs on the same buffers */
};

enum hbe_check {
	HBE_CHECK_OFF = HB_JOB_CHECK_OFF,
	HBE_CHECK_WARN = HB_JOB_CHECK_WARN,
	HBE_CHECK_REQUIRE = HB_JOB_CHECK_REQUIRE,
};

/*
 * fio 3.41 (ioengine ops version 39) has these options in its io_uring
 * and io_uring_cmd engines that 3.33 has not: NVMe FUA, write and verify
 * command variants, the deallocate bit, metadata and protection
 * information.  Built against such a fio, the engine takes them under the
 * same names (engines/options.c says what each does here).
 */
#if FIO_IOOPS_VERSION >= 39
#define HBE_FIO_341_OPTIONS 1
enum {
	HBE_WMODE_WRITE = 1,
	HBE_WMODE_UNCOR,
	HBE_WMODE_ZEROES,
	HBE_WMODE_VERIFY,
};
enum { HBE_VMODE_READ = 1, HBE_VMODE_COMPARE };
#endif

struct hbe_options {
	void *pad;		/* fio stores the thread_data pointer here */
	/* ours */
	char *backing;		/* NULL: hugetlb, or what mem= says */
	char *hugepage_size;
	unsigned int contig;		/* enum hb_contig_mode */
	unsigned int layout;
	unsigned long long head_offset;
	unsigned int defer_taskrun;
	unsigned int defer_taskrun_given;	/* set by the job */
	unsigned long long chunk_size;
	unsigned int vec_iovecs;	/* READV/WRITEV_FIXED with N iovecs */
	unsigned int clone_buffers;	/* numjobs share one registered table */
	unsigned int atomic_writes;	/* RWF_ATOMIC on every write */
	unsigned long long vec_offset;	/* cuts moved this far into folios */
	unsigned int coalesce_check;
	unsigned int report;
	char *report_json;
	/* fio's io_uring engine, same names, types and meaning */
	unsigned int hipri;
	unsigned int fixedbufs;
	unsigned int registerfiles;
	unsigned int sqpoll;		/* sqthread_poll */
	unsigned int sqpoll_cpu;	/* sqthread_poll_cpu */
	unsigned int sqpoll_cpu_set;
	int nonvectored;
	unsigned int uncached;
	unsigned int nowait;
	unsigned int force_async;
	struct cmdprio_options cmdprio_options;
	/* fio's io_uring_cmd: "nvme" (passthrough); unset: by the files */
	char *cmd_type;
#ifdef HBE_FIO_341_OPTIONS
	/* fio 3.41's io_uring and io_uring_cmd options (engines/options.c) */
	unsigned int readfua;
	unsigned int writefua;
	unsigned int write_mode;	/* HBE_WMODE_* */
	unsigned int verify_mode;	/* HBE_VMODE_* */
	unsigned int deac;
	unsigned int md_per_io_size;
	unsigned int pi_act;
	char *pi_chk;
	unsigned int apptag;
	unsigned int apptag_mask;
#endif
};

/* what the options ask of the ring and of every SQE */
struct hbe_uring_opts {
	bool vectored;		/* READV/WRITEV for non-fixed I/O */
	int rw_flags;		/* RWF_* on every read/write SQE */
	int write_flags;	/* RWF_* on writes only (RWF_ATOMIC) */
	/*
	 * RWF_ATOMIC with registered buffers where the kernel takes it only
	 * from user memory: writes go IORING_OP_WRITE from the same buffers
	 */
	bool write_unreg;
	unsigned int force_async; /* IOSQE_ASYNC on every Nth SQE */
};

extern struct fio_option hbe_option_table[];

/* An info line: stdout as log_info(), stderr when stdout must stay JSON. */
void hbe_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * What the plan's inputs point at while it is checked: fio's mem= in
 * lib's words and the job's file names.  Freed after the check.
 */
struct hbe_plan_strings {
	char mem_name[PATH_MAX + 16];	/* "mmaphuge:/mnt/f" */
	char mem_kind[PATH_MAX + 16];	/* "hugetlbfs:/mnt/f" */
	char mem_refused[PATH_MAX * 2 + 160];	/* why mem= cannot be */
	const char **files;
};

/*
 * Translate the job's options (ours and fio's) into lib's plan, once:
 * no checks here, hb_jobplan_check() has every rule.  fio's mem=,
 * hugepage-size and iomem_align map onto the same backings and head
 * offset as backing=, hugepage_size= and head_offset=.
 */
int hbe_options_plan(struct thread_data *td, struct hbe_options *o,
		     struct hb_jobplan *p, struct hbe_plan_strings *ps);
/* after a passing check: mem= is the backing, not fio's allocator's */
void hbe_options_took_mem(struct thread_data *td);
/*
 * nonvectored, uncached, nowait, force_async, atomic_writes for the
 * running kernel (the checked plan's model): kernel dependent ones say
 * in one line what they do.
 */
void hbe_options_uring(struct thread_data *td, struct hbe_options *o,
		       const struct hb_jobplan *p, const unsigned char *act,
		       struct hbe_uring_opts *u);
/*
 * The io_uring features the job uses that some kernels lack, decided once
 * at init by lib's table (hb_ringfeat_decide()): @act gets what to do with each
 * (enum hb_ringfeat_act).  Fallbacks say in one line what the engine does
 * instead; a feature the job asked for and the kernel lacks is the job's
 * one-line error (non-zero return).
 */
int hbe_options_features(struct hbe_options *o, const struct hb_jobplan *p,
			 bool odirect, unsigned char *act);
/* atomic_writes: the file must take the job's write sizes untorn. */
int hbe_check_atomic_file(struct thread_data *td, const char *path);

struct hbe_slot;
struct hbe_share;

/*
 * struct io_uring_attr_pi (include/uapi/linux/io_uring.h, newer than the
 * C library's): a read's or write's metadata buffer (engines/meta.c)
 */
struct hbe_attr_pi {
	uint16_t flags;		/* IO_INTEGRITY_CHK_* */
	uint16_t app_tag;
	uint32_t len;
	uint64_t addr;
	uint64_t seed;		/* the reference tag's first LBA */
	uint64_t rsvd;
};

/* One SQE's worth of an io_u: what is left to transfer. */
struct hbe_piece {
	struct hbe_slot *slot;
	unsigned long long off;	/* file offset */
	char *addr;
	unsigned long long len;
	struct iovec iov;	/* nonvectored=0: READV/WRITEV of one */
	struct iovec *viov;	/* vec_iovecs: the cut of this piece */
	struct hbe_attr_pi pi;	/* md_per_io_size without passthrough */
};

/*
 * pi_chk's names, as fio 3.41 reads them (a substring each), in the bits
 * of the kernel's IO_INTEGRITY_CHK_* (include/uapi/linux/fs.h)
 */
enum {
	HBE_PI_CHK_GUARD = 1 << 0,
	HBE_PI_CHK_REFTAG = 1 << 1,
	HBE_PI_CHK_APPTAG = 1 << 2,
};

static inline unsigned int hbe_pi_chk(const char *s)
{
	if (!s)
		return 0;
	return (strstr(s, "GUARD") ? HBE_PI_CHK_GUARD : 0) |
	       (strstr(s, "REFTAG") ? HBE_PI_CHK_REFTAG : 0) |
	       (strstr(s, "APPTAG") ? HBE_PI_CHK_APPTAG : 0);
}

/* md_per_io_size without passthrough (engines/meta.c) */
/* pi_chk's checks as lib's fields of the tuple (hb_pi_fill(3)) */
static inline unsigned int hbe_pi_fields(unsigned int chk)
{
	return (chk & HBE_PI_CHK_GUARD ? HB_PI_GUARD : 0) |
	       (chk & HBE_PI_CHK_REFTAG ? HB_PI_REFTAG : 0) |
	       (chk & HBE_PI_CHK_APPTAG ? HB_PI_APPTAG : 0);
}

struct hbe_meta {
	bool on;
	char *md;		/* the slots' metadata, @per_io apart */
	unsigned int per_io;
	unsigned int interval;	/* bytes of data per metadata unit */
	unsigned int shift;	/* log2(@interval) */
	unsigned int ms;	/* metadata bytes per unit */
	uint64_t len;		/* metadata of the largest I/O */
	uint16_t flags;		/* IO_INTEGRITY_CHK_* of pi_chk */
	uint16_t app_tag;
	/*
	 * pi_act=0: the engine fills the tuples of writes and checks those
	 * of reads (@checks, lib's HB_PI_*) in the format @pi
	 */
	bool host;
	unsigned int checks;
	struct hb_pi_fmt pi;
};

/*
 * Engine state of one io_u, found by io_u->index.  @tmpl is the SQE of
 * a whole read ([DDIR_READ]) or write ([DDIR_WRITE]) of this slot, made
 * once at post_init (opcode, flags, rw_flags, buf_index, user_data):
 * queue copies it and fills fd, offset, address, length and priority.
 * @fast: the io_u in flight is one such SQE, its piece not filled in
 * (hbe_fast_to_piece() fills it if the CQE is not the whole transfer).
 */
struct hbe_slot {
	struct io_uring_sqe tmpl[2];
	struct io_u *io_u;
	bool fast;
	unsigned int buf_index;	/* its registered buffer's index */
	unsigned int pending;	/* pieces in flight */
	unsigned int nr_pieces;
	unsigned long long done;
	int error;
	bool eof;
	struct hbe_piece *pieces;
	void *dsm;		/* passthrough trims: the DSM range list */
};

/*
 * NVMe passthrough (engines/nvme.c): the report's passthrough part, filled
 * in as the job opens its namespace and issues commands.  Allocated for
 * passthrough jobs only: hd->pt says the job is one.
 */
/*
 * The NVMe commands a passthrough job sends for its reads and writes
 * (fio 3.41's io_uring_cmd options, engines/nvme.c hbe_nvme_modes()).
 */
struct hbe_pt_cmd {
	uint8_t write_op;	/* Write, Write Uncorrectable/Zeroes, Verify */
	bool write_data;	/* the write command carries the io_u's data */
	bool compare;		/* verify-phase reads are NVMe Compare */
	uint32_t cdw12[2];	/* FUA, DEAC: [DDIR_READ], [DDIR_WRITE] */
	uint32_t prinfo;	/* PRACT and PRCHK (cdw12 bits 29:26) */
	uint32_t cdw15;		/* application tag mask and tag */
	unsigned int pi_checks;	/* pi_chk's fields in lib's HB_PI_* */
	char *md;		/* the slots' metadata, md_per_io apart */
	unsigned int md_per_io;
};

struct hbe_pt_stats {
	char dev[PATH_MAX + 48];	/* "/dev/ng0n1 nsid 1, 512-byte LBAs" */
	struct hbe_pt_cmd cmd;
	struct hb_queue_limits lim;	/* r.lim points here once known */
	struct hb_pt_report r;
	bool status_said, einval_said;
};

/* What the I/O path (queue, commit, getevents, event) reads and writes. */
struct hbe_data {
	struct io_uring ring;
	bool ring_ok;
	bool ring_fd_registered;	/* in this thread's table (share.c) */
	unsigned char uf[HB_FEAT_NR];	/* hbe_options_features() */
	bool defer_taskrun;
	bool taskrun_flag;	/* IORING_SQ_TASKRUN says work is waiting */
	bool sqpoll;
	bool iopoll;
	struct hbe_uring_opts u;
	unsigned int prepped;		/* SQEs since the last IOSQE_ASYNC */
	/*
	 * fast: reads and writes go out as one SQE from the slot's template
	 * (no chunk_size, vec_iovecs, passthrough, nonvectored=0 READV or
	 * force_async; hbe_fast_ok()); the others through pieces
	 */
	bool fast;
	bool fixed_files;		/* registerfiles: fd is f->fileno */
	struct cmdprio cmdprio;
	struct hbe_slot *slots;
	unsigned int depth;
	unsigned int max_pieces;	/* per slot: chunk_size's, num_range */
	unsigned int buf_index_base;	/* whole-table clone (6.12) */
	/* io_us queued since the last commit, for issue_time */
	struct io_u **queued;
	unsigned int nr_queued;
	unsigned int sqes_pending;	/* prepared but not submitted */
	/* completed io_us waiting for ->event() */
	struct io_u **events;
	unsigned int nr_events;
	struct hbe_pt_stats *pt;	/* NULL: not passthrough */
	struct hbe_meta meta;
	/* md_per_io_size: the model's metadata mapping, once @md_on */
	struct hb_md_report md;
	bool md_on;
	/* trims (engines/trim.c): per file, through io_uring or not */
	bool *trim_async;
	unsigned int nr_trim_files;
	bool trim_sync_said;
	unsigned long long trim_ios, trim_cmds, trim_sync;
	/* writes sent unregistered (hd->u.write_unreg) */
	unsigned long long unreg_writes;
	/* the job beyond the I/O path: plan, buffers, findings (lib's) */
	struct hb_job *job;
	bool cmdprio_ok;
	bool reported;
	/* clone_buffers (engines/share.c) */
	struct hbe_share *share;
	unsigned int share_idx;		/* 0: the job that registers */
	struct hbe_options *o;	/* td->eo, which a forked job hides */
	bool eo_hidden;		/* hbe_options_hide() cleared td->eo */
};

static inline struct hbe_slot *hbe_slot_of(struct hbe_data *hd,
					   struct io_u *io_u)
{
	return &hd->slots[io_u->index];
}

/*
 * The piece machine (engines/pieces.c), for the I/O that is not one SQE
 * from a slot's template: queue an io_u as pieces, and reap the CQ from
 * its head whatever the results (short, -EAGAIN, errors resubmit or fail
 * their io_u).
 */
enum fio_q_status hbe_queue_pieces(struct thread_data *td,
				   struct hbe_data *hd, struct io_u *io_u);
/* the same for pieces set up by the caller (trims) */
void hbe_slot_start(struct hbe_slot *s, struct io_u *io_u, unsigned int n);
enum fio_q_status hbe_submit_slot(struct thread_data *td, struct hbe_data *hd,
				  struct io_u *io_u);
void hbe_reap_pieces(struct thread_data *td, struct hbe_data *hd,
		     unsigned int max);

/* The job's options, wherever they are (hbe_options_hide()). */
static inline struct hbe_options *hbe_opts(struct thread_data *td)
{
	struct hbe_data *hd = td->io_ops_data;

	return hd ? hd->o : td->eo;
}

/*
 * A forked job's td->eo is NULL from the start of init to the start of
 * cleanup, hd->o holding it: why in engines/options.c.
 */
void hbe_options_hide(struct thread_data *td, struct hbe_data *hd);
void hbe_options_restore(struct thread_data *td, struct hbe_data *hd);
/*
 * clone_buffers (engines/share.c): attach at init (the first job maps
 * every job's slice, the others wait for it); at post_init the first
 * registers every slice and the others clone their slice; detach at
 * cleanup (the last job unmaps).
 */
int hbe_share_attach(struct thread_data *td, struct hbe_data *hd);
int hbe_share_register(struct thread_data *td, struct hbe_data *hd);
void hbe_share_detach(struct hbe_data *hd);
/* cmd_type=nvme (engines/nvme.c) */
int hbe_nvme_file_size(struct thread_data *td, struct fio_file *f);
int hbe_nvme_open(struct thread_data *td, struct hbe_data *hd,
		  struct fio_file *f);
void hbe_nvme_free_files(struct thread_data *td);
void hbe_nvme_modes(struct thread_data *td, struct hbe_data *hd);
void hbe_nvme_md_place(struct hbe_data *hd);
/* zonemode=zbd: a zoned namespace's, fio's own code for other files */
int hbe_nvme_zoned_model(struct thread_data *td, struct fio_file *f,
			 enum zbd_zoned_model *model);
int hbe_nvme_max_open_zones(struct thread_data *td, struct fio_file *f,
			    unsigned int *max);
int hbe_nvme_report_zones(struct thread_data *td, struct fio_file *f,
			  uint64_t offset, struct zbd_zone *zbdz,
			  unsigned int nr_zones);
int hbe_nvme_reset_wp(struct thread_data *td, struct fio_file *f,
		      uint64_t offset, uint64_t length);
int hbe_nvme_prep(struct thread_data *td, struct hbe_data *hd,
		  struct io_uring_sqe *sqe, int fd, struct hbe_piece *pc,
		  bool fixed, unsigned int buf_index);
int hbe_nvme_result(struct hbe_data *hd, struct hbe_piece *pc, int res);
void hbe_pi_said(const char *file, const struct hb_pi_err *e);

/*
 * Trims (engines/trim.c), built for fio 3.41: the kernel's discard
 * command or NVMe Dataset Management through the ring, fio's synchronous
 * trim where the kernel has no such command (asked at open).  Built for
 * fio 3.33 trims are fio's synchronous ones (FIO_ASYNCIO_SYNC_TRIM).
 */
#ifdef HBE_FIO_341_OPTIONS
int hbe_trim_alloc(struct thread_data *td, struct hbe_data *hd);
void hbe_trim_open(struct thread_data *td, struct hbe_data *hd,
		   struct fio_file *f);
bool hbe_trim_queue(struct thread_data *td, struct hbe_data *hd,
		    struct io_u *io_u, enum fio_q_status *st);
void hbe_trim_prep(struct thread_data *td, struct hbe_data *hd,
		   struct io_uring_sqe *sqe, int fd, struct hbe_piece *pc,
		   uint32_t nsid, unsigned int lba_shift);
void hbe_trim_report(struct hbe_data *hd);
#else
static inline int hbe_trim_alloc(struct thread_data *td, struct hbe_data *hd)
{
	(void)td;
	(void)hd;
	return 0;
}

static inline void hbe_trim_open(struct thread_data *td, struct hbe_data *hd,
				 struct fio_file *f)
{
	(void)td;
	(void)hd;
	(void)f;
}

/* never called: fio does a 3.33 build's trims */
static inline void hbe_trim_prep(struct thread_data *td, struct hbe_data *hd,
				 struct io_uring_sqe *sqe, int fd,
				 struct hbe_piece *pc, uint32_t nsid,
				 unsigned int lba_shift)
{
	(void)td;
	(void)hd;
	(void)sqe;
	(void)fd;
	(void)pc;
	(void)nsid;
	(void)lba_shift;
}

static inline void hbe_trim_report(struct hbe_data *hd)
{
	(void)hd;
}
#endif

/* md_per_io_size without passthrough (engines/meta.c), fio 3.41 */
#ifdef HBE_FIO_341_OPTIONS
int hbe_meta_init(struct thread_data *td, struct hbe_data *hd);
int hbe_meta_open(struct thread_data *td, struct hbe_data *hd,
		  struct fio_file *f);
void hbe_meta_predict(struct hbe_data *hd);
void hbe_meta_prep(struct hbe_data *hd, struct io_uring_sqe *sqe,
		   struct hbe_piece *pc);
int hbe_meta_result(struct hbe_data *hd, struct hbe_piece *pc, int res);
#else
static inline int hbe_meta_init(struct thread_data *td, struct hbe_data *hd)
{
	(void)td;
	(void)hd;
	return 0;
}

static inline int hbe_meta_open(struct thread_data *td, struct hbe_data *hd,
				struct fio_file *f)
{
	(void)td;
	(void)hd;
	(void)f;
	return 0;
}

static inline void hbe_meta_predict(struct hbe_data *hd)
{
	(void)hd;
}

static inline void hbe_meta_prep(struct hbe_data *hd,
				 struct io_uring_sqe *sqe, struct hbe_piece *pc)
{
	(void)hd;
	(void)sqe;
	(void)pc;
}

static inline int hbe_meta_result(struct hbe_data *hd, struct hbe_piece *pc,
				  int res)
{
	(void)hd;
	(void)pc;
	return res;
}
#endif

/* engines/report.c: the notes and the job-end report */
/* What the kernel is (version and behaviour), said once per process. */
void hbe_note_kernel(void);
/* One line at init when experimental_verify cannot verify this job. */
void hbe_warn_replay(struct thread_data *td);
/* The job-end report through lib's writer (text and report_json). */
void hbe_report(struct thread_data *td, struct hbe_data *hd);

#pragma GCC visibility pop

#endif
