/*
 * The heatmap as text, for a terminal: the diagnosis first (what is
 * wrong and where, most likely first, with its evidence), then the key
 * of the hosts and of the cells' marks, per kind a matrix of the chosen
 * metric (rows = source, columns = target, numbered), the site pairs,
 * the comparison, the timeline and the failures table in full. Values
 * keep three significant digits (a millisecond below one as
 * microseconds: 12.3µs, not 0.01); columns are numbered (names cut to a
 * column's width were not unique: clariden-l clariden-l), each host's
 * number and name in the key and at its row; a matrix wider than the
 * terminal is printed in blocks of columns. Cells carry the page's marks
 * ("x" failed, "?" missing, "-" self), so the view reads without colour;
 * on a terminal the values are coloured green / yellow / red by badness.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "error.h"
#include "heatmap_compare.h"
#include "heatmap_relative.h"
#include "matrix_sites.h"
#include "heatmap_text.h"
#include "heatmap_timeline.h"
#include "log.h"
#include "probe_kind.h"
#include "utf8.h"

#define ANSI_RESET "\033[0m"
#define HOST_WIDTH_MAX 20
#define CELL_WIDTH_MIN 3
/* Cells of a finding listed in the text; --diagnosis-json has more. */
#define TEXT_CELLS_SHOWN 20
/* Findings listed; --diagnosis-json has all. */
#define TEXT_FINDINGS_SHOWN 100

/*
 * s with what may not reach a terminal (utf8_shown(): newlines, escape
 * sequences, C1 controls, bytes that are not UTF-8) and tabs as spaces,
 * a space a character.
 */
static void
put_clean(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t left = s != NULL ? strlen(s) : 0, n;

	for (; left > 0; p += n, left -= n) {
		if (utf8_shown(p, left, &n) && *p != '\t')
			fwrite(p, 1, n, f);
		else
			fputc(' ', f);
	}
}

/* Columns s takes on a terminal: UTF-8 continuation bytes take none. */
static int
cols(const char *s)
{
	int n = 0;

	for (; *s != '\0'; s++)
		n += ((unsigned char)*s & 0xc0) != 0x80;
	return n;
}

/* s right-aligned in width columns. */
static void
put_right(FILE *f, const char *s, int width)
{
	int pad = width - cols(s);

	while (pad-- > 0)
		fputc(' ', f);
	fputs(s, f);
}

/*
 * A value as the text shows it: three significant digits, whole numbers
 * whole; a millisecond below one in microseconds (12.3µs).
 */
static void
text_value(double v, const char *unit, char *buf, size_t size)
{
	double a = fabs(v);

	if (isnan(v))
		snprintf(buf, size, "?");
	else if (unit != NULL && strcmp(unit, probe_unit_ms.text) == 0 &&
	    a < 1 && a > 0)
		snprintf(buf, size, "%.3g\xc2\xb5s", v * 1000);
	else if (a >= 100 || a == floor(a))
		snprintf(buf, size, "%.0f", v);
	else if (a >= 10)
		snprintf(buf, size, "%.1f", v);
	else if (a >= 1)
		snprintf(buf, size, "%.2f", v);
	else
		snprintf(buf, size, "%.3g", v);
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

/* A cell, coloured by rel (its badness against its site pair's typical
 * value) unless NAN, else on the raw scale lo .. hi. */
static void
put_cell(FILE *f, const struct matrix_cell *c, const struct matrix_metric *m,
    size_t metric, double lo, double hi, double rel, int width, int color)
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
		text_value(v, m->unit, buf, sizeof buf);
		mark = buf;
		ansi = badness_color(!isnan(rel) ? rel : heatmap_badness(v,
		    lo, hi, m->higher_better, 0));
		break;
	}
	fputc(' ', f);
	if (color)
		fputs(ansi, f);
	put_right(f, mark, width);
	if (color)
		fputs(ANSI_RESET, f);
}

/* Digits of the largest host number. */
static int
number_width(const struct matrix *hm)
{
	int w = 1;
	size_t n;

	for (n = hm->nhosts; n >= 10; n /= 10)
		w++;
	return w;
}

/* The columns' width for kind's metric: its number, or the longest
 * value shown, so that large numbers (bytes) never push a row out of
 * line. */
