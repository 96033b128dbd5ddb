// SPDX-License-Identifier: GPL-2.0-only
/*
 * The one report writer: what a job or a check learnt about its buffers,
 * as text lines and as one JSON object per line.  Strings (a job name is
 * any bytes the user typed) are escaped here and nowhere else, so every
 * report_json line parses.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

void hb_str_init(struct hb_str *b)
{
	memset(b, 0, sizeof(*b));
}

void hb_str_free(struct hb_str *b)
{
	free(b->s);
	hb_str_init(b);
}

static bool str_reserve(struct hb_str *b, size_t more)
{
	size_t cap = b->cap ? b->cap : 256;
	char *n;

	if (b->oom)
		return false;
	if (b->len + more + 1 <= b->cap)
		return true;
	while (cap < b->len + more + 1)
		cap *= 2;
	n = realloc(b->s, cap);
	if (!n) {
		b->oom = true;
		return false;
	}
	b->s = n;
	b->cap = cap;
	return true;
}

void hb_str_printf(struct hb_str *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0 || !str_reserve(b, n))
		return;
	va_start(ap, fmt);
	vsnprintf(b->s + b->len, n + 1, fmt, ap);
	va_end(ap);
	b->len += n;
}

/*
 * RFC 8259 §7: '"', '\\' and the controls below 0x20 must be escaped;
 * everything else, UTF-8 included, may stand as is.  Bytes that are not
 * valid UTF-8 would make the document invalid, so they become U+FFFD.
 */
static size_t utf8_len(const unsigned char *s)
{
	unsigned int n, i;

	if (*s < 0x80)
		return 1;
	if ((*s & 0xe0) == 0xc0 && *s >= 0xc2)
		n = 2;
	else if ((*s & 0xf0) == 0xe0)
		n = 3;
	else if ((*s & 0xf8) == 0xf0 && *s <= 0xf4)
		n = 4;
	else
		return 0;
	for (i = 1; i < n; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	return n;
}

void hb_str_json(struct hb_str *b, const char *s)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");

	hb_str_printf(b, "\"");
	while (*p) {
		size_t n = utf8_len(p);

		if (*p == '"' || *p == '\\')
			hb_str_printf(b, "\\%c", *p);
		else if (*p == '\n')
			hb_str_printf(b, "\\n");
		else if (*p == '\t')
			hb_str_printf(b, "\\t");
		else if (*p < 0x20)
			hb_str_printf(b, "\\u%04x", *p);
		else if (!n)
			hb_str_printf(b, "\\ufffd");
		else
			hb_str_printf(b, "%.*s", (int)n, (const char *)p);
		p += n ? n : 1;
	}
	hb_str_printf(b, "\"");
}

void hb_str_json_kv(struct hb_str *b, const char *key, const char *val,
		    bool first)
{
	hb_str_printf(b, "%s", first ? "" : ",");
	hb_str_json(b, key);
	hb_str_printf(b, ":");
	hb_str_json(b, val);
}

/*
 * A JSON document written member by member: each level remembers whether
 * it has a member yet (the comma) and how it closes, so no caller places
 * a comma or a bracket by hand.
 */
void hb_json_init(struct hb_json *j, struct hb_str *out)
{
	memset(j, 0, sizeof(*j));
	j->out = out;
}

/* The comma and the key before a value; false once the document is bad. */
static bool json_member(struct hb_json *j, const char *key)
{
	bool in_obj = j->depth && j->close[j->depth - 1] == '}';

	if (j->bad || (in_obj != !!key) || (!j->depth && j->done)) {
		j->bad = true;
		return false;
	}
	if (!j->depth) {
		j->done = true;
	} else {
		if (j->more[j->depth - 1])
			hb_str_printf(j->out, ", ");
		j->more[j->depth - 1] = true;
	}
	if (key) {
		hb_str_json(j->out, key);
		hb_str_printf(j->out, ": ");
	}
	return true;
}

static void json_open(struct hb_json *j, const char *key, char open,
		      char close)
{
	if (j->depth >= HB_JSON_MAX_DEPTH) {
		j->bad = true;
		return;
	}
	if (!json_member(j, key))
		return;
	hb_str_printf(j->out, "%c", open);
	j->close[j->depth] = close;
	j->more[j->depth] = false;
	j->depth++;
}

