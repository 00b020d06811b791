/*
 * A run as a trace (OpenTelemetry's model): spans with a name, a start and
 * an end, attributes and a status, each a child of another span or the
 * root of a trace, exported as OTLP/HTTP (trace_export.c) while the run
 * goes on. One tracer per run (the runner's, runner_trace()); a command
 * starts the root span and its phases', hosts' and probes' spans.
 *
 * Everything accepts NULL: a NULL tracer starts no span (trace_span_start
 * returns NULL) and every call on a NULL span does nothing, so a run
 * without --otlp pays a NULL check per call site and nothing more.
 *
 * A span's memory is the tracer's: trace_span_end() encodes it for the
 * exporter, frees it and clears the caller's pointer. A child may outlive
 * its parent (it keeps the parent's ids, not a pointer). Spans still open
 * when the tracer closes are ended then, marked netprof.unfinished.
 *
 * A span's name is copied (keep names few: "phase init", not one per host
 * or pair, which go in attributes); so are attributes' keys and values.
 */
#ifndef NETPROF_TRACE_H
#define NETPROF_TRACE_H

#include <stddef.h>
#include <uv.h>

struct trace;
struct trace_span;
struct trace_config;

/* OTLP's span kinds (the numbers are the protocol's). */
enum trace_kind {
	TRACE_KIND_INTERNAL = 1,
	TRACE_KIND_CLIENT = 3	/* a call to another service (a node's API) */
};

/* "00-" 32 hex "-" 16 hex "-01" and a NUL */
#define TRACE_PARENT_SIZE 56

/*
 * A tracer on loop exporting to cfg's collector (cfg is copied). 0, or a
 * negative error.h code with *cause saying why (then nothing to free).
 */
int trace_new(uv_loop_t *loop, const struct trace_config *cfg,
    struct trace **out, char **cause);

/*
 * A span named name, started now: a child of parent, or (parent NULL)
 * the root of a new trace. NULL when tr is NULL or out of memory (the
 * span is then counted as dropped).
 */
struct trace_span *trace_span_start(struct trace *tr,
    const struct trace_span *parent, const char *name);

/* The span the runner's own spans (SSH sessions) hang from: the run's, or
   the sweep's under --every; NULL: none yet. */
void trace_root_set(struct trace *tr, const struct trace_span *root);
const struct trace_span *trace_root(const struct trace *tr);

/* Attributes; a key set twice is sent twice (set each once). */
void trace_span_str(struct trace_span *s, const char *key,
    const char *value);
void trace_span_int(struct trace_span *s, const char *key, long long value);
void trace_span_double(struct trace_span *s, const char *key, double value);
void trace_span_bool(struct trace_span *s, const char *key, int value);
void trace_span_kind(struct trace_span *s, enum trace_kind kind);

/*
 * A probe's figures: every number at the top of its metrics (their text
 * as the record's line holds it, or NULL) as netprof.metrics.KEY; arrays
 * (samples, iterations) are left to the records.
 */
void trace_span_metrics(struct trace_span *s, const char *metrics);

/*
 * Times known better than "now" (a probe's own start and end, as its
 * record has them): wall-clock Unix seconds; 0 keeps the start, or ends
 * the span when trace_span_end() is called.
 */
void trace_span_times(struct trace_span *s, double start_s, double end_s);

/* The span failed: status ERROR with message (the first one stays). */
void trace_span_error(struct trace_span *s, const char *message);

/* End *sp now and hand it to the exporter; *sp becomes NULL. */
void trace_span_end(struct trace_span **sp);

/*
 * W3C Trace Context: s's traceparent header value into buf
 * (TRACE_PARENT_SIZE bytes). 0, or -1 when s is NULL (no header then).
 */
int trace_span_traceparent(const struct trace_span *s, char *buf,
    size_t size);

/* s's trace id as 32 hex digits into buf (33 bytes); "" when s is NULL. */
void trace_span_trace_id(const struct trace_span *s, char *buf,
    size_t size);

/*
 * End the spans still open, send what is queued (each request bounded by
 * the export timeout), say once what could not be exported, close the
 * HTTP client; closed_cb (optional) on a later turn once all is closed.
 * Then trace_free(). NULL: nothing (closed_cb is not called).
 */
void trace_close(struct trace *tr, void (*closed_cb)(void *arg), void *arg);
void trace_free(struct trace *tr);

#endif
