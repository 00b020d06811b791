/*
 * http: the libcurl-on-libuv client against a small HTTP/1.1 server that
 * runs on the same loop, on 127.0.0.1 (a free port) or on one end of a
 * socket pair handed to a request as its own socket, the way an SSH
 * tunnel's end is. Each test ends with the client closed and
 * uv_loop_close() succeeding: no handle is left behind.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

#include <uv.h>

#include "error.h"
#include "http.h"

/* ---- the test server ---- */

struct server {
	uv_loop_t *loop;
	uv_tcp_t tcp;
	int port;
	int open;		/* connections open now */
	int max_open;
	int closed;		/* connections closed so far */
	int requests;
	int handles;		/* listener + connections not yet closed */
};

struct conn {
	union {
		uv_tcp_t tcp;
		uv_pipe_t pipe;
		uv_stream_t stream;
	} h;
	struct server *srv;
	char *buf;
	size_t len, cap;
};

static void
server_handle_closed_cb(uv_handle_t *h)
{
	struct server *srv = h->data;

	srv->handles--;
}

static void
conn_closed_cb(uv_handle_t *h)
{
	struct conn *conn = h->data;

	conn->srv->handles--;
	free(conn);
}

static void
conn_close(struct conn *conn)
{
	if (uv_is_closing((uv_handle_t *)&conn->h))
		return;
	conn->srv->open--;
	conn->srv->closed++;
	free(conn->buf);
	conn->buf = NULL;
	uv_close((uv_handle_t *)&conn->h, conn_closed_cb);
}

static void
write_done_cb(uv_write_t *req, int status)
{
	free(req);
}

static void
conn_reply(struct conn *conn, int status, const char *body)
{
	uv_write_t *req;
	uv_buf_t buf;
	char *text;
	size_t len = strlen(body) + 128;

	req = malloc(sizeof *req + len);
	assert_non_null(req);
	text = (char *)(req + 1);
	snprintf(text, len, "HTTP/1.1 %d %s\r\nContent-Length: %zu\r\n"
	    "Content-Type: text/plain\r\n\r\n%s", status,
	    status == 200 ? "OK" : "Bad Request", strlen(body), body);
	buf = uv_buf_init(text, (unsigned)strlen(text));
	assert_int_equal(uv_write(req, &conn->h.stream, &buf, 1,
	    write_done_cb), 0);
}

#define BIG_BODY (4u << 20)

/* A body larger than any buffer on the way. */
static void
conn_reply_big(struct conn *conn)
{
	uv_write_t *req = malloc(sizeof *req + BIG_BODY + 128);
	char *text = (char *)(req + 1);
	int head;
	uv_buf_t buf;

	assert_non_null(req);
	head = snprintf(text, 128, "HTTP/1.1 200 OK\r\nContent-Length: %u"
	    "\r\n\r\n", BIG_BODY);
	memset(text + head, 'x', BIG_BODY);
	buf = uv_buf_init(text, (unsigned)head + BIG_BODY);
	assert_int_equal(uv_write(req, &conn->h.stream, &buf, 1,
	    write_done_cb), 0);
}

static const char *
header_value(const char *head, const char *name, char *out, size_t size)
{
	const char *p = head;
	size_t n = strlen(name);

	out[0] = '\0';
	while ((p = strstr(p, "\r\n")) != NULL) {
		p += 2;
		if (strncasecmp(p, name, n) == 0 && p[n] == ':') {
			p += n + 1;
			while (*p == ' ')
				p++;
			snprintf(out, size, "%.*s", (int)strcspn(p, "\r"), p);
			break;
		}
	}
	return out;
}

/* One complete request at the head of conn->buf: answer it; 0 if more
   bytes are needed. */
