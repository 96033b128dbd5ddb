// SPDX-License-Identifier: GPL-2.0-only
/*
 * hugebuf: fio external ioengine for io_uring fixed (registered) buffers on
 * hugepages.
 *
 *   fio --ioengine=external:/path/hugebuf.so --backing=hugetlb ...
 *   fio --enghelp=/path/hugebuf.so
 *
 * The engine is fio's glue around lib's job object (hugebuf-job.h), which
 * owns the I/O buffers: it allocates them folio aligned, lays io_u i out
 * at base + head_offset + i * stride (lib/model/layout.c hbi_slot_stride():
 * max_bs rounded up to the folio size when it is at least one folio, else
 * to a power of two), registers them (one iovec per io_u, or a few <= 1 GiB
 * regions), and reports what the running kernel makes of them (lib/'s
 * model over the probed page map).  The engine keeps fio's options, the
 * ring and the I/O hooks; the piece machine is engines/pieces.c.
 *
 * ->init is one pass: fio's options become lib's job plan, lib checks it
 * whole (hb_jobplan_check(), one line for any problem), then allocates;
 * ->post_init: lib's job prepares the buffers, the engine makes the ring,
 * lib's job registers them in it.
 *
 * Built against the configured source tree of the fio it loads into.
 * fio 3.33 (FIO_IOOPS_VERSION 31) is the reference; newer ABIs are handled
 * by the FIO_IOOPS_VERSION conditionals below.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include <liburing.h>

#include "hugebuf-engine.h"
#include "base/uring-compat.h"
#include "enter.h"

#include "verify.h"

/*
 * What the commit calls once per commit or per io_u, through the GOT
 * rather than a PLT stub (one jump less each; fio binds them at load
 * with -rdynamic; io_uring_enter() likewise: enter.h).
 */
extern void fio_gettime(struct timespec *, void *) __attribute__((noplt));
extern void io_u_queued(struct thread_data *, struct io_u *)
	__attribute__((noplt));
extern void io_u_mark_submit(struct thread_data *, unsigned int)
	__attribute__((noplt));

/*
 * fio 3.36 (519fb6da) took engine_data out of the union with io_u->index;
 * up to then (3.33 = ops version 31, 3.34/3.35 = 32) the two share storage,
 * so a pointer in engine_data would overwrite the index fio and we use as
 * the slot and buffer number.  Ops version 33 is the first with the split.
 */
#if FIO_IOOPS_VERSION >= 33
#define HBE_ENGINE_DATA_FREE	1
#else
#define HBE_ENGINE_DATA_FREE	0
#endif

/* ------------------------------------------------------------------ */
/* init: translate, check, allocate                                    */
/* ------------------------------------------------------------------ */

static void hbe_free_data(struct hbe_data *hd)
{
	unsigned int i;

	if (!hd)
		return;
	if (hd->ring_ok)
		io_uring_queue_exit(&hd->ring);
	if (hd->cmdprio_ok)
		fio_cmdprio_cleanup(&hd->cmdprio);
	hb_job_free(hd->job);
	for (i = 0; hd->slots && i < hd->depth; i++) {
		if (hd->slots[i].pieces)
			free(hd->slots[i].pieces[0].viov);
		free(hd->slots[i].pieces);
		free(hd->slots[i].dsm);
	}
	free(hd->trim_async);
	free(hd->slots);
	free(hd->queued);
	free(hd->events);
	free(hd->pt);
	free(hd);
}

/*
 * The one verdict: fio's options in lib's words (engines/options.c), and
 * lib's check of the whole plan.  The plan's inputs point into @ps and at
 * fio's option strings: only the results are read after this.
 */
static int hbe_check_plan(struct thread_data *td, struct hb_jobplan *p)
{
	struct hbe_plan_strings *ps;
	int ret;

	ps = calloc(1, sizeof(*ps));
	if (!ps)
		return -ENOMEM;
	ret = hbe_options_plan(td, hbe_opts(td), p, ps);
	if (!ret) {
		ret = hb_jobplan_check(p);
		/* as before the error, which may be a later option's */
		if (p->pt_direct_ignored)
			hbe_note(HBE_LOG_PREFIX "direct=1 does not apply to "
				 "NVMe passthrough: the char device is opened "
				 "without O_DIRECT\n");
	}
	if (ret)
		log_err(HBE_LOG_PREFIX "%s\n", hb_errmsg());
	p->files = NULL;
	p->mem_name = p->mem_kind = p->mem_refused = NULL;
	free(ps->files);
	free(ps);
	return ret;
}

/* The I/O path's copy of what the plan decided. */
static int hbe_take_plan(struct hbe_data *hd)
{
	const struct hb_jobplan *p = &hd->job->plan;

	hd->depth = p->depth;
	if (p->passthrough) {
		hd->pt = calloc(1, sizeof(*hd->pt));
		if (!hd->pt)
			return -ENOMEM;
	}
	return 0;
}

/*
 * Pieces per slot: chunk_size's (the plan's), or a discard command per
 * range of a trim with num_range (engines/trim.c).
 */
