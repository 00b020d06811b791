/*
 * JSON objects in the key order of Python's json.dumps(sort_keys=True),
 * the order upstream's files have: every object's members by the byte
 * value of their names, recursively, so that files from either tool line
 * up field by field and a diff shows values, not order.
 */
#ifndef NETPROF_JSON_SORT_H
#define NETPROF_JSON_SORT_H

#include <cjson/cJSON.h>

/* Order the keys of obj, and of every object inside it (NULL: nothing). */
void json_sort_keys(cJSON *obj);

#endif
