/*
 * Positions and plain-words descriptions of JSON syntax errors, so that a
 * broken configuration file is reported as "file:3:14: expected ',' or '}'"
 * rather than "parse error".
 */
#ifndef NETPROF_JSON_POS_H
#define NETPROF_JSON_POS_H

#include <stddef.h>

/*
 * Scan text (len bytes) as one JSON value followed only by white space.
 * Returns 0 if it is valid; otherwise NP_ERR_PARSE, with *offset the byte
 * where the first error is and *what a static description ("expected ','
 * or '}'").
 */
int json_find_error(const char *text, size_t len, size_t *offset,
    const char **what);

/* 1-based line and column (in bytes) of offset in text. */
void json_line_column(const char *text, size_t offset, int *line,
    int *column);

#endif
