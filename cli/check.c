// SPDX-License-Identifier: GPL-2.0-only
/*
 * hugebuf check: allocate a buffer of a backing, probe its folios,
 * register it and measure what the running kernel did (block requests per
 * O_DIRECT READ_FIXED with --file, kernel memory per registration), then
 * take lib's one verdict (hb_coalesce_verdict()) on whether the kernel
 * coalesced and whether that matches its model.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <liburing.h>

#include "cli.h"
/* hb_seterr(): the check's own failures go to lib's message too */
#include "hugebuf-report.h"

/* Reads per request count: other I/O only adds, so take the minimum. */
#define READ_TRIES	10
/* Rounds of READ_TRIES while the minimum is still above the model. */
#define READ_ROUNDS	4
/* Kernel memory measurements per check: take the median. */
#define KMEM_ROUNDS	3

struct check {
	struct opts o;
	struct hb_kmodel km;
	struct hb_buf buf;
	char *addr;		/* the buffer under test (moved or buf.addr) */
	void *resv;		/* --moved: the reservation it was moved into */
	size_t resv_len;
	struct hb_analysis an;	/* probe + the running kernel's model */
	/* the requests when the bio is built by bio_add_page() (< 5.12) */
	struct hb_req_pred fixed_pred;
	struct hb_imu none;	/* hypothesis: no coalescing */
	struct hb_imu multi;	/* hypothesis: multi-folio coalescing */
	struct io_uring ring;
	bool ring_ok;

	/* block requests */
	bool reads_done;
	char dev[64], reads_note[200];
	uint64_t max_bytes, max_seg;
	unsigned int max_segs;
	uint64_t reqs;
	unsigned int rounds;
	unsigned int pred_reqs, pred_none, pred_multi;

	/* kernel memory */
	bool kmem_done;
	char kmem_note[200];
	unsigned int k;
	long kmem_kb;
	long pred_kb, none_kb, multi_kb;
};

/* Fill @fd up to @size bytes with non-zero data so reads hit the disk. */
static int fill_file(int fd, uint64_t size)
{
	static char chunk[1 << 20];
	struct stat st;
	uint64_t off;
	size_t i;

	if (fstat(fd, &st))
		return hb_seterr(errno, "fstat: %s", strerror(errno));
	if ((uint64_t)st.st_size >= size)
		return 0;
	for (i = 0; i < sizeof(chunk); i++)
		chunk[i] = (char)(i * 131 + 7);
	/* one allocation request first keeps the extent contiguous */
	if (posix_fallocate(fd, 0, size))
		return hb_seterr(ENOSPC, "cannot allocate %llu bytes for the "
				 "check file: free some disk space",
				 (unsigned long long)size);
	for (off = st.st_size; off < size; ) {
		size_t n = size - off < sizeof(chunk) ? size - off :
			   sizeof(chunk);
		ssize_t w = pwrite(fd, chunk, n, off);

		if (w <= 0)
			return hb_seterr(w < 0 ? errno : EIO, "writing the "
					 "check file failed: %s",
					 strerror(w < 0 ? errno : EIO));
		off += w;
	}
	if (fsync(fd))
		return hb_seterr(errno, "fsync of the check file failed: %s",
				 strerror(errno));
	return 0;
}

static int open_check_file(struct check *c, const char *path)
{
	int fd, ret;

	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0)
		return hb_seterr(errno, "cannot open --file=%s: %s", path,
				 strerror(errno));
	ret = fill_file(fd, c->o.size);
	close(fd);
	if (ret)
		return ret;
	fd = open(path, O_RDONLY | O_DIRECT | O_CLOEXEC);
	if (fd < 0)
		return hb_seterr(errno, "cannot open --file=%s with O_DIRECT: "
				 "%s (put it on a disk file system such as "
				 "/var/tmp, not tmpfs)", path, strerror(errno));
	return fd;
}

/*
 * Block requests per O_DIRECT READ_FIXED of the whole buffer.  Returns an
 * exit code; a missing --file or unaligned buffer is a note, not an error.
 */
