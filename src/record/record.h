/*
 * The records, one type for writing and reading: a probe's outcome as
 * collect and bench write it, appended whole to the output (after an
 * earlier one, for --resume). A record reaches the output as a complete
 * line, never half of one, and never makes the loop wait for a slow
 * reader. Reading record files for the heatmap, the metrics and --resume
 * is records_read.h's.
 */
#ifndef NETPROF_RECORD_H
#define NETPROF_RECORD_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "record_schema.h"

/* A metric of a record as a number (a nested one's name joined by _). */
struct record_metric {
	char *name;
	double value;
	int index;		/* position in the kind's metric list (matrix) */
};

/*
 * One record: a probe of a kind between two hosts and what came of it,
 * the one form from the probe to the file and back. A kind's parser fills
 * its outcome (probe_kind.h), collect and bench the rest, and
 * record_writer_write() writes it as one line in its form, collect's or
 * bench's (a record with a run id), as upstream's tools write them, and
 * sets in it what a reader of that line reads (record_as_read()). Its
 * metrics are in it as the line prints them and as the numbers a reader
 * reads, both from the parser on (record_set_metrics()): the cJSON a
 * parser builds them with, and a line's when read, end at the edge; the
 * readers (records_read.h: the heatmap, the metrics, --resume) make one
 * of each line; collect --every folds the one it wrote as it is. A
 * writer's strings are borrowed (they are the run's); a reader's are its
 * own (record_free()) or its batch's (the fast path).
 */
struct record {
	/* every record */
	const char *kind;	/* a row of the kinds' table, or another's */
	const char *source;
	const char *target;
	int ok;
	const char *error;	/* why not, when !ok */
	const char *error_class;	/* its class (record_schema.h), when !ok */
	double started_at;	/* Unix seconds; NAN if the reader found none */
	double ended_at;
	int round;		/* of the schedule, from 1; 0: none */
	const char *command;	/* the line that reproduces the probe */
	/* a writer's: the metrics as the line prints them (arrays of
	   samples, nested objects, each number's digits), set with their
	   numbers (metrics[] below, which every reader reads) by
	   record_set_metrics(); NULL: {} */
	char *metrics_text;
	/* collect's */
	const char *target_address;
	const char *server_command;	/* a server kind's server's line */
	const char *mode;	/* how it was measured: "fanout", "channel",
				   "exclusive", "duplex", "serial"; NULL */
	long sweep;		/* collect --every: from 1; 0: none */
	int sample;		/* collect --sample K: K; 0: every pair */
	/* the kind's own settings (its row's config) as the line holds
	   them, borrowed; NULL: none, or all their defaults */
	const char *config_text;
	/* bench's (run_id also read): a record with a run id is written in
	   bench's form, one without in collect's */
	const char *run_id;
	const char *source_peer_id, *target_peer_id;	/* NULL: null */
	int count;		/* config.count */
	long bytes;		/* config.bytes; < 0: null */
	/* the path the probe ran over (NULL: null): its class
	   (RECORD_PATH_*), how it was known, the evidence, the relay */
	const char *path, *path_known, *path_evidence;
	const char *relay, *relay_peer_id;
	/* the metrics as numbers, and what a reader derives: set by the
	   reader, or by the writer once the line is written */
	struct record_metric *metrics;
	size_t nmetrics;
	long nsamples;		/* samples_ms/samples_ns/iterations length,
				   or -1 */
	double time;		/* ended_at, else timestamp, else started_at;
				   NAN if none */
	long seq;		/* order of reading, across every input file */
	const char *file;	/* not owned */
	int line;
};

/*
 * The record as a JSON object in its kind's form, keys sorted and floats
 * marked (json_write.h) as upstream writes them: collect's (command, error, error_class, kind, metrics, ok,
 * source, target, target_address, timestamp: upstream's
 * "2026-11-30T19:17:32+00:00", when the probe ended; plus ended_at,
 * error_class, mode, round, server_command, sweep and started_at, ISO-8601
 * UTC with milliseconds; config, the kind's own settings, when the record
 * has them), or, for a record with a run id, bench's (run_id, the peer
 * ids, config {count, bytes} besides, and the path: path, path_known,
 * path_evidence, relay, relay_peer_id, each null when unknown). A failed
 * record's error and class are set in r as the line says them (a text when
 * it has none, a class by its text); an ok one's class is NULL. Its
 * metrics are r->metrics_text as it is, a raw item (a reference: deleting
 * the object leaves the text). NULL: out of memory.
 */
cJSON *record_to_json(struct record *r);

/* r's metrics, their text and their numbers, freed (once the run's
   readers have had r) and emptied. */
void record_finish_free(struct record *r);

/* Free what r's outcome holds (its metrics, its error) and empty it
   (not ok, no error, class or metrics), for the probe to run again or
   the task to end; NULL-safe. */
void record_outcome_clear(struct record *r);

/*
 * A kind's parser's metrics into r (taken: deleted in every case): printed
 * once as the line holds them (keys sorted, floats marked: json_write.h)
 * into metrics_text, and read into metrics[] and nsamples by the reader's
 * own rules, each number as the line holds it. r had none before. 0, or
 * NP_ERR_NOMEM (metrics NULL, or out of memory: r then has none).
 */
int record_set_metrics(struct record *r, cJSON *metrics);

/* from's metrics (text and numbers) moved to to, which had none. */
void record_take_metrics(struct record *to, struct record *from);

/* r's metric name (metrics[]) into *v: 1, or 0 if r has none of it. */
int record_metric_value(const struct record *r, const char *name, double *v);

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
struct uv_loop_s;
int record_writer_attach(struct record_writer *w, struct uv_loop_s *loop);

/* Before the loop ends: stop watching (later lines queue). */
void record_writer_detach(struct record_writer *w);

/*
 * Write r (record_to_json()) as one line, whole: to a file at once, to a
 * pipe when it takes it; then set in r what a reader of the line reads
 * (record_as_read()). NP_ERR_IO when the output failed
 * (record_writer_error() says why), NP_ERR_NOMEM.
 */
int record_writer_write(struct record_writer *w, struct record *r);

/* The errno of the output's first failed write, or 0. */
int record_writer_error(const struct record_writer *w);

/* Bytes of records a pipe's reader has not taken yet (0 for a file). */
size_t record_writer_queued(const struct record_writer *w);

/*
 * Write what is still queued (waiting for the reader at most wait_ms
 * between writes, -1: as long as it takes), flush to disk and close;
 * returns NP_ERR_IO if anything was lost.
 */
int record_writer_close(struct record_writer *w, int wait_ms);

#endif