static unsigned int hbe_slot_pieces(struct thread_data *td,
				    const struct hbe_data *hd)
{
	unsigned int pieces = hd->job->plan.max_pieces;

#ifdef HBE_FIO_341_OPTIONS
	if (td_trim(td) && !hd->pt && td->o.num_range > pieces)
		pieces = td->o.num_range;
#else
	(void)td;
#endif
	return pieces;
}

/* The engine's tables: a slot per io_u, its pieces and vectored cuts. */
static int hbe_alloc_slots(struct thread_data *td, struct hbe_data *hd)
{
	unsigned int i, pieces = hbe_slot_pieces(td, hd);
	unsigned int vec_n = hd->job->plan.vec_iovecs;

	hd->max_pieces = pieces;

	hd->slots = calloc(hd->depth, sizeof(*hd->slots));
	hd->queued = calloc(hd->depth, sizeof(*hd->queued));
	hd->events = calloc(hd->depth, sizeof(*hd->events));
	if (!hd->slots || !hd->queued || !hd->events)
		return -ENOMEM;
	for (i = 0; i < hd->depth; i++) {
		hd->slots[i].pieces = calloc(pieces, sizeof(struct hbe_piece));
		if (!hd->slots[i].pieces)
			return -ENOMEM;
		/* vec_iovecs: one piece per io_u, cut into iovecs */
		if (vec_n) {
			hd->slots[i].pieces[0].viov =
				calloc(vec_n, sizeof(struct iovec));
			if (!hd->slots[i].pieces[0].viov)
				return -ENOMEM;
		}
	}
	return hbe_trim_alloc(td, hd);
}

/* The buffers: our own mapping, or this job's slice of a shared one. */
static int hbe_alloc_buffers(struct thread_data *td, struct hbe_data *hd)
{
	if (hd->job->plan.clone != HB_JOB_CLONE_OFF)
		return hbe_share_attach(td, hd);
	return hb_job_alloc(hd->job);
}

/* lib's job says its lines through here: errors as fio's, notes as ours */
static void hbe_say(void *arg, bool error, const char *line)
{
	(void)arg;
	if (error)
		log_err(HBE_LOG_PREFIX "%s\n", line);
	else
		hbe_note(HBE_LOG_PREFIX "%s\n", line);
}

static int hbe_init(struct thread_data *td)
{
	struct hbe_options *o = td->eo;
	struct hbe_data *hd;
	int ret;

	/* as fio's io_uring: SQPOLL before 5.11 needed registered files */
	if (o->sqpoll)
		o->registerfiles = 1;

	hd = calloc(1, sizeof(*hd));
	if (!hd)
		return 1;
	td->io_ops_data = hd;
	hd->o = o;
	/* before anything slow: the kernel probe below takes its time */
	hbe_options_hide(td, hd);
	hd->job = hb_job_new(hbe_say, NULL);
	if (!hd->job)
		goto nomem;

	/* check: one pass over the whole plan, nothing allocated yet */
	ret = hbe_check_plan(td, &hd->job->plan);
	if (!ret)
		ret = hbe_options_features(o, &hd->job->plan, td->o.odirect,
					   hd->uf);
	if (ret)
		goto fail;
	if (fio_cmdprio_init(td, &hd->cmdprio, &o->cmdprio_options)) {
		ret = -EINVAL;
		goto fail;
	}
	hd->cmdprio_ok = true;
	hbe_options_took_mem(td);
	hbe_options_uring(td, o, &hd->job->plan, hd->uf, &hd->u);

	/* allocate: the engine's tables, then the buffers */
	ret = hbe_take_plan(hd);
	if (!ret && hd->pt)
		hbe_nvme_modes(td, hd);
	if (!ret)
		ret = hbe_alloc_slots(td, hd);
	if (ret == -ENOMEM)
		goto nomem;
	ret = hbe_alloc_buffers(td, hd);
	if (ret)
		goto fail;
	if (hd->pt)
		hbe_nvme_md_place(hd);
	ret = hbe_meta_init(td, hd);
	if (ret)
		goto fail;
	hbe_warn_replay(td);
	hbe_note_kernel();
	return 0;
nomem:
	ret = -ENOMEM;
	log_err(HBE_LOG_PREFIX "out of memory for the engine's tables\n");
fail:
	td_verror(td, ret < 0 ? -ret : ENOMEM, "hugebuf init");
	hbe_options_restore(td, hd);
	hbe_free_data(hd);
	td->io_ops_data = NULL;
	return 1;
}

#if HBE_ENGINE_DATA_FREE
static int hbe_io_u_init(struct thread_data *td, struct io_u *io_u)
{
	struct hbe_data *hd = td->io_ops_data;

	hbe_slot_of(hd, io_u)->io_u = io_u;
	io_u->engine_data = hbe_slot_of(hd, io_u);
	return 0;
}
#else
static int hbe_io_u_init(struct thread_data *td, struct io_u *io_u)
{
	struct hbe_data *hd = td->io_ops_data;

	/* 3.33: engine_data aliases io_u->index; leave both alone */
	hbe_slot_of(hd, io_u)->io_u = io_u;
	return 0;
}
#endif

