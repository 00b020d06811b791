/*
 * The settings the probes' commands are built from (the inventory's, or
 * the command line's): ping's count and interval, iperf3's length and
 * port, and how collect runs iperf3's servers; each kind's own settings,
 * which its row declares (its option block over its values); and their
 * blocks of a command's option table. What each kind runs with them is
 * its row's (probe_kind.h).
 */
#ifndef NETPROF_PROBE_H
#define NETPROF_PROBE_H

#include <stddef.h>

#include "option.h"

/* Rows of probe_kinds[] at most, and bytes of a kind's own values. */
#define PROBE_KINDS_MAX 16
#define PROBE_VALUES_MAX 64

/*
 * A kind's own settings (its row's .options, a block over a struct of
 * its file's, at most PROBE_VALUES_MAX bytes), in the slot of its row:
 * what the command line gave, zero where it gave nothing (each value's
 * zero is the kind's default). Neither this file nor the commands know
 * them: a kind's file reads its own through probe_values().
 */
union probe_values {
	max_align_t align;
	unsigned char bytes[PROBE_VALUES_MAX];
};

struct probe_settings {
	int ping_count;
	double ping_interval;	/* seconds */
	int iperf_seconds;
	int iperf_port;
	int server_keep;	/* a PROBE_SERVER kind: one server per host
				   for the phase (duplex), not one per test */
	double server_bound;	/* seconds: the server ends by itself
				   within it; 0: not bounded */
	union probe_values kinds[PROBE_KINDS_MAX];	/* by row */
};

/*
 * What the command line may set of a probe's settings (0: the
 * inventory's), and their block of a command's table (option.h):
 * --ping-count, --ping-interval, --iperf-seconds, --iperf-port, then
 * each kind's own options (its row's block, over its slot of kinds[]).
 */
struct probe_options {
	int ping_count;
	double ping_interval;
	int iperf_seconds;
	int iperf_port;
	union probe_values kinds[PROBE_KINDS_MAX];	/* by row */
};
extern const struct option_spec probe_option_specs[];

/*
 * The values of the kind whose row's .options are specs, in ps (a kind's
 * file passes its own block, and reads its own struct). NULL if no row
 * has them.
 */
const void *probe_values(const struct probe_settings *ps,
    const struct option_spec *specs);

struct inventory;
/* The settings of a run: o's where given, else inv's; the rest cleared. */
void probe_settings_init(struct probe_settings *ps,
    const struct probe_options *o, const struct inventory *inv);

/*
 * A kind's shell script run against address: "LC_ALL=C; export LC_ALL;
 * a=ADDRESS; SCRIPT", the address shell-quoted unless it is a plain word
 * (the script reads it as "$a"). NULL: out of memory.
 */
char *probe_script_line(const char *address, const char *script);

#endif
