/*
 * Getters for the members of a parsed JSON document that word their errors
 * for the user: the file, the JSON path of the member and what is wrong,
 * "machines.json: machines[2].port: 70000 is not a port (1-65535)". An
 * absent member and a null one both read as absent, leaving the caller's
 * default. Each returns 0, NP_ERR_NOMEM, or the document's error code with
 * the cause set.
 */
#ifndef NETPROF_JSON_GET_H
#define NETPROF_JSON_GET_H

#include <stddef.h>

#include <cjson/cJSON.h>

/* The document being read, for messages. */
struct json_doc {
	const char *path;	/* the file, first in every message */
	char **cause;		/* where a message goes; may be NULL */
	int error;		/* what a failure returns (error.h) */
};

/*
 * Set *doc->cause to "path: where: message" ("path: message" when where is
 * NULL); returns doc->error (NP_ERR_NOMEM if the message cannot be made).
 */
int json_fail(struct json_doc *doc, const char *where, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* "a string", "a number", ... "an object": v's type, for messages. */
const char *json_type_name(const cJSON *v);

/*
 * s as it may appear in a message, written into buf: in double quotes,
 * with quotes, backslashes and control bytes escaped, cut after 48 bytes.
 * Returns buf.
 */
const char *json_show(const char *s, char *buf, size_t size);

/* "machines[2].address" from "machines[2]" and "address" (into buf). */
const char *json_member_path(char *buf, size_t size, const char *prefix,
    const char *key);

/* The member key of obj, or NULL when it is absent or null. */
const cJSON *json_member(const cJSON *obj, const char *key);

/* An optional string member prefix.key, copied to *out (NULL if absent). */
int json_get_string(struct json_doc *doc, const cJSON *obj,
    const char *prefix, const char *key, char **out);

/*
 * An optional whole number in [min, max], stored in *out when present.
 * Ports (1-65535) get the wording users know ("is not a port (1-65535)").
 */
int json_get_int(struct json_doc *doc, const cJSON *obj, const char *prefix,
    const char *key, int min, int max, int *out);

/* An optional top-level number of seconds: above 0, at most max. */
int json_get_seconds(struct json_doc *doc, const cJSON *obj, const char *key,
    double max, double *out);

/*
 * An array of strings as a new vector of n new strings (NULL-terminated
 * too; free with json_strings_free). Returns 1 if v is not an array of
 * strings (the caller words the error), else 0 or NP_ERR_NOMEM.
 */
int json_string_array(const cJSON *v, char ***out, size_t *n_out);
void json_strings_free(char **v, size_t n);

#endif
