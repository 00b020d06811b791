/*
 * Calls to the otela node's HTTP API on a host of the inventory, where it
 * listens on 127.0.0.1:port. Over the ssh transport a call is an HTTP
 * request by libcurl (http.h) through a direct-tcpip tunnel of the host's
 * existing SSH session (engine_tunnel_open): no new connection, no remote
 * process. Hosts whose transport has no tunnels (command, local) run `curl`
 * there through engine_submit, as the upstream tool does.
 *
 * Contract, as libuv's: cb is called exactly once per call, always on a
 * later loop turn than node_api_call() or node_call_cancel(). When
 * node_api_call() returns an error (bad arguments, closing, no memory) no
 * call was made and cb is never called.
 *
 * The reply's error is the same on both paths for the same trouble:
 * NP_ERR_CONNECT (nothing listens on the port there), NP_ERR_TIMEOUT,
 * NP_ERR_IO (the connection broke before a whole answer), NP_ERR_CANCELLED;
 * the host's own troubles as the engine reports them (NP_ERR_CONNECT,
 * _AUTH, _SESSION_LOST ...); NP_ERR_TOOL_MISSING when curl is needed on
 * the host and is not there.
 */
#ifndef NETPROF_NODE_API_H
#define NETPROF_NODE_API_H

/* The longest answer taken, per endpoint (see docs/bench.md). */
#define NODE_API_SMALL_MAX (64u << 10)	/* health, punch, anything else */
#define NODE_API_TABLE_MAX (4u << 20)	/* /v1/dnt/table */
#define NODE_API_PROBE_MAX (16u << 20)	/* /v1/probe/run */

#include <stddef.h>
#include <uv.h>

#include "engine.h"
#include "inventory.h"

struct trace_span;

struct node_api;
struct node_call;

struct node_reply {
	int error;		/* NP_OK if an HTTP answer arrived (any status) */
	const char *error_text;	/* why not, naming host and port; NULL if ok */
	long status;		/* HTTP status; 0 if none */
	const char *body;	/* NUL-terminated, never NULL */
	size_t body_len;
	double elapsed_s;	/* request sent → answer complete */
	int via_tunnel;		/* 1: SSH tunnel + libcurl; 0: curl on the host */
};

/* Called exactly once per call, on a later loop turn; strings live until
   it returns. */
typedef void (*node_reply_cb)(const struct machine *m,
    const struct node_reply *r, void *arg);

/* One per run, on the engine's loop. */
int node_api_new(uv_loop_t *loop, struct engine *e, struct node_api **out);

/*
 * method "GET" or "POST"; path like "/v1/health"; body (JSON) or NULL;
 * timeout_s > 0 bounds the whole call; span (NULL: none) is the span the
 * call belongs to (the probe's, the host step's), whose W3C traceparent
 * header the request carries, so a node that traces joins the run's
 * trace. *callp (optional) is valid until cb.
 */
int node_api_call(struct node_api *api, const struct machine *m, int port,
    const char *method, const char *path, const char *body,
    double timeout_s, const struct trace_span *span, node_reply_cb cb,
    void *arg, struct node_call **callp);

/* cb is still called, with NP_ERR_CANCELLED. */
void node_call_cancel(struct node_call *c);

/* Cancel every call, close every handle; closed_cb once all is closed,
   on a later turn. Call before engine_close(). Then node_api_free(). */
void node_api_close(struct node_api *api, void (*closed_cb)(void *arg),
    void *arg);
void node_api_free(struct node_api *api);

#endif
