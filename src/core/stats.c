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
