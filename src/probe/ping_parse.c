/*
 * Parsing ping output. The three families print the same facts in
 * slightly different words:
 *   iputils   64 bytes from A: icmp_seq=1 ttl=64 time=0.246 ms [(DUP!)]
 *             5 packets transmitted, 5 received, +1 duplicates, +2 errors,
 *             0% packet loss, time 813ms
 *             rtt min/avg/max/mdev = 0.032/0.086/0.246/0.080 ms
 *   busybox   64 bytes from A: seq=0 ttl=64 time=0.063 ms [(DUP!)]
 *             3 packets transmitted, 3 packets received, 1 duplicates,
 *             0% packet loss
 *             round-trip min/avg/max = 0.052/0.060/0.063 ms
 *   BSD/macOS 64 bytes from A: icmp_seq=0 ttl=64 time=0.045 ms [(DUP!)]
 *             3 packets transmitted, 3 packets received, +1 duplicates,
 *             0.0% packet loss
 *             round-trip min/avg/max/stddev = 0.045/0.067/0.089/0.018 ms
 * so the parser reads numbers next to keywords rather than fixed columns.
 * A reply is counted once per sequence number: DUP! lines and a second
 * reply to the same sequence (a broadcast ping) are not samples.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "error.h"
#include "json_write.h"
#include "ping_parse.h"
#include "stats.h"

#define MAX_SEQ_TRACKED 65536

struct parse_state {
	struct ping_result *r;
	size_t cap;
	unsigned char *seen;	/* bitmap of sequence numbers answered */
	int have_summary;
};

/* The number right after key in line: 0, or NP_ERR_NOT_FOUND. */
static int
number_after(const char *line, const char *key, double *value)
{
	const char *p = strstr(line, key);
	char *end;

	if (p == NULL)
		return NP_ERR_NOT_FOUND;
	p += strlen(key);
	*value = strtod(p, &end);
	return end == p ? NP_ERR_NOT_FOUND : 0;
}

/* The integer just before word in line (as in "5 received"): 0, or
   NP_ERR_NOT_FOUND. */
static int
number_before(const char *line, const char *word, int *value)
{
	const char *p = strstr(line, word), *q;
	long n;

	if (p == NULL || p == line)
		return NP_ERR_NOT_FOUND;
	q = p;
	while (q > line && q[-1] == ' ')
		q--;
	p = q;
	while (q > line && q[-1] >= '0' && q[-1] <= '9')
		q--;
	if (q == p)
		return NP_ERR_NOT_FOUND;
	/* Counts beyond int (hostile or garbled output) are no count. */
	errno = 0;
	n = strtol(q, NULL, 10);
	if (errno != 0 || n > INT_MAX)
		return NP_ERR_NOT_FOUND;
	*value = (int)n;
	return 0;
}

static int
add_sample(struct parse_state *st, double ms)
{
	struct ping_result *r = st->r;
	double *n;

	if (r->n_samples == st->cap) {
		st->cap = st->cap == 0 ? 16 : st->cap * 2;
		if ((n = realloc(r->samples_ms, st->cap * sizeof *n)) == NULL)
			return NP_ERR_NOMEM;
		r->samples_ms = n;
	}
	r->samples_ms[r->n_samples++] = ms;
	return 0;
}

/* A reply line; duplicates are ignored. */
static int
parse_reply(struct parse_state *st, const char *line)
{
	double ms, seq = -1;

	if (strstr(line, "DUP!") != NULL)
		return 0;
	/* A time that is not a finite, non-negative number is no sample. */
	if (number_after(line, "time=", &ms) != 0 || !isfinite(ms) || ms < 0)
		return 0;
	if (number_after(line, "icmp_seq=", &seq) != 0)
		(void)number_after(line, "seq=", &seq);
	if (seq >= 0 && seq < MAX_SEQ_TRACKED) {
		size_t s = (size_t)seq;

		if (st->seen[s / 8] & (1u << (s % 8)))
			return 0;
		st->seen[s / 8] |= (unsigned char)(1u << (s % 8));
	}
	return add_sample(st, ms);
}

static void
parse_summary(struct parse_state *st, const char *line)
{
	struct ping_result *r = st->r;
	int v;

	if (number_before(line, "packets transmitted", &v) == 0)
		r->transmitted = v;
	if (number_before(line, "packets received", &v) == 0 ||
	    number_before(line, "received", &v) == 0)
		r->received = v;
	if (number_before(line, "duplicates", &v) == 0)
		r->duplicates = v;
	if (number_before(line, "errors", &v) == 0)
		r->errors = v;
	st->have_summary = 1;
}

/* "rtt min/avg/max/mdev = a/b/c/d ms" or "round-trip ... = a/b/c[/d] ms" */
static void
parse_rtt(struct parse_state *st, const char *line)
{
	struct ping_result *r = st->r;
	const char *p = strchr(line, '=');
	double v[4] = { 0, 0, 0, 0 };
	int n;

	if (p == NULL)
		return;
	n = sscanf(p + 1, " %lf/%lf/%lf/%lf", &v[0], &v[1], &v[2], &v[3]);
	if (n < 3 || !isfinite(v[0]) || !isfinite(v[1]) || !isfinite(v[2]) ||
	    !isfinite(v[3]))
		return;
	r->have_rtt_line = 1;
	r->min_ms = v[0];
	r->avg_ms = v[1];
	r->max_ms = v[2];
	r->jitter_ms = n == 4 ? v[3] : 0;
}