void hb_json_obj(struct hb_json *j, const char *key)
{
	json_open(j, key, '{', '}');
}

void hb_json_arr(struct hb_json *j, const char *key)
{
	json_open(j, key, '[', ']');
}

void hb_json_end(struct hb_json *j)
{
	if (j->bad || !j->depth) {
		j->bad = true;
		return;
	}
	j->depth--;
	hb_str_printf(j->out, "%c", j->close[j->depth]);
}

void hb_json_str(struct hb_json *j, const char *key, const char *val)
{
	if (json_member(j, key))
		hb_str_json(j->out, val);
}

void hb_json_u64(struct hb_json *j, const char *key, uint64_t val)
{
	if (json_member(j, key))
		hb_str_printf(j->out, "%llu", (unsigned long long)val);
}

void hb_json_i64(struct hb_json *j, const char *key, int64_t val)
{
	if (json_member(j, key))
		hb_str_printf(j->out, "%lld", (long long)val);
}

void hb_json_bool(struct hb_json *j, const char *key, bool val)
{
	if (json_member(j, key))
		hb_str_printf(j->out, "%s", val ? "true" : "false");
}

void hb_json_tri(struct hb_json *j, const char *key, int val)
{
	if (json_member(j, key))
		hb_str_printf(j->out, "%s",
			      val < 0 ? "null" : val ? "true" : "false");
}

void hb_json_null(struct hb_json *j, const char *key)
{
	hb_json_tri(j, key, -1);
}

bool hb_json_ok(const struct hb_json *j)
{
	return !j->bad && !j->depth && j->done && !j->out->oom;
}

static const char *coalesced_word(const struct hb_report *r)
{
	if (r->st.all_coalesced)
		return "coalesced";
	if (!r->st.not_coalesced && r->backing.folio_size > HB_PAGE_SIZE)
		return "one bvec per folio";
	return "not coalesced";
}

/* What can make the job's buffers coalesce ("" when they do or need not) */
static const char *advice(const struct hb_report *r)
{
	if (!r->km || !r->fixedbufs || !r->st.not_coalesced ||
	    r->backing.folio_size <= HB_PAGE_SIZE)
		return "";
	return hb_coalesce_advice(r->km, r->backing.folio_size,
				  r->head_offset, r->buffer_len);
}

static const char *probe_word(const struct hb_bufstats *st)
{
	return st->source == HB_PROBE_KPAGEFLAGS ? "exact" : "degraded";
}

static bool have_device(const struct hb_report *r)
{
	return r->device && *r->device;
}

static double requests_per_io(const struct hb_report *r)
{
	return r->ios ? (double)(r->dev_reads + r->dev_writes) / r->ios : 0;
}

/*
 * Why the device counters cannot judge this job ("" when they can): the
 * counters are per device, so only a job that reads alone is judged, on
 * the device's reads (writes of the file system or of other processes go
 * to the write counter; a write of the job adds journal requests).
 */
static const char *not_judged(const struct hb_report *r)
{
	if (!r->pred || !have_device(r) || !r->ios)
		return "nothing to compare";
	if (r->requests_approximate)
		return "other jobs ran on the device";
	if (r->write_ios)
		return "the job wrote";
	return "";
}

/* The one verdict over the job's reads: measured per I/O vs the model. */
static bool judge_requests(const struct hb_report *r,
			   struct hb_coalesce_verdict *v)
{
	struct hb_coalesce_evidence e = {
		.can_coalesce = r->backing.folio_size > HB_PAGE_SIZE,
	};
	uint64_t other;

	if (*not_judged(r))
		return false;
	e.requests.done = true;
	e.requests.measured = hb_job_requests_per_io(r->dev_reads, r->ios,
						     &other);
	e.requests.model = r->pred->model;
	e.requests.none = r->pred->none;
	e.requests.multi = r->pred->multi;
	hb_coalesce_verdict(&e, v);
	return true;
}

