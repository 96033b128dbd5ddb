// SPDX-License-Identifier: GPL-2.0-only
/*
 * The predicted figures that our exported liburing tests (t/liburing/,
 * standalone, so they cannot ask lib/) carry as constants, held against
 * lib's kernel model for every kernel the model knows:
 *  - PIN_KB_*: what registering the test's buffers adds to VmPin,
 *    hb_model_account() (io_buffer_account_pin(): a folio whole, once);
 *  - BVEC0_LEN_*: bvec[0]'s length for an unaligned start on a coalescing
 *    kernel, hb_model_register() (a8edbb424b13 and later).
 * Every PIN_KB_ / BVEC0_LEN_ constant found in t/liburing/ must be in the
 * table below, so none can go unchecked.  Reads the sources from the tree
 * this program was built in (found from /proc/self/exe: t/, t/static/ or
 * build-unit/t/), or from ./t/liburing; skips where they are absent.
 */
#include <dirent.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "helpers.h"

#define MAX_PAGES	4096
#define UADDR		0x7f0000000000ULL

/* t/liburing of the tree, found by find_src_dir() */
static char src_dir[4096];

/* the pages of the buffers one registration call pins, back to back */
struct layout {
	struct hb_page pages[MAX_PAGES];
	unsigned int per_buf[4];
	unsigned int nr_bufs, nr;
	uint64_t head;		/* the first buffer's offset in its folio */
};

enum figure { PIN_KB, BVEC0_LEN };

struct fig {
	const char *file, *name;
	enum figure kind;
	/* hugetlb/THP buffers: (folios of 2 MiB, head offset, len) each */
	struct { uint64_t head, len; } buf[2];
	unsigned int nr_bufs;
	/* or a hand-made layout */
	void (*make)(struct layout *l);
};

static void add(struct layout *l, uint64_t folio, uint32_t idx, uint32_t order)
{
	if (l->nr >= MAX_PAGES)
		abort();
	l->pages[l->nr].folio = folio;
	l->pages[l->nr].idx = idx;
	l->pages[l->nr].order = order;
	l->nr++;
}

/* fixed-folio-mixed: a 2 MiB folio, then four 4 KiB pages */
static void make_mixed(struct layout *l)
{
	unsigned int i;

	for (i = 0; i < 512; i++)
		add(l, 1, i, 9);
	for (i = 0; i < 4; i++)
		add(l, 100 + i, 0, 0);
	l->per_buf[l->nr_bufs++] = l->nr;
}

/* fixed-folio-thp-mremap: pages 256..511 of one THP, then a whole THP */
static void make_moved_both(struct layout *l)
{
	unsigned int i;

	for (i = 256; i < 512; i++)
		add(l, 1, i, 9);
	for (i = 0; i < 512; i++)
		add(l, 2, i, 9);
	l->per_buf[l->nr_bufs++] = l->nr;
	l->head = 1ULL << 20;
}

static void make_moved_half(struct layout *l)
{
	unsigned int i;

	for (i = 256; i < 512; i++)
		add(l, 1, i, 9);
	l->per_buf[l->nr_bufs++] = l->nr;
	l->head = 1ULL << 20;
}

#define M2 (2ULL << 20)

