/*
 * Writing the heatmap page. Everything is inline and nothing is fetched:
 * the pages are opened on laptops and login nodes without internet, so the
 * page carries no URL at all (not even "//" in a comment). The default
 * view's matrix is a server-side rendered table, readable without script;
 * the embedded JSON (every string escaped, "/" as "\/") feeds the inline
 * script that switches kind, metric and scale and shows tooltips. Input
 * strings reach the page only through heatmap_html_escape() and heatmap_json_escape().
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "heatmap_compare.h"
#include "heatmap_html.h"
#include "heatmap_page.h"
#include "heatmap_sites.h"
#include "heatmap_timeline.h"
#include "log.h"
#include "timeutil.h"
#include "util.h"

#define DIAG_ITEMS_SHOWN 100
#define FAILURE_ROWS_SHOWN 250
/*
 * Cells are coloured by class (.q0 best .. .q20 worst), not by inline
 * style: 16k cells sharing 21 styles lay out and paint much faster.
 */
#define COLOR_STEPS 20
/*
 * Above this many hosts the table shows a block of HEATMAP_BLOCK x
 * HEATMAP_BLOCK (a million cells do not lay out in seconds); the
 * overviews pick the block.
 */
#define HEATMAP_TABLE_HOSTS 128
#define HEATMAP_BLOCK 64

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

/* A number for the embedded JSON: short, exact for integers. */
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

/*
 * The page's stylesheet and script are page.css and page.js beside this
 * file (heatmap_page.h). The script mirrors heatmap_badness() and uses the
 * same colour classes so a switched view is coloured like the
 * server-rendered one; its comments use the block form only: the page must
 * not contain "//" (page_embed.cmake refuses a file that does).
 */

static const char *
kind_label(const struct matrix_kind *k)
{
	if (k->derived && strcmp(k->name, "change") == 0)
		return "change: times worse than the old run";
	if (k->derived && strcmp(k->name, "path") == 0)
		return "path: 1 direct, 2 hole-punched, 3 relayed";
	if (k->derived)
		return "overlay: libp2p over the raw-IP baseline";
	return k->name;
}

/* One cell of the server-rendered view: a value, or a marked state. */
static void
render_cell(FILE *f, const struct matrix_cell *c, const struct matrix_metric *m,
    size_t metric, double lo, double hi)
{
	char buf[32];
	double v;

	switch (c->state) {
	case CELL_SELF:
		fputs("<td class=s>\xe2\x80\x94</td>", f);
		return;
	case CELL_FAILED:
		fputs("<td class=f>\xe2\x9c\x95</td>", f);
		return;
	case CELL_MISSING:
		fputs("<td class=m>?</td>", f);
		return;
	case CELL_VALUE:
		break;
	}
	v = metric < SIZE_MAX && m != NULL ? c->values[metric] : NAN;
	if (isnan(v)) {
		fputs("<td class=m>?</td>", f);
		return;
	}
	heatmap_format_value(v, buf, sizeof buf);
	fprintf(f, "<td class=\"v q%ld\">%s</td>", lround(heatmap_badness(v, lo,
	    hi, m->higher_better, 0) * COLOR_STEPS), buf);
}

static void
write_legend(FILE *f, const struct matrix_metric *m, int have, double lo,
    double hi, int sample)
{
	char best[32] = "-", worst[32] = "-";

	if (have && m != NULL) {
		heatmap_format_value(m->higher_better ? hi : lo, best,
		    sizeof best);
		heatmap_format_value(m->higher_better ? lo : hi, worst,
		    sizeof worst);
	}
	fputs("<div id=legend><span>best <b id=lg-best>", f);
	fputs(best, f);
	fputs("</b></span><svg width=200 height=14 viewBox=\"0 0 200 14\" "
	    "role=img aria-label=\"colour scale from best to worst\">"
	    "<defs><linearGradient id=lg-grad>"
	    "<stop offset=0 stop-color=\"#1a9850\"></stop>"
	    "<stop offset=0.5 stop-color=\"#fee08b\"></stop>"
	    "<stop offset=1 stop-color=\"#d73027\"></stop>"
	    "</linearGradient></defs>"
	    "<rect width=200 height=14 fill=\"url(#lg-grad)\"></rect></svg>"
	    "<span>worst <b id=lg-worst>", f);
	fputs(worst, f);
	fputs("</b></span><span>unit: <b id=lg-unit>", f);
	heatmap_html_escape(f, m != NULL ? m->unit : "");
	fputs("</b></span><span id=lg-dir>", f);
	fputs(m != NULL && m->higher_better ? "higher is better" :
	    "lower is better", f);
	fputs("</span><span class=\"sw f\">\xe2\x9c\x95</span> failed "
	    "<span class=\"sw m\">?</span> ", f);
	/* a sampled sweep's matrix is partial: its pairs not measured are
	 * no failure, and no record lost */
	if (sample > 0)
		fprintf(f, "not in this sweep's sample (--sample %d) ", sample);
	else
		fputs("missing ", f);
	fputs("<span class=\"sw s\">\xe2\x80\x94</span> self</div>\n", f);
}