static int
cell_width(const struct matrix *hm, const struct matrix_kind *k, size_t metric)
{
	int w = number_width(hm), l;
	size_t i, n = hm->nhosts * hm->nhosts;
	char buf[32];

	if (w < CELL_WIDTH_MIN)
		w = CELL_WIDTH_MIN;
	if (metric >= k->nmetrics)
		return w;
	for (i = 0; i < n; i++) {
		double v = k->cells[i].values[metric];

		if (k->cells[i].state != CELL_VALUE || isnan(v))
			continue;
		text_value(v, k->metrics[metric].unit, buf, sizeof buf);
		if ((l = cols(buf)) > w)
			w = l;
	}
	return w;
}

/* Host i begins a new group (not the first): a line goes before it. */
static int
group_starts(const struct matrix *hm, size_t i)
{
	return hm->host_group != NULL && i > 0 &&
	    hm->host_group[i] != hm->host_group[i - 1];
}

/* The row labels' width: a host's number and name. */
static int
label_width(const struct matrix *hm)
{
	size_t i;
	int w = 9, l;		/* "src \ dst" */

	for (i = 0; i < hm->nhosts; i++) {
		l = number_width(hm) + 1 + (int)strlen(hm->hosts[i]);
		if (l > w)
			w = l;
	}
	return w > number_width(hm) + 1 + HOST_WIDTH_MAX ? number_width(hm) +
	    1 + HOST_WIDTH_MAX : w;
}

/* Columns from..to (exclusive) of kind's matrix. */
static void
write_block(FILE *f, const struct matrix *hm, size_t ki,
    const struct heatmap_relative *rel, size_t metric, double lo, double hi,
    size_t from, size_t to, int color)
{
	const struct matrix_kind *k = &hm->kinds[ki];
	const struct matrix_metric *m = metric < k->nmetrics ?
	    &k->metrics[metric] : NULL;
	int lw = label_width(hm), cw = cell_width(hm, k, metric);
	int nw = number_width(hm);
	char name[HOST_WIDTH_MAX + 1], num[24];
	size_t s, t;

	fprintf(f, "%-*.*s", lw, lw, "src \\ dst");
	for (t = from; t < to; t++) {
		if (t > from && group_starts(hm, t))
			fputs(" |", f);
		snprintf(num, sizeof num, "%zu", t + 1);
		fputc(' ', f);
		put_right(f, num, cw);
	}
	fputc('\n', f);
	for (s = 0; s < hm->nhosts; s++) {
		int used;

		if (group_starts(hm, s))
			fprintf(f, "%-*s\n", lw, "--");
		used = fprintf(f, "%*zu %s", nw, s + 1,
		    heatmap_clean_name(hm->hosts[s], name, sizeof name));
		fprintf(f, "%*s", lw - used > 0 ? lw - used : 0, "");
		for (t = from; t < to; t++) {
			if (t > from && group_starts(hm, t))
				fputs(" |", f);
			put_cell(f, matrix_cell_at(hm, k, s, t), m, metric, lo, hi,
			    heatmap_relative_badness(rel, ki, s, t), cw, color);
		}
		fputc('\n', f);
	}
	fputc('\n', f);
}

/*
 * The range lo .. hi in one unit: both in µs when both are below a
 * millisecond, else as they are, the unit after the second.
 */
static void
put_range(FILE *f, const struct matrix_metric *m, double lo, double hi)
{
	char a[32], b[32];
	int us = strcmp(m->unit, probe_unit_ms.text) == 0 && hi < 1;

	text_value(lo, us ? m->unit : NULL, a, sizeof a);
	text_value(hi, us ? m->unit : NULL, b, sizeof b);
	fprintf(f, ", range %s .. %s%s%s", a, b, us || *m->unit == '\0' ? "" :
	    " ", us ? "" : m->unit);
}

/* The pairs of a derived kind with a value: it has no records of its own. */
static size_t
pairs_with_value(const struct matrix *hm, const struct matrix_kind *k)
{
	size_t i, n = 0;

	for (i = 0; i < hm->nhosts * hm->nhosts; i++)
		n += k->cells[i].state == CELL_VALUE;
	return n;
}

