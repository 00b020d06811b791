/*
 * GET /metrics over HTTP from the loop. libmicrohttpd does the HTTP (the
 * request line and headers, keep-alive, HEAD, pipelining, answers to
 * malformed requests) in external-polling mode: it gives one epoll
 * descriptor that is readable whenever any of its sockets has work, which
 * a uv_poll watches, and MHD_get_timeout() says when it must run anyway,
 * which a uv_timer keeps. Every libmicrohttpd call happens on the loop's
 * thread; its answer is a copy of the latest exposition.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <microhttpd.h>

#include "error.h"
#include "log.h"
#include "metrics.h"
#include "metrics_http.h"
#include "util.h"

#define CONTENT_TYPE "text/plain; version=0.0.4; charset=utf-8"
#define OPENMETRICS_TYPE "application/openmetrics-text; version=1.0.0; charset=utf-8"

struct metrics_http {
	struct MHD_Daemon *daemon;
	uv_poll_t poll;
	uv_timer_t timer;
	int handles;		/* open: freed when the last is closed */
	char *text;		/* the text format */
	size_t len;
	char *om;		/* the same in OpenMetrics */
	size_t om_len;
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

static enum MHD_Result
answer(struct MHD_Connection *conn, unsigned int status, const char *body,
    size_t len, int copy, int om)
{
	struct MHD_Response *resp;
	enum MHD_Result r;

	resp = MHD_create_response_from_buffer(len, (void *)body, copy ?
	    MHD_RESPMEM_MUST_COPY : MHD_RESPMEM_PERSISTENT);
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

static enum MHD_Result
request_cb(void *arg, struct MHD_Connection *conn, const char *url,
    const char *method, const char *version, const char *upload,
    size_t *upload_size, void **state)
{
	static const char not_found[] = "only /metrics is here\n";
	static const char not_allowed[] = "GET /metrics\n";
	struct metrics_http *mh = arg;
	const char *accept;

	if (strcmp(method, MHD_HTTP_METHOD_GET) != 0 &&
	    strcmp(method, MHD_HTTP_METHOD_HEAD) != 0)
		return answer(conn, MHD_HTTP_METHOD_NOT_ALLOWED, not_allowed,
		    sizeof not_allowed - 1, 0, 0);
	if (strcmp(url, "/metrics") != 0)
		return answer(conn, MHD_HTTP_NOT_FOUND, not_found,
		    sizeof not_found - 1, 0, 0);
	/* OpenMetrics when the scraper names it (Prometheus does, first) */
	accept = MHD_lookup_connection_value(conn, MHD_HEADER_KIND,
	    MHD_HTTP_HEADER_ACCEPT);
	if (accept != NULL && mh->om != NULL &&
	    strstr(accept, "application/openmetrics-text") != NULL)
		return answer(conn, MHD_HTTP_OK, mh->om, mh->om_len, 1, 1);
	return answer(conn, MHD_HTTP_OK, mh->text != NULL ? mh->text : "",
	    mh->len, 1, 0);
}

static void daemon_run(struct metrics_http *mh);

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

int
metrics_http_start(uv_loop_t *loop, const struct sockaddr_storage *addr,
    struct metrics_http **out, char **cause)
{
	struct metrics_http *mh;
	const union MHD_DaemonInfo *info;
	unsigned int flags = MHD_USE_EPOLL | MHD_USE_ERROR_LOG;
	char host[INET6_ADDRSTRLEN] = "?";
	int port;

	*out = NULL;
	*cause = NULL;
	if (addr->ss_family == AF_INET6) {
		flags |= MHD_USE_IPv6;
		inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)addr)->
		    sin6_addr, host, sizeof host);
		port = ntohs(((const struct sockaddr_in6 *)addr)->sin6_port);
	} else {
		inet_ntop(AF_INET, &((const struct sockaddr_in *)addr)->
		    sin_addr, host, sizeof host);
		port = ntohs(((const struct sockaddr_in *)addr)->sin_port);
	}
	if ((mh = calloc(1, sizeof *mh)) == NULL)
		return NP_ERR_NOMEM;
	errno = 0;
	mh->daemon = MHD_start_daemon(flags, (uint16_t)port, NULL, NULL,
	    request_cb, mh,
	    MHD_OPTION_SOCK_ADDR, (const struct sockaddr *)addr,
	    MHD_OPTION_CONNECTION_LIMIT, (unsigned int)
	    METRICS_HTTP_MAX_CONNECTIONS,
	    MHD_OPTION_PER_IP_CONNECTION_LIMIT, (unsigned int)
	    METRICS_HTTP_MAX_PER_ADDRESS,
	    MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)
	    METRICS_HTTP_CONNECTION_MEMORY,
	    MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int)
	    METRICS_HTTP_IDLE_SECONDS,
	    MHD_OPTION_EXTERNAL_LOGGER, log_cb, NULL,
	    MHD_OPTION_END);
	if (mh->daemon == NULL) {
		*cause = str_printf("%s:%d: cannot listen there%s%s; choose "
		    "another port or address", host, port, errno ? ": " : "",
		    errno ? strerror(errno) : "");
		free(mh);
		return NP_ERR_IO;
	}
	info = MHD_get_daemon_info(mh->daemon, MHD_DAEMON_INFO_EPOLL_FD);
	if (info == NULL || uv_poll_init(loop, &mh->poll, info->epoll_fd) != 0) {
		*cause = str_printf("%s:%d: the listener cannot be watched",
		    host, port);
		MHD_stop_daemon(mh->daemon);
		free(mh);
		return NP_ERR_SYSTEM;
	}
	uv_timer_init(loop, &mh->timer);
	mh->poll.data = mh->timer.data = mh;
	mh->handles = 2;
	info = MHD_get_daemon_info(mh->daemon, MHD_DAEMON_INFO_BIND_PORT);
	mh->port = info != NULL ? info->port : port;
	uv_poll_start(&mh->poll, UV_READABLE, poll_cb);
	log_debug(NULL, "metrics listener: %s:%d", host, mh->port);
	*out = mh;
	return 0;
}

int
metrics_http_set(struct metrics_http *mh, const char *text, size_t len)
{
	char *copy = malloc(len + 1), *om;
	size_t om_len;

	if (copy == NULL || metrics_openmetrics(text, len, &om, &om_len) != 0) {
		free(copy);
		return NP_ERR_NOMEM;
	}
	memcpy(copy, text, len);
	copy[len] = '\0';
	free(mh->text);
	free(mh->om);
	mh->text = copy;
	mh->len = len;
	mh->om = om;
	mh->om_len = om_len;
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
	free(mh->text);
	free(mh->om);
	free(mh);
}

void
metrics_http_close(struct metrics_http *mh, void (*closed_cb)(void *),
    void *arg)
{
	if (mh == NULL)
		return;
	mh->closed_cb = closed_cb;
	mh->closed_arg = arg;
	/* the watcher first: the daemon's stop closes the descriptor */
	uv_close((uv_handle_t *)&mh->poll, handle_closed_cb);
	uv_close((uv_handle_t *)&mh->timer, handle_closed_cb);
	MHD_stop_daemon(mh->daemon);
	mh->daemon = NULL;
}
