/*
 * The fast path of the record reader (record_scan.h). One pass over the
 * line: the top-level keys the record is read by are taken as they come
 * (a second one declines the line), every other value is checked and
 * skipped, and the metrics object's members are listed, then turned into
 * metrics by the rules of record_parse() (an _ns number shown as its _ms
 * twin or converted to one, "sender": {"mbps"} as "sender_mbps", of two
 * members giving one name the later's value). Samples arrays are counted,
 * not converted: most of a record's bytes are its samples.
 *
 * Declining is always safe, so the grammar is strict JSON and a little
 * less: what it is unsure cJSON reads the same way (a number over 63
 * characters, nesting over SCAN_DEPTH_MAX, a control byte in a string, a
 * key with an escape) goes to record_parse().
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "record_scan.h"
#include "record_schema.h"

#define SCAN_DEPTH_MAX 64
#define SCAN_NUMBER_MAX 63	/* cJSON reads at most 63 characters */
#define SCAN_MEMBERS_MAX 256	/* metrics members (and their members) */
#define SCAN_NAME_MAX 100	/* a metric's name; longer: record_parse() */
/* Text a line may add beyond its own bytes: the default error text and
 * class, and the metrics' names (64, of 128 bytes at most). */
#define SCAN_SLACK (RECORD_METRICS_MAX * 128 + 256)

/* One member of the metrics object, or of an object inside it. */
struct scan_op {
	const char *key;	/* in the line */
	size_t klen;
	unsigned hash;		/* of the key, to find one given twice */
	unsigned stem;		/* of the key but its last 3 bytes */
	const char *outer;	/* the member's object's key, or NULL */
	size_t olen;
	double value;
	enum { OP_NUMBER, OP_OTHER } type;
};

struct scan {
	const char *p, *end;
	struct record_scan *s;
	struct record *r;
	char *text;		/* the batch's text */
	size_t tlen;		/* bytes of it used, this line's included */
	size_t nops;
	size_t mlen[RECORD_METRICS_MAX];	/* the metrics' names' lengths */
	unsigned mhash[RECORD_METRICS_MAX];	/* and hashes */
};

#define FNV_START 2166136261u

static unsigned
fnv(unsigned h, const char *b, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		h = (h ^ (unsigned char)b[i]) * 16777619u;
	return h;
}

/* Declined (0) or out of memory; every helper returns one of these. */
#define DECLINE 0
#define OK 1

/* The bytes a string's fast loop stops at: its end, an escape, control. */
static const unsigned char string_stop[256] = {
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	['"'] = 1, ['\\'] = 1,
};

static void
ws(struct scan *sc)
{
	while (sc->p < sc->end && (*sc->p == ' ' || *sc->p == '\t' ||
	    *sc->p == '\r' || *sc->p == '\n'))
		sc->p++;
}

/*
 * The string at sc->p (its opening quote), decoded into the text if off
 * is not NULL (*off: where), else only checked. Declines a \u escape and
 * a control byte.
 */
static int
string(struct scan *sc, size_t *off)
{
	const char *p = sc->p + 1, *end = sc->end;
	char *t = NULL;

	/* Decoded, each string read is shorter than its bytes in the line:
	 * record_scan_room() made room for the line. */
	if (off != NULL) {
		*off = sc->tlen;
		t = sc->text + sc->tlen;
	}
	while (p < end) {
		const char *run = p;
		unsigned char c;
		char e;

		while (p < end && !string_stop[(unsigned char)*p])
			p++;
		if (t != NULL) {
			memcpy(t, run, (size_t)(p - run));
			t += p - run;
		}
		if (p == end)
			break;
		c = (unsigned char)*p++;
		if (c == '"') {
			if (t != NULL) {
				*t++ = '\0';
				sc->tlen = (size_t)(t - sc->text);
			}
			sc->p = p;
			return OK;
		}
		if (c != '\\' || p == end)
			return DECLINE;	/* a control byte, or the end */
		switch (*p++) {
		case '"': e = '"'; break;
		case '\\': e = '\\'; break;
		case '/': e = '/'; break;
		case 'b': e = '\b'; break;
		case 'f': e = '\f'; break;
		case 'n': e = '\n'; break;
		case 'r': e = '\r'; break;
		case 't': e = '\t'; break;
		default: return DECLINE;	/* \u, or not JSON */
		}
		if (t != NULL)
			*t++ = e;
	}
	return DECLINE;
}

