/*
 * Summary statistics over samples: the one sort, percentile and median
 * that probes, summaries and the heatmap use.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

void
stats_sort(double *values, size_t n)
{
	if (n > 1)
		qsort(values, n, sizeof *values, cmp_double);
}

double
stats_median(double *values, size_t n)
{
	if (n == 0)
		return NAN;
	stats_sort(values, n);
	return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

double
stats_percentile(const double *sorted, size_t n, double p)
{
	size_t i;

	if (n == 0)
		return 0;
	i = (size_t)llround(p * (double)(n - 1));
	return sorted[i < n ? i : n - 1];
}

void
stats_summarize(double *values, size_t n, struct stats_summary *s)
{
	double sum = 0, var = 0;
	size_t i;

	memset(s, 0, sizeof *s);
	if (n == 0)
		return;
	stats_sort(values, n);
	for (i = 0; i < n; i++)
		sum += values[i];
	s->n = n;
	s->min = values[0];
	s->max = values[n - 1];
	s->avg = sum / (double)n;
	for (i = 0; i < n; i++)
		var += (values[i] - s->avg) * (values[i] - s->avg);
	s->stddev = sqrt(var / (double)n);
	s->p50 = stats_percentile(values, n, 0.50);
	s->p95 = stats_percentile(values, n, 0.95);
}

/*
 * The value of rank k among v's n numbers (no NAN), v reordered so that
 * the ones before k are no larger: a three-way partition, for the many
 * equal values a site pair has.
 */
double
stats_select(double *v, size_t n, size_t k)
{
	size_t lo = 0, hi = n;

	while (hi - lo > 1) {
		double a = v[lo], b = v[lo + (hi - lo) / 2], c = v[hi - 1], p, t;
		size_t lt = lo, i = lo, gt = hi;

		p = a < b ? (b < c ? b : (a < c ? c : a)) :
		    (a < c ? a : (b < c ? c : b));
		while (i < gt) {
			if (v[i] < p) {
				t = v[lt];
				v[lt++] = v[i];
				v[i++] = t;
			} else if (v[i] > p) {
				t = v[--gt];
				v[gt] = v[i];
				v[i] = t;
			} else
				i++;
		}
		if (k < lt)
			hi = lt;
		else if (k >= gt)
			lo = gt;
		else
			return p;
	}
	return v[k];
}

/*
 * stats_median() without its sort (the heatmap's site pairs and the
 * diagnosis's typical values: a site pair of a thousand hosts has a
 * hundred thousand values). The same value: the middle one, or the mean of the two
 * middle ones (the lower is the largest before the upper). A -0 among
 * them is left to the sort, whose order of equal values decides which
 * zero is the middle one.
 */
double
stats_median_select(double *v, size_t n)
{
	double upper, lower;
	size_t i;

	for (i = 0; i < n; i++)
		if (v[i] == 0 && signbit(v[i]))
			return stats_median(v, n);
	if (n == 0)
		return NAN;
	upper = stats_select(v, n, n / 2);
	if (n % 2)
		return upper;
	lower = v[0];
	for (i = 1; i < n / 2; i++)
		if (v[i] > lower)
			lower = v[i];
	return (lower + upper) / 2;
}
