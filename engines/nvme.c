// SPDX-License-Identifier: GPL-2.0-only
/*
 * cmd_type=nvme: NVMe read/write/flush commands through IORING_OP_URING_CMD
 * (5.19, ee692a21e9bf) on an NVMe generic char device (/dev/ngXnY), from
 * the registered buffers with IORING_URING_CMD_FIXED (6.1, 9cda70f622cd)
 * when fixedbufs is set.  The same job file as fio's io_uring_cmd engine:
 * the ring has 128-byte SQEs and 32-byte CQEs, each command carries a
 * struct nvme_uring_cmd in the SQE, and a CQE's res is 0, a negative
 * errno, or the NVMe status of the command.
 *
 * The kernel maps a fixed buffer for passthrough with
 * blk_rq_map_user_bvec(): directly when the bvecs fit the queue limits,
 * through a bounce buffer (bio_copy_user_iov) when they do not, or not at
 * all (-EINVAL).  Which one is decided by lib's model
 * (hb_model_pt_map) from the registration model and the queue limits of
 * the namespace's block device; the engine checks the job's command size
 * against it before the first I/O and reports the prediction.  The engine
 * cannot see the path itself: only a tracer can (kernel/ktest.sh counts
 * bio_copy_user_iov in its guests).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <linux/nvme_ioctl.h>

#include "hugebuf-engine.h"
#include "base/uring-compat.h"

#include "verify.h"
#include "oslib/blkzoned.h"

/*
 * I/O command set opcodes beyond lib's read/write/flush (NVMe base spec
 * 2.0, NVM command set 1.0), and command dword 12's bits for them
 */
#define HBE_NVME_CMD_WRITE_UNCOR	0x04
#define HBE_NVME_CMD_COMPARE		0x05
#define HBE_NVME_CMD_WRITE_ZEROES	0x08
#define HBE_NVME_CMD_VERIFY		0x0c
#define HBE_NVME_CDW12_FUA		(1U << 30)
#define HBE_NVME_CDW12_DEAC		(1U << 25)
/* PRINFO: PRACT, and the checks of guard, application and reference tag */
#define HBE_NVME_PRACT			(1U << 29)
#define HBE_NVME_PRCHK_GUARD		(1U << 28)
#define HBE_NVME_PRCHK_APP		(1U << 27)
#define HBE_NVME_PRCHK_REF		(1U << 26)

/* admin: Identify, CNS 0 = the namespace's data structure */
#define HBE_NVME_IDENTIFY	0x06
#define HBE_NVME_ID_LEN		4096

/* Identify Namespace fields (bytes): NSZE, NLBAF, FLBAS, DPS, LBAF0 */
#define HBE_ID_NSZE		0
#define HBE_ID_NLBAF		25
#define HBE_ID_FLBAS		26
#define HBE_ID_DPS		29
#define HBE_ID_LBAF		128
/* Identify Controller: CTRATT (bytes 96-99), its bit 15 ELBAS */
#define HBE_ID_CTRATT		96
#define HBE_CTRATT_ELBAS	(1U << 15)
/* I/O Command Set specific Identify Namespace (CNS 5, NVM): ELBAF0 */
#define HBE_ID_NVM_ELBAF	12
#define HBE_CNS_NS		0x00
#define HBE_CNS_CTRL		0x01
#define HBE_CNS_CSI_NS		0x05

/* one namespace, kept in the fio_file between get_file_size and cleanup */
struct hbe_ns {
	uint32_t nsid;
	unsigned int lba_shift;	/* data bytes per LBA: 1 << lba_shift */
	uint64_t nr_lbas;
	/*
	 * Metadata per LBA the host transfers (0: none, or protection
	 * information the controller inserts and strips); with @lba_ext
	 * it follows each LBA's data (extended LBA), else it goes in a
	 * separate buffer (md_per_io_size).
	 */
	unsigned int ms;
	unsigned int lba_ext;	/* data + metadata bytes, 0: separate */
	uint64_t ext_recip;	/* 2^64 / lba_ext, rounded up */
	unsigned int pi_type;	/* protection information type, 0: none */
	unsigned int fmt;	/* the LBA format's index */
	bool pi_64b;		/* 64b guard: reference tag bits in cdw3 */
	/*
	 * pi_act=0: the tuples travel in the metadata and the engine fills
	 * them on writes and checks them on reads (lib's hb_pi_fill(),
	 * hb_pi_verify()) in the format @pi
	 */
	bool pi_host;
	struct hb_pi_fmt pi;
	bool limits_ok;
	struct hb_queue_limits lim;
};

/*
 * LBAs in @bytes, which are whole LBAs (checked at open): a shift, or
 * for an extended LBA a multiplication by the rounded-up reciprocal,
 * exact for a multiple of lba_ext below 2^64 / lba_ext LBAs.
 */
static inline uint64_t hbe_ns_lbas(const struct hbe_ns *ns, uint64_t bytes)
{
	if (!ns->lba_ext)
		return bytes >> ns->lba_shift;
	return (uint64_t)(((__uint128_t)bytes * ns->ext_recip) >> 64);
}

/* Bytes of an LBA as the host transfers it. */
static inline uint64_t hbe_ns_lba_bytes(const struct hbe_ns *ns)
{
	return ns->lba_ext ? ns->lba_ext : 1ULL << ns->lba_shift;
}

static uint64_t hbe_le(const unsigned char *p, unsigned int n)
{
	uint64_t v = 0;

	while (n--)
		v = v << 8 | p[n];
	return v;
}

