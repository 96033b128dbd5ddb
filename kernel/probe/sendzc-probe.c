// SPDX-License-Identifier: GPL-2.0-only
/*
 * sendzc-probe: zero-copy send from a registered buffer over loopback TCP,
 * measured; run in every qemu guest by kernel/ktest.sh (no disk needed).
 *
 * IORING_OP_SEND_ZC with IORING_RECVSEND_FIXED_BUF (6.0+) builds the skb
 * frags in io_sg_from_iter() (io_uring/net.c, 6.1 and 6.12) straight from
 * the buffer's bvecs, one frag per mp_bvec_iter_bvec() step, and charges
 * each PAGE_ALIGN(bv_len + bv_offset) to skb->truesize and sk_wmem_queued
 * (in io_sg_from_iter() up to 6.10, in its caller __zerocopy_sg_from_iter()
 * from 6.11).  With one bvec per 4 KiB page the charge is the bytes; with
 * one bvec per 2 MiB folio (the series, 6.12's io_sqe_buffer_register())
 * bv_offset is the offset in the folio, so a 64 KiB frag deep in a
 * hugepage is charged up to 2 MiB.
 *
 * Each case sends 8 MiB of one registered buffer (2 MiB hugetlb, 4 KiB
 * pages, THP) in SQEs of CHUNK bytes (a short send resubmits the rest) to
 * a reader thread on the other end, which checks every byte against the
 * pattern.  The reader starts reading only once the sender has met the
 * send buffer's limit (sender_stalled()), so every case measures a full
 * send buffer, whatever its chunk and backing and however fast the
 * reader.  Between submissions and while it waits for completions the
 * sender samples
 *   wmem  = SO_MEMINFO's SK_MEMINFO_WMEM_QUEUED (sk_wmem_queued),
 *   outq  = SIOCOUTQ (tcp_ioctl(): write_seq - snd_una, the bytes unsent
 *           or unacked),
 *   rmem  = the receiver's SK_MEMINFO_RMEM_ALLOC, inq = its SIOCINQ,
 * and prints per case
 *   SENDZC case=NAME backing=B chunk=N bytes=N sqes=N short=N eagain=N
 *          issues=N memwaits=N wmem_peak=N outq_at_peak=N ratio=R
 *          ratio_at_peak=R sndbuf=A/B rmem_peak=N rx_ratio=R stall_ms=T
 *          send_ms=T total_ms=T notifs=N copied=N retrans=N prune=N
 *          collapsed=N rcvqdrop=N backlogdrop=N samples=N inflight=N
 *          limit=short|eagain|pending data=ok|BAD
 * ratio = sum(outq) / sum(wmem) over the inflight samples, those with
 * outq > 0 (bytes in flight per byte charged, ~0.9 when each frag is
 * charged its bytes: the skb heads; "n/a" and not judged without one),
 * rx_ratio that of inq / rmem over the samples with rmem > 0; limit the
 * event that showed the sender at the limit; stall_ms the longest wait
 * of the reader between two receives; issues and memwaits the calls of
 * io_send_zc() and sk_stream_wait_memory() (kprobe events, "n/a" without
 * them): issues - sqes are the -EAGAIN retries io_uring made itself,
 * memwaits the times tcp_sendmsg_locked() found sk_wmem_queued at
 * sk_sndbuf (sk_stream_memory_free()).  short = results below the SQE's
 * length (no MSG_WAITALL, so io_send_zc() completes a partial send).
 * copied = notifications flagged IORING_NOTIF_USAGE_ZC_COPIED
 * (IORING_SEND_ZC_REPORT_USAGE: 6.2+, in Debian's 6.1 as a backport; "n/a"
 * without it): over loopback every one is, as __netif_receive_skb_core()
 * copies a zerocopy skb's frags for the receiver (skb_orphan_frags_rx(),
 * skb_copy_ubufs(), which leaves skb->truesize as the sender charged it).
 * prune .. backlogdrop: /proc/net/netstat's TcpExt deltas over the case,
 * retrans the sender's tcpi_total_retrans.
 * The figures are printed, not judged: a case passes when all 8 MiB went
 * out at the send buffer's limit and came in byte-exact with every
 * notification reaped.
 * Lines for kernel/ktest.sh: "@@KTEST RUN sendzc:NAME" before a case and
 * "@@KTEST RESULT sendzc:NAME RC 0" after it (0 pass, 1 fail, 77 skip).
 * Exit 0, 1 when a case failed, 77 when every case was skipped.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/sock_diag.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include "../../t/helpers.h"

#define MiB		(1ULL << 20)
#define KiB		(1ULL << 10)
#define SEND_LEN	(8 * MiB)
#define RING_ENTRIES	64

#ifndef SO_MEMINFO
#define SO_MEMINFO	55
#endif
#ifndef IORING_SEND_ZC_REPORT_USAGE
#define IORING_SEND_ZC_REPORT_USAGE	(1U << 3)
#endif
#ifndef IORING_NOTIF_USAGE_ZC_COPIED
#define IORING_NOTIF_USAGE_ZC_COPIED	(1U << 31)
#endif

struct zc_case {
	const char *name;
	const char *backing;
	uint64_t chunk;
};

static const struct zc_case cases[] = {
	{ "2m-8m", "hugetlb:2M", 8 * MiB },
	{ "2m-1m", "hugetlb:2M", 1 * MiB },
	{ "2m-64k", "hugetlb:2M", 64 * KiB },
	{ "4k-8m", "4k", 8 * MiB },
	{ "4k-1m", "4k", 1 * MiB },
	{ "4k-64k", "4k", 64 * KiB },
	{ "thp-64k", "thp", 64 * KiB },
};

/*
 * What a case measured and what lib's model says of its buffer: ratio
 * (< 0 when not measured) and overcharge (-1 when there is no model).
 */
