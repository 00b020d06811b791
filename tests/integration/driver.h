/*
 * What the integration test drivers (engine_driver, tunnel_driver,
 * node_api_driver) share: the options every one of them takes (the
 * inventory, the machine, -v, a timer that stops the run after some time),
 * loading the machine, and the end-of-run check that every handle closed.
 * A driver exits 2 on usage or set-up errors and 3 when the contract it
 * checks did not hold; these helpers keep to that.
 */
#ifndef NETPROF_TEST_DRIVER_H
#define NETPROF_TEST_DRIVER_H

#include <getopt.h>

#include <uv.h>

#include "inventory.h"

/*
 * The long options of struct driver_opts, the two stop options named by
 * each driver (what they stop differs).
 */
#define DRIVER_LONGOPTS(stop, close_stop) \
	{ "config", required_argument, NULL, 'c' }, \
	{ "host", required_argument, NULL, 'H' }, \
	{ stop, required_argument, NULL, 'C' }, \
	{ close_stop, required_argument, NULL, 'X' }

struct driver_opts {
	const char *prog;	/* for messages */
	const char *config, *host;
	double stop_after;	/* seconds; 0: no stop timer */
	int stop_close;		/* the stop closes rather than cancels */
	struct inventory *inv;	/* driver_machine()'s; inventory_free() it */
};

/* What every driver does first: SIGPIPE ignored, as netprof's main(). */
void driver_init(struct driver_opts *o, const char *prog);

/*
 * getopt_long() over longopts that takes in the options of struct
 * driver_opts itself (-c FILE, -H NAME, -C S: stop after S, -X S: stop
 * after S by closing, -v: more log each time) and returns the next other
 * one (optarg set), or -1 at the end.
 */
int driver_getopt(struct driver_opts *o, int argc, char **argv,
    const struct option *longopts);

/*
 * The inventory of --config (into o->inv) and its machine --host (the first
 * one without --host); exits 2 with a message when either fails.
 */
struct machine *driver_machine(struct driver_opts *o);

/*
 * t initialised with data; started when o asks for a stop: after
 * o->stop_after seconds it calls close_cb if o->stop_close, else cancel_cb.
 */
void driver_timer(uv_loop_t *loop, uv_timer_t *t, const struct driver_opts *o,
    uv_timer_cb cancel_cb, uv_timer_cb close_cb, void *data);

/* uv_loop_close(), printing a violation when handles are left: 1 or 0. */
int driver_loop_close(uv_loop_t *loop);

#endif
