/*
 * Between the HTTP client (http.c) and its bridges (http_bridge.c): how a
 * request made on a caller's socket (an SSH tunnel's end) reaches libcurl.
 * Private to http.c (it sits beside its source, as transport.h does).
 *
 * libcurl 7.88 (Debian 12) calls connect() even when the
 * CURLOPT_SOCKOPTFUNCTION callback answers CURL_SOCKOPT_ALREADY_CONNECTED
 * (fixed in 8.0), and connect() on a connected socket fails, so the socket
 * cannot be handed to libcurl as it is. A bridge listens on a Unix socket
 * in a private directory (no TCP port another local user could reach);
 * libcurl connects there (CURLOPT_UNIX_SOCKET_PATH) and the bridge relays
 * bytes between that one connection and the caller's socket.
 */
#ifndef NETPROF_HTTP_BRIDGE_H
#define NETPROF_HTTP_BRIDGE_H

#include <uv.h>

struct http_bridge;

typedef void (*http_bridge_closed_cb)(struct http_bridge *b, void *arg);

/*
 * Listen on a Unix socket in a new 0700 directory for one connection from
 * this process and relay it to fd, which the bridge owns from here on
 * (also on error: it is closed). path (size bytes) gets the socket's name. closed_cb runs once every handle is closed, on a later turn:
 * after libcurl's end of the connection closed, http_bridge_close(), or
 * an error on fd. *self (may be NULL) is cleared when the bridge is gone.
 */
int http_bridge_open(uv_loop_t *loop, int fd, http_bridge_closed_cb closed_cb,
    void *arg, struct http_bridge **self, char *path, size_t size);

/* No connection will come if none has been accepted yet: close then. */
void http_bridge_release(struct http_bridge *b);

/* Close the listener, both connections and fd. */
void http_bridge_close(struct http_bridge *b);

#endif
