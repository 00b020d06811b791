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

/*
 * The two forms records carry (upstream-compatible):
 * time_record_timestamp: "2026-11-30T19:17:32+00:00", UTC, whole seconds,
 *   what upstream writes as "timestamp" (strptime "%Y-%m-%dT%H:%M:%S%z");
 * time_record_precise: "2026-11-30T19:17:32.499+00:00", UTC, milliseconds,
 *   for started_at / ended_at (Python's fromisoformat reads both).
 * TIME_RECORD_SIZE is enough for either. Return buf.
 */
#define TIME_RECORD_SIZE 40
char *time_record_timestamp(double unix_s, char *buf, size_t size);
char *time_record_precise(double unix_s, char *buf, size_t size);

#endif
