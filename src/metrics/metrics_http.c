/*
 * GET /metrics over HTTP from the loop. libmicrohttpd does the HTTP (the
 * request line and headers, keep-alive, HEAD, pipelining, answers to
 * malformed requests) in external-polling mode: it gives one epoll
 * descriptor that is readable whenever any of its sockets has work, which
 * a uv_poll watches, and MHD_get_timeout() says when it must run anyway,
 * which a uv_timer keeps. Every libmicrohttpd call happens on the loop's
 * thread.
 *
 * The listening socket is ours (a uv_poll of its own; connections handed
 * over with MHD_add_connection): libmicrohttpd, at its connection limit,
 * takes its own listening socket out of its epoll set until its next run,
 * which nothing triggered once the last connection had closed, so the
 * listener stopped accepting for good. Ours is always watched, and the
 * limits are ours: past 8 from its address or 16 in all, a new connection
 * takes the place of the oldest idle one, else of the answer running
 * longest (past a grace), else it is refused. A connection has a deadline that bytes do not move: a whole
 * request within METRICS_HTTP_REQUEST_SECONDS of its start or of its last
 * answer, an answer taken at METRICS_HTTP_ANSWER_RATE. Answers share the
 * one exposition by reference (the OpenMetrics form read from it as it is
 * sent), so a scrape copies nothing.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <microhttpd.h>

#include "error.h"
#include "log.h"
#include "metrics.h"
#include "metrics_http.h"
#include "util.h"

#define CONTENT_TYPE "text/plain; version=0.0.4; charset=utf-8"
#define OPENMETRICS_TYPE "application/openmetrics-text; version=1.0.0; charset=utf-8"

/* Accepts per readiness of the listening socket, so a flood of
 * connections cannot hold the loop. */
#define ACCEPTS_PER_TURN 64
/* After EMFILE/ENFILE, accepting waits this long (ms): the listening
 * socket stays readable, and would otherwise be polled in a loop. */
#define ACCEPT_PAUSE_MS 1000

/* One exposition, shared by every answer that sends it. */
struct exposition {
	int refs;
	char *text;
	size_t len;
	size_t om_len;		/* its OpenMetrics form's */
};

/* A connection, from libmicrohttpd's start notice to its close notice. */
struct metrics_conn {
	struct metrics_conn *prev, *next;	/* in order of arrival */
	int fd;
	struct sockaddr_storage addr;
	uint64_t deadline;	/* loop ms: shut down past it */
	uint64_t answer_start;	/* loop ms: when its answer began */
	int answering;		/* a request is being answered */
	int shut;		/* shut down; its close notice pending */
};

/* The OpenMetrics form of an exposition, read as it is sent. */
struct om_answer {
	struct exposition *expo;
	struct metrics_om_reader reader;
	uint64_t sent;
};

struct metrics_http {
	struct MHD_Daemon *daemon;
	uv_poll_t poll;		/* libmicrohttpd's epoll descriptor */
	uv_timer_t timer;	/* libmicrohttpd's next timeout */
	uv_poll_t listen_poll;	/* our listening socket */
	uv_timer_t deadline_timer;	/* the connections' deadlines */
	int listen_fd;
	int accept_paused;
	int handles;		/* open: freed when the last is closed */
	struct exposition *expo;	/* the latest; NULL before the first */
	struct metrics_conn *first, *last;
	int live, shut;		/* connections open, shut down pending */
	int port;
	void (*closed_cb)(void *);
	void *closed_arg;
};

static int
is_loopback(const struct sockaddr_storage *ss)
{
	if (ss->ss_family == AF_INET)
		return (ntohl(((const struct sockaddr_in *)ss)->sin_addr.s_addr)
		    >> 24) == 127;
	return IN6_IS_ADDR_LOOPBACK(&((const struct sockaddr_in6 *)ss)->
	    sin6_addr);
}

int
metrics_http_parse_addr(const char *spec, int allow_public,
    struct sockaddr_storage *ss, char **cause)
{
	char host[64] = "127.0.0.1", *end;
	const char *port = spec, *colon;
	long p;

