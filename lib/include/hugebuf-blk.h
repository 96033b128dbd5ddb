/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * hugebuf's block-layer model: bio splits, plain O_DIRECT, NVMe
 * passthrough and the IOMMU mapping, pure; each family names its man3
 * page.
 */
#ifndef HUGEBUF_BLK_H
#define HUGEBUF_BLK_H

#include "hugebuf-model.h"

#ifdef __cplusplus
extern "C" {
#endif

/* a request queue's limits; masks are 2^n - 1, 0 means none */
struct hb_queue_limits {
	uint64_t max_hw_bytes;		/* bytes per request */
	unsigned int max_segments;
	uint64_t max_segment_size;
	uint64_t virt_boundary_mask;
	uint64_t seg_boundary_mask;
	unsigned int dma_align_mask;	/* dma_alignment | dma_pad_mask */
	unsigned int max_integrity_segments;	/* 0: not in sysfs */
};

/* bio splits: hb_split_bio(3) */

/* device requests one I/O makes: modelled, and under each hypothesis */
struct hb_req_pred {
	unsigned int model, none, multi;
};

struct hb_bio_split {
	unsigned int requests;
	uint64_t last_bytes;
	unsigned int last_segs;
};

struct hb_split_req {
	uint64_t bytes;
	unsigned int nr_phys_segments;
};

unsigned int hb_predict_requests(const struct hb_imu *imu, uint64_t max_bytes,
				 unsigned int max_segs, uint64_t max_seg_size);
int hb_split_bio(const struct hb_imu *imu, const struct hb_queue_limits *q,
		 struct hb_bio_split *out);
int hb_split_bio_reqs(const struct hb_imu *imu, const struct hb_queue_limits *q,
		      struct hb_bio_split *out, struct hb_split_req *reqs,
		      unsigned int max_reqs);

/* physical segments of one I/O: hb_model_segments(3) */

/* one bvec by its physical place: bv_page's PFN, bv_offset, bv_len */
struct hb_phys_bvec {
	uint64_t pfn;
	uint32_t offset;
	uint32_t len;
};

enum hb_seg_gen {
	HB_SEG_GEN_BVEC,	/* < 6.16: a scatterlist entry per bvec */
	HB_SEG_GEN_MERGE,	/* 6.16: adjacent bvecs merge in map_sg */
	HB_SEG_GEN_DMA_ITER,	/* 6.17: nvme-pci on the DMA iterator too */
};

enum hb_seg_driver {
	HB_SEG_DRV_NONE,
	HB_SEG_DRV_VIRTIO_BLK,
	HB_SEG_DRV_NVME_PCI,
};

struct hb_seg_cfg {
	enum hb_seg_driver driver;
	bool nvme_sgls;			/* Identify Controller SGLS set */
	unsigned int sgl_threshold;	/* nvme.sgl_threshold (32768) */
};

/* one request */
struct hb_seg_req {
	uint64_t bytes;
	unsigned int nr_phys_segments;	/* the block layer's count */
	unsigned int sg_entries;	/* blk_rq_map_sg() / DMA iterator */
	bool sgl;			/* NVMe: SGL, else PRP */
	unsigned int prp_entries;	/* NVMe PRP: PRP1, PRP2 or list */
	unsigned int sgl_descs;		/* NVMe SGL: data descriptors */
	unsigned int desc_lists;	/* NVMe: PRP or SGL list pages */
	unsigned int virtio_descs;	/* virtio-blk: header, data, status */
};

/* totals over the requests */
struct hb_seg_pred {
	enum hb_seg_gen gen;
	unsigned int requests;
	unsigned int sgl_requests;
	uint64_t bytes;
	uint64_t nr_phys_segments;
	uint64_t sg_entries;
	uint64_t prp_entries;
	uint64_t sgl_descs;
	uint64_t desc_lists;
	uint64_t virtio_descs;
};

enum hb_seg_gen hb_seg_gen_of(const struct hb_kmodel *km);
const char *hb_seg_gen_name(enum hb_seg_gen g);
int hb_phys_bvecs_4k(const uint64_t *pfn, uint64_t nr_pages, uint32_t offset,
		     uint64_t len, struct hb_phys_bvec *bv);
int hb_model_segments(const struct hb_kmodel *km,
		      const struct hb_phys_bvec *bv, unsigned int nr,
		      const struct hb_queue_limits *q,
		      const struct hb_seg_cfg *cfg, struct hb_seg_req *reqs,
		      unsigned int max_reqs, struct hb_seg_pred *out);

/* plain O_DIRECT: hb_model_plain(3) */

struct hb_plain_pred {
	unsigned int bios;		/* bio_iov_iter_get_pages() */
	unsigned int batches;		/* __bio_iov_iter_get_pages() */
	unsigned int adds;		/* pages (or folio runs) added */
	unsigned int merge_tests;
	unsigned int bvecs;		/* adds that started a bvec */
	unsigned int same_page;		/* merges into a page held */
	unsigned int releases;		/* per-folio releases */
	unsigned int requests;		/* 0 without queue limits */
	unsigned int max_bvecs;		/* of the bio with the most */
};

enum hb_plain_field {
	HB_PLAIN_BIOS,
	HB_PLAIN_BATCHES,
	HB_PLAIN_ADDS,
	HB_PLAIN_MERGE_TESTS,
	HB_PLAIN_BVECS,
	HB_PLAIN_UNPINS,
	HB_PLAIN_REQUESTS,
};

int hb_model_plain(const struct hb_kmodel *km, const struct hb_page *pages,
		   const uint64_t *pfn, uint64_t base, uint64_t span,
		   const struct iovec *iov, unsigned int nr_iov,
		   const struct hb_queue_limits *q, struct hb_plain_pred *out);
uint64_t hb_plain_figure(const struct hb_plain_pred *p, enum hb_plain_field f);
bool hb_plain_count_matches(const struct hb_plain_pred *p,
			    enum hb_plain_field f, uint64_t counted);

/* NVMe passthrough: hb_model_pt_map(3) */

enum hb_pt_path {
	HB_PT_DIRECT,	/* the registered pages go to the device */
	HB_PT_COPY,	/* bounce buffer (bio_copy_user_iov) */
	HB_PT_EINVAL,	/* the command fails with -EINVAL */
};

struct hb_pt_map {
	enum hb_pt_path path;
	unsigned int nsegs;		/* DMA segments, or bounce pages */
	unsigned int nr_phys_segments;	/* what the request records */
	bool bounce_over_limits;	/* copy: over max_segments */
	const char *why;		/* short static reason */
};

int hb_model_pt_map(const struct hb_kmodel *km, const struct hb_imu *imu,
		    uint64_t addr, uint64_t len,
		    const struct hb_queue_limits *lim, struct hb_pt_map *out);
const char *hb_pt_path_name(enum hb_pt_path p);

/* the IOMMU mapping of one I/O: hb_model_iommu_io(3) */

enum hb_iommu_gen {
	HB_IOMMU_GEN_SG,	/* dma_map_sgtable() (6.1 to 6.16) */
	HB_IOMMU_GEN_IOVA,	/* dma_iova_link() (6.17 and later) */
};

struct hb_iommu_cfg {
	bool translated;		/* false: identity or no IOMMU */
	bool strict;			/* iommu.strict=1 */
	uint64_t pgsize_bitmap;		/* the domain's page sizes */
	unsigned int rcache_max_order;	/* IOVA_RANGE_CACHE_MAX_SIZE */
	bool sgl;			/* the controller uses SGLs */
};

/* what one I/O makes the kernel do, totals over its requests */
struct hb_iommu_pred {
	int error;			/* 0, or -EINVAL: refused */
	enum hb_iommu_gen gen;
	unsigned int requests;
	unsigned int map_page;		/* iommu_dma_map_page() */
	unsigned int map_sg;		/* iommu_dma_map_sg() */
	unsigned int sg_entries;	/* blk_rq_map_sg() entries */
	unsigned int iova_allocs;	/* alloc_iova_fast() */
	unsigned int iova_uncached;	/* sizes the rcache never holds */
	uint64_t iova_bytes;		/* IOVA space, rounded up */
	unsigned int iommu_maps;	/* __iommu_map() */
	unsigned int map_pages;		/* ops->map_pages */
	uint64_t ptes[3];		/* leaf PTEs: 4 KiB, 2 MiB, 1 GiB */
	unsigned int sync_map;		/* ops->iotlb_sync_map */
	unsigned int unmaps;		/* __iommu_unmap() */
	unsigned int unmap_pages;	/* ops->unmap_pages */
	unsigned int iotlb_syncs;	/* iommu_iotlb_sync() */
	unsigned int fq_queued;		/* queue_iova() */
	unsigned int iova_tries;	/* dma_iova_try_alloc() */
	unsigned int iova_links;	/* dma_iova_link() */
	unsigned int dma_vecs;		/* blk_rq_dma_map_iter_*() segments */
	unsigned int map_phys;		/* dma_map_phys() */
};

/* the figures a counted kernel function stands for */
enum hb_iommu_field {
	HB_IOMMU_REQUESTS,
	HB_IOMMU_DMA_MAP_PAGE,	/* dma_map_page_attrs() */
	HB_IOMMU_DMA_MAP_SG,	/* dma_map_sgtable() */
	HB_IOMMU_MAP_PAGE,	/* iommu_dma_map_page(); 7.x: _map_phys() */
	HB_IOMMU_MAP_SG,	/* iommu_dma_map_sg() */
	HB_IOMMU_IOVA_ALLOCS,
	HB_IOMMU_IOVA_UNCACHED,
	HB_IOMMU_MAPS,		/* __iommu_map(); 7.x iommu_map_nosync() */
	HB_IOMMU_MAP_PAGES,
	HB_IOMMU_PTES_4K,
	HB_IOMMU_PTES_2M,
	HB_IOMMU_SYNC_MAP,
	HB_IOMMU_UNMAPS,
	HB_IOMMU_UNMAP_PAGES,
	HB_IOMMU_IOTLB_SYNCS,
	HB_IOMMU_IOVA_TRIES,	/* dma_iova_try_alloc() */
	HB_IOMMU_IOVA_LINKS,	/* dma_iova_link() */
	HB_IOMMU_DMA_MAP_PHYS,	/* dma_map_phys() */
};

enum hb_iommu_gen hb_iommu_gen_of(const struct hb_kmodel *km);
const char *hb_iommu_gen_name(enum hb_iommu_gen g);
void hb_iommu_cfg_default(struct hb_iommu_cfg *c, bool strict);
int hb_model_iommu_io(const struct hb_kmodel *km, const struct hb_page *pages,
		      const uint64_t *pfn, uint64_t base, uint64_t span,
		      uint64_t addr, uint64_t len, bool pt,
		      const struct hb_queue_limits *lim,
		      const struct hb_iommu_cfg *cfg,
		      struct hb_iommu_pred *out);
uint64_t hb_iommu_figure(const struct hb_iommu_pred *p,
			 const struct hb_iommu_cfg *c, enum hb_iommu_field f);
void hb_iommu_range(const struct hb_iommu_pred *p,
		    const struct hb_iommu_cfg *c, enum hb_iommu_field f,
		    uint64_t *lo, uint64_t *hi);
bool hb_iommu_count_matches(const struct hb_iommu_pred *p,
			    const struct hb_iommu_cfg *c,
			    enum hb_iommu_field f, uint64_t counted);

/* protection information the host computes (PRACT clear): hb_pi(3) */

uint16_t hb_crc16_t10dif(uint16_t crc, const void *buf, size_t len);
uint64_t hb_crc64_nvme(uint64_t crc, const void *buf, size_t len);

/* one LBA format with protection information */
struct hb_pi_fmt {
	unsigned int lba_shift;	/* data bytes per LBA: 1 << lba_shift */
	unsigned int ms;	/* metadata bytes per LBA, the tuple among them */
	unsigned int type;	/* 1, 2 or 3 */
	bool guard64;		/* 64b guard, 16-byte tuple; else 16b, 8 */
	bool pi_first;		/* the tuple opens the metadata, else ends it */
	bool ext;		/* metadata after each LBA's data, else apart */
};

/* the fields filled and checked */
#define HB_PI_GUARD	(1U << 0)
#define HB_PI_APPTAG	(1U << 1)
#define HB_PI_REFTAG	(1U << 2)

/* @nlb LBAs from @slba: data (and with ext their metadata), metadata */
struct hb_pi_io {
	unsigned char *data;
	unsigned char *md;	/* separate metadata, unused with ext */
	uint64_t slba;		/* also the first reference tag (type 2) */
	uint32_t nlb;
	unsigned int checks;	/* HB_PI_* */
	uint16_t app_tag;
	uint16_t app_mask;	/* the application tag's bits checked */
};

/* the first mismatch hb_pi_verify() found */
struct hb_pi_err {
	uint64_t lba;
	unsigned int field;	/* HB_PI_* */
	uint64_t want, got;
};

int hb_pi_fill(const struct hb_pi_fmt *f, const struct hb_pi_io *io);
int hb_pi_verify(const struct hb_pi_fmt *f, const struct hb_pi_io *io,
		 struct hb_pi_err *err);

#ifdef __cplusplus
}
#endif

#endif /* HUGEBUF_BLK_H */