struct zc_result {
	double ratio;
	int overcharge;
};

static struct zc_result results[sizeof(cases) / sizeof(cases[0])];
static struct hb_kmodel km;
static bool have_km;

/* the kernel functions counted per case, when kprobe events can */
static const char *const zc_syms[] = { "io_send_zc", "sk_stream_wait_memory" };

#define NR_SYMS (sizeof(zc_syms) / sizeof(zc_syms[0]))
static bool counting;
static int counted[NR_SYMS];

/* /proc/net/netstat's TcpExt counters that a bloated truesize can move */
static const char *const tcpext_keys[] = {
	"PruneCalled", "TCPRcvCollapsed", "TCPRcvQDrop", "TCPBacklogDrop",
};

#define NR_TCPEXT (sizeof(tcpext_keys) / sizeof(tcpext_keys[0]))

/*
 * The reader reads nothing until the sender has met the send buffer's
 * limit: @go, under @lock, set by open_reader()
 */
struct reader {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	bool go;
	int fd;
	uint8_t *buf;
	uint64_t got;
	double max_gap_us;	/* the longest wait between two receives */
	double t_done;		/* when the last byte came */
	int err;
};

struct zc_stats {
	uint64_t sent, sqes, shorts, eagain, notifs, copied;
	uint64_t wmem_peak, outq_at_peak, rmem_peak, samples, inflight;
	const char *limit;	/* what showed the limit met, NULL until then */
	double sum_wmem, sum_outq, sum_rmem, sum_inq;
	uint32_t sndbuf_first, sndbuf_last;
	bool report_usage;
};

/*
 * Bring "lo" up (SIOCGIFFLAGS / SIOCSIFFLAGS): the guests' busybox init
 * may leave it down, and an address on 127.0.0.1 comes with it up
 * (inetdev_event() gives lo its address on NETDEV_UP, 6.1 and 6.12)
 */
static int loopback_up(void)
{
	struct ifreq ifr;
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0), ret = 0;

	if (fd < 0)
		return -errno;
	memset(&ifr, 0, sizeof(ifr));
	strncpy(ifr.ifr_name, "lo", IFNAMSIZ - 1);
	if (ioctl(fd, SIOCGIFFLAGS, &ifr)) {
		ret = -errno;
	} else if (!(ifr.ifr_flags & IFF_UP)) {
		ifr.ifr_flags |= IFF_UP | IFF_RUNNING;
		if (ioctl(fd, SIOCSIFFLAGS, &ifr))
			ret = -errno;
	}
	close(fd);
	return ret;
}