/* A key: the string at sc->p without escapes, then its colon. */
static int
key(struct scan *sc, const char **k, size_t *klen)
{
	const char *p = sc->p + 1;

	if (sc->p >= sc->end || *sc->p != '"')
		return DECLINE;
	while (p < sc->end && !string_stop[(unsigned char)*p])
		p++;
	if (p == sc->end || *p != '"')
		return DECLINE;
	*k = sc->p + 1;
	*klen = (size_t)(p - *k);
	sc->p = p + 1;
	ws(sc);
	if (sc->p == sc->end || *sc->p != ':')
		return DECLINE;
	sc->p++;
	ws(sc);
	return OK;
}

static int
is_digit(char c)
{
	return (unsigned)(c - '0') <= 9;
}

/* A JSON number at sc->p, checked only: a sample's. */
static int
number_check(struct scan *sc)
{
	const char *p = sc->p, *end = sc->end;

	if (p < end && *p == '-')
		p++;
	if (p == end || !is_digit(*p))
		return DECLINE;
	if (*p == '0')
		p++;
	else
		while (p < end && is_digit(*p))
			p++;
	if (p < end && *p == '.') {
		if (++p == end || !is_digit(*p))
			return DECLINE;
		while (p < end && is_digit(*p))
			p++;
	}
	if (p < end && (*p == 'e' || *p == 'E')) {
		if (++p < end && (*p == '+' || *p == '-'))
			p++;
		if (p == end || !is_digit(*p))
			return DECLINE;
		while (p < end && is_digit(*p))
			p++;
	}
	if (p - sc->p > SCAN_NUMBER_MAX)
		return DECLINE;
	sc->p = p;
	return OK;
}

static const double pow10_exact[] = {
	1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12,
	1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22
};

/*
 * A JSON number at sc->p and its value: exact from its digits when they
 * and the power of ten are exact doubles (one rounding, as strtod's), else
 * strtod's.
 */
static int
number(struct scan *sc, double *v)
{
	const char *p = sc->p, *start = p, *end = sc->end;
	uint64_t w = 0;
	int digits = 0, scale = 0, exp = 0, eneg = 0, neg = 0, many = 0;

	if (p < end && *p == '-') {
		neg = 1;
		p++;
	}
	if (p == end || (unsigned)(*p - '0') > 9)
		return DECLINE;
	if (*p == '0')
		p++;
	else
		for (; p < end && (unsigned)(*p - '0') <= 9; p++) {
			if (digits < 19)
				w = w * 10 + (uint64_t)(*p - '0');
			else
				many = 1;
			digits++;
		}
	if (p < end && *p == '.') {
		if (++p == end || (unsigned)(*p - '0') > 9)
			return DECLINE;
		for (; p < end && (unsigned)(*p - '0') <= 9; p++) {
			if (digits == 0 && *p == '0') {
				scale++;
				continue;
			}
			if (digits < 19) {
				w = w * 10 + (uint64_t)(*p - '0');
				scale++;
			} else
				many = 1;
			digits++;
		}
	}
	if (p < end && (*p == 'e' || *p == 'E')) {
		p++;
		if (p < end && (*p == '+' || *p == '-'))
			eneg = *p++ == '-';
		if (p == end || (unsigned)(*p - '0') > 9)
			return DECLINE;
		for (; p < end && (unsigned)(*p - '0') <= 9; p++)
			if (exp < 100000)
				exp = exp * 10 + (*p - '0');
	}
	if (p - start > SCAN_NUMBER_MAX)
		return DECLINE;
	sc->p = p;
	exp = (eneg ? -exp : exp) - scale;
	if (!many && w <= (UINT64_C(1) << 53) && exp >= -22 && exp <= 22)
		*v = exp < 0 ? (double)w / pow10_exact[-exp] :
		    (double)w * pow10_exact[exp];
	else {
		char buf[SCAN_NUMBER_MAX + 1];

		memcpy(buf, start, (size_t)(p - start));
		buf[p - start] = '\0';
		*v = strtod(buf, NULL);
		return OK;
	}
	if (neg)
		*v = -*v;
	return OK;
}

