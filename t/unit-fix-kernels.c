// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit test of the model of a harness kernel with one fix of
 * kernel/patches/bugfix/ alone (kernel/kbuild.sh's build:fix kernels,
 * release "6.1.N-hbfix-NAME"): 6.1's model with only what that fix
 * changes (hbi_kmodel_release_fix(), lib/model/kmodel.c):
 *  - nrsegs (io_uring 2/5): nr_segs counted from bvec[0]'s bv_len;
 *  - memlock (io_uring 5/5): per-ring head references, no batch
 *    de-duplication of the loop-filled table, no imu->acct_pages;
 *  - pinleak (e1c75831f682): an error path, no rule of the model.
 * And Debian's 7.3 with kernel/patches/mainline (kbuild.sh's
 * build:mainline kernel, release "7.3.4-hbfix-sendzc"): 7.3.4's model
 * with a SEND_ZC frag charged for the pages it spans, which 6.3+
 * releases (57bebf807e2a) have to lose.
 * Any other kernel, or an unknown fix name, keeps its version's model.
 */
#include <string.h>

#include "helpers.h"

static int parse(const char *s, struct hb_kmodel *km)
{
	if (hb_kmodel_parse(s, km))
		return t_fail("%s: %s", s, hb_errmsg());
	return 0;
}

/* @s has 6.1.192's rules but for the fields the fix sets, and @name */
static int check_fix(const char *s, const char *name, bool nr_segs,
		     bool per_ring)
{
	struct hb_kmodel base, km;

	if (parse("6.1.192", &base) || parse(s, &km))
		return T_EXIT_FAIL;
	if (strcmp(km.name, name))
		return t_fail("%s: named %s, want %s", s, km.name, name);
	if (km.exact_nr_segs != nr_segs || km.nr_segs_from_head != nr_segs)
		return t_fail("%s: exact nr_segs %d, from the head %d, want %d",
			      s, km.exact_nr_segs, km.nr_segs_from_head,
			      nr_segs);
	if (km.acct_per_ring != per_ring ||
	    km.acct_batch_dedup != !per_ring)
		return t_fail("%s: per-ring accounting %d, batch dedup %d, "
			      "want %d", s, km.acct_per_ring,
			      km.acct_batch_dedup, per_ring);
	/* the rest is 6.1's */
	base.exact_nr_segs = km.exact_nr_segs;
	base.nr_segs_from_head = km.nr_segs_from_head;
	base.acct_per_ring = km.acct_per_ring;
	base.acct_batch_dedup = km.acct_batch_dedup;
	base.imu_header = km.imu_header;
	memcpy(base.name, km.name, sizeof(base.name));
	if (memcmp(&base, &km, sizeof(km)))
		return t_fail("%s: differs from 6.1.192 beyond its fix", s);
	return 0;
}

/* @s has @base's rules but the SEND_ZC charge in page, and @name */
static int check_sendzc(const char *s, const char *base_s, const char *name)
{
	struct hb_kmodel base, km;

	if (parse(base_s, &base) || parse(s, &km))
		return T_EXIT_FAIL;
	if (strcmp(km.name, name))
		return t_fail("%s: named %s, want %s", s, km.name, name);
	if (base.sendzc_charge_in_page || !km.sendzc_charge_in_page)
		return t_fail("%s: SEND_ZC charged in page %d (%s: %d), want "
			      "1 (0)", s, km.sendzc_charge_in_page, base_s,
			      base.sendzc_charge_in_page);
	base.sendzc_charge_in_page = true;
	memcpy(base.name, km.name, sizeof(base.name));
	if (memcmp(&base, &km, sizeof(km)))
		return t_fail("%s: differs from %s beyond its fix", s, base_s);
	return 0;
}

/* no fix on another kernel, none of an unknown name */
static int check_not_fix(const char *s, const char *as)
{
	struct hb_kmodel km, want;

	if (parse(s, &km) || parse(as, &want))
		return T_EXIT_FAIL;
	if (memcmp(&km, &want, sizeof(km)))
		return t_fail("%s: not the model of %s", s, as);
	return 0;
}

int main(void)
{
	int ret = T_EXIT_PASS;

	ret = t_worst(ret, t_sub(check_fix("6.1.192-hbfix-nrsegs",
					   "6.1.192+fix-nrsegs", true,
					   false)));
	ret = t_worst(ret, t_sub(check_fix("6.1.192-hbfix-memlock",
					   "6.1.192+fix-memlock", false,
					   true)));
	ret = t_worst(ret, t_sub(check_fix("6.1.192-hbfix-pinleak",
					   "6.1.192+fix-pinleak", false,
					   false)));
	ret = t_worst(ret, t_sub(check_not_fix("6.12.9-hbfix-nrsegs",
					       "6.12.9")));
	ret = t_worst(ret, t_sub(check_not_fix("6.1.192-hbfix-other",
					       "6.1.192")));
	ret = t_worst(ret, t_sub(check_sendzc("7.3.4-hbfix-sendzc", "7.3.4",
					      "7.3.4+fix-sendzc")));
	ret = t_worst(ret, t_sub(check_sendzc("6.12.9-hbfix-sendzc", "6.12.9",
					      "6.12.9+fix-sendzc")));
	/* 6.1 coalesces nothing to over-charge; 7.3 has no bugfix/ patch */
	ret = t_worst(ret, t_sub(check_not_fix("6.1.192-hbfix-sendzc",
					       "6.1.192")));
	ret = t_worst(ret, t_sub(check_not_fix("7.3.4-hbfix-memlock",
					       "7.3.4")));
	return t_done(ret);
}