/* the namespace's queue limits, from its block device's sysfs */
static void hbe_ns_limits(const char *path, struct hbe_ns *ns)
{
	char blkdev[NAME_MAX + 1];

	ns->limits_ok = !hb_nvme_ng_blkdev(path, blkdev, sizeof(blkdev)) &&
			!hb_blkdev_queue_limits(blkdev, true, &ns->lim);
}

/* One Identify (@cns, @csi) into @id, 4096 bytes. */
static int hbe_identify(int fd, uint32_t nsid, unsigned int cns,
			unsigned int csi, unsigned char *id)
{
	struct nvme_admin_cmd cmd;

	memset(id, 0, HBE_NVME_ID_LEN);
	memset(&cmd, 0, sizeof(cmd));
	cmd.opcode = HBE_NVME_IDENTIFY;
	cmd.nsid = nsid;
	cmd.addr = (uintptr_t)id;
	cmd.data_len = HBE_NVME_ID_LEN;
	cmd.cdw10 = cns;
	cmd.cdw11 = csi << 24;
	return ioctl(fd, NVME_IOCTL_ADMIN_CMD, &cmd);
}

#ifdef HBE_FIO_341_OPTIONS
/*
 * Protection information of format @fmt, as fio 3.41's io_uring_cmd reads
 * it (fio_nvme_get_info()): its type from DPS, its guard from the NVM
 * command set's ELBAF where the controller has extended LBA formats
 * (CTRATT.ELBAS), else the 16b guard of 8 bytes.  With pi_act (PRACT)
 * and nothing else in the metadata the controller inserts and strips it:
 * nothing is transferred.  Returns the bytes of PI, or -errno (storage
 * tags, which fio does not take either).
 */
static int hbe_ns_pi(int fd, const char *path, struct hbe_ns *ns,
		     unsigned int fmt, unsigned char *id)
{
	unsigned int elbaf, sts, pif;
	int ret;

	ret = hbe_identify(fd, 0, HBE_CNS_CTRL, 0, id);
	if (ret || !(hbe_le(id + HBE_ID_CTRATT, 4) & HBE_CTRATT_ELBAS))
		return ret ? -EIO : 8;
	ret = hbe_identify(fd, ns->nsid, HBE_CNS_CSI_NS, 0, id);
	if (ret)
		return -EIO;
	elbaf = hbe_le(id + HBE_ID_NVM_ELBAF + 4 * fmt, 4);
	sts = elbaf & 0x7f;
	pif = (elbaf >> 7) & 3;
	if (sts) {
		log_err(HBE_LOG_PREFIX "%s: the format has %u-bit storage "
			"tags, which the engine does not fill (nor does fio): "
			"format it without (nvme format --lbaf=N)\n", path,
			sts);
		return -EOPNOTSUPP;
	}
	ns->pi_64b = pif == 2;
	return pif == 2 ? 16 : 8;
}
#endif

/*
 * The format's metadata: refused built for fio 3.33, which has no
 * metadata options; built for fio 3.41 as fio's io_uring_cmd takes it.
 */
static int hbe_ns_metadata(struct thread_data *td, int fd, const char *path,
			   struct hbe_ns *ns, unsigned int fmt,
			   unsigned int flbas, unsigned int dps,
			   unsigned int ms, unsigned char *id)
{
#ifdef HBE_FIO_341_OPTIONS
	struct hbe_options *o = hbe_opts(td);
	int pi_size = 0;

	ns->pi_type = ms ? dps & 7 : 0;
	if (ns->pi_type) {
		pi_size = hbe_ns_pi(fd, path, ns, fmt, id);
		if (pi_size < 0)
			return pi_size;
	}
	if (o->pi_act && ns->pi_type && ms == (unsigned int)pi_size)
		ms = 0;
	ns->ms = ms;
	/* FLBAS bit 4: the metadata follows each LBA's data */
	if (ms && (flbas & 0x10)) {
		ns->lba_ext = (1U << ns->lba_shift) + ms;
		ns->ext_recip = UINT64_MAX / ns->lba_ext + 1;
	}
	ns->pi_host = ns->pi_type && !o->pi_act;
	ns->pi.lba_shift = ns->lba_shift;
	ns->pi.ms = ms;
	ns->pi.type = ns->pi_type;
	ns->pi.guard64 = ns->pi_64b;
	/* DPS bit 3: the tuple in the metadata's first bytes, else its last */
	ns->pi.pi_first = dps & 0x8;
	ns->pi.ext = ns->lba_ext;
	return 0;
#else
	(void)td;
	(void)fd;
	(void)ns;
	(void)fmt;
	(void)flbas;
	(void)dps;
	(void)id;
	if (!ms)
		return 0;
	log_err(HBE_LOG_PREFIX "%s: the namespace carries %u bytes of "
		"metadata per LBA, which the engine built for this fio does "
		"not send: build it for fio 3.41 (md_per_io_size, pi_act), or "
		"format the namespace without metadata (nvme format --lbaf=N)\n",
		path, ms);
	return -EINVAL;
#endif
}

/* Identify Namespace: size, LBA size, metadata and its protection */
static int hbe_ns_identify(struct thread_data *td, int fd, const char *path,
			   struct hbe_ns *ns)
{
	unsigned char *id;
	unsigned int fmt, nlbaf, flbas, ms, ds, dps;
	int ret;

