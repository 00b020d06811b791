/*
 * One line of a records file, as both ways of reading one take it
 * (records_file.c, records_pipe.c): parsed (records_read.c), then handed
 * on or reported (records_input.c); and the members a record and a
 * run.json (records_run.c) read alike.
 */
#ifndef NETPROF_RECORDS_LINE_H
#define NETPROF_RECORDS_LINE_H

#include <stddef.h>

#include "records_read.h"

struct cJSON;

/* obj's string member name, copied; NULL when it is none (or no memory). */
char *record_field_string(const struct cJSON *obj, const char *name);
/* obj's time member name (seconds, or a time as text), NAN when none or
 * beyond what a page's script can show. */
double record_field_time(const struct cJSON *obj, const char *name);

/* record_parse() of a line that is not blank; *out NULL for a blank one. */
int records_line_parse(const char *line, size_t len, struct record **out,
    char **cause);

/*
 * A record read from path:lineno: to in's sink, which borrows it, or kept
 * in in. owned: r came from record_parse() and is freed when not kept.
 */
int records_take(struct record_input *in, struct record *r, int owned,
    const char *path, int lineno);

/* A line that is no record: warned of and skipped, or with strict an
 * error (NP_ERR_PARSE); torn: the file's last, without its newline, begun
 * as an object (--resume skips it). Frees cause. */
int records_malformed(struct record_input *in, const char *path, int lineno,
    char *cause, int strict, int torn);

/* The malformed lines of path not warned of one by one, in one line. */
void records_malformed_unsaid(struct record_input *in, const char *path);

/* The reading stopped after lineno lines by rc: an over-long line
 * (NP_ERR_PARSE) or a read error (NP_ERR_IO, err its errno) reported. */
void records_read_failed(struct record_input *in, int rc, int err,
    const char *path, int lineno);

#endif