	*cause = NULL;
	memset(ss, 0, sizeof *ss);
	if (spec[0] == '[') {
		const char *close = strchr(spec, ']');

		if (close == NULL || close[1] != ':' ||
		    (size_t)(close - spec - 1) >= sizeof host)
			goto bad;
		memcpy(host, spec + 1, (size_t)(close - spec - 1));
		host[close - spec - 1] = '\0';
		port = close + 2;
	} else if ((colon = strrchr(spec, ':')) != NULL) {
		if ((size_t)(colon - spec) >= sizeof host)
			goto bad;
		memcpy(host, spec, (size_t)(colon - spec));
		host[colon - spec] = '\0';
		port = colon + 1;
	}
	errno = 0;
	p = strtol(port, &end, 10);
	if (*port == '\0' || *end != '\0' || errno != 0 || p < 0 || p > 65535)
		goto bad;
	if (inet_pton(AF_INET, host, &((struct sockaddr_in *)ss)->sin_addr) ==
	    1) {
		ss->ss_family = AF_INET;
		((struct sockaddr_in *)ss)->sin_port = htons((uint16_t)p);
	} else if (inet_pton(AF_INET6, host,
	    &((struct sockaddr_in6 *)ss)->sin6_addr) == 1) {
		ss->ss_family = AF_INET6;
		((struct sockaddr_in6 *)ss)->sin6_port = htons((uint16_t)p);
	} else
		goto bad;
	if (!allow_public && !is_loopback(ss)) {
		*cause = str_printf("%s is not a loopback address: the metrics "
		    "would be open to the network; add --metrics-public to "
		    "mean it, or listen on 127.0.0.1", host);
		return NP_ERR_USAGE;
	}
	return 0;
bad:
	*cause = str_printf("'%s' is not [ADDR:]PORT (an IP address, [IPv6] in "
	    "brackets, and a port from 0 to 65535), e.g. 127.0.0.1:9464",
	    spec);
	return NP_ERR_USAGE;
}

static void
expo_release(void *arg)
{
	struct exposition *e = arg;

	if (e == NULL || --e->refs > 0)
		return;
	free(e->text);
	free(e);
}

static ssize_t
om_read_cb(void *arg, uint64_t pos, char *buf, size_t max)
{
	struct om_answer *a = arg;
	size_t n;

	if (pos != a->sent)	/* read in order, never again */
		return MHD_CONTENT_READER_END_WITH_ERROR;
	if ((n = metrics_om_read(&a->reader, buf, max)) == 0)
		return MHD_CONTENT_READER_END_OF_STREAM;
	a->sent += n;
	return (ssize_t)n;
}

static void
om_free_cb(void *arg)
{
	struct om_answer *a = arg;

	expo_release(a->expo);
	free(a);
}

/* An answer of the exposition (OpenMetrics or text), by reference. */
static struct MHD_Response *
expo_response(struct exposition *e, int om)
{
	static char empty[] = "";
	struct MHD_Response *resp;
	struct om_answer *a;

	if (e == NULL)	/* nothing published yet */
		return MHD_create_response_from_buffer(0, empty,
		    MHD_RESPMEM_PERSISTENT);
	if (!om) {
		resp = MHD_create_response_from_buffer_with_free_callback_cls(
		    e->len, e->text, expo_release, e);
		if (resp != NULL)
			e->refs++;
		return resp;
	}
	if ((a = calloc(1, sizeof *a)) == NULL)
		return NULL;
	a->expo = e;
	metrics_om_begin(&a->reader, e->text, e->len);
	resp = MHD_create_response_from_callback(e->om_len, 64 * 1024,
	    om_read_cb, a, om_free_cb);
	if (resp == NULL) {
		free(a);
		return NULL;
	}
	e->refs++;
	return resp;
}

