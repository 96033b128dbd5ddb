// SPDX-License-Identifier: GPL-2.0-only
/*
 * regbuf-probe: the kernel harness's own measurement of registered-buffer
 * coalescing, run inside the qemu guest by kernel/ktest.sh.
 *
 * It measures the two userspace-visible signals of coalescing (see
 * docs/kernel-rules.md section 10) and checks the data paths the
 * backport touches:
 *
 *   reqs     block requests per 8 MiB O_DIRECT READ_FIXED (minimum of
 *            several reads, /sys/dev/block/M:m/stat field 1), from 2 MiB
 *            hugetlb and from 4 KiB pages
 *   kmem     Delta(SUnreclaim + VmallocUsed) per registration of a 512 MiB
 *            hugetlb buffer, registered K times in one call
 *   data     READ_FIXED (buffered and O_DIRECT) and WRITE_FIXED at folio
 *            boundaries: offset 0, bv_len - 1, exactly bv_len (the
 *            zero-length-bvec case), spans across bvecs, the last byte; for
 *            buffers starting at +0, +0x1000 and +0x1234 inside a hugepage,
 *            for 4 KiB pages, for a THP entered at a tail page and for THPs
 *            mremap()ed to addresses not congruent to their physical offset
 *   vmpin    VmPin equals whole hugepages while registered and returns to
 *            its baseline after every unregister
 *
 * Every measurement comes from lib/ (linked statically): hb_vmpin_kb(),
 * hb_measure_reg_kmem() (SUnreclaim + VmallocUsed), hb_count_read_requests()
 * over /sys/block/<dev>/stat, hb_alloc(), hb_probe() (pagemap and
 * kpageflags) and hb_kmodel_detect().
 *
 * Output: "PROBE key=value" lines and one "PROBE-CASE name PASS|FAIL|SKIP"
 * line per case. Exit status follows the liburing convention: 0 pass,
 * 1 fail, 77 skip (nothing could run).
 *
 * Usage: regbuf-probe [-d DIR] [-k K] [-n READS]
 *   DIR defaults to $HUGEBUF_TEST_DIR, then ".". Needs root for
 *   /proc/self/pagemap PFNs (THP cases are skipped without them).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../../t/helpers.h"

#define KiB		1024UL
#define MiB		(1024UL * KiB)
#define HPAGE		T_SZ_2M
#define PAGE		T_SZ_4K
#define FILE_SIZE	(16 * MiB)
#define GUARD		0xa5
/* the pattern of the data file: file offset o holds the pattern of SEED at o */
#define SEED		0

static const char *dir = ".";
static char data_path[4096], wr_path[4096];
static int nr_fail, nr_pass, nr_skip;
static unsigned long vmpin_base;

/* ---- small helpers ---------------------------------------------------- */

static void report(const char *name, int res)
{
	static const char *const str[] = { "PASS", "FAIL", "SKIP" };

	printf("PROBE-CASE %s %s\n", name, str[res]);
	fflush(stdout);
	if (res == 0)
		nr_pass++;
	else if (res == 1)
		nr_fail++;
	else
		nr_skip++;
}

/* the data file: FILE_SIZE bytes of the pattern, on disk */
static int make_data_file(void)
{
	size_t chunk = 1 * MiB, off;
	uint8_t *buf = malloc(chunk);
	int fd, ret = -1;

	if (!buf)
		return -1;
	fd = open(data_path, O_CREAT | O_TRUNC | O_WRONLY, 0644);
	if (fd < 0)
		goto out;
	for (off = 0; off < FILE_SIZE; off += chunk) {
		t_pattern_fill(buf, chunk, SEED, off);
		if (pwrite(fd, buf, chunk, off) != (ssize_t)chunk)
			goto out_close;
	}
	if (fsync(fd))
		goto out_close;
	ret = 0;
out_close:
	close(fd);
out:
	free(buf);
	return ret;
}

/* ---- measurement: requests per 8 MiB READ_FIXED ------------------------ */

