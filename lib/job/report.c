// SPDX-License-Identifier: GPL-2.0-only
/*
 * The one report writer: what a job or a check learnt about its buffers,
 * as text lines and as one JSON object per line.  The JSON goes through
 * lib/base/json.c's writer, which escapes every string (a job name is any bytes
 * the user typed) and places every separator, so every report_json line
 * parses.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "job/job.h"

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

/*
 * The accounting's work beside the register time (hb_model_register_cost()):
 * headpage_already_acct()'s reads up to 7.1, 7.2's hpage_acct lookups
 */
static const char *acct_work_word(const struct hb_report *r)
{
	return r->km && r->km->acct_per_ring ? "hpage_acct lookups" :
					       "accounting scan reads";
}

static uint64_t acct_work(const struct hb_report *r)
{
	return r->km && r->km->acct_per_ring ? r->st.reg_cost.ring_lookups :
					       r->st.reg_cost.scan_reads;
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
		hbi_str_printf(out, "; plain O_DIRECT model %u (no page merged "
			      "%u, one bvec per folio %u)", r->pred->model,
			      r->pred->none, r->pred->multi);
	else
		hbi_str_printf(out, "; model %u (uncoalesced %u, one bvec per "
			      "folio %u)", r->pred->model, r->pred->none,
			      r->pred->multi);
	if (judge_requests(r, &v)) {
		uint64_t other;
		unsigned int k = hb_job_requests_per_io(r->dev_reads, r->ios,
							&other);

		hbi_str_printf(out, ": %u per I/O", k);
		if (other)
			hbi_str_printf(out, " (+%llu reads of other I/O)",
				      (unsigned long long)other);
		hbi_str_printf(out, ", coalesced %s, %s",
			      hb_tristate_name(v.coalesced),
			      v.matches_model ? "as modelled" :
			      "NOT as modelled");
	} else {
		hbi_str_printf(out, " (not judged: %s)", not_judged(r));
	}
}

static void json_requests(struct hb_json *j, const struct hb_report *r)
{
	struct hb_coalesce_verdict v;
	bool judged = judge_requests(r, &v);

	hb_json_u64(j, "requests_model", r->pred ? r->pred->model : 0);
	hb_json_u64(j, "requests_uncoalesced", r->pred ? r->pred->none : 0);
	hb_json_u64(j, "requests_multi", r->pred ? r->pred->multi : 0);
	hb_json_str(j, "kernel_coalesced",
		    judged ? hb_tristate_name(v.coalesced) : "");
	hb_json_tri(j, "matches_model", judged ? v.matches_model : -1);
}

/* fixedbufs=0: the block layer's work for the one I/O modelled */
static void text_plain(struct hb_str *out, const char *prefix,
		       const struct hb_report *r)
{
	const struct hb_plain_pred *pp = r->plain;
	bool runs = r->km && r->km->plain_folio_runs;

	hbi_str_printf(out, "%s%s: plain O_DIRECT model of one %llu-byte I/O "
		      "(PFNs %s): %u bio(s), %u page batch(es), %u adds (%s), "
		      "%u merge tests, %u bvecs (%u same-page merges), %u "
		      "releases, %u requests\n", prefix, r->job,
		      (unsigned long long)r->bs, r->plain_pfn, pp->bios,
		      pp->batches, pp->adds, runs ? "folio runs" : "4 KiB pages",
		      pp->merge_tests, pp->bvecs, pp->same_page, pp->releases,
		      pp->requests);
}

/* flat plain_* keys, in every report: zero and "" when not modelled */
static void json_plain(struct hb_json *j, const struct hb_report *r)
{
	static const struct hb_plain_pred none;
	const struct hb_plain_pred *pp = r->plain ? r->plain : &none;

	hb_json_str(j, "plain_pfn", r->plain ? r->plain_pfn : "");
	hb_json_bool(j, "plain_folio_runs",
		     r->plain && r->km && r->km->plain_folio_runs);
	hb_json_u64(j, "plain_bios", pp->bios);
	hb_json_u64(j, "plain_batches", pp->batches);
	hb_json_u64(j, "plain_adds", pp->adds);
	hb_json_u64(j, "plain_merge_tests", pp->merge_tests);
	hb_json_u64(j, "plain_bvecs", pp->bvecs);
	hb_json_u64(j, "plain_same_page", pp->same_page);
	hb_json_u64(j, "plain_releases", pp->releases);
}

