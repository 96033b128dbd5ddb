/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * 2 MiB hugetlb pages for a test's buffers: inlined by
 * tools/liburing-export.sh into the tests that use it.
 */

/* @n 2 MiB hugetlb pages; NULL (a skip) when the pool has too few */
static char *map_huge(unsigned int n)
{
	char *p = mmap(NULL, n * HUGE_SZ, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB | MAP_HUGE_2MB,
		       -1, 0);

	if (p == MAP_FAILED) {
		fprintf(stderr, "%u 2 MiB hugetlb pages: %s (vm.nr_hugepages "
			"too low?): skipping\n", n, strerror(errno));
		return NULL;
	}
	return p;
}