static int
conn_serve_one(struct conn *conn)
{
	char method[16], path[256], ctype[128], clen[32], *end, *body;
	char answer[4096];
	size_t head_len, body_len;

	if (conn->len == 0 || (end = memmem(conn->buf, conn->len,
	    "\r\n\r\n", 4)) == NULL)
		return 0;
	*end = '\0';
	head_len = (size_t)(end - conn->buf) + 4;
	body_len = (size_t)atol(header_value(conn->buf, "Content-Length",
	    clen, sizeof clen));
	if (conn->len < head_len + body_len) {
		*end = '\r';
		return 0;
	}
	assert_int_equal(sscanf(conn->buf, "%15s %255s", method, path), 2);
	header_value(conn->buf, "Content-Type", ctype, sizeof ctype);
	body = conn->buf + head_len;
	conn->srv->requests++;
	if (strcmp(path, "/hello") == 0)
		conn_reply(conn, 200, "hello");
	else if (strcmp(path, "/echo") == 0) {
		snprintf(answer, sizeof answer, "%s [%s] %.*s", method, ctype,
		    (int)body_len, body);
		conn_reply(conn, 200, answer);
	} else if (strcmp(path, "/bad") == 0)
		conn_reply(conn, 400, "{\"error\": \"bad request\"}");
	else if (strcmp(path, "/big") == 0)
		conn_reply_big(conn);
	else if (strcmp(path, "/hangup") == 0) {
		conn_close(conn);
		return 0;
	}
	/* "/slow": never answered */
	memmove(conn->buf, conn->buf + head_len + body_len,
	    conn->len - head_len - body_len);
	conn->len -= head_len + body_len;
	return 1;
}

static void
conn_alloc_cb(uv_handle_t *h, size_t hint, uv_buf_t *buf)
{
	struct conn *conn = h->data;

	if (conn->cap - conn->len < 65536) {
		conn->cap += 65536;
		conn->buf = realloc(conn->buf, conn->cap);
		assert_non_null(conn->buf);
	}
	*buf = uv_buf_init(conn->buf + conn->len,
	    (unsigned)(conn->cap - conn->len));
}

static void
conn_read_cb(uv_stream_t *s, ssize_t n, const uv_buf_t *buf)
{
	struct conn *conn = s->data;

	if (n < 0) {
		conn_close(conn);
		return;
	}
	conn->len += (size_t)n;
	while (conn->buf != NULL && conn_serve_one(conn))
		;
}

static struct conn *
conn_new(struct server *srv)
{
	struct conn *conn = calloc(1, sizeof *conn);

	assert_non_null(conn);
	conn->srv = srv;
	return conn;
}

static void
conn_start(struct conn *conn)
{
	struct server *srv = conn->srv;

	conn->h.stream.data = conn;
	srv->handles++;
	if (++srv->open > srv->max_open)
		srv->max_open = srv->open;
	assert_int_equal(uv_read_start(&conn->h.stream, conn_alloc_cb,
	    conn_read_cb), 0);
}

static void
server_connection_cb(uv_stream_t *listener, int status)
{
	struct server *srv = listener->data;
	struct conn *conn = conn_new(srv);

	assert_int_equal(status, 0);
	uv_tcp_init(srv->loop, &conn->h.tcp);
	assert_int_equal(uv_accept(listener, &conn->h.stream), 0);
	conn_start(conn);
}

static void
server_start(struct server *srv, uv_loop_t *loop)
{
	struct sockaddr_in addr;
	int len = sizeof addr;

	memset(srv, 0, sizeof *srv);
	srv->loop = loop;
	uv_tcp_init(loop, &srv->tcp);
	srv->tcp.data = srv;
	uv_ip4_addr("127.0.0.1", 0, &addr);
	assert_int_equal(uv_tcp_bind(&srv->tcp,
	    (const struct sockaddr *)&addr, 0), 0);
	assert_int_equal(uv_listen((uv_stream_t *)&srv->tcp, 512,
	    server_connection_cb), 0);
	uv_tcp_getsockname(&srv->tcp, (struct sockaddr *)&addr, &len);
	srv->port = ntohs(addr.sin_port);
	srv->handles = 1;
}

/* Serve one end of a socket pair; the other is returned for a request. */
static int
server_socketpair(struct server *srv)
{
	struct conn *conn = conn_new(srv);
	int sv[2];

	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0,
	    sv), 0);
	uv_pipe_init(srv->loop, &conn->h.pipe, 0);
	assert_int_equal(uv_pipe_open(&conn->h.pipe, sv[0]), 0);
	conn_start(conn);
	return sv[1];
}