/*
 * A kind's heading: its metric, the path's classes, the direction and the
 * range, the scale its colours are on, its records (a derived kind's
 * pairs); then its matrix in blocks of columns.
 */
static void
write_kind(FILE *f, const struct matrix *hm, size_t ki,
    const struct heatmap_relative *rel, size_t metric, int color, int width)
{
	const struct matrix_kind *k = &hm->kinds[ki];
	const struct matrix_metric *m = metric < k->nmetrics ? &k->metrics[metric] :
	    NULL;
	int lw = label_width(hm), cw = cell_width(hm, k, metric);
	const char *rel_metric = heatmap_relative_metric(rel, ki);
	char kname[64], mname[64];
	double lo = 0, hi = 0;
	size_t from, to, per, nblocks;
	int path = k->derived && strcmp(k->name, "path") == 0 && m != NULL &&
	    strcmp(m->name, "class") == 0;

	fprintf(f, "%s: %s%s%s%s",
	    heatmap_clean_name(k->name, kname, sizeof kname), m != NULL ?
	    heatmap_clean_name(m->name, mname, sizeof mname) : "(no metric)",
	    m != NULL && *m->unit ? " (" : "", m != NULL ? m->unit : "",
	    m != NULL && *m->unit ? ")" : "");
	if (path)
		fputs(": 1 direct, 2 hole-punched, 3 relayed", f);
	else if (m != NULL && matrix_metric_range(hm, k, metric, &lo,
	    &hi) == 0) {
		fprintf(f, ", %s", m->label);
		put_range(f, m, lo, hi);
	}
	if (m != NULL && matrix_metric_range(hm, k, metric, &lo, &hi) == 0)
		heatmap_scale_span(m, &lo, &hi);
	/* the key says the scale; a kind off it where there are sites,
	 * and what each kind's colour is of, here */
	if (rel_metric != NULL)
		fprintf(f, "; colour: %s vs typical", rel_metric);
	else if (m != NULL && !path && hm->host_group != NULL)
		fputs("; colour: its range", f);
	if (k->derived)
		fprintf(f, "; %zu pair%s with a value\n", pairs_with_value(hm, k),
		    PLURAL(pairs_with_value(hm, k)));
	else
		fprintf(f, "; %zu record%s, %zu failed\n", k->nrecords,
		    PLURAL(k->nrecords), k->nfailed);
	/* Columns per block: what the width leaves after the labels (a
	 * site's bar takes two more). */
	per = hm->nhosts;
	if (width > 0 && hm->nhosts > 0) {
		int room = width - lw;

		per = room > cw + 3 ? (size_t)room / (size_t)(cw + 1) : 1;
		if (per > 1 && hm->host_group != NULL)
			per = (size_t)room / (size_t)(cw + 2);
		if (per == 0)
			per = 1;
	}
	nblocks = hm->nhosts == 0 ? 0 : (hm->nhosts + per - 1) / per;
	for (from = 0; from < hm->nhosts; from = to) {
		to = from + per < hm->nhosts ? from + per : hm->nhosts;
		if (nblocks > 1)
			fprintf(f, "columns %zu-%zu of %zu:\n", from + 1, to,
			    hm->nhosts);
		write_block(f, hm, ki, rel, metric, lo, hi, from, to, color);
	}
}

/* The hosts' numbers, as the matrices label their rows and columns, and
 * what the marks of a cell mean. */