static void text_requests(struct hb_str *out, const struct hb_report *r)
{
	struct hb_coalesce_verdict v;

	if (!r->pred)
		return;
	if (r->plain)
		hb_str_printf(out, "; plain O_DIRECT model %u (no page merged "
			      "%u, one bvec per folio %u)", r->pred->model,
			      r->pred->none, r->pred->multi);
	else
		hb_str_printf(out, "; model %u (uncoalesced %u, one bvec per "
			      "folio %u)", r->pred->model, r->pred->none,
			      r->pred->multi);
	if (judge_requests(r, &v)) {
		uint64_t other;
		unsigned int k = hb_job_requests_per_io(r->dev_reads, r->ios,
							&other);

		hb_str_printf(out, ": %u per I/O", k);
		if (other)
			hb_str_printf(out, " (+%llu reads of other I/O)",
				      (unsigned long long)other);
		hb_str_printf(out, ", coalesced %s, %s",
			      hb_tristate_name(v.coalesced),
			      v.matches_model ? "as modelled" :
			      "NOT as modelled");
	} else {
		hb_str_printf(out, " (not judged: %s)", not_judged(r));
	}
}

static void json_requests(struct hb_str *b, const struct hb_report *r)
{
	struct hb_coalesce_verdict v;
	bool judged = judge_requests(r, &v);

	hb_str_printf(b, ",\"requests_model\":%u,\"requests_uncoalesced\":%u,"
		      "\"requests_multi\":%u", r->pred ? r->pred->model : 0,
		      r->pred ? r->pred->none : 0,
		      r->pred ? r->pred->multi : 0);
	hb_str_json_kv(b, "kernel_coalesced",
		       judged ? hb_tristate_name(v.coalesced) : "", false);
	hb_str_printf(b, ",\"matches_model\":%s",
		      !judged ? "null" : v.matches_model ? "true" : "false");
}

/* fixedbufs=0: the block layer's work for the one I/O modelled */
static void text_plain(struct hb_str *out, const char *prefix,
		       const struct hb_report *r)
{
	const struct hb_plain_pred *pp = r->plain;
	bool runs = r->km && r->km->plain_folio_runs;

	hb_str_printf(out, "%s%s: plain O_DIRECT model of one %llu-byte I/O "
		      "(PFNs %s): %u bio(s), %u page batch(es), %u adds (%s), "
		      "%u merge tests, %u bvecs (%u same-page merges), %u "
		      "releases, %u requests\n", prefix, r->job,
		      (unsigned long long)r->bs, r->plain_pfn, pp->bios,
		      pp->batches, pp->adds,
		      runs ? "folio runs" : "4 KiB pages", pp->merge_tests, pp->bvecs, pp->same_page, pp->releases,
		      pp->requests);
}

/* flat plain_* keys, in every report: zero and "" when not modelled */
static void json_plain(struct hb_str *b, const struct hb_report *r)
{
	static const struct hb_plain_pred none;
	const struct hb_plain_pred *pp = r->plain ? r->plain : &none;

	hb_str_json_kv(b, "plain_pfn", r->plain ? r->plain_pfn : "", false);
	hb_str_printf(b, ",\"plain_folio_runs\":%s,\"plain_bios\":%u,"
		      "\"plain_batches\":%u,\"plain_adds\":%u,"
		      "\"plain_merge_tests\":%u,\"plain_bvecs\":%u,"
		      "\"plain_same_page\":%u,\"plain_releases\":%u",
		      r->plain && r->km && r->km->plain_folio_runs ? "true" :
		      "false", pp->bios, pp->batches, pp->adds,
		      pp->merge_tests, pp->bvecs, pp->same_page, pp->releases);
}

static void text_limits(struct hb_str *out, const char *prefix,
			const char *job, const struct hb_file_limits *l)
{
	hb_str_printf(out, "%s%s: file: direct I/O alignment ", prefix, job);
	if (l->dio_known)
		hb_str_printf(out, "%u (memory) / %u (offset)",
			      l->dio_mem_align, l->dio_offset_align);
	else
		hb_str_printf(out, "not reported");
	if (l->atomic)
		hb_str_printf(out, ", atomic writes %u-%u bytes in up to %u "
			      "segment(s)\n", l->atomic_unit_min,
			      l->atomic_unit_max, l->atomic_segments_max);
	else
		hb_str_printf(out, ", no atomic writes\n");
}

/* "direct", "copy", "einval", "mixed" or "" for the buffers' paths */
static const char *pt_path_word(const struct hb_pt_report *pt)
{
	unsigned int i, kinds = 0, last = 0;

	if (!pt->predicted)
		return "";
	for (i = 0; i < 3; i++)
		if (pt->count[i]) {
			kinds++;
			last = i;
		}
	if (kinds > 1)
		return "mixed";
	return kinds ? hb_pt_path_name(last) : "";
}

