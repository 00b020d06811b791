/*
 * HTTP client on libcurl's multi interface, driven by the libuv loop that
 * drives everything else: libcurl says which sockets to watch
 * (CURLMOPT_SOCKETFUNCTION → one uv_poll per socket) and when to call it
 * back (CURLMOPT_TIMERFUNCTION → one uv_timer); each event is handed to
 * curl_multi_socket_action() and finished transfers are read with
 * curl_multi_info_read(). No thread, no blocking call. Finished requests
 * wait on a list that a uv_idle handle (the pump) delivers, so on_done never
 * runs inside http_request() or http_cancel() (libuv's rule).
 *
 * A request with its own socket (an SSH tunnel's end) reaches libcurl
 * through a loopback bridge (http_bridge.c, which says why).
 */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <curl/curl.h>

#include "error.h"
#include "http.h"
#include "http_bridge.h"
#include "log.h"
#include "util.h"

/* More than any node answer; a runaway body fails instead of eating RAM. */
#define HTTP_MAX_BODY (64u << 20)

struct http_socket {
	uv_poll_t poll;
	curl_socket_t fd;
	struct http_client *client;
	struct http_socket *prev, *next;
};

/* The client's hold on a bridge, gone when the bridge has closed. */
struct bridge_ref {
	struct http_client *client;
	struct http_bridge *bridge;	/* cleared by the bridge */
	struct http_call *call;		/* NULL once the call is freed */
	struct bridge_ref *prev, *next;
};

struct http_call {
	struct http_client *client;
	struct http_call *prev, *next;	/* running, or done (next only) */
	CURL *easy;
	struct curl_slist *headers;
	struct curl_slist *connect_to;
	struct bridge_ref *bridge;	/* a request on the caller's socket */
	char *method;
	char *url;
	char errbuf[CURL_ERROR_SIZE];
	struct buf body;	/* the answer */
	size_t max_body;	/* its cap */
	int too_big;
	int retired;		/* finished or cancelled: waits for the pump */
	uint64_t started_ns;
	http_done_cb on_done;
	void *arg;
	int error;
	char *error_text;
	long status;
	double elapsed_s;
};

struct http_client {
	uv_loop_t *loop;
	CURLM *multi;
	uv_timer_t timer;
	uv_idle_t pump;
	struct http_call *running;
	struct http_call *done, *done_tail;
	struct http_socket *sockets;
	struct bridge_ref *bridges;
	size_t pending;		/* requests not yet reported */
	int open_handles;	/* timer, pump, polls, bridges not closed */
	int closing;
	void (*closed_cb)(void *arg);
	void *closed_arg;
};

static int curl_global_ready;

static void client_check_done(struct http_client *c);
static void client_finish_close(struct http_client *c);

static void
handle_closed_cb(uv_handle_t *h)
{
	struct http_client *c = h->data;

	if (h->type == UV_POLL)
		free(h);	/* the uv_poll_t is the first member */
	if (--c->open_handles == 0 && c->closing && c->closed_cb != NULL)
		c->closed_cb(c->closed_arg);
}

static void
socket_forget(struct http_socket *s)
{
	struct http_client *c = s->client;

	if (s->prev != NULL)
		s->prev->next = s->next;
	else
		c->sockets = s->next;
	if (s->next != NULL)
		s->next->prev = s->prev;
	uv_poll_stop(&s->poll);
	uv_close((uv_handle_t *)&s->poll, handle_closed_cb);
}

static void
socket_event_cb(uv_poll_t *poll, int status, int events)
{
	struct http_socket *s = (struct http_socket *)poll;
	struct http_client *c = s->client;
	int flags = 0, running;

	if (status < 0)
		flags = CURL_CSELECT_ERR;
	if (events & UV_READABLE)
		flags |= CURL_CSELECT_IN;
	if (events & UV_WRITABLE)
		flags |= CURL_CSELECT_OUT;
	curl_multi_socket_action(c->multi, s->fd, flags, &running);
	client_check_done(c);
}

