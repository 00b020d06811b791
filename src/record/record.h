/*
 * The JSONL records of collect: building one from a probe's outcome,
 * appending it whole to the output, and reading an earlier output back
 * for --resume. A record reaches the output as a complete line, never
 * half of one, and never makes the loop wait for a slow reader.
 */
#ifndef NETPROF_RECORD_H
#define NETPROF_RECORD_H

#include <stddef.h>

#include <cjson/cJSON.h>
#include <uv.h>

#include "record_schema.h"

/* One record on its way out (record_to_json); the reader's is struct record. */
struct record_out {
	const char *kind;	/* RECORD_KIND_* (record_schema.h) */
	const char *source;
	const char *target;
	const char *target_address;
	int ok;
	double started_at;	/* wall clock, Unix seconds */
	double ended_at;
	int round;		/* 1-based round of the schedule */
	long sweep;		/* collect --every: the sweep, from 1; 0: none */
	const char *mode;	/* how it was measured: ping "fanout",
				   "channel" or "serial"; iperf3 "exclusive",
				   "duplex" or "serial"; NULL: not written */
	const char *command;	/* the line that reproduces the probe */
	const char *server_command; /* iperf3: the server's line; else NULL */
	const char *error;	/* NULL when ok */
	enum error_class error_class;
	cJSON *metrics;		/* taken over by record_to_json; may be NULL */
};

/*
 * The record as a JSON object with the upstream field names and types
 * (command, error, kind, metrics, ok, source, target, target_address,
 * timestamp: upstream's "2026-11-30T19:17:32+00:00", when the probe ended)
 * plus ended_at, error_class, mode, round, server_command (iperf3),
 * sweep (collect --every)
 * and started_at (ISO-8601 UTC with milliseconds), keys sorted as upstream
 * writes them. Takes rec->metrics.
 */
cJSON *record_to_json(struct record_out *rec);

struct record_writer;

/*
 * Open path for records ("-" is standard output). append keeps what is
 * there (for --resume), dropping a torn last line if there is one; else the
 * file is truncated. *cause names the file and the reason on error.
 */
int record_writer_open(const char *path, int append,
    struct record_writer **out, char **cause);

/*
 * From now on never block loop: lines a pipe or terminal does not take
 * at once wait in a queue and are written when it is writable.
 */
int record_writer_attach(struct record_writer *w, uv_loop_t *loop);

/* Before the loop ends: stop watching (later lines queue). */
void record_writer_detach(struct record_writer *w);

/*
 * Write obj as one line, whole: to a file at once, to a pipe when it takes
 * it. NP_ERR_IO when the output failed (record_writer_error() says why).
 */
int record_writer_put(struct record_writer *w, const cJSON *obj);

/* The errno of the output's first failed write, or 0. */
int record_writer_error(const struct record_writer *w);

/*
 * Write what is still queued (waiting for the reader at most wait_ms
 * between writes, -1: as long as it takes), flush to disk and close;
 * returns NP_ERR_IO if anything was lost.
 */
int record_writer_close(struct record_writer *w, int wait_ms);

/* The (source, target, kind) triples an earlier output recorded ok. */
struct record_done_set;

/*
 * Read path (missing file: an empty set). A torn last line (no newline)
 * is skipped; any other line that is not a JSON object is NP_ERR_PARSE
 * with *cause naming FILE:LINE (the file is not collect's: appending to
 * it, or cutting it, would damage someone's file).
 */
int record_done_load(const char *path, struct record_done_set **out,
    char **cause);

int record_done_has(const struct record_done_set *set, const char *source,
    const char *target, const char *kind);

size_t record_done_count(const struct record_done_set *set);

void record_done_free(struct record_done_set *set);

#endif
