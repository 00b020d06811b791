/*
 * collect's run: every ordered pair of hosts measured by each kind of the
 * sweep (ping; with --iperf iperf3 too), run through the engine. A sweep
 * is the plan's stages (plan.c: a kind each, its rounds by the kind's
 * shape) on the pair dispatcher (dispatch.h), which starts a pair as soon
 * as its hosts have room (overlapping kinds: up to `width` probes sent and
 * answered per host; exclusive ones: both hosts idle; duplex: a client and
 * a server each; --serial: nothing else running), so one slow pair never
 * holds back a whole round, and a stage starts when the one before it has
 * ended, so two kinds never share a host. What a kind runs and how its
 * output is read is its row's (probe_kind.h); each probe's record is
 * written the moment it completes.
 *
 * Fan-out (PROBE_FANOUT kinds, the default for ping, collect_fanout.c): a
 * source host's pairs of a round run as one command on one channel.
 * Server kinds (iperf3, collect_server.c): the target's server first, kept
 * for the phase in duplex rounds. The state they share is in collect.h.
 *
 * cmd_collect.c parses the options and calls collect_run();
 * collect_report.c prints the summary.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "collect.h"
#include "collect_run.h"
#include "command_line.h"
#include "dispatch.h"
#include "engine.h"
#include "error.h"
#include "fanout.h"
#include "inventory.h"
#include "json_write.h"
#include "log.h"
#include "plan.h"
#include "probe.h"
#include "probe_kind.h"
#include "progress.h"
#include "records_read.h"
#include "runner.h"
#include "timeutil.h"
#include "util.h"

static void task_ended_cb(struct task *t);

/* A shell kind's command has ended: its kind reads what it printed. */
static void
probe_done_cb(const struct machine *m, const struct engine_result *res,
    void *arg)
{
	struct task *t = arg;
	struct probe_output o = { .out = res->out, .err = res->err,
	    .exit_status = res->exit_status, .kind = t->stage->kind,
	    .host = m->name, .who = "" };

	t->job = NULL;
	t->started_at = res->started_at > 0 ? res->started_at : res->queued_at;
	t->ended_at = res->ended_at;
	if (res->error == NP_ERR_CANCELLED) {
		collect_task_requeue(t);	/* not recorded: --resume redoes it */
		dispatch_run(t->c->d);
		return;
	}
	if (!collect_check_result(t, m, res, "")) {
		o.len = strlen(res->out);
		if (t->stage->kind->parse(&o, &t->rec) != 0)
			collect_task_fail(t, ERROR_CLASS_TOOL_FAILED, NULL);
	}
	task_ended_cb(t);
}

/* t's record filled around its outcome (the parser's): the pair, when, how. */
static void
task_record(struct collector *c, struct task *t)
{
	const struct machine *src = t->src, *dst = t->dst;
	struct record *rec = &t->rec;

	rec->kind = t->stage->kind->name;
	rec->source = src->name;
	rec->target = dst->name;
	rec->target_address = dst->address;
	rec->started_at = t->started_at;
	rec->ended_at = t->ended_at > 0 ? t->ended_at : t->started_at;
	rec->round = (int)t->round + 1;
	rec->sweep = c->sweep;
	rec->sample = (int)t->stage->sample;
	rec->mode = t->mode;
	rec->config_text = t->stage->config;
	rec->bytes = -1;
	rec->command = t->command;
	rec->server_command = NULL;
}

static void collector_stop(struct collector *c);

/* t ended for good: its record filled, counted, written and read by the
   run's observers, the progress told; a write that failed stops the run. */
