// SPDX-License-Identifier: GPL-2.0-only
/*
 * Trims, built for fio 3.41.  As fio 3.41's io_uring engines send them:
 * on a block device BLOCK_URING_CMD_DISCARD through IORING_OP_URING_CMD
 * (blkdev_uring_cmd(), block/ioctl.c, 6.12), and through NVMe passthrough
 * a Dataset Management command with its deallocate attribute, num_range
 * ranges in one command (fio's FIO_MULTI_RANGE_TRIM).  Where the kernel
 * has no discard command the trim is fio's own synchronous one
 * (do_io_u_trim(): BLKDISCARD), as fio's io_uring falls back to it.
 *
 * Which of the two a file gets is the running kernel's answer at open,
 * not its version: a discard of length 0 is refused with EINVAL by a
 * kernel that has the command and a device that discards (the length is
 * checked after the device's discard support, the file's write mode and
 * the device's read-only state: blk_validate_byte_range()); any other
 * answer (EOPNOTSUPP from a kernel without the command, from a file
 * without uring_cmd or from a device without discard; a kernel without
 * IORING_OP_URING_CMD is not asked) means the synchronous path, which
 * then gets the device's own answer.
 *
 * num_range > 1 on a block device: the kernel's discard command takes one
 * range, so each range is one command (one piece of the io_u), counted.
 */
#include <errno.h>
#include <string.h>

#include <liburing.h>
#include <linux/fs.h>

#include "hugebuf-engine.h"
#include "base/uring-compat.h"

#ifdef HBE_FIO_341_OPTIONS

/* include/uapi/linux/blkdev.h (6.12): _IO(0x12, 0) */
#define HBE_BLOCK_URING_CMD_DISCARD	_IO(0x12, 0)

/* NVMe Dataset Management, its deallocate attribute (dword 11 bit 2) */
#define HBE_NVME_CMD_DSM		0x09
#define HBE_NVME_DSM_AD			(1U << 2)

/* one range of a Dataset Management command (NVM command set 1.0) */
struct hbe_dsm_range {
	uint32_t cattr;
	uint32_t nlb;		/* LBAs, 1-based for deallocate */
	uint64_t slba;
};

static void hbe_prep_discard(struct io_uring_sqe *sqe, int fd,
			     unsigned long long start, unsigned long long len)
{
	/* ioprio, rw_flags, len and file_index must be 0: the kernel checks */
	io_uring_prep_rw(IORING_OP_URING_CMD, sqe, fd, NULL, 0, 0);
	sqe->cmd_op = HBE_BLOCK_URING_CMD_DISCARD;
	sqe->addr = start;
	sqe->addr3 = len;
}

/* The kernel's answer to a discard of nothing on @fd (see above). */
static int hbe_trim_probe(int fd)
{
	struct io_uring_sqe *sqe;
	struct io_uring_cqe *cqe;
	struct io_uring ring;
	int ret;

	ret = io_uring_queue_init(1, &ring, 0);
	if (ret)
		return ret;
	/* before 5.19 (ee692a21e9bf) an unknown opcode is EINVAL too */
	if (!hb_uring_op_supported(&ring, IORING_OP_URING_CMD)) {
		io_uring_queue_exit(&ring);
		return -EOPNOTSUPP;
	}
	sqe = io_uring_get_sqe(&ring);
	hbe_prep_discard(sqe, fd, 0, 0);
	ret = io_uring_submit_and_wait(&ring, 1);
	if (ret >= 0)
		ret = io_uring_peek_cqe(&ring, &cqe);
	if (!ret) {
		ret = cqe->res;
		io_uring_cqe_seen(&ring, cqe);
	}
	io_uring_queue_exit(&ring);
	return ret;
}

/*
 * ->open_file of a trimming job, plain files: ask the kernel which way
 * this file's trims go, and say it once per job when it is fio's
 * synchronous one.
 */
void hbe_trim_open(struct thread_data *td, struct hbe_data *hd,
		   struct fio_file *f)
{
	int ret;

