/*
 * collect's ping fan-out: a source host's pairs of a round run as one
 * command on one channel (fanout.h), whose output is split per target as
 * it arrives, each pair recorded as its ping ends. A host whose shell
 * cannot run the fan-out script gets its pairs back one channel each.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collect.h"
#include "log.h"
#include "timeutil.h"
#include "util.h"

static void
fanout_run_free(struct fanout_run *run)
{
	if (run == NULL)
		return;
	fanout_split_free(run->split);
	free(run->tasks);
	free(run->addresses);
	free(run->command);
	free(run);
}

/* One target's part of the output is complete: record its pair. */
static void
fanout_pair_cb(struct fanout_outcome *o, void *arg)
{
	struct fanout_run *run = arg;
	struct task *t = run->tasks[o->index];
	char *cmd;

	if (t->dt->state != DISPATCH_RUNNING || t->fan != run)
		return;
	t->started_at = run->running_at > 0 ? run->running_at :
	    run->started_at;
	t->ended_at = time_wall();
	if ((cmd = fanout_target_command(&run->c->ps,
	    run->addresses[o->index], o->fping)) != NULL) {
		free(t->command);
		t->command = cmd;
	}
	record_take_metrics(&t->rec, &o->rec);
	if (o->rec.ok)
		t->rec.ok = 1;
	else {
		collect_task_fail(t, error_class_of_name(o->rec.error_class),
		    (char *)o->rec.error);
		o->rec.error = NULL;	/* taken */
	}
	t->c->hooks.task_ended(t);
}

static void
fanout_output_cb(const struct machine *m, int stream, const char *buf,
    size_t len, void *arg)
{
	struct fanout_run *run = arg;

	if (run->running_at == 0)	/* the script's first line: pings start */
		run->running_at = time_wall();
	if (stream == 1 && fanout_split_feed(run->split, buf, len) != 0)
		log_error("%s: out of memory reading the fan-out", m->name);
}

/* Pairs of the run not yet recorded go back to waiting (single: each on
   a channel of its own). */
static void
fanout_requeue(struct fanout_run *run, int single)
{
	size_t i;

	for (i = 0; i < run->n; i++) {
		struct task *t = run->tasks[i];

		if (t->dt->state != DISPATCH_RUNNING || t->fan != run)
			continue;
		collect_task_requeue(t);
		t->fan = NULL;
		t->single = single;
		if (single)
			t->mode = "channel";
	}
}

static void
fanout_done_cb(const struct machine *m, const struct engine_result *res,
    void *arg)
{
	struct fanout_run *run = arg;
	struct collector *c = run->c;
	struct host_state *h = &c->hosts[run->source];
	enum error_class cls;
	const char *text;

	run->job = NULL;
	c->fanouts_up--;
	if (res->error == NP_ERR_CANCELLED) {
		fanout_requeue(run, 0);		/* --resume redoes them */
	} else if (res->error != NP_OK) {
		text = res->error_text != NULL ? res->error_text :
		    error_string(res->error);
		cls = collect_host_failed(c, run->source, res, text);
		fanout_split_end(run->split, cls, text);
	} else if (!fanout_split_understood(run->split) &&
	    fanout_split_done(run->split) == 0) {
		log_info("%s: the fan-out ping script did not run there (exit "
		    "%d); one channel per probe instead", m->name,
		    res->exit_status);
		h->no_fanout = 1;
		fanout_requeue(run, 1);
	} else
		fanout_split_end(run->split, ERROR_CLASS_TOOL_FAILED, NULL);
	fanout_requeue(run, 0);		/* cut short by Ctrl-C */
	h->fanout = NULL;
	fanout_run_free(run);
	c->hooks.jobs_changed(c);
}

/* Start source's fan-out over its waiting pairs of t's round. */
static void
fanout_start(struct collector *c, struct task *first)
{
	size_t source = first->source, round = first->round;
	size_t stage = first->dt->stage;
	const struct machine *src = first->src;
	struct dispatch_task *dt = dispatch_host_next_waiting(c->d, source, 0);
	struct fanout_run *run;
	struct task *t;
	size_t i;
	int r = NP_ERR_NOMEM;

	if ((run = calloc(1, sizeof *run)) == NULL ||
	    (run->tasks = calloc(c->fanout + 1, sizeof *run->tasks)) == NULL ||
	    (run->addresses = calloc(c->fanout + 1, sizeof *run->addresses))
	    == NULL)
		goto fail;
	run->c = c;
	run->source = source;
	for (i = dt != NULL ? dt->src_pos : 0; (dt = dispatch_host_task(c->d,
	    source, 0, i)) != NULL && dt->stage == stage &&
	    dt->round <= round && run->n < c->fanout; i++) {
		t = dt->arg;
		if (dt->state == DISPATCH_WAITING && !t->single &&
		    dt->round == round) {
			run->tasks[run->n] = t;
			run->addresses[run->n++] = t->dst->address;
		}
	}
	if ((run->command = fanout_command(&c->ps, run->addresses, run->n,
	    c->tool)) == NULL || fanout_split_new(src->name, run->addresses,
	    run->n, fanout_pair_cb, run, &run->split) != 0)
		goto fail;
	run->started_at = time_wall();
	for (i = 0; i < run->n; i++) {
		dispatch_take(c->d, run->tasks[i]->dt);
		run->tasks[i]->fan = run;
	}
	c->hosts[source].fanout = run;
	c->fanouts_up++;
	log_debug(src->name, "ping fan-out to %zu targets", run->n);
	{
		struct engine_request req = {
			.command = run->command,
			.timeout_s = first->stage->kind->timeout(&c->ps,
			    c->connect_timeout),
			.on_output = fanout_output_cb,
			.on_done = fanout_done_cb,
			.arg = run,
			/* a round's sources at once: one step on Slurm */
			.batch = first->stage,
		};

		if ((r = engine_submit(c->engine, src, &req, &run->job)) == 0)
			return;
	}
	/* not a callback: the pairs fail on this turn */
	fanout_split_end(run->split, ERROR_CLASS_TOOL_FAILED,
	    error_string(r));
	c->hosts[source].fanout = NULL;
	c->fanouts_up--;
	fanout_run_free(run);
	return;
fail:
	log_error("%s: ping fan-out: %s", src->name, error_string(r));
	fanout_run_free(run);
	for (i = 0; (dt = dispatch_host_task(c->d, source, 0, i)) != NULL; i++)
		((struct task *)dt->arg)->single = 1;	/* the slow way */
}

/*
 * A pair of a fan-out kind goes with its source's fan-out: its fan-out is
 * started if none runs (1), unless the pair runs on its own (0).
 */
int
collect_fanout_take(struct collector *c, struct task *t)
{
	struct host_state *h = &c->hosts[t->source];

	if (!t->stage->fanout || t->single || h->no_fanout)
		return 0;
	if (h->fanout == NULL)
		fanout_start(c, t);
	return !t->single;
}
