/*
 * The JSON writers' helpers (json_write.h). A cJSON tree's object keys are
 * sorted in place by an insertion into a sorted list per object, which
 * allocates nothing and so cannot fail half-way (records have a dozen
 * keys). The text is Python's json.dumps() form, written here rather
 * than by cJSON, whose separators (",", ":"), raw UTF-8 and numbers
 * ("%1.15g", an integer without ".0") are not upstream's.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "json_write.h"
#include "util.h"

/* Insert item into the sorted list at *head, after any equal name. */
static void
insert_sorted(cJSON **head, cJSON *item)
{
	cJSON **at = head;

	while (*at != NULL && strcmp((*at)->string, item->string) <= 0)
		at = &(*at)->next;
	item->next = *at;
	*at = item;
}

void
json_sort_keys(cJSON *obj)
{
	cJSON *item, *next, *sorted = NULL, *prev = NULL;

	if (obj == NULL)
		return;
	for (item = obj->child; item != NULL; item = item->next)
		json_sort_keys(item);
	if (!cJSON_IsObject(obj))
		return;
	for (item = obj->child; item != NULL; item = next) {
		next = item->next;
		insert_sorted(&sorted, item);
	}
	/* cJSON lists: prev links, and the head's prev is the tail */
	for (item = sorted; item != NULL; item = item->next) {
		item->prev = prev;
		prev = item;
	}
	if (sorted != NULL)
		sorted->prev = prev;
	obj->child = sorted;
}

void
json_add_string_or_null(cJSON *o, const char *key, const char *s)
{
	if (s != NULL)
		cJSON_AddStringToObject(o, key, s);
	else
		cJSON_AddNullToObject(o, key);
}

cJSON *
json_float(cJSON *number)
{
	if (number != NULL)
		number->type |= JSON_FLOAT;
	return number;
}

cJSON *
json_add_float(cJSON *o, const char *key, double v)
{
	return json_float(cJSON_AddNumberToObject(o, key, v));
}

cJSON *
json_create_float(double v)
{
	return json_float(cJSON_CreateNumber(v));
}

/*
 * Python's float repr: the fewest significant digits that read back as
 * v, in fixed notation when the decimal point falls within 16 digits of
 * them (and 4 zeros after the point), else as D.DDDe+XX.
 */
void
json_format_float(double v, char *buf)
{
	char tmp[40], digits[24], *p;
	int lo = 1, hi = 17, mid, n = 0, decpt, exp, i;
	size_t o = 0;

	if (!isfinite(v)) {
		strcpy(buf, "null");
		return;
	}
	/* the fewest digits that read back as v: if some do, more do too,
	   so a binary search (17 always do) */
	while (lo < hi) {
		mid = (lo + hi) / 2;
		snprintf(tmp, sizeof tmp, "%.*e", mid - 1, v);
		if (strtod(tmp, NULL) == v)
			hi = mid;
		else
			lo = mid + 1;
	}
	snprintf(tmp, sizeof tmp, "%.*e", lo - 1, v);
	p = tmp;
	if (*p == '-') {
		buf[o++] = '-';
		p++;
	}
	for (; *p != 'e' && *p != '\0'; p++)
		if (*p != '.')
			digits[n++] = *p;
	exp = *p == 'e' ? atoi(p + 1) : 0;
	while (n > 1 && digits[n - 1] == '0')
		n--;
	decpt = exp + 1;
	if (decpt > -4 && decpt <= 16) {
		if (decpt <= 0) {
			buf[o++] = '0';
			buf[o++] = '.';
			for (i = decpt; i < 0; i++)
				buf[o++] = '0';
			for (i = 0; i < n; i++)
				buf[o++] = digits[i];
		} else if (decpt >= n) {
			for (i = 0; i < n; i++)
				buf[o++] = digits[i];
			for (i = n; i < decpt; i++)
				buf[o++] = '0';
			buf[o++] = '.';
			buf[o++] = '0';
		} else {
			for (i = 0; i < n; i++) {
				if (i == decpt)
					buf[o++] = '.';
				buf[o++] = digits[i];
			}
		}
		buf[o] = '\0';
		return;
	}
	buf[o++] = digits[0];
	if (n > 1) {
		buf[o++] = '.';
		for (i = 1; i < n; i++)
			buf[o++] = digits[i];
	}
	snprintf(buf + o, JSON_FLOAT_SIZE - o, "e%c%02d", decpt - 1 < 0 ?
	    '-' : '+', abs(decpt - 1));
}

/* A number as Python writes it: a whole one unmarked as an integer (but
   -0.0, which no integer is), exactly, so that it reads back the same. */
static int
write_number(const cJSON *item, struct buf *out)
{
	double v = item->valuedouble;
	char text[JSON_FLOAT_SIZE];

	if (!(item->type & JSON_FLOAT) && isfinite(v) && v == trunc(v) &&
	    fabs(v) < 9.2e18 && !(v == 0 && signbit(v)))
		snprintf(text, sizeof text, "%.0f", v);
	else
		json_format_float(v, text);
	return buf_append(out, text, strlen(text));
}