/* Width of the row-header column (the table's layout is fixed). */
static double
corner_width(const struct matrix *hm)
{
	size_t i, longest = 12;

	for (i = 0; i < hm->nhosts; i++)
		if (strlen(hm->hosts[i]) > longest)
			longest = strlen(hm->hosts[i]);
	return (double)(longest > 40 ? 40 : longest) * 0.62 + 1;
}

/* Host i begins a new group (not the first): a line goes before it. */
static int
group_starts(const struct matrix *hm, size_t i)
{
	return hm->host_group != NULL && i > 0 &&
	    hm->host_group[i] != hm->host_group[i - 1];
}

/* data-group on every header; data-label on the first of a group. */
static void
put_group_attrs(FILE *f, const struct matrix *hm, size_t i)
{
	if (hm->host_group == NULL)
		return;
	fputs(" data-group=\"", f);
	heatmap_html_escape(f, hm->groups[hm->host_group[i]]);
	fputc('"', f);
	if (i == 0 || group_starts(hm, i)) {
		fputs(" data-label=\"", f);
		heatmap_html_escape(f, hm->groups[hm->host_group[i]]);
		fputc('"', f);
	}
}

static void
write_matrix(FILE *f, const struct matrix *hm, const struct matrix_kind *k,
    size_t metric)
{
	const struct matrix_metric *m = metric < k->nmetrics ? &k->metrics[metric] :
	    NULL;
	double lo = 0, hi = 0;	/* read only when have */
	size_t s, t, nb = hm->nhosts > HEATMAP_TABLE_HOSTS ? HEATMAP_BLOCK :
	    hm->nhosts;
	int have;

	have = m != NULL && matrix_metric_range(hm, k, metric, &lo, &hi) == 0;
	if (have)
		heatmap_scale_span(m, &lo, &hi);
	fputs("<h2 id=view-title>", f);
	heatmap_html_escape(f, kind_label(k));
	if (m != NULL) {
		fputs(": ", f);
		heatmap_html_escape(f, m->name);
		if (*m->unit != '\0') {
			fputs(" (", f);
			heatmap_html_escape(f, m->unit);
			fputs(")", f);
		}
	}
	fputs("</h2>\n", f);
	write_legend(f, m, have, lo, hi, hm->sample);
	if (nb < hm->nhosts)
		fprintf(f, "<p class=summary>%zu hosts: the table shows <b "
		    "id=block>rows 1-%zu, columns 1-%zu of %zu</b>; click a "
		    "place in an overview below (every kind side by side, a "
		    "pixel per pair) to show the block around it, or read the "
		    "site summaries.</p>\n", hm->nhosts, nb, nb, hm->nhosts);
	fputs("<div class=scroll><table class=mx id=matrix>", f);
	if (hm->host_group != NULL) {
		/* Lines between groups: a collapsed border on the first
		 * column and row of each, which the script leaves alone. */
		fputs("<colgroup><col>", f);
		for (t = 0; t < nb; t++)
			fputs(group_starts(hm, t) ? "<col class=gl>" : "<col>",
			    f);
		fputs("</colgroup>", f);
	}
	fprintf(f, "<thead><tr><th class=corner style=\"width:%.1fem\">source "
	    "\xe2\x86\x93 target \xe2\x86\x92</th>", corner_width(hm));
	for (t = 0; t < nb; t++) {
		fputs("<th scope=col", f);
		put_group_attrs(f, hm, t);
		fputc('>', f);
		heatmap_html_escape(f, hm->hosts[t]);
		fputs("</th>", f);
	}
	fputs("</tr></thead>\n<tbody>\n", f);
	for (s = 0; s < nb; s++) {
		fputs(group_starts(hm, s) ? "<tr class=gt>" : "<tr>", f);
		fputs("<th scope=row", f);
		put_group_attrs(f, hm, s);
		fputc('>', f);
		heatmap_html_escape(f, hm->hosts[s]);
		fputs("</th>", f);
		for (t = 0; t < nb; t++)
			render_cell(f, matrix_cell_at(hm, k, s, t), m,
			    m != NULL ? metric : SIZE_MAX, lo, hi);
		fputs("</tr>\n", f);
	}
	fputs("</tbody></table></div>\n", f);
}