/* fio's buffer allocation hook: hand over what init allocated. */
static int hbe_iomem_alloc(struct thread_data *td, size_t total_mem)
{
	struct hbe_data *hd = td->io_ops_data;
	struct hb_job *j = hd ? hd->job : NULL;

	if (!j || !j->map)
		return 1;
	if (total_mem > j->map_len) {
		log_err(HBE_LOG_PREFIX "fio wants %zu bytes of buffers, the "
			"engine planned %llu: this fio carves buffers "
			"differently, please report it\n", total_mem,
			(unsigned long long)j->map_len);
		return 1;
	}
	td->orig_buffer = j->map;
	return 0;
}

static void hbe_iomem_free(struct thread_data *td)
{
	/* the mapping is released with the ring in cleanup */
	td->orig_buffer = NULL;
}

/* ------------------------------------------------------------------ */
/* post_init: place the io_us, lib prepares, ring, lib registers       */
/* ------------------------------------------------------------------ */

/* io_u i at slice + head + i * stride: the plan's layout (lib's too). */
static void hbe_place_io_us(struct thread_data *td, struct hbe_data *hd)
{
	const struct hb_jobplan *p = &hd->job->plan;
	char *base = hd->job->map + p->head;
	unsigned int i;

	for (i = 0; i < hd->depth; i++) {
		struct io_u *io_u = hd->slots[i].io_u;

		io_u->buf = base + (uint64_t)i * p->stride;
		/*
		 * init_io_u_buffers() filled fio's own carving; fill ours
		 * the same way so writes carry the same kind of data.
		 */
		if (td_write(td)) {
			io_u_fill_buffer(td, io_u, td->o.min_bs[DDIR_WRITE],
					 p->max_bs);
#if FIO_IOOPS_VERSION == 31
			if (td->o.verify_pattern_bytes)
				fill_verify_pattern(td, io_u->buf, p->max_bs,
						    io_u, 0, 0);
#endif
		}
	}
}

/*
 * registerfiles: a table of nr_files empty slots, filled at open
 * (hbe_open_file()).  IORING_RSRC_REGISTER_SPARSE where the kernel has it;
 * elsewhere the same table as -1 entries of IORING_REGISTER_FILES, which
 * every kernel since 5.5 takes as empty slots (init decided which, and
 * said so).
 */
static int hbe_register_files(struct thread_data *td, struct hbe_data *hd)
{
	unsigned int i, nr = td->o.nr_files;
	int *fds, ret;

	if (hd->uf[HB_FEAT_FILES_SPARSE] != HB_FEAT_FALLBACK)
		return io_uring_register_files_sparse(&hd->ring, nr);
	fds = malloc(nr * sizeof(*fds));
	if (!fds)
		return -ENOMEM;
	for (i = 0; i < nr; i++)
		fds[i] = -1;
	ret = io_uring_register_files(&hd->ring, fds, nr);
	free(fds);
	return ret;
}

static int hbe_queue_init(struct thread_data *td, struct hbe_data *hd,
			 struct hbe_options *o)
{
	unsigned int pieces = hd->max_pieces;
	struct io_uring_params p;
	unsigned int entries, cq;
	int ret;

	/*
	 * Room for every piece of every io_u, so a queued io_u always fits
	 * (up to the cap; past it the SQ is flushed in ->queue): the engine
	 * never answers FIO_Q_BUSY for SQ space, which in fio 3.33 loses a
	 * mixed rw job's verify state (docs/engine-notes.md).
	 */
	entries = hd->depth * pieces;
	if (entries > 4096)
		entries = 4096;
	cq = hd->depth * pieces;
	if (cq < 2 * entries)
		cq = 2 * entries;