static int measure_reads(struct check *c)
{
	struct hb_queue_limits lim;
	unsigned int lbs;
	int fd, ret;

	if (!c->o.file) {
		snprintf(c->reads_note, sizeof(c->reads_note), "not measured: "
			 "pass --file=PATH on a disk file system to count "
			 "block requests");
		return 0;
	}
	if (hb_blkdev_of_path(c->o.file, c->dev, sizeof(c->dev)))
		return system_error("--file");
	if (hb_blkdev_queue_limits(c->dev, false, &lim))
		return system_error("--file");
	c->max_bytes = lim.max_hw_bytes;
	c->max_segs = lim.max_segments;
	c->max_seg = lim.max_segment_size;
	lbs = hb_dio_align(c->o.file);
	if ((uintptr_t)c->addr % lbs || c->o.size % lbs) {
		snprintf(c->reads_note, sizeof(c->reads_note), "not measured: "
			 "O_DIRECT needs the buffer address and size aligned "
			 "to %u bytes (use an --offset and --size that are "
			 "multiples of %u)", lbs, lbs);
		return 0;
	}
	fd = open_check_file(c, c->o.file);
	if (fd < 0)
		return system_error("--file");
	ret = hb_register_buffers(&c->ring, &(struct iovec){
					  .iov_base = c->addr,
					  .iov_len = c->o.size }, 1);
	if (ret) {
		close(fd);
		return system_error("registering the buffer");
	}
	c->pred_reqs = hb_predict_requests(&c->an.imu[0], c->max_bytes,
					   c->max_segs, c->max_seg);
	if (c->an.km.fixed_bio_add_page) {
		/*
		 * before 5.12 the bio is the plain path's over the same
		 * pages, whatever the imu (hb_predict_io_requests())
		 */
		struct hb_queue_limits q = {
			.max_hw_bytes = c->max_bytes,
			.max_segments = c->max_segs,
			.max_segment_size = c->max_seg,
		};

		if (hb_predict_io_requests(&c->an.km, &c->an.probe[0],
					   (uintptr_t)c->addr, c->o.size, &q,
					   &c->fixed_pred)) {
			close(fd);
			io_uring_unregister_buffers(&c->ring);
			return system_error("predicting the block requests");
		}
		c->pred_reqs = c->fixed_pred.model;
	}
	/*
	 * Other I/O on the disk only adds requests: while the minimum is
	 * above the prediction, look again (a busy disk can stay busy for
	 * a whole round).
	 */
	c->reqs = UINT64_MAX;
	for (c->rounds = 0; c->rounds < READ_ROUNDS &&
			    (c->reqs == UINT64_MAX || c->reqs > c->pred_reqs);
	     c->rounds++) {
		uint64_t n;

		ret = hb_count_read_requests(&c->ring, fd, true, 0,
					     c->addr, c->o.size, 0, c->dev,
					     READ_TRIES, &n);
		if (ret)
			break;
		if (n < c->reqs)
			c->reqs = n;
	}
	io_uring_unregister_buffers(&c->ring);
	close(fd);
	if (ret)
		return system_error("counting block requests");
	c->pred_none = hb_predict_requests(&c->none, c->max_bytes,
					   c->max_segs, c->max_seg);
	c->pred_multi = hb_predict_requests(&c->multi, c->max_bytes,
					    c->max_segs, c->max_seg);
	if (c->an.km.fixed_bio_add_page) {
		c->pred_none = c->fixed_pred.none;
		c->pred_multi = c->fixed_pred.multi;
	}
	c->reads_done = true;
	return 0;
}

static int cmp_long(const void *a, const void *b)
{
	long x = *(const long *)a, y = *(const long *)b;

	return (x > y) - (x < y);
}

/* Δ(SUnreclaim + VmallocUsed) over K registrations, median of rounds. */
static int measure_kmem(struct check *c)
{
	long d[KMEM_ROUNDS];
	unsigned int i;
	int ret;

	c->k = c->o.size <= (256ULL << 20) ? 16 : 4;
	for (i = 0; i < KMEM_ROUNDS; i++) {
		ret = hb_measure_reg_kmem(&c->ring, c->addr, c->o.size,
					  c->k, &d[i]);
		if (ret == -ENOMEM) {
			snprintf(c->kmem_note, sizeof(c->kmem_note),
				 "not measured: %u registrations exceed "
				 "RLIMIT_MEMLOCK (run as root or raise ulimit "
				 "-l)", c->k);
			return 0;
		}
		if (ret == -ENOTSUP) {
			snprintf(c->kmem_note, sizeof(c->kmem_note),
				 "not measured: %s", hb_errmsg());
			return 0;
		}
		if (ret)
			return system_error("measuring kernel memory");
	}
	qsort(d, KMEM_ROUNDS, sizeof(d[0]), cmp_long);
	c->kmem_kb = d[KMEM_ROUNDS / 2];
	c->pred_kb = (long)(c->k * c->an.imu[0].alloc_bytes >> 10);
	c->none_kb = (long)(c->k * c->none.alloc_bytes >> 10);
	c->multi_kb = (long)(c->k * c->multi.alloc_bytes >> 10);
	c->kmem_done = true;
	return 0;
}