/* A site block's pairs without a record (a sample's not measured). */
static void
put_unmeasured(FILE *f, const struct site_cell *c)
{
	if (c->nvalues + c->nfailed < c->npairs)
		fprintf(f, "<br>%zu not measured",
		    c->npairs - c->nvalues - c->nfailed);
}

static void
write_site_table(FILE *f, const struct matrix *hm, const struct matrix_kind *k,
    size_t metric, const struct site_cell *sc)
{
	const struct matrix_metric *m = &k->metrics[metric];
	double lo = NAN, hi = NAN;
	char buf[32];
	size_t g, h, i;

	for (i = 0; i < hm->ngroups * hm->ngroups; i++) {
		if (isnan(sc[i].median))
			continue;
		if (isnan(lo) || sc[i].median < lo)
			lo = sc[i].median;
		if (isnan(hi) || sc[i].median > hi)
			hi = sc[i].median;
	}
	if (!isnan(lo))
		heatmap_scale_span(m, &lo, &hi);
	fputs("<table class=\"list sites\" data-kind=\"", f);
	heatmap_html_escape(f, k->name);
	fputs("\"><caption>", f);
	heatmap_html_escape(f, kind_label(k));
	fputs(": ", f);
	heatmap_html_escape(f, m->name);
	if (*m->unit != '\0') {
		fputs(" (", f);
		heatmap_html_escape(f, m->unit);
		fputc(')', f);
	}
	fputs("</caption><thead><tr><th>source site \xe2\x86\x93 target "
	    "\xe2\x86\x92</th>", f);
	for (h = 0; h < hm->ngroups; h++) {
		fputs("<th>", f);
		heatmap_html_escape(f, hm->groups[h]);
		fputs("</th>", f);
	}
	fputs("</tr></thead><tbody>\n", f);
	for (g = 0; g < hm->ngroups; g++) {
		fputs("<tr><th>", f);
		heatmap_html_escape(f, hm->groups[g]);
		fputs("</th>", f);
		for (h = 0; h < hm->ngroups; h++) {
			const struct site_cell *c = &sc[g * hm->ngroups + h];

			if (c->npairs == 0) {
				fputs("<td class=s>\xe2\x80\x94</td>", f);
				continue;
			}
			if (c->nvalues == 0 && c->nfailed == 0) {
				/* none measured (a sample's): missing */
				fprintf(f, "<td class=m>%zu not measured</td>",
				    c->npairs);
				continue;
			}
			if (c->nvalues == 0) {
				fprintf(f, "<td class=f>%zu of %zu failed",
				    c->nfailed, c->npairs);
				put_unmeasured(f, c);
				fputs("</td>", f);
				continue;
			}
			heatmap_format_value(c->median, buf, sizeof buf);
			fprintf(f, "<td class=\"v q%ld\" data-worst=\"",
			    lround(heatmap_badness(c->median, lo, hi,
			    m->higher_better, 0) * COLOR_STEPS));
			heatmap_html_escape(f, hm->hosts[c->worst_src]);
			fputs(" \xe2\x86\x92 ", f);
			heatmap_html_escape(f, hm->hosts[c->worst_tgt]);
			fprintf(f, "\"><b>%s</b><br><small>worst ", buf);
			heatmap_html_escape(f, hm->hosts[c->worst_src]);
			fputs("\xe2\x86\x92", f);
			heatmap_html_escape(f, hm->hosts[c->worst_tgt]);
			heatmap_format_value(c->worst, buf, sizeof buf);
			fprintf(f, " %s", buf);
			if (c->nfailed > 0)
				fprintf(f, "<br>%zu failed", c->nfailed);
			put_unmeasured(f, c);
			fputs("</small></td>", f);
		}
		fputs("</tr>\n", f);
	}
	fputs("</tbody></table>\n", f);
}

