/*
 * A stream's lines, read through a buffer of at most one line
 * (RECORDS_LINE_MAX) plus one read: a file of any size streams, and a file
 * that is not text (/dev/zero) stops at its first over-long line instead
 * of filling memory. The records' reader, on its thread or another.
 */
#ifndef NETPROF_LINE_READER_H
#define NETPROF_LINE_READER_H

#include <stddef.h>
#include <stdio.h>

struct line_reader {
	FILE *f;
	char *buf;
	size_t start, end, alloc;	/* unread bytes: buf[start, end) */
	int eof;
};

/* Read more, keeping the unread bytes; room for a NUL after them.
 * NP_ERR_IO (errno set) or NP_ERR_NOMEM. */
int line_reader_more(struct line_reader *r);

/*
 * The next line, without its newline, valid until the next call: 0, or 1
 * at the end of the input, NP_ERR_PARSE for a line longer than
 * RECORDS_LINE_MAX, NP_ERR_IO or NP_ERR_NOMEM.
 */
int line_reader_next(struct line_reader *r, const char **line, size_t *len);

void line_reader_free(struct line_reader *r);

#endif
