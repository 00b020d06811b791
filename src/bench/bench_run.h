/*
 * netprof bench's entry into a run: everything from the planned hosts to
 * the exit status. cmd_bench.c parses the options and calls it.
 */
#ifndef NETPROF_BENCH_RUN_H
#define NETPROF_BENCH_RUN_H

#include "bench.h"

/* Run (or, with o->teardown, tear down) on inv's machines; enum np_exit. */
int bench_run(const struct bench_options *o, struct inventory *inv);

#endif
