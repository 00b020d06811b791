/*
 * The pair dispatcher (dispatch.h). Each host keeps the indexes of its
 * tasks as source and as target, in order, with a cursor at its first
 * task that may still wait, and the whole list keeps one at the first
 * waiting task: a pass starts there and does not read again the tasks
 * already done, so a sweep of a million pairs stays linear. A pass walks
 * the current stage's waiting tasks in order and starts each that has
 * room; a task that ends while it starts (it could not) makes the pass go
 * round again, on the same turn.
 */
#include <stdlib.h>
#include <string.h>

#include "dispatch.h"
#include "error.h"

struct stage_state {
	struct dispatch_stage how;
	size_t left;		/* tasks not yet ended (skipped: not counted) */
	size_t *round_left, *round_total;
	size_t n_rounds;
	int began;
};

struct dispatch {
	struct dispatch_hooks hooks;
	struct dispatch_observer observer;
	size_t n_hosts;
	struct dispatch_task *tasks;
	size_t n_tasks, cap;
	struct stage_state *stages;
	size_t n_stages, stage;	/* the current stage */
	size_t first_waiting;
	size_t *by_src, *by_dst;	/* host h: [off[h], off[h + 1]) */
	size_t *src_off, *dst_off;
	size_t *src_cur, *dst_cur;	/* per host: first maybe waiting */
	size_t *as_src, *as_dst;	/* per host: its running tasks, as each */
	size_t running;
	int serial, stopped, indexed;
	int passing, again, ended;
};

int
dispatch_new(size_t n_hosts, size_t n_tasks,
    const struct dispatch_stage *stages, size_t n_stages,
    const struct dispatch_hooks *hooks, struct dispatch **out)
{
	struct dispatch *d;
	size_t i;

	*out = NULL;
	if ((d = calloc(1, sizeof *d)) == NULL)
		return NP_ERR_NOMEM;
	d->hooks = *hooks;
	d->n_hosts = n_hosts;
	d->cap = n_tasks;
	d->n_stages = n_stages;
	if ((d->tasks = calloc(n_tasks + 1, sizeof *d->tasks)) == NULL ||
	    (d->stages = calloc(n_stages + 1, sizeof *d->stages)) == NULL ||
	    (d->as_src = calloc(n_hosts + 1, sizeof(size_t))) == NULL ||
	    (d->as_dst = calloc(n_hosts + 1, sizeof(size_t))) == NULL) {
		dispatch_free(d);
		return NP_ERR_NOMEM;
	}
	for (i = 0; i < n_stages; i++) {
		d->stages[i].how = stages[i];
		if (d->stages[i].how.limit < 1)
			d->stages[i].how.limit = 1;
	}
	*out = d;
	return 0;
}

void
dispatch_free(struct dispatch *d)
{
	size_t i;

	if (d == NULL)
		return;
	for (i = 0; d->stages != NULL && i < d->n_stages; i++) {
		free(d->stages[i].round_left);
		free(d->stages[i].round_total);
	}
	free(d->stages);
	free(d->tasks);
	free(d->by_src);
	free(d->by_dst);
	free(d->src_off);
	free(d->dst_off);
	free(d->src_cur);
	free(d->dst_cur);
	free(d->as_src);
	free(d->as_dst);
	free(d);
}

void
dispatch_set_serial(struct dispatch *d, int serial)
{
	d->serial = serial;
}

void
dispatch_observe(struct dispatch *d, const struct dispatch_observer *o)
{
	d->observer = *o;
}

struct dispatch_task *
dispatch_add(struct dispatch *d, size_t src, size_t dst, size_t stage,
    size_t round, void *arg)
{
	struct dispatch_task *t;

	if (d->n_tasks >= d->cap || stage >= d->n_stages || src >= d->n_hosts ||
	    dst >= d->n_hosts)
		return NULL;
	t = &d->tasks[d->n_tasks++];
	t->src = src;
	t->dst = dst;
	t->stage = stage;
	t->round = round;
	t->arg = arg;
	d->stages[stage].left++;
	if (round + 1 > d->stages[stage].n_rounds)
		d->stages[stage].n_rounds = round + 1;
	d->indexed = 0;
	return t;
}

void
dispatch_skip(struct dispatch *d, struct dispatch_task *t)
{
	if (t->state != DISPATCH_WAITING)
		return;
	t->state = DISPATCH_DONE;
	d->stages[t->stage].left--;
	if (d->stages[t->stage].round_left != NULL)
		d->stages[t->stage].round_left[t->round]--;
}

