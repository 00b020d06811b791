/*
 * The heatmap's colour scale: how bad a value is between the best and the
 * worst of its metric (lower or higher better, as the matrix describes it:
 * matrix_metric.c), over at least the metric's floor, and its colour. The
 * page's script applies the same rules to the views it switches to, so
 * keep page.js (the page's
 * script) in step with heatmap_badness() and heatmap_color().
 */
#include <math.h>
#include <string.h>

#include "heatmap.h"
#include "util.h"

void
heatmap_scale_span(const struct matrix_metric *m, double *lo, double *hi)
{
	double need = HEATMAP_SPAN_REL * fmax(fabs(*lo), fabs(*hi));

	if (need < m->span_min)
		need = m->span_min;
	if (*hi - *lo >= need)
		return;
	if (m->higher_better)
		*lo = *hi - need;
	else
		*hi = *lo + need;
}

double
heatmap_badness(double value, double lo, double hi, int higher_better,
    int use_log)
{
	double t;

	if (isnan(value) || !(hi > lo))
		return 0;
	if (use_log && lo > 0 && value > 0)
		t = (log(value) - log(lo)) / (log(hi) - log(lo));
	else
		t = (value - lo) / (hi - lo);
	if (t < 0)
		t = 0;
	if (t > 1)
		t = 1;
	return higher_better ? 1 - t : t;
}

void
heatmap_color(double badness, unsigned char rgb[3])
{
	static const unsigned char stops[3][3] = {
		{ 26, 152, 80 },	/* green: best */
		{ 254, 224, 139 },	/* yellow */
		{ 215, 48, 39 },	/* red: worst */
	};
	const unsigned char *a, *b;
	double t;
	int i;

	if (isnan(badness) || badness < 0)
		badness = 0;
	if (badness > 1)
		badness = 1;
	if (badness <= 0.5) {
		a = stops[0];
		b = stops[1];
		t = badness * 2;
	} else {
		a = stops[1];
		b = stops[2];
		t = (badness - 0.5) * 2;
	}
	for (i = 0; i < 3; i++)
		rgb[i] = (unsigned char)lround(a[i] + (b[i] - a[i]) * t);
}
