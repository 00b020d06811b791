/*
 * Are two records the same (the fast path's and record_parse()'s)? NULL,
 * or the name of the first field that differs. For fuzz_record_scan.c and
 * the unit test of the fast path.
 */
#ifndef NETPROF_TEST_RECORD_SAME_H
#define NETPROF_TEST_RECORD_SAME_H

#include <math.h>
#include <string.h>

#include "records_read.h"

static inline int
record_same_str(const char *a, const char *b)
{
	return a == NULL || b == NULL ? a == b : strcmp(a, b) == 0;
}

/* Equal as the page shows them: NaN equals NaN, and -0 is not 0. */
static inline int
record_same_num(double a, double b)
{
	if (isnan(a) || isnan(b))
		return isnan(a) && isnan(b);
	return memcmp(&a, &b, sizeof a) == 0;
}

static inline const char *
record_same(const struct record *a, const struct record *b)
{
	size_t i;

	if (!record_same_str(a->kind, b->kind))
		return "kind";
	if (!record_same_str(a->source, b->source))
		return "source";
	if (!record_same_str(a->target, b->target))
		return "target";
	if (a->ok != b->ok)
		return "ok";
	if (!record_same_num(a->time, b->time))
		return "time";
	if (!record_same_str(a->error, b->error))
		return "error";
	if (!record_same_str(a->error_class, b->error_class))
		return "error_class";
	if (!record_same_str(a->command, b->command))
		return "command";
	if (a->nsamples != b->nsamples)
		return "nsamples";
	if (a->round != b->round)
		return "round";
	if (!record_same_num(a->started_at, b->started_at))
		return "started_at";
	if (!record_same_str(a->run_id, b->run_id))
		return "run_id";
	if (!record_same_str(a->path, b->path))
		return "path";
	if (!record_same_str(a->path_known, b->path_known))
		return "path_known";
	if (!record_same_str(a->relay, b->relay))
		return "relay";
	if (!record_same_str(a->relay_peer_id, b->relay_peer_id))
		return "relay_peer_id";
	if (a->nmetrics != b->nmetrics)
		return "nmetrics";
	for (i = 0; i < a->nmetrics; i++)
		if (strcmp(a->metrics[i].name, b->metrics[i].name) != 0 ||
		    !record_same_num(a->metrics[i].value, b->metrics[i].value) ||
		    a->metrics[i].index != b->metrics[i].index)
			return "metrics";
	return NULL;
}

#endif
