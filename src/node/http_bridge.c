/*
 * A loopback bridge from libcurl to a caller's socket (see http_bridge.h
 * for why it exists). Bytes are copied both ways as they come; a side that
 * cannot keep up stops the other side's reads. The client side (libcurl)
 * decides the end: when it closes, the request is over and the caller's
 * socket is closed too, which is what ends an SSH tunnel. When the
 * caller's side ends first (the server closed), libcurl's side gets EOF
 * and the bridge waits for libcurl to close.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "error.h"
#include "http_bridge.h"

/* Unwritten bytes on one side before the other side stops reading. */
#define BRIDGE_QUEUE_MAX (1u << 20)

struct bridge_write {
	uv_write_t req;
	struct http_bridge *bridge;
	char *data;
};

struct http_bridge {
	uv_tcp_t listener;
	uv_tcp_t client;	/* libcurl's connection, once accepted */
	uv_pipe_t peer;		/* the caller's socket */
	uv_shutdown_t shutdown;
	int accepted;
	int closing;
	int silent;		/* failed to open: close without closed_cb */
	int client_paused, peer_paused;	/* reads stopped: other side full */
	int open_handles;
	http_bridge_closed_cb closed_cb;
	void *arg;
	struct http_bridge **self;
};

static void
bridge_handle_closed_cb(uv_handle_t *h)
{
	struct http_bridge *b = h->data;

	if (--b->open_handles > 0)
		return;
	if (b->self != NULL)
		*b->self = NULL;
	if (!b->silent)
		b->closed_cb(b, b->arg);
	free(b);
}

static void
close_handle(struct http_bridge *b, uv_handle_t *h)
{
	if (!uv_is_closing(h)) {
		h->data = b;
		uv_close(h, bridge_handle_closed_cb);
	}
}

void
http_bridge_close(struct http_bridge *b)
{
	if (b->closing)
		return;
	b->closing = 1;
	close_handle(b, (uv_handle_t *)&b->listener);
	close_handle(b, (uv_handle_t *)&b->peer);
	if (b->accepted)
		close_handle(b, (uv_handle_t *)&b->client);
}

void
http_bridge_release(struct http_bridge *b)
{
	if (b != NULL && !b->accepted)
		http_bridge_close(b);
}

static uv_stream_t *
other_side(struct http_bridge *b, uv_stream_t *s)
{
	return s == (uv_stream_t *)&b->client ? (uv_stream_t *)&b->peer :
	    (uv_stream_t *)&b->client;
}

static void bridge_read_cb(uv_stream_t *s, ssize_t n, const uv_buf_t *buf);

static int *
paused_flag(struct http_bridge *b, uv_stream_t *s)
{
	return s == (uv_stream_t *)&b->client ? &b->client_paused :
	    &b->peer_paused;
}

static void
bridge_alloc_cb(uv_handle_t *h, size_t hint, uv_buf_t *buf)
{
	buf->base = malloc(65536);
	buf->len = buf->base != NULL ? 65536 : 0;
}

static void
bridge_write_cb(uv_write_t *req, int status)
{
	struct bridge_write *w = (struct bridge_write *)req;
	struct http_bridge *b = w->bridge;
	uv_stream_t *to = req->handle, *from = other_side(b, to);

	free(w->data);
	free(w);
	if (b->closing)
		return;
	if (status < 0) {
		http_bridge_close(b);
		return;
	}
	/* the writing side caught up: read the other again */
	if (*paused_flag(b, from) &&
	    uv_stream_get_write_queue_size(to) < BRIDGE_QUEUE_MAX) {
		*paused_flag(b, from) = 0;
		uv_read_start(from, bridge_alloc_cb, bridge_read_cb);
	}
}

