/*
 * The heatmap as text, for a terminal: per kind a matrix of the chosen
 * metric (rows = source, columns = target), then the diagnosis and the
 * failures table in full. Cells carry the same marks as the page ("x"
 * failed, "?" missing, "-" self), so the view reads without colour; on a
 * terminal the values are coloured green / yellow / red by badness.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "heatmap_compare.h"
#include "heatmap_html.h"
#include "heatmap_sites.h"
#include "heatmap_text.h"
#include "heatmap_timeline.h"
#include "log.h"

#define ANSI_RESET "\033[0m"
#define HOST_WIDTH_MAX 20
#define CELL_WIDTH_MIN 6
#define CELL_WIDTH_MAX 10

/* s with control characters (newlines, escape sequences) as spaces. */
static void
put_clean(FILE *f, const char *s)
{
	for (; s != NULL && *s != '\0'; s++)
		fputc((unsigned char)*s < 0x20 || *s == 0x7f ? ' ' : *s, f);
}

/* A host name for a fixed-width column, control characters as '?'. */
static const char *
clean_name(const char *s, char *buf, size_t size)
{
	size_t i;

	for (i = 0; i + 1 < size && s[i] != '\0'; i++)
		buf[i] = (unsigned char)s[i] < 0x20 || s[i] == 0x7f ? '?' : s[i];
	buf[i] = '\0';
	return buf;
}

const char *
heatmap_clean_name(const char *s, char *buf, size_t size)
{
	return clean_name(s, buf, size);
}

static int
text_width(const struct heatmap *hm, int min, int max)
{
	size_t i;
	int w = min, l;

	for (i = 0; i < hm->nhosts; i++)
		if ((l = (int)strlen(hm->hosts[i])) > w)
			w = l;
	return w > max ? max : w;
}

static const char *
badness_color(double b)
{
	if (b < 1.0 / 3)
		return "\033[32m";
	if (b < 2.0 / 3)
		return "\033[33m";
	return "\033[31m";
}

static void
put_cell(FILE *f, const struct hm_cell *c, const struct hm_metric *m,
    size_t metric, double lo, double hi, int width, int color)
{
	const char *mark = NULL, *ansi = "";
	char buf[32];
	double v;

	switch (c->state) {
	case CELL_SELF:
		mark = "-";
		ansi = "\033[2m";
		break;
	case CELL_FAILED:
		mark = "x";
		ansi = "\033[1;31m";
		break;
	case CELL_MISSING:
		mark = "?";
		ansi = "\033[2m";
		break;
	case CELL_VALUE:
		v = m != NULL ? c->values[metric] : NAN;
		if (isnan(v)) {
			mark = "?";
			ansi = "\033[2m";
			break;
		}
		heatmap_format_value(v, buf, sizeof buf);
		mark = buf;
		ansi = badness_color(heatmap_badness(v, lo, hi,
		    m->higher_better, 0));
		break;
	}
	if (color)
		fprintf(f, " %s%*s%s", ansi, width, mark, ANSI_RESET);
	else
		fprintf(f, " %*s", width, mark);
}

/*
 * The column width for kind's metric: the host names' (capped), widened
 * to the longest value shown so that large numbers (bytes) never push
 * the row out of line.
 */
static int
cell_width(const struct heatmap *hm, const struct hm_kind *k, size_t metric)
{
	int w = text_width(hm, CELL_WIDTH_MIN, CELL_WIDTH_MAX), l;
	size_t i, n = hm->nhosts * hm->nhosts;
	char buf[32];

	if (metric >= k->nmetrics)
		return w;
	for (i = 0; i < n; i++) {
		double v = k->cells[i].values[metric];

		if (k->cells[i].state != CELL_VALUE || isnan(v))
			continue;
		heatmap_format_value(v, buf, sizeof buf);
		if ((l = (int)strlen(buf)) > w)
			w = l;
	}
	return w;
}

/* Host i begins a new group (not the first): a line goes before it. */
static int
group_starts(const struct heatmap *hm, size_t i)
{
	return hm->host_group != NULL && i > 0 &&
	    hm->host_group[i] != hm->host_group[i - 1];
}