	id = aligned_alloc(4096, HBE_NVME_ID_LEN);
	if (!id)
		return -ENOMEM;
	ret = hbe_identify(fd, ns->nsid, HBE_CNS_NS, 0, id);
	if (ret) {
		log_err(HBE_LOG_PREFIX "%s: Identify Namespace failed (%s): "
			"passthrough needs root (CAP_SYS_ADMIN) and a "
			"working controller\n", path,
			ret < 0 ? strerror(errno) : "NVMe status");
		free(id);
		return ret < 0 ? -errno : -EIO;
	}
	nlbaf = id[HBE_ID_NLBAF];
	flbas = id[HBE_ID_FLBAS];
	dps = id[HBE_ID_DPS];
	/* the format index: bits 3:0, and bits 6:5 above 16 formats */
	fmt = (flbas & 0xf) | (nlbaf > 15 ? ((flbas >> 5) & 3) << 4 : 0);
	ms = hbe_le(id + HBE_ID_LBAF + 4 * fmt, 2);
	ds = id[HBE_ID_LBAF + 4 * fmt + 2];
	ns->nr_lbas = hbe_le(id + HBE_ID_NSZE, 8);
	if (ds < 9 || ds > 16) {
		log_err(HBE_LOG_PREFIX "%s: LBA data size 2^%u is not one "
			"this engine knows (512 B - 64 KiB)\n", path, ds);
		free(id);
		return -EINVAL;
	}
	ns->lba_shift = ds;
	ns->fmt = fmt;
	ret = hbe_ns_metadata(td, fd, path, ns, fmt, flbas, dps, ms, id);
	free(id);
	return ret;
}

static struct hbe_ns *hbe_ns_of(struct thread_data *td, struct fio_file *f)
{
	struct hbe_ns *ns = FILE_ENG_DATA(f);
	int fd, ret;

	if (ns)
		return ns;
	ns = calloc(1, sizeof(*ns));
	if (!ns)
		return NULL;
	fd = open(f->file_name, O_RDONLY);
	if (fd < 0) {
		log_err(HBE_LOG_PREFIX "cannot open %s: %s\n", f->file_name,
			strerror(errno));
		td_verror(td, errno, "open");
		free(ns);
		return NULL;
	}
	ret = ioctl(fd, NVME_IOCTL_ID);
	if (ret <= 0) {
		log_err(HBE_LOG_PREFIX "%s is not an NVMe namespace (the "
			"NVME_IOCTL_ID ioctl fails): use /dev/ngXnY, or "
			"cmd_type=none\n", f->file_name);
		td_verror(td, ENODEV, "NVME_IOCTL_ID");
		goto fail;
	}
	ns->nsid = ret;
	ret = hbe_ns_identify(td, fd, f->file_name, ns);
	if (ret) {
		td_verror(td, -ret, "nvme identify");
		goto fail;
	}
	close(fd);
	hbe_ns_limits(f->file_name, ns);
	FILE_SET_ENG_DATA(f, ns);
	return ns;
fail:
	close(fd);
	free(ns);
	return NULL;
}

/* fio's ->get_file_size for a namespace: NSZE blocks of the LBA size */
int hbe_nvme_file_size(struct thread_data *td, struct fio_file *f)
{
	struct hbe_ns *ns;

	if (fio_file_size_known(f))
		return 0;
	ns = hbe_ns_of(td, f);
	if (!ns)
		return 1;
	f->real_file_size = ns->nr_lbas * hbe_ns_lba_bytes(ns);
	fio_file_set_size_known(f);
	return 0;
}

/* The largest command of the job: a whole I/O, or a chunk_size piece. */
static unsigned long long hbe_nvme_cmd_len(struct thread_data *td,
					   struct hbe_options *o)
{
	unsigned long long bs = td_max_bs(td);

	return o->chunk_size && o->chunk_size < bs ? o->chunk_size : bs;
}

/*
 * Every block size, chunk and offset step must be whole LBAs (data and
 * metadata of an extended LBA).
 */
static int hbe_nvme_check_lba(struct thread_data *td, struct hbe_options *o,
			      struct fio_file *f, struct hbe_ns *ns)
{
	unsigned long long lba = hbe_ns_lba_bytes(ns), v[6];
	const char *name[6] = { "bs (read)", "bs (write)", "bs (read max)",
				"bs (write max)", "chunk_size", "offset" };
	unsigned int i;

	v[0] = td->o.min_bs[DDIR_READ];
	v[1] = td->o.min_bs[DDIR_WRITE];
	v[2] = td->o.max_bs[DDIR_READ];
	v[3] = td->o.max_bs[DDIR_WRITE];
	v[4] = o->chunk_size;
	v[5] = f->file_offset;
	for (i = 0; i < 6; i++) {
		if (!(v[i] % lba))
			continue;
		log_err(HBE_LOG_PREFIX "%s: %s=%llu is not a multiple of the "
			"namespace's %llu-byte LBA: use whole blocks\n",
			f->file_name, name[i], v[i], lba);
		return -EINVAL;
	}
	return 0;
}

/*
 * md_per_io_size on a namespace with separate metadata: what the kernel
 * makes of each slot's metadata buffer for the job's largest command
 * (lib's model of bio_integrity_map_user()), for the report; the first
 * file's.
 */
static void hbe_nvme_md_predict(struct hbe_data *hd, const struct hbe_ns *ns,
				unsigned long long len)
{
	const struct hbe_pt_cmd *c = &hd->pt->cmd;

	if (!c->md_per_io || !ns->ms || ns->lba_ext || hd->md_on)
		return;
	hd->md_on = !hb_job_md_predict(hd->job, ns->limits_ok ? &ns->lim :
				       NULL, hbe_ns_lbas(ns, len) * ns->ms,
				       true, &hd->md);
}

