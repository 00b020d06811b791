/*
 * The dispatch engine: jobs (one shell command on one machine) from
 * engine_submit() to on_done. It owns what every transport shares: the
 * job's buffers and result, its timeout timer, and the delivery of results
 * on a later loop turn from one idle handle (the "pump"), so that no
 * callback ever runs inside the call that caused it. The transports
 * (transport.h) do the work on the hosts.
 */
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "command_line.h"
#include "engine.h"
#include "error.h"
#include "log.h"
#include "timeutil.h"
#include "transport.h"

static void pump_cb(uv_idle_t *idle);

int
engine_new(uv_loop_t *loop, const struct inventory *inv,
    const struct engine_options *opts, struct engine **out)
{
	struct engine *e;

	*out = NULL;
	/* a command that exits without reading its stdin must not kill us */
	signal(SIGPIPE, SIG_IGN);
	if ((e = calloc(1, sizeof *e)) == NULL)
		return NP_ERR_NOMEM;
	e->loop = loop;
	e->inv = inv;
	if (opts != NULL)
		e->opts = *opts;
	if (e->opts.max_channels <= 0)
		e->opts.max_channels = ENGINE_DEFAULT_MAX_CHANNELS;
	if (e->opts.connect_timeout_s <= 0)
		e->opts.connect_timeout_s = inv->connect_timeout_seconds > 0 ?
		    inv->connect_timeout_seconds : 10;
	TAILQ_INIT(&e->jobs);
	TAILQ_INIT(&e->done);
	e->n_hosts = inv->n_machines;
	if (e->n_hosts > 0 &&
	    (e->hosts = calloc(e->n_hosts, sizeof *e->hosts)) == NULL) {
		free(e);
		return NP_ERR_NOMEM;
	}
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
	int r;

	if (jobp != NULL)
		*jobp = NULL;
	if (req == NULL || req->command == NULL || req->on_done == NULL ||
	    m == NULL || m->index >= e->n_hosts)
		return NP_ERR_USAGE;
	if (e->closing)
		return NP_ERR_CANCELLED;
	if ((j = calloc(1, sizeof *j)) == NULL)
		return NP_ERR_NOMEM;
	j->engine = e;
	j->machine = m;
	j->exit_status = -1;
	j->timeout_s = req->timeout_s;
	j->on_output = req->on_output;
	j->on_done = req->on_done;
	j->arg = req->arg;
	j->queued_at = time_wall();
	if ((j->command = command_line_on_host(m, req->command)) == NULL)
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
	if (m->transport == TRANSPORT_SSH)
		r = ssh_transport_submit(e, j);
	else
		r = spawn_transport_submit(e, j);
	if (r != 0 && j->state != JOB_DONE)
		engine_job_finish(j, r, -1, "%s: %s", m->name, error_string(r));
	if (jobp != NULL)
		*jobp = j;
	return 0;
nomem:
	free(j->command);
	free(j->input);
	free(j);
	return NP_ERR_NOMEM;
}

static void
job_timer_cb(uv_timer_t *t)
{
	struct engine_job *j = t->data;

	if (j->machine->transport == TRANSPORT_SSH)
		ssh_transport_timer(j);
	else
		spawn_transport_timer(j);
}

void
engine_job_timer(struct engine_job *j, uint64_t ms)
{
	uv_timer_start(&j->timer, job_timer_cb, ms, 0);
}

void
engine_job_timer_stop(struct engine_job *j)
{
	uv_timer_stop(&j->timer);
}

void
engine_job_started(struct engine_job *j)
{
	j->started_at = time_wall();
	if (j->timeout_s > 0)
		engine_job_timer(j, (uint64_t)(j->timeout_s * 1000 + 0.5));
}

static int
buf_append(struct out_buf *b, const char *data, size_t len)
{
	if (b->len + len + 1 > b->size) {
		size_t size = b->size > 0 ? b->size : 256;
		char *p;

		while (size < b->len + len + 1)
			size *= 2;
		if ((p = realloc(b->data, size)) == NULL)
			return NP_ERR_NOMEM;
		b->data = p;
		b->size = size;
	}
	memcpy(b->data + b->len, data, len);
	b->len += len;
	b->data[b->len] = '\0';
	return 0;
}

void
engine_job_output(struct engine_job *j, int stream, const char *buf,
    size_t len)
{
	if (len == 0 || j->state == JOB_DONE)
		return;
	if (j->on_output != NULL)
		j->on_output(j->machine, stream, buf, len, j->arg);
	buf_append(stream == 2 ? &j->err : &j->out, buf, len);
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
	j->error = error;
	j->exit_status = exit_status;
	j->ended_at = time_wall();
	if (j->started_at == 0)
		j->started_at = j->ended_at;
	if (error != 0 && fmt != NULL) {
		char text[2048];

		va_start(ap, fmt);
		vsnprintf(text, sizeof text, fmt, ap);
		va_end(ap);
		j->error_text = strdup(text);
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
	res.queued_at = j->queued_at;
	res.started_at = j->started_at;
	res.ended_at = j->ended_at;
	if (j->error != 0)
		log_debug(j->machine->name, "job failed: %s", res.error_text);
	j->on_done(j->machine, &res, j->arg);
}

static void
pump_cb(uv_idle_t *idle)
{
	struct engine *e = idle->data;
	struct engine_job *j;

	while ((j = TAILQ_FIRST(&e->done)) != NULL) {
		TAILQ_REMOVE(&e->done, j, entry);
		e->pending--;
		deliver(j);
		engine_job_unref(j);
	}
	ssh_transport_pump(e);
	if (TAILQ_EMPTY(&e->done) && !ssh_transport_busy(e)) {
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
	if (j->machine->transport == TRANSPORT_SSH)
		ssh_transport_stop(j);
	else
		spawn_transport_stop(j);
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

void
engine_handle_closed(struct engine *e)
{
	engine_maybe_closed(e);
}

/* Once closing and nothing is left, close the pump and tell the caller. */
void
engine_maybe_closed(struct engine *e)
{
	if (!e->closing || e->closed_called || !TAILQ_EMPTY(&e->jobs) ||
	    !ssh_transport_closed(e))
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

	if (e->closing)
		return;
	e->closing = 1;
	e->closed_cb = closed_cb;
	e->closed_arg = arg;
	for (j = TAILQ_FIRST(&e->jobs); j != NULL; j = next) {
		next = TAILQ_NEXT(j, all_entry);
		engine_cancel(j);
	}
	ssh_transport_close(e);
	engine_schedule(e);
}

void
engine_free(struct engine *e)
{
	if (e == NULL)
		return;
	ssh_transport_free(e);
	free(e->hosts);
	free(e);
}

/* Tunnels are a capability of the ssh transport, not yet built. */
int
engine_tunnel_open(struct engine *e, const struct machine *m,
    const char *host, int port, engine_tunnel_cb on_closed, void *arg,
    int *fd)
{
	*fd = -1;
	return NP_ERR_UNSUPPORTED;
}
