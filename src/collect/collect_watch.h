/*
 * collect's continuous sweeps and their metrics (collect_watch.c): the
 * options of --every, --count, --rotate and --metrics-*, and their block
 * of collect's option table. collect_run.h hands them on to
 * cmd_collect.c; the watch's calls from the run are collect.h's.
 */
#ifndef NETPROF_COLLECT_WATCH_H
#define NETPROF_COLLECT_WATCH_H

#include "option.h"

struct collect_watch_options {
	double every;		/* seconds between sweep starts; < 0: one sweep */
	int count;		/* sweeps; 0: until interrupted */
	long long rotate;	/* bytes of --output before rotating; 0: never */
	const char *metrics_file;
	const char *metrics_listen;
	int metrics_public;
	const char *output;	/* --output's path (rotation) */
};

/* The block of collect's table for struct collect_watch_options. */
extern const struct option_spec collect_watch_specs[];

#endif
