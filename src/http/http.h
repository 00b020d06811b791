/*
 * An HTTP/1.1 client on libcurl's multi interface, driven from a libuv loop:
 * many requests at once on one thread, each bounded by a timeout. A request
 * may bring its own connected socket (an SSH tunnel's end): libcurl then
 * speaks HTTP over that descriptor instead of connecting. Its users: the
 * node API's calls (node_api.c) and the trace exporter's (trace_export.c),
 * which sends header lines of its own and may reach its collector over
 * HTTPS or a proxy.
 *
 * Contract, as libuv's: on_done is called exactly once per request, always
 * on a later loop turn than the call that started or cancelled it.
 */
#ifndef NETPROF_HTTP_H
#define NETPROF_HTTP_H

#include <stddef.h>
#include <uv.h>

struct http_client;
struct http_call;

struct http_response {
	int error;		/* NP_OK if an HTTP answer arrived (any status);
				   NP_ERR_CONNECT, _TIMEOUT, _IO, _PROTOCOL,
				   _CANCELLED, _NOMEM */
	const char *error_text;	/* why not, naming the URL; NULL if ok */
	long status;		/* HTTP status; 0 if none */
	const char *body;	/* NUL-terminated, never NULL */
	size_t body_len;
	double elapsed_s;	/* request started → answer complete */
};

/* The response; its strings live until the callback returns. */
typedef void (*http_done_cb)(const struct http_response *res, void *arg);

struct http_request {
	const char *method;	/* "GET", "POST", ... */
	const char *url;	/* http://127.0.0.1:19090/v1/health */
	const char *body;	/* sent as is; NULL: none */
	size_t body_len;
	const char *content_type; /* for body; NULL: application/json */
	double timeout_s;	/* > 0: bounds the whole request */
	size_t max_body;	/* > 0: a longer answer fails (NP_ERR_PROTOCOL);
				   0: the client's cap, 64 MiB */
	const char *const *headers; /* more header lines, "Name: value",
				   NULL-terminated; NULL: none */
	int remote;		/* 1: a server elsewhere: https too, and the
				   environment's proxy (https_proxy, no_proxy);
				   0: plain http, never a proxy (a node's API,
				   on the loopback of its host) */
	int fd;			/* >= 0: a connected stream socket to use
				   instead of connecting (the URL's host and
				   port then only name the Host header); owned
				   by the client from here on, closed when the
				   request ends, never reused. -1: connect */
	http_done_cb on_done;	/* required */
	void *arg;
};

/* A new client on loop. */
int http_new(uv_loop_t *loop, struct http_client **out);

/*
 * Start req (copied). *callp (optional) is valid until on_done. On error
 * nothing is started and on_done is never called (req->fd is closed).
 */
int http_request(struct http_client *c, const struct http_request *req,
    struct http_call **callp);

/* Stop call: on_done gets NP_ERR_CANCELLED on a later turn. */
void http_cancel(struct http_call *call);

/* Requests started and not yet reported. */
size_t http_pending(const struct http_client *c);

/*
 * Cancel every request and close every handle; closed_cb (optional) once
 * all is closed, on a later turn. Then http_free().
 */
void http_close(struct http_client *c, void (*closed_cb)(void *arg),
    void *arg);
void http_free(struct http_client *c);

#endif
