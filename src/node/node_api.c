/*
 * Calls to the otela node's HTTP API on a host. Two paths, chosen per call
 * by what the host's transport offers:
 *
 * - tunnel (ssh transport): engine_tunnel_open() gives a socket that is a
 *   TCP connection to 127.0.0.1:port on the host, carried by the host's SSH
 *   session; libcurl (http.c) speaks HTTP over it. One tunnel per call: the
 *   channel costs one round trip on an open session, and a call never
 *   depends on a connection another call left behind.
 * - curl on the host (command and local transports, which have no
 *   tunnels): `curl` run there through engine_submit(), the body on its
 *   stdin, the status on the last line of its output, as the upstream tool
 *   does it.
 *
 * Replies are delivered by a uv_idle handle (the pump), never inside
 * node_api_call() or node_call_cancel(). A failed request on a tunnel
 * waits for the tunnel's own report, which says why better than libcurl
 * can ("connection refused" from the host beats "empty reply").
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "http.h"
#include "log.h"
#include "node_api.h"
#include "shell.h"
#include "trace.h"
#include "util.h"

/* The remote curl's -m bounds the call; this is only the backstop. */
#define CURL_GRACE_S 5.0
/* What curl prints after the body: "\n" and the HTTP status. */
#define CURL_STATUS_MAX 16

struct node_tunnel;

struct node_call {
	struct node_api *api;
	struct node_call *prev, *next;	/* api->calls, or api->ready */
	const struct machine *m;
	char *method;
	char *url;		/* http://127.0.0.1:PORT/PATH */
	char traceparent[TRACE_PARENT_SIZE + 16]; /* its header, or "" */
	node_reply_cb cb;
	void *arg;
	int via_tunnel;
	struct http_call *http;		/* tunnel path, until its answer */
	struct engine_job *job;		/* curl path, until its result */
	struct node_tunnel *tunnel;	/* until the tunnel closed */
	int answered;			/* http or job has reported */
	int ready;			/* on api->ready */
	int cancelled;
	int tunnel_error;		/* why the tunnel failed, if it did */
	char *tunnel_error_text;
	int error;
	char *error_text;
	long status;
	char *body;
	size_t body_len;
	double elapsed_s;
};

/* Lives from engine_tunnel_open() to its on_closed callback. */
struct node_tunnel {
	struct node_api *api;
	struct node_call *call;		/* NULL once the call is gone */
	struct node_tunnel *prev, *next;
};

struct node_api {
	uv_loop_t *loop;
	struct engine *engine;
	struct http_client *http;
	uv_idle_t pump;
	struct node_call *calls;	/* not yet ready */
	struct node_call *ready, *ready_tail;
	struct node_tunnel *tunnels;
	int closing;
	int http_closed;
	int pump_closed;
	void (*closed_cb)(void *arg);
	void *closed_arg;
};

static void api_check_closed(struct node_api *api);

static void
list_unlink(struct node_call **head, struct node_call *c)
{
	if (c->prev != NULL)
		c->prev->next = c->next;
	else
		*head = c->next;
	if (c->next != NULL)
		c->next->prev = c->prev;
	c->prev = c->next = NULL;
}

static void
call_free(struct node_call *c)
{
	free(c->method);
	free(c->url);
	free(c->error_text);
	free(c->tunnel_error_text);
	free(c->body);
	free(c);
}

static void
api_pump_cb(uv_idle_t *idle)
{
	struct node_api *api = idle->data;
	struct node_call *batch = api->ready, *c;
	struct node_reply r;

	/* a call made ready by a callback below waits for the next turn */
	api->ready = api->ready_tail = NULL;
	while ((c = batch) != NULL) {
		batch = c->next;
		memset(&r, 0, sizeof r);
		r.error = c->error;
		r.error_text = c->error == NP_OK ? NULL : c->error_text ?
		    c->error_text : error_string(c->error);
		r.status = c->status;
		r.body = c->body != NULL ? c->body : "";
		r.body_len = c->body_len;
		r.elapsed_s = c->elapsed_s;
		r.via_tunnel = c->via_tunnel;
		log_debug(c->m->name, "%s %s: %s, HTTP %ld, %.3f s%s",
		    c->method, c->url, error_string(c->error), c->status,
		    c->elapsed_s, c->via_tunnel ? " (tunnel)" : " (curl)");
		c->cb(c->m, &r, c->arg);
		call_free(c);
	}
	if (api->ready == NULL)
		uv_idle_stop(&api->pump);
	api_check_closed(api);
}