static long measure_reqs(struct io_uring *ring, const char *backing,
			 int nreads)
{
	struct hb_buf r;
	struct iovec iov;
	uint64_t best = 0;
	char dev[64];
	long res = -1;
	int fd, ret;

	if (t_alloc_errno(backing, 8 * MiB, 0, &r))
		return -2;
	fd = open(data_path, O_RDONLY | O_DIRECT);
	if (fd < 0)
		goto out_free;
	if (hb_blkdev_of_path(data_path, dev, sizeof(dev))) {
		fprintf(stderr, "reqs: %s\n", hb_errmsg());
		goto out_close;
	}
	iov.iov_base = r.addr;
	iov.iov_len = 8 * MiB;
	if (io_uring_register_buffers(ring, &iov, 1))
		goto out_close;
	ret = hb_count_read_requests(ring, fd, true, 0, r.addr, 8 * MiB, 0,
				     dev, (unsigned int)nreads, &best);
	if (ret)
		fprintf(stderr, "reqs: %s\n", hb_errmsg());
	else if (t_pattern_mismatch(r.addr, 8 * MiB, SEED, 0) >= 0)
		fprintf(stderr, "reqs: data mismatch\n");
	else
		res = (long)best;
	io_uring_unregister_buffers(ring);
out_close:
	close(fd);
out_free:
	hb_free(&r);
	return res;
}

/* ---- measurement: kernel memory per 512 MiB registration -------------- */

static long measure_kmem(struct io_uring *ring, int k)
{
	struct hb_buf r;
	long delta, res = -1;
	int ret;

	if (t_alloc_errno("hugetlb:2M", 512 * MiB, 0, &r))
		return -2;
	ret = hb_measure_reg_kmem(ring, r.addr, 512 * MiB, (unsigned int)k,
				  &delta);
	if (!ret) {
		res = delta / k;
		printf("PROBE kmem_total_kb=%ld k=%d\n", delta, k);
	} else if (ret == -ENOTSUP) {
		/* the debug guest's KASAN: lib/resource/measure.c says why */
		printf("PROBE kmem_skip=%s\n", hb_errmsg());
		res = -2;
	}
	hb_free(&r);
	return res;
}

/* ---- which kernel this is, without HUGEBUF_KERNEL --------------------- */

static void print_kdetect(void)
{
	struct hb_kdetect d;

	if (hb_kmodel_detect(&d)) {
		printf("PROBE kdetect_error=%s\n", hb_errmsg());
		return;
	}
	printf("PROBE kdetect_release=%s\n", d.release);
	printf("PROBE kdetect_version=%s\n", d.version_km.name);
	printf("PROBE kdetect_behaviour=%s\n",
	       d.behaviour_ok ? d.behaviour_km.name : "not-run");
	printf("PROBE kdetect_agreed=%s\n", d.agreed ? "yes" : "NO");
	printf("PROBE kdetect_chosen=%s\n", d.chosen.name);
	printf("PROBE kdetect_usec=%u\n", d.usec);
	printf("PROBE kdetect_seen vaddr=%d single=%d multi=%d dedup=%d\n",
	       d.first_bvec_vaddr, d.coalesce_single, d.coalesce_multi,
	       d.batch_dedup);
	printf("PROBE kdetect_summary %s\n", d.summary);
	if (*d.warning)
		printf("PROBE kdetect_warning %s\n", d.warning);
	if (*d.note)
		printf("PROBE kdetect_note %s\n", d.note);
}

/* ---- data checks ------------------------------------------------------ */

/*
 * One READ_FIXED of len bytes at registered-buffer offset o (file offset =
 * the same byte's offset from the 2 MiB aligned region base, so O_DIRECT
 * alignment of address and file offset coincide), with guard bytes around
 * the target range.
 */
