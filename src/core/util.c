/*
 * The small helpers of util.h: one way to format into a new string
 * (vasprintf), one growable buffer, large blocks of memory.
 */
#include <errno.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "error.h"
#include "util.h"

int
buf_append(struct buf *b, const void *data, size_t len)
{
	size_t size;
	char *p;

	if (b->len + len + 1 > b->size) {
		size = b->size > 0 ? b->size : 256;
		while (size < b->len + len + 1)
			size *= 2;
		if ((p = realloc(b->data, size)) == NULL)
			return NP_ERR_NOMEM;
		b->data = p;
		b->size = size;
	}
	if (len > 0)
		memcpy(b->data + b->len, data, len);
	b->len += len;
	b->data[b->len] = '\0';
	return 0;
}

int
buf_printf(struct buf *b, const char *fmt, ...)
{
	va_list ap;
	char *s;
	int r;

	va_start(ap, fmt);
	s = str_vprintf(fmt, ap);
	va_end(ap);
	if (s == NULL)
		return NP_ERR_NOMEM;
	r = buf_append(b, s, strlen(s));
	free(s);
	return r;
}

void
buf_free(struct buf *b)
{
	free(b->data);
	b->data = NULL;
	b->len = b->size = 0;
}

char *
str_vprintf(const char *fmt, va_list ap)
{
	char *s;

	if (vasprintf(&s, fmt, ap) < 0)
		return NULL;
	return s;
}

char *
str_printf(const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	s = str_vprintf(fmt, ap);
	va_end(ap);
	return s;
}

char *
str_first_line(const char *text, size_t max)
{
	size_t n;

	while (*text == '\n')
		text++;
	n = strcspn(text, "\n");
	return strndup(text, n > max ? max : n);
}

size_t
str_hash(const char *s)
{
	size_t h = 1469598103934665603ULL;

	for (; *s != '\0'; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	return h;
}

int
str_ends_with(const char *s, const char *suffix)
{
	size_t ls = strlen(s), lx = strlen(suffix);

	return ls >= lx && strcmp(s + ls - lx, suffix) == 0;
}

void
mem_advise_huge(void *p, size_t len)
{
	const uintptr_t huge = (uintptr_t)2 << 20;
	uintptr_t start = ((uintptr_t)p + huge - 1) & ~(huge - 1);
	uintptr_t end = ((uintptr_t)p + len) & ~(huge - 1);

	if (p == NULL || len < 2 * huge || end <= start)
		return;
	(void)madvise((void *)start, end - start, MADV_HUGEPAGE);
}

static size_t
page_round(size_t n)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);

	return (n + page - 1) / page * page;
}

/* The advice for the whole mapping: advice for a part would split it in
 * two, which mremap() cannot then grow. */
static void
map_advise_huge(void *p, size_t len)
{
	if (len >= (size_t)4 << 20)
		(void)madvise(p, page_round(len), MADV_HUGEPAGE);
}

void *
mem_map(size_t len)
{
	void *p = mmap(NULL, page_round(len ? len : 1), PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return NULL;
	map_advise_huge(p, len);
	return p;
}

void *
mem_map_grow(void *p, size_t old, size_t len)
{
	void *q;

	if (p == NULL)
		return mem_map(len);
	q = mremap(p, page_round(old ? old : 1), page_round(len ? len : 1),
	    MREMAP_MAYMOVE);
	if (q == MAP_FAILED)
		return NULL;
	map_advise_huge(q, len);
	return q;
}

void
mem_map_free(void *p, size_t len)
{
	if (p != NULL)
		(void)munmap(p, page_round(len ? len : 1));
}
