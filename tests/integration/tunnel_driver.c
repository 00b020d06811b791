/*
 * A small program over engine_tunnel_open() for the integration tests: open
 * N tunnels from one machine of an inventory to HOST:PORT as that machine
 * sees it, use each fd as a client uses a connected TCP socket (write a
 * payload at once, before the channel can be open; read until EOF into
 * OUT.i), and print one line per tunnel end. It checks the tunnel contract
 * itself: on_closed exactly once per tunnel and never inside
 * engine_tunnel_open(), and every handle closed at the end. Exit 0 when the
 * contract held, 3 when it did not, 2 on usage errors.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include "driver.h"
#include "engine.h"
#include "error.h"
#include "file.h"
#include "util.h"

#if defined(__SANITIZE_ADDRESS__)
#define SANITIZED " (sanitized)"
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SANITIZED " (sanitized)"
#endif
#endif
#ifndef SANITIZED
#define SANITIZED ""
#endif

struct run;

/* The caller's side of one tunnel: a client on a connected socket. */
struct client {
	struct run *run;
	int index;
	int fd;
	uv_poll_t poll;
	int poll_open;
	size_t sent;
	size_t received;
	FILE *out;
	int eof, closed_calls;
};

struct run {
	struct engine *engine;
	struct client *clients;
	int n, n_closed, in_open, violations;
	const char *payload;
	size_t payload_len;
	int half_close;		/* shutdown(SHUT_WR) once the payload is sent */
	uv_timer_t timer;
	uv_timer_t pause;	/* --read-pause: the clients start after it */
	double pause_s;
	struct driver_opts opts; /* stop_close: the engine, not the fds */
};

static void
client_poll_closed_cb(uv_handle_t *h)
{
	struct client *c = h->data;

	close(c->fd);
	c->fd = -1;
}

static void
client_close(struct client *c)
{
	if (!c->poll_open)
		return;
	c->poll_open = 0;
	uv_close((uv_handle_t *)&c->poll, client_poll_closed_cb);
	if (c->out != NULL)
		fclose(c->out);
	c->out = NULL;
}

static void
client_cb(uv_poll_t *p, int status, int events)
{
	struct client *c = p->data;
	struct run *run = c->run;
	char buf[65536];
	ssize_t n;

	if (status < 0) {
		/* a reset, where a TCP peer's close would give EOF */
		printf("tunnel %d: socket error after %zu bytes: %s\n",
		    c->index, c->received, uv_strerror(status));
		fflush(stdout);
		client_close(c);
		return;
	}
	if (events & UV_WRITABLE) {
		n = send(c->fd, run->payload + c->sent,
		    run->payload_len - c->sent, MSG_NOSIGNAL);
		if (n > 0)
			c->sent += (size_t)n;
		if (c->sent == run->payload_len || (n < 0 && errno != EAGAIN)) {
			if (run->half_close)
				shutdown(c->fd, SHUT_WR);
			uv_poll_start(&c->poll, UV_READABLE, client_cb);
		}
	}
	if (events & UV_READABLE) {
		n = recv(c->fd, buf, sizeof buf, 0);
		if (n > 0) {
			c->received += (size_t)n;
			if (c->out != NULL)
				fwrite(buf, 1, (size_t)n, c->out);
			return;
		}
		if (n < 0 && errno == EAGAIN)
			return;
		c->eof = 1;
		printf("tunnel %d: eof after %zu bytes (sent %zu)\n", c->index,
		    c->received, c->sent);
		fflush(stdout);
		client_close(c);
	}
}

static void
on_closed(const struct machine *m, int error, const char *text, void *arg)
{
	struct client *c = arg;
	struct run *run = c->run;

	if (run->in_open) {
		printf("VIOLATION: on_closed inside engine_tunnel_open\n");
		run->violations++;
	}
	if (c->closed_calls++ > 0) {
		printf("VIOLATION: on_closed twice for tunnel %d\n", c->index);
		run->violations++;
	}
	if ((error == 0) != (text == NULL)) {
		printf("VIOLATION: error %d with text %s\n", error,
		    text != NULL ? text : "(null)");
		run->violations++;
	}
	run->n_closed++;
	printf("tunnel %d: closed host=%s error=%d\n", c->index, m->name, error);
	if (text != NULL)
		printf("tunnel %d: text: %s\n", c->index, text);
	fflush(stdout);
}

/* --close-after: the caller closes its fds, as a client that gives up */
static void
timer_cancel_cb(uv_timer_t *t)
{
	struct run *run = t->data;
	int i;

	printf("closing the fds\n");
	for (i = 0; i < run->n; i++)
		client_close(&run->clients[i]);
}

/* --engine-close-after: the engine goes first, the fds stay open */
static void
timer_close_cb(uv_timer_t *t)
{
	struct run *run = t->data;

	printf("closing the engine\n");
	engine_close(run->engine, NULL, NULL);
}

/* Watch client c's fd: write the payload at once, read what comes. */
static void
client_start(struct client *c)
{
	struct run *run = c->run;

	uv_poll_start(&c->poll, run->payload_len > 0 ? UV_READABLE |
	    UV_WRITABLE : UV_READABLE, client_cb);
	if (run->payload_len == 0 && run->half_close)
		shutdown(c->fd, SHUT_WR);
}

