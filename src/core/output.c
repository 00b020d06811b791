/*
 * Output that never blocks the loop (output.h). A queue of bytes not yet
 * taken by the descriptor, written by a uv_poll when it is writable; a
 * regular file or a device that epoll cannot watch (/dev/null, /dev/full)
 * is written directly. A direct write that fails half-way is cut back to
 * where the line began, so an ENOSPC leaves whole lines only.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "error.h"
#include "log.h"
#include "output.h"
#include "util.h"

/* Move the queue's unwritten bytes to its front past this much waste. */
#define OUTPUT_COMPACT (64 * 1024)

struct output {
	int fd;
	int own;		/* fd is closed by output_close */
	int restore_flags;	/* fcntl flags to put back, or -1 */
	int direct;		/* written at once, waiting if need be */
	int err;		/* errno of the first failed write */
	struct buf q;		/* bytes the descriptor has not taken */
	size_t q_off;
	uv_poll_t *poll;	/* NULL unless attached */
	int polling;
};

/*
 * Our own non-blocking description of fd's pipe, terminal or socket, so
 * the flag is not seen by whoever shares fd's description.
 */
static void
output_nonblock(struct output *o)
{
	char path[64];
	int fd, flags;

	snprintf(path, sizeof path, "/proc/self/fd/%d", o->fd);
	if ((fd = open(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC)) != -1) {
		if (o->own)
			close(o->fd);
		o->fd = fd;
		o->own = 1;
		return;
	}
	if ((flags = fcntl(o->fd, F_GETFL)) == -1)
		return;
	if (!(flags & O_NONBLOCK) &&
	    fcntl(o->fd, F_SETFL, flags | O_NONBLOCK) == 0)
		o->restore_flags = flags;
}

int
output_open_fd(int fd, int own, struct output **out)
{
	struct output *o;
	struct stat st;

	if ((o = calloc(1, sizeof *o)) == NULL) {
		*out = NULL;
		return NP_ERR_NOMEM;
	}
	o->fd = fd;
	o->own = own;
	o->restore_flags = -1;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode))
		o->direct = 1;
	else
		output_nonblock(o);
	*out = o;
	return 0;
}

/* Wait (poll(2)) until fd takes more, at most ms (-1: no limit). */
static int
output_wait(int fd, int ms)
{
	struct pollfd p = { .fd = fd, .events = POLLOUT };
	int n;

	while ((n = poll(&p, 1, ms)) < 0) {
		if (errno != EINTR)
			return -1;
	}
	return n > 0 ? 0 : -1;
}

/*
 * Write all of data, waiting when the descriptor is full; on a failure
 * cut a seekable file back to where this write began.
 */
static int
output_write_all(struct output *o, const char *data, size_t len)
{
	off_t start = lseek(o->fd, 0, SEEK_CUR);
	size_t off = 0;
	ssize_t n;

	while (off < len) {
		n = write(o->fd, data + off, len - off);
		if (n > 0) {
			off += (size_t)n;
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) &&
		    output_wait(o->fd, -1) == 0)
			continue;
		o->err = n < 0 ? errno : EIO;
		if (off > 0 && start != (off_t)-1 &&
		    ftruncate(o->fd, start) == 0)
			lseek(o->fd, start, SEEK_SET);
		return NP_ERR_IO;
	}
	return 0;
}

static void
output_poll_stop(struct output *o)
{
	if (o->polling) {
		uv_poll_stop(o->poll);
		o->polling = 0;
	}
}

/*
 * How much of the queue to hand to one write(2): whole lines of at most
 * PIPE_BUF bytes when the first line fits, which a pipe takes whole or not
 * at all, so a reader given up on never holds half a line.
 */
static size_t
output_chunk(const struct output *o)
{
	const char *p = o->q.data + o->q_off;
	size_t len = o->q.len - o->q_off, i;

	if (len <= PIPE_BUF)
		return len;
	for (i = PIPE_BUF; i > 0; i--) {
		if (p[i - 1] == '\n')
			return i;
	}
	return len;	/* a line longer than PIPE_BUF: as the pipe takes it */
}