/* A port on 127.0.0.1 where nothing listens. */
static int
refused_port(void)
{
	struct sockaddr_in addr;
	socklen_t len = sizeof addr;
	int fd = socket(AF_INET, SOCK_STREAM, 0), port;

	memset(&addr, 0, sizeof addr);
	addr.sin_family = AF_INET;
	addr.sin_addr.s_addr = htonl(0x7f000001);
	assert_int_equal(bind(fd, (struct sockaddr *)&addr, sizeof addr), 0);
	getsockname(fd, (struct sockaddr *)&addr, &len);
	port = ntohs(addr.sin_port);
	close(fd);
	return port;
}

/* ---- the client side ---- */

struct answer {
	int calls;		/* on_done count */
	int error;
	long status;
	char *error_text;
	char *body;
	size_t body_len;
	double elapsed_s;
	int *in_request;	/* set while inside http_request/_cancel */
};

static void
answer_done_cb(const struct http_response *res, void *arg)
{
	struct answer *a = arg;

	if (a->in_request != NULL)
		assert_false(*a->in_request);
	a->calls++;
	a->error = res->error;
	a->status = res->status;
	a->error_text = res->error_text ? strdup(res->error_text) : NULL;
	assert_non_null(res->body);
	assert_int_equal(res->body[res->body_len], '\0');
	a->body = strdup(res->body);
	a->body_len = res->body_len;
	a->elapsed_s = res->elapsed_s;
}

static void
answer_clear(struct answer *a)
{
	free(a->error_text);
	free(a->body);
	memset(a, 0, sizeof *a);
}

struct fixture {
	uv_loop_t loop;
	struct server srv;
	struct http_client *client;
	char url[128];
	int closed;
};

static void
fixture_url(struct fixture *f, int port, const char *path)
{
	snprintf(f->url, sizeof f->url, "http://127.0.0.1:%d%s", port, path);
}

static int
setup(void **state)
{
	struct fixture *f = calloc(1, sizeof *f);

	assert_non_null(f);
	assert_int_equal(uv_loop_init(&f->loop), 0);
	server_start(&f->srv, &f->loop);
	assert_int_equal(http_new(&f->loop, &f->client), 0);
	*state = f;
	return 0;
}

static void
client_closed_cb(void *arg)
{
	struct fixture *f = arg;

	f->closed++;
}

static void
close_all_server_handles(uv_handle_t *h, void *arg)
{
	struct fixture *f = arg;

	/* the client is closed: what is left is the server's */
	if (h != (uv_handle_t *)&f->srv.tcp && !uv_is_closing(h))
		conn_close(h->data);
}

static int
teardown(void **state)
{
	struct fixture *f = *state;

	if (f->client != NULL) {
		http_close(f->client, client_closed_cb, f);
		assert_int_equal(f->closed, 0);	/* on a later turn */
		while (f->closed == 0)
			assert_int_not_equal(uv_run(&f->loop, UV_RUN_ONCE), 0);
		assert_int_equal(f->closed, 1);
		http_free(f->client);
	}
	uv_walk(&f->loop, close_all_server_handles, f);
	uv_close((uv_handle_t *)&f->srv.tcp, server_handle_closed_cb);
	uv_run(&f->loop, UV_RUN_DEFAULT);
	assert_int_equal(uv_loop_close(&f->loop), 0);
	free(f);
	return 0;
}

static struct http_call *
start(struct fixture *f, const char *method, const char *path,
    const char *body, double timeout_s, int fd, struct answer *a)
{
	struct http_request req = {
		.method = method, .url = f->url, .body = body,
		.body_len = body ? strlen(body) : 0, .timeout_s = timeout_s,
		.fd = fd, .on_done = answer_done_cb, .arg = a,
	};
	struct http_call *call = NULL;
	int in_request = 1;

	if (path != NULL)
		fixture_url(f, f->srv.port, path);
	a->in_request = &in_request;
	assert_int_equal(http_request(f->client, &req, &call), 0);
	assert_non_null(call);
	assert_int_equal(a->calls, 0);
	in_request = 0;
	a->in_request = NULL;
	return call;
}

/* Run the loop until a has its answer (the server keeps the loop alive). */
static void
wait_for(struct fixture *f, struct answer *a, int n)
{
	while (a->calls < n)
		assert_int_not_equal(uv_run(&f->loop, UV_RUN_ONCE), 0);
}

