/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Private helpers of lib/: not part of the API.  Every file of lib/
 * includes this one, and through it every header of lib/.
 */
#ifndef HUGEBUF_INTERNAL_H
#define HUGEBUF_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "foliomap.h"
#include "hugebuf.h"
#include "jobplan.h"
#include "json.h"
#include "preflight.h"
#include "ring.h"
#include "sysread.h"

/*
 * lib/regcost.c's walk, one imu at a time (hb_analyze() feeds it the imus
 * it builds anyway; hb_model_register_cost() builds its own): init, an
 * add per buffer @k in registration order over its imu and pages, free.
 */
struct hb_reg_walk {
	const struct hb_kmodel *km;
	bool table_seen;	/* the scan reads the earlier buffers */
	bool carry_last;	/* *last_hpage spans the buffers */
	/* folio -> 1 + its first entry's index over all buffers so far */
	struct hb_foliomap first;
	/* folio -> (buffer + 1) << 32 | its first entry in that buffer */
	struct hb_foliomap mine;
	uint64_t before;	/* entries of the buffers before this one */
	bool have_last;
	uint64_t last;
	struct hb_reg_cost *cost;
};
void hb_reg_walk_init(struct hb_reg_walk *w, const struct hb_kmodel *km,
		      enum hb_reg_calls calls, struct hb_reg_cost *cost);
int hb_reg_walk_add(struct hb_reg_walk *w, unsigned int k,
		    const struct hb_imu *imu, const struct hb_page *pages,
		    uint64_t nr_pages);
void hb_reg_walk_free(struct hb_reg_walk *w);

/*
 * lib/probe.c: the /proc files hb_probe() reads, opened once for the
 * buffers of one analysis (-1: not open, each probe tries again).
 */
struct hb_probe_files {
	int pagemap;
	int kpageflags;
};
void hb_probe_files_open(struct hb_probe_files *f);
void hb_probe_files_close(struct hb_probe_files *f);
/* hb_probe() through @f's files */
int hb_probe_with(const struct hb_probe_files *f, const void *addr,
		  uint64_t len, const struct hb_backing *recipe,
		  struct hb_probe *p);

#define HB_ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define HB_ALIGN_UP(x, a)	(((x) + (a) - 1) & ~((uint64_t)(a) - 1))
#define HB_ALIGN_DOWN(x, a)	((x) & ~((uint64_t)(a) - 1))
#define HB_IS_POW2(x)		((x) != 0 && ((x) & ((x) - 1)) == 0)

/* Set the thread's message (printf style); returns -err for chaining. */
int hb_seterr(int err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Read a whole small file (sysfs, procfs) into buf, NUL terminated. */
int hb_read_file(const char *path, char *buf, size_t len);
/* Read an unsigned integer from a one-value sysfs/procfs file. */
int hb_read_ulong(const char *path, unsigned long *val);
/*
 * /proc/meminfo and /proc/self/status are under 2 KiB: a buffer of this
 * size holds either whole, read once for all the fields it has.
 */
#define HB_PROC_FILE_MAX	8192
/* The text after "Key:" at the start of a line of @buf, or NULL. */
const char *hb_proc_value(const char *buf, const char *key);
/* Value of "Key:" in /proc/meminfo or /proc/self/status, in kB. */
long hb_proc_kb(const char *file, const char *key);
/*
 * Write a zero byte at the start of every 4 KiB page of [@map, @map +
 * @len), so each is faulted in writable (a memset's faults at a 512th of
 * its stores).
 */
void hb_touch_pages(void *map, size_t len);
/* log2 of a power of two */
unsigned int hb_ilog2(uint64_t v);

/*
 * lib/sysinfo.c, the bottom layer, reads each system fact for every file
 * of lib/: nothing else opens these directories or parses these fields.
 */
#define HB_HUGEPAGES_DIR	"/sys/kernel/mm/hugepages"
#define HB_THP_DIR		"/sys/kernel/mm/transparent_hugepage"
/* The pool directory of @page_size, or its file @file (NULL: the dir). */
void hb_pool_path(uint64_t page_size, const char *file, char *path,
		  size_t len);
/*
 * The PMD size (hpage_pmd_size): a THP's folio size.  2 MiB where the
 * kernel has no THP directory, x86-64's PMD_SIZE.
 */
uint64_t hb_sys_pmd_size(void);
/* The bracketed word of a sysfs choice file: "always [madvise] never". */
int hb_read_bracketed(const char *path, char *out, size_t len);
/* Hugepagesize of /proc/meminfo: the default hugetlb size, 0 if none. */
uint64_t hb_sys_default_hugepage(void);
/* CAP_IPC_LOCK in CapEff: RLIMIT_MEMLOCK is then not checked. */
bool hb_sys_cap_ipc_lock(void);
/* The page size of the hugetlbfs mount @path (or its directory) is on. */
int hb_hugetlbfs_page_size(const char *path, uint64_t *size);

#endif /* HUGEBUF_INTERNAL_H */
