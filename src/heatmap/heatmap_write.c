/*
 * What the heatmap's outputs write alike: a string as HTML text or a JSON
 * string, a number for JSON, a value as the views show it, a name fit for
 * a terminal, and the failures table, the page's and the terminal's, each
 * in its own format (heatmap.h).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diagnose.h"
#include "heatmap.h"
#include "utf8.h"

void
heatmap_html_escape(FILE *f, const char *s)
{
	for (; s != NULL && *s != '\0'; s++) {
		switch (*s) {
		case '&': fputs("&amp;", f); break;
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '"': fputs("&quot;", f); break;
		case '\'': fputs("&#39;", f); break;
		case '/': fputs("&#47;", f); break;
		default: fputc(*s, f); break;
		}
	}
}

void
heatmap_json_escape(FILE *f, const char *s)
{
	fputc('"', f);
	for (; s != NULL && *s != '\0'; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c == '/')
			fputs("\\/", f);
		else if (c == '<' && s[1] != '/')
			fputs("\\u003c", f);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

void
heatmap_format_value(double v, char *buf, size_t size)
{
	double a = fabs(v);

	if (isnan(v))
		snprintf(buf, size, "?");
	else if (a >= 100 || a == floor(a))
		snprintf(buf, size, "%.0f", v);
	else if (a >= 10)
		snprintf(buf, size, "%.1f", v);
	else
		snprintf(buf, size, "%.2f", v);
}

void
heatmap_html_number(FILE *f, double v)
{
	if (isnan(v) || isinf(v))
		fputs("null", f);
	else if (v == floor(v) && fabs(v) < 1e15)
		fprintf(f, "%.0f", v);
	else
		fprintf(f, "%.6g", v);
}

const char *
heatmap_clean_name(const char *s, char *buf, size_t size)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t left = strlen(s), i = 0, n;

	for (; left > 0 && i + 1 < size; p += n, left -= n) {
		if (utf8_shown(p, left, &n) && *p != '\t') {
			if (i + n >= size)
				break;
			memcpy(buf + i, p, n);
			i += n;
		} else
			buf[i++] = '?';
	}
	buf[i] = '\0';
	return buf;
}

int
heatmap_failures(FILE *f, const struct matrix *hm,
    const struct failure_format *fmt)
{
	struct failure_row *rows;
	size_t i, n;
	int rc;

	if ((rc = diagnose_failures(hm, &rows, &n)) != 0)
		return rc;
	fmt->head(f, n);
	for (i = 0; i < n && (fmt->max == 0 || i < fmt->max); i++) {
		const struct matrix_failure *last = rows[i].cell->last_failed;

		fputs(fmt->sep[0], f);
		fmt->put(f, hm->hosts[rows[i].src]);
		fputs(fmt->sep[1], f);
		fmt->put(f, hm->hosts[rows[i].tgt]);
		fputs(fmt->sep[2], f);
		fmt->put(f, rows[i].kind->name);
		fprintf(f, "%s%d%s%d%s", fmt->sep[3], rows[i].cell->nfail,
		    fmt->of, rows[i].cell->count, fmt->sep[4]);
		fmt->put(f, last->error_class);
		fputs(fmt->sep[5], f);
		fmt->put(f, last->error);
		fputs(fmt->sep[6], f);
	}
	if (fmt->tail != NULL)
		fmt->tail(f, n);
	free(rows);
	return 0;
}
