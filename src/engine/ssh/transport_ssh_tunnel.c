/*
 * The ssh transport's tunnels (engine_tunnel_open): a direct-tcpip channel
 * of the host's session relayed to one end of a socket pair whose other
 * end the caller holds, as a connected TCP socket (docs/engine.md).
 */
#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "error.h"
#include "log.h"
#include "transport_ssh.h"
#include "util.h"

/* ------------------------------------------------------------------ */
/*
 * Tunnels. Bytes from the caller are read from our end of the socket pair
 * into up and written to the channel as its window allows; bytes from the
 * channel (its data callback) go into down and are written to our end as
 * the socket takes them. Our end is watched for reading only while up has
 * room and the channel is open, for writing only while down has bytes, so
 * that a caller that writes before the channel opens just fills the pair.
 * down is bounded too: the data callback takes no more than TUNNEL_BUF,
 * the rest stays in libssh's channel buffer, which stops growing the SSH
 * window once it holds half of it (so a caller that stops reading stops
 * the sender), and tunnel_pull_down takes it once down has drained.
 */

static const char *
tunnel_host(const struct transport_ssh_tunnel *t)
{
	return t->host->machine->name;
}

static void
tunnel_poll_closed_cb(uv_handle_t *hd)
{
	struct transport_ssh_tunnel *t = hd->data;
	struct engine *e = t->host->engine;
	char sink[4096];

	/*
	 * The caller reads EOF, as from a TCP peer's close: a socket closed
	 * with unread bytes would reset the pair (ECONNRESET) instead.
	 */
	shutdown(t->fd, SHUT_WR);
	while (recv(t->fd, sink, sizeof sink, MSG_DONTWAIT) > 0)
		continue;
	close(t->fd);
	free(t->up.data);
	free(t->down.data);
	free(t->target_host);
	free(t);
	engine_handle_closed(e);
}

/*
 * The end: the engine hears why (on a later turn), the channel is closed
 * and our end of the pair with it, so the caller reads EOF.
 */
void
transport_ssh_tunnel_end(struct transport_ssh_tunnel *t, int error,
    const char *fmt, ...)
{
	va_list ap;
	char *text = NULL;

	if (fmt != NULL) {
		va_start(ap, fmt);
		text = str_vprintf(fmt, ap);
		va_end(ap);
	}
	log_debug(tunnel_host(t), "tunnel to %s:%d ended (%s)",
	    t->target_host, t->target_port, error_string(error));
	engine_tunnel_finish(t->et, error, "%s", text != NULL ? text :
	    error_string(error));
	free(text);
	TAILQ_REMOVE(&t->host->tunnels, t, entry);
	transport_ssh_chan_free(t->host, t->chan);
	t->chan = NULL;
	uv_close((uv_handle_t *)&t->poll, tunnel_poll_closed_cb);
}

void
transport_ssh_tunnels_fail(struct transport_ssh_host *h, int error,
    const char *fmt, ...)
{
	struct transport_ssh_tunnel *t;
	va_list ap;
	char *text;

	if (TAILQ_EMPTY(&h->tunnels))
		return;
	va_start(ap, fmt);
	text = str_vprintf(fmt, ap);
	va_end(ap);
	while ((t = TAILQ_FIRST(&h->tunnels)) != NULL)
		transport_ssh_tunnel_end(t, error, "%s (tunnel to %s:%d)",
		    text != NULL ?
		    text : transport_ssh_host_name(h), t->target_host,
		    t->target_port);
	free(text);
}

/* Write down to our end; -1 when the caller has closed its end. */
static int
tunnel_flush_down(struct transport_ssh_tunnel *t)
{
	ssize_t n;

	while (t->down_off < t->down.len) {
		n = send(t->fd, t->down.data + t->down_off,
		    t->down.len - t->down_off, MSG_NOSIGNAL);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return 0;
		if (n < 0)
			return TRANSPORT_SSH_STEP_FAILED;
		t->down_off += (size_t)n;
	}
	t->down.len = t->down_off = 0;
	return 0;
}

static void tunnel_poll_cb(uv_poll_t *p, int status, int events);

/* Watch our end of the pair; 0, or a negative libuv code. */
static int
tunnel_update_poll(struct transport_ssh_tunnel *t)
{
	int events = 0, r;

	if (t->state == TUN_OPEN && !t->local_eof && t->up.len < TUNNEL_BUF)
		events |= UV_READABLE;
	if (t->down_off < t->down.len)
		events |= UV_WRITABLE;
	if (events == t->poll_events)
		return 0;
	if (events == 0)
		uv_poll_stop(&t->poll);
	else if ((r = uv_poll_start(&t->poll, events, tunnel_poll_cb)) != 0)
		return r;
	t->poll_events = events;
	return 0;
}