static void
get_gives_status_and_body(void **state)
{
	struct fixture *f = *state;
	struct answer a = { 0 };

	start(f, "GET", "/hello", NULL, 5, -1, &a);
	wait_for(f, &a, 1);
	assert_int_equal(a.calls, 1);
	assert_int_equal(a.error, NP_OK);
	assert_null(a.error_text);
	assert_int_equal(a.status, 200);
	assert_string_equal(a.body, "hello");
	assert_int_equal(a.body_len, 5);
	assert_true(a.elapsed_s > 0 && a.elapsed_s < 5);
	answer_clear(&a);
	assert_int_equal(http_pending(f->client), 0);
}

static void
post_sends_the_body_as_json(void **state)
{
	struct fixture *f = *state;
	struct answer a = { 0 };

	start(f, "POST", "/echo", "{\"target\": \"x\", \"count\": 3}", 5, -1,
	    &a);
	wait_for(f, &a, 1);
	assert_int_equal(a.error, NP_OK);
	assert_int_equal(a.status, 200);
	assert_string_equal(a.body,
	    "POST [application/json] {\"target\": \"x\", \"count\": 3}");
	answer_clear(&a);

	/* a GET has no body and no Content-Type */
	start(f, "GET", "/echo", NULL, 5, -1, &a);
	wait_for(f, &a, 1);
	assert_string_equal(a.body, "GET [] ");
	answer_clear(&a);
}

static void
status_400_is_an_answer_not_an_error(void **state)
{
	struct fixture *f = *state;
	struct answer a = { 0 };

	start(f, "POST", "/bad", "{", 5, -1, &a);
	wait_for(f, &a, 1);
	assert_int_equal(a.error, NP_OK);
	assert_int_equal(a.status, 400);
	assert_string_equal(a.body, "{\"error\": \"bad request\"}");
	answer_clear(&a);
}

static void
refused_port_is_a_connect_error_naming_the_url(void **state)
{
	struct fixture *f = *state;
	struct answer a = { 0 };
	char want[160];

	fixture_url(f, refused_port(), "/v1/health");
	start(f, "GET", NULL, NULL, 5, -1, &a);
	wait_for(f, &a, 1);
	assert_int_equal(a.error, NP_ERR_CONNECT);
	assert_int_equal(a.status, 0);
	assert_string_equal(a.body, "");
	snprintf(want, sizeof want, "GET %s: could not connect: ", f->url);
	assert_non_null(a.error_text);
	if (strncmp(a.error_text, want, strlen(want)) != 0)
		fail_msg("error_text \"%s\"", a.error_text);
	answer_clear(&a);
}

static void
no_answer_within_the_timeout_is_a_timeout(void **state)
{
	struct fixture *f = *state;
	struct answer a = { 0 };

	start(f, "GET", "/slow", NULL, 0.3, -1, &a);
	wait_for(f, &a, 1);
	assert_int_equal(a.error, NP_ERR_TIMEOUT);
	assert_non_null(strstr(a.error_text, "/slow: timed out"));
	assert_true(a.elapsed_s >= 0.29);
	assert_true(a.elapsed_s < 2);
	answer_clear(&a);
}

static void
connection_closed_without_answer_is_an_io_error(void **state)
{
	struct fixture *f = *state;
	struct answer a = { 0 };

	start(f, "GET", "/hangup", NULL, 5, -1, &a);
	wait_for(f, &a, 1);
	assert_int_equal(a.error, NP_ERR_IO);
	assert_non_null(a.error_text);
	answer_clear(&a);
}

#define MANY 400

