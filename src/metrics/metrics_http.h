/*
 * The /metrics listener: GET /metrics answers the latest exposition
 * (metrics.h) from the command's libuv loop, through libmicrohttpd run
 * from that loop (its epoll descriptor under a uv_poll, its next timeout
 * on a uv_timer), so a scrape never waits for a sweep and a sweep never
 * waits for a scraper. Loopback unless a public address is allowed;
 * connections (past the limits a new one takes the place of the oldest
 * idle one, or of an answer running long),
 * their memory (so a request's size), their idle time and the time a
 * request or an answer may take are bounded.
 */
#ifndef NETPROF_METRICS_HTTP_H
#define NETPROF_METRICS_HTTP_H

#include <stddef.h>

#include <uv.h>

#define METRICS_HTTP_MAX_CONNECTIONS 16
#define METRICS_HTTP_MAX_PER_ADDRESS 8
#define METRICS_HTTP_CONNECTION_MEMORY (32 * 1024)	/* request + headers */
#define METRICS_HTTP_IDLE_SECONDS 10	/* libmicrohttpd's, between bytes */
/* A whole request within this of the connection's start or of its last
 * answer, however the bytes trickle in. */
#define METRICS_HTTP_REQUEST_SECONDS 10
/* An answer taken within METRICS_HTTP_IDLE_SECONDS plus its size at this
 * rate (bytes per second). */
#define METRICS_HTTP_ANSWER_RATE (4 * 1024 * 1024)
/* Past the limits, a new connection takes the place of the oldest idle
 * one, else of an answer running longer than this (ms), else is refused. */
#define METRICS_HTTP_ANSWER_GRACE_MS 1000

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

/*
 * The exposition to answer from now on: text (malloc()ed, len bytes;
 * NULL for none) is the listener's, freed once no answer sends it any
 * more, even on failure. 0 or NP_ERR_NOMEM.
 */
int metrics_http_take(struct metrics_http *mh, char *text, size_t len);

/* The port listened on (for port 0: the one the system chose). */
int metrics_http_port(const struct metrics_http *mh);

/* Stop listening; closed_cb(arg) on a later loop turn, once its handles are closed. */
void metrics_http_close(struct metrics_http *mh, void (*closed_cb)(void *),
    void *arg);

#endif