	if (!td_trim(td) || hd->pt ||
	    (unsigned int)f->fileno >= hd->nr_trim_files)
		return;
	ret = hbe_trim_probe(f->fd);
	hd->trim_async[f->fileno] = ret == -EINVAL;
	if (ret == -EINVAL || hd->trim_sync_said)
		return;
	hd->trim_sync_said = true;
	hbe_note(HBE_LOG_PREFIX "trims on %s are fio's synchronous "
		 "BLKDISCARD: the kernel answered BLOCK_URING_CMD_DISCARD "
		 "with %s (a block device that discards, 6.12+)\n",
		 f->file_name, strerror(ret < 0 ? -ret : EINVAL));
}

/* fio's trim ranges of a multi-range io_u, at the start of its buffer */
static const struct trim_range *hbe_ranges(struct io_u *io_u,
					   unsigned int *nr)
{
	*nr = io_u->number_trim;
	return (const struct trim_range *)io_u->xfer_buf;
}

static bool hbe_multi_range(struct thread_data *td, struct io_u *io_u)
{
	return td->o.num_range > 1 && io_u->number_trim;
}

/*
 * fio's synchronous trim, range by range, stamped as fio stamps the
 * synchronous I/O of an engine (FIO_ASYNCIO_SYNC_TRIM: issue time before
 * the call), which this engine is not flagged as.
 */
static enum fio_q_status hbe_trim_sync(struct thread_data *td,
				       struct io_u *io_u)
{
	unsigned long long off = io_u->offset, len = io_u->xfer_buflen;
	const struct trim_range *r = NULL;
	unsigned int i, nr = 1;

	if (fio_fill_issue_time(td))
		fio_gettime(&io_u->issue_time, NULL);
	if (hbe_multi_range(td, io_u))
		r = hbe_ranges(io_u, &nr);
	for (i = 0; i < nr && !io_u->error; i++) {
		if (r) {
			io_u->offset = r[i].start;
			io_u->xfer_buflen = r[i].len;
		}
		do_io_u_trim(td, io_u);
	}
	io_u->offset = off;
	io_u->xfer_buflen = len;
	io_u_mark_submit(td, 1);
	io_u_mark_complete(td, 1);
	return FIO_Q_COMPLETED;
}

/* A block device's trim: one discard command per range, as pieces. */
static void hbe_trim_pieces(struct thread_data *td, struct hbe_data *hd,
			    struct io_u *io_u)
{
	const struct trim_range *r = NULL;
	struct hbe_slot *s = hbe_slot_of(hd, io_u);
	unsigned int i, nr = 1;

	if (hbe_multi_range(td, io_u))
		r = hbe_ranges(io_u, &nr);
	hbe_slot_start(s, io_u, nr);
	for (i = 0; i < nr; i++) {
		struct hbe_piece *pc = &s->pieces[i];

		pc->slot = s;
		pc->addr = NULL;
		pc->off = r ? r[i].start : io_u->offset;
		pc->len = r ? r[i].len : io_u->xfer_buflen;
	}
}

/*
 * A passthrough trim: one Dataset Management command of every range in
 * the slot's range list (fio_nvme_uring_cmd_trim_prep()'s command).
 */
static void hbe_trim_dsm(struct hbe_data *hd, struct io_u *io_u)
{
	struct hbe_slot *s = hbe_slot_of(hd, io_u);
	struct hbe_piece *pc = &s->pieces[0];

	hbe_slot_start(s, io_u, 1);
	pc->slot = s;
	pc->addr = NULL;
	pc->off = io_u->offset;
	pc->len = io_u->xfer_buflen;
}

/* The io_u's ranges (fio's list, or its one range) as DSM ranges. */
static unsigned int hbe_dsm_fill(struct thread_data *td, struct io_u *io_u,
				 struct hbe_dsm_range *d, unsigned int shift)
{
	const struct trim_range *r;
	unsigned int i, nr;

	if (!hbe_multi_range(td, io_u)) {
		d[0].cattr = 0;
		d[0].slba = io_u->offset >> shift;
		d[0].nlb = io_u->xfer_buflen >> shift;
		return 1;
	}
	r = hbe_ranges(io_u, &nr);
	for (i = 0; i < nr; i++) {
		d[i].cattr = 0;
		d[i].slba = r[i].start >> shift;
		d[i].nlb = r[i].len >> shift;
	}
	return nr;
}