static void text_limits(struct hb_str *out, const char *prefix,
			const char *job, const struct hb_file_limits *l)
{
	hbi_str_printf(out, "%s%s: file: direct I/O alignment ", prefix, job);
	if (l->dio_known)
		hbi_str_printf(out, "%u (memory) / %u (offset)",
			      l->dio_mem_align, l->dio_offset_align);
	else
		hbi_str_printf(out, "not reported");
	if (l->atomic)
		hbi_str_printf(out, ", atomic writes %u-%u bytes in up to %u "
			      "segment(s)\n", l->atomic_unit_min,
			      l->atomic_unit_max, l->atomic_segments_max);
	else
		hbi_str_printf(out, ", no atomic writes\n");
}

#define KIND_NONE	-1
#define KIND_MIXED	-2

/* the one kind of three counted, KIND_NONE or KIND_MIXED */
static int one_kind(const unsigned int count[3])
{
	int i, kind = KIND_NONE;

	for (i = 0; i < 3; i++) {
		if (!count[i])
			continue;
		if (kind != KIND_NONE)
			return KIND_MIXED;
		kind = i;
	}
	return kind;
}

/* the buffers or slots counted in all three kinds */
static unsigned int count_total(const unsigned int count[3])
{
	return count[0] + count[1] + count[2];
}

/* "direct", "copy", "einval", "mixed" or "" for the buffers' paths */
static const char *pt_path_word(const struct hb_pt_report *pt)
{
	int k = pt->predicted ? one_kind(pt->count) : KIND_NONE;

	if (k == KIND_MIXED)
		return "mixed";
	return k == KIND_NONE ? "" : hb_pt_path_name(k);
}

static void text_pt(struct hb_str *out, const char *prefix, const char *job,
		    const struct hb_pt_report *pt)
{
	const struct hb_queue_limits *l = pt->lim;

	hbi_str_printf(out, "%s%s: passthrough: %s, %llu read/write commands\n",
		      prefix, job, pt->device ? pt->device : "?",
		      (unsigned long long)pt->commands);
	if (!l) {
		hbi_str_printf(out, "%s%s: passthrough: queue limits not found "
			      "in sysfs: no mapping prediction\n", prefix,
			      job);
		return;
	}
	hbi_str_printf(out, "%s%s: passthrough limits: max_hw %llu KiB, "
		      "max_segments %u, virt boundary %#llx, dma alignment "
		      "%u\n", prefix, job,
		      (unsigned long long)(l->max_hw_bytes >> 10),
		      l->max_segments,
		      (unsigned long long)l->virt_boundary_mask,
		      l->dma_align_mask + 1);
	if (!pt->predicted)
		return;
	hbi_str_printf(out, "%s%s: passthrough mapping (model, not traced) of "
		      "a %llu-byte command: direct %u, copy %u, refused %u of "
		      "%u buffers", prefix, job,
		      (unsigned long long)pt->cmd_len, pt->count[HB_PT_DIRECT],
		      pt->count[HB_PT_COPY], pt->count[HB_PT_EINVAL],
		      count_total(pt->count));
	if (pt->count[HB_PT_DIRECT])
		hbi_str_printf(out, "; %u-%u DMA segments", pt->segs_min,
			      pt->segs_max);
	if (pt->why)
		hbi_str_printf(out, "; %s", pt->why);
	hbi_str_printf(out, "\n");
}

/* "direct", "copied", "unknown", "mixed" or "" for the slots' metadata */
static const char *md_map_word(const struct hb_md_report *md)
{
	int k = md->predicted ? one_kind(md->count) : KIND_NONE;

	if (k == KIND_MIXED)
		return "mixed";
	return k == KIND_NONE ? "" : hb_md_map_name(k);
}

