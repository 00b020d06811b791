/*
 * Summary statistics over samples, in one place: the contract's percentile
 * rule for the p50/p95 of a probe's samples (percentile p is the sample at
 * index round(p*(n-1)) of the sorted samples), and the median (the mean of
 * the two middle values for an even count) for aggregating records.
 */
#ifndef NETPROF_STATS_H
#define NETPROF_STATS_H

#include <stddef.h>

struct stats_summary {
	size_t n;
	double min, avg, max, p50, p95, stddev;
};

/* Sorts values in place and fills *s; n may be 0 (all fields 0). */
void stats_summarize(double *values, size_t n, struct stats_summary *s);

/* Percentile p (0..1) of sorted values; 0 when n is 0. */
double stats_percentile(const double *sorted, size_t n, double p);

/* Sort values in place, ascending. */
void stats_sort(double *values, size_t n);

/* The median of values (sorted in place); NAN when n is 0. */
double stats_median(double *values, size_t n);

/*
 * The value of rank k (from 0) among the n values (no NAN), which are
 * reordered so that those before k are no larger: a selection, no sort.
 */
double stats_select(double *values, size_t n, size_t k);

/* stats_median()'s value without a full sort (values reordered). */
double stats_median_select(double *values, size_t n);

#endif
