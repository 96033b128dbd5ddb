// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit test of lib/job/report.c, the one writer of the engine's and the CLI's
 * reports: JSON strings are escaped by RFC 8259 §7 (quote, backslash and
 * controls; UTF-8 kept; invalid bytes become U+FFFD), so a report_json
 * line parses whatever the job is called; the text report has one line
 * per fact, each with the caller's prefix.
 */
#include <string.h>

#include "helpers.h"
#include "job/job.h"

struct esc_case {
	const char *in, *out;
};

static const struct esc_case esc_cases[] = {
	{ "plain", "\"plain\"" },
	{ "q\"x\\y", "\"q\\\"x\\\\y\"" },
	{ "tab\tnl\ncr\r", "\"tab\\tnl\\ncr\\u000d\"" },
	{ "\x01\x1f", "\"\\u0001\\u001f\"" },
	{ "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x92\xbe",
	  "\"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x92\xbe\"" },
	{ "bad\xff", "\"bad\\ufffd\"" },
	{ "cut\xe2\x82", "\"cut\\ufffd\\ufffd\"" },
	{ "overlong\xc0\xaf", "\"overlong\\ufffd\\ufffd\"" },
	{ "", "\"\"" },
};

static int test_escape(void)
{
	unsigned int i;
	int ret = T_EXIT_PASS;

	for (i = 0; i < T_ARRAY_SIZE(esc_cases); i++) {
		struct hb_str b;

		hb_str_init(&b);
		hbi_str_json(&b, esc_cases[i].in);
		if (b.oom || strcmp(b.s, esc_cases[i].out))
			ret = t_fail("escape case %u: got %s, expected %s", i,
				     b.s ? b.s : "(oom)", esc_cases[i].out);
		hb_str_free(&b);
	}
	return ret;
}

static void fill_report(struct hb_report *r, const char *job)
{
	memset(r, 0, sizeof(*r));
	r->job = job;
	r->backing.kind = HB_BACKING_HUGETLB;
	r->backing.folio_size = 2ULL << 20;
	r->layout = "per-io";
	r->fixedbufs = true;
	r->kernel_model = "6.18";
	r->kernel_detect = "version says 6.18, behaviour says \"multi\"";
	r->nr_buffers = 4;
	r->buffer_len = r->bs = r->stride = 8ULL << 20;
	r->st.min_folios = r->st.max_folios = 4;
	r->st.min_bvecs = r->st.max_bvecs = 4;
	r->st.all_coalesced = true;
	r->st.min_folio = r->st.max_folio = 2ULL << 20;
	r->register_usec = 12.5;
	r->vmpin_kb = 32768;
	r->device = "vda";
	r->dev_reads = 8;
	r->ios = 4;
}

/* One line, one object, and the job name escaped where it stands. */
static int test_json(void)
{
	struct hb_report r;
	struct hb_str b;
	int ret = T_EXIT_PASS;
	char *nl;

	fill_report(&r, "q\"x\\y");
	hb_str_init(&b);
	hb_report_json(&r, &b);
	if (b.oom)
		return t_fail("report JSON: out of memory");
	nl = strchr(b.s, '\n');
	if (b.s[0] != '{' || !nl || nl[1] || nl[-1] != '}')
		ret = t_fail("report JSON is not one object on one line: %s",
			     b.s);
	if (!strstr(b.s, "{\"job\":\"q\\\"x\\\\y\",\"subjob\":0,"))
		ret = t_fail("job name not escaped: %s", b.s);
	if (!strstr(b.s, "\"kernel_detect\":\"version says 6.18, behaviour "
			 "says \\\"multi\\\"\""))
		ret = t_fail("kernel_detect not escaped: %s", b.s);
	if (!strstr(b.s, "\"requests_per_io\":2.0000"))
		ret = t_fail("requests per I/O not 8/4: %s", b.s);
	hb_str_free(&b);
	return ret;
}

