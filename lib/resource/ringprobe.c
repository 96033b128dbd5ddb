// SPDX-License-Identifier: GPL-2.0-only
/*
 * Which io_uring features of lib/model/ringfeat.c's table the running kernel
 * has, asked of the kernel itself (a version says little: distributions
 * carry io_uring back, Debian's 5.10.y has 5.15's).  Each answer is one
 * small ring or one register call on it, a few microseconds, once per
 * process:
 *  - setup flags: a 4-entry ring with exactly the flags the engine sets
 *    (an unknown flag is EINVAL at io_uring_setup());
 *  - opcodes: IORING_REGISTER_PROBE (5.6);
 *  - register opcodes: an unknown one is EINVAL (__io_uring_register()'s
 *    default).  The ring fd and the sparse file table are registered and
 *    unregistered again; CLONE_BUFFERS is asked with source fd -1, which
 *    a kernel that has it answers EBADF (io_uring_register_get_file()),
 *    before it looks at anything to clone.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include <liburing.h>

#include "resource/resource.h"
#include "base/uring-compat.h"

static pthread_once_t probe_once = PTHREAD_ONCE_INIT;
static unsigned int probe_have;
static int probe_ret;
static char probe_err[256];
static char probe_hidden[32];

/* Whether io_uring_setup() takes @flags. */
static bool setup_takes(unsigned int flags)
{
	struct io_uring_params p;
	struct io_uring ring;

	memset(&p, 0, sizeof(p));
	p.flags = flags;
	if (flags & IORING_SETUP_CQSIZE)
		p.cq_entries = 8;
	if (io_uring_queue_init_params(4, &ring, &p))
		return false;
	io_uring_queue_exit(&ring);
	return true;
}

static unsigned int probe_register(struct io_uring *ring)
{
	struct io_uring src;
	unsigned int have = 0;
	int ret;

	if (io_uring_register_ring_fd(ring) == 1) {
		have |= HB_UF_BIT(HB_UF_RING_FD);
		io_uring_unregister_ring_fd(ring);
	}
	if (!io_uring_register_files_sparse(ring, 1)) {
		have |= HB_UF_BIT(HB_UF_FILES_SPARSE);
		io_uring_unregister_files(ring);
	}
	memset(&src, 0, sizeof(src));
	src.ring_fd = -1;
	ret = hb_clone_buffers(ring, &src, 0, 0, 0, 0);
	if (ret != -EINVAL)
		have |= HB_UF_BIT(HB_UF_CLONE_BUFFERS);
	return have;
}

/*
 * RWF_DONTCACHE cannot be asked of a ring: since 6.14 the kernel answers
 * per file system (kiocb_set_rw_flags(): -EOPNOTSUPP without
 * FOP_DONTCACHE), the same -EOPNOTSUPP an older kernel gives the unknown
 * flag.  So the running release decides, against the table's row.
 */
static unsigned int probe_by_release(void)
{
	struct utsname u;
	int major, minor;

	if (uname(&u) || sscanf(u.release, "%d.%d", &major, &minor) != 2)
		return 0;
	return hb_uf_upto(major, minor) & HB_UF_BIT(HB_UF_DONTCACHE);
}

static int probe_kernel(unsigned int *have)
{
	struct io_uring_probe *pr;
	struct io_uring ring;
	int ret;

	/* no ring at all: nothing to judge, the caller's setup says why */
	*have = HB_UF_ALL;
	ret = io_uring_queue_init(4, &ring, 0);
	if (ret) {
		hb_seterr(-ret, "io_uring_setup failed: %s (no io_uring, or "
			  "sysctl kernel.io_uring_disabled is set)",
			  strerror(-ret));
		return 1;
	}
	*have = 0;
	if (setup_takes(IORING_SETUP_CQSIZE | IORING_SETUP_CLAMP))
		*have |= HB_UF_BIT(HB_UF_CQSIZE);
	if (setup_takes(IORING_SETUP_SINGLE_ISSUER |
			IORING_SETUP_DEFER_TASKRUN |
			IORING_SETUP_TASKRUN_FLAG))
		*have |= HB_UF_BIT(HB_UF_DEFER_TASKRUN);
	pr = io_uring_get_probe_ring(&ring);
	if (pr) {
		if (io_uring_opcode_supported(pr, IORING_OP_URING_CMD) &&
		    setup_takes(IORING_SETUP_SQE128 | IORING_SETUP_CQE32))
			*have |= HB_UF_BIT(HB_UF_URING_CMD);
		if (io_uring_opcode_supported(pr, HB_IORING_OP_READV_FIXED) &&
		    io_uring_opcode_supported(pr, HB_IORING_OP_WRITEV_FIXED))
			*have |= HB_UF_BIT(HB_UF_READV_FIXED);
		io_uring_free_probe(pr);
	}
	*have |= probe_register(&ring);
	io_uring_queue_exit(&ring);
	*have |= probe_by_release();
	return 0;
}

static void probe_run(void)
{
	const char *env = getenv("HUGEBUF_URING_FEATURES");
	int major, minor, n = 0;

	if (env && *env &&
	    (sscanf(env, "%d.%d%n", &major, &minor, &n) != 2 ||
	     env[n] || major < 1 || minor < 0)) {
		probe_ret = hb_seterr(EINVAL, "HUGEBUF_URING_FEATURES='%s' is "
				      "not a kernel release: use e.g. 5.10, "
				      "or unset it", env);
	} else {
		probe_ret = probe_kernel(&probe_have);
		if (probe_ret >= 0 && env && *env) {
			probe_have &= hb_uf_upto(major, minor);
			snprintf(probe_hidden, sizeof(probe_hidden), "%d.%d",
				 major, minor);
		}
	}
	if (probe_ret)
		snprintf(probe_err, sizeof(probe_err), "%s", hb_errmsg());
}

int hb_uf_probe(unsigned int *have)
{
	pthread_once(&probe_once, probe_run);
	*have = probe_have;
	if (probe_ret < 0)
		return hb_seterr(-probe_ret, "%s", probe_err);
	if (probe_ret)
		hb_seterr(EOPNOTSUPP, "%s", probe_err);
	return probe_ret;
}

const char *hb_uf_hidden_above(void)
{
	pthread_once(&probe_once, probe_run);
	return probe_hidden;
}
