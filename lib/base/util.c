// SPDX-License-Identifier: GPL-2.0-only
/*
 * Error messages, size parsing and small procfs/sysfs readers.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/base.h"

static __thread char hb_errbuf[512];

const char *hb_errmsg(void)
{
	return hb_errbuf[0] ? hb_errbuf : "no error";
}

int hb_seterr(int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(hb_errbuf, sizeof(hb_errbuf), fmt, ap);
	va_end(ap);
	return err > 0 ? -err : err;
}

static int suffix_shift(const char *s, unsigned int *shift)
{
	switch (tolower((unsigned char)*s)) {
	case '\0':
		*shift = 0;
		return 0;
	case 'b':
		*shift = 0;
		return s[1] ? -1 : 0;
	case 'k':
		*shift = 10;
		break;
	case 'm':
		*shift = 20;
		break;
	case 'g':
		*shift = 30;
		break;
	case 't':
		*shift = 40;
		break;
	default:
		return -1;
	}
	s++;
	if (!*s || !strcmp(s, "B") || !strcmp(s, "b") || !strcmp(s, "iB") ||
	    !strcmp(s, "ib"))
		return 0;
	return -1;
}

int hb_parse_size(const char *s, uint64_t *out)
{
	const char *digits = s;
	unsigned long long v;
	unsigned int shift;
	int base = 10;
	char *end;

	/* decimal, or hex after 0x; a leading 0 is not octal here */
	if (s && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		digits = s + 2;
		base = 16;
	}
	/*
	 * strtoull() would take blanks, signs and a second "0x": refuse them
	 * first
	 */
	if (!s || !isxdigit((unsigned char)*digits) ||
	    (base == 10 && !isdigit((unsigned char)*digits)) ||
	    (base == 16 && digits[0] == '0' &&
	     (digits[1] == 'x' || digits[1] == 'X')))
		return hb_seterr(EINVAL, "invalid size '%s': expected a number "
				 "with an optional K/M/G suffix", s ? s : "");
	errno = 0;
	v = strtoull(digits, &end, base);
	if (errno)
		return hb_seterr(ERANGE, "size '%s' is too large", s);
	if (suffix_shift(end, &shift))
		return hb_seterr(EINVAL, "invalid size '%s': unknown suffix "
				 "'%s' (use K, M or G)", s, end);
	if (shift && v > (UINT64_MAX >> shift))
		return hb_seterr(ERANGE, "size '%s' is too large", s);
	*out = (uint64_t)v << shift;
	return 0;
}

char *hb_fmt_size(uint64_t bytes, char *buf, size_t len)
{
	static const char units[] = "KMGT";
	int i;

	for (i = 3; i >= 0; i--) {
		uint64_t unit = 1ULL << (10 * (i + 1));

		if (bytes && bytes % unit == 0) {
			snprintf(buf, len, "%llu%c",
				 (unsigned long long)(bytes / unit), units[i]);
			return buf;
		}
	}
	snprintf(buf, len, "%llu", (unsigned long long)bytes);
	return buf;
}

int hbi_read_ulong(const char *path, unsigned long *val)
{
	char buf[64], *end;
	int ret;

	ret = hbi_read_file(path, buf, sizeof(buf));
	if (ret)
		return ret;
	errno = 0;
	*val = strtoul(buf, &end, 10);
	if (errno || end == buf)
		return -EINVAL;
	return 0;
}

int hbi_read_file(const char *path, char *buf, size_t len)
{
	ssize_t n = 0;
	size_t got = 0;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	/*
	 * A sysfs attribute, or a /proc file printed in one piece
	 * (single_open(): meminfo, status), is copied out in full up to the
	 * size asked: a read shorter than asked ended it, and needs no
	 * second read() to see the end.
	 */
	while (got < len - 1) {
		size_t want = len - 1 - got;

		n = read(fd, buf + got, want);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += n;
		if ((size_t)n < want)
			break;
	}
	if (n < 0) {
		n = -errno;
		close(fd);
		return n;
	}
	close(fd);
	buf[got] = '\0';
	return 0;
}

const char *hbi_proc_value(const char *buf, const char *key)
{
	size_t klen = strlen(key);
	const char *l = buf;

	while (l) {
		if (!strncmp(l, key, klen) && l[klen] == ':')
			return l + klen + 1;
		l = strchr(l, '\n');
		if (l)
			l++;
	}
	return NULL;
}

long hb_proc_kb(const char *file, const char *key)
{
	char buf[HB_PROC_FILE_MAX];
	const char *v;
	int ret;

	ret = hbi_read_file(file, buf, sizeof(buf));
	if (ret)
		return ret;
	v = hbi_proc_value(buf, key);
	return v ? strtol(v, NULL, 10) : -ENOENT;
}

void hbi_touch_pages(void *map, size_t len)
{
	volatile char *p = map;
	size_t off;

	for (off = 0; off < len; off += HB_PAGE_SIZE)
		p[off] = 1;
}

unsigned int hbi_ilog2(uint64_t v)
{
	return v ? 63 - __builtin_clzll(v) : 0;
}