	memset(&p, 0, sizeof(p));
	p.flags = IORING_SETUP_CQSIZE | IORING_SETUP_CLAMP;
	p.cq_entries = cq;
	/* an NVMe command is 64 bytes in the SQE, its result 16 in the CQE */
	if (hd->pt)
		p.flags |= IORING_SETUP_SQE128 | IORING_SETUP_CQE32;
	if (o->hipri)
		p.flags |= IORING_SETUP_IOPOLL;
	if (o->sqpoll) {
		p.flags |= IORING_SETUP_SQPOLL;
		if (o->sqpoll_cpu_set) {
			p.flags |= IORING_SETUP_SQ_AFF;
			p.sq_thread_cpu = o->sqpoll_cpu;
		}
	} else if (hd->uf[HB_FEAT_DEFER_TASKRUN] == HB_FEAT_USE &&
		   !(hd->share && !hd->share_idx)) {
		/*
		 * Not on the ring others clone from: io_register_clone_buffers()
		 * refuses with -EEXIST a source ring whose submitter_task is
		 * another task (6.18, 2f076a453f75).
		 */
		/*
		 * TASKRUN_FLAG: the kernel sets IORING_SQ_TASKRUN while
		 * deferred completions wait, so a reap that finds the CQ
		 * empty knows without a syscall whether one would help.
		 */
		p.flags |= IORING_SETUP_SINGLE_ISSUER |
			   IORING_SETUP_DEFER_TASKRUN |
			   IORING_SETUP_TASKRUN_FLAG;
	}
	/*
	 * The flags are what init decided the kernel has (lib's probe and
	 * hb_ringfeat_decide()): no retry with fewer, which would fall back
	 * without saying so.
	 */
	ret = io_uring_queue_init_params(entries, &hd->ring, &p);
	if (ret) {
		if (ret == -ENOSYS)
			log_err(HBE_LOG_PREFIX "the kernel has no io_uring (or "
				"it is disabled: sysctl kernel.io_uring_disabled=0)\n");
		else if (ret == -ENOMEM)
			log_err(HBE_LOG_PREFIX "io_uring_setup: out of memory "
				"for a ring of %u entries (ulimit -l on "
				"kernels before 5.12)\n", entries);
		else if (ret == -EPERM)
			log_err(HBE_LOG_PREFIX "io_uring_setup not permitted "
				"(sysctl kernel.io_uring_disabled, or sqpoll "
				"as non-root before 5.11)\n");
		else
			log_err(HBE_LOG_PREFIX "io_uring_setup: %s\n",
				strerror(-ret));
		td_verror(td, -ret, "io_uring_queue_init");
		return 1;
	}
	hd->ring_ok = true;
	hd->defer_taskrun = p.flags & IORING_SETUP_DEFER_TASKRUN;
	hd->taskrun_flag = p.flags & IORING_SETUP_TASKRUN_FLAG;
	hd->sqpoll = p.flags & IORING_SETUP_SQPOLL;
	hd->iopoll = p.flags & IORING_SETUP_IOPOLL;
	/*
	 * As fio master's io_uring engine: io_uring_enter() by registered
	 * ring index, no fdget per call (5.18, e7a6c00dc77a).  Older kernels
	 * were told at init that they keep the plain fd; a kernel that has
	 * it and still refuses (16 rings per thread at most) says so here.
	 */
	if (hd->uf[HB_FEAT_RING_FD] == HB_FEAT_USE) {
		ret = io_uring_register_ring_fd(&hd->ring);
		hd->ring_fd_registered = ret == 1;
		if (ret != 1)
			hbe_note(HBE_LOG_PREFIX "registering the ring's fd "
				 "failed (%s): io_uring_enter() takes the "
				 "ring's file descriptor\n",
				 strerror(ret < 0 ? -ret : EINVAL));
	}

	if (o->registerfiles) {
		ret = hbe_register_files(td, hd);
		if (ret) {
			log_err(HBE_LOG_PREFIX "cannot register %u files: %s\n",
				td->o.nr_files, strerror(-ret));
			td_verror(td, -ret, "io_uring_register_files");
			return 1;
		}
	}
	return 0;
}

/*
 * The fast path applies to a job whose every read and write is one SQE
 * of the io_u's whole transfer: not cut by chunk_size or vec_iovecs, not
 * an NVMe command, not READV of one iovec (nonvectored=0 without
 * fixedbufs), without force_async's every-Nth flag and without a
 * metadata buffer (its attribute is per I/O).
 */
static bool hbe_fast_ok(const struct hbe_data *hd)
{
	struct hbe_options *o = hd->o;

	return !hd->pt && !hd->job->plan.vec_iovecs && !o->chunk_size &&
	       !(hd->u.vectored && !o->fixedbufs) && !hd->u.force_async &&
	       !hd->meta.on;
}

/*
 * Each slot's registered buffer (io_u i in buffer base + i / slots per
 * region: lib's hb_slot_iovecs() layout) and its SQE templates, once the
 * table is registered (clone_buffers sets buf_index_base then).  The
 * templates hold what hbe_prep_rw() would write for a whole read or write
 * that does not change from one I/O to the next.
 */
static void hbe_make_templates(struct hbe_data *hd)
{
	struct hbe_options *o = hd->o;
	unsigned int i, d, per_region = hd->job->plan.slots_per_region;

	hd->fast = hbe_fast_ok(hd) &&
		   hd->cmdprio.mode == CMDPRIO_MODE_NONE;
	hd->fixed_files = o->registerfiles;
	for (i = 0; i < hd->depth; i++) {
		struct hbe_slot *s = &hd->slots[i];

		s->buf_index = hd->buf_index_base + i / per_region;
		for (d = DDIR_READ; d <= DDIR_WRITE; d++) {
			struct io_uring_sqe *t = &s->tmpl[d];
			bool rd = d == DDIR_READ;

			memset(t, 0, sizeof(*t));
			if (o->fixedbufs && (rd || !hd->u.write_unreg)) {
				t->opcode = rd ? IORING_OP_READ_FIXED :
						 IORING_OP_WRITE_FIXED;
				t->buf_index = s->buf_index;
			} else {
				t->opcode = rd ? IORING_OP_READ :
						 IORING_OP_WRITE;
			}
			t->rw_flags = hd->u.rw_flags |
				      (rd ? 0 : hd->u.write_flags);
			if (o->registerfiles)
				t->flags = IOSQE_FIXED_FILE;
			io_uring_sqe_set_data(t, &s->pieces[0]);
		}
		s->pieces[0].slot = s;
	}
}

/* clone_buffers: the table is the share's (engines/share.c) */
static int hbe_register_table(void *td)
{
	return hbe_share_register(td, ((struct thread_data *)td)->io_ops_data);
}

/*
 * lib's job places, probes, models and judges the buffers; the engine
 * makes its ring; lib's job registers them in it.
 */