/* CURLMOPT_SOCKETFUNCTION: watch fd as libcurl asks. */
static int
multi_socket_cb(CURL *easy, curl_socket_t fd, int what, void *userp,
    void *socketp)
{
	struct http_client *c = userp;
	struct http_socket *s = socketp;
	int events = 0;

	if (what == CURL_POLL_REMOVE) {
		if (s != NULL) {
			curl_multi_assign(c->multi, fd, NULL);
			socket_forget(s);
		}
		return 0;
	}
	if (s == NULL) {
		if ((s = calloc(1, sizeof *s)) == NULL)
			return -1;
		if (uv_poll_init_socket(c->loop, &s->poll, fd) != 0) {
			free(s);
			return -1;
		}
		s->fd = fd;
		s->client = c;
		s->poll.data = c;
		s->next = c->sockets;
		if (s->next != NULL)
			s->next->prev = s;
		c->sockets = s;
		c->open_handles++;
		curl_multi_assign(c->multi, fd, s);
	}
	if (what & CURL_POLL_IN)
		events |= UV_READABLE;
	if (what & CURL_POLL_OUT)
		events |= UV_WRITABLE;
	uv_poll_start(&s->poll, events, socket_event_cb);
	return 0;
}

static void
client_timer_cb(uv_timer_t *timer)
{
	struct http_client *c = timer->data;
	int running;

	curl_multi_socket_action(c->multi, CURL_SOCKET_TIMEOUT, 0, &running);
	client_check_done(c);
}

/* CURLMOPT_TIMERFUNCTION: one timer; 0 ms fires on the next loop turn. */
static int
multi_timer_cb(CURLM *multi, long timeout_ms, void *userp)
{
	struct http_client *c = userp;

	if (timeout_ms < 0)
		uv_timer_stop(&c->timer);
	else
		uv_timer_start(&c->timer, client_timer_cb, (uint64_t)timeout_ms,
		    0);
	return 0;
}

static void
call_free(struct http_call *call)
{
	if (call->easy != NULL)
		curl_easy_cleanup(call->easy);
	curl_slist_free_all(call->headers);
	curl_slist_free_all(call->connect_to);
	if (call->bridge != NULL) {
		call->bridge->call = NULL;
		http_bridge_release(call->bridge->bridge);
	}
	free(call->method);
	free(call->url);
	buf_free(&call->body);
	free(call->error_text);
	free(call);
}

static void
client_pump_cb(uv_idle_t *idle)
{
	struct http_client *c = idle->data;
	struct http_call *batch = c->done, *call;
	struct http_response res;

	/* only what was done before this turn: a cancel from inside on_done
	   is reported on the next one */
	c->done = c->done_tail = NULL;
	while ((call = batch) != NULL) {
		batch = call->next;
		memset(&res, 0, sizeof res);
		res.error = call->error;
		res.error_text = call->error_text;
		res.status = call->status;
		res.body = call->body.data != NULL ? call->body.data : "";
		res.body_len = call->body.len;
		res.elapsed_s = call->elapsed_s;
		c->pending--;
		call->on_done(&res, call->arg);
		call_free(call);
	}
	if (c->done == NULL)
		uv_idle_stop(&c->pump);
	if (c->closing && c->pending == 0)
		client_finish_close(c);
}

static const char *
error_kind(CURLcode code, int *error)
{
	switch (code) {
	case CURLE_COULDNT_CONNECT:
	case CURLE_COULDNT_RESOLVE_HOST:
		*error = NP_ERR_CONNECT;
		return "could not connect";
	case CURLE_OPERATION_TIMEDOUT:
		*error = NP_ERR_TIMEOUT;
		return "timed out";
	case CURLE_OUT_OF_MEMORY:
		*error = NP_ERR_NOMEM;
		return "out of memory";
	case CURLE_GOT_NOTHING:
	case CURLE_RECV_ERROR:
	case CURLE_SEND_ERROR:
	case CURLE_PARTIAL_FILE:
		*error = NP_ERR_IO;
		return "connection broke";
	default:
		*error = NP_ERR_PROTOCOL;
		return "failed";
	}
}

