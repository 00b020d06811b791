/*
 * --otlp[=URL] and OpenTelemetry's environment variables, as its SDKs
 * read them (the specification's "OTLP Exporter Configuration" and
 * "General SDK Configuration"), into a struct trace_config:
 *
 *   the URL      --otlp=URL, else OTEL_EXPORTER_OTLP_TRACES_ENDPOINT (used
 *                as is), else OTEL_EXPORTER_OTLP_ENDPOINT, else
 *                http://localhost:4318; a base URL gets /v1/traces
 *   headers      OTEL_EXPORTER_OTLP_TRACES_HEADERS, else _HEADERS:
 *                key=value,... with percent-encoded values
 *   timeout      OTEL_EXPORTER_OTLP_TRACES_TIMEOUT, else _TIMEOUT (ms)
 *   service      OTEL_SERVICE_NAME, else OTEL_RESOURCE_ATTRIBUTES'
 *                service.name, else "netprof"
 *   batching     OTEL_BSP_SCHEDULE_DELAY, _MAX_QUEUE_SIZE,
 *                _MAX_EXPORT_BATCH_SIZE
 *
 * The protocol is OTLP/HTTP with JSON bodies: an OTEL_EXPORTER_OTLP_PROTOCOL
 * of grpc is refused (a gRPC port would not understand the request);
 * http/protobuf is taken to mean "OTLP/HTTP", which every collector that
 * takes protobuf on its HTTP port takes as JSON too.
 */
#include <ctype.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "error.h"
#include "log.h"
#include "trace_config.h"
#include "util.h"

/* --otlp URL: the word after a bare --otlp is its URL when it is one
   (scheme://...), never taken for an operand */
static int
url_word(const char *word)
{
	return strstr(word, "://") != NULL;
}

const struct option_spec trace_option_specs[] = {
	{ .name = "otlp", .type = OPTION_OPTIONAL,
	  .offset = offsetof(struct trace_options, otlp), .arg = "URL",
	  .next_word = url_word,
	  .help = "export the run as a trace (OTLP/HTTP,\n"
	  "JSON) to URL (--otlp http://host:4318 or\n"
	  "--otlp=URL; default\n"
	  "$OTEL_EXPORTER_OTLP_ENDPOINT, else\n"
	  "http://localhost:4318: on a shared\n"
	  "machine any local user listening there\n"
	  "gets the spans, command lines and the\n"
	  "OTEL_EXPORTER_OTLP_HEADERS); see OTEL_*\n"
	  "in docs/tracing.md" },
	{ .name = NULL }
};

/* Defaults: the specification's, but for the delay (5 s there): a run's
   spans show up while it runs. */
#define DEFAULT_TIMEOUT_MS 10000
#define DEFAULT_DELAY_MS 1000
#define DEFAULT_MAX_QUEUE 2048
#define DEFAULT_MAX_BATCH 512

static const char *
env(const char *name)
{
	const char *v = getenv(name);

	return v != NULL && *v != '\0' ? v : NULL;
}

/* The first of two variables that is set; *which names it. */
static const char *
env2(const char *specific, const char *general, const char **which)
{
	const char *v;

	if ((v = env(specific)) != NULL) {
		*which = specific;
		return v;
	}
	*which = general;
	return env(general);
}

/* A whole number of milliseconds within [lo, hi] from name, or dflt. */
static int
env_number(const char *name, const char *v, long lo, long hi, long dflt,
    long *out, char **cause)
{
	char *end;
	long n;

	*out = dflt;
	if (v == NULL)
		return 0;
	n = strtol(v, &end, 10);
	if (end == v || *end != '\0' || n < lo || n > hi) {
		*cause = str_printf("%s=\"%s\" is not a whole number from %ld "
		    "to %ld; set it to one or unset it", name, v, lo, hi);
		return NP_ERR_USAGE;
	}
	*out = n;
	return 0;
}

/* http:// or https://, a host, and nothing a header could hide in. */
static int
url_valid(const char *url)
{
	const char *host, *p;

	if (strncasecmp(url, "http://", 7) == 0)
		host = url + 7;
	else if (strncasecmp(url, "https://", 8) == 0)
		host = url + 8;
	else
		return 0;
	if (*host == '\0' || *host == '/' || *host == ':')
		return 0;
	for (p = url; *p != '\0'; p++)
		if ((unsigned char)*p <= ' ' || *p == 0x7f)
			return 0;
	return 1;
}