static void
task_done(struct collector *c, struct task *t, struct host_state *h,
    size_t stage)
{
	const struct probe_kind *k = t->stage->kind;
	struct record *rec = &t->rec;
	char *line = NULL, *server_line = NULL;
	size_t left;

	task_record(c, t);
	if (rec->ok)
		t->value = probe_kind_value(k, rec);
	else if (rec->error == NULL)
		probe_outcome_fail(rec, ERROR_CLASS_TOOL_FAILED,
		    strdup("no result"));
	dispatch_task_end(c->d, t->dt);
	left = dispatch_round_left(c->d, stage, t->round);
	if (command_line_reproduce(c->inv, t->src, t->command,
	    &line) == 0)
		rec->command = line;
	if (t->server_command != NULL)
		rec->server_command = command_line_reproduce(c->inv,
		    t->dst, t->server_command, &server_line) == 0 ?
		    server_line : t->server_command;
	if (rec->ok && (k->flags & PROBE_NET_RTT))
		h->rtts[h->n_rtts++] = t->value;
	if (c->hooks.record_traced != NULL)
		c->hooks.record_traced(c, rec, left == 0);
	if (record_writer_write(c->writer, rec) != 0) {
		if (!c->write_failed && record_writer_error(c->writer))
			log_error("cannot write records to %s: %s; "
			    "stopping (the lines written are whole "
			    "records; --resume completes the run)",
			    c->output,
			    strerror(record_writer_error(c->writer)));
		else if (!c->write_failed)
			log_error("cannot write the record of %s->%s: "
			    "%s; stopping", t->src->name, t->dst->name,
			    error_string(NP_ERR_NOMEM));
		c->write_failed = 1;
	} else if (c->hooks.record_written != NULL)
		c->hooks.record_written(c, rec);
	if (rec->ok) {
		c->ok++;
		h->ok++;
	} else {
		c->failed++;
		h->failed++;
		log_debug(t->src->name, "%s ->%s failed (%s): %s",
		    k->name, t->dst->name, rec->error_class,
		    rec->error);
	}
	progress_probe(c->progress, rec->ok);
	if (left == 0)
		progress_round(c->progress, t->round + 1);
	if (c->write_failed && !c->interrupted)
		collector_stop(c);
	record_finish_free(rec);	/* written: a sweep keeps none */
	rec->command = rec->server_command = NULL;
	free(line);
	free(server_line);
}

/*
 * The task_ended hook: t through each layer once, from the top down: its
 * probe's (a PROBE_RETRY kind's timeout cleared to run once more, an ok
 * one's figure, a failure without a reason), the dispatcher's (run again,
 * or ended), the lines that reproduce it by hand (the server's too; the
 * remote command alone if the transport cannot say more), its record
 * written (round_done: the last of its round) and read by the run's
 * observers (--otlp's spans, --every's metrics), the progress; then the
 * dispatcher goes on. One cut short by Ctrl-C is left for --resume.
 */
static void
task_ended_cb(struct task *t)
{
	struct collector *c = t->c;
	const struct probe_kind *k = t->stage->kind;
	struct record *rec = &t->rec;
	int from_loop = t->dt->state == DISPATCH_RUNNING;
	int again = !c->interrupted && !rec->ok && t->cls ==
	    ERROR_CLASS_TIMEOUT && !t->retried && (k->flags & PROBE_RETRY);

	if (again || (c->interrupted && !rec->ok && rec->error == NULL)) {
		if (again) {
			log_debug(t->src->name, "%s ->%s runs again (%s)",
			    k->name, t->dst->name, rec->error);
			t->retried = 1;
			t->cls = ERROR_CLASS_NONE;
			record_outcome_clear(rec);
		}
		dispatch_task_requeue(c->d, t->dt);
	} else
		task_done(c, t, &c->hosts[t->source], t->dt->stage);
	if (!from_loop)
		return;		/* ended before it ran: the pass goes on */
	if (t->fan != NULL) {
		t->fan = NULL;	/* its fan-out ends on its own */
		return;
	}
	dispatch_run(c->d);
}

static struct task *
task_of(struct dispatch_task *dt)
{
	return dt->arg;
}

/* A host of the pair is known to be down: record it without running. */
static int
gone_cb(struct dispatch *d, struct dispatch_task *dt)
{
	struct task *t = task_of(dt);
	struct collector *c = t->c;
	const struct host_state *h = &c->hosts[t->source];

	/* a server kind needs its target to run the server */
	if (h->down == NULL && t->server_command != NULL)
		h = &c->hosts[t->target];
	if (h->down == NULL)
		return 0;
	t->started_at = t->ended_at = time_wall();
	collect_task_fail(t, h->down_class, strdup(h->down));
	task_ended_cb(t);
	return 1;
}

static int
take_cb(struct dispatch *d, struct dispatch_task *dt)
{
	struct task *t = task_of(dt);

	return collect_fanout_take(t->c, t);
}

static void
start_cb(struct dispatch *d, struct dispatch_task *dt)
{
	struct task *t = task_of(dt);

	t->started_at = time_wall();
	if (t->server_command != NULL)
		collect_server_start(t);
	else if (collect_task_submit(t, NULL, probe_done_cb) != 0)
		task_ended_cb(t);
}

