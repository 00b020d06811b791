/*
 * SSH sessions as spans (trace_session.h): per machine the session's span
 * and its current step's, moved along as the ssh transport reports each
 * step (connect, then key exchange, then authentication); a session that
 * opens again later (after a loss, or in a later sweep) gets new spans.
 */
#include <stdlib.h>

#include "error.h"
#include "inventory.h"
#include "trace.h"
#include "trace_session.h"

struct session_spans {
	struct trace_span *session;
	struct trace_span *step;
};

struct trace_sessions {
	struct trace *tr;
	struct session_spans *hosts;
	size_t n;
};

static const char *const step_names[] = {
	[ENGINE_SESSION_CONNECT] = "ssh connect",
	[ENGINE_SESSION_KEX] = "ssh kex",
	[ENGINE_SESSION_AUTH] = "ssh auth",
};

struct trace_sessions *
trace_sessions_new(struct trace *tr, size_t n)
{
	struct trace_sessions *ts;

	if (tr == NULL || (ts = calloc(1, sizeof *ts)) == NULL)
		return NULL;
	if ((ts->hosts = calloc(n + 1, sizeof *ts->hosts)) == NULL) {
		free(ts);
		return NULL;
	}
	ts->tr = tr;
	ts->n = n;
	return ts;
}

void
trace_sessions_step(const struct machine *m, enum engine_session_step step,
    int error, const char *text, void *arg)
{
	struct trace_sessions *ts = arg;
	struct session_spans *h;

	if (ts == NULL || m->index >= ts->n)
		return;
	h = &ts->hosts[m->index];
	if (step == ENGINE_SESSION_FAILED) {
		trace_span_error(h->step, text);
		trace_span_error(h->session, text);
		trace_span_str(h->session, "netprof.error_code",
		    error_string(error));
	}
	trace_span_end(&h->step);
	if (step == ENGINE_SESSION_CONNECT) {
		trace_span_end(&h->session);	/* never told its end */
		h->session = trace_span_start(ts->tr, trace_root(ts->tr),
		    "ssh session");
		trace_span_str(h->session, "netprof.host", m->name);
		trace_span_str(h->session, "server.address", m->ssh_host);
		if (m->port > 0)
			trace_span_int(h->session, "server.port", m->port);
	}
	if (step == ENGINE_SESSION_READY || step == ENGINE_SESSION_FAILED) {
		trace_span_end(&h->session);
		return;
	}
	if (h->session == NULL)
		return;
	h->step = trace_span_start(ts->tr, h->session, step_names[step]);
	trace_span_str(h->step, "netprof.host", m->name);
}

void
trace_sessions_end(struct trace_sessions *ts)
{
	size_t i;

	for (i = 0; ts != NULL && i < ts->n; i++) {
		trace_span_end(&ts->hosts[i].step);
		trace_span_end(&ts->hosts[i].session);
	}
}

void
trace_sessions_free(struct trace_sessions *ts)
{
	if (ts == NULL)
		return;
	free(ts->hosts);
	free(ts);
}
