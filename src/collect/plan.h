/*
 * Plans: the stages a collect sweep runs (a kind of probe each, its
 * rounds and how its pairs share the hosts), for collect itself, and
 * their text or JSON form for netprof plan and collect --dry-run.
 */
#ifndef NETPROF_PLAN_H
#define NETPROF_PLAN_H

#include <stdio.h>

#include <cjson/cJSON.h>

#include "dispatch.h"
#include "option.h"
#include "probe.h"
#include "probe_kind.h"
#include "schedule.h"

struct inventory;

/*
 * Targets of one fan-out command by default: a host never runs more than
 * this many pings at once, and with N-1 above it a sweep takes
 * ceil((N-1)/fanout) ping durations.
 */
#define PLAN_DEFAULT_FANOUT 256

struct plan_options {
	unsigned kinds;		/* --kinds: shell kinds, 1 << their index;
				   0: the raw-IP round trip's */
	int iperf;		/* with the raw-IP throughput kind (iperf3) */
	int rounds;		/* overlapping kinds in shift rounds, one
				   probe per host */
	int serial;		/* one pair at a time, as upstream */
	int max_channels;	/* per-host cap; 0: the engine's default */
	int json;		/* JSON rows instead of text */
	int fanout;		/* targets per fan-out command; 0: default;
				   -1: off (one channel per probe) */
	int duplex;		/* exclusive kinds that may, in duplex rounds */
	int ping_tool;		/* enum fanout_tool */
	int sample;		/* K pairs per host across sites a sweep (and
				   every pair inside a site); 0: every pair */
	int explain;		/* text: each source's fan-out command too */
};

/*
 * One stage of a sweep: a kind, its rounds, how its pairs share the hosts,
 * and how its records and the plan name that.
 */
struct plan_stage {
	const struct probe_kind *kind;
	struct schedule *sched;
	struct dispatch_stage share;
	int fanout;		/* a PROBE_FANOUT kind's pairs in fan-outs */
	const char *mode;	/* the records': "fanout", "channel",
				   "exclusive", "duplex" or "serial" */
	const char *plan_mode;	/* the plan's: "fanout", "channels",
				   "rounds", "exclusive", "duplex", "serial" */
	size_t sample;		/* --sample K: its pairs a sample; 0: all */
	size_t cycle;		/* sweeps in which a sample measures every
				   pair (1 without) */
	char *config;		/* its records' config (the kind's own
				   settings) as their lines hold it, or NULL;
				   collect's, freed with the stages */
};

/* Targets per fan-out command, or 0 when pings run one per channel. */
size_t plan_fanout(const struct plan_options *o);

/*
 * The options plan and collect share, a block of a command's table
 * (option.h) over struct plan_options: --kinds, --iperf, --iperf-mode,
 * --fanout, --ping-tool, --rounds, --serial, --sample.
 */
extern const struct option_spec plan_option_specs[];

/*
 * The kinds a sweep runs, a bit (1 << probe_kind_index()) each: --kinds',
 * else the raw-IP round trip's; and with --iperf the raw-IP throughput's.
 */
unsigned plan_kinds(const struct plan_options *o);

/*
 * The stages collect runs for inv, in the table's order; sweep (from 0)
 * picks a sample's pairs (--sample: the rotation's), else unused.
 */
int plan_stages(const struct inventory *inv, const struct plan_options *o,
    long sweep, struct plan_stage **out, size_t *n);

/*
 * The hosts' sites as numbers for schedule_sample(): machines of one
 * site share one; a machine without a site is a site of its own.
 * *out: n numbers (free()).
 */
int plan_sites(const struct inventory *inv, size_t **out);
void plan_stages_free(struct plan_stage *stages, size_t n);

/* Print the plan: rounds and per-pair commands (text or JSON). */
int plan_write(FILE *f, const struct inventory *inv,
    const struct probe_settings *ps, const struct plan_options *o);

/* plan_explain.c, for --explain: per fan-out stage, round and source,
   the command the source runs (as command_line.h reproduces it). */
int plan_write_explain(FILE *f, const struct inventory *inv,
    const struct plan_stage *stages, size_t n_stages,
    const struct probe_settings *ps, const struct plan_options *o);

#endif
