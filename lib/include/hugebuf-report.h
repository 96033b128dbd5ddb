/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * hugebuf's job layer for an I/O engine: a job's plan, checked whole,
 * and the report of what it learnt (text and JSON).
 */
#ifndef HUGEBUF_REPORT_H
#define HUGEBUF_REPORT_H

#include "hugebuf.h"

#ifdef __cplusplus
extern "C" {
#endif

/* one I/O job's buffers and options, checked whole: hb_jobplan_check(3) */

/* longest job name a shared (clone_buffers) table is found by, with NUL */
#define HB_JOB_NAME_MAX		128
/* most SQEs one I/O may be split into by chunk_size */
#define HB_JOB_MAX_PIECES	4096

enum hb_job_layout {
	HB_JOB_PER_IO = 0,	/* one registered buffer per I/O slot */
	HB_JOB_REGION,		/* slots carved from <= 1 GiB regions */
};

enum hb_job_clone {
	HB_JOB_CLONE_OFF = 0,
	HB_JOB_CLONE_SPLIT,	/* one registered table, a slice per job */
	HB_JOB_CLONE_SAME,	/* one table, all jobs on the same buffers */
};

struct hb_jobplan {
	/* inputs, in lib's words (fio's names only in the messages) */
	const char *backing;		/* backing= as written, NULL: unset */
	const char *hugepage_size;	/* hugepage_size= as written */
	enum hb_contig_mode contig;	/* contig=: the 4k pages' runs */
	uint64_t fw_hugepage_size;	/* fio's hugepage-size, 0: unset */
	const char *mem_name;		/* fio's mem= as written, NULL */
	const char *mem_kind;		/* the backing it means */
	uint64_t mem_page_size;		/* its hugepage size, 0: none */
	const char *mem_refused;	/* the line when it has none here */
	uint64_t head_offset;		/* head_offset= (may be "negative") */
	unsigned int mem_align;		/* fio's iomem_align, 0: unset */
	unsigned int depth;		/* iodepth: I/O slots */
	uint64_t max_bs;		/* the largest block of any direction */
	uint64_t min_len;		/* bytes the framework's carving needs */
	enum hb_job_layout layout;
	bool fixedbufs;
	bool fills_buffers;	/* written before registration (fio: writes) */
	bool direct;			/* O_DIRECT */
	const char *const *files;	/* the job's files, @nr_files of them */
	unsigned int nr_files, open_files;
	bool registerfiles;
	unsigned int vec_iovecs;
	uint64_t vec_offset;
	uint64_t chunk_size;		/* 0: off (may be "negative") */
	enum hb_job_clone clone;
	bool threads;			/* the jobs share one process */
	bool verify;
	const char *job_name;
	const char *cmd_type;		/* NULL/"": by the files, "nvme", "none" */
	bool atomic_writes, uncached, nowait;
	/* fio 3.41's NVMe command variants (@write_mode NULL: Write) */
	bool read_fua, write_fua, verify_compare, deac;
	const char *write_mode;
	unsigned int md_per_io_size;

	/* results, valid when hb_jobplan_check() returned 0 */
	struct hb_kmodel km;		/* the running kernel's model */
	struct hb_backing b;		/* the backing to allocate */
	uint64_t head;			/* bytes into the first folio */
	uint64_t stride;		/* between I/O slots */
	unsigned int slots_per_region;
	unsigned int nr_iovecs;		/* registered buffers */
	unsigned int max_pieces;	/* SQEs per I/O (chunk_size) */
	unsigned int dio_align;		/* direct: the strictest file's */
	uint64_t len;			/* bytes to allocate at @head */
	uint64_t md_off;		/* md_per_io_size: metadata, from @head */
	bool passthrough;		/* NVMe commands (cmd_type=nvme) */
	bool pt_direct_ignored;		/* passthrough with direct=1 */
};

int hb_jobplan_check(struct hb_jobplan *p);

/* what a job learnt, as text or JSON: hb_report_text(3) */

/* NVMe passthrough: what hb_model_pt_map() predicts per buffer */
struct hb_pt_report {
	const char *device;		/* "/dev/ng0n1 nsid 1, 512-byte LBAs" */
	uint64_t commands;		/* read/write commands issued */
	uint64_t cmd_len;		/* bytes of the largest command */
	bool predicted;			/* limits known and buffers registered */
	unsigned int count[3];		/* buffers per enum hb_pt_path */
	unsigned int segs_min, segs_max;	/* DMA segments, direct ones */
	const char *why;		/* first reason that is not direct */
	const struct hb_queue_limits *lim;	/* NULL: not known */
};

/* md_per_io_size: what hb_model_md_map() predicts per I/O slot */
struct hb_md_report {
	uint64_t md_len;		/* metadata of the largest command */
	bool passthrough;		/* NVMe commands, else PI attribute */
	/* the queue's max_integrity_segments; 0: not read */
	unsigned int max_integrity_segments;
	bool predicted;
	unsigned int count[3];		/* slots per enum hb_md_map */
	unsigned int segs_min, segs_max;	/* integrity segments */
	unsigned int dma_min, dma_max;	/* DMA addresses per command */
	unsigned int sgl;		/* slots described by a metadata SGL */
	const char *why;		/* first reason to copy, or NULL */
	const char *not_predicted;	/* why there is no prediction */
};

struct hb_report {
	const char *job;		/* job name, any bytes */
	unsigned int subjob;
	struct hb_backing backing;
	const char *layout;		/* "per-io", "region" */
	uint64_t head_offset;
	bool fixedbufs;
	const char *kernel_model;	/* model name used */
	const char *kernel_detect;	/* "version says X, behaviour says Y" */
	unsigned int nr_buffers;
	uint64_t buffer_len, bs, stride;
	struct hb_bufstats st;
	double register_usec;		/* < 0: not registered */
	long vmpin_kb;			/* < 0: not measured */
	const char *device;		/* NULL or "": no device counters */
	uint64_t dev_reads, dev_writes, ios;
	bool requests_approximate;
	const struct hb_file_limits *limits;	/* NULL: not known */
	unsigned int vec_iovecs, vec_bvecs;	/* vectored: 0 off */
	const char *shared;		/* "", "source" or "clone" */
	double ready_usec;		/* setup until the first I/O can go */
	const struct hb_pt_report *pt;	/* NULL: not a passthrough job */
	const struct hb_req_pred *pred;	/* requests per I/O, NULL: none */
	uint64_t write_ios;
	const struct hb_plain_pred *plain;	/* fixedbufs=0: the model */
	const char *plain_pfn;		/* "probed" or "synthetic" */
	const struct hb_kmodel *km;	/* NULL: none */
	bool atomic_unreg;		/* atomic writes sent unregistered */
	uint64_t atomic_unreg_writes;	/* how many */
	const struct hb_md_report *md;	/* NULL: no md_per_io_size */
};

void hb_report_text(const struct hb_report *r, const char *prefix,
		    struct hb_str *out);
void hb_report_json(const struct hb_report *r, struct hb_str *out);
int hb_report_append(const struct hb_report *r, const char *path);

#ifdef __cplusplus
}
#endif

#endif /* HUGEBUF_REPORT_H */
