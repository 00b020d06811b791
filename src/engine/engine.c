/*
 * The dispatch engine: jobs (one shell command on one machine) from
 * engine_submit() to on_done. It owns what every transport shares: the
 * job's buffers and result, its timeout timer, and the delivery of results
 * on a later loop turn from one idle handle (the "pump"), so that no
 * callback ever runs inside the call that caused it. The transports do the
 * work on the hosts; the engine reaches them only through their
 * struct transport_ops (transport.h), one per transport kind, and knows
 * nothing of how they work. It also bounds the hosts in flight
 * (engine_hosts.c). Jobs of a batch (engine_request.batch) wait for the
 * end of the loop turn that submitted them and are handed to their
 * transport together (batches_flush()).
 */
#include <stdarg.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "command_line.h"
#include "engine.h"
#include "engine_state.h"
#include "error.h"
#include "log.h"
#include "timeutil.h"
#include "transport.h"
#include "util.h"

/* by enum transport_kind */
static const struct transport_ops *const kind_ops[ENGINE_N_KINDS] = {
	[TRANSPORT_SSH] = &transport_ssh_ops,
	[TRANSPORT_COMMAND] = &transport_spawn_ops,
	[TRANSPORT_LOCAL] = &transport_spawn_ops,
	[TRANSPORT_SLURM] = &transport_spawn_ops,
};

static void pump_cb(uv_idle_t *idle);
static void engine_maybe_closed(struct engine *e);
static int tunnels_deliver(struct engine *e);
static int tunnels_finished(const struct engine *e);
static void job_hand_over(struct engine_job *j, void *state);
static void host_release_cb(struct engine *e, const struct machine *m);
static void host_admitted_cb(struct engine *e, struct engine_host *h);

/* The state of m's transport, made on first use (one per ops table). */
static int
kind_state(struct engine *e, enum transport_kind kind, void **state)
{
	int k, r;

	*state = NULL;
	if ((int)kind < 0 || kind >= ENGINE_N_KINDS)
		return NP_ERR_USAGE;
	for (k = 0; k < ENGINE_N_KINDS; k++)
		if (kind_ops[k] == kind_ops[kind])
			break;
	if (e->state[k] == NULL &&
	    (r = kind_ops[k]->new(e, &e->state[k])) != 0)
		return r;
	*state = e->state[k];
	return 0;
}

uv_loop_t *
engine_loop(const struct engine *e)
{
	return e->loop;
}

const struct inventory *
engine_inventory(const struct engine *e)
{
	return e->inv;
}

const struct engine_options *
engine_options(const struct engine *e)
{
	return &e->opts;
}

int
engine_closing(const struct engine *e)
{
	return e->closing;
}

void
engine_session_step(struct engine *e, const struct machine *m,
    enum engine_session_step step, int error, const char *text)
{
	if (e->opts.on_session != NULL)
		e->opts.on_session(m, step, error, text, e->opts.session_arg);
}

void
engine_handle_opened(struct engine *e)
{
	e->handles_open++;
}

void
engine_handle_closed(struct engine *e)
{
	e->handles_open--;
	engine_maybe_closed(e);
}

int
engine_new(uv_loop_t *loop, const struct inventory *inv,
    const struct engine_options *opts, struct engine **out)
{
	struct engine *e;
	size_t k;

	*out = NULL;
	if ((e = calloc(1, sizeof *e)) == NULL)
		return NP_ERR_NOMEM;
	if (inv->n_machines > 0 &&
	    ((e->hosts = calloc(inv->n_machines, sizeof *e->hosts)) == NULL ||
	    (e->batch = calloc(inv->n_machines, sizeof *e->batch)) == NULL ||
	    (e->batch_has = calloc(inv->n_machines, 1)) == NULL)) {
		free(e->hosts);
		free(e->batch);
		free(e);
		return NP_ERR_NOMEM;
	}
	for (k = 0; k < inv->n_machines; k++) {
		e->hosts[k].machine = &inv->machines[k];
		TAILQ_INIT(&e->hosts[k].held);
	}
	TAILQ_INIT(&e->waiting);
	TAILQ_INIT(&e->idle);
	TAILQ_INIT(&e->batching);
	e->loop = loop;
	e->inv = inv;
	e->host_release = host_release_cb;
	e->host_admitted = host_admitted_cb;
	if (opts != NULL)
		e->opts = *opts;
	if (e->opts.max_channels <= 0)
		e->opts.max_channels = ENGINE_DEFAULT_MAX_CHANNELS;
	if (e->opts.connect_timeout_s <= 0)
		e->opts.connect_timeout_s = inv->connect_timeout_seconds > 0 ?
		    inv->connect_timeout_seconds : 10;
	TAILQ_INIT(&e->jobs);
	TAILQ_INIT(&e->done);
	TAILQ_INIT(&e->tunnels);
	uv_idle_init(loop, &e->pump);
	e->pump.data = e;
	e->handles_open = 1;
	*out = e;
	return 0;
}