/* The code point of the UTF-8 sequence at s (len bytes left), its length
   in *used; an invalid byte is U+FFFD, one byte long. */
static unsigned
utf8_next(const unsigned char *s, size_t len, size_t *used)
{
	unsigned c = s[0], min;
	size_t n, i;

	*used = 1;
	if (c < 0x80)
		return c;
	if (c >= 0xc2 && c <= 0xdf) {
		n = 2;
		c &= 0x1f;
		min = 0x80;
	} else if (c >= 0xe0 && c <= 0xef) {
		n = 3;
		c &= 0x0f;
		min = 0x800;
	} else if (c >= 0xf0 && c <= 0xf4) {
		n = 4;
		c &= 0x07;
		min = 0x10000;
	} else
		return 0xfffd;
	if (n > len)
		return 0xfffd;
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0xfffd;
		c = (c << 6) | (s[i] & 0x3f);
	}
	if (c < min || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
		return 0xfffd;
	*used = n;
	return c;
}

/* A string as json.dumps(ensure_ascii=True) writes it. */
static int
write_string(const char *s, struct buf *out)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t len = strlen(s), run, used;
	char esc[16];
	unsigned c;
	int r;

	if ((r = buf_append(out, "\"", 1)) != 0)
		return r;
	while (len > 0) {
		for (run = 0; run < len && p[run] >= 0x20 && p[run] < 0x7f &&
		    p[run] != '"' && p[run] != '\\'; run++)
			;
		if (run > 0 && (r = buf_append(out, p, run)) != 0)
			return r;
		p += run;
		len -= run;
		if (len == 0)
			break;
		c = utf8_next(p, len, &used);
		p += used;
		len -= used;
		switch (c) {
		case '"': strcpy(esc, "\\\""); break;
		case '\\': strcpy(esc, "\\\\"); break;
		case '\n': strcpy(esc, "\\n"); break;
		case '\r': strcpy(esc, "\\r"); break;
		case '\t': strcpy(esc, "\\t"); break;
		case '\b': strcpy(esc, "\\b"); break;
		case '\f': strcpy(esc, "\\f"); break;
		default:
			if (c >= 0x10000)
				snprintf(esc, sizeof esc, "\\u%04x\\u%04x",
				    0xd800 + ((c - 0x10000) >> 10),
				    0xdc00 + ((c - 0x10000) & 0x3ff));
			else
				snprintf(esc, sizeof esc, "\\u%04x", c);
		}
		if ((r = buf_append(out, esc, strlen(esc))) != 0)
			return r;
	}
	return buf_append(out, "\"", 1);
}

static int
newline(struct buf *out, int indent, int level)
{
	int r;

	if (indent <= 0)
		return 0;
	if ((r = buf_append(out, "\n", 1)) != 0)
		return r;
	for (level *= indent; level > 0; level--)
		if ((r = buf_append(out, " ", 1)) != 0)
			return r;
	return 0;
}

static int
write_item(const cJSON *item, int indent, int level, struct buf *out)
{
	const cJSON *c;
	int object = cJSON_IsObject(item), r;

	switch (item->type & 0xff) {
	case cJSON_False:
		return buf_append(out, "false", 5);
	case cJSON_True:
		return buf_append(out, "true", 4);
	case cJSON_Number:
		return write_number(item, out);
	case cJSON_String:
		return write_string(item->valuestring, out);
	case cJSON_Raw:
		return buf_append(out, item->valuestring,
		    strlen(item->valuestring));
	case cJSON_Array:
	case cJSON_Object:
		break;
	default:
		return buf_append(out, "null", 4);
	}
	if ((r = buf_append(out, object ? "{" : "[", 1)) != 0)
		return r;
	for (c = item->child; c != NULL; c = c->next) {
		/* ", " on one line, "," at the end of one */
		if (c != item->child && (r = buf_append(out, ", ",
		    indent > 0 ? 1 : 2)) != 0)
			return r;
		if (indent > 0 && (r = newline(out, indent, level + 1)) != 0)
			return r;
		if (object && ((r = write_string(c->string != NULL ?
		    c->string : "", out)) != 0 ||
		    (r = buf_append(out, ": ", 2)) != 0))
			return r;
		if ((r = write_item(c, indent, level + 1, out)) != 0)
			return r;
	}
	if (item->child != NULL && (r = newline(out, indent, level)) != 0)
		return r;
	return buf_append(out, object ? "}" : "]", 1);
}

int
json_write(const cJSON *item, int indent, struct buf *out)
{
	return write_item(item, indent, 0, out);
}

char *
json_print(const cJSON *item, int indent)
{
	struct buf out = { 0 };

	if (json_write(item, indent, &out) != 0 ||
	    buf_append(&out, "", 0) != 0) {
		buf_free(&out);
		return NULL;
	}
	return out.data;
}