static void
write_kind(FILE *f, const struct heatmap *hm, const struct hm_kind *k,
    size_t metric, int color)
{
	const struct hm_metric *m = metric < k->nmetrics ? &k->metrics[metric] :
	    NULL;
	int hw = text_width(hm, 9, HOST_WIDTH_MAX), cw;
	char name[HOST_WIDTH_MAX + 1], kname[64], mname[64];
	double lo, hi;
	size_t s, t;

	cw = cell_width(hm, k, metric);
	fprintf(f, "%s: %s%s%s%s", clean_name(k->name, kname, sizeof kname),
	    m != NULL ? clean_name(m->name, mname, sizeof mname) : "(no metric)",
	    m != NULL && *m->unit ? " (" : "", m != NULL ? m->unit : "",
	    m != NULL && *m->unit ? ")" : "");
	if (m != NULL && heatmap_metric_range(hm, k, metric, &lo, &hi) == 0) {
		char a[32], b[32];

		heatmap_format_value(lo, a, sizeof a);
		heatmap_format_value(hi, b, sizeof b);
		fprintf(f, ", %s, range %s .. %s", m->label, a, b);
		heatmap_scale_span(m, &lo, &hi);
	}
	fprintf(f, "; %zu record%s, %zu failed\n", k->nrecords,
	    PLURAL(k->nrecords), k->nfailed);
	fprintf(f, "%-*.*s", hw, hw, "src \\ dst");
	for (t = 0; t < hm->nhosts; t++) {
		if (group_starts(hm, t))
			fputs(" |", f);
		fprintf(f, " %*.*s", cw, cw, clean_name(hm->hosts[t], name,
		    sizeof name));
	}
	fputc('\n', f);
	for (s = 0; s < hm->nhosts; s++) {
		if (group_starts(hm, s))
			fprintf(f, "%-*s\n", hw, "--");
		fprintf(f, "%-*.*s", hw, hw, clean_name(hm->hosts[s], name,
		    sizeof name));
		for (t = 0; t < hm->nhosts; t++) {
			if (group_starts(hm, t))
				fputs(" |", f);
			put_cell(f, heatmap_cell(hm, k, s, t), m, metric, lo, hi,
			    cw, color);
		}
		fputc('\n', f);
	}
	fputc('\n', f);
}

/* The groups and their hosts, then one line per site pair and kind. */

/* The end of a site pair's line: the pairs without a record (a sample's
   pairs not measured, missing cells), when there are. */
static void
put_unmeasured(FILE *f, const struct site_cell *c)
{
	size_t none = c->npairs - c->nvalues - c->nfailed;

	if (c->nvalues + c->nfailed < c->npairs)
		fprintf(f, ", %zu not measured", none);
	fputc('\n', f);
}
static int
write_sites(FILE *f, const struct heatmap *hm, long kind, long metric)
{
	char name[HOST_WIDTH_MAX + 1], a[32], b[32], kname[64], mname[64];
	struct site_cell *sc;
	size_t g, h, i, kk;
	int rc;

	if (hm->ngroups == 0)
		return 0;
	if (strcmp(hm->group_by, "site") == 0)
		fputs("Sites (from machines.json's site):\n", f);
	else
		fprintf(f, "Sites (average-linkage clusters of %s):\n",
		    hm->group_basis);
	for (g = 0; g < hm->ngroups; g++) {
		fputs("  ", f);
		put_clean(f, hm->groups[g]);
		fputc(':', f);
		for (i = 0; i < hm->nhosts; i++)
			if (hm->host_group[i] == g)
				fprintf(f, " %s", clean_name(hm->hosts[i], name,
				    sizeof name));
		fputc('\n', f);
	}
	fputc('\n', f);
	for (kk = 0; kk < hm->nkinds; kk++) {
		const struct hm_kind *k = &hm->kinds[kk];
		size_t m = kind >= 0 ? (size_t)metric : k->default_metric;

		if ((kind >= 0 && (size_t)kind != kk) || m >= k->nmetrics)
			continue;
		if ((rc = heatmap_site_summary(hm, k, m, &sc)) != 0)
			return rc;
		fprintf(f, "%s %s by site pair: median, worst pair, failed of "
		    "pairs\n", clean_name(k->name, kname, sizeof kname),
		    clean_name(k->metrics[m].name, mname, sizeof mname));
		for (g = 0; g < hm->ngroups; g++)
			for (h = 0; h < hm->ngroups; h++) {
				const struct site_cell *c = &sc[g * hm->ngroups +
				    h];

				if (c->npairs == 0)
					continue;
				fputs("  ", f);
				put_clean(f, hm->groups[g]);
				fputs(" -> ", f);
				put_clean(f, hm->groups[h]);
				if (c->nvalues == 0) {
					fprintf(f, ": no value, %zu of %zu "
					    "failed", c->nfailed, c->npairs);
					put_unmeasured(f, c);
					continue;
				}
				heatmap_format_value(c->median, a, sizeof a);
				heatmap_format_value(c->worst, b, sizeof b);
				fprintf(f, ": median %s, worst ", a);
				put_clean(f, hm->hosts[c->worst_src]);
				fputs(" -> ", f);
				put_clean(f, hm->hosts[c->worst_tgt]);
				fprintf(f, " %s, %zu of %zu failed", b,
				    c->nfailed, c->npairs);
				put_unmeasured(f, c);
			}
		fputc('\n', f);
		free(sc);
	}
	return 0;
}