/* Everything about c is known: hand it to the pump. */
static void
call_ready(struct node_call *c)
{
	struct node_api *api = c->api;

	if (c->ready)
		return;
	c->ready = 1;
	list_unlink(&api->calls, c);
	if (api->ready_tail != NULL)
		api->ready_tail->next = c;
	else
		api->ready = c;
	c->prev = api->ready_tail;
	api->ready_tail = c;
	uv_idle_start(&api->pump, api_pump_cb);
}

static void
call_set_error(struct node_call *c, int error, const char *detail)
{
	c->error = error;
	free(c->error_text);
	c->error_text = str_printf("%s: %s %s: %s", c->m->name, c->method,
	    c->url, detail);
}

/* ---- the tunnel path ---- */

/* The engine's text names the host first; so does ours. */
static const char *
without_host(const struct machine *m, const char *text)
{
	size_t n = strlen(m->name);

	if (strncmp(text, m->name, n) == 0 && strncmp(text + n, ": ", 2) == 0)
		return text + n + 2;
	return text;
}


/*
 * The answer and the tunnel's end are both known. The tunnel knows better
 * why a request failed ("connection refused" on the host beats libcurl's
 * "empty reply"), whichever of the two came first.
 */
static void
call_finish_tunnel(struct node_call *c)
{
	if (c->error != NP_OK && c->tunnel_error != NP_OK && !c->cancelled) {
		/* no answer because the channel did not open or broke: to
		   the caller that is the node not reached, as with curl */
		if (c->error != NP_ERR_IO || c->tunnel_error != NP_ERR_CHANNEL)
			c->error = c->tunnel_error;
		else
			c->error = NP_ERR_CONNECT;
		free(c->error_text);
		c->error_text = str_printf("%s: %s %s: %s", c->m->name,
		    c->method, c->url, without_host(c->m,
		    c->tunnel_error_text ? c->tunnel_error_text : ""));
	}
	call_ready(c);
}

static void
tunnel_closed_cb(const struct machine *m, int error, const char *error_text,
    void *arg)
{
	struct node_tunnel *t = arg;
	struct node_api *api = t->api;
	struct node_call *c = t->call;

	if (t->prev != NULL)
		t->prev->next = t->next;
	else
		api->tunnels = t->next;
	if (t->next != NULL)
		t->next->prev = t->prev;
	free(t);
	if (c != NULL) {
		c->tunnel = NULL;
		if (error != NP_OK) {
			c->tunnel_error = error;
			c->tunnel_error_text = strdup(error_text ? error_text :
			    error_string(error));
		}
		if (c->answered)
			call_finish_tunnel(c);
	}
	api_check_closed(api);
}

static void
call_http_done_cb(const struct http_response *res, void *arg)
{
	struct node_call *c = arg;

	c->http = NULL;
	c->answered = 1;
	c->status = res->status;
	c->elapsed_s = res->elapsed_s;
	if (res->error == NP_OK) {
		c->error = NP_OK;
		if ((c->body = malloc(res->body_len + 1)) == NULL) {
			c->error = NP_ERR_NOMEM;
		} else {
			memcpy(c->body, res->body, res->body_len + 1);
			c->body_len = res->body_len;
		}
	} else {
		c->error = res->error;
		c->error_text = str_printf("%s: %s", c->m->name,
		    res->error_text ? res->error_text :
		    error_string(res->error));
	}
	/* an answer stands; a failure waits for the tunnel's reason */
	if (c->error == NP_OK || c->tunnel == NULL || c->cancelled) {
		if (c->tunnel != NULL)
			c->tunnel->call = NULL;
		c->tunnel = NULL;
		call_finish_tunnel(c);
	}
}