/* A base URL and /v1/traces, unless its path already ends so. */
static char *
traces_url(const char *base)
{
	size_t n = strlen(base);

	if (str_ends_with(base, "/v1/traces"))
		return strdup(base);
	while (n > 0 && base[n - 1] == '/')
		n--;
	return str_printf("%.*s/v1/traces", (int)n, base);
}

static int
hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = tolower(c);
	return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* s[0..n) percent-decoded and trimmed, as a new string; NULL: bad or
   no memory (*bad says which). */
static char *
decode(const char *s, size_t n, int *bad)
{
	char *out, *o;
	size_t i;
	int hi, lo;

	*bad = 0;
	while (n > 0 && isspace((unsigned char)*s)) {
		s++;
		n--;
	}
	while (n > 0 && isspace((unsigned char)s[n - 1]))
		n--;
	if ((out = malloc(n + 1)) == NULL)
		return NULL;
	for (i = 0, o = out; i < n; i++) {
		if (s[i] == '%' && i + 2 < n && (hi = hexval(s[i + 1])) >= 0 &&
		    (lo = hexval(s[i + 2])) >= 0) {
			*o++ = (char)(hi << 4 | lo);
			i += 2;
		} else
			*o++ = s[i];
	}
	*o = '\0';
	for (o = out; *o != '\0'; o++)
		if ((unsigned char)*o < ' ' || *o == 0x7f) {
			*bad = 1;
			free(out);
			return NULL;
		}
	return out;
}

/* An HTTP header name (RFC 9110's token). */
static int
token_valid(const char *s)
{
	if (*s == '\0')
		return 0;
	for (; *s != '\0'; s++)
		if (!isalnum((unsigned char)*s) &&
		    strchr("!#$%&'*+-.^_`|~", *s) == NULL)
			return 0;
	return 1;
}

/*
 * key=value,key=value from variable name into pairs (key, value, ...);
 * with as_headers, keys must be header names.
 */
static int
parse_pairs(const char *name, const char *v, int as_headers, char ***pairs,
    size_t *n_pairs, char **cause)
{
	const char *item = v, *comma, *eq;
	char *key, *value, **more;
	int bad;

	while (*item != '\0') {
		comma = strchr(item, ',');
		if (comma == NULL)
			comma = item + strlen(item);
		eq = memchr(item, '=', (size_t)(comma - item));
		if (eq == NULL) {
			if (strspn(item, " \t") == (size_t)(comma - item))
				goto next;	/* an empty item */
			*cause = str_printf("%s: \"%.*s\" is not key=value; "
			    "the form is key1=value1,key2=value2 (values "
			    "percent-encoded)", name, (int)(comma - item),
			    item);
			return NP_ERR_USAGE;
		}
		key = decode(item, (size_t)(eq - item), &bad);
		value = key != NULL ? decode(eq + 1, (size_t)(comma - eq - 1),
		    &bad) : NULL;
		if (key == NULL || value == NULL || *key == '\0' ||
		    (as_headers && !token_valid(key))) {
			free(key);
			free(value);
			if (!bad && (key == NULL || value == NULL))
				return NP_ERR_NOMEM;
			*cause = str_printf("%s: \"%.*s\" has %s; the form is "
			    "key1=value1,key2=value2, keys %s, values "
			    "percent-encoded (%%0A for a newline is refused)",
			    name, (int)(comma - item), item, bad ?
			    "a control character" : "no valid key",
			    as_headers ? "HTTP header names" : "not empty");
			return NP_ERR_USAGE;
		}
		if ((more = realloc(*pairs, (*n_pairs + 1) * 2 *
		    sizeof *more)) == NULL) {
			free(key);
			free(value);
			return NP_ERR_NOMEM;
		}
		*pairs = more;
		more[*n_pairs * 2] = key;
		more[*n_pairs * 2 + 1] = value;
		(*n_pairs)++;
next:
		item = *comma != '\0' ? comma + 1 : comma;
	}
	return 0;
}

static void
pairs_free(char **pairs, size_t n)
{
	size_t i;

	for (i = 0; pairs != NULL && i < n * 2; i++)
		free(pairs[i]);
	free(pairs);
}

