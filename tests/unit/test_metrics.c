/*
 * metrics.c and metrics_http.c without a lab: [ADDR:]PORT parsing and the
 * loopback rule, the exposition of a sweep's record lines (base units, a
 * failed pair, escaped labels), and the listener on the loop answering a
 * real HTTP client on loopback: 200 with the text, 404, 405, and a
 * request larger than its memory bound refused; OpenMetrics (counter
 * families without `_total`, `# EOF`) for a scraper that asks for it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cmocka.h>
#include <uv.h>

#include "error.h"
#include "file.h"
#include "metrics.h"
#include "records_read.h"
#include "metrics_http.h"
#include "util.h"

static int
port_of(const struct sockaddr_storage *ss)
{
	return ss->ss_family == AF_INET ?
	    ntohs(((const struct sockaddr_in *)ss)->sin_port) :
	    ntohs(((const struct sockaddr_in6 *)ss)->sin6_port);
}

static void
test_addr_loopback_by_default(void **state)
{
	struct sockaddr_storage ss;
	char *cause = NULL;

	assert_int_equal(0, metrics_http_parse_addr("9464", 0, &ss, &cause));
	assert_int_equal(AF_INET, ss.ss_family);
	assert_int_equal(9464, port_of(&ss));
	assert_int_equal(htonl(INADDR_LOOPBACK),
	    ((struct sockaddr_in *)&ss)->sin_addr.s_addr);
	assert_int_equal(0, metrics_http_parse_addr("[::1]:80", 0, &ss,
	    &cause));
	assert_int_equal(AF_INET6, ss.ss_family);
	assert_int_equal(80, port_of(&ss));
}

static void
test_addr_public_only_when_asked(void **state)
{
	struct sockaddr_storage ss;
	char *cause = NULL;

	assert_int_equal(NP_ERR_USAGE, metrics_http_parse_addr("0.0.0.0:9464",
	    0, &ss, &cause));
	assert_non_null(strstr(cause, "--metrics-public"));
	free(cause);
	assert_int_equal(0, metrics_http_parse_addr("0.0.0.0:9464", 1, &ss,
	    &cause));
}

static void
test_addr_bad(void **state)
{
	static const char *const bad[] = { "", "abc", "127.0.0.1:", ":80",
	    "1.2.3.4:70000", "[::1]80", "127.0.0.1:-1", "host.example:80" };
	struct sockaddr_storage ss;
	char *cause = NULL;
	size_t i;

	for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		assert_int_equal(NP_ERR_USAGE, metrics_http_parse_addr(bad[i],
		    1, &ss, &cause));
		assert_non_null(strstr(cause, "[ADDR:]PORT"));
		free(cause);
		cause = NULL;
	}
}

static const char ok_line[] = "{\"kind\":\"ping\",\"source\":\"a\","
    "\"target\":\"b\",\"ok\":true,\"ended_at\":\"2026-12-01T10:00:00.000+00:00\","
    "\"metrics\":{\"avg\":1.5,\"min\":1.0,\"max\":2.0,\"loss_pct\":25}}";
static const char failed_line[] = "{\"kind\":\"ping\",\"source\":\"b\","
    "\"target\":\"a\\n\\\"x\",\"ok\":false,\"error\":\"100% packet loss\","
    "\"error_class\":\"tool_failed\",\"metrics\":{}}";

/* A record line into the set, as a reader takes it; not a record: 0. */
static int
add_line(struct metrics_set *set, const char *line, size_t len)
{
	struct record *r = NULL;
	char *cause = NULL;
	int rc;

	if (record_parse(line, len, &r, &cause) != 0) {
		free(cause);
		return 0;
	}
	rc = metrics_set_add(set, r);
	record_free(r);
	return rc;
}

