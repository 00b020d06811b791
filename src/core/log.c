/*
 * Diagnostics on stderr, with a level set once from the command line.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "log.h"
#include "utf8.h"

static enum log_level level = LOG_NORMAL;
static int verbose_count, quiet;

void
log_set_level(enum log_level l)
{
	level = l;
}

static void
level_from_line(void)
{
	level = verbose_count > 0 ? (verbose_count >= LOG_TRACE - LOG_NORMAL ?
	    LOG_TRACE : (enum log_level)(LOG_NORMAL + verbose_count)) :
	    quiet ? LOG_QUIET : LOG_NORMAL;
}

void
log_more_verbose(void)
{
	verbose_count++;
	level_from_line();
}

void
log_set_quiet(void)
{
	quiet = 1;
	level_from_line();
}

int
log_quiet(void)
{
	return quiet || level == LOG_QUIET;
}

enum log_level
log_get_level(void)
{
	return level;
}

/*
 * Remote text on the terminal: a character utf8_shown() refuses (a
 * newline too: it would start a line of its own, as netprof's) is shown
 * as \xNN, byte by byte.
 */
void
log_fputs_safe(const char *s, FILE *f)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t left = strlen(s), n, i;

	while (left > 0) {
		if (utf8_shown(p, left, &n))
			fwrite(p, 1, n, f);
		else
			for (i = 0; i < n; i++)
				fprintf(f, "\\x%02x", p[i]);
		p += n;
		left -= n;
	}
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