/* Per stage its rounds' counts, and per host its tasks in order. */
static int
index_tasks(struct dispatch *d)
{
	size_t h, i, s, *src_fill, *dst_fill;

	for (s = 0; s < d->n_stages; s++) {
		struct stage_state *st = &d->stages[s];

		if ((st->round_left = calloc(st->n_rounds + 1,
		    sizeof(size_t))) == NULL || (st->round_total =
		    calloc(st->n_rounds + 1, sizeof(size_t))) == NULL)
			return NP_ERR_NOMEM;
	}
	for (i = 0; i < d->n_tasks; i++) {
		struct dispatch_task *t = &d->tasks[i];

		d->stages[t->stage].round_total[t->round]++;
		if (t->state == DISPATCH_WAITING)
			d->stages[t->stage].round_left[t->round]++;
	}
	if ((d->by_src = calloc(d->n_tasks + 1, sizeof(size_t))) == NULL ||
	    (d->by_dst = calloc(d->n_tasks + 1, sizeof(size_t))) == NULL ||
	    (d->src_off = calloc(d->n_hosts + 1, sizeof(size_t))) == NULL ||
	    (d->dst_off = calloc(d->n_hosts + 1, sizeof(size_t))) == NULL ||
	    (d->src_cur = calloc(d->n_hosts + 1, sizeof(size_t))) == NULL ||
	    (d->dst_cur = calloc(d->n_hosts + 1, sizeof(size_t))) == NULL)
		return NP_ERR_NOMEM;
	for (i = 0; i < d->n_tasks; i++) {
		d->src_off[d->tasks[i].src + 1]++;
		d->dst_off[d->tasks[i].dst + 1]++;
	}
	for (h = 0; h < d->n_hosts; h++) {
		d->src_off[h + 1] += d->src_off[h];
		d->dst_off[h + 1] += d->dst_off[h];
	}
	/* the cursors count as they fill, then start again at 0 */
	src_fill = d->src_cur;
	dst_fill = d->dst_cur;
	for (i = 0; i < d->n_tasks; i++) {
		struct dispatch_task *t = &d->tasks[i];

		t->src_pos = src_fill[t->src]++;
		t->dst_pos = dst_fill[t->dst]++;
		d->by_src[d->src_off[t->src] + t->src_pos] = i;
		d->by_dst[d->dst_off[t->dst] + t->dst_pos] = i;
	}
	memset(d->src_cur, 0, (d->n_hosts + 1) * sizeof(size_t));
	memset(d->dst_cur, 0, (d->n_hosts + 1) * sizeof(size_t));
	d->indexed = 1;
	return 0;
}

struct dispatch_task *
dispatch_host_task(const struct dispatch *d, size_t h, int as_target,
    size_t k)
{
	const size_t *off = as_target ? d->dst_off : d->src_off;
	const size_t *list = as_target ? d->by_dst : d->by_src;

	if (!d->indexed || h >= d->n_hosts)
		return NULL;
	return k < off[h + 1] - off[h] ? &d->tasks[list[off[h] + k]] : NULL;
}

struct dispatch_task *
dispatch_host_next_waiting(struct dispatch *d, size_t h, int as_target)
{
	size_t *cur;
	struct dispatch_task *t;

	if (!d->indexed || h >= d->n_hosts)
		return NULL;
	cur = as_target ? &d->dst_cur[h] : &d->src_cur[h];
	while ((t = dispatch_host_task(d, h, as_target, *cur)) != NULL &&
	    t->state != DISPATCH_WAITING)
		(*cur)++;
	return t;
}

/* Duplex: is t the next waiting task of its source and of its target? */
static int
duplex_turn(struct dispatch *d, struct dispatch_task *t)
{
	return dispatch_host_next_waiting(d, t->src, 0)->round == t->round &&
	    dispatch_host_next_waiting(d, t->dst, 1)->round == t->round;
}

static int
has_room(struct dispatch *d, struct dispatch_task *t)
{
	const struct dispatch_stage *how = &d->stages[t->stage].how;
	size_t s = t->src, r = t->dst;

	if (d->serial)
		return d->running == 0;
	switch (how->share) {
	case DISPATCH_EACH_WAY:
		return d->as_src[s] < how->limit && d->as_dst[r] < how->limit;
	case DISPATCH_BOTH_WAYS:
		return d->as_src[s] + d->as_dst[s] < how->limit &&
		    d->as_src[r] + d->as_dst[r] < how->limit;
	case DISPATCH_EXCLUSIVE:
		return d->as_src[s] + d->as_dst[s] == 0 &&
		    d->as_src[r] + d->as_dst[r] == 0;
	case DISPATCH_DUPLEX:
		return d->as_src[s] == 0 && d->as_dst[r] == 0 &&
		    duplex_turn(d, t);
	}
	return 0;
}

static void
run_task(struct dispatch *d, struct dispatch_task *t, int budgeted)
{
	t->state = DISPATCH_RUNNING;
	t->taken = !budgeted;
	d->running++;
	if (budgeted) {
		d->as_src[t->src]++;
		d->as_dst[t->dst]++;
	}
	if (d->observer.task_started != NULL)
		d->observer.task_started(d->observer.arg, t);
}

void
dispatch_take(struct dispatch *d, struct dispatch_task *t)
{
	if (t->state == DISPATCH_WAITING)
		run_task(d, t, 0);
}