static void
call_set_error(struct http_call *call, int error, const char *what,
    const char *detail)
{
	size_t len = strlen(call->method) + strlen(call->url) + strlen(what) +
	    strlen(detail) + 8;

	call->error = error;
	free(call->error_text);
	if ((call->error_text = malloc(len)) != NULL)
		snprintf(call->error_text, len, "%s %s: %s%s%s", call->method,
		    call->url, what, *detail ? ": " : "", detail);
}

/* Move call from the running list to the done list, for the pump. */
static void
call_retire(struct http_call *call)
{
	struct http_client *c = call->client;

	call->retired = 1;
	if (call->prev != NULL)
		call->prev->next = call->next;
	else
		c->running = call->next;
	if (call->next != NULL)
		call->next->prev = call->prev;
	call->prev = NULL;
	call->next = NULL;
	curl_multi_remove_handle(c->multi, call->easy);
	call->elapsed_s = (double)(uv_hrtime() - call->started_ns) / 1e9;
	if (c->done_tail != NULL)
		c->done_tail->next = call;
	else
		c->done = call;
	c->done_tail = call;
	uv_idle_start(&c->pump, client_pump_cb);
}

static void
call_complete(struct http_call *call, CURLcode code)
{
	const char *what;

	if (code == CURLE_OK) {
		curl_easy_getinfo(call->easy, CURLINFO_RESPONSE_CODE,
		    &call->status);
		call->error = NP_OK;
	} else if (call->too_big) {
		char cap[64];

		snprintf(cap, sizeof cap, "answer larger than %zu bytes",
		    call->max_body);
		call_set_error(call, NP_ERR_PROTOCOL, cap, "");
	} else {
		what = error_kind(code, &call->error);
		call_set_error(call, call->error, what, call->errbuf[0] ?
		    call->errbuf : curl_easy_strerror(code));
	}
	call_retire(call);
}

static void
client_check_done(struct http_client *c)
{
	struct http_call *call;
	CURLMsg *msg;
	int left;

	while ((msg = curl_multi_info_read(c->multi, &left)) != NULL) {
		if (msg->msg != CURLMSG_DONE)
			continue;
		curl_easy_getinfo(msg->easy_handle, CURLINFO_PRIVATE,
		    (char **)&call);
		call_complete(call, msg->data.result);
	}
}

static size_t
call_write_cb(char *data, size_t size, size_t n, void *arg)
{
	struct http_call *call = arg;
	size_t len = size * n;

	if (call->body.len + len > call->max_body) {
		call->too_big = 1;
		return 0;
	}
	return buf_append(&call->body, data, len) == 0 ? len : 0;
}

static void
client_bridge_closed_cb(struct http_bridge *b, void *arg)
{
	struct bridge_ref *ref = arg;
	struct http_client *c = ref->client;

	if (ref->call != NULL)
		ref->call->bridge = NULL;
	if (ref->prev != NULL)
		ref->prev->next = ref->next;
	else
		c->bridges = ref->next;
	if (ref->next != NULL)
		ref->next->prev = ref->prev;
	free(ref);
	if (--c->open_handles == 0 && c->closing && c->closed_cb != NULL)
		c->closed_cb(c->closed_arg);
}

/*
 * Requests on the caller's socket go through a bridge (http_bridge.h):
 * libcurl connects to the bridge's Unix socket instead of the URL's host
 * (which then only names the Host header). Such a connection is never
 * kept for reuse: a kept connection would be one host's tunnel.
 */