static int
load_url(const struct trace_options *o, struct trace_config *cfg,
    char **cause)
{
	const char *which, *v;

	if (o->otlp != NULL && *o->otlp != '\0') {
		if (!url_valid(o->otlp)) {
			*cause = str_printf("--otlp=%s: not an http:// or "
			    "https:// URL; give the collector's OTLP/HTTP "
			    "address, e.g. --otlp=http://localhost:4318",
			    o->otlp);
			return NP_ERR_USAGE;
		}
		cfg->url = traces_url(o->otlp);
	} else if ((v = env2("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
	    "OTEL_EXPORTER_OTLP_ENDPOINT", &which)) != NULL) {
		if (!url_valid(v)) {
			*cause = str_printf("%s=\"%s\" is not an http:// or "
			    "https:// URL; set it to the collector's OTLP/HTTP "
			    "address (e.g. http://localhost:4318) or unset it",
			    which, v);
			return NP_ERR_USAGE;
		}
		cfg->url = strcmp(which, "OTEL_EXPORTER_OTLP_ENDPOINT") == 0 ?
		    traces_url(v) : strdup(v);
	} else
		cfg->url = traces_url(TRACE_DEFAULT_ENDPOINT);
	return cfg->url != NULL ? 0 : NP_ERR_NOMEM;
}

static int
load_headers(struct trace_config *cfg, char **cause)
{
	const char *which, *v = env2("OTEL_EXPORTER_OTLP_TRACES_HEADERS",
	    "OTEL_EXPORTER_OTLP_HEADERS", &which);
	char **pairs = NULL;
	size_t n = 0, i;
	int r;

	if (v == NULL)
		return 0;
	if ((r = parse_pairs(which, v, 1, &pairs, &n, cause)) != 0)
		goto out;
	r = NP_ERR_NOMEM;
	if ((cfg->headers = calloc(n + 1, sizeof *cfg->headers)) == NULL)
		goto out;
	for (i = 0; i < n; i++) {
		if ((cfg->headers[i] = str_printf("%s: %s", pairs[i * 2],
		    pairs[i * 2 + 1])) == NULL)
			goto out;
		cfg->n_headers++;
	}
	r = 0;
out:
	pairs_free(pairs, n);
	return r;
}

/* service.name first, then OTEL_RESOURCE_ATTRIBUTES' others. */
static int
load_resource(struct trace_config *cfg, char **cause)
{
	const char *v = env("OTEL_RESOURCE_ATTRIBUTES");
	const char *service = env("OTEL_SERVICE_NAME");
	char **pairs = NULL;
	size_t n = 0, i, k = 1;
	int r;

	if (v != NULL && (r = parse_pairs("OTEL_RESOURCE_ATTRIBUTES", v, 0,
	    &pairs, &n, cause)) != 0)
		goto out;
	for (i = 0; service == NULL && i < n; i++)
		if (strcmp(pairs[i * 2], "service.name") == 0)
			service = pairs[i * 2 + 1];
	r = NP_ERR_NOMEM;
	if ((cfg->resource = calloc((n + 1) * 2 + 1,
	    sizeof *cfg->resource)) == NULL ||
	    (cfg->resource[0] = strdup("service.name")) == NULL ||
	    (cfg->resource[1] = strdup(service != NULL ? service :
	    "netprof")) == NULL)
		goto out;
	for (i = 0; i < n; i++) {
		if (strcmp(pairs[i * 2], "service.name") == 0)
			continue;
		cfg->resource[k * 2] = pairs[i * 2];
		cfg->resource[k * 2 + 1] = pairs[i * 2 + 1];
		pairs[i * 2] = pairs[i * 2 + 1] = NULL;	/* moved */
		k++;
	}
	cfg->n_resource = k;
	r = 0;
out:
	pairs_free(pairs, n);
	return r;
}

static int
load_protocol(char **cause)
{
	const char *which, *v = env2("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL",
	    "OTEL_EXPORTER_OTLP_PROTOCOL", &which);

	if (v == NULL || strcmp(v, "http/json") == 0 ||
	    strcmp(v, "http/protobuf") == 0)
		return 0;
	*cause = str_printf("%s=\"%s\": netprof exports OTLP/HTTP with JSON "
	    "bodies (http/json); set it to http/json or unset it, and point "
	    "the endpoint at the collector's OTLP/HTTP port (4318, not "
	    "gRPC's 4317)", which, v);
	return NP_ERR_USAGE;
}

