/*
 * Diagnostics on stderr. log_debug() lines appear with -v and tell the story
 * of a run: every state change of a session or transfer, with the host name.
 */
#ifndef NETPROF_LOG_H
#define NETPROF_LOG_H

#include <stdio.h>

enum log_level { LOG_QUIET = 0, LOG_NORMAL = 1, LOG_VERBOSE = 2, LOG_TRACE = 3 };

void log_set_level(enum log_level level);
enum log_level log_get_level(void);
/*
 * The command line's -v (each one more) and -q, in any order: -q alone
 * leaves errors only; with -v the story is told all the same, and -q
 * still leaves out the progress and the summary (log_quiet()).
 */
void log_more_verbose(void);
void log_set_quiet(void);
/* -q was given: no progress line, no summary. */
int log_quiet(void);

/* "netprof: <msg>" — an error the user must read; always shown. */
void log_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* "netprof: warning: <msg>"; hidden by -q. */
void log_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Informational; hidden by -q. */
void log_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* "[time] host: msg" with -v; host may be NULL. */
void log_debug(const char *host, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* The plural ending of a count in a message: "s" unless n is 1. */
#define PLURAL(n) ((n) == 1 ? "" : "s")

/*
 * s on f with its control bytes (C0 but tab, newline included; DEL; C1)
 * and every byte that is not UTF-8 as \xNN.
 */
void log_fputs_safe(const char *s, FILE *f);

#endif