/*
 * The longest answer taken from path: health, table and punch answers are
 * small, a probe's (throughput iterations) larger; a node that sends more
 * has its call fail, on both paths, before its answer is parsed (cJSON
 * needs many times a body's size).
 */
static size_t
answer_cap(const char *url)
{
	const char *path = strstr(url, "/v1/");

	if (path != NULL && strncmp(path, "/v1/dnt/table", 13) == 0)
		return NODE_API_TABLE_MAX;
	if (path != NULL && strncmp(path, "/v1/probe/run", 13) == 0)
		return NODE_API_PROBE_MAX;
	return NODE_API_SMALL_MAX;
}

static int
call_start_tunnel(struct node_call *c, int fd, const char *body,
    double timeout_s)
{
	const char *headers[] = { c->traceparent, NULL };
	struct http_request req = {
		.method = c->method, .url = c->url, .body = body,
		.headers = c->traceparent[0] != '\0' ? headers : NULL,
		.max_body = answer_cap(c->url),
		.body_len = body != NULL ? strlen(body) : 0,
		.timeout_s = timeout_s, .fd = fd,
		.on_done = call_http_done_cb, .arg = c,
	};

	return http_request(c->api->http, &req, &c->http);
}

/* ---- the curl-on-the-host path ---- */

/* The shell command that makes the call with curl on the host. */
static char *
curl_command(const struct node_call *c, int has_body, double timeout_s)
{
	char *url = shell_quote(c->url), *method = shell_quote(c->method);
	char *cmd = NULL;

	if (url != NULL && method != NULL)
		/* -q first: no ~/.curlrc of the host's user is read */
		cmd = str_printf("curl -q -sS --noproxy '*' --max-filesize %zu "
		    "-m %.3f -X %s%s%s%s%s -o - -w '\\n%%{http_code}' %s",
		    answer_cap(c->url), timeout_s, method,
		    has_body ? " -H 'Content-Type: application/json' "
		    "--data-binary @-" : "",
		    /* hex digits and dashes: nothing to quote */
		    c->traceparent[0] != '\0' ? " -H '" : "", c->traceparent,
		    c->traceparent[0] != '\0' ? "'" : "", url);
	free(url);
	free(method);
	return cmd;
}

/* curl's exit status as an error: its manual's numbers. */
static int
curl_exit_error(int status, const char **what)
{
	switch (status) {
	case 6:
	case 7:
		*what = "could not connect (is the node running?)";
		return NP_ERR_CONNECT;
	case 28:
		*what = "timed out";
		return NP_ERR_TIMEOUT;
	case 63:
		*what = "the node's answer was larger than netprof takes from "
		    "that endpoint";
		return NP_ERR_PROTOCOL;
	case 52:
	case 55:
	case 56:
		*what = "connection broke";
		return NP_ERR_IO;
	case 127:
		*what = "curl is not installed on the host (install it, or "
		    "use the ssh transport, which needs no curl there)";
		return NP_ERR_TOOL_MISSING;
	case 255:	/* not curl's: ssh's, when remote_command is ssh */
		*what = "the host could not be reached";
		return NP_ERR_CONNECT;
	default:
		*what = "curl failed";
		return NP_ERR_PROTOCOL;
	}
}

/* Output is BODY "\n" STATUS: split it. */
static int
curl_output_parse(struct node_call *c, const char *out, size_t len)
{
	const char *nl = len > 0 ? memrchr(out, '\n', len) : NULL;
	char *end;
	long status;

	if (nl == NULL)
		return NP_ERR_PARSE;
	status = strtol(nl + 1, &end, 10);
	if (end == nl + 1 || (*end != '\0' && *end != '\n') || status < 100 ||
	    status > 599)
		return NP_ERR_PARSE;
	c->status = status;
	c->body_len = (size_t)(nl - out);
	if ((c->body = malloc(c->body_len + 1)) == NULL)
		return NP_ERR_NOMEM;
	memcpy(c->body, out, c->body_len);
	c->body[c->body_len] = '\0';
	return 0;
}

