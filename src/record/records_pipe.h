/*
 * Records for a sink, read on a thread of their own: the lines are split,
 * parsed (the fast path, else record_parse()) and batched there, while
 * the calling thread hands each record to the sink, in reading order, and
 * reports each malformed line in its turn. The sink runs on the calling
 * thread only. What a large file costs is then the larger of the two,
 * not their sum.
 */
#ifndef NETPROF_RECORDS_PIPE_H
#define NETPROF_RECORDS_PIPE_H

#include "records_read.h"
#include "line_reader.h"

/* The rest of rd's lines to in->sink; returns as records_read_stream(). */
int records_pipe(struct record_input *in, struct line_reader *rd,
    const char *path, int strict);

#endif
