/*
 * The JSON writers' helpers (json_write.h). A cJSON tree's object keys are
 * sorted in place by an insertion into a sorted list per object, which
 * allocates nothing and so cannot fail half-way (records have a dozen
 * keys).
 */
#include <string.h>

#include "json_write.h"

/* Insert item into the sorted list at *head, after any equal name. */
static void
insert_sorted(cJSON **head, cJSON *item)
{
	cJSON **at = head;

	while (*at != NULL && strcmp((*at)->string, item->string) <= 0)
		at = &(*at)->next;
	item->next = *at;
	*at = item;
}

void
json_sort_keys(cJSON *obj)
{
	cJSON *item, *next, *sorted = NULL, *prev = NULL;

	if (obj == NULL)
		return;
	for (item = obj->child; item != NULL; item = item->next)
		json_sort_keys(item);
	if (!cJSON_IsObject(obj))
		return;
	for (item = obj->child; item != NULL; item = next) {
		next = item->next;
		insert_sorted(&sorted, item);
	}
	/* cJSON lists: prev links, and the head's prev is the tail */
	for (item = sorted; item != NULL; item = item->next) {
		item->prev = prev;
		prev = item;
	}
	if (sorted != NULL)
		sorted->prev = prev;
	obj->child = sorted;
}

void
json_add_string_or_null(cJSON *o, const char *key, const char *s)
{
	if (s != NULL)
		cJSON_AddStringToObject(o, key, s);
	else
		cJSON_AddNullToObject(o, key);
}