static int test_text(void)
{
	struct hb_report r;
	struct hb_str b;
	const char *p;
	int lines = 0, ret = T_EXIT_PASS;

	fill_report(&r, "job1");
	hb_str_init(&b);
	hb_report_text(&r, "hugebuf: ", &b);
	for (p = b.s; p && *p; p = strchr(p, '\n') + 1) {
		if (strncmp(p, "hugebuf: job1: ", 15))
			ret = t_fail("text line without prefix: %.60s", p);
		lines++;
	}
	/* the job, kernel, buffers, imu, contiguity and request lines */
	if (lines != 6)
		ret = t_fail("text report has %d lines, expected 6:\n%s",
			     lines, b.s);
	if (!strstr(b.s, "2.00 device requests per I/O"))
		ret = t_fail("no request line:\n%s", b.s);
	hb_str_free(&b);
	return ret;
}

/*
 * A passthrough job: flat pt_* keys a shell can grep, one word for the
 * buffers' predicted path ("mixed" when they differ), and text lines that
 * say the path is a prediction.
 */
static int test_passthrough(void)
{
	struct hb_queue_limits lim = {
		.max_hw_bytes = 512 << 10, .max_segments = 127,
		.max_segment_size = 0xffffffffULL,
		.virt_boundary_mask = 4095, .seg_boundary_mask = 0xffffffffULL,
		.dma_align_mask = 3,
	};
	struct hb_pt_report pt = {
		.device = "/dev/ng0n1 nsid 1, 512-byte LBAs",
		.commands = 64, .cmd_len = 512 << 10, .predicted = true,
		.count = { 4, 0, 0 }, .segs_min = 1, .segs_max = 1, .lim = &lim,
	};
	struct hb_report r;
	struct hb_str b;
	int ret = T_EXIT_PASS;

	fill_report(&r, "pt");
	r.pt = &pt;
	hb_str_init(&b);
	hb_report_json(&r, &b);
	if (!strstr(b.s, "\"passthrough\":true,\"pt_device\":\"/dev/ng0n1 "
			 "nsid 1, 512-byte LBAs\",\"pt_commands\":64,") ||
	    !strstr(b.s, "\"pt_predicted\":\"direct\",\"pt_direct\":4,"
			 "\"pt_copy\":0,\"pt_einval\":0,\"pt_segments_min\":1,"
			 "\"pt_segments_max\":1") ||
	    !strstr(b.s, "\"pt_max_segments\":127,"))
		ret = t_fail("passthrough keys missing: %s", b.s);
	hb_str_free(&b);

	pt.count[HB_PT_COPY] = 1;
	pt.why = "address not aligned";
	hb_str_init(&b);
	hb_report_json(&r, &b);
	if (!strstr(b.s, "\"pt_predicted\":\"mixed\""))
		ret = t_fail("direct + copy buffers are not \"mixed\": %s",
			     b.s);
	hb_str_free(&b);

	hb_str_init(&b);
	hb_report_text(&r, "hugebuf: ", &b);
	if (!strstr(b.s, "hugebuf: pt: passthrough mapping (model, not "
			 "traced) of a 524288-byte command: direct 4, copy 1, "
			 "refused 0 of 5 buffers; 1-1 DMA segments; address "
			 "not aligned\n"))
		ret = t_fail("passthrough text line:\n%s", b.s);
	hb_str_free(&b);

	/* not a passthrough job: the key says so, no pt_* keys */
	r.pt = NULL;
	hb_str_init(&b);
	hb_report_json(&r, &b);
	if (!strstr(b.s, "\"passthrough\":false") || strstr(b.s, "pt_"))
		ret = t_fail("non-passthrough report: %s", b.s);
	hb_str_free(&b);
	return ret;
}

/*
 * A fixedbufs=0 job: the plain model's line, its requests on the requests
 * line under the one verdict, and its plain_* keys (zero and "" in a job
 * without it, which keeps its own lines).
 */