static void
test_set_exposition(void **state)
{
	struct metrics_set *set = metrics_set_new();
	struct metrics_info info = { .sweep = 7, .started_at = 100,
	    .ended_at = 102.5 };
	struct buf out = { 0 };

	assert_non_null(set);
	assert_int_equal(0, add_line(set, ok_line,
	    strlen(ok_line)));
	assert_int_equal(0, add_line(set, failed_line,
	    strlen(failed_line)));
	assert_int_equal(0, add_line(set, "not json", 8));
	assert_int_equal(2, metrics_set_count(set));
	assert_int_equal(0, metrics_set_render(set, &info, &out));
	assert_non_null(strstr(out.data,
	    "netprof_ping_rtt_avg_seconds{source=\"a\",target=\"b\"} 0.0015\n"));
	assert_non_null(strstr(out.data,
	    "netprof_ping_loss_ratio{source=\"a\",target=\"b\"} 0.25\n"));
	assert_non_null(strstr(out.data, "netprof_probe_ok{kind=\"ping\","
	    "source=\"b\",target=\"a\\n\\\"x\"} 0\n"));
	assert_non_null(strstr(out.data, "error_class=\"tool_failed\"} 1\n"));
	assert_non_null(strstr(out.data, "netprof_sweep_number 7\n"));
	assert_non_null(strstr(out.data, "netprof_sweep_duration_seconds 2.5\n"));
	/* a failed pair has no RTT sample */
	assert_null(strstr(out.data, "rtt_avg_seconds{source=\"b\""));
	buf_free(&out);
	metrics_set_free(set);
}

/* bench --metrics-file: a bench run's records file to the exposition. */
static void
test_from_records_file(void **state)
{
	const char *fixtures = getenv("NETPROF_FIXTURES");
	char *in, *out, *text = NULL, *cause = NULL;
	char dir[] = "/tmp/netprof-metrics-XXXXXX";

	assert_non_null(fixtures);
	assert_non_null(mkdtemp(dir));
	in = str_printf("%s/heatmap/measurements.jsonl", fixtures);
	out = str_printf("%s/bench.prom", dir);
	assert_int_equal(0, metrics_write_from_records(in, out, &cause));
	assert_int_equal(0, file_read(out, &text, NULL, &cause));
	/* the fixture's alpha->beta libp2p_ping p50 is 3.0 ms */
	assert_non_null(strstr(text, "netprof_libp2p_ping_rtt_p50_seconds"
	    "{source=\"alpha\",target=\"beta\"} 0.003\n"));
	assert_non_null(strstr(text, "netprof_libp2p_throughput_bytes_per_second"
	    "{source=\"alpha\",target=\"beta\"} 70500000\n"));
	free(text);
	assert_int_equal(NP_ERR_IO, metrics_write_from_records(in,
	    "/nonexistent-dir/x.prom", &cause));
	assert_non_null(strstr(cause, "/nonexistent-dir/x.prom"));
	free(cause);
	unlink(out);
	rmdir(dir);
	free(in);
	free(out);
}

/* The client side, on a thread of its own: the loop serves meanwhile. */
struct exchange {
	int port;
	const char *request;
	size_t request_len;
	char answer[8192];
	uv_async_t *done;
};