static void
bridge_forward(struct http_bridge *b, uv_stream_t *from, char *data,
    size_t len)
{
	uv_stream_t *to = other_side(b, from);
	struct bridge_write *w = malloc(sizeof *w);
	uv_buf_t buf = uv_buf_init(data, (unsigned)len);

	if (w == NULL) {
		free(data);
		http_bridge_close(b);
		return;
	}
	w->bridge = b;
	w->data = data;
	if (uv_write(&w->req, to, &buf, 1, bridge_write_cb) != 0) {
		free(data);
		free(w);
		http_bridge_close(b);
		return;
	}
	if (uv_stream_get_write_queue_size(to) >= BRIDGE_QUEUE_MAX) {
		*paused_flag(b, from) = 1;
		uv_read_stop(from);
	}
}

static void
bridge_shutdown_cb(uv_shutdown_t *req, int status)
{
}

static void
bridge_read_cb(uv_stream_t *s, ssize_t n, const uv_buf_t *buf)
{
	struct http_bridge *b = s->data;

	if (n > 0) {
		bridge_forward(b, s, buf->base, (size_t)n);
		return;
	}
	free(buf->base);
	if (n == 0 || b->closing)
		return;
	if (s == (uv_stream_t *)&b->peer && n == UV_EOF) {
		/* the server is done: libcurl sees EOF, then closes */
		uv_read_stop(s);
		uv_shutdown(&b->shutdown, (uv_stream_t *)&b->client,
		    bridge_shutdown_cb);
		return;
	}
	http_bridge_close(b);	/* libcurl closed, or an error */
}

static void
bridge_connection_cb(uv_stream_t *listener, int status)
{
	struct http_bridge *b = listener->data;

	if (b->closing || b->accepted)
		return;
	if (status < 0 || uv_tcp_init(listener->loop, &b->client) != 0) {
		http_bridge_close(b);
		return;
	}
	b->accepted = 1;
	b->open_handles++;
	b->client.data = b;
	if (uv_accept(listener, (uv_stream_t *)&b->client) != 0) {
		http_bridge_close(b);
		return;
	}
	/* one connection only */
	close_handle(b, (uv_handle_t *)&b->listener);
	b->peer.data = b;
	uv_read_start((uv_stream_t *)&b->client, bridge_alloc_cb,
	    bridge_read_cb);
	uv_read_start((uv_stream_t *)&b->peer, bridge_alloc_cb,
	    bridge_read_cb);
}

static int
bridge_listen(struct http_bridge *b, int *port)
{
	struct sockaddr_in addr;
	int len = sizeof addr;

	uv_ip4_addr("127.0.0.1", 0, &addr);
	if (uv_tcp_bind(&b->listener, (const struct sockaddr *)&addr, 0) != 0 ||
	    uv_listen((uv_stream_t *)&b->listener, 1,
	    bridge_connection_cb) != 0 ||
	    uv_tcp_getsockname(&b->listener, (struct sockaddr *)&addr,
	    &len) != 0)
		return NP_ERR_SYSTEM;
	*port = ntohs(addr.sin_port);
	return 0;
}

int
http_bridge_open(uv_loop_t *loop, int fd, http_bridge_closed_cb closed_cb,
    void *arg, struct http_bridge **self, int *port)
{
	struct http_bridge *b;
	int r = NP_ERR_SYSTEM;

	if ((b = calloc(1, sizeof *b)) == NULL) {
		close(fd);
		return NP_ERR_NOMEM;
	}
	b->closed_cb = closed_cb;
	b->arg = arg;
	uv_pipe_init(loop, &b->peer, 0);
	uv_tcp_init(loop, &b->listener);
	b->peer.data = b;
	b->listener.data = b;
	b->open_handles = 2;
	if (uv_pipe_open(&b->peer, fd) != 0) {
		close(fd);
		goto fail;
	}
	if ((r = bridge_listen(b, port)) != 0)
		goto fail;
	b->self = self;
	if (self != NULL)
		*self = b;
	return 0;
fail:
	/* the handles close on a later turn; nobody hears of it */
	b->silent = 1;
	http_bridge_close(b);
	return r;
}
