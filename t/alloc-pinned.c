// SPDX-License-Identifier: GPL-2.0-only
/*
 * contig=pin (issue 44): a 4 KiB buffer left untouched until
 * io_uring_register_buffers() faults it in, as fio's malloc buffers of a
 * read job are.  The long-term pin of the registration
 * (__gup_longterm_locked(), mm/gup.c) allocates under memalloc_pin_save(),
 * so the pages come from the unmovable free lists, not the movable ones a
 * write from user space draws from.
 *
 * /proc/self/pagemap's present bit (readable without privilege) must be
 * clear on every page before the registration and set on every
 * registered page after it, while the mapping's pages outside the buffer
 * stay absent; hb_probe() answers from the recipe before and, as root,
 * from the frames after.  READ_FIXED and WRITE_FIXED across the page
 * boundaries must move the data.  Pinning another backing, and a job
 * that has no registration, writes its buffers first, has unregistered
 * metadata buffers or shares them with clones, are refused in one line
 * naming the fix.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "helpers.h"

#define PM_PRESENT	(1ULL << 63)	/* pagemap.rst: bit 63 */
#define SEED		0x9171ULL

/* present bits of the @nr pages from @addr: 1 each, 0 else; -errno */
static int read_present(const void *addr, uint64_t nr, unsigned char *bit)
{
	off_t off = (off_t)((uintptr_t)addr / T_SZ_4K) * sizeof(uint64_t);
	uint64_t *ent, i;
	ssize_t got;
	int fd, ret = 0;

	ent = calloc(nr, sizeof(*ent));
	if (!ent)
		return -ENOMEM;
	fd = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		free(ent);
		return -errno;
	}
	got = pread(fd, ent, nr * sizeof(*ent), off);
	if (got != (ssize_t)(nr * sizeof(*ent)))
		ret = got < 0 ? -errno : -EIO;
	for (i = 0; i < nr && !ret; i++)
		bit[i] = !!(ent[i] & PM_PRESENT);
	close(fd);
	free(ent);
	return ret;
}

/* pages [@from, @to) of the mapping must all be @want (1 present) */
static int expect_present(const struct hb_buf *buf, uint64_t from,
			  uint64_t to, int want, const char *when)
{
	uint64_t nr = buf->map_len / T_SZ_4K, i;
	unsigned char *bit = calloc(nr, 1);
	int ret;

	if (!bit)
		return t_fail("out of memory");
	ret = read_present(buf->map, nr, bit);
	if (ret) {
		free(bit);
		return t_fail("reading pagemap: %s", strerror(-ret));
	}
	for (i = from; i < to; i++)
		if (bit[i] != want)
			break;
	free(bit);
	if (i < to)
		return t_fail("%s: page %llu of the mapping is %spresent",
			      when, (unsigned long long)i, want ? "not " : "");
	return t_pass();
}

static int alloc_pinned(const char *backing, size_t len, size_t head,
			struct hb_buf *buf)
{
	struct hb_backing b;

	if (hb_backing_parse(backing, &b))
		return t_fail("test bug: %s: %s", backing, hb_errmsg());
	b.contig = HB_CONTIG_PIN;
	return hb_alloc(&b, len, head, buf);
}

/* the probe before registration: the recipe's 4 KiB pages, no frames */
static int probe_unfaulted(const struct hb_buf *buf)
{
	struct hb_probe p;
	int ret;

	if (hb_probe(buf->addr, buf->len, &buf->backing, &p))
		return t_fail("probing the unfaulted buffer: %s", hb_errmsg());
	if (p.source != HB_PROBE_RECIPE || p.contig.known ||
	    p.min_folio != T_SZ_4K || p.max_folio != T_SZ_4K)
		ret = t_fail("unfaulted probe: source %d, contig known %d, "
			     "folios %llu..%llu (%s)", p.source, p.contig.known,
			     (unsigned long long)p.min_folio,
			     (unsigned long long)p.max_folio, p.note);
	else
		ret = t_pass();
	hb_probe_free(&p);
	return ret;
}

/* as root, after: the frames the pin drew, every page its own folio */
static int probe_pinned(const struct hb_buf *buf)
{
	struct hb_probe p;
	int ret;

	if (geteuid())
		return t_skip_check("the frames need CAP_SYS_ADMIN");
	if (hb_probe(buf->addr, buf->len, &buf->backing, &p))
		return t_fail("probing the pinned buffer: %s", hb_errmsg());
	if (p.source != HB_PROBE_KPAGEFLAGS || !p.contig.known ||
	    p.contig.nr_pages != p.nr_pages || p.max_folio != T_SZ_4K)
		ret = t_fail("pinned probe: source %d, contig known %d, %llu "
			     "of %u pages, largest folio %llu", p.source,
			     p.contig.known,
			     (unsigned long long)p.contig.nr_pages, p.nr_pages,
			     (unsigned long long)p.max_folio);
	else
		ret = t_pass();
	if (!ret)
		t_info("%u pages in %llu runs, %.1f%% of neighbours adjacent",
		       p.nr_pages, (unsigned long long)p.contig.nr_runs,
		       100 * hb_contig_share(&p.contig));
	hb_probe_free(&p);
	return ret;
}

/*
 * READ_FIXED and WRITE_FIXED of 3 pages from one O_DIRECT block before a
 * page boundary of the buffer (from the boundary with 4 KiB blocks), and
 * buffered from 8 or 24 bytes past that.
 */