static int test_plain(void)
{
	struct hb_plain_pred pp = {
		.bios = 1, .batches = 9, .adds = 12, .merge_tests = 11,
		.bvecs = 4, .releases = 4, .requests = 2, .max_bvecs = 4,
	};
	struct hb_req_pred pred = { .model = 2, .none = 16, .multi = 2 };
	struct hb_kmodel km = { .plain_folio_runs = true };
	struct hb_report r;
	struct hb_str b;
	int ret = T_EXIT_PASS;

	fill_report(&r, "pl");
	r.fixedbufs = false;
	r.dev_reads = 8;
	r.km = &km;
	r.pred = &pred;
	r.plain = &pp;
	r.plain_pfn = "probed";
	hb_str_init(&b);
	hb_report_text(&r, "hugebuf: ", &b);
	if (!strstr(b.s, "hugebuf: pl: plain O_DIRECT model of one 8388608-"
			 "byte I/O (PFNs probed): 1 bio(s), 9 page batch(es), "
			 "12 adds (folio runs), 11 merge tests, 4 bvecs (0 "
			 "same-page merges), 4 releases, 2 requests\n") ||
	    !strstr(b.s, "; plain O_DIRECT model 2 (no page merged 16, one "
			 "bvec per folio 2): 2 per I/O, coalesced yes, as "
			 "modelled\n"))
		ret = t_fail("plain text lines:\n%s", b.s);
	hb_str_free(&b);
	hb_str_init(&b);
	hb_report_json(&r, &b);
	if (!strstr(b.s, "\"requests_model\":2,\"requests_uncoalesced\":16,"
			 "\"requests_multi\":2,\"kernel_coalesced\":\"yes\","
			 "\"matches_model\":true,\"plain_pfn\":\"probed\","
			 "\"plain_folio_runs\":true,\"plain_bios\":1,"
			 "\"plain_batches\":9,\"plain_adds\":12,"
			 "\"plain_merge_tests\":11,\"plain_bvecs\":4,"
			 "\"plain_same_page\":0,\"plain_releases\":4}"))
		ret = t_fail("plain JSON keys: %s", b.s);
	hb_str_free(&b);

	/* without the plain model: empty and zero keys, no plain line */
	r.plain = NULL;
	r.fixedbufs = true;
	hb_str_init(&b);
	hb_report_json(&r, &b);
	if (!strstr(b.s, "\"plain_pfn\":\"\",\"plain_folio_runs\":false,"
			 "\"plain_bios\":0,"))
		ret = t_fail("JSON without the plain model: %s", b.s);
	hb_str_free(&b);
	hb_str_init(&b);
	hb_report_text(&r, "hugebuf: ", &b);
	if (strstr(b.s, "plain") ||
	    !strstr(b.s, "; model 2 (uncoalesced 16, one bvec per folio 2)"))
		ret = t_fail("text without the plain model:\n%s", b.s);
	hb_str_free(&b);
	return ret;
}

/*
 * The contiguity line and keys (issue 44): the mode asked for and the
 * runs measured, or "not measured" and zeros without PFNs.
 */
static int test_contig(void)
{
	static const uint64_t pfn[] = { 7, 8, 9, 20, 30, 31, 50, 51 };
	struct hb_contig a, c;
	struct hb_report r;
	struct hb_str b;
	int ret = T_EXIT_PASS;

	fill_report(&r, "job1");
	r.backing.contig = HB_CONTIG_SCATTERED;
	hb_str_init(&b);
	hb_report_text(&r, "hugebuf: ", &b);
	hb_report_json(&r, &b);
	if (!strstr(b.s, "contiguity (contig=scattered): not measured") ||
	    !strstr(b.s, "\"contig\":\"scattered\",\"contig_known\":false,"))
		ret = t_fail("contiguity without PFNs:\n%s", b.s);
	hb_str_free(&b);
	/* two buffers of 3 and 5 pages: 1 and 3 runs, longest 3, 4 adjacent */
	hb_contig_measure(pfn, 3, &a);
	hb_contig_measure(pfn + 3, 5, &c);
	hb_contig_add(&r.st.contig, &a, true);
	hb_contig_add(&r.st.contig, &c, false);
	r.st.min_runs = a.nr_runs;
	r.st.max_runs = c.nr_runs;
	hb_str_init(&b);
	hb_report_text(&r, "hugebuf: ", &b);
	hb_report_json(&r, &b);
	if (!strstr(b.s, "8 pages in 4 physical runs (1-3 per buffer), "
		    "longest 3 pages (12K), 66.7% of neighbouring pages "
		    "adjacent") ||
	    !strstr(b.s, "\"contig_known\":true,\"contig_pages\":8,"
		    "\"contig_runs\":4,\"contig_runs_per_buffer\":{\"min\":1,"
		    "\"max\":3},\"contig_longest_bytes\":12288,"
		    "\"contig_pairs\":6,\"contig_adjacent_pairs\":4,"
		    "\"contig_adjacent_share\":0.6667"))
		ret = t_fail("contiguity of 2 buffers:\n%s", b.s);
	hb_str_free(&b);
	return ret;
}

