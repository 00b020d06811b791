/*
 * What the writers of JSON files share (the records, run.json): objects
 * in the key order of Python's json.dumps(sort_keys=True), the order
 * upstream's files have (every object's members by the byte value of
 * their names, recursively, so that files from either tool line up field
 * by field and a diff shows values, not order), a string member that is
 * null when there is none, and the text itself as Python's json.dumps()
 * writes it: ", " and ": " between members (indent=2: a member a line,
 * "," at the end), every byte beyond ASCII and every control byte as a
 * \uXXXX escape (ensure_ascii), an integer as its digits and a float as
 * Python's repr() (the shortest text that reads back as the same double,
 * "2890006528.0", "1e-05"). So a user's `grep '"ok": false'` finds the
 * same lines in either tool's files.
 *
 * cJSON keeps one double per number: whether Python would hold a number
 * as a float even when it is whole (upstream's iperf3 "bytes", a ping's
 * 1.0 ms) is marked on the item with JSON_FLOAT, a bit of item->type
 * above cJSON's own (cJSON reads a type as type & 0xFF and copies the
 * rest in cJSON_Duplicate() and references). An unmarked whole number is
 * written as an integer, as Python writes what it read from a JSON
 * integer (the otela node's answers, written by Go, never add ".0").
 */
#ifndef NETPROF_JSON_WRITE_H
#define NETPROF_JSON_WRITE_H

#include <cjson/cJSON.h>

struct buf;

#define JSON_FLOAT (1 << 12)

/* Order the keys of obj, and of every object inside it (NULL: nothing). */
void json_sort_keys(cJSON *obj);

/* key: s, or null when s is NULL. */
void json_add_string_or_null(cJSON *o, const char *key, const char *s);

/* Mark a number item as a float; returns it (NULL stays NULL). */
cJSON *json_float(cJSON *number);
/* cJSON_AddNumberToObject() and cJSON_CreateNumber(), marked a float. */
cJSON *json_add_float(cJSON *o, const char *key, double v);
cJSON *json_create_float(double v);

/* Python's repr() of v into buf (at least JSON_FLOAT_SIZE bytes); a NaN
   or an infinity is "null" (Python's NaN and Infinity are not JSON). */
#define JSON_FLOAT_SIZE 32
void json_format_float(double v, char *buf);

/*
 * item as json.dumps(item) (indent 0) or json.dumps(item, indent=2)
 * writes it, appended to out, keys in the order the tree has them
 * (json_sort_keys() first for sort_keys=True). 0 or NP_ERR_NOMEM.
 */
int json_write(const cJSON *item, int indent, struct buf *out);

/* The same as a new string (no newline at the end); NULL: no memory. */
char *json_print(const cJSON *item, int indent);

#endif