/* a connected TCP pair over 127.0.0.1: *tx the client, *rx the accepted */
static int tcp_pair(int *tx, int *rx)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t alen = sizeof(a);
	int l, one = 1, ret = 0;

	*tx = *rx = -1;
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	l = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (l < 0)
		return -errno;
	if (bind(l, (struct sockaddr *)&a, sizeof(a)) || listen(l, 1) ||
	    getsockname(l, (struct sockaddr *)&a, &alen)) {
		ret = -errno;
		goto out;
	}
	*tx = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (*tx < 0 || connect(*tx, (struct sockaddr *)&a, sizeof(a))) {
		ret = -errno;
		goto out;
	}
	*rx = accept(l, NULL, NULL);
	if (*rx < 0)
		ret = -errno;
	else
		setsockopt(*tx, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
out:
	close(l);
	if (ret) {
		if (*tx >= 0)
			close(*tx);
		*tx = -1;
	}
	return ret;
}

/* SO_MEMINFO (4.2+): the socket's sk_meminfo_vars */
static int meminfo(int fd, uint32_t *mem)
{
	socklen_t len = SK_MEMINFO_VARS * sizeof(uint32_t);

	return getsockopt(fd, SOL_SOCKET, SO_MEMINFO, mem, &len) ? -errno : 0;
}

/*
 * One sample: sk_wmem_queued and the bytes in flight of the sender
 * (tcp_ioctl()'s SIOCOUTQ is write_seq - snd_una), the receiver's
 * sk_rmem_alloc and its unread bytes (SIOCINQ)
 */
static void sample(int tx, int rx, struct zc_stats *st)
{
	uint32_t mt[SK_MEMINFO_VARS], mr[SK_MEMINFO_VARS];
	int outq = 0, inq = 0;

	if (meminfo(tx, mt) || meminfo(rx, mr) || ioctl(tx, SIOCOUTQ, &outq) ||
	    ioctl(rx, SIOCINQ, &inq))
		return;
	if (!st->samples++)
		st->sndbuf_first = mt[SK_MEMINFO_SNDBUF];
	st->sndbuf_last = mt[SK_MEMINFO_SNDBUF];
	if (mt[SK_MEMINFO_WMEM_QUEUED] > st->wmem_peak) {
		st->wmem_peak = mt[SK_MEMINFO_WMEM_QUEUED];
		st->outq_at_peak = (uint64_t)outq;
	}
	/*
	 * only bytes in flight make a ratio: with outq 0 what is left in
	 * sk_wmem_queued waits for its completion, not for the receiver
	 */
	if (outq > 0 && mt[SK_MEMINFO_WMEM_QUEUED]) {
		st->inflight++;
		st->sum_wmem += mt[SK_MEMINFO_WMEM_QUEUED];
		st->sum_outq += outq;
	}
	if (mr[SK_MEMINFO_RMEM_ALLOC] > st->rmem_peak)
		st->rmem_peak = mr[SK_MEMINFO_RMEM_ALLOC];
	if (mr[SK_MEMINFO_RMEM_ALLOC]) {
		st->sum_rmem += mr[SK_MEMINFO_RMEM_ALLOC];
		st->sum_inq += inq;
	}
}

/* let the reader read: the limit was met, or the send is over */
static void open_reader(struct reader *r)
{
	pthread_mutex_lock(&r->lock);
	r->go = true;
	pthread_cond_broadcast(&r->cond);
	pthread_mutex_unlock(&r->lock);
}

static void wait_open(struct reader *r)
{
	pthread_mutex_lock(&r->lock);
	while (!r->go)
		pthread_cond_wait(&r->cond, &r->lock);
	pthread_mutex_unlock(&r->lock);
}

static void *reader_main(void *arg)
{
	struct reader *r = arg;
	double last, now;
	ssize_t n;

	wait_open(r);
	last = t_now_usec();
	while (r->got < SEND_LEN) {
		n = recv(r->fd, r->buf + r->got, SEND_LEN - r->got, 0);
		if (n <= 0) {
			r->err = n ? -errno : -EPIPE;
			break;
		}
		now = t_now_usec();
		if (r->got && now - last > r->max_gap_us)
			r->max_gap_us = now - last;
		last = now;
		r->got += (uint64_t)n;
	}
	r->t_done = t_now_usec();
	return NULL;
}

