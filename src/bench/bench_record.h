/*
 * run.json, the summary a bench run writes beside its records: upstream's
 * (phase times, convergence, totals) plus per-host phase status and
 * errors, keys sorted as upstream's json.dumps(sort_keys=True). The
 * records themselves (measurements.jsonl, upstream's shape) are
 * record.c's, in the node kinds' form.
 */
#ifndef NETPROF_BENCH_RECORD_H
#define NETPROF_BENCH_RECORD_H

#include <cjson/cJSON.h>

#include "bench.h"

/* run.json of b as it stands. NULL: out of memory. */
cJSON *bench_run_json(const struct bench *b);

/* Write run.json (a temporary file renamed over it). */
int bench_run_json_write(const struct bench *b, char **cause);

#endif
