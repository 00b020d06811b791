/*
 * The record reader's fast path: a JSONL line read in one pass, without a
 * cJSON tree, into a record whose strings live in a buffer reused from
 * line to line. It reads only what records look like when netprof, or the
 * tool netprof replaces, wrote them: strict JSON, strings without \u
 * escapes, no key the record is read by given twice. Any other line it
 * declines, and record_parse() (cJSON, the reference) reads it and says
 * what is wrong with it. For every line it takes, the record equals
 * record_parse()'s (tests/fuzz/fuzz_record_scan.c checks this).
 */
#ifndef NETPROF_RECORD_SCAN_H
#define NETPROF_RECORD_SCAN_H

#include <stddef.h>

#include "records_read.h"

struct scan_op;

/* A batch's arenas: 2 MiB of text (a longer line gets its own), 16 Ki
 * metrics; as one fills, the next is started. */
#define RECORD_SCAN_TEXT (2 << 20)
#define RECORD_SCAN_METRICS (16 << 10)

/*
 * The fast path's batch: the strings and metrics of the records read into
 * it, in arenas that stay where they are until the batch is cleared, so
 * that the records can wait for their turn. Zeroed before its first use.
 */
struct record_scan {
	char *text;
	size_t text_used, text_alloc;
	struct record_metric *metrics;
	size_t metrics_used, metrics_alloc;
	void **retired;		/* filled arenas, freed when cleared */
	size_t nretired, retired_alloc;
	struct scan_op *ops;	/* a line's metrics members, in order */
	size_t ops_alloc;
};

/* Room for a line of len bytes (a new arena if need be): 1, or
 * NP_ERR_NOMEM. */
int record_scan_room(struct record_scan *s, size_t len);

/*
 * Read line (len bytes, no newline; record_scan_room() made room) into *r,
 * whose strings and metrics are the batch's. 1: taken; its file, line and
 * seq are left to the caller. 0: declined, read it with record_parse().
 * NP_ERR_NOMEM.
 */
int record_scan(struct record_scan *s, const char *line, size_t len,
    struct record *r);

/* The batch empty again: its records' strings are gone. */
void record_scan_clear(struct record_scan *s);
void record_scan_free(struct record_scan *s);

#endif
