/*
 * netprof collect's entry into a run: from the loaded inventory and the
 * parsed options to the exit status. cmd_collect.c parses the options and
 * calls it, as cmd_bench.c calls bench_run().
 */
#ifndef NETPROF_COLLECT_RUN_H
#define NETPROF_COLLECT_RUN_H

#include "heatmap_gate.h"
#include "plan.h"
#include "probe.h"
#include "runner.h"

struct inventory;

/* --every, --count, --rotate, --metrics-*: continuous sweeps and their
   metrics (collect_watch.c) */
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
struct collect_options {
	struct runner_options common;
	const char *output;
	int dry_run, resume;
	struct plan_options plan;
	struct probe_options probes;
	struct collect_watch_options watch;
	struct heatmap_gate_options gate;	/* --fail-on */
};

/* Run (or, with o->dry_run, print the plan) on inv's machines; enum np_exit. */
int collect_run(const struct collect_options *o, struct inventory *inv);

#endif
