/*
 * Private to src/trace/: the OTLP/HTTP exporter that trace.c hands each
 * ended span to, already encoded (trace_otlp.h). A bounded queue, sent in
 * batches by the HTTP client on the run's loop (http.h): never a wait, and
 * a collector that cannot be reached costs the spans, not the run.
 */
#ifndef NETPROF_TRACE_EXPORT_H
#define NETPROF_TRACE_EXPORT_H

#include <stddef.h>
#include <uv.h>

struct trace_config;
struct trace_export;

/* An exporter on loop for cfg (copied). 0 or a negative error.h code. */
int trace_export_new(uv_loop_t *loop, const struct trace_config *cfg,
    struct trace_export **out);

/* One span's JSON object (len bytes): queued, or dropped and counted
   when the queue is full. */
void trace_export_span(struct trace_export *x, const char *json, size_t len);

/* A span lost before it could be queued (out of memory): counted. */
void trace_export_lost(struct trace_export *x);

/*
 * Send what is queued, then close; says once, at the end, how many spans
 * were not exported and why. closed_cb on a later turn. Then _free().
 */
void trace_export_close(struct trace_export *x, void (*closed_cb)(void *arg),
    void *arg);
void trace_export_free(struct trace_export *x);

#endif
