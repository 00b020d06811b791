/*
 * The pair dispatcher, which collect's sweep and bench's pair phases both
 * run on: a list of tasks (an ordered pair of hosts each, in the order they
 * are to start: the schedule's rounds), started greedily as soon as their
 * hosts have room, so one slow pair never holds back a whole round.
 *
 * Tasks come in stages (collect: a stage per kind of probe; bench's sweep:
 * the light kinds, then throughput): a stage starts when every task of the
 * one before it has ended. How a stage's tasks share the hosts is its
 * enum dispatch_share: several per host up to a budget (each way, or both
 * ways together), none sharing a host (exclusive rounds), or a host the
 * source of one and the target of another at once, in round order
 * (duplex). With serial, one task runs at a time, in order.
 *
 * The client (collect_run.c, bench_sweep.c) says through its hooks how a
 * task starts and whether a host can take part at all, and reports each
 * task's end with dispatch_task_end() (or dispatch_task_requeue(): to run
 * again later); observers (dispatch_observe()) are told of every task's
 * start and end, whatever runs it. libuv's rule holds: the hooks are
 * called from dispatch_run() and from the calls that end a task, never
 * from inside a hook's own call into the dispatcher (a task that ends
 * while it starts is taken up on the same turn, by the loop in
 * dispatch_run()).
 */
#ifndef NETPROF_DISPATCH_H
#define NETPROF_DISPATCH_H

#include <stddef.h>

enum dispatch_state {
	DISPATCH_WAITING = 0,
	DISPATCH_RUNNING,
	DISPATCH_DONE
};

/* How a stage's tasks share the hosts. */
enum dispatch_share {
	DISPATCH_EACH_WAY = 0,	/* a host in up to `limit` tasks as source
				   and up to `limit` as target at once */
	DISPATCH_BOTH_WAYS,	/* a host in up to `limit` tasks at once, as
				   source or target */
	DISPATCH_EXCLUSIVE,	/* no host in two tasks at once */
	DISPATCH_DUPLEX		/* a host the source of one task and the
				   target of another at once, each side in
				   round order (so a test waits only for its
				   two neighbours' previous one) */
};

struct dispatch_stage {
	enum dispatch_share share;
	size_t limit;		/* EACH_WAY, BOTH_WAYS: per host (>= 1) */
};

struct dispatch_task {
	size_t src, dst;	/* host indexes */
	size_t round;		/* 0-based, in its stage */
	size_t stage;
	enum dispatch_state state;
	int taken;		/* started with another (dispatch_take()):
				   holds none of its hosts' room */
	void *arg;		/* the client's */
	size_t src_pos, dst_pos;	/* in its hosts' lists */
};

struct dispatch;

struct dispatch_hooks {
	/*
	 * Before a waiting task is looked at: nonzero if the client ended
	 * it without running it (a host known to be down, failed earlier:
	 * recorded with that reason, dispatch_task_end() called). NULL: no
	 * such host.
	 */
	int (*gone)(struct dispatch *d, struct dispatch_task *t);
	/*
	 * Before room is looked for: nonzero if the client runs t with
	 * others (collect's fan-out: a source's pairs of a round as one
	 * command, each marked with dispatch_take()). NULL: never.
	 */
	int (*take)(struct dispatch *d, struct dispatch_task *t);
	/* Start t, which has its room: its end comes later, or at once. */
	void (*start)(struct dispatch *d, struct dispatch_task *t);
	/* A stage begins (progress): every task before it has ended. */
	void (*stage_began)(struct dispatch *d, size_t stage);
	/*
	 * Every task of the stage has ended: nonzero to go on to the next
	 * one now, 0 to wait (collect stops its iperf3 servers first, then
	 * calls dispatch_run() again). NULL: go on.
	 */
	int (*stage_ended)(struct dispatch *d, size_t stage);
	/* Every task has ended (or, stopped, the last running one). */
	void (*ended)(struct dispatch *d);
	void *arg;
};

/* Told of every task's start and end (tracing); any member may be NULL. */
struct dispatch_observer {
	void (*task_started)(void *arg, const struct dispatch_task *t);
	void (*task_ended)(void *arg, const struct dispatch_task *t);
	void *arg;
};

/*
 * A dispatcher for n_hosts hosts and n_tasks tasks (added next, in the
 * order they are to start) in n_stages stages (stages[i] how stage i
 * shares the hosts; copied). NP_ERR_NOMEM.
 */
int dispatch_new(size_t n_hosts, size_t n_tasks,
    const struct dispatch_stage *stages, size_t n_stages,
    const struct dispatch_hooks *hooks, struct dispatch **out);
void dispatch_free(struct dispatch *d);

/* One at a time, in order (upstream's way). */
void dispatch_set_serial(struct dispatch *d, int serial);
/* Add an observer (one; a later call replaces it). */
void dispatch_observe(struct dispatch *d, const struct dispatch_observer *o);

/*
 * Add the next task; arg is the client's. Returns it (its place in the
 * list is its index), or NULL past n_tasks.
 */
struct dispatch_task *dispatch_add(struct dispatch *d, size_t src,
    size_t dst, size_t stage, size_t round, void *arg);
/*
 * A task added that is not to run (--resume: recorded by an earlier run):
 * done from the start, never started, not counted in what is left.
 */
void dispatch_skip(struct dispatch *d, struct dispatch_task *t);

/* Start whatever has room, in order; ended() when nothing is left. */
void dispatch_run(struct dispatch *d);

/* The client's task t has ended (started or not). */
void dispatch_task_end(struct dispatch *d, struct dispatch_task *t);
/* t is to run again later: waiting again, its room given back. */
void dispatch_task_requeue(struct dispatch *d, struct dispatch_task *t);
/* t starts with another (from the take hook): running, holding no room. */
void dispatch_take(struct dispatch *d, struct dispatch_task *t);

/* Start nothing more; ended() once no task runs. */
void dispatch_stop(struct dispatch *d);

/* The tasks, in order; how many; the index of one. */
struct dispatch_task *dispatch_task_at(const struct dispatch *d, size_t i);
size_t dispatch_n_tasks(const struct dispatch *d);
/* Tasks running now; tasks of a stage not yet ended (skipped ones not
   counted). */
size_t dispatch_running(const struct dispatch *d);
size_t dispatch_left(const struct dispatch *d, size_t stage);
/* Tasks of stage's round not yet ended (its progress). */
size_t dispatch_round_left(const struct dispatch *d, size_t stage,
    size_t round);
/* The stage running now (n_stages once every stage has ended). */
size_t dispatch_stage(const struct dispatch *d);
/* The client's argument of the hooks. */
void *dispatch_arg(const struct dispatch *d);

/*
 * Host h's k-th task as source (as_target: as target), in order, or NULL;
 * its first waiting one as source (or target), or NULL (the fan-out's
 * pairs of a round, whether a host serves any more).
 */
struct dispatch_task *dispatch_host_task(const struct dispatch *d, size_t h,
    int as_target, size_t k);
struct dispatch_task *dispatch_host_next_waiting(struct dispatch *d,
    size_t h, int as_target);

#endif