/* the TcpExt counters of /proc/net/netstat (a line of names, one of values) */
static void tcpext_read(uint64_t *v)
{
	char names[4096], vals[4096], *np, *vp, *sn, *sv;
	FILE *f = fopen("/proc/net/netstat", "r");
	size_t i;

	memset(v, 0, NR_TCPEXT * sizeof(*v));
	if (!f)
		return;
	while (fgets(names, sizeof(names), f) && fgets(vals, sizeof(vals), f)) {
		if (strncmp(names, "TcpExt:", 7))
			continue;
		np = strtok_r(names, " \n", &sn);
		vp = strtok_r(vals, " \n", &sv);
		while ((np = strtok_r(NULL, " \n", &sn)) &&
		       (vp = strtok_r(NULL, " \n", &sv)))
			for (i = 0; i < NR_TCPEXT; i++)
				if (!strcmp(np, tcpext_keys[i]))
					v[i] = strtoull(vp, NULL, 10);
		break;
	}
	fclose(f);
}

static void prep_send(struct io_uring_sqe *sqe, int tx, uint8_t *addr,
		      uint64_t len, bool report_usage)
{
	/* IORING_RECVSEND_FIXED_BUF: buf_index 0, the one registered */
	io_uring_prep_send_zc_fixed(sqe, tx, addr, len, 0,
				    report_usage ?
				    IORING_SEND_ZC_REPORT_USAGE : 0, 0);
}

/*
 * Reap what has completed: a result (its res in *@res, *@have set) or a
 * notification.  A result flagged IORING_CQE_F_MORE has a notification
 * to come (io_send_zc(): always but on an early failure, 6.1 and 6.12),
 * counted in *@notifs_due.
 */
static void reap(struct io_uring *ring, struct zc_stats *st, int *res,
		 bool *have, uint64_t *notifs_due)
{
	struct io_uring_cqe *cqe;

	while (!io_uring_peek_cqe(ring, &cqe)) {
		if (cqe->flags & IORING_CQE_F_NOTIF) {
			st->notifs++;
			/* zc_copied (io_uring/notif.c, 6.2+ and backports) */
			if (st->report_usage &&
			    ((uint32_t)cqe->res & IORING_NOTIF_USAGE_ZC_COPIED))
				st->copied++;
		} else {
			*res = cqe->res;
			*have = true;
			if (cqe->flags & IORING_CQE_F_MORE)
				(*notifs_due)++;
		}
		io_uring_cqe_seen(ring, cqe);
	}
}

/*
 * Whether the SQE just submitted met the send buffer's limit, and how:
 * its result short of @len, or -EAGAIN, or no result at all after
 * io_uring_submit(), whose inline issue (IO_URING_F_NONBLOCK, so
 * MSG_DONTWAIT) completes the SQE unless tcp_sendmsg_locked() found no
 * room before its first byte: sk_stream_memory_free() or
 * sk_wmem_schedule() false, sk_stream_wait_memory() returns -EAGAIN at
 * once and io_send_zc() leaves the SQE to poll (6.1 to 7.3); a partial
 * send at the limit returns what it took, short (no MSG_WAITALL).
 * Invariant: with the reader held, the window closes once the receive
 * buffer is full, and 8 MiB outgrows that plus sk_sndbuf (tcp_wmem[2],
 * 4 MiB by default): one of the three must come before the last byte.
 */
static const char *sender_stalled(bool have, int res, uint64_t len)
{
	if (!have)
		return "pending";
	if (res == -EAGAIN)
		return "eagain";
	if (res > 0 && (uint64_t)res < len)
		return "short";
	return NULL;
}

/* note the first stall of the send, and let the reader start then */
static void note_stall(struct zc_stats *st, struct reader *r,
		       const char *how)
{
	if (!how || st->limit)
		return;
	st->limit = how;
	open_reader(r);
}

/* wait up to 1 ms for a completion */
static void wait_1ms(struct io_uring *ring)
{
	struct __kernel_timespec ts = { .tv_sec = 0, .tv_nsec = 1000000 };
	struct io_uring_cqe *cqe;

	io_uring_wait_cqe_timeout(ring, &cqe, &ts);
}