/* A stage's server, bounded for its rounds, as its tasks' commands say. */
static void
stage_settings(struct collector *c, const struct plan_stage *st)
{
	if (st->kind->server_command == NULL)
		return;
	c->ps.server_keep = st->share.share == DISPATCH_DUPLEX;
	c->ps.server_bound = st->kind->server_bound(&c->ps, c->connect_timeout,
	    st->sched->n_rounds);
}

static void
stage_began_cb(struct dispatch *d, size_t s)
{
	struct collector *c = dispatch_arg(d);
	const struct plan_stage *st = &c->stages[s];
	size_t k;

	stage_settings(c, st);	/* its servers run with its bound */
	collect_trace_stage_begin(c, s);
	progress_phase(c->progress, st->kind->name, st->sched->n_rounds,
	    dispatch_left(d, s));
	/* fan-out rounds are real only when a source has several */
	progress_schedule(c->progress, st->kind->duration(&c->ps),
	    st->kind->shape == PROBE_EXCLUSIVE || c->serial || (st->fanout &&
	    st->sched->n_rounds > 1));
	for (k = 0; k < st->sched->n_rounds; k++) {
		if (dispatch_round_left(d, s, k) == 0 &&
		    st->sched->rounds[k].n_pairs > 0)
			progress_round(c->progress, k + 1);
	}
}

/* A stage is over once its fan-outs have ended and its servers are gone. */
static int
stage_ended_cb(struct dispatch *d, size_t s)
{
	struct collector *c = dispatch_arg(d);

	if (c->fanouts_up > 0)
		return 0;	/* their done calls come back */
	if (c->servers_up > 0) {
		collect_servers_stop(c);
		return 0;
	}
	return 1;
}

static void
collector_close(struct collector *c)
{
	if (c->closing)
		return;
	c->closing = 1;
	progress_end(c->progress);
	collect_trace_sweep_end(c);
	runner_finish(c->runner);
}

static void jobs_changed_cb(struct collector *c);

static void
ended_cb(struct dispatch *d)
{
	struct collector *c = dispatch_arg(d);

	c->sweep_over = 1;
	jobs_changed_cb(c);
}

/* The jobs_changed hook: the sweep may be over now. */
static void
jobs_changed_cb(struct collector *c)
{
	if (c->closing)
		return;
	if (!c->sweep_over) {
		dispatch_run(c->d);
		return;
	}
	if (c->fanouts_up > 0 || c->servers_up > 0)
		return;		/* their done calls come back */
	collect_trace_sweep_end(c);
	if (!c->interrupted && !c->write_failed &&
	    collect_watch_sweep_end(c))
		return;		/* the next sweep is due on a timer */
	collector_close(c);
}

/* A signal, or an output that takes no more: kill what runs, start nothing. */
static void
collector_stop(struct collector *c)
{
	size_t i;

	if (c->interrupted)
		return;
	c->interrupted = 1;
	collect_servers_stop(c);
	for (i = 0; i < c->n_tasks; i++) {
		struct task *t = &c->tasks[i];

		if (t->dt->state == DISPATCH_RUNNING && t->job != NULL)
			engine_cancel(t->job);
	}
	for (i = 0; i < c->inv->n_machines; i++) {
		if (c->hosts[i].fanout != NULL &&
		    c->hosts[i].fanout->job != NULL)
			engine_cancel(c->hosts[i].fanout->job);
	}
	if (c->d != NULL)
		dispatch_stop(c->d);
	progress_end(c->progress);
	log_warn("the probes running are killed and not recorded (--resume "
	    "redoes them)");
}

/* The first signal: the probes running are killed, none is started. */
static void
interrupt_cb(struct runner *rn, void *arg)
{
	struct collector *c = arg;

	collector_stop(c);
	jobs_changed_cb(c);
	dispatch_run(c->d);
}

/* Before the engine closes: the output's watcher, so the loop can end. */
static void
close_extra_cb(struct runner *rn, void *arg)
{
	struct collector *c = arg;

	record_writer_detach(c->writer);
	collect_watch_close(c);	/* then runner_extra_closed() */
}

static void
sweep_free(struct collector *c)
{
	size_t i;

	for (i = 0; i < c->n_tasks; i++) {
		free(c->tasks[i].command);
		free(c->tasks[i].server_command);
		record_outcome_clear(&c->tasks[i].rec);
	}
	free(c->tasks);
	c->tasks = NULL;
	c->n_tasks = 0;
	dispatch_free(c->d);
	c->d = NULL;
	plan_stages_free(c->stages, c->n_stages);
	c->stages = NULL;
	c->n_stages = 0;
	c->sweep_over = 0;
}

