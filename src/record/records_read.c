/*
 * One record from its line: a collect or bench JSONL record (ours or the
 * upstream tool's) parsed into struct record, its time, its metrics as
 * numbers, its failure's class and the command that made it; a
 * parser's metrics set in a record as its line will hold them; and a
 * record the run wrote, set as a reader of its line reads it. The reader
 * is tolerant on purpose: unknown fields are fine and metrics are
 * whatever numbers the record carries; a line that is no record says
 * why (records_input.c reports it as file:line and skips it, so one
 * truncated write does not cost the whole page).
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cjson/cJSON.h>

#include "error.h"
#include "records_read.h"
#include "json_pos.h"
#include "json_write.h"
#include "json_strict.h"
#include "log.h"
#include "record_schema.h"
#include "records_line.h"
#include "timeutil.h"
#include "util.h"

/* n decimal digits at s into *v; 0 if one is not a digit. */
static int
fixed_digits(const char *s, int n, int *v)
{
	int i;

	for (*v = 0, i = 0; i < n; i++) {
		if (!isdigit((unsigned char)s[i]))
			return 0;
		*v = *v * 10 + (s[i] - '0');
	}
	return 1;
}

/*
 * "YYYY-MM-DDTHH:MM:" (or a space for the T), the form every record has,
 * read without sscanf: the reader parses a time per record, millions of
 * them for a large run. 0 if s is not of that form.
 */
static int
time_fields(const char *s, int *y, int *mo, int *d, int *h, int *mi)
{
	return fixed_digits(s, 4, y) && s[4] == '-' &&
	    fixed_digits(s + 5, 2, mo) && s[7] == '-' &&
	    fixed_digits(s + 8, 2, d) && (s[10] == 'T' || s[10] == ' ') &&
	    fixed_digits(s + 11, 2, h) && s[13] == ':' &&
	    fixed_digits(s + 14, 2, mi) && s[16] == ':';
}

/*
 * Seconds since 1970 of a UTC date and time, as timegm() gives them (days
 * and hours past their range carry over), for years from 1: the number of
 * days before the year, the month and the day, then the time of day.
 */
static double
utc_seconds(int y, int mo, int d, int h, int mi, int sec)
{
	static const int before[12] = { 0, 31, 59, 90, 120, 151, 181, 212, 243,
	    273, 304, 334 };
	long leaps = (y - 1) / 4 - (y - 1) / 100 + (y - 1) / 400 - 477;
	long days = 365L * (y - 1970) + leaps + before[mo - 1] + d - 1;
	int leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;

	if (mo > 2 && leap)
		days++;
	return (double)days * 86400 + h * 3600 + mi * 60 + sec;
}

double
record_parse_time(const char *s)
{
	struct tm tm;
	int y, mo, d, h, mi, n = 0, fast;
	double sec, frac = 0, t;
	const char *p;
	char *end;
	time_t tt;

	if (s == NULL)
		return NAN;
	if ((fast = time_fields(s, &y, &mo, &d, &h, &mi) && y >= 1)) {
		int whole;

		/* what %lf reads: strtod's number, here often two digits */
		if (fixed_digits(s + 17, 2, &whole) && s[19] != '.' &&
		    s[19] != 'e' && s[19] != 'E' &&
		    !isdigit((unsigned char)s[19])) {
			sec = whole;
			end = (char *)s + 19;
		} else
			sec = strtod(s + 17, &end);
		if (end == s + 17)
			return NAN;
		n = (int)(end - s);
	} else if (sscanf(s, "%4d-%2d-%2dT%2d:%2d:%lf%n", &y, &mo, &d, &h,
	    &mi, &sec, &n) != 6 && sscanf(s, "%4d-%2d-%2d %2d:%2d:%lf%n", &y,
	    &mo, &d, &h, &mi, &sec, &n) != 6)
		return NAN;
	/* Fields out of range (a second of 1e300 or inf) are no time. */
	if (!(sec >= 0 && sec < 61) || mo < 1 || mo > 12 || d < 1 || d > 31 ||
	    h < 0 || h > 24 || mi < 0 || mi > 59)
		return NAN;
	frac = sec - (int)sec;
	if (fast)
		t = utc_seconds(y, mo, d, h, mi, (int)sec);
	else {
		memset(&tm, 0, sizeof tm);
		tm.tm_year = y - 1900;
		tm.tm_mon = mo - 1;
		tm.tm_mday = d;
		tm.tm_hour = h;
		tm.tm_min = mi;
		tm.tm_sec = (int)sec;
		if ((tt = timegm(&tm)) == (time_t)-1)
			return NAN;
		t = (double)tt;
	}
	p = s + n;
	if ((*p == '+' || *p == '-') && isdigit((unsigned char)p[1])) {
		int oh = 0, om = 0;

		if (fixed_digits(p + 1, 2, &oh) && p[3] == ':' &&
		    fixed_digits(p + 4, 2, &om) && !isdigit((unsigned char)p[6]))
			;	/* "+HH:MM", as sscanf would read it */
		else if (sscanf(p + 1, "%2d:%2d", &oh, &om) < 1)
			sscanf(p + 1, "%2d%2d", &oh, &om);
		t += (*p == '+' ? -1 : 1) * (oh * 3600 + om * 60);
	}
	return t + frac;
}