/*
 * What the kernel will do with the job's largest command from each
 * registered buffer (lib's model of blk_rq_map_user_iov()): refused
 * commands are a one-line error before any I/O, the rest is counted for
 * the report.
 */
static int hbe_nvme_predict(struct thread_data *td, struct hbe_data *hd,
			    struct hbe_options *o, struct fio_file *f,
			    struct hbe_ns *ns)
{
	struct hbe_pt_stats *pt = hd->pt;

	pt->r.device = pt->dev;
	pt->r.lim = NULL;
	hbe_nvme_md_predict(hd, ns, hbe_nvme_cmd_len(td, o));
	if (!ns->limits_ok)
		return 0;
	pt->lim = ns->lim;
	pt->r.lim = &pt->lim;
	return hb_job_pt_predict(hd->job, f->file_name, &pt->lim,
				 hbe_nvme_cmd_len(td, o), &pt->r);
}

/*
 * The commands of the job's reads and writes, as fio 3.41's io_uring_cmd
 * chooses them (fio_ioring_cmd_init()): write_mode's command for writes,
 * FUA (command dword 12 bit 30) per direction, DEAC (bit 25) on Write
 * Zeroes, NVMe Compare for the verify phase's reads.  Write
 * Uncorrectable, Write Zeroes and Verify transfer no data (NVM command
 * set 1.0), so they go without a buffer.  Built for fio 3.33: Read and
 * Write.
 */
void hbe_nvme_modes(struct thread_data *td, struct hbe_data *hd)
{
	struct hbe_pt_cmd *c = &hd->pt->cmd;

	c->write_op = HB_NVME_CMD_WRITE;
	c->write_data = true;
#ifdef HBE_FIO_341_OPTIONS
	struct hbe_options *o = hd->o;
	unsigned int chk;

	switch (o->write_mode) {
	case HBE_WMODE_UNCOR:
		c->write_op = HBE_NVME_CMD_WRITE_UNCOR;
		break;
	case HBE_WMODE_ZEROES:
		c->write_op = HBE_NVME_CMD_WRITE_ZEROES;
		if (o->deac)
			c->cdw12[DDIR_WRITE] |= HBE_NVME_CDW12_DEAC;
		break;
	case HBE_WMODE_VERIFY:
		c->write_op = HBE_NVME_CMD_VERIFY;
		break;
	}
	c->write_data = c->write_op == HB_NVME_CMD_WRITE;
	c->compare = o->verify_mode == HBE_VMODE_COMPARE &&
		     td->o.verify != VERIFY_NONE;
	if (o->readfua)
		c->cdw12[DDIR_READ] |= HBE_NVME_CDW12_FUA;
	if (o->writefua)
		c->cdw12[DDIR_WRITE] |= HBE_NVME_CDW12_FUA;
	/*
	 * Protection information as fio 3.41 sends it with every read and
	 * write command (fio_nvme_pi_fill()): PRACT for pi_act, the checks
	 * pi_chk names, the tags; a namespace without it ignores them.
	 */
	if (o->pi_act)
		c->prinfo |= HBE_NVME_PRACT;
	chk = hbe_pi_chk(o->pi_chk);
	if (chk & HBE_PI_CHK_GUARD)
		c->prinfo |= HBE_NVME_PRCHK_GUARD;
	if (chk & HBE_PI_CHK_REFTAG)
		c->prinfo |= HBE_NVME_PRCHK_REF;
	if (chk & HBE_PI_CHK_APPTAG)
		c->prinfo |= HBE_NVME_PRCHK_APP;
	c->pi_checks = hbe_pi_fields(chk);
	c->cdw15 = (o->apptag_mask & 0xffff) << 16 | (o->apptag & 0xffff);
	c->md_per_io = o->md_per_io_size;
#else
	(void)td;
#endif
}

/*
 * md_per_io_size, once the buffers are mapped: the slots' metadata
 * buffers follow the last slot's data in the same backing (lib's plan,
 * md_off), page aligned.  They are not registered: the kernel pins them
 * per command (bio_integrity_map_user(), block/bio-integrity.c, as 7.2
 * has it), one segment per folio they cross.
 */
void hbe_nvme_md_place(struct hbe_data *hd)
{
	struct hbe_pt_cmd *c = &hd->pt->cmd;
	const struct hb_jobplan *p = &hd->job->plan;

	if (!c->md_per_io)
		return;
	c->md = hd->job->map + p->head + p->md_off;
	hbe_note(HBE_LOG_PREFIX "metadata: %u buffers of %u bytes in the "
		 "data buffers' backing, %llu bytes after the first (not "
		 "registered: the kernel maps them per command)\n", hd->depth,
		 c->md_per_io, (unsigned long long)p->md_off);
}

/*
 * The namespace's protection information in a command of @slba:
 * reference tag (types 1 and 2, the LBA's low 32 bits, its next 16 in
 * cdw3 with a 64b guard) and application tag when checked.
 */
static void hbe_nvme_pi(const struct hbe_ns *ns, const struct hbe_pt_cmd *c,
			struct nvme_uring_cmd *cmd, uint64_t slba)
{
	cmd->cdw12 |= c->prinfo;
	if (!ns->pi_type)
		return;
	if (ns->pi_type != 3 && (c->prinfo & HBE_NVME_PRCHK_REF)) {
		cmd->cdw14 = (uint32_t)slba;
		if (ns->pi_64b)
			cmd->cdw3 = (slba >> 32) & 0xffff;
	}
	if (c->prinfo & HBE_NVME_PRCHK_APP)
		cmd->cdw15 = c->cdw15;
}

/*
 * What fio 3.41's io_uring_cmd requires of a namespace with metadata
 * (fio_ioring_open_nvme(), verify_params()).
 */
