/*
 * Private to src/trace/: OTLP's JSON encoding (the protocol's
 * ExportTraceServiceRequest in proto3's JSON mapping, with the two
 * exceptions OTLP/JSON makes: trace and span ids as hex, enums as
 * numbers). trace.c encodes a span's attributes as they are set and the
 * span when it ends; trace_export.c wraps a batch of spans in a request.
 */
#ifndef NETPROF_TRACE_OTLP_H
#define NETPROF_TRACE_OTLP_H

#include <stddef.h>
#include <stdint.h>

#include "util.h"

struct trace_config;

/* An ended span, as trace.c hands it over. */
struct trace_otlp_span {
	const uint8_t *trace_id;	/* 16 bytes */
	const uint8_t *span_id;		/* 8 */
	const uint8_t *parent_id;	/* 8, or NULL for a root */
	const char *name;
	int kind;			/* enum trace_kind */
	uint64_t start_ns, end_ns;	/* Unix time */
	const char *attrs;		/* encoded attributes, comma-joined */
	size_t attrs_len;
	const char *error;		/* status ERROR's message, or NULL */
};

/* One attribute ("key": value) appended to b, a comma first if b has
   some; 0 or NP_ERR_NOMEM. */
int trace_otlp_attr_str(struct buf *b, const char *key, const char *value);
int trace_otlp_attr_int(struct buf *b, const char *key, long long value);
int trace_otlp_attr_double(struct buf *b, const char *key, double value);
int trace_otlp_attr_bool(struct buf *b, const char *key, int value);

/* The span as one JSON object appended to b. */
int trace_otlp_span(struct buf *b, const struct trace_otlp_span *s);

/* A request's text up to its first span (the resource and the scope),
   and after its last. */
int trace_otlp_request_head(struct buf *b, const struct trace_config *cfg);
#define TRACE_OTLP_REQUEST_TAIL "]}]}]}"

/* lowercase hex of n bytes into out (2n + 1 bytes) */
void trace_otlp_hex(const uint8_t *bytes, size_t n, char *out);

#endif