/* A stage's records' config: its kind's own settings, if any differ. */
static int
stage_config(struct collector *c, struct plan_stage *st)
{
	const struct probe_kind *k = st->kind;
	cJSON *config;
	int r;

	if (k->config == NULL)
		return 0;
	if ((config = cJSON_CreateObject()) == NULL)
		return NP_ERR_NOMEM;
	/* printed once, as its records' lines hold it; none when all are
	   the defaults */
	if ((r = k->config(&c->ps, config)) == 0 && config->child != NULL) {
		json_sort_keys(config);
		if ((st->config = json_print(config, 0)) == NULL)
			r = NP_ERR_NOMEM;
	}
	cJSON_Delete(config);
	return r;
}

/* The sweep's stages, their tasks in the dispatcher, each in order. */
static int
build_sweep(struct collector *c)
{
	static const struct dispatch_hooks hooks = {
		.gone = gone_cb, .take = take_cb, .start = start_cb,
		.stage_began = stage_began_cb, .stage_ended = stage_ended_cb,
		.ended = ended_cb,
	};
	struct dispatch_hooks h = hooks;
	struct dispatch_stage *shares = NULL;
	size_t s, k, p, n = 0, i = 0;
	long sweep = c->sweep;
	int r;

	/* a sample's rotation counts sweeps from 0 */
	if ((r = plan_stages(c->inv, c->plan, sweep > 0 ? sweep - 1 : 0,
	    &c->stages, &c->n_stages)) != 0)
		return r;
	for (s = 0; s < c->n_stages; s++) {
		n += schedule_n_pairs(c->stages[s].sched);
		if ((r = stage_config(c, &c->stages[s])) != 0)
			return r;
	}
	if ((shares = calloc(c->n_stages + 1, sizeof *shares)) == NULL ||
	    (c->tasks = calloc(n + 1, sizeof *c->tasks)) == NULL) {
		free(shares);
		return NP_ERR_NOMEM;
	}
	for (s = 0; s < c->n_stages; s++)
		shares[s] = c->stages[s].share;
	h.arg = c;
	r = dispatch_new(c->inv->n_machines, n, shares, c->n_stages, &h,
	    &c->d);
	free(shares);
	if (r != 0)
		return r;
	dispatch_set_serial(c->d, c->serial);
	c->n_tasks = n;
	for (s = 0; s < c->n_stages; s++) {
		const struct plan_stage *st = &c->stages[s];
		const struct probe_kind *kind = st->kind;

		stage_settings(c, st);
		for (k = 0; k < st->sched->n_rounds; k++) {
			for (p = 0; p < st->sched->rounds[k].n_pairs; p++) {
				struct task *t = &c->tasks[i++];
				const struct pair *pr =
				    &st->sched->rounds[k].pairs[p];

				t->c = c;
				t->stage = st;
				t->source = pr->source;
				t->target = pr->target;
				t->round = k;
				t->mode = st->mode;
				t->src = &c->inv->machines[t->source];
				t->dst = &c->inv->machines[t->target];
				if ((t->command = kind->command(&c->ps,
				    t->dst->address)) == NULL)
					return NP_ERR_NOMEM;
				if (kind->server_command != NULL &&
				    (t->server_command = kind->server_command(
				    &c->ps)) == NULL)
					return NP_ERR_NOMEM;
				t->dt = dispatch_add(c->d, t->source,
				    t->target, s, k, t);
				if (record_done_has(c->done,
				    t->src->name, t->dst->name,
				    kind->name))
					dispatch_skip(c->d, t->dt);
			}
		}
	}
	return 0;
}

/*
 * The sweep_build hook (--every): the stages built again (so a week of
 * sweeps holds one sweep's tasks), the hosts' per-sweep state cleared, a
 * host that was down tried again.
 */
static int
sweep_build_cb(struct collector *c)
{
	size_t i;

	sweep_free(c);
	for (i = 0; i < c->inv->n_machines; i++) {
		struct host_state *h = &c->hosts[i];

		free(h->down);
		h->down = NULL;
		h->n_rtts = 0;
		memset(&h->srv, 0, sizeof h->srv);
		h->srv.c = c;
		h->srv.host = i;
		h->srv.m = h->m;
	}
	return build_sweep(c);
}

/* The sweep_start hook: its trace, and its first pairs. */
static void
sweep_start_cb(struct collector *c)
{
	collect_trace_sweep_begin(c);
	dispatch_run(c->d);
}