static int hbe_nvme_check_md(struct thread_data *td, struct hbe_data *hd,
			     struct fio_file *f, const struct hbe_ns *ns)
{
	const struct hbe_pt_cmd *c = &hd->pt->cmd;
	unsigned long long need;

	if (!ns->ms)
		return 0;
	/* the tuple of 8 bytes (16b guard) or 16 (64b) within the metadata */
	if (ns->pi_host && ns->ms < (ns->pi_64b ? 16U : 8U)) {
		log_err(HBE_LOG_PREFIX "%s: %u bytes of metadata per LBA "
			"cannot hold the %u-byte protection information "
			"tuple: use pi_act=1, or another format\n",
			f->file_name, ns->ms, ns->pi_64b ? 16 : 8);
		return -EINVAL;
	}
	if (ns->lba_ext && ns->pi_type && td->o.verify != VERIFY_NONE) {
		log_err(HBE_LOG_PREFIX "%s: an extended LBA with protection "
			"information holds it in the data fio would verify: "
			"drop verify, or format with separate metadata\n",
			f->file_name);
		return -EINVAL;
	}
	need = (td_max_bs(td) >> ns->lba_shift) * ns->ms;
	if (!ns->lba_ext && c->md_per_io < need) {
		log_err(HBE_LOG_PREFIX "%s: %u bytes of metadata per LBA go "
			"in a separate buffer: md_per_io_size=%llu at least "
			"(bs / LBA size x metadata)\n", f->file_name, ns->ms,
			need);
		return -EINVAL;
	}
	return 0;
}

/*
 * A write command other than Write needs the job to write, as fio 3.41's
 * io_uring_cmd says (fio_ioring_open_nvme()); atomic=1 is RWF_ATOMIC, a
 * flag of read/write that no NVMe command carries (fio's io_uring_cmd
 * has no FIO_ATOMICWRITES).
 */
static int hbe_nvme_check_modes(struct thread_data *td, struct hbe_data *hd,
				struct fio_file *f)
{
	if (hd->pt->cmd.write_op != HB_NVME_CMD_WRITE && !td_write(td)) {
		log_err(HBE_LOG_PREFIX "%s: write_mode sends its command for "
			"writes, and rw=%s has none: use a rw= that writes, "
			"or drop write_mode\n", f->file_name,
			td_trim(td) ? "trim" : "read");
		return -EINVAL;
	}
	if (td->o.oatomic) {
		log_err(HBE_LOG_PREFIX "%s: atomic=1 is RWF_ATOMIC, a flag of "
			"read/write that NVMe passthrough does not carry: run "
			"it on the block device (/dev/nvmeXnY)\n",
			f->file_name);
		return -EINVAL;
	}
	return 0;
}

/* ->open_file (@hd set): the char device without O_DIRECT, the checks. */
int hbe_nvme_open(struct thread_data *td, struct hbe_data *hd,
		  struct fio_file *f)
{
	struct hbe_options *o = hbe_opts(td);
	unsigned int odirect = td->o.odirect;
	struct hbe_ns *ns;
	int ret;

	ns = hbe_ns_of(td, f);
	if (!ns)
		return 1;
	td->o.odirect = 0;
	ret = generic_open_file(td, f);
	td->o.odirect = odirect;
	if (ret)
		return ret;
	ret = hbe_nvme_check_lba(td, o, f, ns);
	if (!ret)
		ret = hbe_nvme_check_modes(td, hd, f);
	if (!ret)
		ret = hbe_nvme_check_md(td, hd, f, ns);
	if (!ret)
		ret = hbe_nvme_predict(td, hd, o, f, ns);
	if (ret) {
		td_verror(td, -ret, "nvme passthrough");
		if (generic_close_file(td, f))
			log_err(HBE_LOG_PREFIX "closing %s failed too\n",
				f->file_name);
		return 1;
	}
	if (!hd->pt->dev[0])
		snprintf(hd->pt->dev, sizeof(hd->pt->dev), "%s nsid %u, "
			 "%u-byte LBAs", f->file_name, ns->nsid,
			 1U << ns->lba_shift);
	return 0;
}

void hbe_nvme_free_files(struct thread_data *td)
{
	struct fio_file *f;
	unsigned int i;

	for_each_file(td, f, i) {
		free(FILE_ENG_DATA(f));
		FILE_SET_ENG_DATA(f, NULL);
	}
}

/*
 * verify_mode=compare: a read of the verify phase becomes NVMe Compare of
 * the data fio expects there, which fio writes into the buffer and then
 * leaves to the device (IO_U_F_VER_IN_DEV: no compare of its own); a
 * mismatch is the command's status (Compare Failure, SCT 2 SC 0x85).
 * The first piece fills the whole io_u's buffer.
 */
static uint8_t hbe_nvme_read_op(struct thread_data *td, struct hbe_data *hd,
				struct hbe_piece *pc)
{
#ifdef HBE_FIO_341_OPTIONS
	struct io_u *io_u = pc->slot->io_u;

	if (hd->pt->cmd.compare && (io_u->flags & IO_U_F_VER_LIST)) {
		if (pc == &pc->slot->pieces[0]) {
			populate_verify_io_u(td, io_u);
			io_u_set(td, io_u, IO_U_F_VER_IN_DEV);
		}
		return HBE_NVME_CMD_COMPARE;
	}
#else
	(void)td;
	(void)hd;
	(void)pc;
#endif
	return HB_NVME_CMD_READ;
}

