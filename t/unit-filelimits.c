// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit test of lib/sysread/filelimits.c: RWF_ATOMIC's rules (c34fc6f26ab8, 6.11):
 * a power-of-two length within the file's unit limits, at an offset
 * aligned to the length, in no more segments than allowed; and statx of
 * a real file answers (direct I/O alignment where the kernel has
 * STATX_DIOALIGN, 6.1+), with hb_dio_align() never below 512.
 */
#include <errno.h>
#include <string.h>

#include "helpers.h"

static int expect(const char *what, int got, int want)
{
	if (got != want)
		return t_fail("%s: %d, expected %d (%s)", what, got, want,
			      hb_errmsg());
	if (got)
		t_info("%s: %s", what, hb_errmsg());
	return t_pass();
}

int main(void)
{
	struct hb_file_limits l = {
		.atomic = true, .atomic_unit_min = 4096,
		.atomic_unit_max = 65536, .atomic_segments_max = 1,
	};
	struct hb_file_limits none = { 0 }, real;
	int ret = 0;

	ret |= expect("16K at 16K", hb_check_atomic_write(&l, 16384, 16384, 1),
		      0);
	ret |= expect("12K", hb_check_atomic_write(&l, 12288, 0, 1), -EINVAL);
	ret |= expect("128K", hb_check_atomic_write(&l, 131072, 0, 1),
		      -EINVAL);
	ret |= expect("2K", hb_check_atomic_write(&l, 2048, 0, 1), -EINVAL);
	ret |= expect("16K at 4K", hb_check_atomic_write(&l, 16384, 4096, 1),
		      -EINVAL);
	ret |= expect("16K in 2 segments",
		      hb_check_atomic_write(&l, 16384, 0, 2), -EINVAL);
	ret |= expect("no support", hb_check_atomic_write(&none, 4096, 0, 1),
		      -EOPNOTSUPP);
	if (hb_file_limits("/proc/self/exe", &real))
		ret = t_fail("statx of /proc/self/exe: %s", hb_errmsg());
	else
		t_info("/proc/self/exe: dio %s %u/%u, atomic %s",
		       real.dio_known ? "known" : "unknown",
		       real.dio_mem_align, real.dio_offset_align,
		       real.atomic ? "yes" : "no");
	if (hb_file_limits("/nonexistent/x", &real) != -ENOENT)
		ret = t_fail("statx of a missing path did not fail ENOENT");
	else
		t_pass();
	if (hb_dio_align("/proc/self/exe") < 512)
		ret = t_fail("hb_dio_align below 512");
	else
		t_pass();
	return t_done(ret ? T_EXIT_FAIL : T_EXIT_PASS);
}
