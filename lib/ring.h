/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Private (not installed): lib/'s helpers over liburing: registration
 * (register.c), measurement (measure.c) and the io_uring features a job
 * uses and the kernel has (ringfeat.c, ringprobe.c).
 */
#ifndef HUGEBUF_RING_H
#define HUGEBUF_RING_H

#include <stdbool.h>
#include <stdint.h>

#include "hugebuf.h"

/* ------------------------------------------------------------------ */
/* registration helpers over liburing                                   */
/* ------------------------------------------------------------------ */

struct io_uring;

/*
 * io_uring_register_buffers() with every errno turned into a message:
 * ENOMEM = RLIMIT_MEMLOCK (ulimit -l), EFAULT = over 1 GiB, zero length or
 * file-backed memory, EOVERFLOW = address wrap, EINVAL = too many buffers.
 */
int hb_register_buffers(struct io_uring *ring, const struct iovec *iov,
			unsigned int nr);
/*
 * Register a sparse table of @nr slots, then fill slots with updates.
 * Where the kernel has no sparse flag (before 5.19) the table is @nr
 * empty iovecs (NULL, 0), which 5.13+ and 5.10.162+ take as empty slots.
 */
int hb_register_sparse(struct io_uring *ring, unsigned int nr);
int hb_register_update(struct io_uring *ring, unsigned int off,
		       const struct iovec *iov, unsigned int nr);
/*
 * A ring of @entries whose registrations are charged (ctx->user set):
 * with CAP_IPC_LOCK the thread's effective set drops it for
 * io_uring_queue_init() and raises it again (capset() changes this
 * thread only).  *@checked: RLIMIT_MEMLOCK applies to the ring.  0, or -1
 * when no such ring could be made.
 */
int hb_ring_init_charged(struct io_uring *ring, unsigned int entries,
			 bool *checked);
/* The message for a registration errno (negative or positive). */
const char *hb_register_strerror(int err);

/* ------------------------------------------------------------------ */
/* measurement: block requests and kernel memory of registrations      */
/* ------------------------------------------------------------------ */


/*
 * Minimum over @tries of the reads completed on @dev for one O_DIRECT
 * READ_FIXED (@fixed, registered buffer @buf_index) or plain READ of @len
 * bytes at @file_off into @addr.  @fd must be open with O_DIRECT.
 */
int hb_count_read_requests(struct io_uring *ring, int fd, bool fixed,
			   int buf_index, void *addr, uint64_t len,
			   uint64_t file_off, const char *dev,
			   unsigned int tries, uint64_t *min_reqs);
/*
 * Register [addr, addr+len) @k times in one call, report the change of
 * SUnreclaim + VmallocUsed in KiB, unregister.  The ring must have no
 * buffers registered.
 */
int hb_measure_reg_kmem(struct io_uring *ring, void *addr, uint64_t len,
			unsigned int k, long *delta_kb);

/* ------------------------------------------------------------------ */
/* io_uring features: what a job uses, what the kernel has             */
/* ------------------------------------------------------------------ */

/* Features some supported kernels lack (lib/ringfeat.c has the table). */
enum hb_ufeat {
	HB_UF_CQSIZE,		/* SETUP_CQSIZE + CLAMP (5.6): required */
	HB_UF_DEFER_TASKRUN,	/* SINGLE_ISSUER + DEFER_TASKRUN (6.1) */
	HB_UF_RING_FD,		/* REGISTER_RING_FDS (5.18) */
	HB_UF_FILES_SPARSE,	/* RSRC_REGISTER_SPARSE files (5.19) */
	HB_UF_URING_CMD,	/* OP_URING_CMD, SQE128, CQE32 (5.19) */
	HB_UF_CLONE_BUFFERS,	/* REGISTER_CLONE_BUFFERS (6.12) */
	HB_UF_READV_FIXED,	/* OP_READV_FIXED / WRITEV_FIXED (6.15) */
	HB_UF_DONTCACHE,	/* RWF_DONTCACHE buffered I/O (6.14) */
	HB_UF_NR
};
#define HB_UF_BIT(f)		(1U << (f))
#define HB_UF_ALL		((1U << HB_UF_NR) - 1)
#define HB_UF_LINE_MAX		320

/* How the job wants a feature. */
enum hb_uf_want {
	HB_UF_NOT_USED = 0,
	HB_UF_BY_DEFAULT,	/* used where the kernel has it */
	HB_UF_ASKED,		/* the job's options ask for it */
};

/* What the engine does about it. */
enum hb_uf_act {
	HB_UF_OFF = 0,		/* not used */
	HB_UF_USE,		/* the kernel has it */
	HB_UF_FALLBACK,		/* not asked for, missing: line[] says what */
	HB_UF_REFUSE,		/* asked for (or required), missing: error */
};

struct hb_uf_job {
	unsigned char want[HB_UF_NR];		/* enum hb_uf_want */
	/* the option that asks, as the job wrote it ("vec_iovecs=4") */
	const char *asked_by[HB_UF_NR];
};

struct hb_uf_decision {
	unsigned char act[HB_UF_NR];		/* enum hb_uf_act */
	unsigned int nr_fallbacks, nr_refused;
	char line[HB_UF_NR][HB_UF_LINE_MAX];	/* FALLBACK / REFUSE only */
};

/*
 * The one decision (pure): @have is the kernel's HB_UF_BIT()s, @kernel its
 * release for the lines.  0, or -EOPNOTSUPP with the first refusal's line
 * in hb_errmsg(); every fallback and refusal has its line in @d.
 */
int hb_uf_decide(const struct hb_uf_job *job, unsigned int have,
		 const char *kernel, struct hb_uf_decision *d);
/* The kernel's name for @f, and the upstream release that added it. */
const char *hb_uf_feature(enum hb_ufeat f);
void hb_uf_release(enum hb_ufeat f, int *major, int *minor);
/* The features upstream @major.@minor has (pure). */
unsigned int hb_uf_upto(int major, int minor);
/*
 * What the running kernel has, asked of it with small rings (setup flags,
 * register opcodes, the opcode probe), once per process.
 * $HUGEBUF_URING_FEATURES=X.Y hides what upstream X.Y did not have (a
 * test hook for the fallbacks; it never adds a feature).  0; 1 when no
 * ring can be set up at all (@have is HB_UF_ALL: nothing is judged, the
 * caller's own io_uring_setup() says why; hb_errmsg() has the reason);
 * -EINVAL with one line for a bad $HUGEBUF_URING_FEATURES.
 */
int hb_uf_probe(unsigned int *have);
/* The release hb_uf_probe() hides above ("" when none), for the lines. */
const char *hb_uf_hidden_above(void);

#endif /* HUGEBUF_RING_H */