static const struct fig figs[] = {
	{ "fixed-folio-small.c", "PIN_KB_IN_ONE_FOLIO", PIN_KB,
	  { { 3 * 4096, 5 * 4096 } }, 1, NULL },
	{ "fixed-folio-cross.c", "PIN_KB_FOUR_FOLIOS", PIN_KB,
	  { { 0, 4 * M2 } }, 1, NULL },
	{ "fixed-folio-unaligned.c", "BVEC0_LEN_AT_1234", BVEC0_LEN,
	  { { 0x1234, 3 * M2 - 0x1234 } }, 1, NULL },
	{ "fixed-folio-unaligned.c", "BVEC0_LEN_AT_200", BVEC0_LEN,
	  { { 0x200, 3 * M2 - 0x200 } }, 1, NULL },
	{ "fixed-folio-unaligned.c", "BVEC0_LEN_AT_1000", BVEC0_LEN,
	  { { 0x1000, 3 * M2 - 0x1000 } }, 1, NULL },
	{ "fixed-folio-unaligned.c", "PIN_KB_THREE_FOLIOS", PIN_KB,
	  { { 0x1234, 3 * M2 - 0x1234 } }, 1, NULL },
	{ "fixed-folio-tail.c", "PIN_KB_TWO_AND_A_PART", PIN_KB,
	  { { 0, 2 * M2 + 0x123 } }, 1, NULL },
	{ "fixed-folio-tail.c", "PIN_KB_ONE_AND_A_PAGE", PIN_KB,
	  { { 0, M2 + 4096 } }, 1, NULL },
	{ "fixed-folio-offset.c", "PIN_KB_SIX_FOLIOS", PIN_KB,
	  { { 0, 4 * M2 }, { 0x1000, 2 * M2 - 0x1000 } }, 2, NULL },
	{ "fixed-folio-mixed.c", "PIN_KB_HUGE_AND_SMALL", PIN_KB,
	  { { 0, 0 } }, 0, make_mixed },
	{ "fixed-folio-thp-mremap.c", "PIN_KB_MOVED_BOTH", PIN_KB,
	  { { 0, 0 } }, 0, make_moved_both },
	{ "fixed-folio-thp-mremap.c", "PIN_KB_MOVED_HALF", PIN_KB,
	  { { 0, 0 } }, 0, make_moved_half },
	{ "fixed-folio-vec.c", "PIN_KB_FOUR_FOLIOS", PIN_KB,
	  { { 0, 4 * M2 } }, 1, NULL },
};

/* The value of "#define @name VALUE" in src_dir/@file: 0 or 1. */
static int read_constant(const char *file, const char *name, uint64_t *val)
{
	char path[4400], line[256], word[64];
	unsigned long long v;
	FILE *f;
	int ret = T_EXIT_FAIL;

	snprintf(path, sizeof(path), "%s/%s", src_dir, file);
	f = fopen(path, "re");
	if (!f)
		return t_fail("%s: cannot open it: the table names a file "
			      "that is not in %s", path, src_dir);
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "#define %63s %lli", word, (long long *)&v) ==
			    2 && !strcmp(word, name)) {
			*val = v;
			ret = T_EXIT_PASS;
			break;
		}
	}
	fclose(f);
	if (ret)
		return t_fail("%s: no \"#define %s <number>\"", path, name);
	return ret;
}

static void build(const struct fig *g, struct layout *l)
{
	unsigned int b, n;

	memset(l, 0, sizeof(*l));
	if (g->make) {
		g->make(l);
		return;
	}
	l->head = g->buf[0].head;
	for (b = 0; b < g->nr_bufs; b++) {
		n = (unsigned int)hb_nr_pages(g->buf[b].head, g->buf[b].len);
		if (l->nr + n > MAX_PAGES ||
		    hb_layout_synth(M2, g->buf[b].head, g->buf[b].len,
				    1 + 16 * b, l->pages + l->nr))
			abort();
		l->per_buf[l->nr_bufs++] = n;
		l->nr += n;
	}
}

/* The figure on one kernel; *@applies false where it has no meaning. */
static int model_figure(const struct fig *g, const struct layout *l,
			const struct hb_kmodel *km, uint64_t *out,
			bool *applies)
{
	struct hb_bvec *bvec;
	struct hb_imu imu;
	uint64_t bytes;
	int ret;

	*applies = true;
	if (g->kind == PIN_KB) {
		/* such a kernel refuses a buffer over two kinds of VMA */
		if (g->make == make_mixed && km->pin_checks_vmas) {
			*applies = false;
			return 0;
		}
		ret = hb_model_account(km, l->pages, l->per_buf, l->nr_bufs,
				       &bytes);
		*out = bytes >> 10;
		return ret;
	}
	if (km->gen < HB_KGEN_MULTI) {
		*applies = false;
		return 0;
	}
	bvec = calloc(l->nr, sizeof(*bvec));
	if (!bvec)
		abort();
	ret = hb_model_register(km, l->pages, UADDR + l->head,
				g->buf[0].len, bvec, &imu);
	*out = bvec[0].len;
	free(bvec);
	return ret;
}

