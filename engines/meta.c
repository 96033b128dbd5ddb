// SPDX-License-Identifier: GPL-2.0-only
/*
 * md_per_io_size without passthrough, built for fio 3.41: as fio 3.41's
 * io_uring sends it, a read or write carries a metadata buffer through
 * the SQE's PI attribute (sqe->attr_ptr and attr_type_mask
 * IORING_RW_ATTR_FLAG_PI; io_prep_rw_pi() in io_uring/rw.c copies the
 * struct io_uring_attr_pi when the SQE is prepared), on a block device
 * whose integrity profile FS_IOC_GETLBMD_CAP describes.  A kernel without
 * that ioctl answers ENOTTY at open, and the job stops there in one line:
 * the attribute came before the ioctl, so a kernel that answers has it.
 *
 * The metadata buffers are the job's own, after its data buffers in the
 * same backing (lib's plan, md_off).  As fio: pi_chk names the checks the
 * kernel asks of the device, apptag is the application tag, the
 * reference tag's seed is the first LBA when REFTAG is checked, and with
 * pi_act=0 the host computes the tuples: the engine fills pi_chk's fields
 * of a write's and checks those of a read's (lib's hb_pi_fill(),
 * hb_pi_verify()).  fio 3.41's io_uring means to check them on reads too
 * (fio_ioring_validate_md()), but returns before it for a whole transfer.
 */
#include <errno.h>
#include <string.h>
#include <sys/ioctl.h>

#include <liburing.h>

#include "hugebuf-engine.h"

#ifdef HBE_FIO_341_OPTIONS

/* include/uapi/linux/io_uring.h and fs.h, newer than the C library's */
#define HBE_RW_ATTR_FLAG_PI		(1U << 0)
#define HBE_LBMD_PI_CAP_INTEGRITY	(1U << 0)
#define HBE_LBMD_PI_CAP_REFTAG		(1U << 1)
#define HBE_LBMD_PI_CSUM_CRC16_T10DIF	2
#define HBE_LBMD_PI_CSUM_CRC64_NVME	4

struct hbe_lbmd_cap {
	uint32_t lbmd_flags;
	uint16_t lbmd_interval;
	uint8_t lbmd_size;
	uint8_t lbmd_opaque_size;
	uint8_t lbmd_opaque_offset;
	uint8_t lbmd_pi_size;
	uint8_t lbmd_pi_offset;
	uint8_t lbmd_guard_tag_type;
	uint8_t lbmd_app_tag_size;
	uint8_t lbmd_ref_tag_size;
	uint8_t lbmd_storage_tag_size;
	uint8_t pad;
};
#define HBE_FS_IOC_GETLBMD_CAP	_IOWR(0x15, 2, struct hbe_lbmd_cap)

/*
 * At init, once the buffers are mapped: what every metadata attribute
 * holds, and the values fio 3.41's io_uring refuses.
 */
int hbe_meta_init(struct thread_data *td, struct hbe_data *hd)
{
	struct hbe_options *o = hd->o;
	const struct hb_jobplan *p = &hd->job->plan;
	struct hbe_meta *m = &hd->meta;

	(void)td;
	if (hd->pt || !o->md_per_io_size)
		return 0;
	if (o->apptag_mask != 0xffff) {
		log_err(HBE_LOG_PREFIX "md_per_io_size with plain reads and "
			"writes checks the whole application tag: "
			"apptag_mask=0xffff (as fio's io_uring requires)\n");
		return -EINVAL;
	}
	m->on = true;
	m->host = !o->pi_act;
	m->md = hd->job->map + p->head + p->md_off;
	m->per_io = o->md_per_io_size;
	m->app_tag = o->apptag;
	/* the kernel's IO_INTEGRITY_CHK_* bits */
	m->flags = hbe_pi_chk(o->pi_chk);
	m->checks = hbe_pi_fields(m->flags);
	hbe_note(HBE_LOG_PREFIX "metadata: %u buffers of %u bytes in the "
		 "data buffers' backing, %llu bytes after the first (not "
		 "registered: the kernel maps them per I/O)\n", hd->depth,
		 m->per_io, (unsigned long long)p->md_off);
	return 0;
}

/*
 * pi_act=0: the tuple's format as fio 3.41's io_uring reads the profile
 * (fio_get_pi_info()): type 1 where the kernel checks reference tags,
 * else 3; the guard's CRC; the tuple first in the metadata where its
 * offset is 0, else last.
 */
static int hbe_meta_pi_fmt(struct fio_file *f, const struct hbe_lbmd_cap *cap,
			   struct hbe_meta *m)
{
	unsigned int csum = cap->lbmd_guard_tag_type;
	unsigned int tuple = csum == HBE_LBMD_PI_CSUM_CRC64_NVME ? 16 : 8;

	if ((csum != HBE_LBMD_PI_CSUM_CRC16_T10DIF &&
	     csum != HBE_LBMD_PI_CSUM_CRC64_NVME) ||
	    cap->lbmd_pi_size != tuple ||
	    cap->lbmd_pi_offset + tuple > cap->lbmd_size) {
		log_err(HBE_LOG_PREFIX "pi_act=0 on %s: guard type %u in a "
			"%u-byte tuple, which the host does not compute (as "
			"fio's io_uring: CRC-16 T10-DIF or CRC-64 NVMe only): "
			"use pi_act=1\n", f->file_name, csum,
			cap->lbmd_pi_size);
		return -EOPNOTSUPP;
	}
	m->pi.lba_shift = __builtin_ctz(cap->lbmd_interval);
	m->pi.ms = cap->lbmd_size;
	m->pi.type = cap->lbmd_flags & HBE_LBMD_PI_CAP_REFTAG ? 1 : 3;
	m->pi.guard64 = tuple == 16;
	m->pi.pi_first = !cap->lbmd_pi_offset;
	m->pi.ext = false;
	return 0;
}

