/*
 * Reading members of a parsed JSON document with messages a user can act
 * on: each getter checks the member's type and range and, when it is
 * wrong, names the file, the JSON path ("machines[2].port") and what was
 * found ("expected a number, found a string"). An absent or null member is
 * left to the caller's default. The rules of what a file means stay with
 * its reader (inventory.c for machines.json).
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "error.h"
#include "json_get.h"
#include "util.h"

/*
 * Its first lines are every variadic formatter's (transport_ssh_host_fail
 * has them too): the va_list must start in the function that takes the
 * "...", and str_vprintf() is the part they share.
 */
int
json_fail(struct json_doc *doc, const char *where, const char *fmt, ...)
{
	va_list ap;
	char *msg;

	va_start(ap, fmt);
	msg = str_vprintf(fmt, ap);
	va_end(ap);
	if (msg == NULL)
		return NP_ERR_NOMEM;
	if (doc->cause != NULL) {
		free(*doc->cause);
		if (where != NULL)
			*doc->cause = str_printf("%s: %s: %s", doc->path, where,
			    msg);
		else
			*doc->cause = str_printf("%s: %s", doc->path, msg);
	}
	free(msg);
	return doc->error;
}

const char *
json_type_name(const cJSON *v)
{
	if (cJSON_IsString(v))
		return "a string";
	if (cJSON_IsNumber(v))
		return "a number";
	if (cJSON_IsBool(v))
		return "a boolean";
	if (cJSON_IsNull(v))
		return "null";
	if (cJSON_IsArray(v))
		return "an array";
	if (cJSON_IsObject(v))
		return "an object";
	return "an invalid value";
}

const char *
json_show(const char *s, char *buf, size_t size)
{
	size_t o = 0, n;
	const unsigned char *c;

	buf[o++] = '"';
	for (c = (const unsigned char *)s, n = 0; *c != '\0'; c++, n++) {
		if (o + 8 >= size || n == 48) {
			memcpy(buf + o, "...", 3);
			o += 3;
			break;
		}
		if (*c == '"' || *c == '\\') {
			buf[o++] = '\\';
			buf[o++] = (char)*c;
		} else if (*c == '\n') {
			buf[o++] = '\\';
			buf[o++] = 'n';
		} else if (*c < 0x20 || *c == 0x7f)
			o += (size_t)snprintf(buf + o, size - o, "\\x%02x", *c);
		else
			buf[o++] = (char)*c;
	}
	buf[o++] = '"';
	buf[o] = '\0';
	return buf;
}

const char *
json_member_path(char *buf, size_t size, const char *prefix,
    const char *key)
{
	if (prefix == NULL || *prefix == '\0')
		snprintf(buf, size, "%s", key);
	else
		snprintf(buf, size, "%s.%s", prefix, key);
	return buf;
}

const cJSON *
json_member(const cJSON *obj, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);

	return cJSON_IsNull(v) ? NULL : v;
}

int
json_get_string(struct json_doc *doc, const cJSON *obj, const char *prefix,
    const char *key, char **out)
{
	const cJSON *v = json_member(obj, key);
	char where[96];

	if (v == NULL)
		return 0;
	if (!cJSON_IsString(v)) {
		json_member_path(where, sizeof where, prefix, key);
		return json_fail(doc, where, "expected a string, found %s",
		    json_type_name(v));
	}
	if ((*out = strdup(v->valuestring)) == NULL)
		return NP_ERR_NOMEM;
	return 0;
}

int
json_get_int(struct json_doc *doc, const cJSON *obj, const char *prefix,
    const char *key, int min, int max, int *out)
{
	const cJSON *v = json_member(obj, key);
	char where[96];
	double d;

	if (v == NULL)
		return 0;
	json_member_path(where, sizeof where, prefix, key);
	if (!cJSON_IsNumber(v))
		return json_fail(doc, where, "expected a number, found %s",
		    json_type_name(v));
	d = v->valuedouble;
	if (d == floor(d) && d >= min && d <= max) {
		*out = (int)d;
		return 0;
	}
	if (min == 1 && (max == 65535 || max == 65534))	/* bounds.h */
		return json_fail(doc, where,
		    "%.15g is not a port (1-%d)", d, max);
	if (d != floor(d))
		return json_fail(doc, where, "%.15g is not a whole number; "
		    "use one from %d to %d", d, min, max);
	return json_fail(doc, where, "%.15g is out of range; use %d to %d",
	    d, min, max);
}

int
json_get_seconds(struct json_doc *doc, const cJSON *obj, const char *key,
    double max, double *out)
{
	const cJSON *v = json_member(obj, key);

	if (v == NULL)
		return 0;
	if (!cJSON_IsNumber(v))
		return json_fail(doc, key, "expected a number, found %s",
		    json_type_name(v));
	if (!(v->valuedouble > 0 && v->valuedouble <= max))
		return json_fail(doc, key,
		    "%.15g is out of range; use a number of "
		    "seconds above 0 and at most %g", v->valuedouble, max);
	*out = v->valuedouble;
	return 0;
}

void
json_strings_free(char **v, size_t n)
{
	size_t i;

	if (v == NULL)
		return;
	for (i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

int
json_string_array(const cJSON *v, char ***out, size_t *n_out)
{
	const cJSON *item;
	char **vec;
	size_t n = 0;

	if (!cJSON_IsArray(v))
		return 1;
	if ((vec = calloc((size_t)cJSON_GetArraySize(v) + 1,
	    sizeof *vec)) == NULL)
		return NP_ERR_NOMEM;
	cJSON_ArrayForEach(item, v) {
		if (!cJSON_IsString(item)) {
			json_strings_free(vec, n);
			return 1;
		}
		if ((vec[n++] = strdup(item->valuestring)) == NULL) {
			json_strings_free(vec, n);
			return NP_ERR_NOMEM;
		}
	}
	*out = vec;
	*n_out = n;
	return 0;
}