static void text_pt(struct hb_str *out, const char *prefix, const char *job,
		    const struct hb_pt_report *pt)
{
	const struct hb_pt_limits *l = pt->lim;

	hb_str_printf(out, "%s%s: passthrough: %s, %llu read/write commands\n",
		      prefix, job, pt->device ? pt->device : "?",
		      (unsigned long long)pt->commands);
	if (!l) {
		hb_str_printf(out, "%s%s: passthrough: queue limits not found "
			      "in sysfs: no mapping prediction\n", prefix,
			      job);
		return;
	}
	hb_str_printf(out, "%s%s: passthrough limits: max_hw %llu KiB, "
		      "max_segments %u, virt boundary %#llx, dma alignment "
		      "%u\n", prefix, job,
		      (unsigned long long)(l->max_hw_bytes >> 10),
		      l->max_segments,
		      (unsigned long long)l->virt_boundary_mask,
		      l->dma_align_mask + 1);
	if (!pt->predicted)
		return;
	hb_str_printf(out, "%s%s: passthrough mapping (model, not traced) of "
		      "a %llu-byte command: direct %u, copy %u, refused %u of "
		      "%u buffers", prefix, job,
		      (unsigned long long)pt->cmd_len, pt->count[HB_PT_DIRECT],
		      pt->count[HB_PT_COPY], pt->count[HB_PT_EINVAL],
		      pt->count[0] + pt->count[1] + pt->count[2]);
	if (pt->count[HB_PT_DIRECT])
		hb_str_printf(out, "; %u-%u DMA segments", pt->segs_min,
			      pt->segs_max);
	if (pt->why)
		hb_str_printf(out, "; %s", pt->why);
	hb_str_printf(out, "\n");
}

void hb_report_text(const struct hb_report *r, const char *prefix,
		    struct hb_str *out)
{
	const struct hb_bufstats *st = &r->st;
	char bk[HB_BACKING_STR_MAX], fs[32];

	hb_backing_str(&r->backing, bk, sizeof(bk));
	hb_fmt_size(r->backing.folio_size, fs, sizeof(fs));
	hb_str_printf(out, "%s%s: backing=%s folio=%s layout=%s "
		      "head_offset=%llu fixedbufs=%u kernel-model=%s\n",
		      prefix, r->job, bk, fs, r->layout,
		      (unsigned long long)r->head_offset, r->fixedbufs,
		      r->kernel_model);
	if (r->kernel_detect && *r->kernel_detect)
		hb_str_printf(out, "%s%s: kernel: %s\n", prefix, r->job,
			      r->kernel_detect);
	/*
	 * fixedbufs=0 registers nothing: the bvec and imu figures are then
	 * what registering these buffers would make, and say so
	 */
	hb_str_printf(out, "%s%s: %u buffer(s) of %llu bytes: folios %u-%u, "
		      "%sbvecs %u-%u per buffer (%s), bvecs per %llu-byte I/O "
		      "%u-%u\n", prefix, r->job, r->nr_buffers,
		      (unsigned long long)r->buffer_len, st->min_folios,
		      st->max_folios, r->fixedbufs ? "" : "if registered: ",
		      st->min_bvecs, st->max_bvecs,
		      coalesced_word(r), (unsigned long long)r->bs,
		      st->min_io_segs, st->max_io_segs);
	if (*advice(r))
		hb_str_printf(out, "%s%s: to coalesce: %s\n", prefix, r->job,
			      advice(r));
	hb_str_printf(out, "%s%s: %simu %llu bytes vs %llu with 4K pages, "
		      "memlock charge %llu KiB, register %.0f us, pinned %ld "
		      "KiB, probe %s%s%s%s\n", prefix, r->job,
		      r->fixedbufs ? "" : "if registered: ",
		      (unsigned long long)st->imu_bytes,
		      (unsigned long long)st->imu_bytes_4k,
		      (unsigned long long)(st->charged_bytes >> 10),
		      r->register_usec, r->vmpin_kb, probe_word(st),
		      st->note[0] ? " (" : "", st->note,
		      st->note[0] ? ")" : "");
	if (r->limits)
		text_limits(out, prefix, r->job, r->limits);
	if (r->shared && *r->shared)
		hb_str_printf(out, "%s%s: buffers shared (%s of a cloned table), "
			      "ready after %.0f us\n", prefix, r->job,
			      r->shared, r->ready_usec);
	if (r->vec_iovecs)
		hb_str_printf(out, "%s%s: vectored: %u iovecs per I/O, %u bvecs "
			      "in the model (READV/WRITEV_FIXED)\n", prefix,
			      r->job, r->vec_iovecs, r->vec_bvecs);
	if (r->pt)
		text_pt(out, prefix, r->job, r->pt);
	if (st->nr_nodes) {
		unsigned int n;

		hb_str_printf(out, "%s%s: folios per NUMA node:", prefix,
			      r->job);
		for (n = 0; n < HB_MAX_NODES; n++)
			if (st->node_folios[n])
				hb_str_printf(out, " node%u=%u", n,
					      st->node_folios[n]);
		hb_str_printf(out, "\n");
	}
	if (r->plain)
		text_plain(out, prefix, r);
	if (have_device(r)) {
		hb_str_printf(out, "%s%s: %s: %.2f device requests per I/O "
			      "(%llu reads + %llu writes for %llu I/Os)%s",
			      prefix, r->job, r->device, requests_per_io(r),
			      (unsigned long long)r->dev_reads,
			      (unsigned long long)r->dev_writes,
			      (unsigned long long)r->ios,
			      r->requests_approximate ?
			      ", approximate: other jobs ran on the device" :
			      "");
		text_requests(out, r);
		hb_str_printf(out, "\n");
	}
}