/* The groups, their hosts, and a site x site summary of every kind. */
static int
write_sites(FILE *f, const struct matrix *hm)
{
	struct site_cell *sc;
	size_t g, i, k;
	int rc, first;

	if (hm->ngroups == 0)
		return 0;
	fputs("<section id=sites><h2>Sites</h2>\n<p class=summary>", f);
	if (strcmp(hm->group_by, "site") == 0)
		fputs("Grouped by machines.json's <code>site</code>.", f);
	else {
		fputs("No site given: grouped by average-linkage clusters of "
		    "the ", f);
		heatmap_html_escape(f, hm->group_basis);
		fputs(" round trips (--group-rtt sets how far apart hosts of "
		    "one cluster may be).", f);
	}
	fputs(" Each cell: the median over the site pair's host pairs, its "
	    "worst pair and failures.</p>\n<ul id=site-groups>", f);
	for (g = 0; g < hm->ngroups; g++) {
		fputs("<li data-group=\"", f);
		heatmap_html_escape(f, hm->groups[g]);
		fputs("\"><b>", f);
		heatmap_html_escape(f, hm->groups[g]);
		fputs("</b>:", f);
		first = 1;
		for (i = 0; i < hm->nhosts; i++) {
			if (hm->host_group[i] != g)
				continue;
			fputs(first ? " " : ", ", f);
			heatmap_html_escape(f, hm->hosts[i]);
			first = 0;
		}
		fputs("</li>", f);
	}
	fputs("</ul>\n<div class=multiples>\n", f);
	if (hm->ngroups > HEATMAP_SITES_MAX)
		fprintf(f, "<p class=summary>%zu groups: no site &times; site "
		    "table above %d (<code>--text</code> lists every site "
		    "pair).</p>\n", hm->ngroups, HEATMAP_SITES_MAX);
	for (k = 0; k < hm->nkinds && hm->ngroups <= HEATMAP_SITES_MAX; k++) {
		const struct matrix_kind *kind = &hm->kinds[k];
		size_t m = kind->default_metric;

		if (m >= kind->nmetrics)
			continue;
		if ((rc = heatmap_site_summary(hm, kind, m, &sc)) != 0)
			return rc;
		write_site_table(f, hm, kind, m, sc);
		free(sc);
	}
	fputs("</div></section>\n", f);
	return 0;
}

/* A canvas per kind, drawn by the script (hidden without it). */
static void
write_multiples(FILE *f, const struct matrix *hm)
{
	size_t k;

	if (hm->nkinds == 0)
		return;
	fputs("<section id=multiples hidden><h2>Every kind side by side</h2>"
	    "<p class=summary>The same hosts in the same order, each kind "
	    "with its own scale (its default metric); hover a cell to see "
	    "the pair in every kind.</p><div class=multiples>\n", f);
	for (k = 0; k < hm->nkinds; k++) {
		const struct matrix_kind *kind = &hm->kinds[k];

		fprintf(f, "<figure class=mult><figcaption>");
		heatmap_html_escape(f, kind->derived ? kind->name : kind_label(kind));
		if (kind->default_metric < kind->nmetrics) {
			fputs(": ", f);
			heatmap_html_escape(f, kind->metrics[kind->default_metric].name);
		}
		fprintf(f, "</figcaption><canvas class=mult data-k=%zu "
		    "data-kind=\"", k);
		heatmap_html_escape(f, kind->name);
		fputs("\"></canvas></figure>\n", f);
	}
	fputs("</div></section>\n", f);
}

