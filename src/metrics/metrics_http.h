/*
 * The /metrics listener: GET /metrics answers the latest exposition
 * (metrics.h) from the command's libuv loop, through libmicrohttpd run
 * from that loop (its epoll descriptor under a uv_poll, its next timeout
 * on a uv_timer), so a scrape never waits for a sweep and a sweep never
 * waits for a scraper. Loopback unless a public address is allowed;
 * connections, their memory (so a request's size) and their idle time are
 * bounded.
 */
#ifndef NETPROF_METRICS_HTTP_H
#define NETPROF_METRICS_HTTP_H

#include <stddef.h>

#include <uv.h>

#define METRICS_HTTP_MAX_CONNECTIONS 16
#define METRICS_HTTP_MAX_PER_ADDRESS 8
#define METRICS_HTTP_CONNECTION_MEMORY (32 * 1024)	/* request + headers */
#define METRICS_HTTP_IDLE_SECONDS 10

struct metrics_http;

/*
 * Parse "[ADDR:]PORT" ("9464", "127.0.0.1:9464", "[::1]:9464") into
 * *ss. A non-loopback address is refused unless allow_public. NP_ERR_USAGE
 * with *cause saying what is wrong and the fix.
 */
int metrics_http_parse_addr(const char *spec, int allow_public,
    struct sockaddr_storage *ss, char **cause);

/* Listen on addr. NP_ERR_IO with *cause (the address and why). */
int metrics_http_start(uv_loop_t *loop, const struct sockaddr_storage *addr,
    struct metrics_http **out, char **cause);

/* The exposition to answer from now on (copied). 0 or NP_ERR_NOMEM. */
int metrics_http_set(struct metrics_http *mh, const char *text, size_t len);

/* The port listened on (for port 0: the one the system chose). */
int metrics_http_port(const struct metrics_http *mh);

/* Stop listening; closed_cb(arg) on a later loop turn, once its handles are closed. */
void metrics_http_close(struct metrics_http *mh, void (*closed_cb)(void *),
    void *arg);

#endif