static void json_minmax(struct hb_str *b, const char *key,
			unsigned long long lo, unsigned long long hi)
{
	hb_str_printf(b, ",\"%s\":{\"min\":%llu,\"max\":%llu}", key, lo, hi);
}

/* "folio_nodes":{"0":4,"1":2} */
static void json_nodes(struct hb_str *b, const struct hb_bufstats *st)
{
	unsigned int n;
	bool first = true;

	hb_str_printf(b, ",\"folio_nodes\":{");
	for (n = 0; n < HB_MAX_NODES; n++) {
		if (!st->node_folios[n])
			continue;
		hb_str_printf(b, "%s\"%u\":%u", first ? "" : ",", n,
			      st->node_folios[n]);
		first = false;
	}
	hb_str_printf(b, "}");
}

/* flat pt_* keys, so a shell can pick one with grep */
static void json_pt(struct hb_str *b, const struct hb_pt_report *pt)
{
	const struct hb_pt_limits *l;

	hb_str_printf(b, ",\"passthrough\":%s", pt ? "true" : "false");
	if (!pt)
		return;
	l = pt->lim;
	hb_str_json_kv(b, "pt_device", pt->device ? pt->device : "", false);
	hb_str_printf(b, ",\"pt_commands\":%llu,\"pt_cmd_len\":%llu",
		      (unsigned long long)pt->commands,
		      (unsigned long long)pt->cmd_len);
	hb_str_json_kv(b, "pt_predicted", pt_path_word(pt), false);
	hb_str_printf(b, ",\"pt_direct\":%u,\"pt_copy\":%u,\"pt_einval\":%u,"
		      "\"pt_segments_min\":%u,\"pt_segments_max\":%u",
		      pt->count[HB_PT_DIRECT], pt->count[HB_PT_COPY],
		      pt->count[HB_PT_EINVAL],
		      pt->count[HB_PT_DIRECT] ? pt->segs_min : 0,
		      pt->segs_max);
	hb_str_json_kv(b, "pt_why", pt->why ? pt->why : "", false);
	if (l)
		hb_str_printf(b, ",\"pt_max_hw_bytes\":%llu,"
			      "\"pt_max_segments\":%u,"
			      "\"pt_max_segment_size\":%llu,"
			      "\"pt_virt_boundary_mask\":%llu,"
			      "\"pt_dma_align_mask\":%u",
			      (unsigned long long)l->max_hw_bytes,
			      l->max_segments,
			      (unsigned long long)l->max_segment_size,
			      (unsigned long long)l->virt_boundary_mask,
			      l->dma_align_mask);
}