static void
call_job_done_cb(const struct machine *m, const struct engine_result *res,
    void *arg)
{
	struct node_call *c = arg;
	const char *what;
	char *detail;
	size_t n;
	int error;

	c->job = NULL;
	c->answered = 1;
	c->elapsed_s = res->ended_at - res->started_at;
	if (res->output_cut) {
		detail = str_printf("the node's answer was larger than the "
		    "%zu bytes netprof takes from that endpoint; curl was "
		    "stopped", answer_cap(c->url));
		call_set_error(c, NP_ERR_PROTOCOL, detail ? detail :
		    error_string(NP_ERR_PROTOCOL));
		free(detail);
	} else if (res->error != NP_OK) {
		call_set_error(c, res->error, without_host(m, res->error_text ?
		    res->error_text : error_string(res->error)));
	} else if (res->exit_status != 0) {
		error = curl_exit_error(res->exit_status, &what);
		/* the first line of curl's stderr, as far as a line goes */
		n = strcspn(res->err, "\n");
		detail = str_printf("%s (exit %d): %.*s", what,
		    res->exit_status, (int)(n < 300 ? n : 300), res->err);
		call_set_error(c, error, detail ? detail : what);
		free(detail);
	} else if ((error = curl_output_parse(c, res->out,
	    res->out_len)) != 0) {
		call_set_error(c, error, "curl's output has no HTTP status "
		    "on its last line");
	} else {
		c->error = NP_OK;
	}
	call_ready(c);
}

static int
call_start_curl(struct node_call *c, const char *body, double timeout_s)
{
	struct engine_request req = {
		.input = body, .input_len = body != NULL ? strlen(body) : 0,
		.timeout_s = timeout_s + CURL_GRACE_S,
		/* counted here as it arrives: curl before 8.4 ignores
		 * --max-filesize for an answer without a Content-Length
		 * (chunked); the body, "\n" and the status */
		.max_output = answer_cap(c->url) + CURL_STATUS_MAX,
		.on_done = call_job_done_cb, .arg = c,
	};
	char *cmd = curl_command(c, body != NULL, timeout_s);
	int r;

	if (cmd == NULL)
		return NP_ERR_NOMEM;
	req.command = cmd;
	r = engine_submit(c->api->engine, c->m, &req, &c->job);
	free(cmd);
	return r;
}

/* ---- the API ---- */

static int
call_start(struct node_call *c, int port, const char *body, double timeout_s)
{
	struct node_api *api = c->api;
	struct node_tunnel *t;
	int fd = -1, r;

	if ((t = calloc(1, sizeof *t)) == NULL)
		return NP_ERR_NOMEM;
	t->api = api;
	r = engine_tunnel_open(api->engine, c->m, "127.0.0.1", port,
	    tunnel_closed_cb, t, &fd);
	if (r == NP_ERR_UNSUPPORTED) {
		free(t);
		return call_start_curl(c, body, timeout_s);
	}
	if (r != 0) {
		free(t);
		return r;
	}
	t->call = c;
	t->next = api->tunnels;
	if (t->next != NULL)
		t->next->prev = t;
	api->tunnels = t;
	c->tunnel = t;
	c->via_tunnel = 1;
	/* on error http has closed fd: the tunnel ends and reports */
	return call_start_tunnel(c, fd, body, timeout_s);
}