/* The piece's part of its slot's separate metadata buffer. */
static inline unsigned char *hbe_nvme_md_of(const struct hbe_pt_cmd *c,
					    const struct hbe_ns *ns,
					    const struct hbe_piece *pc)
{
	const struct io_u *io_u = pc->slot->io_u;

	return (unsigned char *)c->md + (uint64_t)io_u->index * c->md_per_io +
	       ((pc->off - io_u->offset) >> ns->lba_shift) * ns->ms;
}

/*
 * The piece's LBAs for lib's protection information: from its data, and
 * its metadata (interleaved with an extended LBA), with pi_chk's fields
 * and the tags of the job (fio 3.41's fio_nvme_generate_guard() and
 * fio_nvme_pi_verify() work per I/O on the same bytes).
 */
static void hbe_nvme_pi_io(const struct hbe_pt_cmd *c, const struct hbe_ns *ns,
			   const struct hbe_piece *pc, uint64_t slba,
			   uint64_t nlb, struct hb_pi_io *io)
{
	io->data = (unsigned char *)pc->addr;
	io->md = ns->lba_ext ? NULL : hbe_nvme_md_of(c, ns, pc);
	io->slba = slba;
	io->nlb = nlb;
	io->checks = c->pi_checks;
	io->app_tag = c->cdw15 & 0xffff;
	io->app_mask = c->cdw15 >> 16;
}

/*
 * One mismatch of the tuples the host checks, in one line: the file, the
 * LBA, the field and both values (as fio 3.41's io_uring_cmd says one).
 */
void hbe_pi_said(const char *file, const struct hb_pi_err *e)
{
	const char *field = e->field == HB_PI_GUARD ? "guard" :
			    e->field == HB_PI_APPTAG ? "application tag" :
						       "reference tag";

	log_err(HBE_LOG_PREFIX "%s: protection information mismatch at LBA "
		"%llu: %s 0x%llx, computed 0x%llx\n", file,
		(unsigned long long)e->lba, field, (unsigned long long)e->got,
		(unsigned long long)e->want);
}

/*
 * One command per piece: read/write of the piece's LBAs from its address
 * (a registered buffer's with @fixed), or a flush for fsync/fdatasync.
 * Returns -EINVAL for a piece that is not whole LBAs (the open-time
 * checks make that impossible).
 */
int hbe_nvme_prep(struct thread_data *td, struct hbe_data *hd,
		  struct io_uring_sqe *sqe, int fd, struct hbe_piece *pc,
		  bool fixed, unsigned int buf_index)
{
	struct io_u *io_u = pc->slot->io_u;
	struct hbe_ns *ns = FILE_ENG_DATA(io_u->file);
	const struct hbe_pt_cmd *c = &hd->pt->cmd;
	struct nvme_uring_cmd *cmd = (struct nvme_uring_cmd *)sqe->cmd;
	bool rd = io_u->ddir == DDIR_READ;
	uint64_t slba, nlb;
	uint8_t op;

	if (!ddir_rw(io_u->ddir)) {
		hb_prep_nvme_io(sqe, fd, HB_NVME_CMD_FLUSH, ns->nsid, NULL, 0,
				0, ns->lba_shift, false, 0);
		return 0;
	}
	if (io_u->ddir == DDIR_TRIM) {
		hbe_trim_prep(td, hd, sqe, fd, pc, ns->nsid, ns->lba_shift);
		return 0;
	}
	if (!pc->len || (!ns->lba_ext &&
			 (pc->off | pc->len) & ((1ULL << ns->lba_shift) - 1)))
		return -EINVAL;
	op = rd ? hbe_nvme_read_op(td, hd, pc) : c->write_op;
	hb_prep_nvme_io(sqe, fd, op, ns->nsid, pc->addr, pc->len, pc->off,
			ns->lba_shift, fixed, buf_index);
	slba = hbe_ns_lbas(ns, pc->off);
	nlb = hbe_ns_lbas(ns, pc->len);
	if (ns->lba_ext) {
		cmd->cdw10 = slba & 0xffffffffu;
		cmd->cdw11 = slba >> 32;
		cmd->cdw12 = (nlb - 1) & 0xffff;
	}
	if (!rd && !c->write_data) {
		/* no data: the LBAs of the piece, nothing mapped */
		cmd->addr = 0;
		cmd->data_len = 0;
		sqe->uring_cmd_flags = 0;
		sqe->buf_index = 0;
	} else if (ns->ms && !ns->lba_ext) {
		cmd->metadata = (uintptr_t)hbe_nvme_md_of(c, ns, pc);
		cmd->metadata_len = nlb * ns->ms;
	}
	/* pi_act=0: the write's tuples are the host's to fill */
	if (ns->pi_host && !rd && c->write_data) {
		struct hb_pi_io pio;

		hbe_nvme_pi_io(c, ns, pc, slba, nlb, &pio);
		hb_pi_fill(&ns->pi, &pio);
	}
	cmd->cdw12 |= c->cdw12[io_u->ddir];
	hbe_nvme_pi(ns, c, cmd, slba);
	hd->pt->r.commands++;
	return 0;
}

/*
 * pi_act=0, a read done: the tuples the host checks (pi_chk's fields) in
 * what it read, a mismatch an I/O error (EIO, as fio 3.41's
 * io_uring_cmd).  NVMe Compare (verify_mode=compare) is left to the
 * device, which compared.
 */
