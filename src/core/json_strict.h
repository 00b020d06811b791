/*
 * The two places where cJSON's reading differs from what netprof promises
 * about JSON files other tools wrote: a "\u0000" escape, which cJSON turns
 * into a string cut at the NUL (a host "a\u0000x" would become "a"), and
 * duplicate keys, where cJSON's lookups find the first value but Python's
 * json (the upstream tool's reader) keeps the last.
 */
#ifndef NETPROF_JSON_STRICT_H
#define NETPROF_JSON_STRICT_H

#include <stddef.h>

#include <cjson/cJSON.h>

/*
 * Offset of the first "\u0000" escape inside a string of text (len bytes),
 * or -1 if there is none. Refuse such text: no netprof string may hold NUL.
 */
long json_find_nul(const char *text, size_t len);

/*
 * Remove, in every object of item (recursively), each member whose key
 * appears again later in the same object: the last value wins, as in
 * Python's json. Returns 0 or NP_ERR_NOMEM.
 */
int json_keep_last(cJSON *item);

#endif