/*
 * Send [@buf, +SEND_LEN) in SQEs of @chunk bytes, sampling.  0, 77 when
 * the kernel refuses SEND_ZC of a fixed buffer, or -errno.
 */
static int send_all(struct io_uring *ring, int tx, struct reader *r,
		    uint8_t *buf, uint64_t chunk, struct zc_stats *st,
		    double *t_sent)
{
	int rx = r->fd;
	uint64_t notifs_due = 0, len;
	double t_wait;
	bool have;
	int res;

	st->report_usage = true;
	while (st->sent < SEND_LEN) {
		struct io_uring_sqe *sqe = io_uring_get_sqe(ring);

		if (!sqe)
			return -EBUSY;
		len = chunk;
		if (len > SEND_LEN - st->sent)
			len = SEND_LEN - st->sent;
		prep_send(sqe, tx, buf + st->sent, len, st->report_usage);
		if (io_uring_submit(ring) != 1)
			return -EIO;
		st->sqes++;
		sample(tx, rx, st);
		have = false;
		t_wait = t_now_usec();
		reap(ring, st, &res, &have, &notifs_due);
		if (!have)
			note_stall(st, r, sender_stalled(have, res, len));
		while (!have) {
			reap(ring, st, &res, &have, &notifs_due);
			if (have)
				break;
			wait_1ms(ring);
			sample(tx, rx, st);
			if (t_now_usec() - t_wait > 60e6)
				return -ETIMEDOUT;
		}
		/*
		 * before IORING_SEND_ZC_REPORT_USAGE (6.2, and 6.1 stable
		 * without its backport) io_send_zc_prep() refuses the flag
		 * with -EINVAL: resent without it, nothing was sent
		 */
		if (res == -EINVAL && st->report_usage && !st->sent) {
			st->report_usage = false;
			st->sqes--;
			continue;
		}
		if (res == -EINVAL || res == -EOPNOTSUPP)
			return st->sent ? res : 77;
		note_stall(st, r, sender_stalled(have, res, len));
		if (res == -EAGAIN) {
			st->eagain++;
			continue;
		}
		if (res <= 0)
			return res ? res : -EPIPE;
		if ((uint64_t)res < len)
			st->shorts++;
		st->sent += (uint64_t)res;
	}
	*t_sent = t_now_usec();
	/* all is sent: a send that never stalled waits for the reader now */
	open_reader(r);
	/* every notification: the frags' pages are the buffer's until then */
	t_wait = t_now_usec();
	while (st->notifs < notifs_due) {
		reap(ring, st, &res, &have, &notifs_due);
		if (st->notifs >= notifs_due)
			break;
		wait_1ms(ring);
		sample(tx, rx, st);
		if (t_now_usec() - t_wait > 60e6)
			return -ETIMEDOUT;
	}
	return 0;
}

static void fmt_ratio(char *s, size_t n, double num, double den)
{
	if (den > 0)
		snprintf(s, n, "%.4f", num / den);
	else
		snprintf(s, n, "n/a");
}