static void *
client_main(void *arg)
{
	struct exchange *x = arg;
	struct sockaddr_in sin = { .sin_family = AF_INET,
	    .sin_port = htons((uint16_t)x->port),
	    .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	size_t got = 0, off = 0;
	ssize_t n;
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	if (fd >= 0 && connect(fd, (struct sockaddr *)&sin, sizeof sin) == 0) {
		while (off < x->request_len && (n = write(fd, x->request + off,
		    x->request_len - off)) > 0)
			off += (size_t)n;
		while (got + 1 < sizeof x->answer && (n = read(fd,
		    x->answer + got, sizeof x->answer - 1 - got)) > 0)
			got += (size_t)n;
	}
	x->answer[got] = '\0';
	if (fd >= 0)
		close(fd);
	uv_async_send(x->done);
	return NULL;
}

static void
done_cb(uv_async_t *a)
{
	uv_close((uv_handle_t *)a, NULL);
	uv_stop(a->loop);	/* the listener's handles stay active */
}

static void
closed_cb(void *arg)
{
	(*(int *)arg)++;
}

/* One request to a fresh listener serving text; the answer in x. */
static void
exchange(struct exchange *x, const char *text)
{
	struct sockaddr_storage ss;
	struct metrics_http *mh;
	uv_loop_t loop;
	uv_async_t done;
	pthread_t th;
	char *cause = NULL;
	int closed = 0;

	assert_int_equal(0, uv_loop_init(&loop));
	assert_int_equal(0, metrics_http_parse_addr("127.0.0.1:0", 0, &ss,
	    &cause));
	assert_int_equal(0, metrics_http_start(&loop, &ss, &mh, &cause));
	assert_int_equal(0, metrics_http_take(mh, strdup(text), strlen(text)));
	x->port = metrics_http_port(mh);
	assert_true(x->port > 0);
	uv_async_init(&loop, &done, done_cb);
	x->done = &done;
	assert_int_equal(0, pthread_create(&th, NULL, client_main, x));
	uv_run(&loop, UV_RUN_DEFAULT);	/* until the client is done */
	pthread_join(th, NULL);
	metrics_http_close(mh, closed_cb, &closed);
	assert_int_equal(0, closed);	/* not from inside the call */
	uv_run(&loop, UV_RUN_DEFAULT);
	assert_int_equal(1, closed);
	assert_int_equal(0, uv_loop_close(&loop));
}

static void
test_listener_answers_metrics(void **state)
{
	struct exchange x = { .request = "GET /metrics HTTP/1.0\r\n\r\n" };

	x.request_len = strlen(x.request);
	exchange(&x, "netprof_build_info{version=\"t\"} 1\n");
	assert_non_null(strstr(x.answer, "HTTP/1.0 200") != NULL ?
	    x.answer : strstr(x.answer, "HTTP/1.1 200"));
	assert_non_null(strstr(x.answer, "text/plain; version=0.0.4"));
	assert_non_null(strstr(x.answer, "\r\n\r\nnetprof_build_info{version=\"t\"} 1\n"));
}

static const char counters[] =
    "# HELP netprof_sweeps_total Sweeps completed\n"
    "# TYPE netprof_sweeps_total counter\n"
    "netprof_sweeps_total 3\n"
    "# HELP netprof_sweep_number Number of the sweep\n"
    "# TYPE netprof_sweep_number gauge\n"
    "netprof_sweep_number 3\n";

static void
test_openmetrics(void **state)
{
	char *om;
	size_t n;

	assert_int_equal(0, metrics_openmetrics(counters, strlen(counters),
	    &om, &n));
	assert_int_equal(strlen(om), n);
	assert_string_equal(
	    "# HELP netprof_sweeps Sweeps completed\n"
	    "# TYPE netprof_sweeps counter\n"
	    "netprof_sweeps_total 3\n"
	    "# HELP netprof_sweep_number Number of the sweep\n"
	    "# TYPE netprof_sweep_number gauge\n"
	    "netprof_sweep_number 3\n"
	    "# EOF\n", om);
	free(om);
	/* nothing yet, or a last line without its newline */
	assert_int_equal(0, metrics_openmetrics("", 0, &om, &n));
	assert_string_equal("# EOF\n", om);
	free(om);
	assert_int_equal(0, metrics_openmetrics("x 1", 3, &om, &n));
	assert_string_equal("x 1\n# EOF\n", om);
	free(om);
}

/* The listener sends the OpenMetrics form as it reads it from the one
 * exposition: in pieces of any size, the same bytes as the whole. */
static void
test_openmetrics_read_in_pieces(void **state)
{
	static const char *const texts[] = { counters, "", "x 1",
	    "# HELP a_total x\n# TYPE a_total counter", "# HELP _total x\n" };
	struct metrics_om_reader r;
	char *whole, got[1024];
	size_t i, max, n, len, k;

	(void)state;
	for (i = 0; i < sizeof texts / sizeof texts[0]; i++) {
		assert_int_equal(0, metrics_openmetrics(texts[i],
		    strlen(texts[i]), &whole, &len));
		assert_int_equal(len, metrics_om_length(texts[i],
		    strlen(texts[i])));
		for (max = 1; max <= 9; max++) {
			metrics_om_begin(&r, texts[i], strlen(texts[i]));
			for (n = 0; (k = metrics_om_read(&r, got + n,
			    max)) > 0; n += k)
				assert_true(k <= max && n + k < sizeof got);
			got[n] = '\0';
			assert_string_equal(whole, got);
		}
		free(whole);
	}
}

static void
test_listener_openmetrics_when_asked(void **state)
{
	struct exchange x = { .request = "GET /metrics HTTP/1.0\r\n"
	    "Accept: application/openmetrics-text;version=1.0.0,"
	    "text/plain;version=0.0.4;q=0.5\r\n\r\n" };

	x.request_len = strlen(x.request);
	exchange(&x, counters);
	assert_non_null(strstr(x.answer,
	    "application/openmetrics-text; version=1.0.0"));
	assert_non_null(strstr(x.answer, "# TYPE netprof_sweeps counter\n"));
	assert_non_null(strstr(x.answer, "netprof_sweep_number 3\n# EOF\n"));
	/* without the header: the text format, no # EOF */
	memset(&x, 0, sizeof x);
	x.request = "GET /metrics HTTP/1.0\r\nAccept: */*\r\n\r\n";
	x.request_len = strlen(x.request);
	exchange(&x, counters);
	assert_non_null(strstr(x.answer, "text/plain; version=0.0.4"));
	assert_non_null(strstr(x.answer, "# TYPE netprof_sweeps_total counter"));
	assert_null(strstr(x.answer, "# EOF"));
}

static void
test_listener_other_paths_and_methods(void **state)
{
	struct exchange x = { .request = "GET /other HTTP/1.0\r\n\r\n" };

	x.request_len = strlen(x.request);
	exchange(&x, "x 1\n");
	assert_non_null(strstr(x.answer, " 404 "));
	memset(&x, 0, sizeof x);
	x.request = "POST /metrics HTTP/1.0\r\nContent-Length: 0\r\n\r\n";
	x.request_len = strlen(x.request);
	exchange(&x, "x 1\n");
	assert_non_null(strstr(x.answer, " 405 "));
}

static void
test_listener_bounds_request_size(void **state)
{
	size_t size = 4 * METRICS_HTTP_CONNECTION_MEMORY;
	char *req = malloc(size + 64);
	struct exchange x = { 0 };
	int len;

	assert_non_null(req);
	len = snprintf(req, 64, "GET /metrics HTTP/1.1\r\nX-Big: ");
	memset(req + len, 'a', size);
	memcpy(req + len + size, "\r\n\r\n", 4);
	x.request = req;
	x.request_len = (size_t)len + size + 4;
	exchange(&x, "x 1\n");
	/* refused (431 or the connection closed), never the metrics */
	assert_null(strstr(x.answer, " 200 "));
	free(req);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_addr_loopback_by_default),
		cmocka_unit_test(test_addr_public_only_when_asked),
		cmocka_unit_test(test_addr_bad),
		cmocka_unit_test(test_set_exposition),
		cmocka_unit_test(test_from_records_file),
		cmocka_unit_test(test_listener_answers_metrics),
		cmocka_unit_test(test_openmetrics),
		cmocka_unit_test(test_openmetrics_read_in_pieces),
		cmocka_unit_test(test_listener_openmetrics_when_asked),
		cmocka_unit_test(test_listener_other_paths_and_methods),
		cmocka_unit_test(test_listener_bounds_request_size),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
