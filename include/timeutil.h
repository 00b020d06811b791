/*
 * Clocks and timestamps: wall clock for records, monotonic for durations.
 */
#ifndef NETPROF_TIMEUTIL_H
#define NETPROF_TIMEUTIL_H

#include <stddef.h>
#include <stdint.h>

/* Wall clock, Unix seconds with sub-second part. */
double time_wall(void);
/* Monotonic clock in nanoseconds. */
uint64_t time_mono_ns(void);
/* "2026-05-03T11:37:42.123Z" (UTC, ms) into buf; returns buf. */
char *time_iso8601(double unix_s, char *buf, size_t size);

#endif