static void print_case(const struct zc_case *c, struct zc_result *res,
		       const struct zc_stats *st,
		       const struct reader *r, const unsigned long *hits,
		       const uint64_t *ext, double t0, double t_sent,
		       long bad, int retrans)
{
	char ratio[16], rpeak[16], rxr[16], issues[24], waits[24], cop[24];

	fmt_ratio(ratio, sizeof(ratio), st->sum_outq, st->sum_wmem);
	if (st->inflight && st->limit && bad < 0 && r->got == SEND_LEN)
		res->ratio = st->sum_outq / st->sum_wmem;
	fmt_ratio(rpeak, sizeof(rpeak), (double)st->outq_at_peak,
		  (double)st->wmem_peak);
	fmt_ratio(rxr, sizeof(rxr), st->sum_inq, st->sum_rmem);
	snprintf(issues, sizeof(issues), counting && counted[0] ? "%lu" : "n/a",
		 hits[0]);
	snprintf(waits, sizeof(waits), counting && counted[1] ? "%lu" : "n/a",
		 hits[1]);
	snprintf(cop, sizeof(cop), st->report_usage ? "%llu" : "n/a",
		 (unsigned long long)st->copied);
	printf("SENDZC case=%s backing=%s chunk=%llu bytes=%llu sqes=%llu "
	       "short=%llu eagain=%llu issues=%s memwaits=%s wmem_peak=%llu "
	       "outq_at_peak=%llu ratio=%s ratio_at_peak=%s sndbuf=%u/%u "
	       "rmem_peak=%llu rx_ratio=%s stall_ms=%.1f send_ms=%.1f "
	       "total_ms=%.1f notifs=%llu copied=%s retrans=%d prune=%llu "
	       "collapsed=%llu rcvqdrop=%llu backlogdrop=%llu samples=%llu "
	       "inflight=%llu limit=%s data=%s\n",
	       c->name, c->backing, (unsigned long long)c->chunk,
	       (unsigned long long)r->got, (unsigned long long)st->sqes,
	       (unsigned long long)st->shorts, (unsigned long long)st->eagain,
	       issues, waits, (unsigned long long)st->wmem_peak,
	       (unsigned long long)st->outq_at_peak, ratio, rpeak,
	       st->sndbuf_first, st->sndbuf_last,
	       (unsigned long long)st->rmem_peak, rxr, r->max_gap_us / 1000,
	       (t_sent - t0) / 1000, (r->t_done - t0) / 1000,
	       (unsigned long long)st->notifs, cop, retrans,
	       (unsigned long long)ext[0], (unsigned long long)ext[1],
	       (unsigned long long)ext[2], (unsigned long long)ext[3],
	       (unsigned long long)st->samples,
	       (unsigned long long)st->inflight,
	       st->limit ? st->limit : "none",
	       bad < 0 && r->got == SEND_LEN ? "ok" : "BAD");
	if (bad >= 0)
		printf("SENDZC case=%s first bad byte at %ld\n", c->name, bad);
}

/* the sender's retransmissions (TCP_INFO's tcpi_total_retrans) */
static int total_retrans(int fd)
{
	struct tcp_info ti;
	socklen_t len = sizeof(ti);

	memset(&ti, 0, sizeof(ti));
	if (getsockopt(fd, IPPROTO_TCP, TCP_INFO, &ti, &len))
		return -1;
	return (int)ti.tcpi_total_retrans;
}

/* one case on a fresh ring and connection: 0, 1 or 77 */
static int run_send(const struct zc_case *c, struct zc_result *res,
		    struct hb_buf *buf, uint64_t seed)
{
	struct iovec iov = { buf->addr, SEND_LEN };
	unsigned long hits[NR_SYMS] = { 0 };
	uint64_t ext0[NR_TCPEXT], ext1[NR_TCPEXT];
	struct zc_stats st;
	struct reader r;
	struct io_uring ring;
	pthread_t th;
	double t0, t_sent = 0;
	long bad;
	int tx, rx, ret, i, retrans;

