/*
 * Private to engine.c and engine_hosts.c: the engine's state, and what
 * the two share. engine.c runs the jobs and tunnels; engine_hosts.c
 * bounds the hosts in flight (a slot per host, the hosts waiting for one,
 * an idle host's slot given to a waiting one). engine.c calls
 * engine_hosts.c, never the other way: what engine_hosts.c must have
 * done by the jobs and transports goes through the hooks engine.c sets.
 */
#ifndef NETPROF_ENGINE_STATE_H
#define NETPROF_ENGINE_STATE_H

#include <stddef.h>

#include "engine.h"
#include "transport.h"

/* the transport kinds (enum transport_kind) */
#define ENGINE_N_KINDS 4

enum slot_state {
	SLOT_NONE = 0,		/* no slot, nothing waiting */
	SLOT_WAITING,		/* jobs held until a slot frees */
	SLOT_BUSY,		/* has a slot, and jobs or tunnels */
	SLOT_IDLE		/* has a slot, nothing to do: may lose it */
};

/* A machine as the admission sees it. */
struct engine_host {
	TAILQ_ENTRY(engine_host) entry;	/* waiting or idle list */
	const struct machine *machine;
	enum slot_state slot;
	struct job_list held;		/* jobs waiting for the slot */
	size_t users;			/* jobs and tunnels not delivered */
};

TAILQ_HEAD(host_list, engine_host);

struct engine {
	uv_loop_t *loop;
	const struct inventory *inv;
	struct engine_options opts;
	struct job_list jobs;		/* every job not yet freed */
	struct job_list done;		/* finished, on_done not yet called */
	struct tunnel_list tunnels;	/* every tunnel not yet freed */
	size_t pending;			/* jobs before on_done */
	uv_idle_t pump;			/* delivers results, kicks hosts */
	int pump_active;
	void *state[ENGINE_N_KINDS];		/* each transport's; NULL: unused,
					   or shared with an earlier kind */
	int closing;
	int handles_open;		/* the transports' handles, and the pump */
	void (*closed_cb)(struct engine *, void *);
	void *closed_arg;
	int closed_called;
	struct engine_host *hosts;	/* by machine index */
	struct host_list waiting;	/* hosts waiting for a slot, FIFO */
	struct host_list idle;		/* slot, nothing to do; oldest first */
	size_t n_slots;			/* hosts holding a slot */
	size_t n_waited;		/* hosts that had to wait */
	struct job_list batching;	/* batches' jobs, until the pump */
	struct engine_job **batch;	/* one batch being handed over */
	unsigned char *batch_has;	/* by machine index: in that batch */
	/* set by engine.c for engine_hosts.c: m's slot is given away (its
	   transport closes what m holds open); h has a slot now (its held
	   jobs go to their transport) */
	void (*host_release)(struct engine *e, const struct machine *m);
	void (*host_admitted)(struct engine *e, struct engine_host *h);
};

/* engine_hosts.c: give h a slot if it has none (force: past the bound,
 * for tunnels); 1 if it has one now. */
int engine_hosts_take(struct engine *e, struct engine_host *h, int force);
/* j waits with its host for a slot; no transport sees it until then. */
void engine_hosts_hold(struct engine *e, struct engine_job *j);
/* A held job leaves (cancelled). */
void engine_hosts_unhold(struct engine *e, struct engine_job *j);
/* A job or tunnel of m was delivered: m idle, or its slot given away. */
void engine_hosts_unuse(struct engine *e, const struct machine *m);

#endif
