// SPDX-License-Identifier: GPL-2.0-only
/*
 * System-wide counters a guest probe reads (the FOLL_PIN pins held, a
 * disk's completed I/Os, the clock) and the settle rule it reads them
 * through.  See t/helpers.h.
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

long t_pins_held(void)
{
	t_knob_write("/proc/sys/vm/stat_refresh", "1", 0);
	return vmstat_field("nr_foll_pin_acquired") -
	       vmstat_field("nr_foll_pin_released");
}

static void sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

long t_settle_within(long (*probe)(void *), void *arg, long want, int ms)
{
	long v = probe(arg);
	int t;

	for (t = 0; v != want && t < ms; t += 10) {
		sleep_ms(10);
		v = probe(arg);
	}
	return v;
}

bool t_quiet(int ms)
{
	long pins = t_pins_held(), free = hb_hugepages_free(T_SZ_2M);
	long p, f;
	int t, still = 0;

	for (t = 0; t < ms && still < 300; t += 10) {
		sleep_ms(10);
		p = t_pins_held();
		f = hb_hugepages_free(T_SZ_2M);
		still = p == pins && f == free ? still + 10 : 0;
		pins = p;
		free = f;
	}
	return still >= 300;
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