static void
write_key(FILE *f, const struct matrix *hm, int width)
{
	char name[HOST_WIDTH_MAX * 4 + 1], num[24];
	size_t i;
	int used;

	if (hm->nhosts == 0)
		return;
	fputs("Hosts (the matrices' row and column numbers):\n", f);
	used = 0;
	for (i = 0; i < hm->nhosts; i++) {
		int l;

		heatmap_clean_name(hm->hosts[i], name, sizeof name);
		snprintf(num, sizeof num, "%zu", i + 1);
		l = (int)strlen(num) + 1 + cols(name) + 2;
		if (used > 0 && width > 0 && used + l > width) {
			fputc('\n', f);
			used = 0;
		}
		used += fprintf(f, "%s%s %s", used ? "  " : "  ", num, name);
	}
	fputs("\n\nCells: a value (latencies in ms, below 1 ms in \xc2\xb5s), "
	    "x failed (see Failures), ", f);
	if (hm->sample > 0)	/* a sampled sweep's matrix is partial */
		fprintf(f, "? not in this sweep's sample (collect --sample %d: "
		    "consecutive sweeps' records together fill the matrix), "
		    "or no such metric, ", hm->sample);
	else
		fputs("? missing (no record, or no such metric), ", f);
	fputs("- a host against itself; | and -- separate sites.\n", f);
	if (hm->host_group != NULL)
		fputs("Colours (on a terminal): a cell against its site "
		    "pair's typical value (the diagnosis'), green at or better, "
		    "yellow twice as far off, red named by the diagnosis.\n\n",
		    f);
	else
		fputs("Colours (on a terminal): each matrix's range, its best "
		    "green to its worst red.\n\n", f);
}

/* A site pair's figure, as the matrices show it. */
static void
site_value(double v, const struct matrix_kind *k, size_t m, char *buf,
    size_t size)
{
	text_value(v, m < k->nmetrics ? k->metrics[m].unit : NULL, buf, size);
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
write_sites(FILE *f, const struct matrix *hm, long kind, long metric)
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
				fprintf(f, " %s", heatmap_clean_name(
				    hm->hosts[i], name, sizeof name));
		fputc('\n', f);
	}
	fputc('\n', f);
	for (kk = 0; kk < hm->nkinds; kk++) {
		const struct matrix_kind *k = &hm->kinds[kk];
		size_t m = kind >= 0 ? (size_t)metric : k->default_metric;

		if ((kind >= 0 && (size_t)kind != kk) || m >= k->nmetrics)
			continue;
		if ((rc = matrix_sites_summary(hm, k, m, &sc)) != 0)
			return rc;
		fprintf(f, "%s %s by site pair: median, worst pair, failed of "
		    "pairs\n", heatmap_clean_name(k->name, kname, sizeof kname),
		    heatmap_clean_name(k->metrics[m].name, mname,
		    sizeof mname));
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
				site_value(c->median, k, m, a, sizeof a);
				site_value(c->worst, k, m, b, sizeof b);
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
write_worse(FILE *f, const struct matrix *hm)
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
		const struct matrix_worse *w = &hm->worse[i];
		const struct matrix_kind *k = &hm->kinds[w->kind];
		const struct matrix_metric *m = &k->metrics[k->default_metric];

		fputs("  worse: ", f);
		put_clean(f, k->name);
		fputc(' ', f);
		put_clean(f, hm->hosts[w->src]);
		fputs(" -> ", f);
		put_clean(f, hm->hosts[w->tgt]);
		fputs(": ", f);
		put_clean(f, m->name);
		text_value(w->before, m->unit, a, sizeof a);
		if (isinf(w->factor)) {
			fprintf(f, " %s %s -> failed\n", a, m->unit);
			continue;
		}
		text_value(w->after, m->unit, b, sizeof b);
		fprintf(f, " %s -> %s %s (%.2fx)\n", a, b, m->unit, w->factor);
	}
	fputc('\n', f);
}

/* The findings, most likely first: what, where, the evidence, how sure
 * and why, what to try, and the cells. */
