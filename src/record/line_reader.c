/*
 * Lines of a stream through a buffer that holds at most one line plus one
 * read (line_reader.h).
 */
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "records_read.h"
#include "line_reader.h"

int
line_reader_more(struct line_reader *r)
{
	size_t n, unread = r->end - r->start;
	char *p;

	if (r->start > 0) {
		memmove(r->buf, r->buf + r->start, unread);
		r->start = 0;
		r->end = unread;
	}
	if (r->alloc - r->end < 65536 + 1) {
		n = r->alloc ? r->alloc * 2 : 1 << 20;
		if ((p = realloc(r->buf, n)) == NULL)
			return NP_ERR_NOMEM;
		r->buf = p;
		r->alloc = n;
	}
	n = fread(r->buf + r->end, 1, r->alloc - r->end - 1, r->f);
	r->end += n;
	if (n == 0) {
		if (ferror(r->f))
			return NP_ERR_IO;
		r->eof = 1;
	}
	return 0;
}

int
line_reader_next(struct line_reader *r, const char **line, size_t *len)
{
	size_t scanned = 0;
	char *nl;
	int rc;

	for (;;) {
		nl = memchr(r->buf + r->start + scanned, '\n',
		    r->end - r->start - scanned);
		if (nl != NULL || r->eof) {
			if (nl == NULL && r->start == r->end)
				return 1;
			*line = r->buf + r->start;
			*len = nl != NULL ? (size_t)(nl - *line) :
			    r->end - r->start;
			r->start = nl != NULL ? (size_t)(nl + 1 - r->buf) :
			    r->end;
			return *len > RECORDS_LINE_MAX ? NP_ERR_PARSE : 0;
		}
		scanned = r->end - r->start;
		if (scanned > RECORDS_LINE_MAX)
			return NP_ERR_PARSE;
		if ((rc = line_reader_more(r)) != 0)
			return rc;
	}
}

void
line_reader_free(struct line_reader *r)
{
	free(r->buf);
	r->buf = NULL;
}
