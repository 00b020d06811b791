/*
 * The opening of each host's SSH session as spans: "ssh session" and, in
 * it, "ssh connect", "ssh kex" and "ssh auth", each with its own start and
 * end, the failing one (and the session) with the error as status. They
 * hang from the tracer's root (the run's span, or the sweep's). The
 * runner hands trace_sessions_step to the engine as its session observer
 * (engine_options.on_session).
 */
#ifndef NETPROF_TRACE_SESSION_H
#define NETPROF_TRACE_SESSION_H

#include <stddef.h>

#include "engine.h"

struct trace;
struct trace_sessions;

/* For the n machines of an inventory; NULL when tr is NULL or no memory
   (no session spans then). */
struct trace_sessions *trace_sessions_new(struct trace *tr, size_t n);

/* The engine's observer (engine_session_cb); arg is the trace_sessions. */
void trace_sessions_step(const struct machine *m,
    enum engine_session_step step, int error, const char *text, void *arg);

/* End what is open (before the tracer closes); then free. */
void trace_sessions_end(struct trace_sessions *ts);
void trace_sessions_free(struct trace_sessions *ts);

#endif
