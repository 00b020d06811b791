/*
 * Plans: what collect would run, for netprof plan and collect --dry-run,
 * and the schedules collect itself follows.
 */
#ifndef NETPROF_PLAN_H
#define NETPROF_PLAN_H

#include <stdio.h>

#include "option.h"
#include "probe.h"
#include "schedule.h"

struct inventory;

/*
 * Targets of one fan-out command by default: a host never runs more than
 * this many pings at once, and with N-1 above it a sweep takes
 * ceil((N-1)/fanout) ping durations.
 */
#define PLAN_DEFAULT_FANOUT 256

struct plan_options {
	int iperf;		/* include the iperf3 phase */
	int rounds;		/* ping in shift rounds, one probe per host */
	int serial;		/* one pair at a time, as upstream */
	int max_channels;	/* per-host cap; 0: the engine's default */
	int json;		/* JSON rows instead of text */
	int fanout;		/* targets per fan-out command; 0: default;
				   -1: off (one channel per probe) */
	int duplex;		/* iperf3 in duplex shift rounds */
	int ping_tool;		/* enum fanout_tool */
};

/* Targets per fan-out command, or 0 when pings run one per channel. */
size_t plan_fanout(const struct plan_options *o);

/* "exclusive" or "duplex", as records name the iperf3 mode. */
const char *plan_iperf_mode(const struct plan_options *o);

/*
 * The options plan and collect share, a block of a command's table
 * (option.h) over struct plan_options: --iperf, --iperf-mode, --fanout,
 * --ping-tool, --rounds, --serial.
 */
extern const struct option_spec plan_option_specs[];

/* Build the ping (and iperf3) schedules collect runs for inv. */
int plan_schedules(const struct inventory *inv, const struct plan_options *o,
    struct schedule **ping, struct schedule **iperf3);

/* Print the plan: rounds and per-pair commands (text or JSON). */
int plan_write(FILE *f, const struct inventory *inv,
    const struct probe_settings *ps, const struct plan_options *o);

#endif