static int
call_bridge(struct http_call *call, int fd)
{
	struct http_client *c = call->client;
	struct bridge_ref *ref;
	char path[108];
	int r;

	if ((ref = calloc(1, sizeof *ref)) == NULL) {
		close(fd);
		return NP_ERR_NOMEM;
	}
	ref->client = c;
	if ((r = http_bridge_open(c->loop, fd, client_bridge_closed_cb, ref,
	    &ref->bridge, path, sizeof path)) != 0) {
		free(ref);
		return r;
	}
	ref->next = c->bridges;
	if (ref->next != NULL)
		ref->next->prev = ref;
	c->bridges = ref;
	c->open_handles++;
	ref->call = call;
	call->bridge = ref;
	/* libcurl copies the string */
	curl_easy_setopt(call->easy, CURLOPT_UNIX_SOCKET_PATH, path);
	curl_easy_setopt(call->easy, CURLOPT_FRESH_CONNECT, 1L);
	curl_easy_setopt(call->easy, CURLOPT_FORBID_REUSE, 1L);
	return 0;
}

static int
call_setup(struct http_call *call, const struct http_request *req)
{
	CURL *e = call->easy;
	char header[256];
	long timeout_ms = (long)(req->timeout_s * 1000);
	size_t i;

	call->max_body = req->max_body > 0 && req->max_body < HTTP_MAX_BODY ?
	    req->max_body : HTTP_MAX_BODY;
	curl_easy_setopt(e, CURLOPT_PRIVATE, call);
	curl_easy_setopt(e, CURLOPT_URL, call->url);
	curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
	if (log_get_level() >= LOG_TRACE)	/* -vv: libcurl's own story */
		curl_easy_setopt(e, CURLOPT_VERBOSE, 1L);
	if (!req->remote) {
		curl_easy_setopt(e, CURLOPT_PROXY, "");	/* never http_proxy */
		curl_easy_setopt(e, CURLOPT_PROTOCOLS_STR, "http");
	} else
		curl_easy_setopt(e, CURLOPT_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(e, CURLOPT_ERRORBUFFER, call->errbuf);
	curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, call_write_cb);
	curl_easy_setopt(e, CURLOPT_WRITEDATA, call);
	if (timeout_ms > 0) {
		curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, timeout_ms);
		curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS, timeout_ms);
	}
	if (strcmp(req->method, "GET") != 0)
		curl_easy_setopt(e, CURLOPT_CUSTOMREQUEST, call->method);
	if (req->body != NULL) {
		curl_easy_setopt(e, CURLOPT_POSTFIELDSIZE_LARGE,
		    (curl_off_t)req->body_len);
		curl_easy_setopt(e, CURLOPT_COPYPOSTFIELDS, req->body);
		snprintf(header, sizeof header, "Content-Type: %s",
		    req->content_type ? req->content_type : "application/json");
		if ((call->headers = curl_slist_append(call->headers,
		    header)) == NULL)
			return NP_ERR_NOMEM;
	}
	/* no "Expect: 100-continue" round trip */
	if ((call->headers = curl_slist_append(call->headers, "Expect:")) ==
	    NULL)
		return NP_ERR_NOMEM;
	for (i = 0; req->headers != NULL && req->headers[i] != NULL; i++)
		if ((call->headers = curl_slist_append(call->headers,
		    req->headers[i])) == NULL)
			return NP_ERR_NOMEM;
	curl_easy_setopt(e, CURLOPT_HTTPHEADER, call->headers);
	if (req->fd >= 0)
		return call_bridge(call, req->fd);
	return 0;
}

int
http_request(struct http_client *c, const struct http_request *req,
    struct http_call **callp)
{
	struct http_call *call;
	int r = NP_ERR_NOMEM, fd;