void
engine_schedule(struct engine *e)
{
	if (e->pump_active || e->closed_called)
		return;
	uv_idle_start(&e->pump, pump_cb);
	e->pump_active = 1;
}

static void
job_free(struct engine_job *j)
{
	struct engine *e = j->engine;

	TAILQ_REMOVE(&e->jobs, j, all_entry);
	free(j->command);
	free(j->input);
	free(j->out.data);
	free(j->err.data);
	free(j->error_text);
	free(j);
	engine_maybe_closed(e);
}

static void
job_timer_closed_cb(uv_handle_t *h)
{
	job_free(h->data);
}

void
engine_job_ref(struct engine_job *j)
{
	j->refs++;
}

void
engine_job_unref(struct engine_job *j)
{
	if (--j->refs > 0)
		return;
	uv_close((uv_handle_t *)&j->timer, job_timer_closed_cb);
}

int
engine_submit(struct engine *e, const struct machine *m,
    const struct engine_request *req, struct engine_job **jobp)
{
	struct engine_job *j;
	void *state;
	int r;

	if (jobp != NULL)
		*jobp = NULL;
	if (req == NULL || req->command == NULL || req->on_done == NULL ||
	    m == NULL || m->index >= e->inv->n_machines)
		return NP_ERR_USAGE;
	if (e->closing)
		return NP_ERR_CANCELLED;
	if ((r = kind_state(e, m->transport, &state)) != 0)
		return r;
	if ((j = calloc(1, sizeof *j)) == NULL)
		return NP_ERR_NOMEM;
	j->engine = e;
	j->machine = m;
	j->ops = kind_ops[m->transport];
	j->exit_status = -1;
	j->timeout_s = req->timeout_s;
	j->max_out = req->max_output > 0 && req->max_output <
	    ENGINE_OUTPUT_MAX ? req->max_output : ENGINE_OUTPUT_MAX;
	j->on_output = req->on_output;
	j->on_done = req->on_done;
	j->arg = req->arg;
	if (!e->opts.no_batch && (req->input == NULL || req->input_len == 0))
		j->batch = req->batch;
	j->queued_at = time_wall();
	if ((j->command = command_line_on_host_marked(m, req->command,
	    &j->setup_noise)) == NULL)
		goto nomem;
	if (req->input != NULL) {
		if ((j->input = malloc(req->input_len + 1)) == NULL)
			goto nomem;
		memcpy(j->input, req->input, req->input_len);
		j->input_len = req->input_len;
	}
	uv_timer_init(e->loop, &j->timer);
	j->timer.data = j;
	j->refs = 1;		/* dropped once on_done has been called */
	TAILQ_INSERT_TAIL(&e->jobs, j, all_entry);
	e->pending++;
	e->hosts[m->index].users++;
	if (engine_hosts_take(e, &e->hosts[m->index], 0))
		job_hand_over(j, state);
	else
		engine_hosts_hold(e, j);
	if (jobp != NULL)
		*jobp = j;
	return 0;
nomem:
	free(j->command);
	free(j->input);
	free(j);
	return NP_ERR_NOMEM;
}

/*
 * The transport takes j (its host has a slot); a batch's job at the end
 * of the turn, with the others of its batch.
 */
