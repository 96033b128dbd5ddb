/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A folio -> count map for the pure models (lib/foliomap.c): the
 * accounting model's tables of compound heads and the registration cost
 * model's first sightings.  Private to lib/.
 */
#ifndef HUGEBUF_FOLIOMAP_H
#define HUGEBUF_FOLIOMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Open addressing, grown at half full.  A key once stored keeps its slot
 * when its count falls to 0, so lookups stay correct without deletion: a
 * count of 0 is an absent key.
 */
struct hb_foliomap {
	uint64_t *key;
	uint64_t *val;
	bool *used;
	size_t cap, nr;
};

/* @folio's value, 0 when absent */
uint64_t hb_foliomap_get(const struct hb_foliomap *m, uint64_t folio);
/* @folio's slot in *@slot, made (value 0) when it has none */
int hb_foliomap_find(struct hb_foliomap *m, uint64_t folio, size_t *slot);
/*
 * add @delta to @folio's value, which never goes below 0; the new value
 * in *@count
 */
int hb_foliomap_add(struct hb_foliomap *m, uint64_t folio, int64_t delta,
		    uint64_t *count);
void hb_foliomap_free(struct hb_foliomap *m);

#endif