const char *
record_classify_error(const char *error)
{
	return error_class_name(error_class_of_text(error));
}

void
record_free(struct record *r)
{
	size_t i;

	if (r == NULL)
		return;
	free((char *)r->kind);
	free((char *)r->source);
	free((char *)r->target);
	free((char *)r->error);
	free((char *)r->error_class);
	free((char *)r->run_id);
	free((char *)r->command);
	free((char *)r->path);
	free((char *)r->path_known);
	free((char *)r->relay);
	free((char *)r->relay_peer_id);
	for (i = 0; i < r->nmetrics; i++)
		free(r->metrics[i].name);
	free(r->metrics);
	free(r);
}

char *
record_field_string(const cJSON *obj, const char *name)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, name);

	if (!cJSON_IsString(v) || v->valuestring == NULL)
		return NULL;
	return strdup(v->valuestring);
}

double
record_field_time(const cJSON *obj, const char *name)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, name);
	double t = NAN;

	if (cJSON_IsNumber(v))
		t = v->valuedouble;
	else if (cJSON_IsString(v))
		t = record_parse_time(v->valuestring);
	/* Only times a page's script can show (JavaScript's Date range). */
	return fabs(t) <= RECORD_TIME_MAX ? t : NAN;
}

static int
add_metric(struct record *r, size_t *alloc, const char *name, double value)
{
	struct record_metric *m;
	size_t i;

	/* "a_b" and {"a": {"b"}} name one metric: the later value wins. */
	for (i = 0; i < r->nmetrics; i++)
		if (strcmp(r->metrics[i].name, name) == 0) {
			r->metrics[i].value = value;
			return 0;
		}
	if (r->nmetrics >= RECORD_METRICS_MAX)
		return 0;
	if (r->nmetrics == *alloc) {
		size_t n = *alloc ? *alloc * 2 : 8;

		if ((m = realloc(r->metrics, n * sizeof *m)) == NULL)
			return NP_ERR_NOMEM;
		r->metrics = m;
		*alloc = n;
	}
	m = &r->metrics[r->nmetrics];
	if ((m->name = strdup(name)) == NULL)
		return NP_ERR_NOMEM;
	m->value = value;
	m->index = -1;
	r->nmetrics++;
	return 0;
}

/*
 * A number as a reader of the line it is written to reads it: the writer
 * (json_write.c) writes a whole number's digits or the shortest text that
 * reads back as the same double, so the number itself; a NaN or an
 * infinity as null (no number). 0 if it is no number then.
 */
static int
as_written(const cJSON *v, double *out)
{
	double d = v->valuedouble;

	if (isnan(d) || isinf(d))
		return 0;
	*out = d;
	return 1;
}