/* how the driver describes the metadata: MPTR, SGL or both */
static const char *md_desc_word(const struct hb_md_report *md)
{
	if (!md->sgl)
		return "metadata pointer";
	return md->sgl == count_total(md->count) ? "metadata SGL" :
						   "metadata pointer or SGL";
}

static void text_md(struct hb_str *out, const char *prefix, const char *job,
		    const struct hb_md_report *md)
{
	hbi_str_printf(out, "%s%s: metadata (model, not traced) of a "
		      "%llu-byte %s, max_integrity_segments %u: ", prefix, job,
		      (unsigned long long)md->md_len,
		      md->passthrough ? "command" : "PI attribute",
		      md->max_integrity_segments);
	if (!md->predicted) {
		hbi_str_printf(out, "no prediction: %s\n",
			      md->not_predicted ? md->not_predicted : "?");
		return;
	}
	hbi_str_printf(out, "direct %u, copied %u of %u buffers; %u-%u "
		      "integrity segments, %u-%u DMA addresses per command "
		      "(%s)", md->count[HB_MD_DIRECT], md->count[HB_MD_COPIED],
		      count_total(md->count),
		      md->segs_min, md->segs_max, md->dma_min, md->dma_max,
		      md_desc_word(md));
	if (md->why)
		hbi_str_printf(out, "; copied: %s", md->why);
	hbi_str_printf(out, "\n");
}

/*
 * The buffers' physical runs (hb_contig_measure()), and the 4 KiB
 * baseline's mode: what the 4 KiB comparison of two jobs must match.
 */
static void text_contig(struct hb_str *out, const char *prefix,
			const struct hb_report *r)
{
	const struct hb_contig *c = &r->st.contig;
	char lb[32];

	hbi_str_printf(out, "%s%s: contiguity (contig=%s): ", prefix, r->job,
		      hb_contig_mode_name(r->backing.contig));
	if (!c->known) {
		hbi_str_printf(out, "not measured: the PFNs need "
			      "CAP_SYS_ADMIN\n");
		return;
	}
	hb_fmt_size(c->longest << HB_PAGE_SHIFT, lb, sizeof(lb));
	hbi_str_printf(out, "%llu pages in %llu physical runs (%llu-%llu per "
		      "buffer), longest %llu page%s (%s), %.1f%% of "
		      "neighbouring pages adjacent\n",
		      (unsigned long long)c->nr_pages,
		      (unsigned long long)c->nr_runs,
		      (unsigned long long)r->st.min_runs,
		      (unsigned long long)r->st.max_runs,
		      (unsigned long long)c->longest,
		      c->longest == 1 ? "" : "s", lb,
		      100 * hb_contig_share(c));
}

void hb_report_text(const struct hb_report *r, const char *prefix,
		    struct hb_str *out)
{
	const struct hb_bufstats *st = &r->st;
	char bk[HB_BACKING_STR_MAX], fs[32];

