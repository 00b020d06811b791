/*
 * The settings the probes' commands are built from (the inventory's, or
 * the command line's): ping's count and interval, iperf3's length and
 * port, and how collect runs iperf3's servers; and their block of a
 * command's option table. What each kind runs with them is its row's
 * (probe_kind.h).
 */
#ifndef NETPROF_PROBE_H
#define NETPROF_PROBE_H

#include "option.h"

struct probe_settings {
	int ping_count;
	double ping_interval;	/* seconds */
	int iperf_seconds;
	int iperf_port;
	int server_keep;	/* a PROBE_SERVER kind: one server per host
				   for the phase (duplex), not one per test */
	double server_bound;	/* seconds: the server ends by itself
				   within it; 0: not bounded */
};

/*
 * What the command line may set of a probe's settings (0: the
 * inventory's), and their block of a command's table (option.h):
 * --ping-count, --ping-interval, --iperf-seconds, --iperf-port.
 */
struct probe_options {
	int ping_count;
	double ping_interval;
	int iperf_seconds;
	int iperf_port;
};
extern const struct option_spec probe_option_specs[];

struct inventory;
/* The settings of a run: o's where given, else inv's; the rest cleared. */
void probe_settings_init(struct probe_settings *ps,
    const struct probe_options *o, const struct inventory *inv);

#endif