static int check_io(struct io_uring *ring, const struct hb_buf *buf)
{
	struct t_regbuf rb = { ring, buf->addr, buf->len, 0 };
	uintptr_t a = (uintptr_t)buf->addr;
	uint64_t mid, len = 3 * T_SZ_4K;
	struct t_file f;
	int ret;

	ret = t_file_create(&f, 1 << 20, SEED, true);
	if (ret)
		return ret;
	mid = (a + T_SZ_4K) / T_SZ_4K * T_SZ_4K - a;
	if (f.dio_align < T_SZ_4K)
		mid -= f.dio_align;
	if (buf->len < mid + len + 24) {
		t_file_close(&f);
		return t_fail("test bug: a %zu-byte buffer is too short",
			      buf->len);
	}
	ret = t_read_fixed_check(&rb, f.fd, SEED, 8192 + 8, mid + 8, len,
				 "buffered READ_FIXED across pages");
	if (!ret)
		ret = t_read_fixed_check(&rb, f.dfd, SEED, 8192, mid, len,
					 "O_DIRECT READ_FIXED across pages");
	if (!ret)
		ret = t_write_fixed_check(&rb, &f, f.dfd, SEED, 65536, mid,
					  len, "O_DIRECT WRITE_FIXED across "
					  "pages");
	if (!ret)
		ret = t_write_fixed_check(&rb, &f, f.fd, SEED, 4096 + 24,
					  mid + 24, len, "buffered "
					  "WRITE_FIXED across pages");
	t_file_close(&f);
	return ret ? ret : t_pass();
}

static int check_pinned(size_t len, size_t head)
{
	struct io_uring ring;
	struct hb_buf buf;
	struct iovec iov;
	uint64_t first, end;
	int ret;

	if (alloc_pinned("4k", len, head, &buf))
		return t_fail("4k pin, %zu bytes at %zu: %s", len, head,
			      hb_errmsg());
	first = head / T_SZ_4K;
	end = (head + len + T_SZ_4K - 1) / T_SZ_4K;
	ret = expect_present(&buf, 0, buf.map_len / T_SZ_4K, 0,
			     "before registration");
	if (!ret)
		ret = probe_unfaulted(&buf);
	if (!ret)
		ret = t_ring_init(&ring, 4);
	if (ret)
		goto out_free;
	iov.iov_base = buf.addr;
	iov.iov_len = buf.len;
	ret = t_register(&ring, &iov, 1);
	if (ret)
		goto out_ring;
	ret = expect_present(&buf, first, end, 1, "after registration");
	if (!ret)
		ret = expect_present(&buf, end, buf.map_len / T_SZ_4K, 0,
				     "past the buffer, after registration");
	if (!ret)
		ret = t_worst(probe_pinned(&buf), check_io(&ring, &buf));
	if (!ret)
		t_info("%zu bytes at %zu: %llu pages absent before, present "
		       "after registration", len, head,
		       (unsigned long long)(end - first));
	io_uring_unregister_buffers(&ring);
out_ring:
	io_uring_queue_exit(&ring);
out_free:
	hb_free(&buf);
	return ret;
}

/* @use refused by hb_contig_check() with a line holding @fix */
static int expect_refused(const char *backing, unsigned int use,
			  const char *fix)
{
	struct hb_backing b;

	if (hb_backing_parse(backing, &b))
		return t_fail("test bug: %s: %s", backing, hb_errmsg());
	b.contig = HB_CONTIG_PIN;
	if (hb_contig_check(&b, use) != -EINVAL)
		return t_fail("contig=pin on %s, use 0x%x: taken", backing,
			      use);
	if (!strstr(hb_errmsg(), fix) || strchr(hb_errmsg(), '\n'))
		return t_fail("contig=pin on %s, use 0x%x: '%s' does not say "
			      "'%s' in one line", backing, use, hb_errmsg(),
			      fix);
	return t_pass();
}

static int check_refused(void)
{
	struct hb_backing b;
	enum hb_contig_mode m;
	struct hb_buf buf;
	int ret;

	if (!alloc_pinned("thp", 2ULL << 20, 0, &buf)) {
		hb_free(&buf);
		return t_fail("thp pin was allocated");
	}
	if (!strstr(hb_errmsg(), "use backing=4k"))
		return t_fail("thp pin: '%s' does not name the 4k backing",
			      hb_errmsg());
	ret = expect_refused("hugetlb:2M", 0, "use backing=4k");
	ret = t_worst(ret, expect_refused("4k", HB_CONTIG_UNREGISTERED,
					  "use fixedbufs=1"));
	ret = t_worst(ret, expect_refused("4k", HB_CONTIG_WRITTEN,
					  "use a read-only rw="));
	ret = t_worst(ret, expect_refused("4k", HB_CONTIG_UNREG_PARTS,
					  "drop md_per_io_size"));
	ret = t_worst(ret, expect_refused("4k", HB_CONTIG_SHARED,
					  "drop clone_buffers"));
	if (hb_backing_parse("4k", &b))
		return t_fail("test bug: 4k: %s", hb_errmsg());
	b.contig = HB_CONTIG_PIN;
	if (hb_contig_check(&b, 0))
		ret = t_worst(ret, t_fail("contig=pin on 4k, registered and "
					  "unwritten: '%s'", hb_errmsg()));
	if (hb_contig_mode_parse("random", &m) != -EINVAL ||
	    !strstr(hb_errmsg(), "given, scattered or pin"))
		ret = t_worst(ret, t_fail("contig 'random': '%s'",
					  hb_errmsg()));
	if (hb_contig_mode_parse("pin", &m) || m != HB_CONTIG_PIN ||
	    strcmp(hb_contig_mode_name(m), "pin"))
		ret = t_worst(ret, t_fail("contig 'pin' does not round-trip"));
	return ret ? ret : t_pass();
}

int main(void)
{
	int ret = t_sub(check_refused());

	ret = t_worst(ret, t_sub(check_pinned(8ULL << 20, 0)));
	ret = t_worst(ret, t_sub(check_pinned(5 * T_SZ_4K + 100, 512)));
	return t_done(ret);
}