/* --read-pause: a caller that reads nothing for a while, then everything */
static void
pause_cb(uv_timer_t *t)
{
	struct run *run = t->data;
	int i;

	printf("reading after %g s\n", run->pause_s);
	fflush(stdout);
	for (i = 0; i < run->n; i++)
		if (run->clients[i].poll_open)
			client_start(&run->clients[i]);
}

static void
usage(void)
{
	fprintf(stderr, "usage: tunnel_driver --config FILE [--host NAME] "
	    "[--tunnels N] [--send FILE]\n  [--half-close] [--out PREFIX] "
	    "[--close-after S] [--engine-close-after S] [--read-pause S]\n"
	    "  HOST PORT\n");
	exit(2);
}

int
main(int argc, char **argv)
{
	static const struct option longopts[] = {
		DRIVER_LONGOPTS("close-after", "engine-close-after"),
		{ "tunnels", required_argument, NULL, 'n' },
		{ "send", required_argument, NULL, 's' },
		{ "half-close", no_argument, NULL, 'h' },
		{ "out", required_argument, NULL, 'o' },
		{ "read-pause", required_argument, NULL, 'p' },
		{ NULL, 0, NULL, 0 }
	};
	struct machine *m;
	struct run run = { 0 };
	const char *send_file = NULL, *out = NULL;
	char *payload = NULL, *cause = NULL, path[4096];
	uv_loop_t loop;
	int ch, i, r, port;

	driver_init(&run.opts, "tunnel_driver");
	while ((ch = driver_getopt(&run.opts, argc, argv, longopts)) != -1) {
		switch (ch) {
		case 'n': run.n = atoi(optarg); break;
		case 's': send_file = optarg; break;
		case 'h': run.half_close = 1; break;
		case 'o': out = optarg; break;
		case 'p': run.pause_s = atof(optarg); break;
		default: usage();
		}
	}
	if (run.opts.config == NULL || optind != argc - 2)
		usage();
	port = atoi(argv[optind + 1]);
	if (run.n <= 0)
		run.n = 1;
	m = driver_machine(&run.opts);
	if (send_file != NULL && file_read(send_file, &payload,
	    &run.payload_len, &cause) != 0) {
		fprintf(stderr, "tunnel_driver: %s\n", cause);
		return 2;
	}
	run.payload = payload != NULL ? payload : "";
	uv_loop_init(&loop);
	if (engine_new(&loop, run.opts.inv, NULL, &run.engine) != 0)
		return 2;
	run.clients = calloc((size_t)run.n, sizeof *run.clients);
	for (i = 0; i < run.n; i++) {
		struct client *c = &run.clients[i];

		c->run = &run;
		c->index = i;
		run.in_open = 1;
		r = engine_tunnel_open(run.engine, m, argv[optind], port,
		    on_closed, c, &c->fd);
		run.in_open = 0;
		if (r != 0) {
			printf("tunnel %d: open failed: error=%d %s\n", i, r,
			    error_string(r));
			if (c->fd != -1) {
				printf("VIOLATION: fd %d after a failed open\n",
				    c->fd);
				run.violations++;
			}
			c->closed_calls = 1;	/* none is expected */
			run.n_closed++;
			continue;
		}
		fcntl(c->fd, F_SETFL, fcntl(c->fd, F_GETFL) | O_NONBLOCK);
		if (out != NULL) {
			snprintf(path, sizeof path, "%s.%d", out, i);
			c->out = fopen(path, "wb");
		}
		uv_poll_init(&loop, &c->poll, c->fd);
		c->poll.data = c;
		c->poll_open = 1;
		/* write at once: the bytes wait in the pair until it opens */
		if (run.pause_s <= 0)
			client_start(c);
	}
	uv_timer_init(&loop, &run.pause);
	run.pause.data = &run;
	if (run.pause_s > 0)
		uv_timer_start(&run.pause, pause_cb,
		    (uint64_t)(run.pause_s * 1000), 0);
	driver_timer(&loop, &run.timer, &run.opts, timer_cancel_cb,
	    timer_close_cb, &run);
	uv_run(&loop, UV_RUN_DEFAULT);
	uv_close((uv_handle_t *)&run.timer, NULL);
	uv_close((uv_handle_t *)&run.pause, NULL);
	engine_close(run.engine, NULL, NULL);
	uv_run(&loop, UV_RUN_DEFAULT);
	for (i = 0; i < run.n; i++) {
		if (run.clients[i].closed_calls != 1) {
			printf("VIOLATION: tunnel %d got %d on_closed\n", i,
			    run.clients[i].closed_calls);
			run.violations++;
		}
		if (run.clients[i].poll_open) {
			printf("VIOLATION: tunnel %d never read EOF\n", i);
			run.violations++;
			client_close(&run.clients[i]);
		}
	}
	uv_run(&loop, UV_RUN_DEFAULT);
	engine_free(run.engine);
	run.violations += driver_loop_close(&loop);
	printf("closed %d of %d\n", run.n_closed, run.n);
	{
		struct rusage ru;

		/* a sanitizer's shadow and quarantine make RSS meaningless */
		if (getrusage(RUSAGE_SELF, &ru) == 0)
			printf("peak RSS %ld KB%s\n", ru.ru_maxrss, SANITIZED);
	}
	free(run.clients);
	free(payload);
	inventory_free(run.opts.inv);
	return run.violations > 0 ? 3 : 0;
}
