// SPDX-License-Identifier: GPL-2.0-only
/*
 * /proc/self/pagemap decoding: the one place that knows its entry format.
 *
 * Each virtual page has a 64-bit entry (Documentation/admin-guide/mm/
 * pagemap.rst): bit 63 "present", bits 0-54 the PFN.  Since 4.2 the PFN
 * reads as 0 without CAP_SYS_ADMIN, so a zero PFN on a present page means
 * "not visible", not page frame 0.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "sysread/sysread.h"

#define PM_PFN_MASK		((1ULL << 55) - 1)
#define PM_PRESENT		(1ULL << 63)

bool hb_pagemap_present(uint64_t entry)
{
	return entry & PM_PRESENT;
}

uint64_t hb_pagemap_pfn(uint64_t entry)
{
	return hb_pagemap_present(entry) ? entry & PM_PFN_MASK : 0;
}

int hb_pagemap_open(void)
{
	int fd = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return hb_seterr(errno, "cannot open /proc/self/pagemap: %s "
				 "(needs CONFIG_PROC_PAGE_MONITOR)",
				 strerror(errno));
	return fd;
}

int hb_pagemap_read(int fd, uint64_t vaddr, unsigned int nr, uint64_t *ent)
{
	off_t off = (off_t)(vaddr >> HB_PAGE_SHIFT) * sizeof(*ent);
	size_t want = (size_t)nr * sizeof(*ent);
	ssize_t got;

	got = pread(fd, ent, want, off);
	if (got == (ssize_t)want)
		return 0;
	if (got < 0)
		return hb_seterr(errno, "reading /proc/self/pagemap failed: %s",
				 strerror(errno));
	return hb_seterr(EIO, "reading /proc/self/pagemap failed: short read");
}

uint64_t hb_pfn_of(const void *addr)
{
	uint64_t ent = 0;
	int fd = hb_pagemap_open();

	if (fd < 0)
		return 0;
	if (hb_pagemap_read(fd, (uintptr_t)addr, 1, &ent))
		ent = 0;
	close(fd);
	return hb_pagemap_pfn(ent);
}