	hb_backing_str(&r->backing, bk, sizeof(bk));
	hb_fmt_size(r->backing.folio_size, fs, sizeof(fs));
	hbi_str_printf(out, "%s%s: backing=%s folio=%s layout=%s "
		      "head_offset=%llu fixedbufs=%u kernel-model=%s\n",
		      prefix, r->job, bk, fs, r->layout,
		      (unsigned long long)r->head_offset, r->fixedbufs,
		      r->kernel_model);
	if (r->kernel_detect && *r->kernel_detect)
		hbi_str_printf(out, "%s%s: kernel: %s\n", prefix, r->job,
			      r->kernel_detect);
	/*
	 * fixedbufs=0 registers nothing: the bvec and imu figures are then
	 * what registering these buffers would make, and say so
	 */
	hbi_str_printf(out, "%s%s: %u buffer(s) of %llu bytes: folios %u-%u, "
		      "%sbvecs %u-%u per buffer (%s), bvecs per %llu-byte I/O "
		      "%u-%u\n", prefix, r->job, r->nr_buffers,
		      (unsigned long long)r->buffer_len, st->min_folios,
		      st->max_folios, r->fixedbufs ? "" : "if registered: ",
		      st->min_bvecs, st->max_bvecs,
		      coalesced_word(r), (unsigned long long)r->bs,
		      st->min_io_segs, st->max_io_segs);
	if (*advice(r))
		hbi_str_printf(out, "%s%s: to coalesce: %s\n", prefix, r->job,
			      advice(r));
	hbi_str_printf(out, "%s%s: %simu %llu bytes vs %llu with 4K pages, "
		      "memlock charge %llu KiB, register %.0f us (%s %llu), "
		      "pinned %ld KiB, probe %s%s%s%s\n", prefix, r->job,
		      r->fixedbufs ? "" : "if registered: ",
		      (unsigned long long)st->imu_bytes,
		      (unsigned long long)st->imu_bytes_4k,
		      (unsigned long long)(st->charged_bytes >> 10),
		      r->register_usec, acct_work_word(r),
		      (unsigned long long)acct_work(r), r->vmpin_kb,
		      probe_word(st),
		      st->note[0] ? " (" : "", st->note,
		      st->note[0] ? ")" : "");
	text_contig(out, prefix, r);
	if (r->limits)
		text_limits(out, prefix, r->job, r->limits);
	if (r->shared && *r->shared)
		hbi_str_printf(out, "%s%s: buffers shared (%s of a cloned table), "
			      "ready after %.0f us\n", prefix, r->job,
			      r->shared, r->ready_usec);
	if (r->vec_iovecs)
		hbi_str_printf(out, "%s%s: vectored: %u iovecs per I/O, %u bvecs "
			      "in the model (READV/WRITEV_FIXED)\n", prefix,
			      r->job, r->vec_iovecs, r->vec_bvecs);
	if (r->atomic_unreg)
		hbi_str_printf(out, "%s%s: atomic writes: %llu sent unregistered "
			      "(IORING_OP_WRITE from the registered buffers: "
			      "kernel %s takes RWF_ATOMIC only from user "
			      "memory)\n", prefix, r->job,
			      (unsigned long long)r->atomic_unreg_writes,
			      r->kernel_model);
	if (r->pt)
		text_pt(out, prefix, r->job, r->pt);
	if (r->md)
		text_md(out, prefix, r->job, r->md);
	if (st->nr_nodes) {
		unsigned int n;

		hbi_str_printf(out, "%s%s: folios per NUMA node:", prefix,
			      r->job);
		for (n = 0; n < HB_MAX_NODES; n++)
			if (st->node_folios[n])
				hbi_str_printf(out, " node%u=%u", n,
					      st->node_folios[n]);
		hbi_str_printf(out, "\n");
	}
	if (r->plain)
		text_plain(out, prefix, r);
	if (have_device(r)) {
		hbi_str_printf(out, "%s%s: %s: %.2f device requests per I/O "
			      "(%llu reads + %llu writes for %llu I/Os)%s",
			      prefix, r->job, r->device, requests_per_io(r),
			      (unsigned long long)r->dev_reads,
			      (unsigned long long)r->dev_writes,
			      (unsigned long long)r->ios,
			      r->requests_approximate ?
			      ", approximate: other jobs ran on the device" :
			      "");
		text_requests(out, r);
		hbi_str_printf(out, "\n");
	}
}

static void json_minmax(struct hb_json *j, const char *key, uint64_t lo,
			uint64_t hi)
{
	hb_json_obj(j, key);
	hb_json_u64(j, "min", lo);
	hb_json_u64(j, "max", hi);
	hb_json_end(j);
}

/* "folio_nodes":{"0":4,"1":2}: the nodes that hold a folio */
static void json_nodes(struct hb_json *j, const struct hb_bufstats *st)
{
	unsigned int n;

	hb_json_obj(j, "folio_nodes");
	for (n = 0; n < HB_MAX_NODES; n++) {
		char key[16];

		if (!st->node_folios[n])
			continue;
		snprintf(key, sizeof(key), "%u", n);
		hb_json_u64(j, key, st->node_folios[n]);
	}
	hb_json_end(j);
}