int
node_api_call(struct node_api *api, const struct machine *m, int port,
    const char *method, const char *path, const char *body,
    double timeout_s, const struct trace_span *span, node_reply_cb cb,
    void *arg, struct node_call **callp)
{
	struct node_call *c;
	char tp[TRACE_PARENT_SIZE];
	int r;

	if (callp != NULL)
		*callp = NULL;
	if (api->closing || m == NULL || port <= 0 || port > 65535 ||
	    method == NULL || path == NULL || path[0] != '/' ||
	    timeout_s <= 0 || cb == NULL)
		return NP_ERR_USAGE;
	/* a context made as fanout_split_new()'s is (see there) */
	if ((c = calloc(1, sizeof *c)) == NULL)
		return NP_ERR_NOMEM;
	c->api = api;
	c->m = m;
	c->cb = cb;
	c->arg = arg;
	if (trace_span_traceparent(span, tp, sizeof tp) == 0)
		snprintf(c->traceparent, sizeof c->traceparent,
		    "traceparent: %s", tp);
	if ((c->method = strdup(method)) == NULL ||
	    (c->url = str_printf("http://127.0.0.1:%d%s", port,
	    path)) == NULL) {
		call_free(c);
		return NP_ERR_NOMEM;
	}
	c->next = api->calls;
	if (c->next != NULL)
		c->next->prev = c;
	api->calls = c;
	/* from here on every outcome is reported through cb */
	if ((r = call_start(c, port, body, timeout_s)) != 0 && !c->answered &&
	    c->http == NULL && c->job == NULL) {
		c->answered = 1;
		call_set_error(c, r, error_string(r));
		if (c->tunnel == NULL)
			call_ready(c);
	}
	if (callp != NULL)
		*callp = c;
	return 0;
}

void
node_call_cancel(struct node_call *c)
{
	if (c->ready || c->cancelled)
		return;
	c->cancelled = 1;
	if (c->http != NULL)
		http_cancel(c->http);
	else if (c->job != NULL)
		engine_cancel(c->job);
	else if (c->tunnel != NULL) {
		/* answered, waiting for the tunnel's reason: not any more */
		c->tunnel->call = NULL;
		c->tunnel = NULL;
		call_set_error(c, NP_ERR_CANCELLED, "cancelled");
		call_ready(c);
	}
}

int
node_api_new(uv_loop_t *loop, struct engine *e, struct node_api **out)
{
	struct node_api *api;
	int r;

	*out = NULL;
	if ((api = calloc(1, sizeof *api)) == NULL)
		return NP_ERR_NOMEM;
	if ((r = http_new(loop, &api->http)) != 0) {
		free(api);
		return r;
	}
	api->loop = loop;
	api->engine = e;
	uv_idle_init(loop, &api->pump);
	api->pump.data = api;
	*out = api;
	return 0;
}

static void
api_pump_closed_cb(uv_handle_t *h)
{
	struct node_api *api = h->data;

	api->pump_closed = 1;
	if (api->closed_cb != NULL)
		api->closed_cb(api->closed_arg);
}

static void
api_http_closed_cb(void *arg)
{
	struct node_api *api = arg;

	api->http_closed = 1;
	api_check_closed(api);
}

/* Closing: once every call is reported, every tunnel gone and the HTTP
   client closed, close the pump; its close callback ends it. */
static void
api_check_closed(struct node_api *api)
{
	if (!api->closing || !api->http_closed || api->calls != NULL ||
	    api->ready != NULL || api->tunnels != NULL ||
	    uv_is_closing((uv_handle_t *)&api->pump))
		return;
	uv_close((uv_handle_t *)&api->pump, api_pump_closed_cb);
}

void
node_api_close(struct node_api *api, void (*closed_cb)(void *arg), void *arg)
{
	struct node_call *c, *next;

	api->closing = 1;
	api->closed_cb = closed_cb;
	api->closed_arg = arg;
	for (c = api->calls; c != NULL; c = next) {
		next = c->next;
		node_call_cancel(c);
	}
	/* cancels what is left and closes the bridges, which ends the
	   tunnels; their reports come through tunnel_closed_cb */
	http_close(api->http, api_http_closed_cb, api);
}

void
node_api_free(struct node_api *api)
{
	if (api == NULL)
		return;
	http_free(api->http);
	free(api);
}