/*
 * md_per_io_size: flat md_* keys (only then), one word for the slots'
 * mapping, the segments and DMA addresses per command, and a text line
 * that says it is the model's; without a prediction, the reason.
 */
static int test_metadata(void)
{
	struct hb_md_report md = {
		.md_len = 1024, .passthrough = true,
		.max_integrity_segments = 1, .predicted = true,
		.count = { 4, 0, 0 }, .segs_min = 1, .segs_max = 1,
		.dma_min = 1, .dma_max = 1,
	};
	struct hb_report r;
	struct hb_str b;
	int ret = T_EXIT_PASS;

	fill_report(&r, "md");
	r.md = &md;
	hb_str_init(&b);
	hb_report_json(&r, &b);
	if (!strstr(b.s, "\"md_len\":1024,\"md_max_integrity_segments\":1,"
			 "\"md_mapping\":\"direct\",\"md_direct\":4,"
			 "\"md_copied\":0,\"md_segments_per_cmd\":{\"min\":1,"
			 "\"max\":1},\"md_dma_per_cmd\":{\"min\":1,\"max\":1},"
			 "\"md_sgl\":0,\"md_why\":\"\""))
		ret = t_fail("metadata keys missing: %s", b.s);
	hb_str_free(&b);

	md.count[HB_MD_DIRECT] = 2;
	md.count[HB_MD_COPIED] = 2;
	md.why = hb_md_why_name(HB_MD_WHY_SEGMENTS);
	hb_str_init(&b);
	hb_report_json(&r, &b);
	if (!strstr(b.s, "\"md_mapping\":\"mixed\""))
		ret = t_fail("direct + copied are not \"mixed\": %s", b.s);
	hb_str_free(&b);
	hb_str_init(&b);
	hb_report_text(&r, "hugebuf: ", &b);
	if (!strstr(b.s, "hugebuf: md: metadata (model, not traced) of a "
			 "1024-byte command, max_integrity_segments 1: direct "
			 "2, copied 2 of 4 buffers; 1-1 integrity segments, "
			 "1-1 DMA addresses per command (metadata pointer); "
			 "copied: more folio runs than "
			 "max_integrity_segments\n"))
		ret = t_fail("metadata text line:\n%s", b.s);
	hb_str_free(&b);

	memset(&md, 0, sizeof(md));
	md.md_len = 1024;
	md.not_predicted = "the queue's max_integrity_segments not in sysfs";
	hb_str_init(&b);
	hb_report_json(&r, &b);
	if (!strstr(b.s, "\"md_mapping\":\"\",") ||
	    !strstr(b.s, "\"md_why\":\"the queue's max_integrity_segments "
			 "not in sysfs\""))
		ret = t_fail("metadata without a prediction: %s", b.s);
	hb_str_free(&b);

	/* no md_per_io_size: no md_* keys */
	r.md = NULL;
	hb_str_init(&b);
	hb_report_json(&r, &b);
	if (strstr(b.s, "\"md_"))
		ret = t_fail("md_* keys without metadata: %s", b.s);
	hb_str_free(&b);
	return ret;
}

int main(void)
{
	int ret = t_sub(test_escape());

	ret = t_worst(ret, t_sub(test_json()));
	ret = t_worst(ret, t_sub(test_text()));
	ret = t_worst(ret, t_sub(test_passthrough()));
	ret = t_worst(ret, t_sub(test_plain()));
	ret = t_worst(ret, t_sub(test_contig()));
	ret = t_worst(ret, t_sub(test_metadata()));
	return t_done(ret);
}