static int check_read(struct io_uring *ring, int fd, uint8_t *base,
		      uint8_t *reg, size_t reg_len, size_t o, size_t len,
		      const char *what)
{
	uint8_t *a = reg + o;
	size_t g_lo = o < 64 ? o : 64;
	size_t g_hi = reg_len - (o + len) < 64 ? reg_len - (o + len) : 64;
	long bad;
	int ret;

	memset(a - g_lo, GUARD, g_lo + len + g_hi);
	ret = t_io(ring, IORING_OP_READ_FIXED, fd, a, len, a - base, 0);
	if (ret != (int)len) {
		fprintf(stderr, "%s: read o=%#zx len=%#zx res=%d\n", what, o,
			len, ret);
		return 1;
	}
	bad = t_pattern_mismatch(a, len, SEED, a - base);
	if (bad >= 0) {
		fprintf(stderr, "%s: data mismatch o=%#zx len=%#zx at +%#lx\n",
			what, o, len, bad);
		return 1;
	}
	for (size_t i = 0; i < g_lo; i++)
		if (a[-1 - (long)i] != GUARD)
			goto guard;
	for (size_t i = 0; i < g_hi; i++)
		if (a[len + i] != GUARD)
			goto guard;
	return 0;
guard:
	fprintf(stderr, "%s: guard overwritten o=%#zx len=%#zx\n", what, o,
		len);
	return 1;
}

/*
 * Register [reg, reg + reg_len) and run reads at the interesting offsets;
 * bv0 is the expected length of the first bvec when coalesced (the distance
 * to the end of the first folio), or 0 when no folio structure is expected.
 */
static int check_buffer(struct io_uring *ring, uint8_t *base, uint8_t *reg,
			size_t reg_len, size_t bv0, const char *what)
{
	size_t offs[] = { 0, 1, bv0 - 1, bv0, bv0 + 1, bv0 + HPAGE - 1,
			  bv0 + HPAGE, bv0 + HPAGE + 1, reg_len - 1 };
	struct iovec iov = { .iov_base = reg, .iov_len = reg_len };
	int fd, dfd, wfd, ret = 0;
	long pin;

	fd = open(data_path, O_RDONLY);
	dfd = open(data_path, O_RDONLY | O_DIRECT);
	wfd = open(wr_path, O_CREAT | O_TRUNC | O_RDWR, 0644);
	if (fd < 0 || dfd < 0 || wfd < 0) {
		perror("open");
		ret = 1;
		goto out;
	}
	if (io_uring_register_buffers(ring, &iov, 1)) {
		fprintf(stderr, "%s: register failed\n", what);
		ret = 1;
		goto out;
	}
	pin = hb_vmpin_kb();
	printf("PROBE vmpin_kb[%s]=%ld\n", what, pin - (long)vmpin_base);

	/* single bytes and short spans at every boundary */
	for (size_t i = 0; i < sizeof(offs) / sizeof(offs[0]); i++) {
		size_t o = offs[i];

		if (o >= reg_len)
			continue;
		ret |= check_read(ring, fd, base, reg, reg_len, o, 1, what);
		if (o + 300 <= reg_len)
			ret |= check_read(ring, fd, base, reg, reg_len, o, 300,
					  what);
		if (o >= 150 && o + 150 <= reg_len)
			ret |= check_read(ring, fd, base, reg, reg_len,
					  o - 150, 300, what);
	}
	/* a span covering bvec[0]'s tail, all of bvec[1] and more */
	if (bv0 >= PAGE && bv0 + HPAGE + PAGE <= reg_len)
		ret |= check_read(ring, fd, base, reg, reg_len, bv0 - PAGE,
				  HPAGE + 2 * PAGE, what);
	/* the whole buffer */
	ret |= check_read(ring, fd, base, reg, reg_len, 0, reg_len, what);

	/* O_DIRECT at 512-aligned addresses, incl. exactly bv_len */
	for (size_t i = 0; i < sizeof(offs) / sizeof(offs[0]); i++) {
		size_t o = (offs[i] + 511) & ~511UL;
		size_t adj = ((uintptr_t)(reg + o)) & 511;

		o += adj ? 512 - adj : 0;
		if (o + 64 * KiB > reg_len)
			continue;
		ret |= check_read(ring, dfd, base, reg, reg_len, o, 64 * KiB,
				  what);
	}

	/* WRITE_FIXED of the whole buffer, read back with pread() */
	t_pattern_fill(reg, reg_len, SEED, reg - base);
	if (t_io(ring, IORING_OP_WRITE_FIXED, wfd, reg, reg_len, reg - base,
		 0) != (int)reg_len) {
		fprintf(stderr, "%s: write_fixed failed\n", what);
		ret = 1;
	} else {
		uint8_t *chk = malloc(reg_len);

		if (!chk ||
		    pread(wfd, chk, reg_len, reg - base) != (ssize_t)reg_len ||
		    t_pattern_mismatch(chk, reg_len, SEED, reg - base) >= 0) {
			fprintf(stderr, "%s: write_fixed data mismatch\n",
				what);
			ret = 1;
		}
		free(chk);
	}

	io_uring_unregister_buffers(ring);
	if (hb_vmpin_kb() != (long)vmpin_base) {
		fprintf(stderr, "%s: VmPin %ld kB after unregister, baseline %lu\n",
			what, hb_vmpin_kb(), vmpin_base);
		ret = 1;
	}
out:
	if (fd >= 0)
		close(fd);
	if (dfd >= 0)
		close(dfd);
	if (wfd >= 0)
		close(wfd);
	unlink(wr_path);
	return ret ? 1 : 0;
}

