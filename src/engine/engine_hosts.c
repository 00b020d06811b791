/*
 * Hosts in flight (engine_options.max_hosts, set by the runner from the
 * open-file limit): a host's slot, the hosts waiting for one in the order
 * they came, and the closing of an idle host's session when another waits
 * (see "Hosts in flight" in docs/engine.md). Below engine.c, it calls
 * nothing of it: a slot given away and a host admitted reach the jobs and
 * the transports through the hooks engine.c sets (e->host_release,
 * e->host_admitted).
 */
#include <stdio.h>

#include "engine_state.h"
#include "log.h"

/* h's transport closes what h holds open; h's slot is free. */
static void
slot_release(struct engine *e, struct engine_host *h)
{
	TAILQ_REMOVE(&e->idle, h, entry);
	h->slot = SLOT_NONE;
	e->n_slots--;
	e->host_release(e, h->machine);
	log_debug(h->machine->name, "done with: its slot goes to a waiting "
	    "host");
}

/*
 * Give h a slot if it has none: a free one, else an idle host's. force
 * (tunnels) takes one past the bound. 1 if h has a slot now.
 */
int
engine_hosts_take(struct engine *e, struct engine_host *h, int force)
{
	struct engine_host *idle;

	if (h->slot == SLOT_BUSY)
		return 1;
	if (h->slot == SLOT_IDLE) {
		TAILQ_REMOVE(&e->idle, h, entry);
		h->slot = SLOT_BUSY;
		return 1;
	}
	if (!force && e->opts.max_hosts > 0 &&
	    e->n_slots >= e->opts.max_hosts) {
		if ((idle = TAILQ_FIRST(&e->idle)) == NULL)
			return 0;
		slot_release(e, idle);
	}
	if (h->slot == SLOT_WAITING)
		TAILQ_REMOVE(&e->waiting, h, entry);
	h->slot = SLOT_BUSY;
	e->n_slots++;
	return 1;
}

/* The first host that waits says so, once: the user may raise the limit. */
static void
note_waiting(struct engine *e, struct engine_host *h)
{
	log_debug(h->machine->name, "waits for a slot: %zu hosts in flight "
	    "at once", e->opts.max_hosts);
	if (e->n_waited++ > 0)
		return;
	log_warn("%s lets %zu hosts run at once: the others are "
	    "queued and start as hosts finish (raise the limit with "
	    "`ulimit -n` to run them all at once)", e->opts.max_hosts_why !=
	    NULL ? e->opts.max_hosts_why : "the limit", e->opts.max_hosts);
}

/* j waits with its host for a slot; no transport sees it until then. */
void
engine_hosts_hold(struct engine *e, struct engine_job *j)
{
	struct engine_host *h = &e->hosts[j->machine->index];

	j->held = 1;
	j->state = JOB_QUEUED;
	TAILQ_INSERT_TAIL(&h->held, j, entry);
	if (h->slot == SLOT_WAITING)
		return;
	h->slot = SLOT_WAITING;
	TAILQ_INSERT_TAIL(&e->waiting, h, entry);
	note_waiting(e, h);
}

/* A held job leaves (cancelled); a host with none left no longer waits. */
void
engine_hosts_unhold(struct engine *e, struct engine_job *j)
{
	struct engine_host *h = &e->hosts[j->machine->index];

	TAILQ_REMOVE(&h->held, j, entry);
	j->held = 0;
	if (TAILQ_EMPTY(&h->held) && h->slot == SLOT_WAITING) {
		TAILQ_REMOVE(&e->waiting, h, entry);
		h->slot = SLOT_NONE;
	}
}

/* Waiting hosts take the free slots, in the order they came. */
static void
admit_waiting(struct engine *e)
{
	struct engine_host *h;

	while (!e->closing && (h = TAILQ_FIRST(&e->waiting)) != NULL &&
	    engine_hosts_take(e, h, 0)) {
		log_debug(h->machine->name, "its turn: starting");
		e->host_admitted(e, h);
	}
}

/*
 * A job or tunnel of m was delivered. With nothing left, m is done with
 * for now: idle, or, when a host waits, its slot (and its session) is
 * given away at once.
 */
void
engine_hosts_unuse(struct engine *e, const struct machine *m)
{
	struct engine_host *h = &e->hosts[m->index];

	if (--h->users > 0 || h->slot != SLOT_BUSY)
		return;
	h->slot = SLOT_IDLE;
	TAILQ_INSERT_TAIL(&e->idle, h, entry);
	if (TAILQ_EMPTY(&e->waiting) || e->closing)
		return;
	slot_release(e, h);
	admit_waiting(e);
}