static int hbe_nvme_pi_check(struct hbe_data *hd, struct hbe_piece *pc)
{
#ifdef HBE_FIO_341_OPTIONS
	struct io_u *io_u = pc->slot->io_u;
	const struct hbe_ns *ns = FILE_ENG_DATA(io_u->file);
	struct hb_pi_io pio;
	struct hb_pi_err e;

	if (!ns->pi_host || io_u->ddir != DDIR_READ ||
	    (io_u->flags & IO_U_F_VER_IN_DEV))
		return 0;
	hbe_nvme_pi_io(&hd->pt->cmd, ns, pc, hbe_ns_lbas(ns, pc->off),
		       hbe_ns_lbas(ns, pc->len), &pio);
	if (!hb_pi_verify(&ns->pi, &pio, &e))
		return 0;
	hbe_pi_said(io_u->file->file_name, &e);
	return -EIO;
#else
	(void)hd;
	(void)pc;
	return 0;
#endif
}

/*
 * A passthrough CQE into the engine's read/write terms: 0 is the whole
 * piece done, a positive res is the command's NVMe status (said once),
 * a negative one the errno.
 */
int hbe_nvme_result(struct hbe_data *hd, struct hbe_piece *pc, int res)
{
	if (!res && hbe_nvme_pi_check(hd, pc))
		return -EIO;
	if (!res)
		return ddir_rw(pc->slot->io_u->ddir) ? (int)pc->len : 0;
	if (res > 0) {
		if (!hd->pt->status_said) {
			hd->pt->status_said = true;
			log_err(HBE_LOG_PREFIX "%s: NVMe status 0x%x (SCT %u, "
				"SC 0x%02x) at byte %llu\n",
				pc->slot->io_u->file->file_name, res,
				(res >> 8) & 7, res & 0xff, pc->off);
		}
		return -EIO;
	}
	if (res == -EINVAL && !hd->pt->einval_said) {
		hd->pt->einval_said = true;
		log_err(HBE_LOG_PREFIX "%s: the kernel refused a %llu-byte "
			"command (EINVAL): fixed buffers in passthrough "
			"(IORING_URING_CMD_FIXED) need 6.1+, and the command "
			"must fit the queue's limits (see the report)\n",
			pc->slot->io_u->file->file_name, pc->len);
	}
	return res;
}

/*
 * zonemode=zbd on a zoned namespace (NVMe Zoned Namespace command set,
 * CSI 2), through the namespace's char device as fio's io_uring_cmd
 * reads it: a namespace with the ZNS Identify Namespace is host managed,
 * Zone Management Receive reports its zones, Zone Management Send resets
 * them, and MOR + 1 is its limit of open zones.
 */
#define HBE_CSI_ZNS		0x02
#define HBE_CNS_CSI_CTRL	0x06
#define HBE_ZNS_ID_MOR		8	/* Identify Namespace (ZNS): MOR */
#define HBE_ZNS_ID_LBAFE	2816	/* its LBA format extensions, 16 B */
#define HBE_ZNS_CMD_SEND	0x79
#define HBE_ZNS_CMD_RECV	0x7a
#define HBE_ZNS_ZSA_RESET	0x04
#define HBE_ZNS_PARTIAL		(1U << 16)	/* cdw13: partial report */
#define HBE_ZNS_REPORT_HDR	64
#define HBE_ZNS_DESC		64
#define HBE_ZNS_CHUNK		1024	/* descriptors per report */

/*
 * The namespace of @f if it is a passthrough one (its size came from
 * Identify: hbe_nvme_file_size()), else NULL: fio's own zone code.
 */
static struct hbe_ns *hbe_zns_of(struct fio_file *f)
{
	return f->filetype == FIO_TYPE_CHAR ? FILE_ENG_DATA(f) : NULL;
}

/* One NVMe I/O command of the namespace through the ioctl. */
static int hbe_zns_cmd(const char *path, struct hbe_ns *ns, uint8_t op,
		       uint64_t slba, uint32_t cdw13, void *buf, uint32_t len)
{
	struct nvme_passthru_cmd cmd;
	int fd, ret;

	fd = open(path, op == HBE_ZNS_CMD_SEND ? O_RDWR : O_RDONLY);
	if (fd < 0)
		return -errno;
	memset(&cmd, 0, sizeof(cmd));
	cmd.opcode = op;
	cmd.nsid = ns->nsid;
	cmd.addr = (uintptr_t)buf;
	cmd.data_len = len;
	cmd.cdw10 = slba & 0xffffffffu;
	cmd.cdw11 = slba >> 32;
	cmd.cdw12 = len ? len / 4 - 1 : 0;
	cmd.cdw13 = cdw13;
	ret = ioctl(fd, NVME_IOCTL_IO_CMD, &cmd);
	if (ret > 0)
		ret = -EIO;	/* the NVMe status */
	else if (ret < 0)
		ret = -errno;
	close(fd);
	return ret;
}

/* The ZNS Identify Namespace into @id; false: not a zoned namespace. */
static bool hbe_zns_identify(const char *path, struct hbe_ns *ns,
			     unsigned char *id)
{
	int fd;
	bool ok;

	fd = open(path, O_RDONLY);
	if (fd < 0)
		return false;
	ok = !hbe_identify(fd, 0, HBE_CNS_CSI_CTRL, HBE_CSI_ZNS, id) &&
	     !hbe_identify(fd, ns->nsid, HBE_CNS_CSI_NS, HBE_CSI_ZNS, id);
	close(fd);
	return ok;
}

int hbe_nvme_zoned_model(struct thread_data *td, struct fio_file *f,
			 enum zbd_zoned_model *model)
{
	struct hbe_ns *ns = hbe_zns_of(f);
	unsigned char *id;