int
collect_run(const struct collect_options *o, struct inventory *inv)
{
	struct collector c;
	struct runner_hooks hooks = { .interrupt = interrupt_cb,
	    .close_extra = close_extra_cb };
	char *cause = NULL;
	size_t i;
	int r, status = NP_EXIT_FAILED;

	memset(&c, 0, sizeof c);
	c.hooks.task_ended = task_ended_cb;
	c.hooks.jobs_changed = jobs_changed_cb;
	c.hooks.sweep_build = sweep_build_cb;
	c.hooks.sweep_start = sweep_start_cb;
	c.inv = inv;
	c.output = strcmp(o->output, "-") == 0 ? "standard output" : o->output;
	probe_settings_init(&c.ps, &o->probes, inv);
	c.connect_timeout = inv->connect_timeout_seconds;
	c.serial = o->plan.serial;
	c.fanout = plan_fanout(&o->plan);
	c.tool = (enum fanout_tool)o->plan.ping_tool;
	c.plan = &o->plan;

	if (o->dry_run) {
		if ((r = plan_write(stdout, inv, &c.ps, &o->plan)) != 0) {
			log_error("collect: %s", error_string(r));
			return NP_EXIT_FAILED;
		}
		return NP_EXIT_OK;
	}
	if (o->resume && (r = record_done_load(o->output, &c.done,
	    &cause)) != 0) {
		log_error("--resume: %s", cause != NULL ? cause :
		    error_string(r));
		free(cause);
		return NP_EXIT_USAGE;
	}
	if ((r = record_writer_open(o->output, o->resume, &c.writer,
	    &cause)) != 0) {
		log_error("--output %s", cause != NULL ? cause :
		    error_string(r));
		free(cause);
		record_done_free(c.done);
		return NP_EXIT_USAGE;
	}
	if ((c.hosts = calloc(inv->n_machines + 1, sizeof *c.hosts)) == NULL)
		goto nomem;
	for (i = 0; i < inv->n_machines; i++) {
		c.hosts[i].m = &inv->machines[i];
		c.hosts[i].srv.c = &c;
		c.hosts[i].srv.host = i;
		c.hosts[i].srv.m = c.hosts[i].m;
		if ((c.hosts[i].rtts = calloc(inv->n_machines + 1,
		    sizeof(double))) == NULL)
			goto nomem;
	}
	if (build_sweep(&c) != 0)
		goto nomem;
	if (record_done_count(c.done) > 0)
		log_info("resuming: %zu probes already recorded ok in %s",
		    record_done_count(c.done), o->output);

	hooks.arg = &c;
	if (runner_new(inv, &o->common, &hooks, &c.runner) != 0)
		goto out;
	c.loop = runner_loop(c.runner);
	c.engine = runner_engine(c.runner);
	if (record_writer_attach(c.writer, c.loop) != 0) {
		runner_free(c.runner);
		c.runner = NULL;
		goto nomem;
	}
	c.progress = progress_new(stderr, log_quiet());
	if (collect_watch_start(&c, &o->watch) != 0) {
		c.write_failed = 1;	/* stops at once, through the close */
		collector_stop(&c);
	} else
		collect_trace_sweep_begin(&c);
	dispatch_run(c.d);
	runner_run(c.runner);
	runner_free(c.runner);
	c.runner = NULL;
	progress_end(c.progress);
	if (!log_quiet())
		collect_report_summary(&c, stderr);
	if (c.write_failed)
		status = NP_EXIT_FAILED;
	else if (c.interrupted)
		status = NP_EXIT_INTERRUPTED;
	else if (c.failed > 0)
		status = NP_EXIT_FAILED;
	else
		status = NP_EXIT_OK;
	goto out;
nomem:
	log_error("collect: %s", error_string(NP_ERR_NOMEM));
out:
	/* after Ctrl-C the reader gets a few seconds, not forever */
	if (record_writer_close(c.writer, c.interrupted ? 3000 : -1) != 0) {
		log_error("%s: records could not all be written", c.output);
		if (status == NP_EXIT_OK)
			status = NP_EXIT_FAILED;
	}
	sweep_free(&c);
	for (i = 0; c.hosts != NULL && i < inv->n_machines; i++) {
		free(c.hosts[i].down);
		free(c.hosts[i].rtts);
	}
	free(c.hosts);
	record_done_free(c.done);
	progress_free(c.progress);
	collect_watch_free(&c);
	return status;
}