static int hbe_post_init(struct thread_data *td)
{
	static const char *const step[] = {
		[HB_JOB_STEP_LAYOUT] = "hugebuf layout",
		[HB_JOB_STEP_PROBE] = "hugebuf probe",
		[HB_JOB_STEP_VERDICT] = "coalesce_check=require",
	};
	struct hbe_data *hd = td->io_ops_data;
	struct hbe_options *o = hbe_opts(td);
	struct hb_job_prep how = {
		.coalesce_check = o->coalesce_check,
	};
	enum hb_job_step failed;
	int ret;

	if (!hd || !hd->job->map || td->error)
		return 1;
	hbe_place_io_us(td, hd);
	how.one_size = td->o.min_bs[DDIR_READ] == hd->job->plan.max_bs &&
		       td->o.max_bs[DDIR_READ] == hd->job->plan.max_bs;
	ret = hb_job_prepare(hd->job, &how, &failed);
	if (ret) {
		td_verror(td, -ret, step[failed]);
		return 1;
	}
	if (hbe_queue_init(td, hd, o))
		return 1;
	ret = hb_job_register(hd->job, &hd->ring,
			      hd->share ? hbe_register_table : NULL, td);
	if (ret) {
		if (!hd->share)
			td_verror(td, -ret, "io_uring_register_buffers");
		return 1;
	}
	hbe_make_templates(hd);
	return 0;
}

/* ------------------------------------------------------------------ */
/* files                                                               */
/* ------------------------------------------------------------------ */

static int hbe_open_file(struct thread_data *td, struct fio_file *f)
{
	struct hbe_data *hd = td->io_ops_data;
	struct hbe_options *o = hbe_opts(td);
	int ret;

	if (hd && hd->pt)
		ret = hbe_nvme_open(td, hd, f);
	else
		ret = generic_open_file(td, f);
	if (ret) {
		if (td->o.odirect && (td->error == EINVAL || errno == EINVAL))
			log_err(HBE_LOG_PREFIX "the file system of %s does not "
				"support O_DIRECT (direct=1): use a file on "
				"ext4/xfs or a block device, or direct=0\n",
				f->file_name);
		return ret;
	}
	if (!hd)
		return 0;
	if (o->atomic_writes && td_write(td) &&
	    hbe_check_atomic_file(td, f->file_name)) {
		td_verror(td, EINVAL, "atomic_writes");
		if (generic_close_file(td, f))
			log_err(HBE_LOG_PREFIX "closing %s failed too\n",
				f->file_name);
		return 1;
	}
	if (!hd->pt) {
		ret = hbe_meta_open(td, hd, f);
		if (ret) {
			td_verror(td, -ret, "md_per_io_size");
			if (generic_close_file(td, f))
				log_err(HBE_LOG_PREFIX "closing %s failed too\n",
					f->file_name);
			return 1;
		}
	}
	hb_job_file_opened(hd->job, f->file_name,
			   f->filetype == FIO_TYPE_CHAR);
	hbe_meta_predict(hd);
	hbe_trim_open(td, hd, f);
	if (o->registerfiles && hd->ring_ok) {
		ret = io_uring_register_files_update(&hd->ring, f->fileno,
						     &f->fd, 1);
		if (ret < 0) {
			log_err(HBE_LOG_PREFIX "cannot register %s: %s\n",
				f->file_name, strerror(-ret));
			td_verror(td, -ret, "io_uring_register_files_update");
			if (generic_close_file(td, f))
				log_err(HBE_LOG_PREFIX "closing %s failed too\n",
					f->file_name);
			return 1;
		}
	}
	return 0;
}

static int hbe_close_file(struct thread_data *td, struct fio_file *f)
{
	struct hbe_data *hd = td->io_ops_data;
	struct hbe_options *o = hbe_opts(td);

	if (hd && o->registerfiles && hd->ring_ok) {
		int none = -1;

		io_uring_register_files_update(&hd->ring, f->fileno, &none, 1);
	}
	return generic_close_file(td, f);
}

/* ------------------------------------------------------------------ */
/* I/O                                                                 */
/* ------------------------------------------------------------------ */

#ifdef HBE_FIO_341_OPTIONS
/* As fio 3.41's io_uring engines: through the ring (engines/trim.c). */
static enum fio_q_status hbe_trim(struct thread_data *td, struct hbe_data *hd,
				  struct io_u *io_u)
{
	enum fio_q_status st;

	if (hbe_trim_queue(td, hd, io_u, &st))
		return st;
	return hbe_submit_slot(td, hd, io_u);
}
#else
/*
 * As fio's io_uring and io_uring_cmd (3.33): a trim is done synchronously
 * by fio's own do_io_u_trim() (BLKDISCARD on a block device) once the I/O
 * queued before it has gone out; the engine is flagged
 * FIO_ASYNCIO_SYNC_TRIM so fio times it as synchronous.
 */
static enum fio_q_status hbe_trim(struct thread_data *td, struct hbe_data *hd,
				  struct io_u *io_u)
{
	if (hd->nr_queued)
		return FIO_Q_BUSY;
	do_io_u_trim(td, io_u);
	io_u_mark_submit(td, 1);
	io_u_mark_complete(td, 1);
	return FIO_Q_COMPLETED;
}
#endif