static void
many_requests_at_once_each_get_their_own_answer(void **state)
{
	struct fixture *f = *state;
	struct answer *a = calloc(MANY, sizeof *a);
	char body[64], want[128];
	uint64_t t0 = uv_hrtime();
	int i, done = 0;

	assert_non_null(a);
	for (i = 0; i < MANY; i++) {
		snprintf(body, sizeof body, "{\"n\": %d}", i);
		if (i % 2)
			start(f, "POST", "/echo", body, 10, -1, &a[i]);
		else
			start(f, "GET", "/hello", NULL, 10, -1, &a[i]);
	}
	assert_int_equal(http_pending(f->client), MANY);
	while (done < MANY) {
		assert_int_not_equal(uv_run(&f->loop, UV_RUN_ONCE), 0);
		for (done = 0, i = 0; i < MANY; i++)
			done += a[i].calls;
	}
	print_message("%d requests in %.3f s; up to %d connections at once\n",
	    MANY, (double)(uv_hrtime() - t0) / 1e9, f->srv.max_open);
	for (i = 0; i < MANY; i++) {
		assert_int_equal(a[i].calls, 1);
		assert_int_equal(a[i].error, NP_OK);
		assert_int_equal(a[i].status, 200);
		snprintf(want, sizeof want, "POST [application/json] "
		    "{\"n\": %d}", i);
		assert_string_equal(a[i].body, i % 2 ? want : "hello");
		answer_clear(&a[i]);
	}
	/* they overlapped: more than one connection was open at once */
	assert_true(f->srv.max_open > 1);
	assert_int_equal(f->srv.requests, MANY);
	free(a);
}

static void
cancel_reports_cancelled_once_on_a_later_turn(void **state)
{
	struct fixture *f = *state;
	struct answer a = { 0 }, b = { 0 };
	struct http_call *call;
	int in_cancel = 1;

	call = start(f, "GET", "/slow", NULL, 30, -1, &a);
	while (f->srv.requests < 1)	/* the request reached the server */
		uv_run(&f->loop, UV_RUN_ONCE);
	a.in_request = &in_cancel;
	http_cancel(call);
	assert_int_equal(a.calls, 0);
	in_cancel = 0;
	wait_for(f, &a, 1);
	assert_int_equal(a.error, NP_ERR_CANCELLED);
	assert_int_equal(a.status, 0);
	/* nothing more comes, and the server saw the connection go */
	start(f, "GET", "/hello", NULL, 5, -1, &b);
	wait_for(f, &b, 1);
	assert_int_equal(a.calls, 1);
	assert_int_equal(f->srv.closed, 1);
	answer_clear(&a);
	answer_clear(&b);

	/* cancelled before the loop ran at all */
	call = start(f, "GET", "/hello", NULL, 5, -1, &a);
	http_cancel(call);
	http_cancel(call);	/* a second cancel changes nothing */
	assert_int_equal(a.calls, 0);
	wait_for(f, &a, 1);
	assert_int_equal(a.error, NP_ERR_CANCELLED);
	uv_run(&f->loop, UV_RUN_NOWAIT);
	assert_int_equal(a.calls, 1);
	answer_clear(&a);
}

static void
close_with_requests_in_flight_cancels_them(void **state)
{
	struct fixture *f = *state;
	struct answer a[12];
	int i;

	int before[12];

	memset(a, 0, sizeof a);
	for (i = 0; i < 12; i++)
		start(f, "GET", i < 8 ? "/slow" : "/hello", NULL, 30,
		    i == 11 ? server_socketpair(&f->srv) : -1, &a[i]);
	while (f->srv.requests < 10)
		uv_run(&f->loop, UV_RUN_ONCE);
	for (i = 0; i < 12; i++)
		before[i] = a[i].calls;
	http_close(f->client, client_closed_cb, f);
	for (i = 0; i < 12; i++)	/* nothing from inside http_close */
		assert_int_equal(a[i].calls, before[i]);
	while (f->closed == 0)
		assert_int_not_equal(uv_run(&f->loop, UV_RUN_ONCE), 0);
	/* the server sees every connection go */
	while (f->srv.open > 0)
		assert_int_not_equal(uv_run(&f->loop, UV_RUN_ONCE), 0);
	for (i = 0; i < 8; i++) {
		assert_int_equal(a[i].calls, 1);
		assert_int_equal(a[i].error, NP_ERR_CANCELLED);
		answer_clear(&a[i]);
	}
	for (; i < 12; i++) {
		assert_int_equal(a[i].calls, 1);
		answer_clear(&a[i]);
	}
	http_free(f->client);
	f->client = NULL;
}