static int
literal(struct scan *sc, const char *word, size_t n)
{
	if ((size_t)(sc->end - sc->p) < n || memcmp(sc->p, word, n) != 0)
		return DECLINE;
	sc->p += n;
	return OK;
}

static int skip(struct scan *sc, int depth);

/*
 * The opening bracket at sc->p read, and the blanks after it: *more is 0
 * when the close follows at once (read too), else 1.
 */
static int
open_members(struct scan *sc, char close, int *more)
{
	sc->p++;
	ws(sc);
	*more = sc->p == sc->end || *sc->p != close;
	if (!*more)
		sc->p++;
	return OK;
}

/* After a member: a comma (*more 1) or the close (*more 0), each read
 * with the blanks around it. */
static int
next_member(struct scan *sc, char close, int *more)
{
	ws(sc);
	if (sc->p == sc->end)
		return DECLINE;
	if (*sc->p == close) {
		sc->p++;
		*more = 0;
		return OK;
	}
	if (*sc->p++ != ',')
		return DECLINE;
	ws(sc);
	*more = 1;
	return OK;
}

/* The members of an array or object at sc->p, each checked and skipped. */
static int
skip_container(struct scan *sc, int depth)
{
	int object = *sc->p == '{', rc, more;
	char close = object ? '}' : ']';
	const char *k;
	size_t klen;

	if (depth >= SCAN_DEPTH_MAX)
		return DECLINE;
	for (open_members(sc, close, &more); more;) {
		if (object && (rc = key(sc, &k, &klen)) != OK)
			return rc;
		if ((rc = skip(sc, depth + 1)) != OK ||
		    (rc = next_member(sc, close, &more)) != OK)
			return rc;
	}
	return OK;
}

/* Any value at sc->p, checked and skipped. */
static int
skip(struct scan *sc, int depth)
{
	if (sc->p == sc->end)
		return DECLINE;
	switch (*sc->p) {
	case '"': return string(sc, NULL);
	case '{': case '[': return skip_container(sc, depth);
	case 't': return literal(sc, "true", 4);
	case 'f': return literal(sc, "false", 5);
	case 'n': return literal(sc, "null", 4);
	default: return number_check(sc);
	}
}

static int
is_number_start(char c)
{
	return c == '-' || is_digit(c);
}

/* A samples array's elements counted: most of a record's bytes. */
static int
count_array(struct scan *sc, long *count)
{
	int rc, more;

	*count = 0;
	for (open_members(sc, ']', &more); more; (*count)++) {
		if (sc->p < sc->end && is_number_start(*sc->p))
			rc = number_check(sc);
		else
			rc = skip(sc, 3);
		if (rc != OK || (rc = next_member(sc, ']', &more)) != OK)
			return rc;
	}
	return OK;
}

static int
op_add(struct scan *sc, const char *k, size_t klen, const char *outer,
    size_t olen, struct scan_op **out)
{
	struct record_scan *s = sc->s;
	struct scan_op *op;
	unsigned h, stem;
	size_t i;

	/* record_parse() names "a": {"b"} "a_b" in 127 bytes at most. */
	if (sc->nops >= SCAN_MEMBERS_MAX || klen > SCAN_NAME_MAX ||
	    (outer != NULL && olen + 1 + klen > 127))
		return DECLINE;
	/* A key given twice in one object: cJSON's reader keeps the last
	 * one where it stands, which reorders the members. */
	stem = fnv(FNV_START, k, klen >= 3 ? klen - 3 : 0);
	h = fnv(stem, k + (klen >= 3 ? klen - 3 : 0), klen >= 3 ? 3 : klen);
	for (i = 0; i < sc->nops; i++)
		if (s->ops[i].hash == h && s->ops[i].outer == outer &&
		    s->ops[i].klen == klen &&
		    memcmp(s->ops[i].key, k, klen) == 0)
			return DECLINE;
	if (sc->nops == s->ops_alloc) {
		size_t n = s->ops_alloc ? s->ops_alloc * 2 : 32;

		if ((op = realloc(s->ops, n * sizeof *op)) == NULL)
			return NP_ERR_NOMEM;
		s->ops = op;
		s->ops_alloc = n;
	}
	op = &s->ops[sc->nops++];
	op->key = k;
	op->klen = klen;
	op->hash = h;
	op->stem = stem;
	op->outer = outer;
	op->olen = olen;
	op->type = OP_OTHER;
	*out = op;
	return OK;
}