static void json_pt_limits(struct hb_json *j, const struct hb_queue_limits *l)
{
	hb_json_u64(j, "pt_max_hw_bytes", l->max_hw_bytes);
	hb_json_u64(j, "pt_max_segments", l->max_segments);
	hb_json_u64(j, "pt_max_segment_size", l->max_segment_size);
	hb_json_u64(j, "pt_virt_boundary_mask", l->virt_boundary_mask);
	hb_json_u64(j, "pt_dma_align_mask", l->dma_align_mask);
}

/* flat pt_* keys, so a shell can pick one with grep */
static void json_pt(struct hb_json *j, const struct hb_pt_report *pt)
{
	hb_json_bool(j, "passthrough", pt != NULL);
	if (!pt)
		return;
	hb_json_str(j, "pt_device", pt->device ? pt->device : "");
	hb_json_u64(j, "pt_commands", pt->commands);
	hb_json_u64(j, "pt_cmd_len", pt->cmd_len);
	hb_json_str(j, "pt_predicted", pt_path_word(pt));
	hb_json_u64(j, "pt_direct", pt->count[HB_PT_DIRECT]);
	hb_json_u64(j, "pt_copy", pt->count[HB_PT_COPY]);
	hb_json_u64(j, "pt_einval", pt->count[HB_PT_EINVAL]);
	hb_json_u64(j, "pt_segments_min",
		    pt->count[HB_PT_DIRECT] ? pt->segs_min : 0);
	hb_json_u64(j, "pt_segments_max", pt->segs_max);
	hb_json_str(j, "pt_why", pt->why ? pt->why : "");
	if (pt->lim)
		json_pt_limits(j, pt->lim);
}

/* flat md_* keys, only with md_per_io_size (hugebuf-ioengine.7) */
static void json_md(struct hb_json *j, const struct hb_md_report *md)
{
	bool p = md->predicted;

	hb_json_u64(j, "md_len", md->md_len);
	hb_json_u64(j, "md_max_integrity_segments",
		    md->max_integrity_segments);
	hb_json_str(j, "md_mapping", md_map_word(md));
	hb_json_u64(j, "md_direct", md->count[HB_MD_DIRECT]);
	hb_json_u64(j, "md_copied", md->count[HB_MD_COPIED]);
	json_minmax(j, "md_segments_per_cmd", p ? md->segs_min : 0,
		    md->segs_max);
	json_minmax(j, "md_dma_per_cmd", p ? md->dma_min : 0, md->dma_max);
	hb_json_u64(j, "md_sgl", md->sgl);
	hb_json_str(j, "md_why", p ? (md->why ? md->why : "") :
		    (md->not_predicted ? md->not_predicted : ""));
}

static void json_limits(struct hb_json *j, const struct hb_file_limits *l)
{
	hb_json_u64(j, "dio_mem_align", l->dio_mem_align);
	hb_json_u64(j, "dio_offset_align", l->dio_offset_align);
	hb_json_u64(j, "atomic_unit_min", l->atomic_unit_min);
	hb_json_u64(j, "atomic_unit_max", l->atomic_unit_max);
	hb_json_u64(j, "atomic_segments_max", l->atomic_segments_max);
}

/* the job, its backing and the buffers' shape */
static void json_job(struct hb_json *j, const struct hb_report *r)
{
	char bk[HB_BACKING_STR_MAX];

	hb_backing_str(&r->backing, bk, sizeof(bk));
	hb_json_str(j, "job", r->job);
	hb_json_u64(j, "subjob", r->subjob);
	hb_json_str(j, "backing", bk);
	hb_json_u64(j, "folio_size", r->backing.folio_size);
	hb_json_str(j, "layout", r->layout);
	hb_json_u64(j, "head_offset", r->head_offset);
	hb_json_u64(j, "fixedbufs", r->fixedbufs);
	hb_json_str(j, "kernel_model", r->kernel_model);
	hb_json_str(j, "kernel_detect", r->kernel_detect);
	hb_json_u64(j, "nr_buffers", r->nr_buffers);
	hb_json_u64(j, "buffer_len", r->buffer_len);
	hb_json_u64(j, "bs", r->bs);
	hb_json_u64(j, "stride", r->stride);
}

