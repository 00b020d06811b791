/*
 * The records a reading keeps or hands on (struct record_input): a record
 * read from path:lineno taken into the input or given to its sink, a line
 * that is no record warned of or refused, a reading that stopped said once.
 * Both ways of reading a file (records_file.c's lines, records_pipe.c's
 * threads) take their records here; below them, records_read.c reads one
 * record from its line.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "log.h"
#include "records_line.h"
#include "records_read.h"
#include "records_run.h"

void
record_input_free(struct record_input *in)
{
	size_t i;

	if (in == NULL)
		return;
	for (i = 0; i < in->nrecords; i++)
		record_free(in->records[i]);
	free(in->records);
	for (i = 0; i < in->nruns; i++)
		records_run_free(in->runs[i]);
	free(in->runs);
	in->records = NULL;
	in->runs = NULL;
	in->nrecords = in->records_alloc = in->nruns = 0;
	in->malformed = in->left_out = 0;
	in->next_seq = 0;
}

static int
input_add_record(struct record_input *in, struct record *r)
{
	if (in->nrecords == in->records_alloc) {
		size_t n = in->records_alloc ? in->records_alloc * 2 : 256;
		struct record **p = realloc(in->records, n * sizeof *p);

		if (p == NULL)
			return NP_ERR_NOMEM;
		in->records = p;
		in->records_alloc = n;
	}
	r->seq = in->next_seq++;
	in->records[in->nrecords++] = r;
	return 0;
}

int
records_malformed(struct record_input *in, const char *path, int lineno,
    char *cause, int strict, int torn)
{
	if (in->resume) {
		free(cause);
		if (torn)
			return 0;
		in->bad_line = lineno;
		return NP_ERR_PARSE;
	}
	if (strict)
		log_error("%s:%d: %s (--strict: stopping)", path, lineno,
		    cause);
	else if (++in->file_malformed <= RECORDS_WARN_MAX)
		log_warn("%s:%d: %s; line skipped", path, lineno, cause);
	else if (in->file_malformed == RECORDS_WARN_MAX + 1)
		in->unsaid_first = lineno;
	free(cause);
	in->malformed++;
	return strict ? NP_ERR_PARSE : 0;
}

void
records_malformed_unsaid(struct record_input *in, const char *path)
{
	if (in->file_malformed > RECORDS_WARN_MAX)
		log_warn("%s: %zu more malformed line%s skipped (the first "
		    "at line %d)", path, in->file_malformed - RECORDS_WARN_MAX,
		    in->file_malformed - RECORDS_WARN_MAX == 1 ? "" : "s",
		    in->unsaid_first);
	in->file_malformed = 0;
}

int
records_take(struct record_input *in, struct record *r, int owned,
    const char *path, int lineno)
{
	int rc;

	r->file = path;
	r->line = lineno;
	if (in->sink != NULL) {
		r->seq = in->next_seq++;
		rc = in->sink(in->sink_arg, r);
		if (owned)
			record_free(r);
		return rc;
	}
	if (in->nrecords >= RECORDS_MAX) {
		in->left_out++;
		record_free(r);
		return 0;
	}
	if ((rc = input_add_record(in, r)) != 0)
		record_free(r);
	return rc;
}

void
records_read_failed(struct record_input *in, int rc, int err,
    const char *path, int lineno)
{
	if (in->resume) {
		in->bad_line = lineno + 1;
		in->bad_errno = err;
	} else if (rc == NP_ERR_PARSE)
		log_error("%s:%d: a line longer than %d MiB: not a file of "
		    "records; give a collect or bench .jsonl or a run.json",
		    path, lineno + 1, RECORDS_LINE_MAX >> 20);
	else if (rc == NP_ERR_IO)
		log_error("%s: read error: %s", path, strerror(err));
}
