# SPDX-License-Identifier: GPL-2.0-only
#
# kernel/bioprof.awk: the table of kernel/probe/bio-profile's BIOPROF lines
# from one guest's console log, per plain O_DIRECT I/O: block requests,
# bio_iov_iter_get_pages() calls, the per-page merge tests of that kernel
# (__bio_try_merge_page on 6.1, bvec_try_merge_page since 6.5), the
# unpin calls (kprobe events) and the wall time per I/O seen from user
# space with no probe armed (microseconds under TCG: a ratio, not a
# figure), then lib's model against the counts and the data and leak
# checks.  Counts are the minimum over the one-I/O windows (other block I/O
# only adds); the time is the fastest I/O's, for the same reason.
# Variables: k = the kernel's label.

function kv(line, i, n, a, p) {
	delete v
	n = split(line, a, " ")
	for (i = 2; i <= n; i++) {
		p = index(a[i], "=")
		if (p)
			v[substr(a[i], 1, p - 1)] = substr(a[i], p + 1)
	}
}

function per_io(key, s) {
	return ((key, s) in hits) ? hits[key, s] : 0
}

{ sub(/\r$/, "") }

/^BIOPROF op=.* ios=/ {
	kv($0)
	key = v["op"] " " v["backing"] " " v["size"]
	if (!(key in ios))
		order[++n] = key
	ios[key] = v["ios"]
	req[key] = ("requests_min" in v) ? v["requests_min"] : \
		   v["requests"] / v["ios"]
	data[key] = v["data"]
	wall[key] = v["wall_usec"]
	next
}

/^BIOPROF op=.* sym=/ {
	kv($0)
	key = v["op"] " " v["backing"] " " v["size"]
	hits[key, v["sym"]] = ("min" in v) ? v["min"] : v["hits"] / ios[key]
	next
}

# lib's model (hb_model_plain) against each count: tallied, and the ones
# that differ shown
/^BIOPROF model / {
	kv($0)
	if ("kernel" in v) {
		model_k = v["kernel"]
		next
	}
	mres[v["result"]]++
	if (v["result"] != "ok")
		checks[++nc] = substr($0, 9)
	next
}

# the data and leak checks: counted, and the ones that did not pass shown
/^BIOPROF check / {
	kv($0)
	res[v["result"]]++
	if (v["result"] != "ok")
		checks[++nc] = substr($0, 9)
	next
}

/^BIOPROF done / || /^BIOPROF skip=/ {
	checks[++nc] = substr($0, 9)
}

END {
	if (!n && !nc && !length(res))
		exit
	printf "%-12s %-5s %-8s %8s %6s %6s %8s %6s %7s %9s %s\n", "kernel",
	       "op", "backing", "bytes", "req", "getpg", "merges", "bvecs",
	       "unpins", "wall_us", "data"
	for (i = 1; i <= n; i++) {
		key = order[i]
		split(key, p, " ")
		if (!ios[key])
			continue
		merges = per_io(key, "__bio_try_merge_page") + \
			 per_io(key, "bvec_try_merge_page")
		# a new bvec: bio_add_folio_nofail() on 6.12 (which calls
		# __bio_add_page() itself), __bio_add_page() on 6.1
		bvecs = ((key, "bio_add_folio_nofail") in hits) ? \
			per_io(key, "bio_add_folio_nofail") : \
			per_io(key, "__bio_add_page")
		unpins = per_io(key, "unpin_user_page") + \
			 per_io(key, "unpin_user_folio")
		us = wall[key] + 0
		printf "%-12s %-5s %-8s %8s %6d %6d %8d %6d %7d %9.0f %s\n",
		       k, p[1], p[2], p[3], req[key],
		       per_io(key, "bio_iov_iter_get_pages"), merges, bvecs,
		       unpins, us, data[key]
	}
	printf "%-12s model (%s): %d counts = predicted, %d differ, %d skipped\n",
	       k, model_k == "" ? "none" : model_k, mres["ok"], mres["FAIL"],
	       mres["skip"]
	printf "%-12s data and leak checks: %d ok, %d skipped, %d failed\n", k,
	       res["ok"], res["skip"], res["FAIL"]
	for (i = 1; i <= nc; i++)
		printf "%-12s %s\n", k, checks[i]
}
