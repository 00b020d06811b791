/*
 * The trace module without a collector: --otlp and the OTEL_* variables
 * as OpenTelemetry's SDKs read them (the URL, headers with percent-encoded
 * values, the service name, the refusals that name the variable), and the
 * OTLP/JSON a span becomes (read back with cJSON: ids as hex, times as
 * strings, attributes typed, the error status, text that is not valid
 * JSON or UTF-8 made so), and the W3C traceparent of a span.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <cjson/cJSON.h>

#include "error.h"
#include "trace.h"
#include "trace_config.h"
#include "trace_otlp.h"
#include "util.h"

static const char *const otel_vars[] = {
	"OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
	"OTEL_EXPORTER_OTLP_HEADERS", "OTEL_EXPORTER_OTLP_TRACES_HEADERS",
	"OTEL_SERVICE_NAME", "OTEL_RESOURCE_ATTRIBUTES",
	"OTEL_EXPORTER_OTLP_PROTOCOL", "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL",
	"OTEL_EXPORTER_OTLP_TIMEOUT", "OTEL_EXPORTER_OTLP_TRACES_TIMEOUT",
	"OTEL_BSP_SCHEDULE_DELAY", "OTEL_BSP_MAX_QUEUE_SIZE",
	"OTEL_BSP_MAX_EXPORT_BATCH_SIZE", "OTEL_SDK_DISABLED", NULL
};

static int
clean_env(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; otel_vars[i] != NULL; i++)
		unsetenv(otel_vars[i]);
	return 0;
}

/* Load with --otlp=otlp (NULL: not given); expect r. */
static void
load(const char *otlp, int want_r, int want_enabled, struct trace_config *cfg,
    char **cause)
{
	struct trace_options o = { .otlp = otlp };
	int enabled = -1;

	assert_int_equal(trace_config_load(&o, cfg, &enabled, cause), want_r);
	assert_int_equal(enabled, want_enabled);
}

static void
test_config_off_without_the_option(void **state)
{
	struct trace_config cfg;
	char *cause;

	setenv("OTEL_EXPORTER_OTLP_HEADERS", "not a header", 1);
	load(NULL, 0, 0, &cfg, &cause);	/* nothing read */
	assert_null(cause);
}

static void
test_config_urls(void **state)
{
	struct trace_config cfg;
	char *cause;

	load("", 0, 1, &cfg, &cause);
	assert_string_equal(cfg.url, "http://localhost:4318/v1/traces");
	assert_string_equal(cfg.resource[0], "service.name");
	assert_string_equal(cfg.resource[1], "netprof");
	assert_int_equal(cfg.n_headers, 0);
	assert_true(cfg.timeout_s == 10.0);
	assert_int_equal(cfg.max_queue, 2048);
	assert_int_equal(cfg.max_batch, 512);
	trace_config_free(&cfg);

	setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "https://otlp.example/otlp/", 1);
	load("", 0, 1, &cfg, &cause);
	assert_string_equal(cfg.url, "https://otlp.example/otlp/v1/traces");
	trace_config_free(&cfg);

	/* the signal's own URL is used as is, --otlp=URL wins over both */
	setenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "http://c:9/t", 1);
	load("", 0, 1, &cfg, &cause);
	assert_string_equal(cfg.url, "http://c:9/t");
	trace_config_free(&cfg);
	load("http://j:4318", 0, 1, &cfg, &cause);
	assert_string_equal(cfg.url, "http://j:4318/v1/traces");
	trace_config_free(&cfg);
	load("http://j:4318/v1/traces", 0, 1, &cfg, &cause);
	assert_string_equal(cfg.url, "http://j:4318/v1/traces");
	trace_config_free(&cfg);

	load("j:4318", NP_ERR_USAGE, 0, &cfg, &cause);
	assert_non_null(strstr(cause, "--otlp=j:4318: not an http:// or "
	    "https:// URL"));
	free(cause);
	setenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "http://a b/", 1);
	load("", NP_ERR_USAGE, 0, &cfg, &cause);
	assert_non_null(strstr(cause, "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT="));
	free(cause);
}

