/*
 * A bridge from libcurl to a caller's socket (see http_bridge.h for why
 * it exists), listening on a Unix socket in a directory of its own, mode
 * 0700, so that no other user of this machine can connect: a TCP port on
 * 127.0.0.1 would take the first connection from anyone, and hand them
 * the remote node's API through this user's SSH session. The one
 * connection accepted must come from this process (SO_PEERCRED); the
 * socket and its directory are removed as soon as it is accepted. Bytes are copied both ways as they come; a side that
 * cannot keep up stops the other side's reads. The client side (libcurl)
 * decides the end: when it closes, the request is over and the caller's
 * socket is closed too, which is what ends an SSH tunnel. When the
 * caller's side ends first (the server closed), libcurl's side gets EOF
 * and the bridge waits for libcurl to close.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
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
	uv_pipe_t listener;
	uv_pipe_t client;	/* libcurl's connection, once accepted */
	char dir[96];		/* the private directory; "" once removed */
	char path[108];		/* dir/s, the socket */
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

/* Once accepted (or closing) nobody needs the socket's name. */
static void
remove_socket(struct http_bridge *b)
{
	if (b->dir[0] == '\0')
		return;
	unlink(b->path);
	rmdir(b->dir);
	b->dir[0] = '\0';
}

void
http_bridge_close(struct http_bridge *b)
{
	if (b->closing)
		return;
	b->closing = 1;
	remove_socket(b);
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

/* The peer of fd is this process (libcurl), as this user. */
static int
peer_is_us(int fd)
{
	struct ucred cr;
	socklen_t len = sizeof cr;

	return getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &len) == 0 &&
	    cr.pid == getpid() && cr.uid == getuid();
}

static void
bridge_connection_cb(uv_stream_t *listener, int status)
{
	struct http_bridge *b = listener->data;
	uv_os_fd_t fd;

	if (b->closing || b->accepted)
		return;
	if (status < 0 || uv_pipe_init(listener->loop, &b->client, 0) != 0) {
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
	if (uv_fileno((uv_handle_t *)&b->client, &fd) != 0 || !peer_is_us(fd)) {
		/* not libcurl: only root could reach the directory */
		http_bridge_close(b);
		return;
	}
	/* one connection only */
	remove_socket(b);
	close_handle(b, (uv_handle_t *)&b->listener);
	b->peer.data = b;
	uv_read_start((uv_stream_t *)&b->client, bridge_alloc_cb,
	    bridge_read_cb);
	uv_read_start((uv_stream_t *)&b->peer, bridge_alloc_cb,
	    bridge_read_cb);
}

/*
 * The socket's directory: new, 0700, under $XDG_RUNTIME_DIR (the user's
 * own, where there is one), else $TMPDIR, else /tmp, short enough for a
 * socket's name.
 */
static int
make_dir(struct http_bridge *b)
{
	const char *base[3] = { getenv("XDG_RUNTIME_DIR"), getenv("TMPDIR"),
	    "/tmp" };
	struct stat st;
	size_t i;
	int n;

	for (i = 0; i < 3; i++) {
		if (base[i] == NULL || base[i][0] != '/' ||
		    stat(base[i], &st) != 0 || !S_ISDIR(st.st_mode))
			continue;
		n = snprintf(b->dir, sizeof b->dir, "%s/netprof-XXXXXX",
		    base[i]);
		if (n < 0 || (size_t)n >= sizeof b->dir)
			continue;
		/* mkdtemp: mode 0700, a name nobody else holds */
		if (mkdtemp(b->dir) == NULL)
			continue;
		snprintf(b->path, sizeof b->path, "%s/s", b->dir);
		return 0;
	}
	b->dir[0] = '\0';
	return NP_ERR_SYSTEM;
}

static int
bridge_listen(struct http_bridge *b, char *path, size_t size)
{
	int r;

	if (make_dir(b) != 0)
		return NP_ERR_SYSTEM;
	if ((r = uv_pipe_bind(&b->listener, b->path)) != 0 ||
	    (r = uv_listen((uv_stream_t *)&b->listener, 1,
	    bridge_connection_cb)) != 0)
		/* the listener's socket is one more descriptor */
		return r == UV_EMFILE || r == UV_ENFILE ? NP_ERR_NOFILES :
		    NP_ERR_SYSTEM;
	if ((size_t)snprintf(path, size, "%s", b->path) >= size)
		return NP_ERR_SYSTEM;
	return 0;
}

int
http_bridge_open(uv_loop_t *loop, int fd, http_bridge_closed_cb closed_cb,
    void *arg, struct http_bridge **self, char *path, size_t size)
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
	uv_pipe_init(loop, &b->listener, 0);
	b->peer.data = b;
	b->listener.data = b;
	b->open_handles = 2;
	if (uv_pipe_open(&b->peer, fd) != 0) {
		close(fd);
		goto fail;
	}
	if ((r = bridge_listen(b, path, size)) != 0)
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
