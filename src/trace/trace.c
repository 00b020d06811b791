/*
 * The tracer and its spans (trace.h). Ids are random (a generator seeded
 * once from the kernel: they must be unique, not secret); times are the
 * wall clock in nanoseconds, as OTLP wants them. A span's attributes are
 * encoded as they are set and the span itself when it ends, straight into
 * the exporter's queue (trace_export.c), so an open span is a few small
 * allocations and an ended one is gone from here. The tracer keeps the
 * open spans on a list only to end them at its close (a run cut short
 * still sends a whole tree).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "error.h"
#include "trace.h"
#include "trace_config.h"
#include "trace_export.h"
#include "trace_otlp.h"
#include "util.h"

struct trace_span {
	struct trace *tr;
	struct trace_span *prev, *next;	/* the tracer's open spans */
	uint8_t trace_id[16];
	uint8_t span_id[8];
	uint8_t parent_id[8];
	int has_parent;
	char *name;
	int kind;
	uint64_t start_ns;
	uint64_t end_ns;	/* 0: when it ends */
	struct buf attrs;	/* encoded, comma-joined */
	char *error;
};

struct trace {
	struct trace_export *export;
	struct trace_span *open;
	struct trace_span root;	/* its ids only: the root's span may end
				   before its children start */
	int has_root;
	uint64_t rng;
	int closed;
};

static uint64_t
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* splitmix64: a well-mixed sequence from any seed. */
static uint64_t
rng_next(struct trace *tr)
{
	uint64_t z = (tr->rng += 0x9e3779b97f4a7c15u);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
	return z ^ (z >> 31);
}

/* n random bytes, never all zero (W3C: an all-zero id is invalid). */
static void
random_id(struct trace *tr, uint8_t *id, size_t n)
{
	uint64_t v = 0;
	size_t i;

	do {
		for (i = 0; i < n; i++) {
			if (i % 8 == 0)
				v = rng_next(tr);
			id[i] = (uint8_t)(v >> (8 * (i % 8)));
		}
		for (i = 0; i < n && id[i] == 0; i++)
			;
	} while (i == n);
}

int
trace_new(uv_loop_t *loop, const struct trace_config *cfg,
    struct trace **out, char **cause)
{
	struct trace *tr;
	int r;

	*out = NULL;
	*cause = NULL;
	if ((tr = calloc(1, sizeof *tr)) == NULL)
		return NP_ERR_NOMEM;
	if (getrandom(&tr->rng, sizeof tr->rng, 0) != (ssize_t)sizeof tr->rng)
		tr->rng = now_ns() ^ ((uint64_t)getpid() << 32);
	if ((r = trace_export_new(loop, cfg, &tr->export)) != 0) {
		*cause = str_printf("--otlp: cannot start the exporter: %s",
		    error_string(r));
		free(tr);
		return r;
	}
	*out = tr;
	return 0;
}

struct trace_span *
trace_span_start(struct trace *tr, const struct trace_span *parent,
    const char *name)
{
	struct trace_span *s;

	if (tr == NULL || tr->closed)
		return NULL;
	if ((s = calloc(1, sizeof *s)) == NULL) {
		trace_export_lost(tr->export);
		return NULL;
	}
	s->tr = tr;
	if ((s->name = strdup(name)) == NULL) {
		free(s);
		trace_export_lost(tr->export);
		return NULL;
	}
	s->kind = TRACE_KIND_INTERNAL;
	if (parent != NULL) {
		memcpy(s->trace_id, parent->trace_id, sizeof s->trace_id);
		memcpy(s->parent_id, parent->span_id, sizeof s->parent_id);
		s->has_parent = 1;
	} else
		random_id(tr, s->trace_id, sizeof s->trace_id);
	random_id(tr, s->span_id, sizeof s->span_id);
	s->start_ns = now_ns();
	s->next = tr->open;
	if (s->next != NULL)
		s->next->prev = s;
	tr->open = s;
	return s;
}

void
trace_root_set(struct trace *tr, const struct trace_span *root)
{
	if (tr == NULL)
		return;
	tr->has_root = root != NULL;
	if (root != NULL) {
		memcpy(tr->root.trace_id, root->trace_id,
		    sizeof tr->root.trace_id);
		memcpy(tr->root.span_id, root->span_id,
		    sizeof tr->root.span_id);
	}
}

const struct trace_span *
trace_root(const struct trace *tr)
{
	return tr != NULL && tr->has_root ? &tr->root : NULL;
}

/* An attribute that could not be appended whole is cut back off (the
   request must stay valid JSON). */
#define ATTR_SET(s, call) do {						\
	size_t len_ = (s)->attrs.len;					\
									\
	if ((call) != 0)						\
		(s)->attrs.len = len_;					\
} while (0)