/* the physical runs: zeros and "known":false without PFNs */
static void json_contig(struct hb_json *j, const struct hb_report *r)
{
	const struct hb_contig *c = &r->st.contig;

	hb_json_str(j, "contig", hb_contig_mode_name(r->backing.contig));
	hb_json_bool(j, "contig_known", c->known);
	hb_json_u64(j, "contig_pages", c->nr_pages);
	hb_json_u64(j, "contig_runs", c->known ? c->nr_runs : 0);
	json_minmax(j, "contig_runs_per_buffer", c->known ? r->st.min_runs : 0,
		    c->known ? r->st.max_runs : 0);
	hb_json_u64(j, "contig_longest_bytes", c->known ?
		    c->longest << HB_PAGE_SHIFT : 0);
	hb_json_u64(j, "contig_pairs", c->pairs);
	hb_json_u64(j, "contig_adjacent_pairs", c->adjacent);
	hb_json_fixed(j, "contig_adjacent_share", hb_contig_share(c), 4);
}

/* what the model and the probe found in the buffers */
static void json_buffers(struct hb_json *j, const struct hb_report *r)
{
	const struct hb_bufstats *st = &r->st;

	json_minmax(j, "folio_size_seen", st->min_folio, st->max_folio);
	json_minmax(j, "folios_per_buffer", st->min_folios, st->max_folios);
	json_minmax(j, "bvecs_per_buffer", st->min_bvecs, st->max_bvecs);
	json_minmax(j, "bvecs_per_io", st->min_io_segs, st->max_io_segs);
	hb_json_bool(j, "coalesced", st->all_coalesced);
	hb_json_u64(j, "imu_bytes", st->imu_bytes);
	hb_json_u64(j, "imu_bytes_4k", st->imu_bytes_4k);
	hb_json_u64(j, "memlock_charge", st->charged_bytes);
	hb_json_fixed(j, "register_usec", r->register_usec, 1);
	hb_json_u64(j, "register_scan_reads", st->reg_cost.scan_reads);
	hb_json_u64(j, "register_ring_lookups", st->reg_cost.ring_lookups);
	hb_json_i64(j, "vmpin_kb", r->vmpin_kb);
	hb_json_str(j, "coalesce_advice", advice(r));
	hb_json_str(j, "probe", probe_word(st));
	json_contig(j, r);
	json_nodes(j, st);
	hb_json_u64(j, "vec_iovecs", r->vec_iovecs);
	hb_json_u64(j, "vec_bvecs", r->vec_bvecs);
	hb_json_str(j, "shared", r->shared ? r->shared : "");
	hb_json_fixed(j, "ready_usec", r->ready_usec, 1);
}

/* the device counters over the job */
static void json_device(struct hb_json *j, const struct hb_report *r)
{
	hb_json_str(j, "device", have_device(r) ? r->device : "");
	hb_json_u64(j, "dev_reads", r->dev_reads);
	hb_json_u64(j, "dev_writes", r->dev_writes);
	hb_json_u64(j, "ios", r->ios);
	hb_json_fixed(j, "requests_per_io", requests_per_io(r), 4);
	hb_json_bool(j, "requests_approximate", r->requests_approximate);
}

/*
 * One compact object (no spaces: a shell can grep "key":value) and a
 * newline.  The keys and their order are the report's format
 * (hugebuf.7, "JSON report"; t/docs-match.sh compares them).
 */
void hb_report_json(const struct hb_report *r, struct hb_str *b)
{
	struct hb_json j;

	hb_json_init_compact(&j, b);
	hb_json_obj(&j, NULL);
	json_job(&j, r);
	json_buffers(&j, r);
	if (r->limits)
		json_limits(&j, r->limits);
	hb_json_u64(&j, "atomic_unregistered_writes", r->atomic_unreg_writes);
	json_pt(&j, r->pt);
	if (r->md)
		json_md(&j, r->md);
	json_device(&j, r);
	json_requests(&j, r);
	json_plain(&j, r);
	hb_json_end(&j);
	hbi_str_printf(b, "\n");
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
