/*
 * Clocks and timestamps.
 */
#include <math.h>
#include <stdio.h>
#include <time.h>

#include "timeutil.h"

double
time_wall(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

uint64_t
time_mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

char *
time_iso8601(double unix_s, char *buf, size_t size)
{
	time_t secs = (time_t)floor(unix_s);
	int ms = (int)((unix_s - (double)secs) * 1000.0);
	struct tm tm;

	if (ms > 999)
		ms = 999;
	gmtime_r(&secs, &tm);
	snprintf(buf, size, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ",
	    tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
	    tm.tm_min, tm.tm_sec, ms);
	return buf;
}

/* unix_s as UTC "YYYY-MM-DDTHH:MM:SS", ".mmm" if with_ms, "+00:00". */
static char *
record_time(double unix_s, int with_ms, char *buf, size_t size)
{
	time_t secs = (time_t)floor(unix_s);
	int ms = (int)((unix_s - (double)secs) * 1000.0);
	struct tm tm;
	char frac[16] = "";

	if (ms > 999)
		ms = 999;
	if (with_ms)
		snprintf(frac, sizeof frac, ".%03d", ms);
	gmtime_r(&secs, &tm);
	snprintf(buf, size, "%04d-%02d-%02dT%02d:%02d:%02d%s+00:00",
	    tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
	    tm.tm_min, tm.tm_sec, frac);
	return buf;
}

char *
time_record_timestamp(double unix_s, char *buf, size_t size)
{
	return record_time(unix_s, 0, buf, size);
}

char *
time_record_precise(double unix_s, char *buf, size_t size)
{
	return record_time(unix_s, 1, buf, size);
}
