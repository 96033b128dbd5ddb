/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The part every test of t/liburing/ shares: the scratch file and its
 * pattern, registration with the VmPin check, and the test's start and
 * end.  tools/liburing-export.sh writes it into each exported test in
 * place of its #include line, so that every test stays one standalone
 * .c file in liburing's tree.
 */

#define HUGE_SZ		(2UL << 20)
#define PG_SZ		4096UL
#define GUARD		4096UL
#define BACKGROUND	0xa5
#define SEED_FILE	0x51
#define SEED_WRITE	0x7b

struct ctx {
	struct io_uring ring;
	int fd;			/* the scratch file, buffered */
	int dfd;		/* the same file, O_DIRECT */
	size_t size;
	unsigned char *bounce;	/* what a write left in the file */
	unsigned int nr_direct;	/* O_DIRECT I/Os issued */
};

/* A registered buffer; file offsets mirror addresses counted from @map. */
struct reg {
	char *map;
	char *buf;
	size_t len;
	int idx;
};

/* Byte @off of the file's pattern: 8-byte words of (seed, offset). */
static unsigned char pat(unsigned int seed, size_t off)
{
	uint64_t w = ((uint64_t)seed << 56) | (off & ~7UL);

	return w >> ((off & 7) * 8);
}

static void fill(unsigned char *p, size_t len, unsigned int seed, size_t off)
{
	size_t i;

	for (i = 0; i < len; i++)
		p[i] = pat(seed, off + i);
}

/* The index of the first byte that is not the pattern, or -1. */
static long bad_byte(const unsigned char *p, size_t len, unsigned int seed,
		     size_t off)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (p[i] != pat(seed, off + i))
			return i;
	return -1;
}

/* The scratch file in the current directory, holding SEED_FILE's pattern. */
static int file_setup(struct ctx *c, const char *name, size_t size)
{
	unsigned char *chunk;
	char path[80];
	size_t off, n;

	snprintf(path, sizeof(path), ".%s.%d", name, (int)getpid());
	c->fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (c->fd < 0) {
		fprintf(stderr, "create %s: %s\n", path, strerror(errno));
		return T_EXIT_FAIL;
	}
	c->dfd = open(path, O_RDWR | O_DIRECT);
	unlink(path);
	if (c->dfd < 0) {
		fprintf(stderr, "O_DIRECT open of %s: %s: skipping\n", path,
			strerror(errno));
		return T_EXIT_SKIP;
	}
	c->size = size;
	c->bounce = malloc(size + 2 * GUARD);
	chunk = malloc(1UL << 20);
	if (!c->bounce || !chunk) {
		free(chunk);
		return T_EXIT_FAIL;
	}
	for (off = 0; off < size; off += n) {
		n = size - off < (1UL << 20) ? size - off : (1UL << 20);
		fill(chunk, n, SEED_FILE, off);
		if (pwrite(c->fd, chunk, n, off) != (ssize_t)n) {
			fprintf(stderr, "writing the scratch file failed\n");
			free(chunk);
			return T_EXIT_FAIL;
		}
	}
	free(chunk);
	if (fsync(c->fd)) {
		fprintf(stderr, "fsync: %s\n", strerror(errno));
		return T_EXIT_FAIL;
	}
	return T_EXIT_PASS;
}

static void file_close(struct ctx *c)
{
	if (c->fd >= 0)
		close(c->fd);
	if (c->dfd >= 0)
		close(c->dfd);
	free(c->bounce);
}

/* VmPin of /proc/self/status in kB (what pinned_vm holds), or -1 */
static long vmpin_kb(void)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[128];
	long kb = -1;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "VmPin: %ld", &kb) == 1)
			break;
	fclose(f);
	return kb;
}

/*
 * Whether registering charges VmPin here: 7.2 and later charge only a
 * ring made without CAP_IPC_LOCK (io_buffer_account_pin() needs
 * ctx->user, with 7.2's per-ring hpage_acct), earlier kernels every ring
 * (7.0.13 and 7.1.13 charge root's ring: measured in their guests).  From
 * /proc: the release's major.minor and bit 14 (CAP_IPC_LOCK) of CapEff.
 */
