/*
 * Private to src/record/: a bench run.json read back (records_run.c) for
 * the records' input, which keeps it beside the records.
 */
#ifndef NETPROF_RECORDS_RUN_H
#define NETPROF_RECORDS_RUN_H

#include <stddef.h>

#include "records_read.h"

/*
 * text (len bytes, NUL-terminated) as path's run.json: *taken 1 and the
 * run added to in when it is one, 0 when it is no run.json (read it as
 * lines); NP_ERR_USAGE for a machines.json, after saying so.
 */
int records_run_json(struct record_input *in, const char *path,
    const char *text, size_t len, int *taken);
/* A run read by records_run_json(); NULL is a no-op. */
void records_run_free(struct run_info *run);

#endif