/*
 * The one verdict (lib/model/verdict.c) over what was measured, beside the
 * running kernel's model and two hypotheses over the same probed pages:
 * no coalescing (< 6.3) and multi-folio coalescing.
 */
static void check_verdict(const struct check *c,
			  struct hb_coalesce_verdict *v)
{
	struct hb_coalesce_evidence e = {
		.can_coalesce = c->multi.coalesced,
		.requests = { .done = c->reads_done, .measured = c->reqs,
			      .model = c->pred_reqs, .none = c->pred_none,
			      .multi = c->pred_multi },
		.kmem = { .done = c->kmem_done, .measured = c->kmem_kb,
			  .model = c->pred_kb, .none = c->none_kb,
			  .multi = c->multi_kb },
	};

	hb_coalesce_verdict(&e, v);
}

static void print_nodes(const struct hb_bufstats *st)
{
	unsigned int n;

	if (!st->nr_nodes)
		return;
	printf("numa:           ");
	for (n = 0; n < HB_MAX_NODES; n++)
		if (st->node_folios[n])
			printf(" node%u=%u folios", n, st->node_folios[n]);
	printf("\n");
}

/* The buffer's physical runs, and the 4 KiB baseline asked for. */
static void print_contig(const struct check *c)
{
	const struct hb_contig *k = &c->an.probe[0].contig;
	char lb[32];

	printf("contiguity:      contig=%s: ",
	       hb_contig_mode_name(c->o.backing.contig));
	if (!k->known) {
		printf("not measured: the PFNs need CAP_SYS_ADMIN\n");
		return;
	}
	printf("%llu pages in %llu physical runs, longest %llu page%s (%s), "
	       "%.1f%% of neighbouring pages adjacent\n",
	       (unsigned long long)k->nr_pages,
	       (unsigned long long)k->nr_runs,
	       (unsigned long long)k->longest, k->longest == 1 ? "" : "s",
	       hb_fmt_size(k->longest << HB_PAGE_SHIFT, lb, sizeof(lb)),
	       100 * hb_contig_share(k));
}

/* What can make this buffer coalesce ("" when the model says it does) */
static const char *check_advice(const struct check *c)
{
	const struct hb_probe *p = &c->an.probe[0];

	if (c->an.imu[0].coalesced || p->max_folio <= HB_PAGE_SIZE)
		return "";
	return hb_coalesce_advice(&c->km, p->max_folio,
				  (uintptr_t)c->addr & (p->max_folio - 1),
				  c->o.size);
}

static void check_text(const struct check *c,
		       const struct hb_coalesce_verdict *v)
{
	const struct hb_probe *p = &c->an.probe[0];
	char bs[HB_BACKING_STR_MAX], sz[32], a[32], b[32];
	const struct hb_imu *imu = &c->an.imu[0];

	hb_backing_str(&c->o.backing, bs, sizeof(bs));
	printf("buffer:          %s of %s at offset 0x%llx (mapping %s)%s\n",
	       hb_fmt_size(c->o.size, sz, sizeof(sz)), bs,
	       (unsigned long long)c->o.offset,
	       hb_fmt_size(c->buf.map_len, a, sizeof(a)),
	       c->o.backing.kind == HB_BACKING_THP ||
	       c->o.backing.kind == HB_BACKING_MTHP ?
	       (c->buf.huge_verified ? ", huge folios verified" :
		", huge folios NOT verified") : "");
	if (c->o.moved)
		printf("moved:           to %p (2 MiB + 4 KiB), first page 1 MiB "
		       "into its folio\n", (void *)c->addr);
	printf("probe:           %s: %u pages in %u folios of %s..%s (%s)\n",
	       p->source == HB_PROBE_KPAGEFLAGS ? "exact" : "degraded",
	       p->nr_pages, p->nr_folios,
	       hb_fmt_size(p->min_folio, a, sizeof(a)),
	       hb_fmt_size(p->max_folio, b, sizeof(b)), p->note);
	print_contig(c);
	print_nodes(&c->an.st);
	printf("model:           %s (%s): %u bvecs, folio_shift %u, "
	       "coalesced %s, imu %llu B, allocation %llu B\n", c->km.name,
	       hb_kgen_name(c->km.gen), imu->nr_bvecs, imu->folio_shift,
	       yes_no(imu->coalesced), (unsigned long long)imu->imu_bytes,
	       (unsigned long long)imu->alloc_bytes);
	if (c->reads_done)
		printf("block requests:  %llu per %s READ_FIXED on %s (min of "
		       "%u), model %u [max_sectors %s, max_segments %u, "
		       "max_segment_size %s; uncoalesced would be %u]\n",
		       (unsigned long long)c->reqs, sz, c->dev,
		       READ_TRIES * c->rounds,
		       c->pred_reqs, hb_fmt_size(c->max_bytes, a, sizeof(a)),
		       c->max_segs, hb_fmt_size(c->max_seg, b, sizeof(b)),
		       c->pred_none);
	else
		printf("block requests:  %s\n", c->reads_note);
	if (c->kmem_done)
		printf("kernel memory:   %+ld kB over %u registrations "
		       "(SUnreclaim+VmallocUsed, median of %u), model %ld kB "
		       "[uncoalesced would be %ld kB]\n", c->kmem_kb, c->k,
		       KMEM_ROUNDS, c->pred_kb, c->none_kb);
	else
		printf("kernel memory:   %s\n", c->kmem_note);
	printf("kernel coalesced: %s; matches model: %s\n",
	       hb_tristate_name(v->coalesced), yes_no(v->matches_model));
	if (*check_advice(c))
		printf("to coalesce:     %s\n", check_advice(c));
}