static void
job_hand_over(struct engine_job *j, void *state)
{
	int r;

	j->held = 0;
	if (j->batch != NULL && j->ops->submit_batch != NULL) {
		j->batching = 1;
		j->state = JOB_QUEUED;
		TAILQ_INSERT_TAIL(&j->engine->batching, j, entry);
		engine_schedule(j->engine);
		return;
	}
	r = j->ops->submit(state, j);
	if (r != 0 && j->state != JOB_DONE)
		engine_job_finish(j, r, -1, "%s: %s", j->machine->name,
		    error_string(r));
}

/* engine_hosts.c gives m's slot away: its transport closes what m holds. */
static void
host_release_cb(struct engine *e, const struct machine *m)
{
	const struct transport_ops *ops = kind_ops[m->transport];
	void *state;

	if (ops->release != NULL && kind_state(e, m->transport, &state) == 0)
		ops->release(state, m);
}

/* h took a slot (engine_hosts.c): its held jobs go to their transport. */
static void
host_admitted_cb(struct engine *e, struct engine_host *h)
{
	struct engine_job *j;
	void *state;

	if (kind_state(e, h->machine->transport, &state) != 0)
		state = NULL;
	while ((j = TAILQ_FIRST(&h->held)) != NULL) {
		TAILQ_REMOVE(&h->held, j, entry);
		if (state != NULL)
			job_hand_over(j, state);
		else {
			j->held = 0;
			engine_job_finish(j, NP_ERR_NOMEM, -1, "%s: %s",
			    h->machine->name, error_string(NP_ERR_NOMEM));
		}
	}
}

static void
job_timer_cb(uv_timer_t *t)
{
	struct engine_job *j = t->data;

	j->ops->timer(j);
}

void
engine_job_timer(struct engine_job *j, uint64_t ms)
{
	uv_timer_start(&j->timer, job_timer_cb, ms, 0);
}

void
engine_job_started(struct engine_job *j)
{
	j->started_at = time_wall();
	if (j->timeout_s > 0)
		engine_job_timer(j, (uint64_t)(j->timeout_s * 1000 + 0.5));
}

/*
 * stdout before the command's: what remote_setup printed, up to and with
 * the marker line, is kept until the marker comes and then dropped (with
 * no marker, the setup failed, and what it printed is the output); what
 * follows it goes on as the output. 1 while the marker is awaited.
 */
static int
setup_output(struct engine_job *j, const char *buf, size_t len)
{
	const char *mark = command_line_setup_marker(), *p, *end;
	size_t mlen = strlen(mark), from = j->marker_scan, rest;

	if (j->out.len + len > j->max_out) {
		j->output_lost = 2;	/* as below: a cap is a cap */
		j->cap_passed = j->max_out;
		if (j->stop_error == 0 && j->state != JOB_KILLING) {
			j->stop_error = NP_ERR_PROTOCOL;
			engine_job_timer(j, 0);
		}
		return 1;
	}
	if (buf_append(&j->out, buf, len) != 0) {
		j->output_lost = 1;
		return 1;
	}
	end = j->out.data + j->out.len;
	/* the marker on a line of its own: at the start or after a newline */
	for (p = j->out.data + from; p + mlen < end; p++) {
		if ((p != j->out.data && p[-1] != '\n') ||
		    memcmp(p, mark, mlen) != 0 || p[mlen] != '\n')
			continue;
		p += mlen + 1;
		rest = (size_t)(end - p);
		memmove(j->out.data, p, rest);
		j->out.len = rest;
		/* a C string, as buf_append leaves it: the parsers read it
		   so, and past rest lie the marker's own bytes */
		j->out.data[rest] = '\0';
		j->setup_noise = 0;
		if (rest > 0 && j->on_output != NULL)
			j->on_output(j->machine, 1, j->out.data, rest, j->arg);
		return 0;
	}
	/* next time from where a marker could still begin */
	j->marker_scan = (size_t)(p - j->out.data);
	return 1;
}