	if (!ns)
		return blkzoned_get_zoned_model(td, f, model);
	id = aligned_alloc(4096, HBE_NVME_ID_LEN);
	if (!id)
		return -ENOMEM;
	*model = hbe_zns_identify(f->file_name, ns, id) ? ZBD_HOST_MANAGED :
							  ZBD_NONE;
	free(id);
	return 0;
}

int hbe_nvme_max_open_zones(struct thread_data *td, struct fio_file *f,
			    unsigned int *max)
{
	struct hbe_ns *ns = hbe_zns_of(f);
	unsigned char *id;
	int ret = 0;

	if (!ns)
		return blkzoned_get_max_open_zones(td, f, max);
	id = aligned_alloc(4096, HBE_NVME_ID_LEN);
	if (!id)
		return -ENOMEM;
	if (hbe_zns_identify(f->file_name, ns, id))
		/* 0-based; all ones: no limit, which fio's 0 says */
		*max = (uint32_t)(hbe_le(id + HBE_ZNS_ID_MOR, 4) + 1);
	else
		ret = -EIO;
	free(id);
	return ret;
}

/* a zone descriptor's state (bits 7:4) in fio's words */
static enum zbd_zone_cond hbe_zns_cond(unsigned int zs)
{
	switch (zs >> 4) {
	case 0x1:
		return ZBD_ZONE_COND_EMPTY;
	case 0x2:
		return ZBD_ZONE_COND_IMP_OPEN;
	case 0x3:
		return ZBD_ZONE_COND_EXP_OPEN;
	case 0x4:
		return ZBD_ZONE_COND_CLOSED;
	case 0xe:
		return ZBD_ZONE_COND_FULL;
	default:	/* read only, offline: not to be used */
		return ZBD_ZONE_COND_OFFLINE;
	}
}

int hbe_nvme_report_zones(struct thread_data *td, struct fio_file *f,
			  uint64_t offset, struct zbd_zone *zbdz,
			  unsigned int nr_zones)
{
	struct hbe_ns *ns = hbe_zns_of(f);
	unsigned int i, got = 0, n;
	unsigned char *id, *rep;
	uint64_t zlen;
	uint32_t len;
	int ret = 0;

	if (!ns)
		return blkzoned_report_zones(td, f, offset, zbdz, nr_zones);
	if (ns->lba_ext)
		return -EINVAL;
	id = aligned_alloc(4096, HBE_NVME_ID_LEN);
	len = HBE_ZNS_REPORT_HDR + HBE_ZNS_CHUNK * HBE_ZNS_DESC;
	rep = aligned_alloc(4096, len);
	if (!id || !rep) {
		ret = -ENOMEM;
		goto out;
	}
	/* the zone size of the namespace's LBA format */
	if (!hbe_zns_identify(f->file_name, ns, id)) {
		ret = -EIO;
		goto out;
	}
	zlen = hbe_le(id + HBE_ZNS_ID_LBAFE + 16 * ns->fmt, 8) <<
	       ns->lba_shift;
	if (!zlen) {
		ret = -EIO;
		goto out;
	}
	while (got < nr_zones && offset < f->real_file_size) {
		n = nr_zones - got < HBE_ZNS_CHUNK ? nr_zones - got :
						     HBE_ZNS_CHUNK;
		memset(rep, 0, len);
		ret = hbe_zns_cmd(f->file_name, ns, HBE_ZNS_CMD_RECV,
				  offset >> ns->lba_shift, HBE_ZNS_PARTIAL,
				  rep, HBE_ZNS_REPORT_HDR + n * HBE_ZNS_DESC);
		if (ret)
			goto out;
		n = hbe_le(rep, 8) < n ? hbe_le(rep, 8) : n;
		if (!n)
			break;
		for (i = 0; i < n; i++, got++) {
			const unsigned char *d = rep + HBE_ZNS_REPORT_HDR +
						 i * HBE_ZNS_DESC;
			struct zbd_zone *z = &zbdz[got];

			z->start = hbe_le(d + 16, 8) << ns->lba_shift;
			z->len = zlen;
			z->wp = hbe_le(d + 24, 8) << ns->lba_shift;
			z->capacity = hbe_le(d + 8, 8) << ns->lba_shift;
			/* type 2, sequential write required, is all ZNS has */
			if ((d[0] & 0xf) != 0x2) {
				log_err(HBE_LOG_PREFIX "%s: zone at byte %llu "
					"has type %u, not sequential write "
					"required\n", f->file_name,
					(unsigned long long)z->start, d[0] & 0xf);
				ret = -EIO;
				goto out;
			}
			z->type = ZBD_ZONE_TYPE_SWR;
			z->cond = hbe_zns_cond(d[1]);
			if (z->cond == ZBD_ZONE_COND_OFFLINE)
				z->wp = z->start;
		}
		offset = zbdz[got - 1].start + zlen;
	}
	ret = got;
out:
	free(id);
	free(rep);
	return ret;
}

int hbe_nvme_reset_wp(struct thread_data *td, struct fio_file *f,
		      uint64_t offset, uint64_t length)
{
	struct hbe_ns *ns = hbe_zns_of(f);
	uint64_t zs = td->o.zone_size, end = offset + length;
	int ret = 0;

	if (!ns)
		return blkzoned_reset_wp(td, f, offset, length);
	if (!zs)
		zs = length ? length : 1;
	/* one Zone Management Send per zone, stopping at the first error */
	for (; offset < end && !ret; offset += zs)
		ret = hbe_zns_cmd(f->file_name, ns, HBE_ZNS_CMD_SEND,
				  offset >> ns->lba_shift, HBE_ZNS_ZSA_RESET,
				  NULL, 0);
	return ret;
}