/* The value of a number member: as it is, or as its line will hold it. */
static int
number_of(const cJSON *v, int written, double *out)
{
	if (!cJSON_IsNumber(v))
		return 0;
	if (written)
		return as_written(v, out);
	*out = v->valuedouble;
	return 1;
}

/*
 * metrics has the _ms twin of the _ns number named name ("avg_ns" ->
 * "avg_ms"): the page shows milliseconds, so the twin is the metric.
 */
static int
has_ms_twin(const cJSON *metrics, const char *name, int written)
{
	char twin[128];
	size_t n = strlen(name) - 3;
	double v;

	if (n + 4 > sizeof twin)
		return 0;
	memcpy(twin, name, n);
	memcpy(twin + n, "_ms", 4);
	return number_of(cJSON_GetObjectItemCaseSensitive(metrics, twin),
	    written, &v);
}

/* name_ns without an _ms twin (upstream's elapsed_ns) as name_ms. */
static int
add_ns_metric(struct record *r, size_t *alloc, const char *name, double ns)
{
	char ms[128];

	snprintf(ms, sizeof ms, "%.*s_ms", (int)(strlen(name) - 3), name);
	return add_metric(r, alloc, ms, ns / 1e6);
}

/*
 * Every number in metrics is a metric; an _ns number is shown as its _ms
 * twin, or converted to one; a nested object such as
 * "sender": {"mbps": ...} becomes "sender_mbps". written: the metrics of
 * a record about to be written, each number as its line will hold it.
 */
static int
read_metrics(struct record *r, const cJSON *metrics, int written)
{
	const cJSON *m, *sub;
	size_t alloc = 0;
	char name[128];
	double v;
	int rc;

	cJSON_ArrayForEach(m, metrics) {
		if (m->string == NULL)
			continue;
		if (cJSON_IsArray(m) && (strcmp(m->string, "samples_ms") == 0 ||
		    strcmp(m->string, "samples_ns") == 0 ||
		    strcmp(m->string, "iterations") == 0)) {
			long n = (long)cJSON_GetArraySize(m);

			if (n > r->nsamples)
				r->nsamples = n;
			continue;
		}
		if (cJSON_IsNumber(m) && str_ends_with(m->string, "_ns")) {
			if (number_of(m, written, &v) &&
			    !has_ms_twin(metrics, m->string, written) &&
			    (rc = add_ns_metric(r, &alloc, m->string, v)) != 0)
				return rc;
			continue;
		}
		if (cJSON_IsNumber(m)) {
			if (number_of(m, written, &v) &&
			    (rc = add_metric(r, &alloc, m->string, v)) != 0)
				return rc;
			continue;
		}
		if (!cJSON_IsObject(m))
			continue;
		cJSON_ArrayForEach(sub, m) {
			if (!number_of(sub, written, &v) || sub->string == NULL ||
			    str_ends_with(sub->string, "_ns"))
				continue;
			snprintf(name, sizeof name, "%s_%s", m->string,
			    sub->string);
			if ((rc = add_metric(r, &alloc, name, v)) != 0)
				return rc;
		}
	}
	return 0;
}