void hb_report_json(const struct hb_report *r, struct hb_str *b)
{
	const struct hb_bufstats *st = &r->st;
	char bk[HB_BACKING_STR_MAX];

	hb_backing_str(&r->backing, bk, sizeof(bk));
	hb_str_printf(b, "{");
	hb_str_json_kv(b, "job", r->job, true);
	hb_str_printf(b, ",\"subjob\":%u", r->subjob);
	hb_str_json_kv(b, "backing", bk, false);
	hb_str_printf(b, ",\"folio_size\":%llu",
		      (unsigned long long)r->backing.folio_size);
	hb_str_json_kv(b, "layout", r->layout, false);
	hb_str_printf(b, ",\"head_offset\":%llu,\"fixedbufs\":%u",
		      (unsigned long long)r->head_offset, r->fixedbufs);
	hb_str_json_kv(b, "kernel_model", r->kernel_model, false);
	hb_str_json_kv(b, "kernel_detect", r->kernel_detect, false);
	hb_str_printf(b, ",\"nr_buffers\":%u,\"buffer_len\":%llu,\"bs\":%llu,"
		      "\"stride\":%llu", r->nr_buffers,
		      (unsigned long long)r->buffer_len,
		      (unsigned long long)r->bs,
		      (unsigned long long)r->stride);
	json_minmax(b, "folio_size_seen", st->min_folio, st->max_folio);
	json_minmax(b, "folios_per_buffer", st->min_folios, st->max_folios);
	json_minmax(b, "bvecs_per_buffer", st->min_bvecs, st->max_bvecs);
	json_minmax(b, "bvecs_per_io", st->min_io_segs, st->max_io_segs);
	hb_str_printf(b, ",\"coalesced\":%s,\"imu_bytes\":%llu,"
		      "\"imu_bytes_4k\":%llu,\"memlock_charge\":%llu,"
		      "\"register_usec\":%.1f,\"vmpin_kb\":%ld",
		      st->all_coalesced ? "true" : "false",
		      (unsigned long long)st->imu_bytes,
		      (unsigned long long)st->imu_bytes_4k,
		      (unsigned long long)st->charged_bytes,
		      r->register_usec, r->vmpin_kb);
	hb_str_json_kv(b, "coalesce_advice", advice(r), false);
	hb_str_json_kv(b, "probe", probe_word(st), false);
	json_nodes(b, st);
	hb_str_printf(b, ",\"vec_iovecs\":%u,\"vec_bvecs\":%u", r->vec_iovecs,
		      r->vec_bvecs);
	hb_str_json_kv(b, "shared", r->shared ? r->shared : "", false);
	hb_str_printf(b, ",\"ready_usec\":%.1f", r->ready_usec);
	if (r->limits)
		hb_str_printf(b, ",\"dio_mem_align\":%u,\"dio_offset_align\":%u,"
			      "\"atomic_unit_min\":%u,\"atomic_unit_max\":%u,"
			      "\"atomic_segments_max\":%u",
			      r->limits->dio_mem_align,
			      r->limits->dio_offset_align,
			      r->limits->atomic_unit_min,
			      r->limits->atomic_unit_max,
			      r->limits->atomic_segments_max);
	json_pt(b, r->pt);
	hb_str_json_kv(b, "device", have_device(r) ? r->device : "", false);
	hb_str_printf(b, ",\"dev_reads\":%llu,\"dev_writes\":%llu,"
		      "\"ios\":%llu,\"requests_per_io\":%.4f,"
		      "\"requests_approximate\":%s",
		      (unsigned long long)r->dev_reads,
		      (unsigned long long)r->dev_writes,
		      (unsigned long long)r->ios, requests_per_io(r),
		      r->requests_approximate ? "true" : "false");
	json_requests(b, r);
	json_plain(b, r);
	hb_str_printf(b, "}\n");
}

int hb_report_append(const struct hb_report *r, const char *path)
{
	struct hb_str b;
	FILE *f;
	int ret = 0;

	hb_str_init(&b);
	hb_report_json(r, &b);
	if (b.oom) {
		hb_str_free(&b);
		return hb_seterr(ENOMEM, "out of memory for the JSON report");
	}
	f = fopen(path, "a");
	if (!f) {
		ret = hb_seterr(errno, "cannot write report_json=%s: %s", path,
				strerror(errno));
	} else {
		bool bad = fputs(b.s, f) == EOF;

		/* fclose() on every path: a failed write must not leak */
		if (fclose(f) || bad)
			ret = hb_seterr(EIO, "writing report_json=%s failed",
					path);
	}
	hb_str_free(&b);
	return ret;
}