void
engine_job_output(struct engine_job *j, int stream, const char *buf,
    size_t len)
{
	if (len == 0 || j->state == JOB_DONE)
		return;
	if (stream == 1 && j->setup_noise && !j->output_lost) {
		(void)setup_output(j, buf, len);
		return;
	}
	if (j->on_output != NULL)
		j->on_output(j->machine, stream, buf, len, j->arg);
	/*
	 * A cut output must not be parsed as whole: the job fails at its end.
	 * Bounded, counted as it arrives: past its cap (ENGINE_OUTPUT_MAX
	 * per stream, or the request's max_output) the command is stopped,
	 * on a later turn through the job's timer (not inside the
	 * transport's read), so a remote command that prints without end
	 * costs this machine no more than its cap.
	 */
	if (j->output_lost)
		return;
	if ((stream == 2 ? j->err.len : j->out.len) + len > (stream == 2 ?
	    ENGINE_OUTPUT_MAX : j->max_out)) {
		j->output_lost = 2;
		j->cap_passed = stream == 2 ? ENGINE_OUTPUT_MAX : j->max_out;
		if (j->stop_error == 0 && j->state != JOB_KILLING) {
			j->stop_error = NP_ERR_PROTOCOL;
			engine_job_timer(j, 0);
		}
	} else if (buf_append(stream == 2 ? &j->err : &j->out, buf, len) != 0)
		j->output_lost = 1;
}

void
engine_job_finish(struct engine_job *j, int error, int exit_status,
    const char *fmt, ...)
{
	struct engine *e = j->engine;
	va_list ap;

	if (j->state == JOB_DONE)
		return;
	j->state = JOB_DONE;
	if (j->output_lost == 2 && (error == 0 || error == NP_ERR_PROTOCOL)) {
		error = NP_ERR_PROTOCOL;
		j->error_text = str_printf("%s: the command printed more than "
		    "%zu bytes, its cap; it was stopped and its output not "
		    "kept", j->machine->name, j->cap_passed);
		fmt = NULL;
	} else if (j->output_lost && error == 0) {
		error = NP_ERR_NOMEM;
		j->error_text = str_printf("%s: the command's output could not "
		    "all be kept: %s", j->machine->name,
		    error_string(NP_ERR_NOMEM));
		fmt = NULL;
	}
	j->error = error;
	j->exit_status = exit_status;
	j->ended_at = time_wall();
	if (j->started_at == 0)
		j->started_at = j->ended_at;
	if (error != 0 && fmt != NULL) {
		va_start(ap, fmt);
		if (vasprintf(&j->error_text, fmt, ap) < 0)
			j->error_text = NULL;
		va_end(ap);
	}
	uv_timer_stop(&j->timer);
	TAILQ_INSERT_TAIL(&e->done, j, entry);
	engine_schedule(e);
}

static void
deliver(struct engine_job *j)
{
	struct engine_result res;

	memset(&res, 0, sizeof res);
	res.error = j->error;
	res.error_text = j->error != 0 ? (j->error_text != NULL ?
	    j->error_text : error_string(j->error)) : NULL;
	res.exit_status = j->exit_status;
	res.out = j->out.data != NULL ? j->out.data : "";
	res.out_len = j->out.len;
	res.err = j->err.data != NULL ? j->err.data : "";
	res.err_len = j->err.len;
	res.output_cut = j->output_lost == 2;
	res.queued_at = j->queued_at;
	res.started_at = j->started_at;
	res.ended_at = j->ended_at;
	if (j->error != 0)
		log_debug(j->machine->name, "job failed: %s", res.error_text);
	j->on_done(j->machine, &res, j->arg);
}

/*
 * The batches submitted since the last turn, each to its transport in one
 * call: the jobs of one transport and key, a machine once (a second job
 * of a machine goes with the next call).
 */