static void
test_config_headers_decoded(void **state)
{
	struct trace_config cfg;
	char *cause;

	setenv("OTEL_EXPORTER_OTLP_HEADERS",
	    " Authorization = Basic%20YTpi ,x-tenant=lab%2Cone,,", 1);
	load("", 0, 1, &cfg, &cause);
	assert_int_equal(cfg.n_headers, 2);
	assert_string_equal(cfg.headers[0], "Authorization: Basic YTpi");
	assert_string_equal(cfg.headers[1], "x-tenant: lab,one");
	assert_null(cfg.headers[2]);
	trace_config_free(&cfg);

	/* the signal's own wins */
	setenv("OTEL_EXPORTER_OTLP_TRACES_HEADERS", "a=1", 1);
	load("", 0, 1, &cfg, &cause);
	assert_int_equal(cfg.n_headers, 1);
	assert_string_equal(cfg.headers[0], "a: 1");
	trace_config_free(&cfg);
}

static void
test_config_headers_refused(void **state)
{
	static const struct {
		const char *value, *said;
	} bad[] = {
		{ "api-key", "\"api-key\" is not key=value" },
		{ "x=a%0D%0AHost: evil", "a control character" },
		{ "bad key=1", "no valid key" },
		{ "=1", "no valid key" },
	};
	struct trace_config cfg;
	char *cause;
	size_t i;

	for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		setenv("OTEL_EXPORTER_OTLP_HEADERS", bad[i].value, 1);
		load("", NP_ERR_USAGE, 0, &cfg, &cause);
		assert_non_null(strstr(cause, "OTEL_EXPORTER_OTLP_HEADERS: "));
		if (strstr(cause, bad[i].said) == NULL)
			fail_msg("%s: %s", bad[i].value, cause);
		free(cause);
	}
}

static void
test_config_service_and_resource(void **state)
{
	struct trace_config cfg;
	char *cause;

	setenv("OTEL_RESOURCE_ATTRIBUTES", "deployment.environment=lab,"
	    "service.name=from-resource", 1);
	load("", 0, 1, &cfg, &cause);
	assert_int_equal(cfg.n_resource, 2);
	assert_string_equal(cfg.resource[1], "from-resource");
	assert_string_equal(cfg.resource[2], "deployment.environment");
	assert_string_equal(cfg.resource[3], "lab");
	trace_config_free(&cfg);
	setenv("OTEL_SERVICE_NAME", "bench-ci", 1);
	load("", 0, 1, &cfg, &cause);
	assert_string_equal(cfg.resource[1], "bench-ci");
	trace_config_free(&cfg);
}

static void
test_config_protocol_numbers_and_off(void **state)
{
	struct trace_config cfg;
	char *cause;

	setenv("OTEL_EXPORTER_OTLP_PROTOCOL", "http/protobuf", 1);
	setenv("OTEL_EXPORTER_OTLP_TIMEOUT", "2500", 1);
	setenv("OTEL_BSP_MAX_QUEUE_SIZE", "100", 1);
	load("", 0, 1, &cfg, &cause);
	assert_true(cfg.timeout_s == 2.5);
	assert_int_equal(cfg.max_queue, 100);
	assert_int_equal(cfg.max_batch, 100);	/* never above the queue */
	trace_config_free(&cfg);
	setenv("OTEL_EXPORTER_OTLP_PROTOCOL", "grpc", 1);
	load("", NP_ERR_USAGE, 0, &cfg, &cause);
	assert_non_null(strstr(cause, "OTEL_EXPORTER_OTLP_PROTOCOL=\"grpc\""));
	free(cause);
	unsetenv("OTEL_EXPORTER_OTLP_PROTOCOL");
	setenv("OTEL_BSP_SCHEDULE_DELAY", "1s", 1);
	load("", NP_ERR_USAGE, 0, &cfg, &cause);
	assert_non_null(strstr(cause, "OTEL_BSP_SCHEDULE_DELAY=\"1s\" is not a "
	    "whole number from 1 to 600000"));
	free(cause);
	setenv("OTEL_SDK_DISABLED", "true", 1);
	load("", 0, 0, &cfg, &cause);	/* checked no further */
}

