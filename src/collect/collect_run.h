/*
 * netprof collect's entry into a run: from the loaded inventory and the
 * parsed options to the exit status. cmd_collect.c parses the options and
 * calls it, as cmd_bench.c calls bench_run().
 */
#ifndef NETPROF_COLLECT_RUN_H
#define NETPROF_COLLECT_RUN_H

#include "collect_watch.h"
#include "diagnose_gate.h"
#include "plan.h"
#include "probe.h"
#include "runner.h"

struct inventory;

struct collect_options {
	struct runner_options common;
	const char *output;
	int dry_run, resume;
	struct plan_options plan;
	struct probe_options probes;
	struct collect_watch_options watch;
	struct diagnose_gate_options gate;	/* --fail-on */
};

/* Run (or, with o->dry_run, print the plan) on inv's machines; enum np_exit. */
int collect_run(const struct collect_options *o, struct inventory *inv);

#endif