/* --compare: the pairs that got worse, worst first. */
static void
write_worse(FILE *f, const struct matrix *hm)
{
	char a[32], b[32];
	size_t i;

	if (!hm->compared)
		return;
	fprintf(f, "<section id=compare><h2>Compared with the old run: %zu "
	    "pair%s worse</h2>\n<p class=summary>Worse by %.2f\xc3\x97 and by "
	    "the metric's floor (1 ms for latencies), or failed where it "
	    "worked; the <b>change</b> view colours every pair by how many "
	    "times worse it got (above 1 is worse).</p>\n", hm->nworse,
	    PLURAL(hm->nworse), HEATMAP_WORSE_RATIO);
	if (hm->nworse == 0) {
		fputs("<p>No pair got worse.</p></section>\n", f);
		return;
	}
	fputs("<table class=list id=worse-table><thead><tr><th>kind</th>"
	    "<th>source</th><th>target</th><th>metric</th><th>before</th>"
	    "<th>now</th><th>worse</th></tr></thead><tbody>\n", f);
	for (i = 0; i < hm->nworse && i < FAILURE_ROWS_SHOWN; i++) {
		const struct matrix_worse *w = &hm->worse[i];
		const struct matrix_kind *k = &hm->kinds[w->kind];
		const struct matrix_metric *m = &k->metrics[k->default_metric];

		heatmap_format_value(w->before, a, sizeof a);
		heatmap_format_value(w->after, b, sizeof b);
		fputs("<tr><td>", f);
		heatmap_html_escape(f, k->name);
		fputs("</td><td>", f);
		heatmap_html_escape(f, hm->hosts[w->src]);
		fputs("</td><td>", f);
		heatmap_html_escape(f, hm->hosts[w->tgt]);
		fputs("</td><td>", f);
		heatmap_html_escape(f, m->name);
		fprintf(f, "</td><td>%s ", a);
		heatmap_html_escape(f, m->unit);
		if (isinf(w->factor))
			fputs("</td><td class=f>failed</td><td>"
			    "\xe2\x80\x94</td></tr>\n", f);
		else {
			fprintf(f, "</td><td>%s ", b);
			heatmap_html_escape(f, m->unit);
			fprintf(f, "</td><td>%.2f\xc3\x97</td></tr>\n",
			    w->factor);
		}
	}
	fputs("</tbody></table>\n", f);
	if (hm->nworse > FAILURE_ROWS_SHOWN)
		fprintf(f, "<p>%zu more rows not shown; netprof heatmap --text "
		    "lists them all.</p>\n", hm->nworse - FAILURE_ROWS_SHOWN);
	fputs("</section>\n", f);
}

/* Cells of a finding that link to the matrix (data-cells). */
#define DIAG_CELLS_LINKED 100
/* Findings on the page; --diagnosis-json has all. */
#define DIAG_FINDINGS_SHOWN 100

/*
 * The findings, first on the page: each with its place, evidence, score
 * and why, what to try, and its cells, which a click shows in the matrix
 * (data-cells: "kind.cell" for kind index and src * N + tgt).
 */
static void
write_diagnosis(FILE *f, const struct matrix *hm, const struct diagnosis *dx)
{
	char line[512];
	size_t i, j;

	fputs("<section id=diagnosis><h2>Diagnosis</h2>\n", f);
	if (dx->nfindings == 0) {
		fputs("<p class=summary>Nothing wrong found: no failure, and "
		    "no host, site or pair off its site pair's typical value."
		    "</p></section>\n", f);
		return;
	}
	fprintf(f, "<p class=summary>%zu finding%s, most likely first (by "
	    "severity, then score); a finding's <i>show</i> marks its cells "
	    "in the matrix.</p>\n<ol class=findings>\n", dx->nfindings,
	    PLURAL(dx->nfindings));
	for (i = 0; i < dx->nfindings && i < DIAG_FINDINGS_SHOWN; i++) {
		const struct finding *x = &dx->findings[i];

		fprintf(f, "<li class=\"finding sev-%s\" data-rule=%s "
		    "data-rank=%zu data-cells=\"", heatmap_severity_name(
		    x->severity), x->rule, i + 1);
		for (j = 0; j < x->ncells && j < DIAG_CELLS_LINKED; j++)
			fprintf(f, "%s%zu.%zu", j ? " " : "", x->cells[j].kind,
			    x->cells[j].src * hm->nhosts + x->cells[j].tgt);
		fprintf(f, "\"><b class=sev>%s</b> <span class=title>",
		    heatmap_severity_name(x->severity));
		heatmap_html_escape(f, x->title);
		fputs("</span>", f);
		if (x->worse > 0 && isinf(x->worse))
			fputs(" <i>(failed since the old run)</i>", f);
		else if (x->worse > 0)
			fprintf(f, " <i>(%.2f\xc3\x97 worse than the old "
			    "run)</i>", x->worse);
		if (x->ncells > 0)
			fputs(" <button type=button class=show>show</button>", f);
		fputs("<p class=evidence>", f);
		heatmap_html_escape(f, x->evidence);
		fputs("</p><p class=why>", f);
		heatmap_html_escape(f, x->why);
		fputs("</p><p class=advice><b>Try:</b> ", f);
		heatmap_html_escape(f, x->advice);
		fprintf(f, "</p><details><summary>%zu cell%s</summary><ul>",
		    x->ncells + x->cells_more, PLURAL(x->ncells +
		    x->cells_more));
		for (j = 0; j < x->ncells && j < DIAG_ITEMS_SHOWN; j++) {
			heatmap_dx_cell_text(hm, &x->cells[j], line,
			    sizeof line);
			fputs("<li>", f);
			heatmap_html_escape(f, line);
			fputs("</li>", f);
		}
		if (x->ncells + x->cells_more > DIAG_ITEMS_SHOWN)
			fprintf(f, "<li>\xe2\x80\xa6 and %zu more (netprof "
			    "heatmap --diagnosis-json lists up to %d)</li>",
			    x->ncells + x->cells_more - DIAG_ITEMS_SHOWN,
			    DIAGNOSE_CELLS_MAX);
		fputs("</ul></details></li>\n", f);
	}
	fputs("</ol>", f);
	if (dx->nfindings > DIAG_FINDINGS_SHOWN)
		fprintf(f, "<p>%zu more findings not shown; netprof heatmap "
		    "--diagnosis-json lists them all.</p>", dx->nfindings -
		    DIAG_FINDINGS_SHOWN);
	fputs("</section>\n", f);
}