static enum MHD_Result
answer(struct MHD_Connection *conn, unsigned int status, const char *body,
    size_t len, struct MHD_Response *resp, int om)
{
	enum MHD_Result r;

	if (resp == NULL)
		resp = MHD_create_response_from_buffer(len, (void *)body,
		    MHD_RESPMEM_PERSISTENT);
	if (resp == NULL)
		return MHD_NO;
	if (status == MHD_HTTP_OK) {
		MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE,
		    om ? OPENMETRICS_TYPE : CONTENT_TYPE);
		MHD_add_response_header(resp, MHD_HTTP_HEADER_VARY, "Accept");
	} else if (status == MHD_HTTP_METHOD_NOT_ALLOWED)
		MHD_add_response_header(resp, MHD_HTTP_HEADER_ALLOW,
		    "GET, HEAD");
	r = MHD_queue_response(conn, status, resp);
	MHD_destroy_response(resp);
	return r;
}

static struct metrics_conn *
conn_of(struct MHD_Connection *conn)
{
	const union MHD_ConnectionInfo *info = MHD_get_connection_info(conn,
	    MHD_CONNECTION_INFO_SOCKET_CONTEXT);

	return info != NULL ? info->socket_context : NULL;
}

static void deadlines_arm(struct metrics_http *mh);

static enum MHD_Result
request_cb(void *arg, struct MHD_Connection *conn, const char *url,
    const char *method, const char *version, const char *upload,
    size_t *upload_size, void **state)
{
	static const char not_found[] = "only /metrics is here\n";
	static const char not_allowed[] = "GET /metrics\n";
	struct metrics_http *mh = arg;
	struct metrics_conn *mc = conn_of(conn);
	const char *accept;
	int om;
	size_t len;

	if (mc != NULL && !mc->answering) {
		/* the request is whole: now the answer's own deadline */
		len = mh->expo != NULL ? mh->expo->len : 0;
		mc->answering = 1;
		mc->answer_start = uv_now(uv_handle_get_loop((uv_handle_t *)
		    &mh->timer));
		mc->deadline = mc->answer_start +
		    (uint64_t)METRICS_HTTP_IDLE_SECONDS * 1000 +
		    (uint64_t)(len / (METRICS_HTTP_ANSWER_RATE / 1000));
		deadlines_arm(mh);
	}
	if (strcmp(method, MHD_HTTP_METHOD_GET) != 0 &&
	    strcmp(method, MHD_HTTP_METHOD_HEAD) != 0)
		return answer(conn, MHD_HTTP_METHOD_NOT_ALLOWED, not_allowed,
		    sizeof not_allowed - 1, NULL, 0);
	if (strcmp(url, "/metrics") != 0)
		return answer(conn, MHD_HTTP_NOT_FOUND, not_found,
		    sizeof not_found - 1, NULL, 0);
	/* OpenMetrics when the scraper names it (Prometheus does, first) */
	accept = MHD_lookup_connection_value(conn, MHD_HEADER_KIND,
	    MHD_HTTP_HEADER_ACCEPT);
	om = accept != NULL &&
	    strstr(accept, "application/openmetrics-text") != NULL;
	return answer(conn, MHD_HTTP_OK, NULL, 0, expo_response(mh->expo, om),
	    om);
}

/* A request answered (or abandoned): the next must come whole in time. */
static void
completed_cb(void *arg, struct MHD_Connection *conn, void **state,
    enum MHD_RequestTerminationCode toe)
{
	struct metrics_http *mh = arg;
	struct metrics_conn *mc = conn_of(conn);

	if (mc == NULL)
		return;
	mc->answering = 0;
	mc->deadline = uv_now(uv_handle_get_loop((uv_handle_t *)&mh->timer)) +
	    (uint64_t)METRICS_HTTP_REQUEST_SECONDS * 1000;
	deadlines_arm(mh);
}

static const char *
addr_text(const struct sockaddr_storage *ss, char *out, size_t size)
{
	const void *a = ss->ss_family == AF_INET6 ?
	    (const void *)&((const struct sockaddr_in6 *)ss)->sin6_addr :
	    (const void *)&((const struct sockaddr_in *)ss)->sin_addr;

	if (inet_ntop(ss->ss_family, a, out, (socklen_t)size) == NULL)
		snprintf(out, size, "?");
	return out;
}