	if (callp != NULL)
		*callp = NULL;
	if (c->closing || req->method == NULL || req->url == NULL ||
	    req->on_done == NULL) {
		if (req->fd >= 0)
			close(req->fd);
		return NP_ERR_USAGE;
	}
	if ((call = calloc(1, sizeof *call)) == NULL) {
		if (req->fd >= 0)
			close(req->fd);
		return NP_ERR_NOMEM;
	}
	fd = req->fd;
	call->client = c;
	call->on_done = req->on_done;
	call->arg = req->arg;
	if ((call->method = strdup(req->method)) == NULL ||
	    (call->url = strdup(req->url)) == NULL ||
	    (call->easy = curl_easy_init()) == NULL)
		goto out;
	r = call_setup(call, req);
	fd = -1;	/* the bridge's, or closed */
	if (r != 0)
		goto out;
	call->started_ns = uv_hrtime();
	if (curl_multi_add_handle(c->multi, call->easy) != CURLM_OK) {
		r = NP_ERR_NOMEM;
		goto out;
	}
	call->next = c->running;
	if (call->next != NULL)
		call->next->prev = call;
	c->running = call;
	c->pending++;
	if (callp != NULL)
		*callp = call;
	call = NULL;	/* running */
	r = 0;
out:
	if (fd >= 0)
		close(fd);
	if (call != NULL)
		call_free(call);
	return r;
}

void
http_cancel(struct http_call *call)
{
	if (call->retired)
		return;	/* finished already; reported soon */
	call_set_error(call, NP_ERR_CANCELLED, "cancelled", "");
	call_retire(call);
}

size_t
http_pending(const struct http_client *c)
{
	return c->pending;
}

int
http_new(uv_loop_t *loop, struct http_client **out)
{
	struct http_client *c;

	*out = NULL;
	/* a bridge writing to a tunnel the other end closed must not kill us */
	signal(SIGPIPE, SIG_IGN);
	if (!curl_global_ready) {
		if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK)
			return NP_ERR_SYSTEM;
		curl_global_ready = 1;
	}
	if ((c = calloc(1, sizeof *c)) == NULL)
		return NP_ERR_NOMEM;
	if ((c->multi = curl_multi_init()) == NULL) {
		free(c);
		return NP_ERR_NOMEM;
	}
	c->loop = loop;
	curl_multi_setopt(c->multi, CURLMOPT_SOCKETFUNCTION, multi_socket_cb);
	curl_multi_setopt(c->multi, CURLMOPT_SOCKETDATA, c);
	curl_multi_setopt(c->multi, CURLMOPT_TIMERFUNCTION, multi_timer_cb);
	curl_multi_setopt(c->multi, CURLMOPT_TIMERDATA, c);
	uv_timer_init(loop, &c->timer);
	uv_idle_init(loop, &c->pump);
	c->timer.data = c;
	c->pump.data = c;
	c->open_handles = 2;
	*out = c;
	return 0;
}

/* Every request reported: drop libcurl's state, then close the handles. */
static void
client_finish_close(struct http_client *c)
{
	struct bridge_ref *ref;

	if (c->multi == NULL)
		return;
	curl_multi_cleanup(c->multi);	/* may remove sockets through the
					   socket callback */
	c->multi = NULL;
	while (c->sockets != NULL)
		socket_forget(c->sockets);
	for (ref = c->bridges; ref != NULL; ref = ref->next)
		if (ref->bridge != NULL)
			http_bridge_close(ref->bridge);
	uv_close((uv_handle_t *)&c->timer, handle_closed_cb);
	uv_close((uv_handle_t *)&c->pump, handle_closed_cb);
}

void
http_close(struct http_client *c, void (*closed_cb)(void *arg), void *arg)
{
	c->closing = 1;
	c->closed_cb = closed_cb;
	c->closed_arg = arg;
	while (c->running != NULL) {
		call_set_error(c->running, NP_ERR_CANCELLED, "cancelled", "");
		call_retire(c->running);
	}
	/* the pump reports them, then closes; with nothing to report it
	   still runs once so closed_cb comes on a later turn */
	uv_idle_start(&c->pump, client_pump_cb);
}

void
http_free(struct http_client *c)
{
	free(c);
}