/* "contiguity": the physical runs; zeros and "known":false without PFNs */
static void check_contig_json(struct hb_json *j, const struct check *c)
{
	const struct hb_contig *k = &c->an.probe[0].contig;

	hb_json_obj(j, "contiguity");
	hb_json_str(j, "mode", hb_contig_mode_name(c->o.backing.contig));
	hb_json_bool(j, "known", k->known);
	hb_json_u64(j, "pages", k->nr_pages);
	hb_json_u64(j, "runs", k->known ? k->nr_runs : 0);
	hb_json_u64(j, "longest_bytes", k->known ?
		    k->longest << HB_PAGE_SHIFT : 0);
	hb_json_u64(j, "pairs", k->pairs);
	hb_json_u64(j, "adjacent_pairs", k->adjacent);
	hb_json_fixed(j, "adjacent_share", hb_contig_share(k), 4);
	hb_json_end(j);
}

static void check_probe_json(struct hb_json *j, const struct check *c)
{
	const struct hb_probe *p = &c->an.probe[0];
	unsigned int n;
	char key[16];

	hb_json_obj(j, "probe");
	hb_json_str(j, "source", p->source == HB_PROBE_KPAGEFLAGS ? "exact" :
		    "degraded");
	hb_json_u64(j, "nr_pages", p->nr_pages);
	hb_json_u64(j, "nr_folios", p->nr_folios);
	hb_json_u64(j, "min_folio", p->min_folio);
	hb_json_u64(j, "max_folio", p->max_folio);
	hb_json_str(j, "note", p->note);
	check_contig_json(j, c);
	hb_json_obj(j, "nodes");
	for (n = 0; n < HB_MAX_NODES; n++) {
		if (!c->an.st.node_folios[n])
			continue;
		snprintf(key, sizeof(key), "%u", n);
		hb_json_u64(j, key, c->an.st.node_folios[n]);
	}
	hb_json_end(j);
	hb_json_end(j);
}

static void check_model_json(struct hb_json *j, const struct check *c)
{
	const struct hb_imu *imu = &c->an.imu[0];

	hb_json_obj(j, "model");
	hb_json_str(j, "kernel", c->km.name);
	hb_json_u64(j, "nr_bvecs", imu->nr_bvecs);
	hb_json_u64(j, "folio_shift", imu->folio_shift);
	hb_json_bool(j, "coalesced", imu->coalesced);
	hb_json_u64(j, "imu_bytes", imu->imu_bytes);
	hb_json_u64(j, "alloc_bytes", imu->alloc_bytes);
	hb_json_end(j);
}

static void check_requests_json(struct hb_json *j, const struct check *c)
{
	hb_json_obj(j, "requests");
	if (!c->reads_done) {
		hb_json_str(j, "note", c->reads_note);
		hb_json_end(j);
		return;
	}
	hb_json_str(j, "device", c->dev);
	hb_json_u64(j, "measured", c->reqs);
	hb_json_u64(j, "predicted", c->pred_reqs);
	hb_json_u64(j, "uncoalesced", c->pred_none);
	hb_json_u64(j, "tries", READ_TRIES * c->rounds);
	hb_json_u64(j, "max_sectors_bytes", c->max_bytes);
	hb_json_u64(j, "max_segments", c->max_segs);
	hb_json_u64(j, "max_segment_size", c->max_seg);
	hb_json_end(j);
}

