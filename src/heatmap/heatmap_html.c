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
#include "heatmap_advise.h"
#include "heatmap_html.h"
#include "heatmap_page.h"
#include "heatmap_relative.h"
#include "matrix_sites.h"
#include "heatmap_timeline.h"
#include "log.h"
#include "timeutil.h"
#include "util.h"

#define DIAG_ITEMS_SHOWN 100
#define FAILURE_ROWS_SHOWN 250

/*
 * The page's stylesheet and script are page.css and page.js beside this
 * file (heatmap_page.h). The script mirrors heatmap_badness() and uses the
 * same colour classes so a switched view is coloured like the
 * server-rendered one; its comments use the block form only: the page must
 * not contain "//" (page_embed.cmake refuses a file that does).
 */

/* One cell of the server-rendered view: a value, or a marked state;
 * coloured by rel (its badness against its site pair's typical value)
 * unless NAN, else on the raw scale lo .. hi. */
static void
render_cell(FILE *f, const struct matrix_cell *c, const struct matrix_metric *m,
    size_t metric, double lo, double hi, double rel)
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
	if (isnan(rel))
		rel = heatmap_badness(v, lo, hi, m->higher_better, 0);
	fprintf(f, "<td class=\"v q%ld\">%s</td>", lround(rel * COLOR_STEPS),
	    buf);
}

/*
 * The legend: which scale the colours are on (against the site pair's
 * typical value of rel_metric, or the raw one: the view's best to worst),
 * its ends, the unit, the direction and the marks. page.js's legend() says
 * the same.
 */