/*
 * @len bytes of @backing starting @start bytes into the first folio of a
 * mapping that hb_alloc() aligns to 2 MiB (the 4k baseline too), so file
 * offsets (= offsets from the mapping) and addresses agree mod 2 MiB.
 * @bv0: the first bvec's length once coalesced.
 */
static void case_buffer(struct io_uring *ring, const char *backing,
			size_t start, size_t len, size_t bv0, const char *name)
{
	struct hb_buf r;
	int ret;

	if (t_alloc_errno(backing, len, start, &r)) {
		report(name, 2);
		return;
	}
	ret = check_buffer(ring, r.map, r.addr, len, bv0, name);
	hb_free(&r);
	report(name, ret);
}

/* a THP entered at its second page (the 2025 head-page unpin bug) */
static void case_thp_tail(struct io_uring *ring)
{
	const char *name = "data-thp-tail";
	size_t len = 2 * PAGE + 100;
	struct hb_buf r;
	int ret;

	if (t_alloc_errno("thp", len, PAGE, &r)) {
		report(name, 2);
		return;
	}
	if (!r.huge_verified || !t_thp_backed(r.map, HPAGE)) {
		fprintf(stderr, "%s: no THP\n", name);
		hb_free(&r);
		report(name, 2);
		return;
	}
	ret = check_buffer(ring, r.map, r.addr, len, HPAGE - PAGE, name);
	hb_free(&r);
	report(name, ret);
}

/* move the second half of THP X and all of THP Y to @b: bytes moved */
static size_t move_thps(uint8_t *src, uint8_t *b)
{
	if (mremap(src + MiB, MiB, MiB, MREMAP_MAYMOVE | MREMAP_FIXED, b) ==
	    MAP_FAILED)
		return 0;
	if (mremap(src + HPAGE, HPAGE, HPAGE, MREMAP_MAYMOVE | MREMAP_FIXED,
		   b + MiB) == MAP_FAILED)
		return MiB;
	return 3 * MiB;
}

/*
 * The second half of THP X followed by all of THP Y, moved to a 2 MiB
 * aligned address B: the user address of every byte is 1 MiB off its
 * physical offset in its folio (the 3a3c6d61577d bug).
 */
