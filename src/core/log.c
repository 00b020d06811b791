/*
 * Diagnostics on stderr, with a level set once from the command line.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
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

void
log_fputs_safe(const char *s, FILE *f)
{
	const unsigned char *p = (const unsigned char *)s;

	for (; *p != '\0'; p++)
		if ((*p < 0x20 && *p != '\n' && *p != '\t') || *p == 0x7f)
			fprintf(f, "\\x%02x", *p);
		else
			fputc(*p, f);
}

/*
 * Messages carry remote text (a node's error, a command's stderr): its
 * control bytes are shown escaped, so no escape sequence from a host
 * reaches the terminal.
 */
static void
print_safe(FILE *f, const char *fmt, va_list ap)
{
	char *text = NULL;

	if (vasprintf(&text, fmt, ap) < 0)
		return;
	log_fputs_safe(text, f);
	free(text);
}

static void
emit(const char *prefix, const char *fmt, va_list ap)
{
	fputs("netprof: ", stderr);
	fputs(prefix, stderr);
	print_safe(stderr, fmt, ap);
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
	print_safe(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}
