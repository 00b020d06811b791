/*
 * Plans: what collect would run, for netprof plan and collect --dry-run,
 * and the schedules collect itself follows.
 */
#ifndef NETPROF_PLAN_H
#define NETPROF_PLAN_H

#include <stdio.h>

#include "probe.h"
#include "schedule.h"

struct inventory;

struct plan_options {
	int iperf;		/* include the iperf3 phase */
	int rounds;		/* ping in shift rounds, one probe per host */
	int serial;		/* one pair at a time, as upstream */
	int max_channels;	/* per-host cap; 0: the engine's default */
	int json;		/* JSON rows instead of text */
};

/* Build the ping (and iperf3) schedules collect runs for inv. */
int plan_schedules(const struct inventory *inv, const struct plan_options *o,
    struct schedule **ping, struct schedule **iperf3);

/* Print the plan: rounds and per-pair commands (text or JSON). */
int plan_write(FILE *f, const struct inventory *inv,
    const struct probe_settings *ps, const struct plan_options *o);

#endif
