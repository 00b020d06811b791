/*
 * The run's timeline: an inline SVG per bench run.json, one row for the
 * run's phases (netprof's phase_times, or upstream's durations laid end
 * to end), one for the sweep's rounds (a bar per round, from the times of
 * the records that name it), one per host with its steps, failed steps
 * outlined in red and crossed, and a tick per pair whose source is the
 * host, at its latest record's time. In text, each phase's share of the
 * run and the host that took longest in it, and the rounds' summary.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "heatmap_timeline.h"

#define LABEL_W 110
#define PLOT_W 760
#define ROW_H 16
#define BAR_H 10

static const struct {
	const char *phase, *colour;
} phase_colours[] = {
	{ "deploy", "#8c8c8c" }, { "init", "#9ecae1" }, { "discover", "#6baed6" },
	{ "configure", "#c6dbef" }, { "push", "#bcbddc" }, { "start", "#3182bd" },
	{ "converge", "#fd8d3c" }, { "punch", "#fdd0a2" }, { "path", "#fdae6b" },
	{ "sweep", "#74c476" },
	{ "baseline", "#c7e9c0" }, { "teardown", "#969696" },
};

#define NCOLOURS (sizeof phase_colours / sizeof phase_colours[0])

static const char *
colour_of(const char *phase)
{
	size_t i;

	for (i = 0; i < NCOLOURS; i++)
		if (strcmp(phase_colours[i].phase, phase) == 0)
			return phase_colours[i].colour;
	return "#bdbdbd";
}

/* The end of a span: a running one ends with the run. */
static double
span_end(const struct phase_span *s, double total)
{
	return isnan(s->end) || s->end < s->start ? total : s->end;
}

static double
run_length(const struct run_info *run)
{
	double t = 0;
	size_t i, j;

	for (i = 0; i < run->nphases; i++)
		if (!isnan(run->phases[i].end) && run->phases[i].end > t)
			t = run->phases[i].end;
	for (i = 0; i < run->nmachines; i++)
		for (j = 0; j < run->nhost_phases[i]; j++) {
			const struct phase_span *s = &run->host_phases[i][j];

			if (!isnan(s->end) && s->end > t)
				t = s->end;
			if (s->start > t)
				t = s->start;
		}
	if (!isnan(run->started_at) && !isnan(run->ended_at) &&
	    run->ended_at - run->started_at > t)
		t = run->ended_at - run->started_at;
	return t;
}

static void
put_bar(FILE *f, const char *host, const struct phase_span *s, double total,
    double y)
{
	double x0 = LABEL_W + s->start / total * PLOT_W;
	double w = (span_end(s, total) - s->start) / total * PLOT_W;
	char a[32], b[32];

	if (w < 1)
		w = 1;
	heatmap_format_value(s->start, a, sizeof a);
	heatmap_format_value(span_end(s, total), b, sizeof b);
	fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%d\" "
	    "fill=\"%s\"%s data-phase=\"", x0, y, w, BAR_H, colour_of(s->phase),
	    s->failed ? " class=failed stroke=\"#c00\" stroke-width=\"2\"" : "");
	heatmap_html_escape(f, s->phase);
	fputs("\" data-host=\"", f);
	heatmap_html_escape(f, host);
	fputs("\"><title>", f);
	heatmap_html_escape(f, host);
	fputc(' ', f);
	heatmap_html_escape(f, s->phase);
	fprintf(f, ": %s .. %s s%s%s</title></rect>", a, b,
	    isnan(s->end) ? " (still running)" : "",
	    s->failed ? ", failed" : "");
	if (s->failed)
		fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" fill=\"#c00\" "
		    "font-size=\"11\">\xe2\x9c\x95</text>", x0 + w + 2,
		    y + BAR_H);
}

/*
 * A tick per pair and kind host measured in the run's span, at the time of
 * the pair's latest record (the records are folded into their cells).
 */
static size_t
put_ticks(FILE *f, const struct matrix *hm, const struct run_info *run,
    const char *host, double total, double y, size_t budget)
{
	long h = matrix_host_index(hm, host);
	size_t i, j, n = 0;

	if (isnan(run->started_at) || h < 0)
		return 0;
	for (i = 0; i < hm->nkinds; i++) {
		if (hm->kinds[i].derived)
			continue;
		for (j = 0; j < hm->nhosts && n < budget; j++) {
			const struct matrix_cell *c = matrix_cell_at(hm,
			    &hm->kinds[i], (size_t)h, j);
			double t;

			if (c->count == 0 || isnan(c->time))
				continue;
			t = c->time - run->started_at;
			if (t < 0 || t > total)
				continue;
			fprintf(f, "<rect class=tick x=\"%.1f\" y=\"%.1f\" "
			    "width=\"1\" height=\"4\" fill=\"%s\"></rect>",
			    LABEL_W + t / total * PLOT_W, y + BAR_H + 1,
			    c->state == CELL_FAILED ? "#c00" : "#333");
			n++;
		}
	}
	return n;
}