/*
 * ->open_file: the file's integrity profile, which every file of the job
 * shares (the attribute's sizes are the job's).
 */
int hbe_meta_open(struct thread_data *td, struct hbe_data *hd,
		  struct fio_file *f)
{
	struct hbe_meta *m = &hd->meta;
	struct hbe_lbmd_cap cap;
	unsigned long long need;

	if (!m->on)
		return 0;
	memset(&cap, 0, sizeof(cap));
	if (ioctl(f->fd, HBE_FS_IOC_GETLBMD_CAP, &cap)) {
		log_err(HBE_LOG_PREFIX "md_per_io_size on %s: "
			"FS_IOC_GETLBMD_CAP failed (%s): use a block device "
			"with metadata on a kernel that describes it, or "
			"cmd_type=nvme on /dev/ngXnY\n", f->file_name,
			strerror(errno));
		return -errno;
	}
	if (!(cap.lbmd_flags & HBE_LBMD_PI_CAP_INTEGRITY) ||
	    cap.lbmd_storage_tag_size || !cap.lbmd_interval ||
	    cap.lbmd_interval & (cap.lbmd_interval - 1)) {
		log_err(HBE_LOG_PREFIX "md_per_io_size on %s: %s: use a "
			"format with protection information and no storage "
			"tag (as fio's io_uring)\n", f->file_name,
			cap.lbmd_storage_tag_size ? "storage tags" :
			"no protection information");
		return -EOPNOTSUPP;
	}
	if (m->interval && (m->interval != cap.lbmd_interval ||
			    m->ms != cap.lbmd_size)) {
		log_err(HBE_LOG_PREFIX "md_per_io_size on %s: metadata of "
			"%u bytes per %u, another file's is %u per %u: one "
			"format per job\n",
			f->file_name, cap.lbmd_size, cap.lbmd_interval, m->ms,
			m->interval);
		return -EINVAL;
	}
	m->interval = cap.lbmd_interval;
	m->shift = __builtin_ctz(cap.lbmd_interval);
	m->ms = cap.lbmd_size;
	if (m->host && hbe_meta_pi_fmt(f, &cap, m))
		return -EOPNOTSUPP;
	need = (td_max_bs(td) >> m->shift) * m->ms;
	if (m->per_io < need) {
		log_err(HBE_LOG_PREFIX "md_per_io_size on %s: %u bytes of "
			"metadata per %u-byte block: use md_per_io_size=%llu "
			"at least (bs / block x metadata)\n", f->file_name,
			m->ms, m->interval, need);
		return -EINVAL;
	}
	m->len = need;
	return 0;
}

/*
 * After hb_job_file_opened(): what the kernel makes of each slot's
 * metadata buffer for the job's largest I/O, taken as one bio (lib's
 * model of bio_integrity_map_iter()), on the queue of the block device
 * lib found under the first file.
 */
void hbe_meta_predict(struct hbe_data *hd)
{
	if (!hd->meta.on || hd->md_on)
		return;
	hd->md_on = !hb_job_md_predict_dev(hd->job, hd->meta.len, &hd->md);
}

/* The LBAs of @len bytes of the piece, its metadata in its attribute. */
static void hbe_meta_pi_io(const struct hbe_meta *m, const struct hbe_piece *pc,
			   unsigned long long len, struct hb_pi_io *io)
{
	io->data = (unsigned char *)pc->addr;
	io->md = (unsigned char *)(uintptr_t)pc->pi.addr;
	io->slba = pc->off >> m->shift;
	io->nlb = len >> m->shift;
	io->checks = m->checks;
	io->app_tag = m->app_tag;
	io->app_mask = 0xffff;
}

/* The piece's metadata attribute in its read or write SQE. */
void hbe_meta_prep(struct hbe_data *hd, struct io_uring_sqe *sqe,
		   struct hbe_piece *pc)
{
	const struct hbe_meta *m = &hd->meta;
	struct io_u *io_u = pc->slot->io_u;
	struct hbe_attr_pi *a = &pc->pi;

	a->flags = m->flags;
	a->app_tag = m->app_tag;
	a->addr = (uintptr_t)(m->md + (uint64_t)io_u->index * m->per_io +
			      ((pc->off - io_u->offset) >> m->shift) * m->ms);
	a->len = (pc->len >> m->shift) * m->ms;
	a->seed = m->flags & HBE_PI_CHK_REFTAG ?
		  (uint32_t)(pc->off >> m->shift) : 0;
	a->rsvd = 0;
	/* attr_ptr and attr_type_mask where the C library has addr3 */
	sqe->addr3 = (uintptr_t)a;
	sqe->__pad2[0] = HBE_RW_ATTR_FLAG_PI;
	if (m->host && io_u->ddir == DDIR_WRITE) {
		struct hb_pi_io pio;

		hbe_meta_pi_io(m, pc, pc->len, &pio);
		hb_pi_fill(&m->pi, &pio);
	}
}

/*
 * pi_act=0, a read's CQE: the tuples of the LBAs it read, a mismatch an
 * I/O error (EIO, as fio 3.41 means it).
 */
int hbe_meta_result(struct hbe_data *hd, struct hbe_piece *pc, int res)
{
	struct io_u *io_u = pc->slot->io_u;
	struct hb_pi_io pio;
	struct hb_pi_err e;

	if (res <= 0 || io_u->ddir != DDIR_READ)
		return res;
	hbe_meta_pi_io(&hd->meta, pc, res, &pio);
	if (!hb_pi_verify(&hd->meta.pi, &pio, &e))
		return res;
	hbe_pi_said(io_u->file->file_name, &e);
	return -EIO;
}

#endif
