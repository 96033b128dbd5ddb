// SPDX-License-Identifier: GPL-2.0-only
/*
 * A folio -> count map (lib/model/model.h): open addressing, pure.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "model/model.h"

static uint64_t hash_folio(uint64_t f)
{
	f ^= f >> 33;
	f *= 0xff51afd7ed558ccdULL;
	f ^= f >> 33;
	return f;
}

/* The slot of @folio: its entry, or the empty slot where it belongs. */
static size_t map_slot(const struct hb_foliomap *m, uint64_t folio)
{
	size_t i = hash_folio(folio) & (m->cap - 1);

	while (m->used[i] && m->key[i] != folio)
		i = (i + 1) & (m->cap - 1);
	return i;
}

static int map_grow(struct hb_foliomap *m)
{
	struct hb_foliomap n = { .cap = m->cap ? 2 * m->cap : 64 };
	size_t i, j;

	n.key = calloc(n.cap, sizeof(*n.key));
	n.val = calloc(n.cap, sizeof(*n.val));
	n.used = calloc(n.cap, sizeof(*n.used));
	if (!n.key || !n.val || !n.used) {
		free(n.key);
		free(n.val);
		free(n.used);
		return hb_seterr(ENOMEM, "out of memory for a table of %zu "
				 "folios", m->nr);
	}
	for (i = 0; i < m->cap; i++) {
		if (!m->used[i])
			continue;
		j = map_slot(&n, m->key[i]);
		n.used[j] = true;
		n.key[j] = m->key[i];
		n.val[j] = m->val[i];
		n.nr++;
	}
	free(m->key);
	free(m->val);
	free(m->used);
	*m = n;
	return 0;
}

uint64_t hb_foliomap_get(const struct hb_foliomap *m, uint64_t folio)
{
	return m->cap ? m->val[map_slot(m, folio)] : 0;
}

/* @folio's slot, made when it has none. */
int hb_foliomap_find(struct hb_foliomap *m, uint64_t folio, size_t *slot)
{
	int ret;

	if (2 * (m->nr + 1) > m->cap) {
		ret = map_grow(m);
		if (ret)
			return ret;
	}
	*slot = map_slot(m, folio);
	if (!m->used[*slot]) {
		m->used[*slot] = true;
		m->key[*slot] = folio;
		m->nr++;
	}
	return 0;
}

/* Add @delta to @folio's count; the new count in *@count. */
int hb_foliomap_add(struct hb_foliomap *m, uint64_t folio, int64_t delta,
		   uint64_t *count)
{
	size_t i;
	int ret = hb_foliomap_find(m, folio, &i);

	if (ret)
		return ret;
	/* as many -1 in a row would reach 0 before the last one */
	if (delta < 0 && m->val[i] < (uint64_t)-delta)
		return hb_seterr(EINVAL, "folio %llu released more often "
				 "than taken",
				 (unsigned long long)folio);
	m->val[i] += (uint64_t)delta;
	if (count)
		*count = m->val[i];
	return 0;
}

void hb_foliomap_free(struct hb_foliomap *m)
{
	free(m->key);
	free(m->val);
	free(m->used);
	memset(m, 0, sizeof(*m));
}