static int
parse_line(struct parse_state *st, const char *line)
{
	if (strstr(line, "bytes from") != NULL)
		return parse_reply(st, line);
	if (strstr(line, "packets transmitted") != NULL)
		parse_summary(st, line);
	else if (strncmp(line, "rtt ", 4) == 0 ||
	    strncmp(line, "round-trip ", 11) == 0)
		parse_rtt(st, line);
	return 0;
}

/* Fill the figures the summary line did not give from the samples. */
static int
finish(struct ping_result *r)
{
	struct stats_summary s;
	double *sorted;

	if (r->transmitted > 0)
		r->loss_pct = 100.0 * ((double)r->transmitted - r->received) /
		    r->transmitted;
	if (r->loss_pct < 0)
		r->loss_pct = 0;
	if (r->n_samples == 0)
		return 0;
	if ((sorted = malloc(r->n_samples * sizeof *sorted)) == NULL)
		return NP_ERR_NOMEM;
	memcpy(sorted, r->samples_ms, r->n_samples * sizeof *sorted);
	stats_summarize(sorted, r->n_samples, &s);
	free(sorted);
	r->p50_ms = s.p50;
	r->p95_ms = s.p95;
	if (!r->have_rtt_line) {
		r->min_ms = s.min;
		r->avg_ms = s.avg;
		r->max_ms = s.max;
		r->jitter_ms = s.stddev;
	}
	return 0;
}

int
ping_parse(const char *text, struct ping_result **out, char **cause)
{
	struct parse_state st;
	const char *p = text, *nl;
	char line[1024];
	int r;

	*out = NULL;
	*cause = NULL;
	memset(&st, 0, sizeof st);
	if ((st.r = calloc(1, sizeof *st.r)) == NULL ||
	    (st.seen = calloc(MAX_SEQ_TRACKED / 8, 1)) == NULL) {
		r = NP_ERR_NOMEM;
		goto out;
	}
	while (*p != '\0') {
		size_t len;

		nl = strchr(p, '\n');
		len = nl != NULL ? (size_t)(nl - p) : strlen(p);
		if (len >= sizeof line)
			len = sizeof line - 1;
		memcpy(line, p, len);
		line[len] = '\0';
		if ((r = parse_line(&st, line)) != 0)
			goto out;
		p = nl != NULL ? nl + 1 : p + strlen(p);
	}
	if (!st.have_summary || st.r->transmitted <= 0) {
		*cause = strdup(st.r->n_samples > 0 ?
		    "ping output has replies but no statistics line "
		    "(ping was stopped early)" :
		    "ping printed no statistics line");
		r = NP_ERR_PARSE;
		goto out;
	}
	if ((r = finish(st.r)) != 0)
		goto out;
	*out = st.r;
	st.r = NULL;	/* transferred */
out:
	ping_result_free(st.r);
	free(st.seen);
	return r;
}

int
ping_result_from_samples(int transmitted, const double *samples_ms, size_t n,
    struct ping_result **out)
{
	struct ping_result *r;
	int e;

	*out = NULL;
	if ((r = calloc(1, sizeof *r)) == NULL ||
	    (n > 0 && (r->samples_ms = malloc(n * sizeof *samples_ms)) ==
	    NULL)) {
		ping_result_free(r);
		return NP_ERR_NOMEM;
	}
	if (n > 0)
		memcpy(r->samples_ms, samples_ms, n * sizeof *samples_ms);
	r->n_samples = n;
	r->transmitted = transmitted;
	r->received = (int)n;
	if ((e = finish(r)) != 0) {
		ping_result_free(r);
		return e;
	}
	*out = r;
	return 0;
}

void
ping_result_free(struct ping_result *r)
{
	if (r == NULL)
		return;
	free(r->samples_ms);
	free(r);
}

/* The record's metrics (collect's and bench --baseline's ping records):
   the times are floats, as upstream's (a 1 ms round trip is 1.0). */
cJSON *
ping_result_metrics(const struct ping_result *p)
{
	cJSON *o = cJSON_CreateObject(), *a;
	size_t i;

	json_add_float(o, "min", p->min_ms);
	json_add_float(o, "avg", p->avg_ms);
	json_add_float(o, "max", p->max_ms);
	json_add_float(o, "jitter", p->jitter_ms);
	json_add_float(o, "p50", p->p50_ms);
	json_add_float(o, "p95", p->p95_ms);
	json_add_float(o, "loss_pct", p->loss_pct);
	cJSON_AddNumberToObject(o, "transmitted", p->transmitted);
	cJSON_AddNumberToObject(o, "received", p->received);
	a = cJSON_AddArrayToObject(o, "samples_ms");
	for (i = 0; i < p->n_samples; i++)
		cJSON_AddItemToArray(a, json_create_float(p->samples_ms[i]));
	return o;
}