/* What is not the fast path: trims, cmdprio, pieces, a full SQ. */
static __attribute__((noinline)) enum fio_q_status
hbe_queue_slow(struct thread_data *td, struct hbe_data *hd, struct io_u *io_u)
{
	fio_ro_check(td, io_u);
	if (io_u->ddir == DDIR_TRIM)
		return hbe_trim(td, hd, io_u);
	io_u->ioprio = td->ioprio;
	if (hd->cmdprio.mode != CMDPRIO_MODE_NONE)
		fio_cmdprio_set_ioprio(td, &hd->cmdprio, io_u);
	return hbe_queue_pieces(td, hd, io_u);
}

/*
 * io_uring_get_sqe() for a fast ring: its SQEs are 64 bytes (SQE128 is
 * set for passthrough only, never fast: hbe_fast_ok()), so no shift by
 * the ring's flags; the kernel's SQ head read with acquire, as liburing
 * 2.3 does for SQPOLL, correct for any ring.  NULL: the SQ is full.
 */
static inline struct io_uring_sqe *hbe_get_sqe_fast(struct hbe_data *hd)
{
	struct io_uring_sq *sq = &hd->ring.sq;
	unsigned int tail = sq->sqe_tail;

	if (tail + 1 - io_uring_smp_load_acquire(sq->khead) > sq->ring_entries)
		return NULL;
	sq->sqe_tail = tail + 1;
	return &sq->sqes[tail & sq->ring_mask];
}

/*
 * The fast path (hd->fast, no cmdprio: hbe_make_templates()): the slot's
 * template with what changes per I/O, no call, no division.  A full SQ
 * (more pieces in flight than entries) goes the piece path, which
 * flushes it.
 */
static enum fio_q_status hbe_queue(struct thread_data *td, struct io_u *io_u)
{
	struct hbe_data *hd = td->io_ops_data;
	struct hbe_slot *s = hbe_slot_of(hd, io_u);
	struct fio_file *f = io_u->file;
	struct io_uring_sqe *sqe;

	/* a read or a write: fio's ddir_rw() counts DDIR_TRIM too */
	if (!hd->fast || io_u->ddir > DDIR_WRITE)
		return hbe_queue_slow(td, hd, io_u);
	fio_ro_check(td, io_u);
	sqe = hbe_get_sqe_fast(hd);
	if (!sqe)
		return hbe_queue_slow(td, hd, io_u);
	io_u->ioprio = td->ioprio;
	*sqe = s->tmpl[io_u->ddir];
	sqe->fd = hd->fixed_files ? (int)f->fileno : f->fd;
	sqe->off = io_u->offset;
	sqe->addr = (uintptr_t)io_u->xfer_buf;
	sqe->len = io_u->xfer_buflen;
	sqe->ioprio = io_u->ioprio;
	/* atomic writes unregistered: counted for the report */
	if (hd->u.write_unreg && io_u->ddir == DDIR_WRITE)
		hd->unreg_writes++;
	s->io_u = io_u;
	s->fast = true;
	hd->sqes_pending++;
	hd->queued[hd->nr_queued++] = io_u;
	return FIO_Q_QUEUED;
}

/*
 * FIO_ASYNCIO_SETS_ISSUE_TIME: the engine stamps issue_time when the I/O
 * goes to the kernel, and tells fio it was queued, so slat/clat are
 * measured from submission like fio's io_uring.  After the entry when it
 * only submits (as fio's io_uring); just before it when the same entry
 * also waits for a completion, whose wait belongs to clat.
 */
static inline __attribute__((always_inline)) void
hbe_mark_issued(struct thread_data *td, struct hbe_data *hd)
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

/*
 * CQEs to wait for in the entry that submits: when every io_u is in
 * flight fio's next step is to wait for completions (its queue is full:
 * backend.c wait_for_completions(), at least one, iodepth_batch_complete_min
 * if more), so the submission can wait for them in the same entry, as
 * fio's t/io_uring does.  Each io_u needs at least one CQE, so this never
 * waits longer than fio would.  Otherwise 0: fio may queue more first.
 */
static unsigned int hbe_commit_wait(struct thread_data *td,
				    struct hbe_data *hd)
{
	/*
	 * io_us queued and not returned by ->getevents: fio's count, read
	 * in ->commit before td_io_commit() moves io_u_queued into
	 * io_u_in_flight (ioengines.c)
	 */
	unsigned int inflight = td->io_u_in_flight + td->io_u_queued;
	unsigned int n;

	if (hd->sqpoll || inflight < td->o.iodepth)
		return 0;
	n = td->o.iodepth_batch_complete_min;
	if (!n)
		n = 1;
	return n < inflight ? n : inflight;
}

/*
 * The first entry (@ret) failed: retry what a later entry can do, so
 * that what is prepared goes out, waiting for @wait CQEs.
 */
static __attribute__((noinline)) int
hbe_submit_retry(struct hbe_data *hd, unsigned int wait, int ret)
{
	for (;;) {
		if (ret == -EAGAIN || ret == -EBUSY) {
			/*
			 * No room (the kernel short of requests): let task
			 * work post what completed, then retry.  Rare: the
			 * CQ holds every piece in flight.
			 */
			io_uring_get_events(&hd->ring);
			usleep(1);
		} else if (ret != -EINTR && ret != -ETIME) {
			return ret;
		}
		ret = hbe_enter(hd, wait);
		if (ret >= 0)
			return 0;
	}
}