static void
put_label(FILE *f, double y, const char *text)
{
	fprintf(f, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\" "
	    "font-size=\"11\">", LABEL_W - 6, y + BAR_H);
	heatmap_html_escape(f, text);
	fputs("</text>", f);
}

static void
put_axis(FILE *f, double total, double y)
{
	static const double steps[] = { 1, 2, 5, 10, 15, 30, 60, 120, 300, 600,
	    900, 1800, 3600, 7200, 14400, 43200, 86400 };
	double step = steps[0], t;
	size_t i;

	for (i = 0; i < sizeof steps / sizeof steps[0]; i++) {
		step = steps[i];
		if (total / step <= 10)
			break;
	}
	for (t = 0; t <= total + 1e-9; t += step) {
		double x = LABEL_W + t / total * PLOT_W;

		fprintf(f, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"0\" y2=\"%.1f\" "
		    "stroke=\"#e0e0e0\"></line><text x=\"%.1f\" y=\"%.1f\" "
		    "font-size=\"10\" text-anchor=\"middle\" fill=\"#666\">",
		    x, x, y, x, y + 12);
		if (step >= 60)
			fprintf(f, "%.0f min", t / 60);
		else
			fprintf(f, "%.0f s", t);
		fputs("</text>", f);
	}
}

/* Is round of run (by its records' run_id)? */
static int
round_of_run(const struct matrix_round *d, const struct run_info *run)
{
	if (d->run_id == NULL || run->run_id == NULL)
		return d->run_id == NULL && run->run_id == NULL;
	return strcmp(d->run_id, run->run_id) == 0;
}

static size_t
count_rounds(const struct matrix *hm, const struct run_info *run)
{
	size_t i, n = 0;

	if (isnan(run->started_at))
		return 0;
	for (i = 0; i < hm->nrounds; i++)
		n += round_of_run(&hm->rounds[i], run);
	return n;
}

/* The sweep's rounds, a bar each (from the records' times). */
static void
put_rounds(FILE *f, const struct matrix *hm, const struct run_info *run,
    double total, double y)
{
	size_t i;
	char a[32], b[32];

	put_label(f, y, "rounds");
	for (i = 0; i < hm->nrounds; i++) {
		const struct matrix_round *d = &hm->rounds[i];
		double s = d->start - run->started_at, e = d->end -
		    run->started_at, w;

		if (!round_of_run(d, run) || e < 0 || s > total)
			continue;
		if (s < 0)
			s = 0;
		if (e > total)
			e = total;
		if ((w = (e - s) / total * PLOT_W) < 1)
			w = 1;
		heatmap_format_value(s, a, sizeof a);
		heatmap_format_value(e, b, sizeof b);
		fprintf(f, "<rect class=\"round%s\" data-round=\"%d\" "
		    "x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%d\" "
		    "fill=\"%s\"%s><title>round %d: %s .. %s s, %d record%s, "
		    "%d failed</title></rect>", d->nfail ? " failed" : "",
		    d->round, LABEL_W + s / total * PLOT_W, y, w, BAR_H,
		    d->round % 2 ? "#74c476" : "#a1d99b", d->nfail ?
		    " stroke=\"#c00\" stroke-width=\"1\"" : "", d->round, a, b,
		    d->count, d->count == 1 ? "" : "s", d->nfail);
	}
}

/* Machine index of host in run, or -1. */
static long
machine_of(const struct run_info *run, const char *host)
{
	size_t i;

	for (i = 0; i < run->nmachines; i++)
		if (strcmp(run->machines[i], host) == 0)
			return (long)i;
	return -1;
}