/* Shut a connection down: libmicrohttpd sees its end and closes it. */
static void
conn_shut(struct metrics_http *mh, struct metrics_conn *mc, const char *why)
{
	char host[INET6_ADDRSTRLEN];

	if (mc->shut)
		return;
	log_debug(NULL, "metrics listener: connection from %s closed: %s",
	    addr_text(&mc->addr, host, sizeof host), why);
	shutdown(mc->fd, SHUT_RDWR);
	mc->shut = 1;
	mh->live--;
	mh->shut++;
}

static void
connection_cb(void *arg, struct MHD_Connection *conn, void **socket_context,
    enum MHD_ConnectionNotificationCode toe)
{
	struct metrics_http *mh = arg;
	struct metrics_conn *mc = *socket_context;
	const union MHD_ConnectionInfo *fd, *addr;

	if (toe == MHD_CONNECTION_NOTIFY_CLOSED) {
		if (mc == NULL)
			return;
		if (mc->shut)
			mh->shut--;
		else
			mh->live--;
		if (mc->prev != NULL)
			mc->prev->next = mc->next;
		else
			mh->first = mc->next;
		if (mc->next != NULL)
			mc->next->prev = mc->prev;
		else
			mh->last = mc->prev;
		free(mc);
		*socket_context = NULL;
		return;
	}
	fd = MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CONNECTION_FD);
	addr = MHD_get_connection_info(conn,
	    MHD_CONNECTION_INFO_CLIENT_ADDRESS);
	if ((mc = calloc(1, sizeof *mc)) == NULL) {
		if (fd != NULL)	/* untracked, it could not be evicted */
			shutdown(fd->connect_fd, SHUT_RDWR);
		return;
	}
	mc->fd = fd != NULL ? fd->connect_fd : -1;
	if (addr != NULL && addr->client_addr != NULL)
		memcpy(&mc->addr, addr->client_addr,
		    addr->client_addr->sa_family == AF_INET6 ?
		    sizeof(struct sockaddr_in6) : sizeof(struct sockaddr_in));
	mc->deadline = uv_now(uv_handle_get_loop((uv_handle_t *)&mh->timer)) +
	    (uint64_t)METRICS_HTTP_REQUEST_SECONDS * 1000;
	mc->prev = mh->last;
	if (mh->last != NULL)
		mh->last->next = mc;
	else
		mh->first = mc;
	mh->last = mc;
	mh->live++;
	*socket_context = mc;
	deadlines_arm(mh);
}

static int
same_address(const struct sockaddr_storage *a,
    const struct sockaddr_storage *b)
{
	if (a->ss_family != b->ss_family)
		return 0;
	if (a->ss_family == AF_INET6)
		return memcmp(&((const struct sockaddr_in6 *)a)->sin6_addr,
		    &((const struct sockaddr_in6 *)b)->sin6_addr,
		    sizeof(struct in6_addr)) == 0;
	return ((const struct sockaddr_in *)a)->sin_addr.s_addr ==
	    ((const struct sockaddr_in *)b)->sin_addr.s_addr;
}

/*
 * Of the open connections (from addr, if given), the one a new connection
 * takes the place of: the oldest idle one (waiting for a request), else
 * the one answering longest if for over METRICS_HTTP_ANSWER_GRACE_MS,
 * else none. *count: how many are open.
 */
static struct metrics_conn *
victim(struct metrics_http *mh, const struct sockaddr_storage *addr,
    int *count)
{
	uint64_t now = uv_now(uv_handle_get_loop((uv_handle_t *)&mh->timer));
	struct metrics_conn *mc, *idle = NULL, *slow = NULL;

	*count = 0;
	for (mc = mh->first; mc != NULL; mc = mc->next) {
		if (mc->shut || (addr != NULL && !same_address(&mc->addr,
		    addr)))
			continue;
		(*count)++;
		if (idle == NULL && !mc->answering)
			idle = mc;
		if (mc->answering && mc->answer_start +
		    METRICS_HTTP_ANSWER_GRACE_MS <= now && (slow == NULL ||
		    mc->answer_start < slow->answer_start))
			slow = mc;
	}
	return idle != NULL ? idle : slow;
}

