/*
 * What the writers of JSON files share (the records, run.json): objects
 * in the key order of Python's json.dumps(sort_keys=True), the order
 * upstream's files have (every object's members by the byte value of
 * their names, recursively, so that files from either tool line up field
 * by field and a diff shows values, not order), and a string member that
 * is null when there is none.
 */
#ifndef NETPROF_JSON_WRITE_H
#define NETPROF_JSON_WRITE_H

#include <cjson/cJSON.h>

/* Order the keys of obj, and of every object inside it (NULL: nothing). */
void json_sort_keys(cJSON *obj);

/* key: s, or null when s is NULL. */
void json_add_string_or_null(cJSON *o, const char *key, const char *s);

#endif