#define KEY_IS(k, klen, name) \
	((klen) == sizeof name - 1 && memcmp(k, name, klen) == 0)

/* A member of an object inside metrics ("sender": {"mbps": ...}). */
static int
metrics_inner(struct scan *sc, const char *outer, size_t olen)
{
	struct scan_op *op;
	const char *k;
	size_t klen;
	int rc;

	if ((rc = key(sc, &k, &klen)) != OK ||
	    (rc = op_add(sc, k, klen, outer, olen, &op)) != OK)
		return rc;
	if (sc->p == sc->end || !is_number_start(*sc->p))
		return skip(sc, 3);
	op->type = OP_NUMBER;
	return number(sc, &op->value);
}

/* A member of metrics: a number, a samples array, an object of them. */
static int
metrics_member(struct scan *sc)
{
	struct scan_op *op;
	const char *k;
	size_t klen;
	long n;
	int rc, more;

	if ((rc = key(sc, &k, &klen)) != OK ||
	    (rc = op_add(sc, k, klen, NULL, 0, &op)) != OK)
		return rc;
	if (sc->p == sc->end)
		return DECLINE;
	if (is_number_start(*sc->p)) {
		op->type = OP_NUMBER;
		return number(sc, &op->value);
	}
	if (*sc->p == '[' && (KEY_IS(k, klen, "samples_ms") ||
	    KEY_IS(k, klen, "samples_ns") || KEY_IS(k, klen, "iterations"))) {
		if ((rc = count_array(sc, &n)) == OK && n > sc->r->nsamples)
			sc->r->nsamples = n;
		return rc;
	}
	if (*sc->p != '{')
		return skip(sc, 2);
	for (open_members(sc, '}', &more); more;)
		if ((rc = metrics_inner(sc, k, klen)) != OK ||
		    (rc = next_member(sc, '}', &more)) != OK)
			return rc;
	return OK;
}

/* The metrics object at sc->p: its members listed, arrays counted. */
static int
metrics_members(struct scan *sc)
{
	int rc, more;

	for (open_members(sc, '}', &more); more;)
		if ((rc = metrics_member(sc)) != OK ||
		    (rc = next_member(sc, '}', &more)) != OK)
			return rc;
	return OK;
}

static int
ends_ns(const char *k, size_t klen)
{
	return klen >= 3 && memcmp(k + klen - 3, "_ns", 3) == 0;
}

/* Is there a number member of metrics named as op's _ns with _ms? */
static int
has_ms_twin(const struct scan *sc, const struct scan_op *ns)
{
	unsigned h = fnv(ns->stem, "_ms", 3);
	size_t i;

	for (i = 0; i < sc->nops; i++) {
		const struct scan_op *op = &sc->s->ops[i];

		if (op->hash == h && op->outer == NULL &&
		    op->type == OP_NUMBER && op->klen == ns->klen &&
		    memcmp(op->key, ns->key, ns->klen - 3) == 0 &&
		    memcmp(op->key + ns->klen - 3, "_ms", 3) == 0)
			return 1;
	}
	return 0;
}

/* The name at the text's end (NUL-terminated there) as a metric: a new
 * one, or the value of the one of that name already listed. */
static void
metric_put(struct scan *sc, size_t name, size_t len, unsigned h,
    double value)
{
	struct record *r = sc->r;
	struct record_metric *m;
	size_t i;

	for (i = 0; i < r->nmetrics; i++) {
		m = &r->metrics[i];
		if (sc->mhash[i] == h && sc->mlen[i] == len &&
		    memcmp(m->name, sc->text + name, len) == 0) {
			m->value = value;
			sc->tlen = name;	/* the copy is not needed */
			return;
		}
	}
	if (r->nmetrics >= RECORD_METRICS_MAX) {
		sc->tlen = name;
		return;
	}
	sc->mlen[r->nmetrics] = len;
	sc->mhash[r->nmetrics] = h;
	m = &r->metrics[r->nmetrics++];
	m->name = sc->text + name;
	m->value = value;
	m->index = -1;
}

