/*
 * JSON read the way netprof documents it (include/json_strict.h): a NUL
 * escape is found by a small scan of the string tokens, and duplicate keys
 * are resolved after cJSON's parse by sorting each object's members by key
 * (O(n log n), so an object of many keys in a hostile file stays cheap) and
 * deleting all but the last of each run of equal keys; a small object
 * whose keys' hashes all differ has none and is left as it is.
 */
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "json_strict.h"
#include "util.h"

long
json_find_nul(const char *text, size_t len)
{
	size_t i;
	int in_string = 0;

	/* Most lines have no escape at all: one fast scan says so. */
	if (memchr(text, '\\', len) == NULL)
		return -1;
	for (i = 0; i < len; i++) {
		if (!in_string) {
			in_string = text[i] == '"';
			continue;
		}
		if (text[i] == '"') {
			in_string = 0;
		} else if (text[i] == '\\' && i + 1 < len) {
			if (text[i + 1] == 'u' && i + 5 < len &&
			    memcmp(text + i + 2, "0000", 4) == 0)
				return (long)i;
			i++;	/* the escaped character */
		}
	}
	return -1;
}

struct member {
	cJSON *item;
	size_t pos;
};

static int
cmp_member(const void *a, const void *b)
{
	const struct member *x = a, *y = b;
	int c = strcmp(x->item->string, y->item->string);

	if (c != 0)
		return c;
	return x->pos < y->pos ? -1 : x->pos > y->pos;
}

/*
 * A small object (a record's, its metrics') without a repeated key, told
 * by comparing hashes of its keys: no sort and no allocation for the
 * common case.
 */
#define SMALL_OBJECT 32

static int
small_object_unique(const cJSON *obj, size_t n)
{
	size_t h[SMALL_OBJECT], i, j;
	const cJSON *c;

	for (i = 0, c = obj->child; c != NULL; c = c->next, i++)
		h[i] = str_hash(c->string);
	for (i = 0; i < n; i++)
		for (j = i + 1; j < n; j++)
			if (h[i] == h[j])
				return 0;
	return 1;
}

static int
object_keep_last(cJSON *obj)
{
	struct member *m;
	cJSON *c;
	size_t n = 0, i;

	for (c = obj->child; c != NULL; c = c->next)
		n++;
	if (n < 2 || (n <= SMALL_OBJECT && small_object_unique(obj, n)))
		return 0;
	if ((m = malloc(n * sizeof *m)) == NULL)
		return NP_ERR_NOMEM;
	for (i = 0, c = obj->child; c != NULL; c = c->next, i++) {
		m[i].item = c;
		m[i].pos = i;
	}
	qsort(m, n, sizeof *m, cmp_member);
	for (i = 0; i + 1 < n; i++)
		if (strcmp(m[i].item->string, m[i + 1].item->string) == 0)
			cJSON_Delete(cJSON_DetachItemViaPointer(obj, m[i].item));
	free(m);
	return 0;
}

int
json_keep_last(cJSON *item)
{
	cJSON *c;
	int rc;

	if (item == NULL)
		return 0;
	if (cJSON_IsObject(item) && (rc = object_keep_last(item)) != 0)
		return rc;
	for (c = item->child; c != NULL; c = c->next)
		if ((rc = json_keep_last(c)) != 0)
			return rc;
	return 0;
}