/* A running task's room given back. */
static void
release(struct dispatch *d, struct dispatch_task *t)
{
	if (t->state != DISPATCH_RUNNING)
		return;
	d->running--;
	if (!t->taken) {
		d->as_src[t->src]--;
		d->as_dst[t->dst]--;
	}
	t->taken = 0;
}

void
dispatch_task_end(struct dispatch *d, struct dispatch_task *t)
{
	struct stage_state *st = &d->stages[t->stage];

	if (t->state == DISPATCH_DONE)
		return;
	release(d, t);
	t->state = DISPATCH_DONE;
	st->left--;
	if (st->round_left != NULL)
		st->round_left[t->round]--;
	if (d->observer.task_ended != NULL)
		d->observer.task_ended(d->observer.arg, t);
}

void
dispatch_task_requeue(struct dispatch *d, struct dispatch_task *t)
{
	size_t i = (size_t)(t - d->tasks);

	release(d, t);
	t->state = DISPATCH_WAITING;
	if (i < d->first_waiting)
		d->first_waiting = i;
	if (d->indexed) {
		if (t->src_pos < d->src_cur[t->src])
			d->src_cur[t->src] = t->src_pos;
		if (t->dst_pos < d->dst_cur[t->dst])
			d->dst_cur[t->dst] = t->dst_pos;
	}
}

void
dispatch_stop(struct dispatch *d)
{
	d->stopped = 1;
}

/* One pass over the current stage's waiting tasks. */
static void
pass(struct dispatch *d)
{
	size_t i;

	while (d->first_waiting < d->n_tasks &&
	    d->tasks[d->first_waiting].state != DISPATCH_WAITING)
		d->first_waiting++;
	for (i = d->first_waiting; i < d->n_tasks && !d->stopped; i++) {
		struct dispatch_task *t = &d->tasks[i];

		if (t->stage != d->stage)
			break;		/* a stage waits for the one before */
		if (t->state != DISPATCH_WAITING)
			continue;
		if (d->hooks.gone != NULL && d->hooks.gone(d, t)) {
			d->again = 1;	/* a duplex turn may have moved */
			continue;
		}
		if (d->hooks.take != NULL && d->hooks.take(d, t))
			continue;
		if (has_room(d, t)) {
			run_task(d, t, 1);
			d->hooks.start(d, t);
		}
		if (d->serial && d->running > 0)
			break;
	}
}

/* The stages that have ended are left behind; 0 if one waits. */
static int
next_stage(struct dispatch *d)
{
	while (d->stage < d->n_stages) {
		struct stage_state *st = &d->stages[d->stage];

		if (!st->began) {
			st->began = 1;
			if (d->hooks.stage_began != NULL)
				d->hooks.stage_began(d, d->stage);
		}
		if (st->left > 0 || d->running > 0)
			return 1;
		if (d->hooks.stage_ended != NULL &&
		    !d->hooks.stage_ended(d, d->stage))
			return 0;
		d->stage++;
	}
	return 1;
}

void
dispatch_run(struct dispatch *d)
{
	if (d->ended)
		return;
	if (d->passing) {
		d->again = 1;	/* called from a hook: the pass goes round */
		return;
	}
	if (!d->indexed && index_tasks(d) != 0) {
		d->stopped = 1;	/* out of memory: nothing can start */
		d->n_tasks = 0;
	}
	d->passing = 1;
	do {
		d->again = 0;
		if (!d->stopped && !next_stage(d))
			break;	/* the client ends the stage first */
		if (!d->stopped && d->stage < d->n_stages)
			pass(d);
	} while (d->again && !d->ended);
	d->passing = 0;
	if (d->running == 0 && (d->stopped || d->stage >= d->n_stages) &&
	    !d->ended) {
		d->ended = 1;
		if (d->hooks.ended != NULL)
			d->hooks.ended(d);
	}
}

struct dispatch_task *
dispatch_task_at(const struct dispatch *d, size_t i)
{
	return i < d->n_tasks ? &d->tasks[i] : NULL;
}

size_t
dispatch_n_tasks(const struct dispatch *d)
{
	return d->n_tasks;
}

size_t
dispatch_running(const struct dispatch *d)
{
	return d->running;
}

size_t
dispatch_left(const struct dispatch *d, size_t stage)
{
	return stage < d->n_stages ? d->stages[stage].left : 0;
}

size_t
dispatch_round_left(const struct dispatch *d, size_t stage, size_t round)
{
	const struct stage_state *st;

	if (stage >= d->n_stages)
		return 0;
	st = &d->stages[stage];
	return st->round_left != NULL && round < st->n_rounds ?
	    st->round_left[round] : 0;
}

size_t
dispatch_stage(const struct dispatch *d)
{
	return d->stage;
}

void *
dispatch_arg(const struct dispatch *d)
{
	return d->hooks.arg;
}