static void
write_legend(FILE *f, const struct matrix_metric *m, int have, double lo,
    double hi, int sample, const char *rel_metric)
{
	char best[32] = "-", worst[32] = "-";

	if (have && m != NULL) {
		heatmap_format_value(m->higher_better ? hi : lo, best,
		    sizeof best);
		heatmap_format_value(m->higher_better ? lo : hi, worst,
		    sizeof worst);
	}
	fputs("<div id=legend><span id=lg-scale>colour: ", f);
	if (rel_metric != NULL) {
		heatmap_html_escape(f, rel_metric);
		fputs(" against its site pair's typical value (the "
		    "diagnosis')</span><span id=lg-lo>typical or better", f);
	} else
		fprintf(f, "the view's best to its worst</span>"
		    "<span id=lg-lo>best <b>%s</b>", best);
	fputs("</span><svg width=200 height=14 viewBox=\"0 0 200 14\" "
	    "role=img aria-label=\"colour scale from best to worst\">"
	    "<defs><linearGradient id=lg-grad>"
	    "<stop offset=0 stop-color=\"#1a9850\"></stop>"
	    "<stop offset=0.5 stop-color=\"#fee08b\"></stop>"
	    "<stop offset=1 stop-color=\"#d73027\"></stop>"
	    "</linearGradient></defs>"
	    "<rect width=200 height=14 fill=\"url(#lg-grad)\"></rect></svg>"
	    "<span id=lg-hi>", f);
	if (rel_metric != NULL)
		fputs("twice typical: orange; named by the diagnosis: red", f);
	else
		fprintf(f, "worst <b>%s</b>", worst);
	fputs("</span>", f);
	fputs("<span>unit: <b id=lg-unit>", f);
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
write_matrix(FILE *f, const struct matrix *hm, size_t kind, size_t metric,
    const struct heatmap_relative *rel)
{
	const struct matrix_kind *k = &hm->kinds[kind];
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
	heatmap_html_escape(f, heatmap_kind_label(k));
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
	write_legend(f, m, have, lo, hi, hm->sample,
	    heatmap_relative_metric(rel, kind));
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
			    m != NULL ? metric : SIZE_MAX, lo, hi,
			    heatmap_relative_badness(rel, kind, s, t));
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

/*
 * Per site pair (g * g) the worst of its cells against their typical
 * value (kind ki's scale): NAN where none is on it. NULL: the kind has no
 * such scale, or out of memory (the raw scale then).
 */
static double *
site_worst(const struct matrix *hm, const struct heatmap_relative *rel,
    size_t ki)
{
	size_t g = hm->ngroups, s, t, i;
	double *w, b;

	if (heatmap_relative_metric(rel, ki) == NULL ||
	    (w = malloc((g * g + 1) * sizeof *w)) == NULL)
		return NULL;
	for (i = 0; i < g * g; i++)
		w[i] = NAN;
	for (s = 0; s < hm->nhosts; s++) {
		for (t = 0; t < hm->nhosts; t++) {
			b = s == t ? NAN : heatmap_relative_badness(rel, ki, s, t);
			i = hm->host_group[s] * g + hm->host_group[t];
			if (!isnan(b) && (isnan(w[i]) || b > w[i]))
				w[i] = b;
		}
	}
	return w;
}

/*
 * A site x site table of kind k: each cell coloured, as the matrix is, by
 * its worst pair against the site pair's typical value where the kind has
 * that scale (data-qraw: the medians against each other, the page's raw
 * scale), else by the medians against each other.
 */
static void
write_site_table(FILE *f, const struct matrix *hm, const struct matrix_kind *k,
    size_t metric, const struct site_cell *sc, const double *worst)
{
	const struct matrix_metric *m = &k->metrics[metric];
	double lo = NAN, hi = NAN;
	char buf[32];
	size_t g, h, i;
	long q;

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
	heatmap_html_escape(f, heatmap_kind_label(k));
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
			q = lround(heatmap_badness(c->median, lo, hi,
			    m->higher_better, 0) * COLOR_STEPS);
			if (worst != NULL && !isnan(worst[g * hm->ngroups + h]))
				fprintf(f, "<td class=\"v q%ld\" data-qraw=%ld "
				    "data-qrel=%ld data-worst=\"",
				    lround(worst[g * hm->ngroups + h] *
				    COLOR_STEPS), q, lround(worst[g *
				    hm->ngroups + h] * COLOR_STEPS));
			else
				fprintf(f, "<td class=\"v q%ld\" data-worst=\"",
				    q);
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
write_sites(FILE *f, const struct matrix *hm,
    const struct heatmap_relative *rel)
{
	struct site_cell *sc;
	double *worst;
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
	    "worst pair and failures, coloured as the matrix is: by its "
	    "worst pair against the site pair's typical value, or on the "
	    "raw scale the medians against each other.</p>\n"
	    "<ul id=site-groups>", f);
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
	if (hm->ngroups > MATRIX_SITES_MAX)
		fprintf(f, "<p class=summary>%zu groups: no site &times; site "
		    "table above %d (<code>--text</code> lists every site "
		    "pair).</p>\n", hm->ngroups, MATRIX_SITES_MAX);
	for (k = 0; k < hm->nkinds && hm->ngroups <= MATRIX_SITES_MAX; k++) {
		const struct matrix_kind *kind = &hm->kinds[k];
		size_t m = kind->default_metric;

		if (m >= kind->nmetrics)
			continue;
		if ((rc = matrix_sites_summary(hm, kind, m, &sc)) != 0)
			return rc;
		worst = site_worst(hm, rel, k);
		write_site_table(f, hm, kind, m, sc, worst);
		free(worst);
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
		heatmap_html_escape(f, kind->derived ? kind->name : heatmap_kind_label(kind));
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
		    "data-rank=%zu data-cells=\"", diagnose_severity_name(
		    x->severity), x->rule, i + 1);
		for (j = 0; j < x->ncells && j < DIAG_CELLS_LINKED; j++)
			fprintf(f, "%s%zu.%zu", j ? " " : "", x->cells[j].kind,
			    x->cells[j].src * hm->nhosts + x->cells[j].tgt);
		fprintf(f, "\"><b class=sev>%s</b> <span class=title>",
		    diagnose_severity_name(x->severity));
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
			diagnose_cell_text(hm, &x->cells[j], line,
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

/* The failures table's head: its section, the table's or that it has none. */
static void
failures_head(FILE *f, size_t n)
{
	fprintf(f, "<section id=failures><h2>Failures (%zu pair%s)</h2>\n", n,
	    PLURAL(n));
	if (n == 0)
		fputs("<p>No failed records.</p>\n", f);
	else
		fputs("<table class=list id=failures-table><thead><tr>"
		    "<th>source</th><th>target</th><th>kind</th>"
		    "<th>count</th><th>error class</th><th>last error</th>"
		    "</tr></thead><tbody>\n", f);
}

static void
failures_tail(FILE *f, size_t n)
{
	if (n > 0)
		fputs("</tbody></table>\n", f);
	if (n > FAILURE_ROWS_SHOWN)
		fprintf(f, "<p>%zu more rows not shown; netprof heatmap --text "
		    "lists them all.</p>\n", n - FAILURE_ROWS_SHOWN);
	fputs("</section>\n", f);
}

static const struct failure_format html_failures = {
	failures_head, heatmap_html_escape, { "<tr><td>", "</td><td>",
	"</td><td>", "</td><td>", "</td><td>", "</td><td class=err>",
	"</td></tr>\n" }, " of ", FAILURE_ROWS_SHOWN, failures_tail
};

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
	    "(when values span more than 10\xc3\x97)</label>"
	    "<label><input type=checkbox id=raw> raw scale (the view's best "
	    "to worst, not against the site pair's typical value)</label>"
	    "</nav>\n", f);
}

int
heatmap_write_html(const struct matrix *hm, const struct diagnosis *dx,
    const struct html_options *opt, FILE *f)
{
	struct heatmap_relative rel;
	int rc;

	if ((rc = heatmap_relative_build(&rel, hm, dx)) != 0)
		return rc;
	write_head(f, hm, opt);
	write_diagnosis(f, hm, dx);
	fputs("<section id=view>\n", f);
	/* the relay advice, beside the path view (page.js shows it with it) */
	if (hm->nkinds > 0 && (rc = heatmap_advice_html(hm, opt->advice,
	    hm->kinds[opt->kind].derived &&
	    strcmp(hm->kinds[opt->kind].name, "path") == 0, f)) != 0)
		goto out;
	if (hm->nkinds > 0)
		write_matrix(f, hm, opt->kind, opt->metric, &rel);
	else
		fputs("<p>No records.</p><table id=matrix><tbody></tbody>"
		    "</table>\n", f);
	fputs("</section>\n", f);
	write_multiples(f, hm);
	heatmap_write_timeline_html(f, hm);
	if ((rc = write_sites(f, hm, &rel)) != 0)
		goto out;
	write_worse(f, hm);
	if ((rc = heatmap_failures(f, hm, &html_failures)) != 0)
		goto out;
	fputs("<div id=tip role=tooltip hidden></div>\n", f);
	if (hm->nkinds > 0) {
		heatmap_html_data(f, hm, opt, &rel);
		fprintf(f, "<script>\n%s</script>\n", heatmap_page_script);
	}
	fputs("</body>\n</html>\n", f);
	rc = ferror(f) ? NP_ERR_IO : 0;
out:
	heatmap_relative_free(&rel);
	return rc;
}