static void case_thp_mremap(struct io_uring *ring)
{
	const char *name = "data-thp-mremap";
	struct hb_buf src, dst;
	size_t moved;
	int ret;

	if (t_alloc_errno("thp", 2 * HPAGE, 0, &src)) {
		report(name, 2);
		return;
	}
	if (!src.huge_verified || !t_thp_backed(src.map, 2 * HPAGE)) {
		fprintf(stderr, "%s: no THP\n", name);
		hb_free(&src);
		report(name, 2);
		return;
	}
	if (t_alloc_errno("4k", 4 * HPAGE, 0, &dst)) {
		hb_free(&src);
		report(name, 2);
		return;
	}
	moved = move_thps(src.map, dst.map);
	if (moved != 3 * MiB) {
		perror("mremap");
		ret = 1;
	} else if (!t_thp_backed(dst.map, 3 * MiB)) {
		fprintf(stderr, "%s: THP split by mremap\n", name);
		ret = 2;
	} else {
		ret = check_buffer(ring, dst.map, dst.map, 3 * MiB, MiB, name);
	}
	hb_free(&dst);
	/* not the hole the moved pages left: it may hold other mappings */
	hb_free_moved(&src, MiB, moved);
	report(name, ret);
}

int main(int argc, char **argv)
{
	struct io_uring ring;
	int k = 16, nreads = 5, opt;
	long reqs_huge, reqs_small, kmem;
	const char *env = getenv("HUGEBUF_TEST_DIR");

	if (env && *env)
		dir = env;
	while ((opt = getopt(argc, argv, "d:k:n:")) != -1) {
		switch (opt) {
		case 'd':
			dir = optarg;
			break;
		case 'k':
			k = atoi(optarg);
			break;
		case 'n':
			nreads = atoi(optarg);
			break;
		default:
			fprintf(stderr, "usage: %s [-d dir] [-k K] [-n reads]\n",
				argv[0]);
			return 1;
		}
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	snprintf(data_path, sizeof(data_path), "%s/regbuf-probe.dat", dir);
	snprintf(wr_path, sizeof(wr_path), "%s/regbuf-probe.wr", dir);

	if (io_uring_queue_init(8, &ring, 0)) {
		fprintf(stderr, "io_uring not available\n");
		return 77;
	}
	if (make_data_file()) {
		perror("data file");
		return 1;
	}
	print_kdetect();
	vmpin_base = hb_vmpin_kb();
	printf("PROBE vmpin_base_kb=%lu\n", vmpin_base);

	reqs_huge = measure_reqs(&ring, "hugetlb:2M", nreads);
	reqs_small = measure_reqs(&ring, "4k", nreads);
	printf("PROBE reqs_hugetlb=%ld\n", reqs_huge);
	printf("PROBE reqs_4k=%ld\n", reqs_small);
	report("reqs-hugetlb", reqs_huge == -2 ? 2 : reqs_huge < 0);
	report("reqs-4k", reqs_small < 0);

	kmem = measure_kmem(&ring, k);
	printf("PROBE kmem_per_512m_kb=%ld\n", kmem);
	report("kmem-512m-hugetlb", kmem == -2 ? 2 : kmem < 0);

	/* a partial last folio: 3 hugepages and 5 pages from the mapping */
	case_buffer(&ring, "hugetlb:2M", 0, 3 * HPAGE + 5 * PAGE, HPAGE,
		    "data-hugetlb+0");
	case_buffer(&ring, "hugetlb:2M", 0x1000, 3 * HPAGE + 4 * PAGE,
		    HPAGE - 0x1000, "data-hugetlb+0x1000");
	case_buffer(&ring, "hugetlb:2M", 0x1234, 3 * HPAGE + 5 * PAGE - 0x1234,
		    HPAGE - 0x1234, "data-hugetlb+0x1234");
	case_buffer(&ring, "4k", 0x1234, 3 * HPAGE - 0x1234, PAGE - 0x234,
		    "data-4k+0x1234");
	case_thp_tail(&ring);
	case_thp_mremap(&ring);

	printf("PROBE vmpin_end_kb=%ld\n", hb_vmpin_kb());
	if (hb_vmpin_kb() != (long)vmpin_base) {
		fprintf(stderr, "VmPin did not return to its baseline\n");
		nr_fail++;
	}
	io_uring_queue_exit(&ring);
	unlink(data_path);
	printf("PROBE summary pass=%d fail=%d skip=%d\n", nr_pass, nr_fail,
	       nr_skip);
	if (nr_fail)
		return 1;
	return nr_pass ? 0 : 77;
}
