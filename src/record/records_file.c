/*
 * A file of records read: a bench run.json (read whole, records_run.c) or
 * JSONL lines, kept line after line here or, for a sink, read on threads
 * of their own (records_pipe.c); a path of "-" is standard input. What a
 * record becomes is records_input.c's; a line's record, records_read.c's.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "error.h"
#include "line_reader.h"
#include "log.h"
#include "records_line.h"
#include "records_pipe.h"
#include "records_read.h"
#include "records_run.h"

/* Read ahead up to RUN_JSON_MAX + 1 bytes: is it a whole run.json? */
static int
reader_run_json(struct line_reader *r, struct record_input *in,
    const char *path, int *taken)
{
	int rc;

	*taken = 0;
	while (!r->eof && r->end - r->start <= RUN_JSON_MAX)
		if ((rc = line_reader_more(r)) != 0)
			return rc;
	if (r->end - r->start > RUN_JSON_MAX)
		return 0;
	r->buf[r->end] = '\0';
	return records_run_json(in, path, r->buf + r->start, r->end - r->start,
	    taken);
}

/* Kept records (no sink): read here, line after line. */
static int
read_lines(struct record_input *in, struct line_reader *rd, const char *path,
    int strict)
{
	struct record *r;
	const char *line;
	char *cause;
	size_t len;
	int rc, lineno = 0;

	while ((rc = line_reader_next(rd, &line, &len)) == 0) {
		rc = records_line_parse(line, len, &r, &cause);
		++lineno;
		if (rc == NP_ERR_PARSE)
			rc = records_malformed(in, path, lineno, cause, strict,
			    rd->eof && line + len == rd->buf + rd->end &&
			    line[0] == '{');
		else if (rc == 0 && r != NULL)
			rc = records_take(in, r, 1, path, lineno);
		if (rc != 0)
			return rc;
	}
	if (rc == 1)
		return 0;
	records_read_failed(in, rc, errno, path, lineno);
	return rc;
}

int
records_read_stream(struct record_input *in, FILE *f, const char *path,
    int strict)
{
	struct line_reader rd = { .f = f };
	int rc, taken;

	/* Unbuffered: its bytes are all in rd's buffer or still in the file,
	 * which the reader thread then reads with read(2) (records_pipe.c). */
	setvbuf(f, NULL, _IONBF, 0);
	in->file_malformed = 0;
	taken = 0;
	if (!in->resume && (rc = reader_run_json(&rd, in, path, &taken)) !=
	    0) {
		if (rc == NP_ERR_IO)	/* the rest are reported */
			records_read_failed(in, rc, errno, path, 0);
		goto out;
	}
	if (taken)
		goto out;
	/* A sink's records are read on a thread of their own. */
	rc = in->sink != NULL ? records_pipe(in, &rd, path, strict) :
	    read_lines(in, &rd, path, strict);
	records_malformed_unsaid(in, path);
out:
	line_reader_free(&rd);
	return rc;
}

int
records_read_file(struct record_input *in, const char *path, int strict)
{
	FILE *f;
	int rc;

	if (strcmp(path, "-") == 0)	/* collect --output - | heatmap --input - */
		return records_read_stream(in, stdin, "standard input", strict);
	if ((f = fopen(path, "rb")) == NULL) {
		log_error("%s: %s; check the --input path", path,
		    strerror(errno));
		return NP_ERR_IO;
	}
	rc = records_read_stream(in, f, path, strict);
	fclose(f);
	return rc;
}