	memset(&st, 0, sizeof(st));
	memset(&r, 0, sizeof(r));
	pthread_mutex_init(&r.lock, NULL);
	pthread_cond_init(&r.cond, NULL);
	t_pattern_fill(buf->addr, SEND_LEN, seed, 0);
	r.buf = malloc(SEND_LEN);
	if (!r.buf)
		return 1;
	memset(r.buf, 0, SEND_LEN);
	if (io_uring_queue_init(RING_ENTRIES, &ring, 0)) {
		printf("SENDZC case=%s error=io_uring_queue_init\n", c->name);
		free(r.buf);
		return 1;
	}
	if (hb_register_buffers(&ring, &iov, 1)) {
		printf("SENDZC case=%s error=register:%s\n", c->name,
		       hb_errmsg());
		ret = 1;
		goto out_ring;
	}
	ret = tcp_pair(&tx, &rx);
	if (ret) {
		printf("SENDZC case=%s skip=no TCP over loopback: %s\n",
		       c->name, strerror(-ret));
		ret = 77;
		goto out_ring;
	}
	r.fd = rx;
	if (pthread_create(&th, NULL, reader_main, &r)) {
		ret = 1;
		goto out_sock;
	}
	tcpext_read(ext0);
	if (counting)
		t_kcount_begin();
	t0 = t_now_usec();
	ret = send_all(&ring, tx, &r, buf->addr, c->chunk, &st, &t_sent);
	if (counting && t_kcount_end(hits) < 0)
		counting = false;
	retrans = total_retrans(tx);
	if (ret) /* the reader waits for bytes that will not come */
		shutdown(tx, SHUT_WR);
	open_reader(&r);	/* a send that failed before the limit */
	pthread_join(th, NULL);
	tcpext_read(ext1);
	for (i = 0; i < (int)NR_TCPEXT; i++)
		ext1[i] -= ext0[i];
	if (ret == 77) {
		printf("SENDZC case=%s skip=no SEND_ZC of a fixed buffer "
		       "(IORING_RECVSEND_FIXED_BUF, 6.0+)\n", c->name);
		goto out_sock;
	}
	if (ret) {
		printf("SENDZC case=%s error=send: %s after %llu bytes\n",
		       c->name, strerror(-ret), (unsigned long long)st.sent);
		ret = 1;
		goto out_sock;
	}
	bad = t_pattern_mismatch(r.buf, SEND_LEN, seed, 0);
	print_case(c, res, &st, &r, hits, ext1, t0, t_sent, bad, retrans);
	if (!st.limit)
		printf("SENDZC case=%s error=8 MiB went out without meeting "
		       "the send buffer's limit: tcp_wmem/tcp_rmem raised?\n",
		       c->name);
	ret = bad >= 0 || r.got != SEND_LEN || r.err ||
	      st.sent != SEND_LEN || !st.limit;
out_sock:
	close(tx);
	close(rx);
out_ring:
	io_uring_queue_exit(&ring);
	free(r.buf);
	pthread_cond_destroy(&r.cond);
	pthread_mutex_destroy(&r.lock);
	return ret;
}

/*
 * lib's model of the registered buffer: its pages as probed, coalesced by
 * the running kernel's rules, and whether a SEND_ZC from it is
 * over-charged (-1: no model or no probe, with the reason printed)
 */
static int model_overcharge(const struct zc_case *c, const struct hb_buf *b)
{
	struct hb_probe p;
	struct hb_imu imu;
	int over;

	if (!have_km)
		return -1;
	if (hb_probe(b->addr, SEND_LEN, NULL, &p)) {
		printf("SENDZC case=%s note=no probe of the buffer: %s\n",
		       c->name, hb_errmsg());
		return -1;
	}
	if (hb_imu_build(&km, p.pages, (uintptr_t)b->addr, SEND_LEN, &imu)) {
		printf("SENDZC case=%s note=no model of the buffer: %s\n",
		       c->name, hb_errmsg());
		hb_probe_free(&p);
		return -1;
	}
	over = hb_model_sendzc_overcharge(&km, &imu);
	printf("SENDZC case=%s model=%s bvecs=%u folio_shift=%u overcharge=%s\n",
	       c->name, km.name, imu.nr_bvecs, imu.folio_shift,
	       over ? "yes" : "no");
	hb_imu_free(&imu);
	hb_probe_free(&p);
	return over;
}

static int run_case(const struct zc_case *c, struct zc_result *res,
		    uint64_t seed)
{
	struct hb_buf buf;
	int ret;

	if (!strncmp(c->backing, "hugetlb", 7) &&
	    hb_hugepages_free(T_SZ_2M) < (long)(SEND_LEN / T_SZ_2M)) {
		printf("SENDZC case=%s skip=needs %llu free 2M hugepages\n",
		       c->name, SEND_LEN / T_SZ_2M);
		return 77;
	}
	if (t_alloc_errno(c->backing, SEND_LEN, 0, &buf)) {
		printf("SENDZC case=%s error=alloc:%s\n", c->name,
		       hb_errmsg());
		return 1;
	}
	/* THP only where the kernel gave 2 MiB folios to the touched buffer */
	memset(buf.addr, 0, SEND_LEN);
	if (!strcmp(c->backing, "thp") && !t_thp_backed(buf.addr, SEND_LEN)) {
		printf("SENDZC case=%s skip=no THP in the buffer\n", c->name);
		hb_free(&buf);
		return 77;
	}
	res->overcharge = model_overcharge(c, &buf);
	ret = run_send(c, res, &buf, seed);
	hb_free(&buf);
	return ret;
}

/* the 4 KiB case of @c's chunk size, the reference of its ratio */
static int reference_of(const struct zc_case *c, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (!strcmp(cases[i].backing, "4k") &&
		    cases[i].chunk == c->chunk)
			return (int)i;
	return -1;
}

