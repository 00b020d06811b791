/*
 * OTLP/JSON text (trace_otlp.h): a span is encoded once, when it ends,
 * straight into the exporter's queue, so a span costs one small append
 * and no tree. Strings are escaped as JSON requires; bytes that are not
 * UTF-8 are replaced (a collector refuses the whole request otherwise).
 * 64-bit integers are JSON strings (proto3's mapping), doubles numbers
 * (non-finite ones as their proto3 strings).
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "error.h"
#include "trace_config.h"
#include "trace_otlp.h"

void
trace_otlp_hex(const uint8_t *bytes, size_t n, char *out)
{
	static const char digits[] = "0123456789abcdef";
	size_t i;

	for (i = 0; i < n; i++) {
		out[i * 2] = digits[bytes[i] >> 4];
		out[i * 2 + 1] = digits[bytes[i] & 15];
	}
	out[n * 2] = '\0';
}

/* The length of the valid UTF-8 sequence at s (1-4), or 0. */
static size_t
utf8_len(const unsigned char *s)
{
	size_t n, i;
	unsigned c = s[0];

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		n = 2;
	else if (c >= 0xe0 && c <= 0xef)
		n = 3;
	else if (c >= 0xf0 && c <= 0xf4)
		n = 4;
	else
		return 0;
	for (i = 1; i < n; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	/* overlong three-byte forms, surrogates, past U+10FFFF */
	if ((c == 0xe0 && s[1] < 0xa0) || (c == 0xed && s[1] >= 0xa0) ||
	    (c == 0xf0 && s[1] < 0x90) || (c == 0xf4 && s[1] >= 0x90))
		return 0;
	return n;
}

/* s as a JSON string. */
static int
json_string(struct buf *b, const char *s)
{
	const unsigned char *p = (const unsigned char *)s, *run = p;
	char esc[8];
	size_t n;

	if (buf_append(b, "\"", 1) != 0)
		return NP_ERR_NOMEM;
	while (*p != '\0') {
		if (*p >= 0x20 && *p != '"' && *p != '\\' && *p < 0x80) {
			p++;
			continue;
		}
		if (*p >= 0x80 && (n = utf8_len(p)) > 0) {
			p += n;
			continue;
		}
		if (p > run && buf_append(b, run, (size_t)(p - run)) != 0)
			return NP_ERR_NOMEM;
		if (*p == '"' || *p == '\\')
			snprintf(esc, sizeof esc, "\\%c", *p);
		else if (*p == '\n')
			snprintf(esc, sizeof esc, "\\n");
		else if (*p < 0x20)
			snprintf(esc, sizeof esc, "\\u%04x", *p);
		else
			snprintf(esc, sizeof esc, "\\ufffd");	/* not UTF-8 */
		if (buf_append(b, esc, strlen(esc)) != 0)
			return NP_ERR_NOMEM;
		run = ++p;
	}
	if (p > run && buf_append(b, run, (size_t)(p - run)) != 0)
		return NP_ERR_NOMEM;
	return buf_append(b, "\"", 1);
}

static int
attr_head(struct buf *b, const char *key, const char *type)
{
	if ((b->len > 0 && buf_append(b, ",", 1) != 0) ||
	    buf_append(b, "{\"key\":", 7) != 0 || json_string(b, key) != 0)
		return NP_ERR_NOMEM;
	return buf_printf(b, ",\"value\":{\"%s\":", type);
}

int
trace_otlp_attr_str(struct buf *b, const char *key, const char *value)
{
	if (attr_head(b, key, "stringValue") != 0 ||
	    json_string(b, value != NULL ? value : "") != 0)
		return NP_ERR_NOMEM;
	return buf_append(b, "}}", 2);
}

int
trace_otlp_attr_int(struct buf *b, const char *key, long long value)
{
	if (attr_head(b, key, "intValue") != 0)
		return NP_ERR_NOMEM;
	return buf_printf(b, "\"%lld\"}}", value);
}

int
trace_otlp_attr_double(struct buf *b, const char *key, double value)
{
	if (attr_head(b, key, "doubleValue") != 0)
		return NP_ERR_NOMEM;
	if (isnan(value))
		return buf_printf(b, "\"NaN\"}}");
	if (isinf(value))
		return buf_printf(b, "\"%sInfinity\"}}", value < 0 ? "-" : "");
	return buf_printf(b, "%.17g}}", value);
}

int
trace_otlp_attr_bool(struct buf *b, const char *key, int value)
{
	if (attr_head(b, key, "boolValue") != 0)
		return NP_ERR_NOMEM;
	return buf_printf(b, "%s}}", value ? "true" : "false");
}

int
trace_otlp_span(struct buf *b, const struct trace_otlp_span *s)
{
	char trace_id[33], span_id[17], parent_id[17];

	trace_otlp_hex(s->trace_id, 16, trace_id);
	trace_otlp_hex(s->span_id, 8, span_id);
	if (buf_printf(b, "{\"traceId\":\"%s\",\"spanId\":\"%s\",", trace_id,
	    span_id) != 0)
		return NP_ERR_NOMEM;
	if (s->parent_id != NULL) {
		trace_otlp_hex(s->parent_id, 8, parent_id);
		if (buf_printf(b, "\"parentSpanId\":\"%s\",", parent_id) != 0)
			return NP_ERR_NOMEM;
	}
	if (buf_append(b, "\"name\":", 7) != 0 || json_string(b, s->name) != 0 ||
	    buf_printf(b, ",\"kind\":%d,\"startTimeUnixNano\":\"%" PRIu64 "\","
	    "\"endTimeUnixNano\":\"%" PRIu64 "\",\"attributes\":[", s->kind,
	    s->start_ns, s->end_ns) != 0 ||
	    (s->attrs_len > 0 && buf_append(b, s->attrs, s->attrs_len) != 0) ||
	    buf_append(b, "]", 1) != 0)
		return NP_ERR_NOMEM;
	if (s->error != NULL && (buf_printf(b, ",\"status\":{\"code\":2,"
	    "\"message\":") != 0 || json_string(b, s->error) != 0 ||
	    buf_append(b, "}", 1) != 0))
		return NP_ERR_NOMEM;
	return buf_append(b, "}", 1);
}

int
trace_otlp_request_head(struct buf *b, const struct trace_config *cfg)
{
	struct buf attrs = { 0 };
	size_t i;
	int r = NP_ERR_NOMEM;

	for (i = 0; i < cfg->n_resource; i++)
		if (trace_otlp_attr_str(&attrs, cfg->resource[i * 2],
		    cfg->resource[i * 2 + 1]) != 0)
			goto out;
	if (trace_otlp_attr_str(&attrs, "service.version", NETPROF_VERSION) !=
	    0 || trace_otlp_attr_str(&attrs, "telemetry.sdk.name",
	    "netprof") != 0 || trace_otlp_attr_str(&attrs,
	    "telemetry.sdk.language", "c") != 0)
		goto out;
	if (buf_printf(b, "{\"resourceSpans\":[{\"resource\":{\"attributes\":"
	    "[%s]},\"scopeSpans\":[{\"scope\":{\"name\":\"netprof\","
	    "\"version\":\"%s\"},\"spans\":[", attrs.data, NETPROF_VERSION) != 0)
		goto out;
	r = 0;
out:
	buf_free(&attrs);
	return r;
}