static void
own_socket_carries_the_request_and_is_closed_after(void **state)
{
	struct fixture *f = *state;
	struct answer a = { 0 };
	int fd = server_socketpair(&f->srv);

	/* nothing listens at the URL's port: only the socket can answer */
	fixture_url(f, refused_port(), "/echo");
	start(f, "POST", NULL, "{\"via\": \"pair\"}", 5, fd, &a);
	wait_for(f, &a, 1);
	if (a.error != NP_OK)
		fail_msg("%s", a.error_text);
	assert_int_equal(a.status, 200);
	assert_string_equal(a.body, "POST [application/json] {\"via\": \"pair\"}");
	while (f->srv.closed < 1)	/* libcurl closed its end */
		assert_int_not_equal(uv_run(&f->loop, UV_RUN_ONCE), 0);
	answer_clear(&a);

	/* a second request with its own socket does not reuse the first */
	fd = server_socketpair(&f->srv);
	start(f, "GET", NULL, NULL, 5, fd, &a);
	fixture_url(f, refused_port(), "/hello");
	wait_for(f, &a, 1);
	assert_int_equal(a.error, NP_OK);
	assert_int_equal(f->srv.requests, 2);
	while (f->srv.closed < 2)
		assert_int_not_equal(uv_run(&f->loop, UV_RUN_ONCE), 0);
	answer_clear(&a);
}

static void
own_socket_of_a_cancelled_request_is_closed(void **state)
{
	struct fixture *f = *state;
	struct answer a = { 0 };
	struct http_call *call;

	fixture_url(f, refused_port(), "/hello");
	call = start(f, "GET", NULL, NULL, 5, server_socketpair(&f->srv), &a);
	http_cancel(call);
	wait_for(f, &a, 1);
	assert_int_equal(a.error, NP_ERR_CANCELLED);
	while (f->srv.closed < 1)
		assert_int_not_equal(uv_run(&f->loop, UV_RUN_ONCE), 0);
	assert_int_equal(f->srv.requests, 0);
	answer_clear(&a);
}

static void
own_socket_carries_a_large_body_whole(void **state)
{
	struct fixture *f = *state;
	struct answer a = { 0 };
	size_t i;

	fixture_url(f, refused_port(), "/big");
	start(f, "GET", NULL, NULL, 10, server_socketpair(&f->srv), &a);
	wait_for(f, &a, 1);
	assert_int_equal(a.error, NP_OK);
	assert_int_equal(a.body_len, BIG_BODY);
	for (i = 0; i < BIG_BODY; i++)
		if (a.body[i] != 'x')
			fail_msg("byte %zu is 0x%02x", i, a.body[i]);
	answer_clear(&a);
}

static void
own_socket_closed_by_the_other_end_is_an_io_error(void **state)
{
	struct fixture *f = *state;
	struct answer a = { 0 };
	int sv[2];

	/* what a tunnel whose channel could not open looks like */
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0,
	    sv), 0);
	close(sv[0]);
	fixture_url(f, refused_port(), "/hello");
	start(f, "GET", NULL, NULL, 5, sv[1], &a);
	wait_for(f, &a, 1);
	assert_int_equal(a.error, NP_ERR_IO);
	assert_int_equal(a.status, 0);
	answer_clear(&a);
}

static void
bad_requests_are_refused_at_once(void **state)
{
	struct fixture *f = *state;
	struct http_request req = { .method = "GET", .url = NULL, .fd = -1,
	    .on_done = answer_done_cb };
	struct http_call *call = (struct http_call *)1;

	assert_int_equal(http_request(f->client, &req, &call),
	    NP_ERR_USAGE);
	assert_null(call);
	assert_int_equal(http_pending(f->client), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)
		T(get_gives_status_and_body),
		T(post_sends_the_body_as_json),
		T(status_400_is_an_answer_not_an_error),
		T(refused_port_is_a_connect_error_naming_the_url),
		T(no_answer_within_the_timeout_is_a_timeout),
		T(connection_closed_without_answer_is_an_io_error),
		T(many_requests_at_once_each_get_their_own_answer),
		T(cancel_reports_cancelled_once_on_a_later_turn),
		T(close_with_requests_in_flight_cancels_them),
		T(own_socket_carries_the_request_and_is_closed_after),
		T(own_socket_of_a_cancelled_request_is_closed),
		T(own_socket_carries_a_large_body_whole),
		T(own_socket_closed_by_the_other_end_is_an_io_error),
		T(bad_requests_are_refused_at_once),
#undef T
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