/* Append the bytes; the text has room (checked by the caller). */
static void
text_put(struct scan *sc, const char *b, size_t n)
{
	memcpy(sc->text + sc->tlen, b, n);
	sc->tlen += n;
}

/* The listed members as the record's metrics, in their order. */
static void
metrics_of_members(struct scan *sc)
{
	size_t i, name;

	for (i = 0; i < sc->nops; i++) {
		const struct scan_op *op = &sc->s->ops[i];
		double value = op->value;
		size_t stem = op->klen;
		const char *suffix = NULL;
		unsigned h = op->hash;

		if (op->type != OP_NUMBER)
			continue;
		if (op->outer != NULL && ends_ns(op->key, op->klen))
			continue;
		if (op->outer == NULL && ends_ns(op->key, op->klen)) {
			if (has_ms_twin(sc, op))
				continue;
			stem = op->klen - 3;
			suffix = "_ms";
			value /= 1e6;
			h = fnv(op->stem, suffix, 3);
		}
		/* At most 128 bytes, and SCAN_SLACK holds 64 of them. */
		name = sc->tlen;
		if (op->outer != NULL) {
			text_put(sc, op->outer, op->olen);
			text_put(sc, "_", 1);
		}
		text_put(sc, op->key, stem);
		if (suffix != NULL)
			text_put(sc, suffix, 3);
		text_put(sc, "", 1);
		if (op->outer != NULL)
			h = fnv(FNV_START, sc->text + name, sc->tlen - name - 1);
		metric_put(sc, name, sc->tlen - name - 1, h, value);
	}
}

/* The top-level keys the record is read by. */
enum field {
	F_KIND, F_SOURCE, F_TARGET, F_ERROR, F_OK, F_ERROR_CLASS,
	F_STARTED_AT, F_ENDED_AT, F_TIMESTAMP, F_ROUND, F_RUN_ID,
	F_METRICS, F_COMMAND, F_PATH, F_PATH_KNOWN, F_RELAY, F_RELAY_PEER_ID,
	F_SAMPLE, F_COUNT, F_OTHER = F_COUNT
};

#define FIELD(name) { name, sizeof name - 1 }
static const struct {
	const char *name;
	size_t len;
} fields[F_COUNT] = {
	FIELD(RECORD_F_KIND), FIELD(RECORD_F_SOURCE), FIELD(RECORD_F_TARGET),
	FIELD(RECORD_F_ERROR), FIELD(RECORD_F_OK), FIELD(RECORD_F_ERROR_CLASS),
	FIELD(RECORD_F_STARTED_AT), FIELD(RECORD_F_ENDED_AT),
	FIELD(RECORD_F_TIMESTAMP), FIELD(RECORD_F_ROUND), FIELD(RECORD_F_RUN_ID),
	FIELD(RECORD_F_METRICS), FIELD(RECORD_F_COMMAND), FIELD(RECORD_F_PATH),
	FIELD(RECORD_F_PATH_KNOWN), FIELD(RECORD_F_RELAY),
	FIELD(RECORD_F_RELAY_PEER_ID), FIELD(RECORD_F_SAMPLE)
};
#undef FIELD

static int
is_field(enum field f, const char *k, size_t klen)
{
	return fields[f].len == klen && memcmp(fields[f].name, k, klen) == 0;
}

/* The field a key names: by its length first, 19 keys a record. */
static enum field
field_of(const char *k, size_t klen)
{
	static const enum field candidates[][4] = {
		{ F_OK }, { F_KIND, F_PATH }, { F_ERROR, F_ROUND, F_RELAY },
		{ F_SOURCE, F_TARGET, F_RUN_ID, F_SAMPLE },
		{ F_METRICS, F_COMMAND },
		{ F_ENDED_AT }, { F_TIMESTAMP }, { F_STARTED_AT, F_PATH_KNOWN },
		{ F_ERROR_CLASS }, { F_RELAY_PEER_ID },
	};
	size_t i, j;

	for (i = 0; i < sizeof candidates / sizeof *candidates; i++) {
		if (fields[candidates[i][0]].len != klen)
			continue;
		/* The row's unused slots are 0, F_KIND: looked at again, or
		   of another length. */
		for (j = 0; j < 4; j++)
			if (is_field(candidates[i][j], k, klen))
				return candidates[i][j];
		return F_OTHER;
	}
	return F_OTHER;
}

