/*
 * Where a run's trace goes and how: --otlp[=URL] (the option block of the
 * host commands) and OpenTelemetry's standard environment variables
 * (OTEL_EXPORTER_OTLP_ENDPOINT, _HEADERS, _TIMEOUT, OTEL_SERVICE_NAME,
 * OTEL_RESOURCE_ATTRIBUTES, OTEL_BSP_*), read once into a struct
 * trace_config. A bad value is a usage error that names the variable and
 * the fix, before anything runs.
 */
#ifndef NETPROF_TRACE_CONFIG_H
#define NETPROF_TRACE_CONFIG_H

#include <stddef.h>

#include "option.h"

/* The option's field: NULL not given, "" a bare --otlp, else the URL. */
struct trace_options {
	const char *otlp;
};

/* --otlp[=URL], a block of a command's table at a struct trace_options. */
extern const struct option_spec trace_option_specs[];

#define TRACE_DEFAULT_ENDPOINT "http://localhost:4318"

struct trace_config {
	char *url;		/* where spans are POSTed: .../v1/traces */
	char **headers;		/* "Name: value" lines, NULL-terminated */
	size_t n_headers;
	char **resource;	/* resource attributes: key, value, key, ... */
	size_t n_resource;	/* pairs; service.name is the first */
	double timeout_s;	/* one export request */
	double delay_s;		/* a span waits at most this long */
	size_t max_queue;	/* spans waiting to be sent, at most */
	size_t max_batch;	/* spans that make a request go at once */
};

/*
 * o and the environment into *cfg. 0 with *enabled 1 (cfg filled), 0
 * with *enabled 0 (no --otlp, or OTEL_SDK_DISABLED: nothing to free), or
 * NP_ERR_USAGE / NP_ERR_NOMEM with *cause (the variable, what it holds,
 * the fix).
 */
int trace_config_load(const struct trace_options *o, struct trace_config *cfg,
    int *enabled, char **cause);

/* Deep copy (the tracer keeps its own); 0 or NP_ERR_NOMEM. */
int trace_config_copy(const struct trace_config *from,
    struct trace_config *to);

void trace_config_free(struct trace_config *cfg);

#endif