static void check_kmem_json(struct hb_json *j, const struct check *c)
{
	hb_json_obj(j, "kmem");
	if (!c->kmem_done) {
		hb_json_str(j, "note", c->kmem_note);
		hb_json_end(j);
		return;
	}
	hb_json_u64(j, "registrations", c->k);
	hb_json_i64(j, "delta_kb", c->kmem_kb);
	hb_json_i64(j, "predicted_kb", c->pred_kb);
	hb_json_i64(j, "uncoalesced_kb", c->none_kb);
	hb_json_end(j);
}

static int check_json(const struct check *c,
		      const struct hb_coalesce_verdict *v)
{
	char bs[HB_BACKING_STR_MAX];
	struct hb_str out;
	struct hb_json j;

	hb_backing_str(&c->o.backing, bs, sizeof(bs));
	hb_str_init(&out);
	hb_json_init(&j, &out);
	hb_json_obj(&j, NULL);
	hb_json_str(&j, "backing", bs);
	hb_json_u64(&j, "size", c->o.size);
	hb_json_u64(&j, "offset", c->o.offset);
	hb_json_u64(&j, "map_len", c->buf.map_len);
	hb_json_bool(&j, "huge_verified", c->buf.huge_verified);
	hb_json_bool(&j, "moved", c->o.moved);
	check_probe_json(&j, c);
	check_model_json(&j, c);
	check_requests_json(&j, c);
	check_kmem_json(&j, c);
	hb_json_str(&j, "kernel_coalesced", hb_tristate_name(v->coalesced));
	hb_json_bool(&j, "matches_model", v->matches_model);
	hb_json_str(&j, "coalesce_advice", check_advice(c));
	hb_json_end(&j);
	return print_json(&j);
}

/*
 * The running kernel's model over the probed pages (hb_analyze), and two
 * hypotheses over the same pages to tell what the kernel did: no
 * coalescing (< 6.3) and multi-folio coalescing.
 */
static int check_models(struct check *c)
{
	struct iovec iov = { .iov_base = c->addr, .iov_len = c->o.size };

	if (hb_analyze(&c->km, &iov, 1, &c->o.backing, 0, 0, HB_ANALYZE_KEEP,
		       &c->an))
		return system_error("probing and modelling the buffer");
	if (hb_imu_hypotheses(&c->km, c->an.probe[0].pages,
			      (uintptr_t)c->addr, c->o.size, &c->none,
			      &c->multi))
		return system_error("modelling the registration");
	return 0;
}

/* Registering the buffer must fit RLIMIT_MEMLOCK (the one rule in lib/) */
static int check_memlock(struct check *c)
{
	struct hb_sysinfo si;

	if (hb_sysinfo_read(&si) ||
	    hb_check_memlock(&si, c->an.st.charged_bytes))
		return system_error("registering the buffer");
	return 0;
}

/*
 * --moved: the buffer is the second half of a THP and the THPs after it,
 * moved by mremap() to an address 4 KiB past a 2 MiB boundary, so its
 * first page sits 1 MiB into its folio while the address says 4 KiB: the
 * case 3a3c6d61577d (6.16, 6.12.36) fixed.
 */
