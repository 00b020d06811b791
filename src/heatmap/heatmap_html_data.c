/*
 * The page's data: the JSON the script reads (heatmap_html_data.h), each kind's
 * states, values, counts, times, paths and errors, and its colour scale
 * against what is typical (heatmap_relative.c). A large page (more than
 * HEATMAP_TABLE_HOSTS hosts) keeps within bounds: states as runs, values
 * packed, error texts once each.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "heatmap.h"
#include "heatmap_html_data.h"
#include "heatmap_relative.h"
#include "util.h"

const char *
heatmap_kind_label(const struct matrix_kind *k)
{
	if (k->derived && strcmp(k->name, "change") == 0)
		return "change: times worse than the old run";
	if (k->derived && strcmp(k->name, "path") == 0)
		return "path: 1 direct, 2 hole-punched, 3 relayed";
	if (k->derived)
		return "overlay: libp2p over the raw-IP baseline";
	return k->name;
}

static double
first_time(const struct matrix *hm)
{
	return isnan(hm->time_lo) ? 0 : floor(hm->time_lo);
}

/*
 * Error texts of a large page, each written once (D.errs) and referred to
 * by index: a thousand hosts' failures repeat a few texts many times.
 */
struct err_dict {
	const struct matrix_failure **slots;	/* by hash of class and text */
	size_t *index, nslots, n;
};