/* Room for a connection from addr: 0, or -1 when it is refused (every
 * connection in its way is answering, or those shut down are not closed
 * yet: a flood). */
static int
make_room(struct metrics_http *mh, const struct sockaddr_storage *addr)
{
	struct metrics_conn *mc;
	int n;

	if (mh->shut >= METRICS_HTTP_MAX_CONNECTIONS)
		return -1;
	mc = victim(mh, addr, &n);
	if (n >= METRICS_HTTP_MAX_PER_ADDRESS) {
		if (mc == NULL)
			return -1;
		conn_shut(mh, mc, mc->answering ? "the longest answer of its "
		    "address's, for a new connection" : "the oldest idle of "
		    "its address's connections, for a new one");
	}
	mc = victim(mh, NULL, &n);
	if (n >= METRICS_HTTP_MAX_CONNECTIONS) {
		if (mc == NULL)
			return -1;
		conn_shut(mh, mc, mc->answering ? "the longest answer, for a "
		    "new connection" : "the oldest idle connection, for a "
		    "new one");
	}
	return 0;
}

static void daemon_run(struct metrics_http *mh);

static void
listen_cb(uv_poll_t *h, int status, int events)
{
	struct metrics_http *mh = h->data;
	struct sockaddr_storage ss;
	socklen_t len;
	int i, fd;

	for (i = 0; i < ACCEPTS_PER_TURN && mh->daemon != NULL; i++) {
		len = sizeof ss;
		memset(&ss, 0, sizeof ss);
		fd = accept4(mh->listen_fd, (struct sockaddr *)&ss, &len,
		    SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd < 0) {
			if (errno == EINTR || errno == ECONNABORTED)
				continue;
			if (errno == EMFILE || errno == ENFILE) {
				log_debug(NULL, "metrics listener: cannot "
				    "accept: %s", strerror(errno));
				uv_poll_stop(&mh->listen_poll);
				mh->accept_paused = 1;
				deadlines_arm(mh);
			}
			break;
		}
		if (make_room(mh, &ss) != 0) {
			log_debug(NULL, "metrics listener: a connection "
			    "refused: every one in its way is answering");
			close(fd);
			continue;
		}
		/* libmicrohttpd closes fd if it cannot take it */
		if (MHD_add_connection(mh->daemon, fd, (struct sockaddr *)&ss,
		    len) != MHD_YES)
			log_debug(NULL, "metrics listener: a connection "
			    "refused: %s", strerror(errno));
	}
	daemon_run(mh);	/* the new connections' first reads */
}

static void
deadline_cb(uv_timer_t *h)
{
	struct metrics_http *mh = h->data;
	uint64_t now = uv_now(uv_handle_get_loop((uv_handle_t *)h));
	struct metrics_conn *mc;

	if (mh->daemon == NULL)
		return;
	if (mh->accept_paused) {
		mh->accept_paused = 0;
		uv_poll_start(&mh->listen_poll, UV_READABLE, listen_cb);
	}
	for (mc = mh->first; mc != NULL; mc = mc->next)
		if (!mc->shut && mc->deadline <= now)
			conn_shut(mh, mc, mc->answering ? "its answer was not "
			    "taken in time" : "no whole request in time");
	daemon_run(mh);
	deadlines_arm(mh);
}

/* The timer at the earliest deadline (or the end of a pause). */
static void
deadlines_arm(struct metrics_http *mh)
{
	uint64_t now, next = UINT64_MAX;
	struct metrics_conn *mc;

	if (mh->daemon == NULL)
		return;
	now = uv_now(uv_handle_get_loop((uv_handle_t *)&mh->deadline_timer));
	for (mc = mh->first; mc != NULL; mc = mc->next)
		if (!mc->shut && mc->deadline < next)
			next = mc->deadline;
	if (mh->accept_paused && now + ACCEPT_PAUSE_MS < next)
		next = now + ACCEPT_PAUSE_MS;
	if (next == UINT64_MAX)
		uv_timer_stop(&mh->deadline_timer);
	else
		uv_timer_start(&mh->deadline_timer, deadline_cb,
		    next > now ? next - now : 0, 0);
}