/*
 * The SQE of a trim piece: a block device's discard, or passthrough's
 * Dataset Management of the whole range list (the slot's, which the
 * kernel copies in when it issues the command).
 */
void hbe_trim_prep(struct thread_data *td, struct hbe_data *hd,
		   struct io_uring_sqe *sqe, int fd, struct hbe_piece *pc,
		   uint32_t nsid, unsigned int lba_shift)
{
	struct hbe_slot *s = pc->slot;
	struct nvme_uring_cmd *cmd;
	unsigned int nr;

	hd->trim_cmds++;
	if (!hd->pt) {
		hbe_prep_discard(sqe, fd, pc->off, pc->len);
		return;
	}
	nr = hbe_dsm_fill(td, s->io_u, s->dsm, lba_shift);
	hb_prep_nvme_io(sqe, fd, HBE_NVME_CMD_DSM, nsid, NULL, 0, 0,
			lba_shift, false, 0);
	cmd = (struct nvme_uring_cmd *)sqe->cmd;
	cmd->addr = (uintptr_t)s->dsm;
	cmd->data_len = nr * sizeof(struct hbe_dsm_range);
	cmd->cdw10 = nr - 1;
	cmd->cdw11 = HBE_NVME_DSM_AD;
	cmd->cdw12 = 0;
}

/*
 * A trim io_u: the kernel's discard command or DSM as pieces, or fio's
 * synchronous trim on a file whose kernel has no discard command
 * (FIO_Q_BUSY until what was queued before it has gone out, as fio's
 * io_uring).  False: queue it as the pieces set up here.
 */
bool hbe_trim_queue(struct thread_data *td, struct hbe_data *hd,
		    struct io_u *io_u, enum fio_q_status *st)
{
	struct fio_file *f = io_u->file;
	bool zbd = td->o.zone_mode == ZONE_MODE_ZBD;

	/*
	 * zonemode=zbd: a trim resets zones, fio's own synchronous work;
	 * a job that is not a trim job (trim_percentage of a verify job)
	 * has no range lists: fio's too
	 */
	if (hd->pt && !zbd && hbe_slot_of(hd, io_u)->dsm) {
		hd->trim_ios++;
		hbe_trim_dsm(hd, io_u);
		return false;
	}
	if (!zbd && (unsigned int)f->fileno < hd->nr_trim_files &&
	    hd->trim_async[f->fileno]) {
		hd->trim_ios++;
		hbe_trim_pieces(td, hd, io_u);
		return false;
	}
	if (hd->nr_queued) {
		*st = FIO_Q_BUSY;
		return true;
	}
	hd->trim_ios++;
	hd->trim_sync++;
	*st = hbe_trim_sync(td, io_u);
	return true;
}

/* The job's trims in one line at its end: how many, how many commands. */
void hbe_trim_report(struct hbe_data *hd)
{
	if (!hd->trim_ios)
		return;
	hbe_note(HBE_LOG_PREFIX "trims: %llu, %llu through io_uring in %llu "
		 "%s, %llu synchronous (BLKDISCARD)\n", hd->trim_ios,
		 hd->trim_ios - hd->trim_sync, hd->trim_cmds,
		 hd->pt ? "Dataset Management commands" :
			  "BLOCK_URING_CMD_DISCARD commands", hd->trim_sync);
}

/* Per job: a flag per file, a range list per slot for passthrough. */
int hbe_trim_alloc(struct thread_data *td, struct hbe_data *hd)
{
	unsigned int i, nr = td->o.num_range ? td->o.num_range : 1;

	if (!td_trim(td))
		return 0;
	if (hd->pt) {
		for (i = 0; i < hd->depth; i++) {
			hd->slots[i].dsm = calloc(nr, sizeof(struct hbe_dsm_range));
			if (!hd->slots[i].dsm)
				return -ENOMEM;
		}
		return 0;
	}
	hd->nr_trim_files = td->o.nr_files;
	hd->trim_async = calloc(hd->nr_trim_files ? hd->nr_trim_files : 1,
				sizeof(*hd->trim_async));
	return hd->trim_async ? 0 : -ENOMEM;
}

#endif