/* What one top-level string or number field gave. */
struct field_value {
	enum { V_NONE, V_STRING, V_NUMBER, V_NULL, V_TRUE, V_OTHER } type;
	size_t off;		/* V_STRING: in the text */
	double num;		/* V_NUMBER */
};

static int
field_read(struct scan *sc, enum field f, struct field_value *fv)
{
	if (sc->p == sc->end)
		return DECLINE;
	if (f == F_METRICS && *sc->p == '{') {
		fv->type = V_OTHER;
		return metrics_members(sc);
	}
	/* A non-string error is written as JSON: record_parse() does. */
	if (f == F_ERROR && *sc->p != '"' && *sc->p != 'n')
		return DECLINE;
	switch (*sc->p) {
	case '"':
		fv->type = V_STRING;
		return string(sc, &fv->off);
	case 't':
		fv->type = V_TRUE;
		return literal(sc, "true", 4);
	case 'n':
		fv->type = V_NULL;
		return literal(sc, "null", 4);
	default:
		if (is_number_start(*sc->p)) {
			fv->type = V_NUMBER;
			return number(sc, &fv->num);
		}
		fv->type = V_OTHER;
		return skip(sc, 1);
	}
}

static double
time_of(const struct scan *sc, const struct field_value *fv)
{
	double t = NAN;

	if (fv->type == V_NUMBER)
		t = fv->num;
	else if (fv->type == V_STRING)
		t = record_parse_time(sc->text + fv->off);
	return fabs(t) <= RECORD_TIME_MAX ? t : NAN;
}

static char *
text_of(const struct scan *sc, const struct field_value *fv)
{
	return fv->type == V_STRING ? sc->text + fv->off : NULL;
}

/* The record from its fields, as record_parse() makes it. */
static int
record_of_fields(struct scan *sc, struct field_value *fv)
{
	static const char none[] = RECORD_NO_ERROR_TEXT;
	struct record *r = sc->r;
	const char *class;
	double t;
	int i;

	for (i = F_KIND; i <= F_TARGET; i++)
		if (fv[i].type != V_STRING || sc->text[fv[i].off] == '\0')
			return DECLINE;	/* record_parse() says so */
	if (!r->ok && fv[F_ERROR].type != V_STRING) {
		fv[F_ERROR].type = V_STRING;
		fv[F_ERROR].off = sc->tlen;
		text_put(sc, none, sizeof none);
	}
	if (!r->ok && fv[F_ERROR_CLASS].type != V_STRING) {
		class = record_classify_error(sc->text + fv[F_ERROR].off);
		fv[F_ERROR_CLASS].type = V_STRING;
		fv[F_ERROR_CLASS].off = sc->tlen;
		text_put(sc, class, strlen(class) + 1);
	}
	metrics_of_members(sc);
	r->kind = text_of(sc, &fv[F_KIND]);
	r->source = text_of(sc, &fv[F_SOURCE]);
	r->target = text_of(sc, &fv[F_TARGET]);
	r->error = text_of(sc, &fv[F_ERROR]);
	r->error_class = r->ok ? NULL : text_of(sc, &fv[F_ERROR_CLASS]);
	r->run_id = text_of(sc, &fv[F_RUN_ID]);
	r->command = text_of(sc, &fv[F_COMMAND]);
	r->path = text_of(sc, &fv[F_PATH]);
	r->path_known = text_of(sc, &fv[F_PATH_KNOWN]);
	r->relay = text_of(sc, &fv[F_RELAY]);
	r->relay_peer_id = text_of(sc, &fv[F_RELAY_PEER_ID]);
	r->started_at = time_of(sc, &fv[F_STARTED_AT]);
	if (fv[F_ROUND].type == V_NUMBER && fv[F_ROUND].num >= 1 &&
	    fv[F_ROUND].num <= RECORD_ROUND_MAX)
		r->round = (int)fv[F_ROUND].num;
	if (fv[F_SAMPLE].type == V_NUMBER && fv[F_SAMPLE].num >= 1 &&
	    fv[F_SAMPLE].num <= RECORD_SAMPLE_MAX)
		r->sample = (int)fv[F_SAMPLE].num;
	r->time = NAN;
	if (!isnan(t = time_of(sc, &fv[F_ENDED_AT])) ||
	    !isnan(t = time_of(sc, &fv[F_TIMESTAMP])) ||
	    !isnan(t = time_of(sc, &fv[F_STARTED_AT])))
		r->time = t;
	return OK;
}