static void
poll_cb(uv_poll_t *h, int status, int events)
{
	daemon_run(h->data);
}

static void
timer_cb(uv_timer_t *h)
{
	daemon_run(h->data);
}

/* Let libmicrohttpd work, then arm the timer for its next deadline. */
static void
daemon_run(struct metrics_http *mh)
{
	MHD_UNSIGNED_LONG_LONG ms;

	if (mh->daemon == NULL)
		return;
	MHD_run(mh->daemon);
	if (MHD_get_timeout(mh->daemon, &ms) == MHD_YES)
		uv_timer_start(&mh->timer, timer_cb, ms, 0);
	else
		uv_timer_stop(&mh->timer);
}

static void
log_cb(void *arg, const char *fmt, va_list ap)
{
	char *msg = str_vprintf(fmt, ap);
	size_t n;

	if (msg == NULL)
		return;
	n = strlen(msg);
	while (n > 0 && msg[n - 1] == '\n')
		msg[--n] = '\0';
	log_debug(NULL, "metrics listener: %s", msg);
	free(msg);
}

/* Our listening socket on addr; its port in *port. -1 with errno. */
static int
listen_open(const struct sockaddr_storage *addr, int *port)
{
	struct sockaddr_storage bound;
	socklen_t len = addr->ss_family == AF_INET6 ?
	    sizeof(struct sockaddr_in6) : sizeof(struct sockaddr_in);
	int fd, on = 1, saved;

	if ((fd = socket(addr->ss_family, SOCK_STREAM | SOCK_NONBLOCK |
	    SOCK_CLOEXEC, 0)) < 0)
		return -1;
	if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof on) != 0 ||
	    (addr->ss_family == AF_INET6 && setsockopt(fd, IPPROTO_IPV6,
	    IPV6_V6ONLY, &on, sizeof on) != 0) ||
	    bind(fd, (const struct sockaddr *)addr, len) != 0 ||
	    listen(fd, 64) != 0)
		goto fail;
	len = sizeof bound;
	if (getsockname(fd, (struct sockaddr *)&bound, &len) != 0)
		goto fail;
	*port = ntohs(bound.ss_family == AF_INET6 ?
	    ((struct sockaddr_in6 *)&bound)->sin6_port :
	    ((struct sockaddr_in *)&bound)->sin_port);
	return fd;
fail:
	saved = errno;
	close(fd);
	errno = saved;
	return -1;
}

static void
start_failed_cb(uv_handle_t *h)
{
	struct metrics_http *mh = h->data;

	MHD_stop_daemon(mh->daemon);
	close(mh->listen_fd);
	free(mh);
}

int
metrics_http_start(uv_loop_t *loop, const struct sockaddr_storage *addr,
    struct metrics_http **out, char **cause)
{
	struct metrics_http *mh;
	const union MHD_DaemonInfo *info;
	unsigned int flags = MHD_USE_EPOLL | MHD_USE_ERROR_LOG |
	    MHD_USE_NO_LISTEN_SOCKET;
	char host[INET6_ADDRSTRLEN] = "?";
	int port;