/* Read what the caller wrote into up; notes its EOF and whether it closed. */
static int
tunnel_read_up(struct transport_ssh_tunnel *t)
{
	struct pollfd pfd;
	char buf[65536];
	ssize_t n;
	size_t room;

	while (!t->local_eof && t->up.len < TUNNEL_BUF) {
		room = TUNNEL_BUF - t->up.len;
		n = recv(t->fd, buf, room < sizeof buf ? room : sizeof buf, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return 0;
		if (n <= 0) {
			/* EOF: a shutdown(SHUT_WR) half-closes, a close
			   (POLLHUP: both directions gone) ends the tunnel */
			t->local_eof = 1;
			pfd.fd = t->fd;
			pfd.events = POLLOUT;
			if (n < 0 || (poll(&pfd, 1, 0) == 1 &&
			    (pfd.revents & (POLLHUP | POLLERR))))
				t->caller_closed = 1;
			return 0;
		}
		if (buf_append(&t->up, buf, (size_t)n) != 0)
			return TRANSPORT_SSH_STEP_FAILED;
	}
	return 0;
}

static void
tunnel_poll_cb(uv_poll_t *p, int status, int events)
{
	struct transport_ssh_tunnel *t = p->data;
	struct transport_ssh_host *h = t->host;

	if (status < 0 || ((events & UV_WRITABLE) &&
	    tunnel_flush_down(t) < 0)) {
		t->caller_closed = t->local_eof = 1;
	} else if ((events & UV_READABLE) && tunnel_read_up(t) < 0) {
		transport_ssh_tunnel_end(t, NP_ERR_NOMEM,
		    "%s: tunnel to %s:%d: %s",
		    tunnel_host(t), t->target_host, t->target_port,
		    error_string(NP_ERR_NOMEM));
		return;
	}
	/* step now: the bytes go out without waiting for the pump */
	h->st->step(h);
}

/* Room left in down, dropping what was already sent. */
static size_t
tunnel_down_room(struct transport_ssh_tunnel *t)
{
	if (t->down_off > 0 && t->down_off == t->down.len)
		t->down.len = t->down_off = 0;
	return t->down.len < TUNNEL_BUF ? TUNNEL_BUF - t->down.len : 0;
}

static int
tunnel_data_cb(ssh_session session, ssh_channel channel, void *data,
    uint32_t len, int is_stderr, void *userdata)
{
	struct transport_ssh_tunnel *t = userdata;
	size_t room = tunnel_down_room(t);

	t->host->activity = 1;
	if (len > room)
		len = (uint32_t)room;
	if (len == 0 || buf_append(&t->down, data, len) != 0)
		return 0;
	return (int)len;
}

/*
 * Take what the data callback left in the channel's buffer (it is called
 * again only when a packet arrives, and none comes once the window is
 * shut); reading grows the window again. 0, NP_ERR_SESSION_LOST or
 * NP_ERR_NOMEM.
 */
static int
tunnel_pull_down(struct transport_ssh_tunnel *t)
{
	char buf[65536];
	size_t room;
	int n;

	while ((room = tunnel_down_room(t)) > 0) {
		n = ssh_channel_read_nonblocking(t->chan->channel, buf,
		    (uint32_t)(room < sizeof buf ? room : sizeof buf), 0);
		if (n == SSH_ERROR)
			return NP_ERR_SESSION_LOST;
		if (n <= 0)
			return 0;
		if (buf_append(&t->down, buf, (size_t)n) != 0)
			return NP_ERR_NOMEM;
	}
	return 0;
}

static void
tunnel_event_cb(ssh_session session, ssh_channel channel, void *userdata)
{
	struct transport_ssh_tunnel *t = userdata;

	t->host->activity = 1;
}

/* Advance one tunnel; 1 if it moved, 0 if it waits, -1: the session broke. */
static int
tunnel_step(struct transport_ssh_host *h, struct transport_ssh_tunnel *t)
{
	int r, w;

	switch (t->state) {
	case TUN_WAIT:
		if ((t->chan = transport_ssh_chan_new(h, tunnel_data_cb,
		    tunnel_event_cb,
		    NULL, t)) == NULL)
			return TRANSPORT_SSH_STEP_FAILED;
		t->state = TUN_OPENING;
		/* FALLTHROUGH */
	case TUN_OPENING:
		r = ssh_channel_open_forward(t->chan->channel, t->target_host,
		    t->target_port, "127.0.0.1", 0);
		if (r == SSH_AGAIN)
			return 0;
		if (r != SSH_OK) {
			if (!ssh_is_connected(h->session))
				return TRANSPORT_SSH_STEP_FAILED;
			transport_ssh_tunnel_end(t, NP_ERR_CHANNEL,
			    "%s: tunnel to %s:%d "
			    "could not open: %s (is something listening on "
			    "%s:%d on %s?)", transport_ssh_host_name(h),
			    t->target_host,
			    t->target_port, ssh_get_error(h->session),
			    t->target_host, t->target_port,
			    transport_ssh_host_name(h));
			return 1;
		}
		log_debug(transport_ssh_host_name(h), "tunnel to %s:%d open",
		    t->target_host, t->target_port);
		t->state = TUN_OPEN;
		tunnel_read_up(t);
		/* FALLTHROUGH */
	case TUN_OPEN:
	default:
		if ((w = transport_ssh_chan_write(t->chan, t->up.data,
		    &t->up_off, t->up.len,
		    t->local_eof)) < 0 || transport_ssh_chan_read(t->chan) < 0)
			return TRANSPORT_SSH_STEP_FAILED;
		if (t->up_off == t->up.len)
			t->up.len = t->up_off = 0;
		if (tunnel_flush_down(t) == 0 && (r = tunnel_pull_down(t)) != 0) {
			if (r == NP_ERR_SESSION_LOST)
				return TRANSPORT_SSH_STEP_FAILED;
			transport_ssh_tunnel_end(t, r,
			    "%s: tunnel to %s:%d: %s",
			    transport_ssh_host_name(h),
			    t->target_host, t->target_port, error_string(r));
			return 1;
		}
		if (tunnel_flush_down(t) < 0)
			t->caller_closed = t->local_eof = 1;
		if (t->caller_closed && t->up.len == 0) {
			transport_ssh_tunnel_end(t, NP_OK, NULL);
			return 1;
		}
		if ((ssh_channel_is_eof(t->chan->channel) ||
		    ssh_channel_is_closed(t->chan->channel)) &&
		    t->down_off == t->down.len) {
			transport_ssh_tunnel_end(t, NP_OK, NULL);
			return 1;
		}
		if ((r = tunnel_update_poll(t)) != 0) {
			/* never watched, the relay would stop: end it now */
			transport_ssh_tunnel_end(t, NP_ERR_SYSTEM,
			    "%s: tunnel to %s:%d: cannot "
			    "watch its socket: %s", transport_ssh_host_name(h),
			    t->target_host, t->target_port, uv_strerror(r));
			return 1;
		}
		return w;
	}
}

/* Step every tunnel of h; -1 when the session broke. */
int
transport_ssh_tunnels_step(struct transport_ssh_host *h, int *moved)
{
	struct transport_ssh_tunnel *t, *next;
	int r;

	for (t = TAILQ_FIRST(&h->tunnels); t != NULL; t = next) {
		next = TAILQ_NEXT(t, entry);
		if ((r = tunnel_step(h, t)) < 0)
			return TRANSPORT_SSH_STEP_FAILED;
		*moved |= r;
	}
	return 0;
}

/* A tunnel of h to host:port (engine_tunnel_open): *fdp, the caller's end. */
int
transport_ssh_tunnel_open(struct transport_ssh_host *h,
    struct engine_tunnel *et, const char *host, int port, int *fdp)
{
	struct engine *e = h->engine;
	struct transport_ssh_tunnel *t;
	int sv[2];

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0)
		return errno == EMFILE || errno == ENFILE ? NP_ERR_NOFILES :
		    errno == ENOMEM || errno == ENOBUFS ? NP_ERR_NOMEM :
		    NP_ERR_SYSTEM;
	if ((t = calloc(1, sizeof *t)) == NULL ||
	    (t->target_host = strdup(host)) == NULL ||
	    uv_poll_init(engine_loop(e), &t->poll, sv[0]) != 0) {
		if (t != NULL)
			free(t->target_host);
		free(t);
		close(sv[0]);
		close(sv[1]);
		return NP_ERR_NOMEM;
	}
	engine_handle_opened(e);
	t->poll.data = t;
	t->et = et;
	t->host = h;
	t->fd = sv[0];
	t->target_port = port;
	TAILQ_INSERT_TAIL(&h->tunnels, t, entry);
	log_debug(transport_ssh_host_name(h), "tunnel to %s:%d requested", host,
	    port);
	h->dirty = 1;
	engine_schedule(e);
	*fdp = sv[1];
	return 0;
}