static void
write_run(FILE *f, const struct matrix *hm, const struct run_info *run)
{
	double total = run_length(run), y;
	size_t rows = 1, i, j, ticks = 0, nrounds = count_rounds(hm, run);
	long mi;

	for (i = 0; i < hm->nhosts; i++)
		rows += machine_of(run, hm->hosts[i]) >= 0;
	if (rows > TIMELINE_MAX_ROWS + 1)
		rows = 1;
	rows += nrounds > 0;	/* the sweep's rounds under the run's row */
	fputs("<section class=timeline><h2>Timeline of run ", f);
	heatmap_html_escape(f, run->run_id != NULL ? run->run_id : run->file);
	fprintf(f, "</h2>\n<p class=summary>%.0f s (%.1f min)%s. A row per "
	    "host, a bar per step (failed ones crossed), a tick per pair "
	    "the host measured (its latest record)%s.</p>\n", total,
	    total / 60,
	    run->from_durations ? "; phases from their durations, laid end "
	    "to end (this run.json has no phase_times)" : "", nrounds > 0 ?
	    "; a bar per round of the sweep, from its records' times, "
	    "outlined in red when one failed" : "");
	fprintf(f, "<svg class=timeline width=\"%d\" height=\"%zu\" "
	    "viewBox=\"0 0 %d %zu\" role=img aria-label=\"timeline\">",
	    LABEL_W + PLOT_W + 20, rows * ROW_H + 30, LABEL_W + PLOT_W + 20,
	    rows * ROW_H + 30);
	put_axis(f, total, (double)(rows * ROW_H) + 4);
	put_label(f, 2, "run");
	for (i = 0; i < run->nphases; i++)
		put_bar(f, "run", &run->phases[i], total, 2);
	y = 2 + ROW_H;
	if (nrounds > 0) {
		put_rounds(f, hm, run, total, y);
		y += ROW_H;
	}
	for (i = 0; rows > 1 + (nrounds > 0) && i < hm->nhosts; i++) {
		if ((mi = machine_of(run, hm->hosts[i])) < 0)
			continue;
		fprintf(f, "<g class=host data-host=\"");
		heatmap_html_escape(f, hm->hosts[i]);
		fputs("\">", f);
		put_label(f, y, hm->hosts[i]);
		for (j = 0; j < run->nhost_phases[mi]; j++)
			put_bar(f, hm->hosts[i], &run->host_phases[mi][j], total,
			    y);
		ticks += put_ticks(f, hm, run, hm->hosts[i], total, y,
		    TIMELINE_MAX_TICKS - ticks);
		fputs("</g>", f);
		y += ROW_H;
	}
	fputs("</svg>\n<p class=summary>", f);
	for (i = 0; i < NCOLOURS; i++)
		for (j = 0; j < run->nphases; j++)
			if (strcmp(run->phases[j].phase,
			    phase_colours[i].phase) == 0) {
				fprintf(f, "<span class=sw style=\"background:"
				    "%s\">%s</span> ", phase_colours[i].colour,
				    phase_colours[i].phase);
				break;
			}
	fputs("</p></section>\n", f);
}

void
heatmap_write_timeline_html(FILE *f, const struct matrix *hm)
{
	size_t i;

	for (i = 0; i < hm->input.nruns; i++)
		if (hm->input.runs[i]->nphases > 0 &&
		    run_length(hm->input.runs[i]) > 0)
			write_run(f, hm, hm->input.runs[i]);
}

/* The sweep's rounds: how many, the longest, how many had failures. */
static void
write_rounds_text(FILE *f, const struct matrix *hm,
    const struct run_info *run)
{
	const struct matrix_round *longest = NULL;
	size_t i, n = 0, failed = 0;

	if (count_rounds(hm, run) == 0)
		return;
	for (i = 0; i < hm->nrounds; i++) {
		const struct matrix_round *d = &hm->rounds[i];

		if (!round_of_run(d, run))
			continue;
		n++;
		failed += d->nfail > 0;
		if (longest == NULL || d->end - d->start >
		    longest->end - longest->start)
			longest = d;
	}
	fprintf(f, "  %zu round%s of the sweep, the longest round %d "
	    "(%.1f s), %zu with a failed record\n", n, n == 1 ? "" : "s",
	    longest->round, longest->end - longest->start, failed);
}

void
heatmap_write_timeline_text(FILE *f, const struct matrix *hm)
{
	char a[72], b[72];
	size_t r, i, m, j;

	/* Names from run.json reach the terminal without control bytes. */
	for (r = 0; r < hm->input.nruns; r++) {
		const struct run_info *run = hm->input.runs[r];
		double total = run_length(run);

		if (run->nphases == 0 || !(total > 0))
			continue;
		fprintf(f, "Timeline of run %s: %.0f s (%.1f min)%s\n",
		    heatmap_clean_name(run->run_id != NULL ? run->run_id :
		    run->file, a, sizeof a), total,
		    total / 60, run->from_durations ? ", from the phases' "
		    "durations" : "");
		for (i = 0; i < run->nphases; i++) {
			const struct phase_span *p = &run->phases[i];
			double d = span_end(p, total) - p->start, worst = -1;
			const char *slowest = NULL;

			for (m = 0; m < run->nmachines; m++)
				for (j = 0; j < run->nhost_phases[m]; j++) {
					const struct phase_span *s =
					    &run->host_phases[m][j];
					double sd = span_end(s, total) - s->start;

					if (strcmp(s->phase, p->phase) == 0 &&
					    sd > worst) {
						worst = sd;
						slowest = run->machines[m];
					}
				}
			fprintf(f, "  %-10.10s %8.1f s %5.1f %%",
			    heatmap_clean_name(p->phase, a, sizeof a), d,
			    100 * d / total);
			if (slowest != NULL)
				fprintf(f, "  slowest host %s (%.1f s)",
				    heatmap_clean_name(slowest, b, sizeof b),
				    worst);
			fputc('\n', f);
		}
		write_rounds_text(f, hm, run);
		for (m = 0; m < run->nmachines; m++)
			for (j = 0; j < run->nhost_phases[m]; j++)
				if (run->host_phases[m][j].failed)
					fprintf(f, "  failed: %s %s\n",
					    heatmap_clean_name(run->machines[m], a,
					    sizeof a), heatmap_clean_name(
					    run->host_phases[m][j].phase, b,
					    sizeof b));
		fputc('\n', f);
	}
}
