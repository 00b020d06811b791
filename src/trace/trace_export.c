/*
 * The OTLP/HTTP exporter (trace_export.h), as OpenTelemetry's batch span
 * processor: ended spans wait in a queue of at most max_queue spans (more
 * are dropped and counted, never waited for); the queue is sent as one
 * POST of an ExportTraceServiceRequest in JSON when it holds max_batch
 * spans or its oldest span has waited delay_s, one request at a time, by
 * the HTTP client on the run's loop (http.c: libcurl's multi interface,
 * so a request never blocks a measurement). A request that fails (no
 * connection, a timeout, a status other than 2xx) loses its spans, which
 * are counted; the first failure is said at once, and at the end a line
 * says how many spans were not exported. The end waits for the collector
 * one export timeout in all, however many requests are left. A collector's partial success
 * (rejectedSpans) is counted the same way. Nothing here changes the run's
 * exit status.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "error.h"
#include "http.h"
#include "log.h"
#include "trace_config.h"
#include "trace_export.h"
#include "trace_otlp.h"
#include "util.h"

struct trace_export {
	uv_loop_t *loop;
	struct trace_config cfg;
	struct http_client *http;
	uv_timer_t timer;
	int timer_armed;
	struct buf head;	/* every request's text before its spans */
	struct buf queue;	/* spans waiting, comma-joined */
	size_t queued;
	struct buf body;	/* the request in flight */
	size_t sending;		/* its spans */
	struct http_call *call;
	uv_timer_t deadline;	/* the close's: one timeout in all */
	int past_deadline;
	size_t spans, exported, dropped;	/* dropped: queue full, lost,
						   failed or rejected */
	char *first_error;	/* why the first spans were lost */
	int said;		/* the first loss has been said */
	int closing, handles_open;
	void (*closed_cb)(void *arg);
	void *closed_arg;
};

static void send_queue(struct trace_export *x);
static void timer_cb(uv_timer_t *t);

/* The oldest span queued waits at most delay_s. */
static void
arm_timer(struct trace_export *x)
{
	if (x->timer_armed)
		return;
	x->timer_armed = 1;
	uv_timer_start(&x->timer, timer_cb, (uint64_t)(x->cfg.delay_s * 1000),
	    0);
}

/* Spans lost: counted, and the first reason said at once. */
static void
lose(struct trace_export *x, size_t n, const char *why)
{
	x->dropped += n;
	if (x->first_error == NULL)
		x->first_error = strdup(why);
	if (x->said || x->closing)
		return;		/* the end says it with the count */
	x->said = 1;
	log_warn("--otlp: spans not exported to %s: %s; the run goes on "
	    "(the spans lost are counted and said at the end)", x->cfg.url,
	    why);
}

static void
handle_closed_cb(uv_handle_t *h)
{
	struct trace_export *x = h->data;

	if (--x->handles_open == 0 && x->closed_cb != NULL)
		x->closed_cb(x->closed_arg);
}

static void
http_closed_cb(void *arg)
{
	struct trace_export *x = arg;

	if (--x->handles_open == 0 && x->closed_cb != NULL)
		x->closed_cb(x->closed_arg);
}

/* Nothing in flight and nothing queued: the end, said once. */
static void
finish_close(struct trace_export *x)
{
	if (x->dropped > 0)
		log_warn("--otlp: %zu of %zu spans were not exported to %s "
		    "(%s)", x->dropped, x->spans, x->cfg.url,
		    x->first_error != NULL ? x->first_error : "?");
	else
		log_debug(NULL, "otlp: %zu spans exported to %s", x->exported,
		    x->cfg.url);
	uv_timer_stop(&x->timer);
	uv_timer_stop(&x->deadline);
	uv_close((uv_handle_t *)&x->timer, handle_closed_cb);
	uv_close((uv_handle_t *)&x->deadline, handle_closed_cb);
	http_close(x->http, http_closed_cb, x);
}

/*
 * The close has waited one export timeout: a collector that takes
 * requests and never answers delays the end by that much, not by a
 * timeout per request. What is in flight and queued is lost, counted.
 */
static void
deadline_cb(uv_timer_t *t)
{
	struct trace_export *x = t->data;

	x->past_deadline = 1;
	if (x->queued > 0) {
		lose(x, x->queued, "not sent before the run's end: the "
		    "collector did not answer within OTEL_EXPORTER_OTLP_TIMEOUT");
		x->queued = 0;
		x->queue.len = 0;
	}
	if (x->call != NULL)
		http_cancel(x->call);	/* its end finishes the close */
	else
		finish_close(x);
}

/* A 2xx answer may still reject spans (OTLP's partial success). */
static void
take_partial_success(struct trace_export *x, const char *body, size_t len)
{
	const cJSON *ps, *n, *msg;
	cJSON *o;
	char why[300];

	if (len == 0 || (o = cJSON_ParseWithLength(body, len)) == NULL)
		return;
	ps = cJSON_GetObjectItemCaseSensitive(o, "partialSuccess");
	n = cJSON_GetObjectItemCaseSensitive(ps, "rejectedSpans");
	msg = cJSON_GetObjectItemCaseSensitive(ps, "errorMessage");
	/* an int64 is a JSON string in proto3's mapping; some send numbers */
	if ((cJSON_IsString(n) && atoll(n->valuestring) > 0) ||
	    (cJSON_IsNumber(n) && n->valuedouble > 0)) {
		size_t rejected = cJSON_IsString(n) ?
		    (size_t)atoll(n->valuestring) : (size_t)n->valuedouble;

		if (rejected > x->sending)
			rejected = x->sending;
		x->exported -= rejected;
		snprintf(why, sizeof why, "the collector rejected %zu: %s",
		    rejected, cJSON_IsString(msg) ? msg->valuestring :
		    "no reason given");
		lose(x, rejected, why);
	}
	cJSON_Delete(o);
}