static void
batches_flush(struct engine *e)
{
	struct engine_job *first, *j, *next;
	void *state;
	size_t n, i;

	while ((first = TAILQ_FIRST(&e->batching)) != NULL) {
		n = 0;
		for (j = first; j != NULL; j = next) {
			next = TAILQ_NEXT(j, entry);
			if (j->ops != first->ops || j->batch != first->batch ||
			    e->batch_has[j->machine->index])
				continue;
			TAILQ_REMOVE(&e->batching, j, entry);
			j->batching = 0;
			e->batch_has[j->machine->index] = 1;
			e->batch[n++] = j;
		}
		for (i = 0; i < n; i++)
			e->batch_has[e->batch[i]->machine->index] = 0;
		if (kind_state(e, first->machine->transport, &state) != 0) {
			for (i = 0; i < n; i++)
				engine_job_finish(e->batch[i], NP_ERR_NOMEM, -1,
				    "%s: %s", e->batch[i]->machine->name,
				    error_string(NP_ERR_NOMEM));
			continue;
		}
		log_debug(NULL, "a batch of %zu command%s to the %s transport",
		    n, PLURAL(n), first->ops->name);
		first->ops->submit_batch(state, e->batch, n);
	}
}

static void
pump_cb(uv_idle_t *idle)
{
	struct engine *e = idle->data;
	struct engine_job *j;
	int busy, k;

	batches_flush(e);
	while ((j = TAILQ_FIRST(&e->done)) != NULL) {
		TAILQ_REMOVE(&e->done, j, entry);
		e->pending--;
		deliver(j);
		engine_hosts_unuse(e, j->machine);
		engine_job_unref(j);
	}
	busy = tunnels_deliver(e);
	for (k = 0; k < ENGINE_N_KINDS; k++)
		if (e->state[k] != NULL && kind_ops[k]->pump(e->state[k]))
			busy = 1;
	/* a transport's step just now may have ended a tunnel (its session
	   failed to connect): deliver it next turn, do not strand it */
	if (tunnels_finished(e))
		busy = 1;
	if (TAILQ_EMPTY(&e->done) && !busy) {
		uv_idle_stop(&e->pump);
		e->pump_active = 0;
	}
	engine_maybe_closed(e);
}

void
engine_cancel(struct engine_job *j)
{
	if (j == NULL || j->state == JOB_DONE || j->stop_error != 0)
		return;
	j->stop_error = NP_ERR_CANCELLED;
	if (j->batching) {
		TAILQ_REMOVE(&j->engine->batching, j, entry);
		j->batching = 0;
		engine_job_finish(j, NP_ERR_CANCELLED, -1, "%s: %s",
		    j->machine->name, error_string(NP_ERR_CANCELLED));
		return;
	}
	if (j->held) {
		engine_hosts_unhold(j->engine, j);
		engine_job_finish(j, NP_ERR_CANCELLED, -1, "%s: %s (it was "
		    "waiting for its turn)", j->machine->name,
		    error_string(NP_ERR_CANCELLED));
		return;
	}
	j->ops->stop(j);
}

size_t
engine_pending(const struct engine *e)
{
	return e->pending;
}

static void
pump_closed_cb(uv_handle_t *h)
{
	struct engine *e = h->data;

	e->handles_open--;
	if (e->closed_cb != NULL)
		e->closed_cb(e, e->closed_arg);
}

/* Once closing and nothing is left, close the pump and tell the caller. */
static void
engine_maybe_closed(struct engine *e)
{
	int k;

	if (!e->closing || e->closed_called || !TAILQ_EMPTY(&e->jobs) ||
	    !TAILQ_EMPTY(&e->tunnels) || e->handles_open > 1)
		return;
	for (k = 0; k < ENGINE_N_KINDS; k++)
		if (e->state[k] != NULL && !kind_ops[k]->closed(e->state[k]))
			return;
	e->closed_called = 1;
	log_debug(NULL, "engine closed");
	uv_idle_stop(&e->pump);
	e->pump_active = 0;
	uv_close((uv_handle_t *)&e->pump, pump_closed_cb);
}

void
engine_close(struct engine *e, void (*closed_cb)(struct engine *, void *),
    void *arg)
{
	struct engine_job *j, *next;
	int k;

	if (e->closing)
		return;
	e->closing = 1;
	e->closed_cb = closed_cb;
	e->closed_arg = arg;
	for (j = TAILQ_FIRST(&e->jobs); j != NULL; j = next) {
		next = TAILQ_NEXT(j, all_entry);
		engine_cancel(j);
	}
	for (k = 0; k < ENGINE_N_KINDS; k++)
		if (e->state[k] != NULL)
			kind_ops[k]->close(e->state[k]);
	engine_schedule(e);
}