static int check_fig(const struct fig *g)
{
	const char *const *names;
	unsigned int i, nr, checked = 0;
	struct hb_kmodel km;
	uint64_t want = 0, got = 0;
	struct layout *l;
	bool applies;
	int ret;

	ret = read_constant(g->file, g->name, &want);
	if (ret)
		return ret;
	l = malloc(sizeof(*l));
	if (!l)
		abort();
	build(g, l);
	nr = hb_kmodel_known(&names);
	for (i = 0; !ret && i < nr; i++) {
		if (hb_kmodel_parse(names[i], &km)) {
			ret = t_fail("kernel %s: %s", names[i], hb_errmsg());
			break;
		}
		if (model_figure(g, l, &km, &got, &applies)) {
			ret = t_fail("%s %s on %s: the model refused: %s",
				     g->file, g->name, names[i], hb_errmsg());
			break;
		}
		if (!applies)
			continue;
		checked++;
		if (got != want)
			ret = t_fail("%s: %s is %llu, the model says %llu on "
				     "%s", g->file, g->name,
				     (unsigned long long)want,
				     (unsigned long long)got, names[i]);
	}
	free(l);
	if (!ret && !checked)
		ret = t_fail("%s %s: no kernel of the model to check it on",
			     g->file, g->name);
	if (!ret) {
		t_info("%s %s = %llu: the model agrees on %u kernels", g->file,
		       g->name, (unsigned long long)want, checked);
		t_pass();
	}
	return ret;
}

/* Every PIN_KB_/BVEC0_LEN_ constant in src_dir is one of the table's. */
static int check_all_listed(void)
{
	char path[4400], line[256], word[64];
	struct dirent *d;
	unsigned int i, seen = 0;
	DIR *dir = opendir(src_dir);
	int ret = T_EXIT_PASS;
	FILE *f;

	if (!dir)
		return t_fail("%s: cannot open it", src_dir);
	while (!ret && (d = readdir(dir))) {
		size_t n = strlen(d->d_name);

		if (n < 3 || strcmp(d->d_name + n - 2, ".c"))
			continue;
		snprintf(path, sizeof(path), "%s/%s", src_dir, d->d_name);
		f = fopen(path, "re");
		if (!f) {
			ret = t_fail("%s: cannot open it", path);
			break;
		}
		while (!ret && fgets(line, sizeof(line), f)) {
			bool found = false;

			if (sscanf(line, "#define %63s", word) != 1 ||
			    (strncmp(word, "PIN_KB_", 7) &&
			     strncmp(word, "BVEC0_LEN_", 10)))
				continue;
			seen++;
			for (i = 0; i < T_ARRAY_SIZE(figs); i++)
				found |= !strcmp(figs[i].file, d->d_name) &&
					 !strcmp(figs[i].name, word);
			if (!found)
				ret = t_fail("%s: %s is not checked against "
					     "the model: add it to this "
					     "test's table",
					     path, word);
		}
		fclose(f);
	}
	closedir(dir);
	if (!ret && seen != T_ARRAY_SIZE(figs))
		ret = t_fail_val("figures in t/liburing (the table has "
				 "entries that match none)",
				 T_ARRAY_SIZE(figs), seen);
	return ret ? ret : t_pass();
}

/* t/liburing next to this program's t/ (t/, t/static/, build-unit/t/) */
static bool find_src_dir(void)
{
	static const char *const rel[] = { "liburing", "../liburing",
					   "../../t/liburing" };
	char exe[2048], probe[4400];
	const char *dir;
	unsigned int i;
	ssize_t n;

	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0) {
		exe[n] = '\0';
		dir = dirname(exe);
		for (i = 0; i < T_ARRAY_SIZE(rel); i++) {
			snprintf(src_dir, sizeof(src_dir), "%s/%s", dir,
				 rel[i]);
			snprintf(probe, sizeof(probe),
				 "%s/fixed-folio-small.c", src_dir);
			if (!access(probe, R_OK))
				return true;
		}
	}
	snprintf(src_dir, sizeof(src_dir), "t/liburing");
	return !access("t/liburing/fixed-folio-small.c", R_OK);
}

int main(int argc, char **argv)
{
	unsigned int i;
	int ret = 0;

	(void)argv;
	if (argc > 1)
		return t_done(t_skip("takes no arguments"));
	if (!find_src_dir())
		return t_done(t_skip("t/liburing/ is not next to this "
				     "program nor in the current directory "
				     "(no source tree here)"));
	for (i = 0; i < T_ARRAY_SIZE(figs); i++)
		ret = t_worst(ret, check_fig(&figs[i]));
	ret = t_worst(ret, check_all_listed());
	return t_done(ret);
}