/* Write what the descriptor takes now; 0, or NP_ERR_IO (o->err set). */
static int
output_drain(struct output *o)
{
	ssize_t n;

	while (o->q_off < o->q.len) {
		n = write(o->fd, o->q.data + o->q_off, output_chunk(o));
		if (n > 0) {
			o->q_off += (size_t)n;
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			break;
		o->err = n < 0 ? errno : EIO;
		o->q_off = o->q.len;	/* nobody will take the rest */
		break;
	}
	if (o->q_off == o->q.len) {
		o->q.len = o->q_off = 0;
		output_poll_stop(o);
	} else if (o->q_off > OUTPUT_COMPACT && o->q_off > o->q.len / 2) {
		memmove(o->q.data, o->q.data + o->q_off, o->q.len - o->q_off);
		o->q.len -= o->q_off;
		o->q_off = 0;
	}
	return o->err != 0 ? NP_ERR_IO : 0;
}

static void
output_poll_cb(uv_poll_t *p, int status, int events)
{
	struct output *o = p->data;

	if (status < 0) {
		o->err = EIO;
		o->q.len = o->q_off = 0;
		output_poll_stop(o);
		return;
	}
	output_drain(o);
}

static void
output_poll_closed(uv_handle_t *h)
{
	free(h);
}

int
output_attach(struct output *o, uv_loop_t *loop)
{
	int r;

	if (o->direct || o->poll != NULL)
		return 0;
	if ((o->poll = calloc(1, sizeof *o->poll)) == NULL)
		return NP_ERR_NOMEM;
	if ((r = uv_poll_init(loop, o->poll, o->fd)) != 0) {
		/* epoll cannot watch it (/dev/null): it never makes us wait */
		log_debug(NULL, "output fd %d written directly: %s", o->fd,
		    uv_strerror(r));
		free(o->poll);
		o->poll = NULL;
		o->direct = 1;
		return 0;
	}
	o->poll->data = o;
	return 0;
}

int
output_write(struct output *o, const void *data, size_t len)
{
	int r;

	if (o->err != 0)
		return NP_ERR_IO;
	if (o->direct)
		return output_write_all(o, data, len);
	if ((r = buf_append(&o->q, data, len)) != 0)
		return r;
	if (o->q_off + len == o->q.len && (r = output_drain(o)) != 0)
		return r;	/* the queue held only this: try it now */
	if (o->q_off < o->q.len && o->poll != NULL && !o->polling) {
		if ((r = uv_poll_start(o->poll, UV_WRITABLE,
		    output_poll_cb)) != 0) {
			log_debug(NULL, "output: cannot watch fd %d: %s; "
			    "writing directly", o->fd, uv_strerror(r));
			o->direct = 1;
			r = output_write_all(o, o->q.data + o->q_off,
			    o->q.len - o->q_off);
			o->q.len = o->q_off = 0;
			return r;
		}
		o->polling = 1;
	}
	return 0;
}

int
output_error(const struct output *o)
{
	return o->err;
}

size_t
output_queued(const struct output *o)
{
	return o->q.len - o->q_off;
}

void
output_detach(struct output *o)
{
	if (o == NULL || o->poll == NULL)
		return;
	output_poll_stop(o);
	uv_close((uv_handle_t *)o->poll, output_poll_closed);
	o->poll = NULL;
}

/* Hand the queue over, waiting at most ms (-1: no limit) for the reader. */
static void
output_flush(struct output *o, int ms)
{
	while (o->err == 0 && output_queued(o) > 0) {
		if (output_drain(o) != 0 || output_queued(o) == 0)
			break;
		if (output_wait(o->fd, ms) != 0) {
			log_error("the reader of the output took nothing for "
			    "%d s: %zu bytes of records not written", ms / 1000,
			    output_queued(o));
			o->err = ETIMEDOUT;
			break;
		}
	}
}

int
output_close(struct output *o, int wait_ms)
{
	struct stat st;
	int r = 0;

	if (o == NULL)
		return 0;
	if (o->poll != NULL)
		log_debug(NULL, "output closed while attached");
	if (o->err == 0 && output_queued(o) > 0) {
		log_info("waiting for the reader of the output to take %zu "
		    "more bytes", output_queued(o));
		output_flush(o, wait_ms);
	}
	if (o->err != 0)
		r = NP_ERR_IO;
	if (o->restore_flags != -1)
		fcntl(o->fd, F_SETFL, o->restore_flags);
	if (o->own) {
		if (fstat(o->fd, &st) == 0 && S_ISREG(st.st_mode) &&
		    fdatasync(o->fd) != 0)
			r = NP_ERR_IO;
		if (close(o->fd) != 0)
			r = NP_ERR_IO;
	}
	buf_free(&o->q);
	free(o);
	return r;
}
