/*
 * JSON read the way netprof documents it (include/json_strict.h): a NUL
 * escape is found by a small scan of the string tokens, and duplicate keys
 * are resolved after cJSON's parse by sorting each object's members by key
 * (O(n log n), so an object of many keys in a hostile file stays cheap) and
 * deleting all but the last of each run of equal keys.
 */
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "json_strict.h"

long
json_find_nul(const char *text, size_t len)
{
	size_t i;
	int in_string = 0;

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

static int
object_keep_last(cJSON *obj)
{
	struct member *m;
	cJSON *c;
	size_t n = 0, i;

	for (c = obj->child; c != NULL; c = c->next)
		n++;
	if (n < 2)
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
