/*
 * The files a bench run writes: measurements.jsonl records, one per
 * (source, target, kind), in the upstream profiler's shape (its field
 * names, types and sorted key order) plus netprof's started_at, ended_at,
 * round and error_class; and run.json, upstream's summary plus per-host
 * phase status and errors.
 */
#ifndef NETPROF_BENCH_RECORD_H
#define NETPROF_BENCH_RECORD_H

#include <cjson/cJSON.h>

#include "bench.h"

struct bench_record {
	const char *run_id, *kind, *source, *target;
	const char *source_peer_id, *target_peer_id;	/* NULL: null */
	int ok;
	int count;
	long bytes;		/* < 0: null (not a throughput probe) */
	cJSON *metrics;		/* taken over; NULL: {} */
	const char *error;	/* NULL when ok */
	enum error_class error_class;
	const char *command;
	double started_at, ended_at;	/* wall clock */
	int round;		/* 1-based */
};

/* The record as JSON; takes rec->metrics. NULL: out of memory. */
cJSON *bench_record_json(struct bench_record *rec);

/* run.json of b as it stands. NULL: out of memory. */
cJSON *bench_run_json(const struct bench *b);

/* Write run.json (a temporary file renamed over it). */
int bench_run_json_write(const struct bench *b, char **cause);

#endif
