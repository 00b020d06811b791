/*
 * Diagnostics on stderr, with a level set once from the command line.
 */
#include <stdarg.h>
#include <stdio.h>
#include <time.h>

#include "log.h"

static enum log_level level = LOG_NORMAL;

void
log_set_level(enum log_level l)
{
	level = l;
}

enum log_level
log_get_level(void)
{
	return level;
}

static void
emit(const char *prefix, const char *fmt, va_list ap)
{
	fputs("netprof: ", stderr);
	fputs(prefix, stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

void
log_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	emit("", fmt, ap);
	va_end(ap);
}

void
log_warn(const char *fmt, ...)
{
	va_list ap;

	if (level < LOG_NORMAL)
		return;
	va_start(ap, fmt);
	emit("warning: ", fmt, ap);
	va_end(ap);
}

void
log_info(const char *fmt, ...)
{
	va_list ap;

	if (level < LOG_NORMAL)
		return;
	va_start(ap, fmt);
	emit("", fmt, ap);
	va_end(ap);
}

void
log_debug(const char *host, const char *fmt, ...)
{
	struct timespec ts;
	va_list ap;

	if (level < LOG_VERBOSE)
		return;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	fprintf(stderr, "[%5lld.%03ld] %s: ", (long long)ts.tv_sec,
	    ts.tv_nsec / 1000000, host != NULL ? host : "-");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}