static void
request_done_cb(const struct http_response *res, void *arg)
{
	struct trace_export *x = arg;
	char why[400];
	size_t n;

	x->call = NULL;
	if (res->error == NP_OK && res->status >= 200 && res->status < 300) {
		x->exported += x->sending;
		take_partial_success(x, res->body, res->body_len);
		log_debug(NULL, "otlp: %zu spans sent: HTTP %ld, %.3f s",
		    x->sending, res->status, res->elapsed_s);
	} else {
		if (x->past_deadline)
			snprintf(why, sizeof why, "POST %s: no answer before "
			    "the run's end (OTEL_EXPORTER_OTLP_TIMEOUT, %g s)",
			    x->cfg.url, x->cfg.timeout_s);
		else if (res->error != NP_OK)
			snprintf(why, sizeof why, "%s", res->error_text != NULL ?
			    res->error_text : error_string(res->error));
		else {
			n = strcspn(res->body, "\r\n");
			snprintf(why, sizeof why, "POST %s: HTTP %ld%s%.*s",
			    x->cfg.url, res->status, n > 0 ? ": " : "",
			    (int)(n < 200 ? n : 200), res->body);
		}
		lose(x, x->sending, why);
	}
	x->sending = 0;
	if (x->past_deadline)
		finish_close(x);
	else if (x->queued > 0 && (x->closing ||
	    x->queued >= x->cfg.max_batch))
		send_queue(x);
	else if (x->queued > 0)
		arm_timer(x);
	else if (x->closing)
		finish_close(x);
}

static void
send_queue(struct trace_export *x)
{
	struct http_request req = {
		.method = "POST", .url = x->cfg.url,
		.content_type = "application/json",
		.headers = (const char *const *)x->cfg.headers,
		.remote = 1, .timeout_s = x->cfg.timeout_s, .max_body = 1 << 20,
		.fd = -1, .on_done = request_done_cb, .arg = x,
	};
	int r;

	if (x->call != NULL || x->queued == 0)
		return;
	uv_timer_stop(&x->timer);
	x->timer_armed = 0;
	x->body.len = 0;
	if (buf_append(&x->body, x->head.data, x->head.len) != 0 ||
	    buf_append(&x->body, x->queue.data, x->queue.len) != 0 ||
	    buf_append(&x->body, TRACE_OTLP_REQUEST_TAIL,
	    strlen(TRACE_OTLP_REQUEST_TAIL)) != 0) {
		r = NP_ERR_NOMEM;
		goto failed;
	}
	x->sending = x->queued;
	x->queued = 0;
	x->queue.len = 0;
	req.body = x->body.data;
	req.body_len = x->body.len;
	if ((r = http_request(x->http, &req, &x->call)) == 0)
		return;
	x->queued = x->sending;	/* lost just below */
	x->sending = 0;
failed:
	lose(x, x->queued, error_string(r));
	x->queued = 0;
	x->queue.len = 0;
	if (x->closing)
		finish_close(x);
}

static void
timer_cb(uv_timer_t *t)
{
	struct trace_export *x = t->data;

	x->timer_armed = 0;
	send_queue(x);
}

void
trace_export_span(struct trace_export *x, const char *json, size_t len)
{
	x->spans++;
	if (x->queued >= x->cfg.max_queue) {
		lose(x, 1, "the queue was full (OTEL_BSP_MAX_QUEUE_SIZE)");
		return;
	}
	if ((x->queued > 0 && buf_append(&x->queue, ",", 1) != 0) ||
	    buf_append(&x->queue, json, len) != 0) {
		lose(x, 1, error_string(NP_ERR_NOMEM));
		return;
	}
	x->queued++;
	if (x->closing || x->queued >= x->cfg.max_batch)
		send_queue(x);
	else if (x->call == NULL)
		arm_timer(x);
}

void
trace_export_lost(struct trace_export *x)
{
	x->spans++;
	lose(x, 1, error_string(NP_ERR_NOMEM));
}

int
trace_export_new(uv_loop_t *loop, const struct trace_config *cfg,
    struct trace_export **out)
{
	struct trace_export *x;
	int r;

	*out = NULL;
	if ((x = calloc(1, sizeof *x)) == NULL)
		return NP_ERR_NOMEM;
	if ((r = trace_config_copy(cfg, &x->cfg)) != 0 ||
	    (r = trace_otlp_request_head(&x->head, cfg)) != 0 ||
	    (r = http_new(loop, &x->http)) != 0) {
		trace_config_free(&x->cfg);
		buf_free(&x->head);
		free(x);
		return r;
	}
	x->loop = loop;
	uv_timer_init(loop, &x->timer);
	uv_timer_init(loop, &x->deadline);
	x->timer.data = x->deadline.data = x;
	x->handles_open = 3;	/* the timers, the HTTP client */
	*out = x;
	return 0;
}

void
trace_export_close(struct trace_export *x, void (*closed_cb)(void *arg),
    void *arg)
{
	x->closing = 1;
	x->closed_cb = closed_cb;
	x->closed_arg = arg;
	uv_timer_start(&x->deadline, deadline_cb,
	    (uint64_t)(x->cfg.timeout_s * 1000), 0);
	if (x->call != NULL)
		return;		/* its end sends the rest */
	if (x->queued > 0)
		send_queue(x);
	else
		finish_close(x);
}

void
trace_export_free(struct trace_export *x)
{
	if (x == NULL)
		return;
	http_free(x->http);
	trace_config_free(&x->cfg);
	buf_free(&x->head);
	buf_free(&x->queue);
	buf_free(&x->body);
	free(x->first_error);
	free(x);
}