void
trace_span_str(struct trace_span *s, const char *key, const char *value)
{
	if (s != NULL)
		ATTR_SET(s, trace_otlp_attr_str(&s->attrs, key, value));
}

void
trace_span_int(struct trace_span *s, const char *key, long long value)
{
	if (s != NULL)
		ATTR_SET(s, trace_otlp_attr_int(&s->attrs, key, value));
}

void
trace_span_double(struct trace_span *s, const char *key, double value)
{
	if (s != NULL)
		ATTR_SET(s, trace_otlp_attr_double(&s->attrs, key, value));
}

void
trace_span_bool(struct trace_span *s, const char *key, int value)
{
	if (s != NULL)
		ATTR_SET(s, trace_otlp_attr_bool(&s->attrs, key, value));
}

void
trace_span_metrics(struct trace_span *s, const char *metrics)
{
	const cJSON *m;
	cJSON *o;
	char key[80];

	if (s == NULL || metrics == NULL ||
	    (o = cJSON_Parse(metrics)) == NULL)
		return;
	cJSON_ArrayForEach(m, o) {
		if (!cJSON_IsNumber(m) || m->string == NULL)
			continue;
		/* doubles all: one key, one type, across spans */
		snprintf(key, sizeof key, "netprof.metrics.%s", m->string);
		trace_span_double(s, key, m->valuedouble);
	}
	cJSON_Delete(o);
}

void
trace_span_kind(struct trace_span *s, enum trace_kind kind)
{
	if (s != NULL)
		s->kind = (int)kind;
}

void
trace_span_times(struct trace_span *s, double start_s, double end_s)
{
	if (s == NULL)
		return;
	if (start_s > 0)
		s->start_ns = (uint64_t)(start_s * 1e9);
	if (end_s > 0)
		s->end_ns = (uint64_t)(end_s * 1e9);
}

void
trace_span_error(struct trace_span *s, const char *message)
{
	if (s == NULL || s->error != NULL)
		return;
	s->error = strdup(message != NULL ? message : "failed");
}

static void
span_free(struct trace_span *s)
{
	buf_free(&s->attrs);
	free(s->name);
	free(s->error);
	free(s);
}

void
trace_span_end(struct trace_span **sp)
{
	struct trace_span *s = *sp;
	struct trace *tr;
	struct trace_otlp_span o;
	struct buf json = { 0 };

	if (s == NULL)
		return;
	*sp = NULL;
	tr = s->tr;
	if (s->prev != NULL)
		s->prev->next = s->next;
	else
		tr->open = s->next;
	if (s->next != NULL)
		s->next->prev = s->prev;
	memset(&o, 0, sizeof o);
	o.trace_id = s->trace_id;
	o.span_id = s->span_id;
	o.parent_id = s->has_parent ? s->parent_id : NULL;
	o.name = s->name;
	o.kind = s->kind;
	o.start_ns = s->start_ns;
	o.end_ns = s->end_ns > 0 ? s->end_ns : now_ns();
	if (o.end_ns < o.start_ns)	/* the wall clock stepped back */
		o.end_ns = o.start_ns;
	o.attrs = s->attrs.data;
	o.attrs_len = s->attrs.len;
	o.error = s->error;
	if (trace_otlp_span(&json, &o) == 0)
		trace_export_span(tr->export, json.data, json.len);
	else
		trace_export_lost(tr->export);
	buf_free(&json);
	span_free(s);
}

int
trace_span_traceparent(const struct trace_span *s, char *buf, size_t size)
{
	char trace_id[33], span_id[17];

	if (s == NULL || size < TRACE_PARENT_SIZE)
		return -1;
	trace_otlp_hex(s->trace_id, 16, trace_id);
	trace_otlp_hex(s->span_id, 8, span_id);
	snprintf(buf, size, "00-%s-%s-01", trace_id, span_id);
	return 0;
}

void
trace_span_trace_id(const struct trace_span *s, char *buf, size_t size)
{
	if (size == 0)
		return;
	buf[0] = '\0';
	if (s != NULL && size >= 33)
		trace_otlp_hex(s->trace_id, 16, buf);
}

void
trace_close(struct trace *tr, void (*closed_cb)(void *arg), void *arg)
{
	struct trace_span *s;

	if (tr == NULL || tr->closed)
		return;
	/* children were opened after their parents: the list ends them
	   first, so a parent's end is never before a child's */
	while ((s = tr->open) != NULL) {
		trace_span_bool(s, "netprof.unfinished", 1);
		trace_span_end(&s);
	}
	tr->closed = 1;
	trace_export_close(tr->export, closed_cb, arg);
}

void
trace_free(struct trace *tr)
{
	if (tr == NULL)
		return;
	while (tr->open != NULL) {	/* never closed: nothing is sent */
		struct trace_span *s = tr->open;

		tr->open = s->next;
		span_free(s);
	}
	trace_export_free(tr->export);
	free(tr);
}