static void
write_findings(FILE *f, const struct matrix *hm, const struct diagnosis *dx)
{
	char line[512];
	size_t i, j;

	if (dx->nfindings == 0) {
		fputs("Diagnosis: nothing wrong found (no failure, and no "
		    "host, site or pair off its site pair's typical value).\n\n",
		    f);
		return;
	}
	fprintf(f, "Diagnosis: %zu finding%s, most likely first (by "
	    "severity, then score):\n", dx->nfindings, PLURAL(dx->nfindings));
	for (i = 0; i < dx->nfindings && i < TEXT_FINDINGS_SHOWN; i++) {
		const struct finding *x = &dx->findings[i];

		fprintf(f, "%2zu. [%s] ", i + 1,
		    diagnose_severity_name(x->severity));
		put_clean(f, x->title);
		if (x->worse > 0 && isinf(x->worse))
			fputs(" (failed since the old run)", f);
		else if (x->worse > 0)
			fprintf(f, " (%.2fx worse than the old run)", x->worse);
		fprintf(f, "\n    rule %s, %s; evidence: ", x->rule, x->category);
		put_clean(f, x->evidence);
		fputs("\n    ", f);
		put_clean(f, x->why);
		fputs("\n    try: ", f);
		put_clean(f, x->advice);
		fputc('\n', f);
		for (j = 0; j < x->ncells && j < TEXT_CELLS_SHOWN; j++) {
			diagnose_cell_text(hm, &x->cells[j], line,
			    sizeof line);
			fputs("      ", f);
			put_clean(f, line);
			fputc('\n', f);
		}
		if (x->ncells + x->cells_more > TEXT_CELLS_SHOWN)
			fprintf(f, "      ... and %zu more cells "
			    "(--diagnosis-json lists %d)\n", x->ncells +
			    x->cells_more - TEXT_CELLS_SHOWN,
			    DIAGNOSE_CELLS_MAX);
	}
	if (dx->nfindings > TEXT_FINDINGS_SHOWN)
		fprintf(f, "... and %zu more findings (--diagnosis-json lists "
		    "them all)\n", dx->nfindings - TEXT_FINDINGS_SHOWN);
	fputc('\n', f);
}

static void
failures_head(FILE *f, size_t n)
{
	if (n == 0)
		fputs("Failures: none.\n", f);
	else
		fprintf(f, "Failures (%zu pair%s): source -> target, kind, "
		    "failed/records, class: last error\n", n, PLURAL(n));
}

/* The failures, as the page's table, all of them. */
static const struct failure_format text_failures = {
	failures_head, put_clean,
	{ "  ", " -> ", "  ", "  ", "  ", ": ", "\n" }, "/", 0, NULL
};

/*
 * When standard error is the same file (2>&1), what comes next on it (the
 * page written, the gate) goes after the table, not into one of its rows:
 * the table is flushed now. Else it is left to the end, whose flush
 * reports a write error with its reason.
 */
static void
flush_before_stderr(FILE *f)
{
	struct stat a, b;

	if (fstat(fileno(f), &a) == 0 && fstat(fileno(stderr), &b) == 0 &&
	    a.st_dev == b.st_dev && a.st_ino == b.st_ino)
		fflush(f);
}

/* Is name a ratio of the overlay (a row's .over_metric)? */
static int
is_overlay_ratio(const char *name)
{
	const struct probe_kind *pk;

	for (pk = probe_kinds; pk->name != NULL; pk++)
		if (pk->over_metric != NULL && strcmp(pk->over_metric, name) == 0)
			return 1;
	return 0;
}

int
heatmap_write_text(const struct matrix *hm, const struct diagnosis *dx,
    long kind, long metric, int color, int width, FILE *f)
{
	/* the typical values are the default metric's: the other ratios
	   are coloured on their range */
	struct heatmap_relative rel, none = { 0 };
	size_t i, m;
	int rc;

	if ((rc = heatmap_relative_build(&rel, hm, dx)) != 0)
		return rc;
	write_findings(f, hm, dx);
	write_key(f, hm, width);
	if (kind >= 0)
		write_kind(f, hm, (size_t)kind, &rel, (size_t)metric, color,
		    width);
	else
		for (i = 0; i < hm->nkinds; i++) {
			write_kind(f, hm, i, &rel, hm->kinds[i].default_metric,
			    color, width);
			/* the overlay's other ratios, each a matrix of its
			   own: connect in round trips, libp2p over iperf3 */
			for (m = 0; hm->kinds[i].derived &&
			    m < hm->kinds[i].nmetrics; m++)
				if (m != hm->kinds[i].default_metric &&
				    is_overlay_ratio(hm->kinds[i].metrics[m].name))
					write_kind(f, hm, i, &none, m, color,
					    width);
		}
	heatmap_relative_free(&rel);
	if (write_sites(f, hm, kind, metric) != 0)
		return NP_ERR_NOMEM;
	write_worse(f, hm);
	heatmap_write_timeline_text(f, hm);
	if ((rc = heatmap_failures(f, hm, &text_failures)) != 0)
		return rc;
	flush_before_stderr(f);
	return 0;
}