/* --compare: one "worse:" line per pair, for people and scripts. */
static void
write_worse(FILE *f, const struct heatmap *hm)
{
	char a[32], b[32];
	size_t i;

	if (!hm->compared)
		return;
	if (hm->nworse == 0) {
		fputs("Compared with the old run: no pair worse.\n\n", f);
		return;
	}
	fprintf(f, "Compared with the old run: %zu pair%s worse (by %.2fx "
	    "and the metric's floor, or failed since):\n", hm->nworse,
	    PLURAL(hm->nworse), HEATMAP_WORSE_RATIO);
	for (i = 0; i < hm->nworse; i++) {
		const struct hm_worse *w = &hm->worse[i];
		const struct hm_kind *k = &hm->kinds[w->kind];
		const struct hm_metric *m = &k->metrics[k->default_metric];

		fputs("  worse: ", f);
		put_clean(f, k->name);
		fputc(' ', f);
		put_clean(f, hm->hosts[w->src]);
		fputs(" -> ", f);
		put_clean(f, hm->hosts[w->tgt]);
		fputs(": ", f);
		put_clean(f, m->name);
		heatmap_format_value(w->before, a, sizeof a);
		if (isinf(w->factor)) {
			fprintf(f, " %s %s -> failed\n", a, m->unit);
			continue;
		}
		heatmap_format_value(w->after, b, sizeof b);
		fprintf(f, " %s -> %s %s (%.2fx)\n", a, b, m->unit, w->factor);
	}
	fputc('\n', f);
}

static void
write_findings(FILE *f, const struct diagnosis *dx)
{
	size_t i, j;

	if (dx->nfindings == 0) {
		fputs("Diagnosis: no known failure pattern.\n\n", f);
		return;
	}
	fputs("Diagnosis:\n", f);
	for (i = 0; i < dx->nfindings; i++) {
		const struct finding *fd = &dx->findings[i];

		fprintf(f, "* %s (%zu affected)\n  try: %s\n", fd->title,
		    fd->nitems, fd->advice);
		for (j = 0; j < fd->nitems; j++) {
			fputs("    ", f);
			put_clean(f, fd->items[j]);
			fputc('\n', f);
		}
	}
	fputc('\n', f);
}

/* The failures, as heatmap_html.c's table (see there why two writers). */
static int
write_failures(FILE *f, const struct heatmap *hm)
{
	struct failure_row *rows;
	size_t n, i;
	int rc;

	if ((rc = heatmap_failures(hm, &rows, &n)) != 0)
		return rc;
	if (n == 0)
		fputs("Failures: none.\n", f);
	else
		fprintf(f, "Failures (%zu pair%s): source -> target, kind, "
		    "failed/records, class: last error\n", n, PLURAL(n));
	for (i = 0; i < n; i++) {
		const struct hm_failure *last = rows[i].cell->last_failed;

		fputs("  ", f);
		put_clean(f, hm->hosts[rows[i].src]);
		fputs(" -> ", f);
		put_clean(f, hm->hosts[rows[i].tgt]);
		fputs("  ", f);
		put_clean(f, rows[i].kind->name);
		fprintf(f, "  %d/%d  ", rows[i].cell->nfail,
		    rows[i].cell->count);
		put_clean(f, last->error_class);
		fputs(": ", f);
		put_clean(f, last->error);
		fputc('\n', f);
	}
	free(rows);
	return 0;
}

int
heatmap_write_text(const struct heatmap *hm, const struct diagnosis *dx,
    long kind, long metric, int color, FILE *f)
{
	size_t i;

	if (kind >= 0)
		write_kind(f, hm, &hm->kinds[kind], (size_t)metric, color);
	else
		for (i = 0; i < hm->nkinds; i++)
			write_kind(f, hm, &hm->kinds[i],
			    hm->kinds[i].default_metric, color);
	if (write_sites(f, hm, kind, metric) != 0)
		return NP_ERR_NOMEM;
	write_worse(f, hm);
	heatmap_write_timeline_text(f, hm);
	write_findings(f, dx);
	return write_failures(f, hm);
}