/* An ended span, as the exporter gets it, read back. */
static cJSON *
span_json(const char *error)
{
	static const uint8_t tid[16] = { 0x0a, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10,
	    11, 12, 13, 14, 0xff };
	static const uint8_t sid[8] = { 1, 2, 3, 4, 5, 6, 7, 0xee };
	static const uint8_t pid[8] = { 9, 9, 9, 9, 9, 9, 9, 9 };
	struct buf attrs = { 0 }, out = { 0 };
	struct trace_otlp_span s = {
		.trace_id = tid, .span_id = sid, .parent_id = pid,
		.name = "probe \"latency\"", .kind = TRACE_KIND_CLIENT,
		.start_ns = 1764744000123456789ull,
		.end_ns = 1764744001000000000ull, .error = error,
	};
	cJSON *o;

	assert_int_equal(trace_otlp_attr_str(&attrs, "netprof.source",
	    "h1\n\"x\"\\\x01"), 0);
	assert_int_equal(trace_otlp_attr_str(&attrs, "utf8", "gr\xc3\xbc\xc3\x9f "
	    "\xe2\x86\x92 bad:\xff\xc3(\xed\xa0\x80"), 0);
	assert_int_equal(trace_otlp_attr_int(&attrs, "netprof.round", -3), 0);
	assert_int_equal(trace_otlp_attr_double(&attrs, "netprof.mbps", 1.5),
	    0);
	assert_int_equal(trace_otlp_attr_bool(&attrs, "netprof.ok", 0), 0);
	s.attrs = attrs.data;
	s.attrs_len = attrs.len;
	assert_int_equal(trace_otlp_span(&out, &s), 0);
	o = cJSON_Parse(out.data);
	if (o == NULL)
		fail_msg("not JSON: %s", out.data);
	buf_free(&attrs);
	buf_free(&out);
	return o;
}

static const cJSON *
attr_value(const cJSON *span, const char *key)
{
	const cJSON *a;

	cJSON_ArrayForEach(a, cJSON_GetObjectItem(span, "attributes"))
		if (strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(a, "key")),
		    key) == 0)
			return cJSON_GetObjectItem(a, "value");
	fail_msg("no attribute %s", key);
	return NULL;
}

static void
test_otlp_span(void **state)
{
	cJSON *o = span_json(NULL), *v;

	assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItem(o,
	    "traceId")), "0a0102030405060708090a0b0c0d0eff");
	assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItem(o,
	    "spanId")), "01020304050607ee");
	assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItem(o,
	    "parentSpanId")), "0909090909090909");
	assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItem(o,
	    "name")), "probe \"latency\"");
	assert_int_equal(cJSON_GetObjectItem(o, "kind")->valueint, 3);
	assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItem(o,
	    "startTimeUnixNano")), "1764744000123456789");
	assert_null(cJSON_GetObjectItem(o, "status"));
	v = (cJSON *)attr_value(o, "netprof.source");
	assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItem(v,
	    "stringValue")), "h1\n\"x\"\\\x01");
	v = (cJSON *)attr_value(o, "utf8");
	assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItem(v,
	    "stringValue")), "gr\xc3\xbc\xc3\x9f \xe2\x86\x92 bad:"
	    "\xef\xbf\xbd\xef\xbf\xbd(\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd");
	v = (cJSON *)attr_value(o, "netprof.round");
	assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItem(v,
	    "intValue")), "-3");
	v = (cJSON *)attr_value(o, "netprof.mbps");
	assert_true(cJSON_GetObjectItem(v, "doubleValue")->valuedouble == 1.5);
	v = (cJSON *)attr_value(o, "netprof.ok");
	assert_true(cJSON_IsFalse(cJSON_GetObjectItem(v, "boolValue")));
	cJSON_Delete(o);

	o = span_json("h3: could not connect");
	v = cJSON_GetObjectItem(o, "status");
	assert_int_equal(cJSON_GetObjectItem(v, "code")->valueint, 2);
	assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItem(v,
	    "message")), "h3: could not connect");
	cJSON_Delete(o);
}