/* out of line: the early return of hbe_commit() saves no registers */
static __attribute__((noinline)) int hbe_commit_submit(struct thread_data *td,
							struct hbe_data *hd)
{
	unsigned int wait;
	int ret;

	wait = hbe_commit_wait(td, hd);
	if (wait)
		hbe_mark_issued(td, hd);
	ret = hbe_enter(hd, wait);
	if (ret < 0)
		ret = hbe_submit_retry(hd, wait, ret);
	if (ret < 0) {
		td_verror(td, -ret, "io_uring_submit");
		return ret;
	}
	if (!wait)
		hbe_mark_issued(td, hd);
	return 0;
}

/* fio's td_io_getevents() commits before it reaps: mostly nothing to do */
static int hbe_commit(struct thread_data *td)
{
	struct hbe_data *hd = td->io_ops_data;

	if (!hd->nr_queued && !hd->sqes_pending)
		return 0;
	return hbe_commit_submit(td, hd);
}

/*
 * What the CQ holds, up to @max completed io_us: no syscall, and one
 * store of the CQ head for the batch (the kernel reads it only for the
 * room left: io_cqring_events()).  Whole transfers of fast slots are
 * done here without a call.  False: it stopped at another CQE (or the
 * ring is passthrough's), which hbe_reap_pieces() takes from there.
 */
static inline __attribute__((always_inline)) bool
hbe_reap_whole(struct hbe_data *hd, unsigned int max)
{
	struct io_uring_cq *cq = &hd->ring.cq;
	struct io_uring_cqe *cqes = cq->cqes;
	struct io_u **events = hd->events;
	unsigned int mask = cq->ring_mask;
	unsigned int nr = hd->nr_events;
	unsigned int head = *cq->khead;
	unsigned int tail = io_uring_smp_load_acquire(cq->ktail);
	bool all = true;

	if (hd->pt)
		return false;
	/* the count in a register: hd->nr_events is stored once */
	while (head != tail && nr < max) {
		struct io_uring_cqe *cqe = &cqes[head & mask];
		struct hbe_piece *pc = io_uring_cqe_get_data(cqe);
		struct hbe_slot *s = pc->slot;

		if (!hbe_cqe_whole(s, cqe->res)) {
			all = false;
			break;
		}
		head++;
		s->io_u->error = 0;
		events[nr++] = s->io_u;
	}
	hd->nr_events = nr;
	io_uring_smp_store_release(cq->khead, head);
	return all;
}

static inline __attribute__((always_inline)) void
hbe_reap(struct thread_data *td, struct hbe_data *hd, unsigned int max)
{
	if (!hbe_reap_whole(hd, max))
		hbe_reap_pieces(td, hd, max);
}

/*
 * With an empty CQ and nothing to wait for, is an entry of any use?
 * IOPOLL finds completions only by polling; DEFER_TASKRUN posts them only
 * in an entry (IORING_SQ_TASKRUN says some wait, where the ring has the
 * flag); prepared SQEs must go out.  A plain ring's completions arrive by
 * task work on the way back to user space, an SQPOLL ring's in its thread.
 */
static bool hbe_entry_helps(struct hbe_data *hd)
{
	if (hd->sqes_pending || hd->iopoll)
		return true;
	if (!hd->defer_taskrun)
		return false;
	return !hd->taskrun_flag ||
	       (IO_URING_READ_ONCE(*hd->ring.sq.kflags) & IORING_SQ_TASKRUN);
}

/* Fewer than @min reaped, or none where an entry may help: enter. */
static __attribute__((noinline)) int
hbe_getevents_enter(struct thread_data *td, struct hbe_data *hd,
		    unsigned int min, unsigned int max)
{
	int ret;

	/*
	 * Too few: one entry submits what reaping resubmitted, runs task
	 * work and waits for the CQEs still missing (one io_u may take
	 * more than one CQE: then the loop enters again).
	 */
	while (hd->nr_events < min) {
		ret = hbe_enter(hd, min - hd->nr_events);
		if (ret < 0 && !hbe_enter_retry(ret)) {
			td_verror(td, -ret, "io_uring_enter");
			return ret;
		}
		hbe_reap(td, hd, max);
	}
	if (!min && !hd->nr_events && hbe_entry_helps(hd)) {
		ret = hbe_enter(hd, 0);
		if (ret < 0 && !hbe_enter_retry(ret)) {
			td_verror(td, -ret, "io_uring_enter");
			return ret;
		}
		hbe_reap(td, hd, max);
	}
	return hd->nr_events;
}

/* hbe_getevents() after a CQE that was not a fast slot's whole transfer */
static __attribute__((noinline)) int
hbe_getevents_pieces(struct thread_data *td, struct hbe_data *hd,
		     unsigned int min, unsigned int max)
{
	hbe_reap_pieces(td, hd, max);
	if (hd->nr_events >= min && (min || hd->nr_events))
		return hd->nr_events;
	return hbe_getevents_enter(td, hd, min, max);
}