/* the words of the SENDZC lines for a judgement and for a yes/no */
static const char *result_word(int ok)
{
	if (ok)
		return "ok";
	return "FAIL";
}

static const char *yes_no(int yes)
{
	if (yes)
		return "yes";
	return "no";
}

/*
 * Each case of large folios against the 4 KiB case of its chunk size:
 * over-charged where lib's model says so and only there
 * (hb_sendzc_ratio_matches()).  One "sendzc:charge-NAME" result each.
 */
static int judge_cases(unsigned int n)
{
	const struct zc_result *r, *ref;
	unsigned int i;
	int j, fail = 0, ok;

	for (i = 0; i < n; i++) {
		if (!strcmp(cases[i].backing, "4k"))
			continue;
		r = &results[i];
		j = reference_of(&cases[i], n);
		printf("@@KTEST RUN sendzc:charge-%s\n", cases[i].name);
		if (j < 0 || r->ratio < 0 || results[j].ratio < 0 ||
		    r->overcharge < 0) {
			const char *why = "no model of the buffer";

			if (r->overcharge >= 0)
				why = "the case or its 4 KiB reference was not measured";
			printf("SENDZC charge case=%s skip=%s\n", cases[i].name,
			       why);
			printf("@@KTEST RESULT sendzc:charge-%s 77 0\n",
			       cases[i].name);
			continue;
		}
		ref = &results[j];
		ok = hb_sendzc_ratio_matches(r->overcharge, r->ratio,
					     ref->ratio);
		printf("SENDZC charge case=%s model=%s overcharge=%s ratio=%.4f ratio_4k=%.4f result=%s\n",
		       cases[i].name, km.name, yes_no(r->overcharge),
		       r->ratio, ref->ratio, result_word(ok));
		printf("@@KTEST RESULT sendzc:charge-%s %d 0\n", cases[i].name,
		       !ok);
		fail |= !ok;
	}
	return fail;
}

/* whether this kernel has IORING_OP_SEND_ZC at all (6.0+) */
static bool send_zc_supported(void)
{
	struct io_uring_probe *p = io_uring_get_probe();
	bool ok = p && io_uring_opcode_supported(p, IORING_OP_SEND_ZC);

	if (p)
		io_uring_free_probe(p);
	return ok;
}

int main(void)
{
	const struct rlimit unlimited = { RLIM_INFINITY, RLIM_INFINITY };
	int ret, fail = 0, skips = 0;
	unsigned int i, n = sizeof(cases) / sizeof(cases[0]);
	bool have_zc;

	setvbuf(stdout, NULL, _IOLBF, 0);
	/* root may lift its own RLIMIT_MEMLOCK for the registrations */
	setrlimit(RLIMIT_MEMLOCK, &unlimited);
	ret = loopback_up();
	if (ret)
		printf("SENDZC note=lo not brought up: %s\n", strerror(-ret));
	have_zc = send_zc_supported();
	have_km = !hb_kmodel_running(&km);
	if (!have_km)
		printf("SENDZC note=no model of the running kernel: %s\n",
		       hb_errmsg());
	for (i = 0; i < n; i++)
		results[i] = (struct zc_result){ -1, -1 };
	/* the counters are a figure, not a condition of the cases */
	counting = have_zc &&
		   t_kcount_open("/sys/kernel/tracing", zc_syms, NR_SYMS,
				 counted, "SENDZC counters") > 0 &&
		   !t_kcount_enable(true);
	for (i = 0; i < n; i++) {
		printf("@@KTEST RUN sendzc:%s\n", cases[i].name);
		if (!have_zc) {
			printf("SENDZC case=%s skip=no IORING_OP_SEND_ZC "
			       "(6.0+)\n", cases[i].name);
			ret = 77;
		} else {
			ret = run_case(&cases[i], &results[i], 0x5e00 + i);
		}
		printf("@@KTEST RESULT sendzc:%s %d 0\n", cases[i].name, ret);
		fail |= ret == 1;
		skips += ret == 77;
	}
	t_kcount_close();
	fail |= judge_cases(n);
	if (fail)
		return 1;
	return skips == (int)n ? 77 : 0;
}