static int
fail_cause(char **cause, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* *cause says what; returns NP_ERR_PARSE. */
static int
fail_cause(char **cause, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	*cause = str_vprintf(fmt, ap);
	va_end(ap);
	return NP_ERR_PARSE;
}

/* A bench record's path: its class, how known, its relay (strings). */
static int
path_fields(const cJSON *obj, struct record *r)
{
	static const char *const names[] = { RECORD_F_PATH,
	    RECORD_F_PATH_KNOWN, RECORD_F_RELAY, RECORD_F_RELAY_PEER_ID };
	const char **fields[] = { &r->path, &r->path_known, &r->relay,
	    &r->relay_peer_id };
	const cJSON *v;
	size_t i;

	for (i = 0; i < sizeof names / sizeof *names; i++) {
		v = cJSON_GetObjectItemCaseSensitive(obj, names[i]);
		if (cJSON_IsString(v) &&
		    (*fields[i] = strdup(v->valuestring)) == NULL)
			return NP_ERR_NOMEM;
	}
	return 0;
}

static int
record_from_json(const cJSON *obj, struct record **out, char **cause)
{
	static const char *const required[] = {
	    RECORD_F_KIND, RECORD_F_SOURCE, RECORD_F_TARGET
	};
	const cJSON *v;
	struct record *r;
	double t;
	size_t i;
	int rc;

	for (i = 0; i < 3; i++) {
		v = cJSON_GetObjectItemCaseSensitive(obj, required[i]);
		if (!cJSON_IsString(v) || *v->valuestring == '\0')
			return fail_cause(cause, "record has no \"%s\" string",
			    required[i]);
	}
	if ((r = calloc(1, sizeof *r)) == NULL)
		return NP_ERR_NOMEM;
	r->nsamples = -1;
	rc = NP_ERR_NOMEM;
	if ((r->kind = record_field_string(obj, RECORD_F_KIND)) == NULL ||
	    (r->source = record_field_string(obj, RECORD_F_SOURCE)) == NULL ||
	    (r->target = record_field_string(obj, RECORD_F_TARGET)) == NULL)
		goto out;
	v = cJSON_GetObjectItemCaseSensitive(obj, RECORD_F_ERROR);
	if (cJSON_IsString(v))
		r->error = strdup(v->valuestring);
	else if (v != NULL && !cJSON_IsNull(v))
		r->error = cJSON_PrintUnformatted(v);
	v = cJSON_GetObjectItemCaseSensitive(obj, RECORD_F_OK);
	r->ok = v != NULL ? cJSON_IsTrue(v) : r->error == NULL;
	if (!r->ok && r->error == NULL &&
	    (r->error = strdup(RECORD_NO_ERROR_TEXT)) ==
	    NULL)
		goto out;
	if (!r->ok) {
		r->error_class = record_field_string(obj, RECORD_F_ERROR_CLASS);
		if (r->error_class == NULL && (r->error_class =
		    strdup(record_classify_error(r->error))) == NULL)
			goto out;
	}
	r->started_at = record_field_time(obj, RECORD_F_STARTED_AT);
	v = cJSON_GetObjectItemCaseSensitive(obj, RECORD_F_ROUND);
	if (cJSON_IsNumber(v) && v->valuedouble >= 1 &&
	    v->valuedouble <= RECORD_ROUND_MAX)
		r->round = (int)v->valuedouble;
	v = cJSON_GetObjectItemCaseSensitive(obj, RECORD_F_SAMPLE);
	if (cJSON_IsNumber(v) && v->valuedouble >= 1 &&
	    v->valuedouble <= RECORD_SAMPLE_MAX)
		r->sample = (int)v->valuedouble;
	v = cJSON_GetObjectItemCaseSensitive(obj, RECORD_F_RUN_ID);
	if (cJSON_IsString(v) && (r->run_id = strdup(v->valuestring)) == NULL)
		goto out;
	v = cJSON_GetObjectItemCaseSensitive(obj, RECORD_F_COMMAND);
	if (cJSON_IsString(v) &&
	    (r->command = strdup(v->valuestring)) == NULL)
		goto out;
	if ((rc = path_fields(obj, r)) != 0)
		goto out;
	rc = NP_ERR_NOMEM;
	r->time = NAN;
	if (!isnan(t = record_field_time(obj, RECORD_F_ENDED_AT)) ||
	    !isnan(t = record_field_time(obj, RECORD_F_TIMESTAMP)) ||
	    !isnan(t = record_field_time(obj, RECORD_F_STARTED_AT)))
		r->time = t;
	v = cJSON_GetObjectItemCaseSensitive(obj, RECORD_F_METRICS);
	if (cJSON_IsObject(v) && (rc = read_metrics(r, v, 0)) != 0)
		goto out;
	*out = r;
	r = NULL;
	rc = 0;
out:
	record_free(r);
	return rc;
}

int
record_set_metrics(struct record *r, cJSON *metrics)
{
	int rc = NP_ERR_NOMEM;

	r->metrics = NULL;
	r->nmetrics = 0;
	r->nsamples = -1;
	if (metrics == NULL)
		return NP_ERR_NOMEM;
	/* in the order the line has them: its one sort */
	json_sort_keys(metrics);
	if ((r->metrics_text = json_print(metrics, 0)) != NULL)
		rc = read_metrics(r, metrics, 1);
	cJSON_Delete(metrics);
	if (rc != 0)
		record_finish_free(r);
	return rc;
}

void
record_take_metrics(struct record *to, struct record *from)
{
	to->metrics_text = from->metrics_text;
	to->metrics = from->metrics;
	to->nmetrics = from->nmetrics;
	to->nsamples = from->nsamples;
	from->metrics_text = NULL;
	from->metrics = NULL;
	from->nmetrics = 0;
	from->nsamples = -1;
}

int
record_metric_value(const struct record *r, const char *name, double *v)
{
	size_t i;

	for (i = 0; i < r->nmetrics; i++)
		if (strcmp(r->metrics[i].name, name) == 0) {
			*v = r->metrics[i].value;
			return 1;
		}
	return 0;
}

void
record_as_read(struct record *r)
{
	char when[TIME_RECORD_SIZE];

	if (r->round < 1 || r->round > RECORD_ROUND_MAX)
		r->round = 0;
	/* its metrics as numbers: record_set_metrics()'s, or none */
	if (r->metrics_text == NULL) {
		r->metrics = NULL;
		r->nmetrics = 0;
		r->nsamples = -1;
	}
	/* its time as the line gives it: to the millisecond */
	r->time = record_parse_time(time_record_precise(r->ended_at, when,
	    sizeof when));
	if (fabs(r->time) > RECORD_TIME_MAX)
		r->time = NAN;
}

void
record_finish_free(struct record *r)
{
	size_t i;

	for (i = 0; i < r->nmetrics; i++)
		free(r->metrics[i].name);
	free(r->metrics);
	r->metrics = NULL;
	r->nmetrics = 0;
	free(r->metrics_text);
	r->metrics_text = NULL;
}

void
record_outcome_clear(struct record *r)
{
	if (r == NULL)
		return;
	record_finish_free(r);
	free((char *)r->error);
	r->ok = 0;
	r->error = NULL;
	r->error_class = NULL;
	r->nsamples = -1;
}

static int
blank(const char *s, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (!isspace((unsigned char)s[i]))
			return 0;
	return 1;
}

int
record_parse(const char *line, size_t len, struct record **out, char **cause)
{
	cJSON *obj;
	size_t off;
	const char *what, *end = NULL;
	long nul;
	int rc;

	*out = NULL;
	*cause = NULL;
	if (memchr(line, '\0', len) != NULL)
		return fail_cause(cause, "a NUL byte: not a text line");
	if ((nul = json_find_nul(line, len)) >= 0)
		return fail_cause(cause, "column %ld: a \\u0000 (NUL) in a "
		    "string is not supported", nul + 1);
	obj = cJSON_ParseWithLengthOpts(line, len, &end, 0);
	if (obj != NULL && !blank(end, (size_t)(line + len - end))) {
		cJSON_Delete(obj);
		obj = NULL;
	}
	if (obj == NULL) {
		char buf[160];
		int l, c;

		if (json_find_error(line, len, &off, &what) != 0) {
			json_line_column(line, off, &l, &c);
			snprintf(buf, sizeof buf, "column %d: %s", c, what);
		} else
			snprintf(buf, sizeof buf, "not valid JSON");
		*cause = strdup(buf);
		return NP_ERR_PARSE;
	}
	if (!cJSON_IsObject(obj))
		rc = fail_cause(cause, "%s", "a record must be a JSON object");
	else if ((rc = json_keep_last(obj)) == 0)
		rc = record_from_json(obj, out, cause);
	cJSON_Delete(obj);
	return rc;
}

int
records_line_parse(const char *line, size_t len, struct record **out,
    char **cause)
{
	*out = NULL;
	*cause = NULL;
	if (blank(line, len))
		return 0;
	return record_parse(line, len, out, cause);
}