	*out = NULL;
	*cause = NULL;
	if (addr->ss_family == AF_INET6)
		port = ntohs(((const struct sockaddr_in6 *)addr)->sin6_port);
	else
		port = ntohs(((const struct sockaddr_in *)addr)->sin_port);
	addr_text(addr, host, sizeof host);
	if ((mh = calloc(1, sizeof *mh)) == NULL)
		return NP_ERR_NOMEM;
	if ((mh->listen_fd = listen_open(addr, &mh->port)) < 0) {
		*cause = str_printf("%s:%d: cannot listen there: %s; choose "
		    "another port or address", host, port, strerror(errno));
		free(mh);
		return NP_ERR_IO;
	}
	/* Its own limits are a backstop: ours (make_room) come first, and
	 * leave room for the connections shut down but not yet closed. */
	mh->daemon = MHD_start_daemon(flags, 0, NULL, NULL,
	    request_cb, mh,
	    MHD_OPTION_CONNECTION_LIMIT, (unsigned int)
	    (2 * METRICS_HTTP_MAX_CONNECTIONS + ACCEPTS_PER_TURN),
	    MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)
	    METRICS_HTTP_CONNECTION_MEMORY,
	    MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int)
	    METRICS_HTTP_IDLE_SECONDS,
	    MHD_OPTION_NOTIFY_CONNECTION, connection_cb, mh,
	    MHD_OPTION_NOTIFY_COMPLETED, completed_cb, mh,
	    MHD_OPTION_EXTERNAL_LOGGER, log_cb, NULL,
	    MHD_OPTION_END);
	if (mh->daemon == NULL) {
		*cause = str_printf("%s:%d: the HTTP server did not start",
		    host, port);
		close(mh->listen_fd);
		free(mh);
		return NP_ERR_SYSTEM;
	}
	if (uv_poll_init(loop, &mh->listen_poll, mh->listen_fd) != 0)
		goto unwatched;
	info = MHD_get_daemon_info(mh->daemon, MHD_DAEMON_INFO_EPOLL_FD);
	if (info == NULL || uv_poll_init(loop, &mh->poll, info->epoll_fd) != 0) {
		/* the listening socket's watcher frees mh once closed */
		mh->listen_poll.data = mh;
		uv_close((uv_handle_t *)&mh->listen_poll, start_failed_cb);
		mh = NULL;
		goto unwatched;
	}
	uv_timer_init(loop, &mh->timer);
	uv_timer_init(loop, &mh->deadline_timer);
	mh->poll.data = mh->timer.data = mh->listen_poll.data =
	    mh->deadline_timer.data = mh;
	mh->handles = 4;
	uv_poll_start(&mh->poll, UV_READABLE, poll_cb);
	uv_poll_start(&mh->listen_poll, UV_READABLE, listen_cb);
	log_debug(NULL, "metrics listener: %s:%d", host, mh->port);
	*out = mh;
	return 0;
unwatched:
	*cause = str_printf("%s:%d: the listener cannot be watched", host,
	    port);
	if (mh != NULL) {
		MHD_stop_daemon(mh->daemon);
		close(mh->listen_fd);
		free(mh);
	}
	return NP_ERR_SYSTEM;
}

int
metrics_http_take(struct metrics_http *mh, char *text, size_t len)
{
	struct exposition *e;

	if ((e = calloc(1, sizeof *e)) == NULL) {
		free(text);
		return NP_ERR_NOMEM;
	}
	if (text == NULL && (text = strdup("")) == NULL) {
		free(e);
		return NP_ERR_NOMEM;
	}
	e->refs = 1;
	e->text = text;
	e->len = len;
	e->om_len = metrics_om_length(text, len);
	expo_release(mh->expo);	/* answers under way keep theirs */
	mh->expo = e;
	return 0;
}

int
metrics_http_port(const struct metrics_http *mh)
{
	return mh->port;
}

static void
handle_closed_cb(uv_handle_t *h)
{
	struct metrics_http *mh = h->data;

	if (--mh->handles > 0)
		return;
	if (mh->closed_cb != NULL)
		mh->closed_cb(mh->closed_arg);
	expo_release(mh->expo);
	free(mh);
}

void
metrics_http_close(struct metrics_http *mh, void (*closed_cb)(void *),
    void *arg)
{
	struct MHD_Daemon *daemon;

	if (mh == NULL)
		return;
	mh->closed_cb = closed_cb;
	mh->closed_arg = arg;
	/* the watchers first: the daemon's stop closes its descriptor */
	uv_close((uv_handle_t *)&mh->poll, handle_closed_cb);
	uv_close((uv_handle_t *)&mh->timer, handle_closed_cb);
	uv_close((uv_handle_t *)&mh->listen_poll, handle_closed_cb);
	uv_close((uv_handle_t *)&mh->deadline_timer, handle_closed_cb);
	close(mh->listen_fd);
	/* every connection's close notice, every answer's release (the
	 * notices see no daemon: nothing is armed again) */
	daemon = mh->daemon;
	mh->daemon = NULL;
	MHD_stop_daemon(daemon);
}
