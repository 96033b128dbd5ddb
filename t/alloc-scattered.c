// SPDX-License-Identifier: GPL-2.0-only
/*
 * contig=scattered (issue 44): a 4 KiB buffer whose neighbouring pages are
 * never neighbouring frames, the chosen worst case of the 4 KiB baseline.
 * As root the PFNs read here from /proc/self/pagemap must show no pair
 * pfn[i + 1] == pfn[i] + 1, for a buffer of many pages and for one that
 * starts inside its first page; every page must be there and writable.
 * Scattering is for the 4k backing only: any other backing, and a mode
 * that is not given or scattered, is a one-line error.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "helpers.h"

static int alloc_scattered(const char *backing, size_t len, size_t head,
			   struct hb_buf *buf)
{
	struct hb_backing b;

	if (hb_backing_parse(backing, &b))
		return t_fail("test bug: %s: %s", backing, hb_errmsg());
	b.contig = HB_CONTIG_SCATTERED;
	return hb_alloc(&b, len, head, buf);
}

static int check_apart(size_t len, size_t head)
{
	uint64_t nr, i, *pfn;
	struct hb_buf buf;
	int ret;

	if (alloc_scattered("4k", len, head, &buf))
		return t_fail("4k scattered, %zu bytes at %zu: %s", len, head,
			      hb_errmsg());
	/* every page ours and written: the pattern reads back */
	t_pattern_fill(buf.addr, buf.len, len, 0);
	nr = buf.map_len / T_SZ_4K;
	pfn = calloc(nr, sizeof(*pfn));
	if (!pfn) {
		hb_free(&buf);
		return t_fail("out of memory");
	}
	ret = t_read_pfns(buf.map, nr, pfn);
	if (ret) {
		ret = t_fail("reading pagemap: %s", strerror(-ret));
		goto out;
	}
	for (i = 0; i < nr && !ret; i++) {
		if (!pfn[i])
			ret = t_fail("page %llu of %llu not present",
				     (unsigned long long)i,
				     (unsigned long long)nr);
		else if (i && pfn[i] == pfn[i - 1] + 1)
			ret = t_fail("%zu bytes at %zu: pages %llu and %llu "
				     "are frames 0x%llx and 0x%llx", len, head,
				     (unsigned long long)i - 1,
				     (unsigned long long)i,
				     (unsigned long long)pfn[i - 1],
				     (unsigned long long)pfn[i]);
	}
	if (!ret && !t_pattern_ok(buf.addr, buf.len, len, 0, NULL))
		ret = t_fail("the buffer lost what was written");
	if (!ret)
		t_info("%zu bytes at %zu: %llu pages, none adjacent", len,
		       head, (unsigned long long)nr);
out:
	free(pfn);
	hb_free(&buf);
	return ret ? ret : t_pass();
}

static int check_refused(void)
{
	enum hb_contig_mode m;
	struct hb_buf buf;

	if (!alloc_scattered("thp", 2ULL << 20, 0, &buf)) {
		hb_free(&buf);
		return t_fail("thp scattered was allocated");
	}
	if (!strstr(hb_errmsg(), "4k"))
		return t_fail("thp scattered: '%s' does not name the 4k "
			      "backing", hb_errmsg());
	if (hb_contig_mode_parse("random", &m) != -EINVAL ||
	    !strstr(hb_errmsg(), "given, scattered or pin"))
		return t_fail("contig 'random': '%s'", hb_errmsg());
	if (hb_contig_mode_parse("scattered", &m) ||
	    m != HB_CONTIG_SCATTERED ||
	    strcmp(hb_contig_mode_name(m), "scattered"))
		return t_fail("contig 'scattered' does not round-trip");
	return t_pass();
}

int main(void)
{
	int ret = t_sub(check_refused());

	if (geteuid())
		return t_done(t_worst(ret, t_skip("the PFNs need "
						  "CAP_SYS_ADMIN: run as root "
						  "to see the frames")));
	ret = t_worst(ret, t_sub(check_apart(8ULL << 20, 0)));
	ret = t_worst(ret, t_sub(check_apart(3 * T_SZ_4K + 100, 512)));
	return t_done(ret);
}