static bool vmpin_charged(void)
{
	unsigned long long cap = 0;
	FILE *f = fopen("/proc/sys/kernel/osrelease", "r");
	char line[128];
	int major = 0, minor = 0;

	if (f) {
		if (fscanf(f, "%d.%d", &major, &minor) != 2)
			major = 0;
		fclose(f);
	}
	if (major < 7 || (major == 7 && minor < 2))
		return true;
	f = fopen("/proc/self/status", "r");
	if (!f)
		return true;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "CapEff: %llx", &cap) == 1)
			break;
	fclose(f);
	return !(cap & (1ULL << 14));
}

/*
 * Register @nr buffers; VmPin must grow by @pin_kb (the kernel charges a
 * folio whole, once; nothing where vmpin_charged() says so).  Returns 0,
 * T_EXIT_SKIP on ENOMEM (RLIMIT_MEMLOCK), T_EXIT_FAIL, or the -errno of
 * any other refusal.
 */
static int reg_bufs(struct ctx *c, struct reg *r, unsigned int nr,
		    long pin_kb)
{
	struct iovec iov[4];
	long before = vmpin_kb(), after;
	unsigned int i;
	int ret;

	for (i = 0; i < nr; i++) {
		iov[i].iov_base = r[i].buf;
		iov[i].iov_len = r[i].len;
		r[i].idx = i;
	}
	if (!vmpin_charged())
		pin_kb = 0;
	ret = io_uring_register_buffers(&c->ring, iov, nr);
	if (ret == -ENOMEM) {
		fprintf(stderr, "registering %zu bytes: ENOMEM (RLIMIT_MEMLOCK "
			"too low?): skipping\n", r[0].len);
		return T_EXIT_SKIP;
	}
	if (ret)
		return ret;
	after = vmpin_kb();
	if (before >= 0 && after - before != pin_kb) {
		fprintf(stderr, "registering %zu bytes at %p added %ld kB to "
			"VmPin, expected %ld kB\n", r[0].len, (void *)r[0].buf,
			after - before, pin_kb);
		io_uring_unregister_buffers(&c->ring);
		return T_EXIT_FAIL;
	}
	return T_EXIT_PASS;
}

/* Unregister; VmPin must be back where it was before registering. */
static int unreg_bufs(struct ctx *c, long pin_kb)
{
	long before = vmpin_kb(), after;
	int ret = io_uring_unregister_buffers(&c->ring);

	if (!vmpin_charged())
		pin_kb = 0;
	if (ret) {
		fprintf(stderr, "unregister: %s\n", strerror(-ret));
		return T_EXIT_FAIL;
	}
	after = vmpin_kb();
	if (before >= 0 && before - after != pin_kb) {
		fprintf(stderr, "unregistering gave back %ld kB of VmPin, "
			"expected %ld kB\n", before - after, pin_kb);
		return T_EXIT_FAIL;
	}
	return T_EXIT_PASS;
}

/* Submit the one SQE prepared on @c's ring and wait: cqe->res, or -errno */
static int submit_wait(struct ctx *c)
{
	struct io_uring_cqe *cqe;
	int ret = io_uring_submit(&c->ring);

	if (ret != 1)
		return ret < 0 ? ret : -EIO;
	ret = io_uring_wait_cqe(&c->ring, &cqe);
	if (ret)
		return ret;
	ret = cqe->res;
	io_uring_cqe_seen(&c->ring, cqe);
	return ret;
}

static int begin(struct ctx *c, int argc, const char *name, size_t size)
{
	int ret;

	c->fd = c->dfd = -1;
	if (argc > 1)
		return T_EXIT_SKIP;
	ret = t_create_ring(8, &c->ring, 0);
	if (ret == T_SETUP_SKIP)
		return T_EXIT_SKIP;
	if (ret != T_SETUP_OK)
		return T_EXIT_FAIL;
	ret = file_setup(c, name, size);
	if (ret) {
		file_close(c);
		io_uring_queue_exit(&c->ring);
	}
	return ret;
}

static int end(struct ctx *c, int ret)
{
	if (!ret && !c->nr_direct) {
		fprintf(stderr, "test bug: no O_DIRECT I/O was made\n");
		ret = T_EXIT_FAIL;
	}
	file_close(c);
	io_uring_queue_exit(&c->ring);
	return ret;
}