/*
 * The failures table. heatmap_text.c writes the same rows as text: the
 * rows come from one place (heatmap_failures()); what the two repeat is
 * each format's markup and escaping around the same six cells, which a
 * shared walker would only move behind a callback per cell.
 */
static int
write_failures(FILE *f, const struct matrix *hm)
{
	struct failure_row *rows;
	size_t n, i;
	int rc;

	if ((rc = heatmap_failures(hm, &rows, &n)) != 0)
		return rc;
	fprintf(f, "<section id=failures><h2>Failures (%zu pair%s)</h2>\n", n,
	    PLURAL(n));
	if (n == 0)
		fputs("<p>No failed records.</p>\n", f);
	else
		fputs("<table class=list id=failures-table><thead><tr>"
		    "<th>source</th><th>target</th><th>kind</th>"
		    "<th>count</th><th>error class</th><th>last error</th>"
		    "</tr></thead><tbody>\n", f);
	for (i = 0; i < n && i < FAILURE_ROWS_SHOWN; i++) {
		const struct matrix_failure *last = rows[i].cell->last_failed;

		fputs("<tr><td>", f);
		heatmap_html_escape(f, hm->hosts[rows[i].src]);
		fputs("</td><td>", f);
		heatmap_html_escape(f, hm->hosts[rows[i].tgt]);
		fputs("</td><td>", f);
		heatmap_html_escape(f, rows[i].kind->name);
		fprintf(f, "</td><td>%d of %d</td><td>", rows[i].cell->nfail,
		    rows[i].cell->count);
		heatmap_html_escape(f, last->error_class);
		fputs("</td><td class=err>", f);
		heatmap_html_escape(f, last->error);
		fputs("</td></tr>\n", f);
	}
	if (n > 0)
		fputs("</tbody></table>\n", f);
	if (n > FAILURE_ROWS_SHOWN)
		fprintf(f, "<p>%zu more rows not shown; netprof heatmap --text "
		    "lists them all.</p>\n", n - FAILURE_ROWS_SHOWN);
	fputs("</section>\n", f);
	free(rows);
	return 0;
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
write_kind_json(FILE *f, const struct matrix *hm, const struct matrix_kind *k,
    double t0, long view_metric, struct err_dict *errs)
{
	size_t n = hm->nhosts * hm->nhosts, i, m;
	static const char state_char[] = { 'm', 'v', 'f', 's' };
	int first, large = errs != NULL;

	fputs("{\"name\":", f);
	heatmap_json_escape(f, k->name);
	fputs(",\"label\":", f);
	heatmap_json_escape(f, kind_label(k));
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
		if (large && m != k->default_metric && (long)m != view_metric) {
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

static void
write_data(FILE *f, const struct matrix *hm, const struct html_options *opt)
{
	double t0 = first_time(hm);
	struct err_dict errs;
	int large = hm->nhosts > HEATMAP_TABLE_HOSTS;
	size_t i;

	fputs("<script type=\"application/json\" id=heatmap-data>{\"title\":",
	    f);
	heatmap_json_escape(f, opt->title);
	fprintf(f, ",\"steps\":%d,\"rel\":%g,\"aggregate\":\"%s\","
	    "\"sample\":%d,\"t0\":", COLOR_STEPS, HEATMAP_SPAN_REL,
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
		write_kind_json(f, hm, &hm->kinds[i], t0, i == opt->kind ?
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

static void
write_head(FILE *f, const struct matrix *hm, const struct html_options *opt)
{
	size_t records, failed, kinds = 0, i;
	unsigned char rgb[3];
	char when[40];

	matrix_totals(hm, &records, &failed);
	for (i = 0; i < hm->nkinds; i++)
		kinds += !hm->kinds[i].derived;
	fputs("<!DOCTYPE html>\n<html lang=en>\n<head>\n<meta charset=utf-8>\n"
	    "<meta name=viewport content=\"width=device-width, "
	    "initial-scale=1\">\n<title>", f);
	heatmap_html_escape(f, opt->title);
	fprintf(f, "</title>\n<style>\n%s", heatmap_page_style);
	for (i = 0; i <= COLOR_STEPS; i++) {
		heatmap_color((double)i / COLOR_STEPS, rgb);
		fprintf(f, ".q%zu{background:#%02x%02x%02x}", i, rgb[0], rgb[1],
		    rgb[2]);
	}
	fputs("\n</style>\n</head>\n<body>\n<h1>", f);
	heatmap_html_escape(f, opt->title);
	fprintf(f, "</h1>\n<p class=summary>%zu host%s \xc2\xb7 %zu kind%s "
	    "\xc2\xb7 %zu record%s \xc2\xb7 %zu failed \xc2\xb7 %s \xc2\xb7 "
	    "written %s</p>\n", hm->nhosts, PLURAL(hm->nhosts), kinds,
	    PLURAL(kinds), records, PLURAL(records), failed,
	    hm->aggregate == MATRIX_MEDIAN ?
	    "median of the ok records per pair" : "latest record per pair",
	    time_iso8601(opt->generated, when, sizeof when));
	if (hm->left_out > 0)
		fprintf(f, "<p class=summary><strong>%zu records left out"
		    "</strong>: a page shows at most %d hosts and %d kinds"
		    "</p>\n", hm->left_out, MATRIX_MAX_HOSTS,
		    MATRIX_MAX_KINDS);
	if (hm->machines_left_out > 0)
		fprintf(f, "<p class=summary><strong>%zu of run.json's "
		    "machines left out</strong>: a page shows at most %d hosts"
		    "</p>\n", hm->machines_left_out, MATRIX_MAX_HOSTS);
	fputs("<nav id=controls hidden>"
	    "<label>Kind <select id=kind></select></label>"
	    "<label>Metric <select id=metric></select></label>"
	    "<label><input type=checkbox id=log> log scale "
	    "(when values span more than 10\xc3\x97)</label></nav>\n", f);
}

int
heatmap_write_html(const struct matrix *hm, const struct diagnosis *dx,
    const struct html_options *opt, FILE *f)
{
	int rc;

	write_head(f, hm, opt);
	write_diagnosis(f, hm, dx);
	fputs("<section id=view>\n", f);
	if (hm->nkinds > 0)
		write_matrix(f, hm, &hm->kinds[opt->kind], opt->metric);
	else
		fputs("<p>No records.</p><table id=matrix><tbody></tbody>"
		    "</table>\n", f);
	fputs("</section>\n", f);
	write_multiples(f, hm);
	heatmap_write_timeline_html(f, hm);
	if ((rc = write_sites(f, hm)) != 0)
		return rc;
	write_worse(f, hm);
	if ((rc = write_failures(f, hm)) != 0)
		return rc;
	fputs("<div id=tip role=tooltip hidden></div>\n", f);
	if (hm->nkinds > 0) {
		write_data(f, hm, opt);
		fprintf(f, "<script>\n%s</script>\n", heatmap_page_script);
	}
	fputs("</body>\n</html>\n", f);
	if (ferror(f))
		return NP_ERR_IO;
	return 0;
}
