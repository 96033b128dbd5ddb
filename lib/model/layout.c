// SPDX-License-Identifier: GPL-2.0-only
/*
 * Where the I/O buffers sit inside one mapping: slot i at head_offset +
 * i * stride, registered one buffer per slot or in regions of several.
 * The engine lays its io_us out with these, and the preflight plans the
 * same layout before anything is mapped.
 */
#include <errno.h>
#include <stdlib.h>

#include "model/model.h"

uint64_t hb_slot_stride(const struct hb_backing *b, uint64_t max_bs)
{
	uint64_t stride = HB_PAGE_SIZE;

	if (max_bs >= b->folio_size)
		return HB_ALIGN_UP(max_bs, b->folio_size);
	while (stride < max_bs)
		stride <<= 1;
	return stride;
}

/* io_buffer_validate(): one registered buffer is at most 1 GiB */
unsigned int hb_slots_per_region(uint64_t stride, unsigned int nr_slots)
{
	uint64_t k = stride ? HB_MAX_BUF_LEN / stride : 1;

	if (!k)
		k = 1;
	return k < nr_slots ? k : nr_slots;
}

int hb_slot_iovecs(uintptr_t base, unsigned int nr_slots, uint64_t stride,
		   uint64_t slot_len, unsigned int per_iov, struct iovec **iov,
		   unsigned int *nr)
{
	unsigned int i, n;
	struct iovec *v;

	if (!nr_slots || !per_iov || !slot_len || slot_len > stride)
		return hb_seterr(EINVAL, "bad slot layout: %u slots of %llu "
				 "bytes every %llu, %u per buffer", nr_slots,
				 (unsigned long long)slot_len,
				 (unsigned long long)stride, per_iov);
	n = (nr_slots + per_iov - 1) / per_iov;
	v = calloc(n, sizeof(*v));
	if (!v)
		return hb_seterr(ENOMEM, "out of memory for %u iovecs", n);
	for (i = 0; i < n; i++) {
		unsigned int first = i * per_iov;
		unsigned int k = nr_slots - first < per_iov ?
				 nr_slots - first : per_iov;

		v[i].iov_base = (void *)(base + (uint64_t)first * stride);
		v[i].iov_len = (uint64_t)(k - 1) * stride + slot_len;
	}
	*iov = v;
	*nr = n;
	return 0;
}

unsigned int hb_vec_split(void *addr, uint64_t len, unsigned int n,
			  uint64_t shift, unsigned int align, struct iovec *iov)
{
	uint64_t prev = 0, cut;
	unsigned int k, out = 0;

	if (!align)
		align = 1;
	for (k = 1; k < n; k++) {
		cut = (uint64_t)k * len / n;
		cut = cut - cut % align + shift;
		cut -= cut % align;
		if (cut <= prev || cut >= len)
			continue;
		iov[out].iov_base = (char *)addr + prev;
		iov[out].iov_len = cut - prev;
		out++;
		prev = cut;
	}
	iov[out].iov_base = (char *)addr + prev;
	iov[out].iov_len = len - prev;
	return out + 1;
}