static void
test_otlp_request_head(void **state)
{
	struct trace_config cfg;
	struct buf b = { 0 };
	cJSON *o;
	char *cause;

	load("", 0, 1, &cfg, &cause);
	assert_int_equal(trace_otlp_request_head(&b, &cfg), 0);
	assert_int_equal(buf_printf(&b, "%s", TRACE_OTLP_REQUEST_TAIL), 0);
	o = cJSON_Parse(b.data);
	assert_non_null(o);
	assert_non_null(strstr(b.data, "{\"key\":\"service.name\",\"value\":"
	    "{\"stringValue\":\"netprof\"}}"));
	assert_true(cJSON_IsArray(cJSON_GetObjectItem(cJSON_GetArrayItem(
	    cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(o,
	    "resourceSpans"), 0), "scopeSpans"), 0), "spans")));
	cJSON_Delete(o);
	buf_free(&b);
	trace_config_free(&cfg);
}

static void
test_traceparent_and_null_tracer(void **state)
{
	struct trace_span *s;
	char tp[TRACE_PARENT_SIZE], id[33];

	/* no tracer: nothing is made, every call is a no-op */
	assert_null(trace_span_start(NULL, NULL, "netprof bench"));
	s = NULL;
	trace_span_str(s, "k", "v");
	trace_span_error(s, "x");
	trace_span_end(&s);
	assert_int_equal(trace_span_traceparent(NULL, tp, sizeof tp), -1);
	trace_span_trace_id(NULL, id, sizeof id);
	assert_string_equal(id, "");
	assert_null(trace_root(NULL));
	trace_close(NULL, NULL, NULL);
	trace_free(NULL);
}

static void
test_spans_of_a_tracer(void **state)
{
	struct trace_config cfg;
	struct trace *tr;
	struct trace_span *root, *child;
	uv_loop_t loop;
	char *cause, tp[TRACE_PARENT_SIZE], rid[33], cid[33];

	load("http://127.0.0.1:9", 0, 1, &cfg, &cause);
	assert_int_equal(uv_loop_init(&loop), 0);
	assert_int_equal(trace_new(&loop, &cfg, &tr, &cause), 0);
	trace_config_free(&cfg);
	root = trace_span_start(tr, NULL, "netprof collect");
	child = trace_span_start(tr, root, "phase ping");
	assert_non_null(root);
	assert_non_null(child);
	trace_span_trace_id(root, rid, sizeof rid);
	trace_span_trace_id(child, cid, sizeof cid);
	assert_string_equal(rid, cid);	/* one trace */
	assert_int_equal(strlen(rid), 32);
	assert_int_equal(trace_span_traceparent(child, tp, sizeof tp), 0);
	assert_int_equal(strlen(tp), 55);
	assert_memory_equal(tp, "00-", 3);
	assert_memory_equal(tp + 3, rid, 32);
	assert_string_equal(tp + 52, "-01");
	trace_root_set(tr, root);
	trace_span_end(&root);		/* the root's ids outlive it */
	assert_null(root);
	assert_non_null(trace_root(tr));
	assert_int_equal(trace_span_traceparent(trace_root(tr), tp, sizeof tp),
	    0);
	assert_memory_equal(tp + 3, rid, 32);
	/* the child still open: ended by the close, nothing left behind */
	trace_close(tr, NULL, NULL);
	uv_run(&loop, UV_RUN_DEFAULT);
	trace_free(tr);
	assert_int_equal(uv_loop_close(&loop), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_config_off_without_the_option,
		    clean_env),
		cmocka_unit_test_setup(test_config_urls, clean_env),
		cmocka_unit_test_setup(test_config_headers_decoded, clean_env),
		cmocka_unit_test_setup(test_config_headers_refused, clean_env),
		cmocka_unit_test_setup(test_config_service_and_resource,
		    clean_env),
		cmocka_unit_test_setup(test_config_protocol_numbers_and_off,
		    clean_env),
		cmocka_unit_test_setup(test_otlp_span, clean_env),
		cmocka_unit_test_setup(test_otlp_request_head, clean_env),
		cmocka_unit_test(test_traceparent_and_null_tracer),
		cmocka_unit_test_setup(test_spans_of_a_tracer, clean_env),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