/*
 * fresh in place of *arena: a used one is kept until the batch is cleared
 * (its records point into it), an unused one freed. 0 or NP_ERR_NOMEM
 * (fresh freed).
 */
static int
arena_next(struct record_scan *s, void **arena, size_t used, void *fresh)
{
	void **v;

	if (fresh == NULL)
		return NP_ERR_NOMEM;
	if (used > 0 && s->nretired == s->retired_alloc) {
		size_t n = s->retired_alloc ? s->retired_alloc * 2 : 8;

		if ((v = realloc(s->retired, n * sizeof *v)) == NULL) {
			free(fresh);
			return NP_ERR_NOMEM;
		}
		s->retired = v;
		s->retired_alloc = n;
	}
	if (used > 0)
		s->retired[s->nretired++] = *arena;
	else
		free(*arena);
	*arena = fresh;
	return 0;
}

int
record_scan_room(struct record_scan *s, size_t len)
{
	size_t text = len + SCAN_SLACK;
	void *arena;

	if (s->text_alloc - s->text_used < text) {
		if (text < RECORD_SCAN_TEXT)
			text = RECORD_SCAN_TEXT;
		arena = s->text;
		if (arena_next(s, &arena, s->text_used, malloc(text)) != 0)
			return NP_ERR_NOMEM;
		s->text = arena;
		s->text_used = 0;
		s->text_alloc = text;
	}
	if (s->metrics_alloc - s->metrics_used < RECORD_METRICS_MAX) {
		arena = s->metrics;
		if (arena_next(s, &arena, s->metrics_used,
		    malloc(RECORD_SCAN_METRICS * sizeof *s->metrics)) != 0)
			return NP_ERR_NOMEM;
		s->metrics = arena;
		s->metrics_used = 0;
		s->metrics_alloc = RECORD_SCAN_METRICS;
	}
	return 1;
}

int
record_scan(struct record_scan *s, const char *line, size_t len,
    struct record *r)
{
	struct field_value fv[F_COUNT];
	struct scan sc = { .p = line, .end = line + len, .s = s, .r = r,
	    .text = s->text, .tlen = s->text_used };
	const char *k;
	size_t klen;
	enum field f;
	int rc, more;

	memset(r, 0, sizeof *r);
	r->metrics = s->metrics + s->metrics_used;
	r->nsamples = -1;
	memset(fv, 0, sizeof fv);
	ws(&sc);
	if (sc.p == sc.end || *sc.p != '{')
		return DECLINE;
	/* {} has no kind: record_parse() says so. */
	for (open_members(&sc, '}', &more); more;) {
		if ((rc = key(&sc, &k, &klen)) != OK)
			return rc;
		f = field_of(k, klen);
		/* A key given twice: cJSON's reader keeps the last. */
		if (f != F_OTHER && fv[f].type != V_NONE)
			return DECLINE;
		rc = f == F_OTHER ? skip(&sc, 1) : field_read(&sc, f, &fv[f]);
		if (rc != OK || (rc = next_member(&sc, '}', &more)) != OK)
			return rc;
	}
	ws(&sc);
	if (sc.p != sc.end)
		return DECLINE;
	r->ok = fv[F_OK].type != V_NONE ? fv[F_OK].type == V_TRUE :
	    fv[F_ERROR].type != V_STRING;
	if ((rc = record_of_fields(&sc, fv)) != OK)
		return rc;
	s->text_used = sc.tlen;
	s->metrics_used += r->nmetrics;
	return OK;
}

void
record_scan_clear(struct record_scan *s)
{
	size_t i;

	for (i = 0; i < s->nretired; i++)
		free(s->retired[i]);
	s->nretired = 0;
	s->text_used = 0;
	s->metrics_used = 0;
}

void
record_scan_free(struct record_scan *s)
{
	record_scan_clear(s);
	free(s->retired);
	free(s->text);
	free(s->ops);
	free(s->metrics);
	memset(s, 0, sizeof *s);
}