static int move_thp(struct check *c)
{
	size_t two = 2ULL << 20;
	uintptr_t dst;
	void *moved;

	c->resv_len = c->o.size + two + HB_PAGE_SIZE;
	c->resv = mmap(NULL, c->resv_len, PROT_NONE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (c->resv == MAP_FAILED) {
		c->resv = NULL;
		return hb_seterr(errno, "reserving %zu bytes: %s", c->resv_len,
				 strerror(errno));
	}
	dst = ((uintptr_t)c->resv + two - 1) / two * two + HB_PAGE_SIZE;
	moved = mremap((char *)c->buf.map + two / 2, c->o.size, c->o.size,
		       MREMAP_MAYMOVE | MREMAP_FIXED, (void *)dst);
	if (moved == MAP_FAILED)
		return hb_seterr(errno, "mremap of the THP buffer failed: %s",
				 strerror(errno));
	c->addr = moved;
	return 0;
}

static void check_cleanup(struct check *c)
{
	hb_imu_free(&c->none);
	hb_imu_free(&c->multi);
	if (c->ring_ok)
		io_uring_queue_exit(&c->ring);
	hb_analysis_free(&c->an);
	if (c->resv)
		munmap(c->resv, c->resv_len);
	if (c->addr && c->addr != c->buf.addr)
		hb_free_moved(&c->buf, 1 << 20, c->o.size);
	else
		hb_free(&c->buf);
}

/* The options check takes beyond parse_opts(), and their defaults. */
static int check_args(struct check *c)
{
	if (!c->o.have_backing)
		hb_backing_parse("hugetlb:2M", &c->o.backing);
	if (!c->o.have_size)
		c->o.size = 8ULL << 20;
	if (check_offset(&c->o))
		return EXIT_USAGE;
	if (hb_kmodel_running(&c->km))
		return usage_error("%s", hb_errmsg());
	if (check_size_limit(&c->o, &c->km, c->o.offset))
		return EXIT_USAGE;
	/* check registers the whole buffer and writes none of it before */
	c->o.backing.contig = c->o.contig;
	if (hb_contig_check(&c->o.backing, 0))
		return usage_error("--%s", hb_errmsg());
	if (c->o.moved && (c->o.backing.kind != HB_BACKING_THP ||
			   c->o.offset || c->o.size % HB_PAGE_SIZE))
		return usage_error("--moved needs --backing=thp, no --offset "
				   "and a --size in whole 4 KiB pages");
	return 0;
}

/*
 * contig=pin: the pages were modelled before they had frames (the probe's
 * recipe); one registration faults them in, as the engine's does, and
 * the buffer is probed and modelled again over what it drew.
 */
static int check_pin_fault(struct check *c)
{
	struct iovec iov = { .iov_base = c->addr, .iov_len = c->o.size };

	if (c->o.backing.contig != HB_CONTIG_PIN)
		return 0;
	if (hb_register_buffers(&c->ring, &iov, 1))
		return system_error("registering the buffer");
	io_uring_unregister_buffers(&c->ring);
	hb_imu_free(&c->none);
	hb_imu_free(&c->multi);
	hb_analysis_free(&c->an);
	return check_models(c);
}

/* A registration lib's model says will be slow: one line, and go on. */
static void check_reg_cost(const struct check *c)
{
	char msg[512];

	if (hb_reg_cost_warning(&c->an.st.reg_cost, msg, sizeof(msg)) > 0)
		fprintf(stderr, "%s: warning: %s\n", CLI_NAME, msg);
}

/* Allocate (and --moved: move), probe, model, register and measure. */
static int check_measure(struct check *c)
{
	int ret;

	/* --moved takes the buffer from 1 MiB into the first THP */
	if (hb_alloc(&c->o.backing, c->o.size + (c->o.moved ? 1 << 20 : 0),
		     c->o.offset, &c->buf))
		return system_error("allocating the buffer");
	c->addr = c->buf.addr;
	if (c->o.moved && move_thp(c))
		return system_error("--moved");
	if (check_models(c) || check_memlock(c))
		return EXIT_SYSTEM;
	check_reg_cost(c);
	ret = io_uring_queue_init(8, &c->ring, 0);
	if (ret) {
		fprintf(stderr, "%s: io_uring_queue_init failed: %s (is "
			"io_uring disabled in "
			"/proc/sys/kernel/io_uring_disabled?)\n", CLI_NAME,
			strerror(-ret));
		return EXIT_SYSTEM;
	}
	c->ring_ok = true;
	ret = check_pin_fault(c);
	if (!ret)
		ret = measure_reads(c);
	if (ret)
		return ret;
	return measure_kmem(c);
}

int cmd_check(int argc, char **argv)
{
	struct hb_coalesce_verdict v;
	struct check *c;
	int ret;

	c = calloc(1, sizeof(*c));
	if (!c)
		return system_error("out of memory");
	c->buf.memfd = -1;
	ret = parse_opts("check", argc, argv, &c->o);
	if (!ret)
		ret = check_args(c);
	if (!ret)
		ret = check_measure(c);
	if (ret)
		goto out;
	check_verdict(c, &v);
	if (c->o.json)
		ret = check_json(c, &v);
	else
		check_text(c, &v);
	if (!ret)
		ret = v.matches_model ? EXIT_MATCH : EXIT_MISMATCH;
out:
	check_cleanup(c);
	free(c);
	return ret;
}
