// SPDX-License-Identifier: GPL-2.0-only
/*
 * System-wide counters a guest probe reads (the FOLL_PIN pins held, a
 * disk's completed I/Os, the clock), and the readers t_settle() (settle.h)
 * polls them with.  See t/helpers.h.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "helpers-priv.h"

double t_now_usec(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

long t_disk_ios(const char *disk, bool write)
{
	uint64_t r, w;

	if (hb_blkdev_ios(disk, &r, &w))
		return -1;
	return (long)(write ? w : r);
}

/* A "key value" line of /proc/vmstat; -1 when there is none. */
static long vmstat_field(const char *key)
{
	char line[256];
	size_t kl = strlen(key);
	long v = -1;
	FILE *f = fopen("/proc/vmstat", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, key, kl) && line[kl] == ' ') {
			v = strtol(line + kl + 1, NULL, 10);
			break;
		}
	fclose(f);
	return v;
}

/* a fold that raced a pin taken on one CPU and dropped on another */
#define PINS_FOLD_TRIES 10

long t_pins_held(void)
{
	long acq, rel;
	int i;

	for (i = 0; i < PINS_FOLD_TRIES; i++) {
		t_knob_write("/proc/sys/vm/stat_refresh", "1", 0);
		acq = vmstat_field("nr_foll_pin_acquired");
		rel = vmstat_field("nr_foll_pin_released");
		if (acq < 0 || rel < 0)
			return -1;
		if (acq >= rel)
			return acq - rel;
	}
	return -1;
}

long t_pins_of(void *arg)
{
	(void)arg;
	return t_pins_held();
}

long t_free_2m_of(void *arg)
{
	(void)arg;
	return hb_hugepages_free(T_SZ_2M);
}