void
engine_free(struct engine *e)
{
	int k;

	if (e == NULL)
		return;
	if (e->handles_open > 0) {
		/*
		 * The loop still lists handles inside it: freeing would make
		 * uv_loop_close() read freed memory. A leak is the lesser harm.
		 */
		log_error("internal error: engine_free() of an engine that is "
		    "not closed (engine_close() and its callback first); "
		    "leaving it");
		return;
	}
	for (k = 0; k < ENGINE_N_KINDS; k++)
		if (e->state[k] != NULL)
			kind_ops[k]->free(e->state[k]);
	free(e->hosts);
	free(e->batch);
	free(e->batch_has);
	free(e);
}

/* ------------------------------------------------------------------ */

static void
tunnel_free(struct engine_tunnel *t)
{
	TAILQ_REMOVE(&t->engine->tunnels, t, entry);
	free(t->error_text);
	free(t);
}

/* 1 if a tunnel has ended and its on_closed is still to be called. */
static int
tunnels_finished(const struct engine *e)
{
	const struct engine_tunnel *t;

	TAILQ_FOREACH(t, &e->tunnels, entry)
		if (t->finished)
			return 1;
	return 0;
}

/* on_closed of every finished tunnel; 1 if some are still open. */
static int
tunnels_deliver(struct engine *e)
{
	struct engine_tunnel *t, *next;

	for (t = TAILQ_FIRST(&e->tunnels); t != NULL; t = next) {
		next = TAILQ_NEXT(t, entry);
		if (!t->finished)
			continue;
		t->on_closed(t->machine, t->error, t->error != 0 ?
		    (t->error_text != NULL ? t->error_text :
		    error_string(t->error)) : NULL, t->arg);
		engine_hosts_unuse(e, t->machine);
		tunnel_free(t);
	}
	return 0;
}

void
engine_tunnel_finish(struct engine_tunnel *t, int error, const char *fmt,
    ...)
{
	va_list ap;

	if (t->finished)
		return;
	t->finished = 1;
	t->error = error;
	if (error != 0 && fmt != NULL) {
		va_start(ap, fmt);
		if (vasprintf(&t->error_text, fmt, ap) < 0)
			t->error_text = NULL;
		va_end(ap);
	}
	if (error != 0)
		log_debug(t->machine->name, "tunnel closed: %s",
		    t->error_text != NULL ? t->error_text :
		    error_string(error));
	engine_schedule(t->engine);
}

/* A capability of the transports that have an ops->tunnel_open. */
int
engine_tunnel_open(struct engine *e, const struct machine *m,
    const char *host, int port, engine_tunnel_cb on_closed, void *arg,
    int *fd)
{
	struct engine_tunnel *t;
	void *state;
	int r;

	*fd = -1;
	if (m == NULL || host == NULL || on_closed == NULL || port <= 0 ||
	    port > 65535 || m->index >= e->inv->n_machines)
		return NP_ERR_USAGE;
	if ((int)m->transport < 0 || m->transport >= ENGINE_N_KINDS ||
	    kind_ops[m->transport]->tunnel_open == NULL)
		return NP_ERR_UNSUPPORTED;
	if (e->closing)
		return NP_ERR_CANCELLED;
	if ((r = kind_state(e, m->transport, &state)) != 0)
		return r;
	if ((t = calloc(1, sizeof *t)) == NULL)
		return NP_ERR_NOMEM;
	t->engine = e;
	t->machine = m;
	t->on_closed = on_closed;
	t->arg = arg;
	TAILQ_INSERT_TAIL(&e->tunnels, t, entry);
	e->hosts[m->index].users++;
	engine_hosts_take(e, &e->hosts[m->index], 1);
	if ((r = kind_ops[m->transport]->tunnel_open(state, t, host, port,
	    fd)) != 0) {
		engine_hosts_unuse(e, m);
		tunnel_free(t);
		*fd = -1;
		return r;
	}
	return 0;
}