static int
load_numbers(struct trace_config *cfg, char **cause)
{
	const char *which, *v;
	long n;
	int r;

	v = env2("OTEL_EXPORTER_OTLP_TRACES_TIMEOUT",
	    "OTEL_EXPORTER_OTLP_TIMEOUT", &which);
	if ((r = env_number(which, v, 1, 600000, DEFAULT_TIMEOUT_MS, &n,
	    cause)) != 0)
		return r;
	cfg->timeout_s = n / 1000.0;
	if ((r = env_number("OTEL_BSP_SCHEDULE_DELAY",
	    env("OTEL_BSP_SCHEDULE_DELAY"), 1, 600000, DEFAULT_DELAY_MS, &n,
	    cause)) != 0)
		return r;
	cfg->delay_s = n / 1000.0;
	if ((r = env_number("OTEL_BSP_MAX_QUEUE_SIZE",
	    env("OTEL_BSP_MAX_QUEUE_SIZE"), 1, 1000000, DEFAULT_MAX_QUEUE, &n,
	    cause)) != 0)
		return r;
	cfg->max_queue = (size_t)n;
	if ((r = env_number("OTEL_BSP_MAX_EXPORT_BATCH_SIZE",
	    env("OTEL_BSP_MAX_EXPORT_BATCH_SIZE"), 1, 1000000,
	    DEFAULT_MAX_BATCH, &n, cause)) != 0)
		return r;
	cfg->max_batch = (size_t)n < cfg->max_queue ? (size_t)n :
	    cfg->max_queue;
	return 0;
}

int
trace_config_load(const struct trace_options *o, struct trace_config *cfg,
    int *enabled, char **cause)
{
	const char *off = env("OTEL_SDK_DISABLED");
	static int said_where;	/* read twice: checked, then used */
	int r;

	memset(cfg, 0, sizeof *cfg);
	*enabled = 0;
	*cause = NULL;
	if (o == NULL || o->otlp == NULL)
		return 0;
	if (off != NULL && strcasecmp(off, "true") == 0) {
		static int said;	/* read twice: checked, then used */

		if (!said++)
			log_warn("--otlp: OTEL_SDK_DISABLED=true: no trace is "
			    "exported");
		return 0;
	}
	if ((r = load_url(o, cfg, cause)) != 0 ||
	    (r = load_protocol(cause)) != 0 ||
	    (r = load_headers(cfg, cause)) != 0 ||
	    (r = load_resource(cfg, cause)) != 0 ||
	    (r = load_numbers(cfg, cause)) != 0) {
		trace_config_free(cfg);
		return r;
	}
	*enabled = 1;
	if (!said_where++)	/* where the spans go, said once */
		log_info("--otlp: spans go to %s%s", cfg->url,
		    strncmp(cfg->url, TRACE_DEFAULT_ENDPOINT "/",
		    sizeof TRACE_DEFAULT_ENDPOINT) == 0 ? " (this machine: "
		    "whoever listens on its port 4318 receives them, with "
		    "the command lines and OTEL_EXPORTER_OTLP_HEADERS)" : "");
	return 0;
}

/* A NULL-terminated array of strings and the strings. */
static void
strv_free(char **v)
{
	size_t i;

	for (i = 0; v != NULL && v[i] != NULL; i++)
		free(v[i]);
	free(v);
}

static char **
strings_copy(char *const *from, size_t n)
{
	char **to = calloc(n + 1, sizeof *to);
	size_t i;

	for (i = 0; to != NULL && i < n; i++)
		if ((to[i] = strdup(from[i])) == NULL) {
			strv_free(to);
			return NULL;
		}
	return to;
}

int
trace_config_copy(const struct trace_config *from, struct trace_config *to)
{
	*to = *from;
	to->url = strdup(from->url);
	to->headers = strings_copy(from->headers, from->n_headers);
	to->resource = strings_copy(from->resource, from->n_resource * 2);
	if (to->url == NULL || to->headers == NULL || to->resource == NULL) {
		trace_config_free(to);
		return NP_ERR_NOMEM;
	}
	return 0;
}

void
trace_config_free(struct trace_config *cfg)
{
	free(cfg->url);
	strv_free(cfg->headers);
	strv_free(cfg->resource);
	memset(cfg, 0, sizeof *cfg);
}