static int hbe_getevents(struct thread_data *td, unsigned int min,
			unsigned int max, const struct timespec *t)
{
	struct hbe_data *hd = td->io_ops_data;

	(void)t;
	hd->nr_events = 0;
	if (max > hd->depth)
		max = hd->depth;
	if (min > max)
		min = max;
	/* out of line what needs a call: no registers saved for the rest */
	if (!hbe_reap_whole(hd, max))
		return hbe_getevents_pieces(td, hd, min, max);
	if (hd->nr_events >= min && (min || hd->nr_events))
		return hd->nr_events;
	return hbe_getevents_enter(td, hd, min, max);
}

static struct io_u *hbe_event(struct thread_data *td, int event)
{
	struct hbe_data *hd = td->io_ops_data;

	return hd->events[event];
}

static void hbe_cleanup(struct thread_data *td)
{
	struct hbe_data *hd = td->io_ops_data;

	hbe_nvme_free_files(td);
	if (!hd)
		return;
	hbe_options_restore(td, hd);
	if (hd->ring_ok && !td->error && !hd->reported) {
		hd->reported = true;
		hbe_trim_report(hd);
		hbe_report(td, hd);
	}
	hbe_share_detach(hd);
	hbe_free_data(hd);
	td->io_ops_data = NULL;
}

/* a namespace's size comes from Identify Namespace, not from stat */
static int hbe_get_file_size(struct thread_data *td, struct fio_file *f)
{
	struct hbe_options *o = hbe_opts(td);
	const char *c = o->cmd_type;

	if (f->filetype == FIO_TYPE_CHAR &&
	    ((c && !strcmp(c, "nvme")) ||
	     (!(c && *c) && hb_is_nvme_generic(f->file_name))))
		return hbe_nvme_file_size(td, f);
	return generic_get_file_size(td, f);
}

/*
 * fio 3.41: atomic=1 runs (FIO_ATOMICWRITES: fio refuses the option for
 * an engine without it), trims go through the ring with num_range ranges
 * each (FIO_MULTI_RANGE_TRIM), and the synchronous ones stamp their own
 * issue time (engines/trim.c).  fio 3.33: trims are fio's synchronous
 * do_io_u_trim(), timed as such.
 */
#ifdef HBE_FIO_341_OPTIONS
#define HBE_OPS_FLAGS	(FIO_NO_OFFLOAD | FIO_ASYNCIO_SETS_ISSUE_TIME | \
			 FIO_MULTI_RANGE_TRIM | FIO_ATOMICWRITES)
#else
#define HBE_OPS_FLAGS	(FIO_NO_OFFLOAD | FIO_ASYNCIO_SETS_ISSUE_TIME | \
			 FIO_ASYNCIO_SYNC_TRIM)
#endif

/* dlopen_ioengine() looks this symbol up by name */
struct ioengine_ops ioengine;

/*
 * The fio this engine was compiled for.  t/fio-abi-guard.sh builds a copy
 * that claims another release, to see the guard below refuse it.
 */
#ifndef HBE_BUILT_FOR
#define HBE_BUILT_FOR HB_FIO_VERSION
#endif

/*
 * fio has no stable engine ABI, and its own guard -- check_engine_ops()
 * comparing ops->version with FIO_IOOPS_VERSION when it loads an engine
 * -- misses releases that changed struct io_u or struct thread_data
 * without a bump (3.37, 3.42).  So at load time, before fio can call any
 * hook with structures of another layout, compare the running fio's
 * version string (fio_version_string, which fio exports with -rdynamic)
 * with the release this engine was built against.  On a mismatch say so
 * in one line and spoil ops->version: fio's own check then refuses the
 * engine and never calls into it.  Outside fio (no such symbol) there is
 * nothing to compare.
 */
__attribute__((constructor)) static void hbe_check_fio_release(void)
{
	const char *running = dlsym(RTLD_DEFAULT, "fio_version_string");

	if (!running || !strcmp(running, HBE_BUILT_FOR))
		return;
	fprintf(stderr, HBE_LOG_PREFIX "error: this engine was built for %s "
		"and cannot run inside %s: rebuild it against %s's source "
		"(./configure --fio-source=DIR && make)\n", HBE_BUILT_FOR,
		running, running);
	ioengine.version = -1;
}

struct ioengine_ops ioengine = {
	.name			= "hugebuf",
	.version		= FIO_IOOPS_VERSION,
	.flags			= HBE_OPS_FLAGS,
	.init			= hbe_init,
	.post_init		= hbe_post_init,
	.io_u_init		= hbe_io_u_init,
	.queue			= hbe_queue,
	.commit			= hbe_commit,
	.getevents		= hbe_getevents,
	.event			= hbe_event,
	.cleanup		= hbe_cleanup,
	.open_file		= hbe_open_file,
	.close_file		= hbe_close_file,
	.get_file_size		= hbe_get_file_size,
	.get_zoned_model	= hbe_nvme_zoned_model,
	.report_zones		= hbe_nvme_report_zones,
	.reset_wp		= hbe_nvme_reset_wp,
	.get_max_open_zones	= hbe_nvme_max_open_zones,
	.iomem_alloc		= hbe_iomem_alloc,
	.iomem_free		= hbe_iomem_free,
	.options		= hbe_option_table,
	.option_struct_size	= sizeof(struct hbe_options),
};