static size_t
err_hash(const struct matrix_failure *r)
{
	size_t h = 1469598103934665603ULL;
	const char *s;

	for (s = r->error_class; *s != '\0'; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	for (s = r->error; *s != '\0'; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	return h;
}

/* The index of r's class and text, added if new; -1 without memory. */
static long
err_index(struct err_dict *d, const struct matrix_failure *r)
{
	size_t j;

	if (d->n * 2 >= d->nslots) {
		size_t ns = d->nslots ? d->nslots * 2 : 256, i, k;
		const struct matrix_failure **slots = calloc(ns, sizeof *slots);
		size_t *index = calloc(ns, sizeof *index);

		if (slots == NULL || index == NULL) {
			free(slots);
			free(index);
			return -1;
		}
		for (i = 0; i < d->nslots; i++) {
			if (d->slots[i] == NULL)
				continue;
			for (k = err_hash(d->slots[i]) & (ns - 1); slots[k];
			    k = (k + 1) & (ns - 1))
				;
			slots[k] = d->slots[i];
			index[k] = d->index[i];
		}
		free(d->slots);
		free(d->index);
		d->slots = slots;
		d->index = index;
		d->nslots = ns;
	}
	for (j = err_hash(r) & (d->nslots - 1); d->slots[j] != NULL;
	    j = (j + 1) & (d->nslots - 1))
		if (strcmp(d->slots[j]->error, r->error) == 0 &&
		    strcmp(d->slots[j]->error_class, r->error_class) == 0)
			return (long)d->index[j];
	d->slots[j] = r;
	d->index[j] = d->n;
	return (long)d->n++;
}

/* Numbers of a large page: three significant digits, as the cells show. */
#define SHORT_SIZE 32
static void
short_text(double v, char *buf)
{
	if (isnan(v) || isinf(v))
		snprintf(buf, SHORT_SIZE, "null");
	else if (v == floor(v) && fabs(v) < 1e15)
		snprintf(buf, SHORT_SIZE, "%.0f", v);
	else
		snprintf(buf, SHORT_SIZE, "%.3g", v);
}

static void
put_short(FILE *f, double v)
{
	char buf[SHORT_SIZE];

	short_text(v, buf);
	fputs(buf, f);
}

/*
 * A large page's values of one metric, packed: each distinct number once
 * ("dict", as put_short() writes it) and per cell its index into dict in
 * w digits of base 64 ("codes", most significant first; page.js unpacks
 * them). Three significant digits leave a few thousand distinct numbers
 * among a million cells, so a cell takes two characters instead of four
 * or five, and the browser parses a string instead of a million numbers:
 * the page's parse was most of its first render.
 */
static const char code_digits[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

struct value_dict {
	double *values;		/* distinct bits, in order met */
	uint32_t *slots;	/* by hash of the bits: 1 + index, 0 free */
	size_t n, alloc, nslots;
};

static size_t
value_hash(uint64_t bits, size_t nslots)
{
	return (size_t)((bits * 0x9e3779b97f4a7c15ULL) >> 32) & (nslots - 1);
}

/* The index of v (by its bits: the same bits print the same), added if
 * new; -1 without memory. */
static long
value_index(struct value_dict *d, double v)
{
	uint64_t bits, other;
	size_t j;

	if (d->n * 2 >= d->nslots) {
		size_t ns = d->nslots ? d->nslots * 2 : 4096, i;
		uint32_t *slots = calloc(ns, sizeof *slots);

		if (slots == NULL)
			return -1;
		for (i = 0; i < d->n; i++) {
			memcpy(&bits, &d->values[i], sizeof bits);
			for (j = value_hash(bits, ns); slots[j] != 0;
			    j = (j + 1) & (ns - 1))
				;
			slots[j] = (uint32_t)i + 1;
		}
		free(d->slots);
		d->slots = slots;
		d->nslots = ns;
	}
	memcpy(&bits, &v, sizeof bits);
	for (j = value_hash(bits, d->nslots); d->slots[j] != 0;
	    j = (j + 1) & (d->nslots - 1)) {
		memcpy(&other, &d->values[d->slots[j] - 1], sizeof other);
		if (other == bits)
			return (long)d->slots[j] - 1;
	}
	if (d->n == d->alloc) {
		size_t na = d->alloc ? d->alloc * 2 : 1024;
		double *values = realloc(d->values, na * sizeof *values);

		if (values == NULL)
			return -1;
		d->values = values;
		d->alloc = na;
	}
	d->values[d->n] = v;
	d->slots[j] = (uint32_t)d->n + 1;
	return (long)d->n++;
}

/*
 * Which of d's values print alike: remap[j] is the index of value j's text
 * among the distinct texts, *texts those texts (SHORT_SIZE each) in order
 * met. Many doubles share their three digits; each is printed once.
 */
static int
dict_texts(const struct value_dict *d, uint32_t *remap, char **texts,
    size_t *ntexts)
{
	size_t ns = 64, i, j, n = 0;
	uint32_t *slots;
	char *t;

	while (ns < d->n * 2)
		ns *= 2;
	if ((slots = calloc(ns, sizeof *slots)) == NULL ||
	    (t = malloc((d->n ? d->n : 1) * SHORT_SIZE)) == NULL) {
		free(slots);
		return NP_ERR_NOMEM;
	}
	for (i = 0; i < d->n; i++) {
		char *s = t + n * SHORT_SIZE;

		short_text(d->values[i], s);
		for (j = str_hash(s) & (ns - 1); slots[j] != 0 &&
		    strcmp(t + (slots[j] - 1) * SHORT_SIZE, s) != 0;
		    j = (j + 1) & (ns - 1))
			;
		if (slots[j] == 0)
			slots[j] = (uint32_t)++n;
		remap[i] = slots[j] - 1;
	}
	free(slots);
	*texts = t;
	*ntexts = n;
	return 0;
}

/* Metric m of k's n cells packed; NP_ERR_NOMEM (nothing written) without
 * memory. A cell without a value is 0, as the unpacked form writes it. */
static int
write_packed(FILE *f, const struct matrix_kind *k, size_t n, size_t m)
{
	struct value_dict d;
	uint32_t *code, *remap = NULL;
	char *digits = NULL, *texts = NULL;
	size_t i, w, x, ntexts;
	long e;
	int rc = NP_ERR_NOMEM;

	memset(&d, 0, sizeof d);
	if ((code = malloc((n ? n : 1) * sizeof *code)) == NULL)
		return NP_ERR_NOMEM;
	for (i = 0; i < n; i++) {
		e = value_index(&d, k->cells[i].state == CELL_VALUE ?
		    k->cells[i].values[m] : 0);
		if (e < 0)
			goto out;
		code[i] = (uint32_t)e;
	}
	if ((remap = malloc((d.n ? d.n : 1) * sizeof *remap)) == NULL ||
	    dict_texts(&d, remap, &texts, &ntexts) != 0)
		goto out;
	for (i = 0; i < n; i++)
		code[i] = remap[code[i]];
	for (w = 1; ntexts > ((size_t)1 << (6 * w)); w++)
		;
	if ((digits = malloc(n * w + 1)) == NULL)
		goto out;
	for (i = 0; i < n; i++)
		for (x = 0; x < w; x++)
			digits[i * w + x] = code_digits[(code[i] >>
			    (6 * (w - 1 - x))) & 63];
	fprintf(f, "{\"w\":%zu,\"dict\":[", w);
	for (i = 0; i < ntexts; i++) {
		if (i)
			fputc(',', f);
		fputs(texts + i * SHORT_SIZE, f);
	}
	fputs("],\"codes\":\"", f);
	fwrite(digits, 1, n * w, f);
	fputs("\"}", f);
	rc = 0;
out:
	free(digits);
	free(texts);
	free(remap);
	free(code);
	free(d.values);
	free(d.slots);
	return rc;
}

/*
 * One kind as JSON. A large page (more than HEATMAP_TABLE_HOSTS hosts)
 * keeps it within bounds: the values of the kind's default metric and of
 * the view's (others null), three digits and packed, states as runs, no
 * per-cell counts and times, error texts by index into errs.
 */
/*
 * The path each cell's latest record ran over, for the hover: "path":
 * {"CELL": "relayed through NAME (inferred)", ...}, only the cells that
 * have one (none before bench recorded paths, nothing written then).
 */
static void
write_paths(FILE *f, const struct matrix *hm, const struct matrix_kind *k)
{
	size_t i, n = hm->nhosts * hm->nhosts;
	int first = 1;

	fputs("]", f);
	for (i = 0; i < n; i++) {
		const struct matrix_cell *c = &k->cells[i];
		const struct matrix_relay *r = matrix_cell_relay(hm, c);
		const char *name = matrix_path_name(matrix_cell_path(c));
		char text[256];

		if (name == NULL)
			continue;
		snprintf(text, sizeof text, "%s%s%s (%s)", name,
		    r != NULL ? " through " : "", r != NULL ? r->name : "",
		    matrix_cell_path_reported(c) ? "reported" : "inferred");
		fprintf(f, first ? ",\n\"path\":{\"%zu\":" : ",\"%zu\":", i);
		heatmap_json_escape(f, text);
		first = 0;
	}
	if (!first)
		fputc('}', f);
}

static void
write_kind_json(FILE *f, const struct matrix *hm,
    const struct heatmap_relative *rel, size_t ki, double t0,
    long view_metric, struct err_dict *errs)
{
	const struct matrix_kind *k = &hm->kinds[ki];
	long rel_metric = rel->kinds != NULL ? rel->kinds[ki].metric : -1;
	size_t n = hm->nhosts * hm->nhosts, i, m;
	static const char state_char[] = { 'm', 'v', 'f', 's' };
	int first, large = errs != NULL;

	fputs("{\"name\":", f);
	heatmap_json_escape(f, k->name);
	fputs(",\"label\":", f);
	heatmap_json_escape(f, heatmap_kind_label(k));
	fprintf(f, ",\"derived\":%s,\"default\":%zu,\"metrics\":[",
	    k->derived ? "true" : "false", k->default_metric);
	for (m = 0; m < k->nmetrics; m++) {
		fputs(m ? ",{\"name\":" : "{\"name\":", f);
		heatmap_json_escape(f, k->metrics[m].name);
		fputs(",\"unit\":", f);
		heatmap_json_escape(f, k->metrics[m].unit);
		fprintf(f, ",\"hb\":%d,\"fl\":", k->metrics[m].higher_better);
		heatmap_html_number(f, k->metrics[m].span_min);
		fputc('}', f);
	}
	fputs("],\n\"state\":\"", f);
	/* A large page's states as runs (a state, then its count if more
	 * than one): a million cells are mostly long runs of values. */
	for (i = 0; large && i < n; i = m) {
		for (m = i + 1; m < n && k->cells[m].state ==
		    k->cells[i].state; m++)
			;
		fputc(state_char[k->cells[i].state], f);
		if (m - i > 1)
			fprintf(f, "%zu", m - i);
	}
	for (i = 0; !large && i < n; i++)
		fputc(state_char[k->cells[i].state], f);
	fputs("\",\n\"values\":[", f);
	for (m = 0; m < k->nmetrics; m++) {
		if (m)
			fputs(",\n", f);
		if (large && m != k->default_metric && (long)m != view_metric &&
		    (long)m != rel_metric) {
			fputs("null", f);
			continue;
		}
		if (large && write_packed(f, k, n, m) == 0)
			continue;
		fputc('[', f);
		for (i = 0; i < n; i++) {
			if (i)
				fputc(',', f);
			if (k->cells[i].state != CELL_VALUE)
				fputc('0', f);
			else if (large)
				put_short(f, k->cells[i].values[m]);
			else
				heatmap_html_number(f, k->cells[i].values[m]);
		}
		fputc(']', f);
	}
	fputs("]", f);
	heatmap_relative_json(f, rel, ki);
	if (k->derived) {
		fputs("}", f);
		return;
	}
	if (large) {
		fputs(",\n\"err\":{", f);
		for (i = 0, first = 1; i < n; i++) {
			const struct matrix_failure *r = k->cells[i].last_failed;
			long e;

			if (r == NULL || (e = err_index(errs, r)) < 0)
				continue;
			fprintf(f, first ? "\"%zu\":%ld" : ",\"%zu\":%ld", i, e);
			first = 0;
		}
		fputs("}}", f);
		return;
	}
	fputs(",\n\"rec\":[", f);
	for (i = 0; i < n; i++)
		fprintf(f, i ? ",%d" : "%d", k->cells[i].count);
	fputs("],\n\"fail\":[", f);
	for (i = 0; i < n; i++)
		fprintf(f, i ? ",%d" : "%d", k->cells[i].nfail);
	fputs("],\n\"n\":[", f);
	for (i = 0; i < n; i++)
		fprintf(f, i ? ",%d" : "%d", k->cells[i].count > 0 ?
		    k->cells[i].nsamples : -1);
	fputs("],\n\"t\":[", f);
	for (i = 0; i < n; i++) {
		const struct matrix_cell *c = &k->cells[i];

		if (i)
			fputc(',', f);
		if (c->count == 0 || isnan(c->time))
			fputs("-1", f);
		else
			heatmap_html_number(f, floor((c->time - t0) * 1000) / 1000);
	}
	write_paths(f, hm, k);
	fputs(",\n\"err\":{", f);
	first = 1;
	for (i = 0; i < n; i++) {
		const struct matrix_failure *r = k->cells[i].last_failed;

		if (r == NULL)
			continue;
		fprintf(f, first ? "\"%zu\":[" : ",\n\"%zu\":[", i);
		heatmap_json_escape(f, r->error_class);
		fputc(',', f);
		heatmap_json_escape(f, r->error);
		fputc(']', f);
		first = 0;
	}
	fputs("}}", f);
}

void
heatmap_html_data(FILE *f, const struct matrix *hm,
    const struct html_options *opt, const struct heatmap_relative *rel)
{
	double t0 = first_time(hm);
	struct err_dict errs;
	int large = hm->nhosts > HEATMAP_TABLE_HOSTS;
	size_t i;

	fputs("<script type=\"application/json\" id=heatmap-data>{\"title\":",
	    f);
	heatmap_json_escape(f, opt->title);
	fprintf(f, ",\"steps\":%d,\"rel\":%g,\"relBelow\":%g,\"relHint\":%g,"
	    "\"aggregate\":\"%s\",\"sample\":%d,\"t0\":", COLOR_STEPS,
	    HEATMAP_SPAN_REL, HEATMAP_REL_BELOW, HEATMAP_REL_HINT,
	    hm->aggregate == MATRIX_MEDIAN ? "median" : "latest", hm->sample);
	heatmap_html_number(f, t0);
	fprintf(f, ",\"view\":[%zu,%zu],\n\"hosts\":[", opt->kind, opt->metric);
	for (i = 0; i < hm->nhosts; i++) {
		if (i)
			fputc(',', f);
		heatmap_json_escape(f, hm->hosts[i]);
	}
	fputs("]", f);
	if (hm->host_group != NULL) {
		fputs(",\n\"group\":[", f);
		for (i = 0; i < hm->nhosts; i++)
			fprintf(f, i ? ",%zu" : "%zu", hm->host_group[i]);
		fputs("]", f);
	}
	fputs(",\n\"kinds\":[", f);
	memset(&errs, 0, sizeof errs);
	for (i = 0; i < hm->nkinds; i++) {
		if (i)
			fputs(",\n", f);
		write_kind_json(f, hm, rel, i, t0, i == opt->kind ?
		    (long)opt->metric : -1, large ? &errs : NULL);
	}
	fputs("]", f);
	if (large) {
		const struct matrix_failure **byindex = calloc(errs.n + 1,
		    sizeof *byindex);

		fputs(",\n\"errs\":[", f);
		for (i = 0; byindex != NULL && i < errs.nslots; i++)
			if (errs.slots[i] != NULL)
				byindex[errs.index[i]] = errs.slots[i];
		for (i = 0; byindex != NULL && i < errs.n; i++) {
			fputs(i ? ",[" : "[", f);
			heatmap_json_escape(f, byindex[i]->error_class);
			fputc(',', f);
			heatmap_json_escape(f, byindex[i]->error);
			fputc(']', f);
		}
		fputs("]", f);
		free(byindex);
	}
	free(errs.slots);
	free(errs.index);
	fputs("}</script>\n", f);
}

