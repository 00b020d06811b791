/*
 * --resume's set of what an earlier output recorded ok, read by the one
 * records reader (records_read.h) as a sink: a sorted array of
 * "source\ttarget\tkind" keys.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "records_read.h"
#include "util.h"

struct record_done_set {
	char **keys;
	size_t n, cap;
};

static char *
done_key(const char *source, const char *target, const char *kind)
{
	size_t len = strlen(source) + strlen(target) + strlen(kind) + 3;
	char *k = malloc(len);

	if (k != NULL)
		snprintf(k, len, "%s\t%s\t%s", source, target, kind);
	return k;
}

static int
cmp_key(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The reader's sink: an ok record's key kept. 0 or NP_ERR_NOMEM. */
static int
done_take(void *arg, struct record *r)
{
	struct record_done_set *set = arg;
	char **n, *key;

	if (!r->ok)
		return 0;
	if ((key = done_key(r->source, r->target, r->kind)) == NULL)
		return NP_ERR_NOMEM;
	if (set->n == set->cap) {
		set->cap = set->cap == 0 ? 64 : set->cap * 2;
		if ((n = realloc(set->keys, set->cap * sizeof *n)) == NULL) {
			free(key);
			return NP_ERR_NOMEM;
		}
		set->keys = n;
	}
	set->keys[set->n++] = key;
	return 0;
}

int
record_done_load(const char *path, struct record_done_set **out,
    char **cause)
{
	struct record_input in = { .sink = done_take, .resume = 1 };
	struct record_done_set *set;
	FILE *f;
	int r;

	*out = NULL;
	*cause = NULL;
	if ((set = calloc(1, sizeof *set)) == NULL)
		return NP_ERR_NOMEM;
	if ((f = fopen(path, "rb")) == NULL) {
		if (errno == ENOENT) {
			*out = set;
			return 0;
		}
		*cause = str_printf("%s: %s", path, strerror(errno));
		free(set);
		return NP_ERR_IO;
	}
	in.sink_arg = set;
	r = records_read_stream(&in, f, path, 1);
	fclose(f);
	if (r == NP_ERR_PARSE)
		*cause = str_printf("%s:%d is not a JSON record: --resume "
		    "continues a file collect wrote and appends to it; is this "
		    "the right file? (nothing was changed)", path, in.bad_line);
	else if (r == NP_ERR_IO)
		*cause = str_printf("%s: %s", path, strerror(in.bad_errno));
	if (r != 0) {
		record_done_free(set);
		return r;
	}
	if (set->n > 0)
		qsort(set->keys, set->n, sizeof *set->keys, cmp_key);
	*out = set;
	return 0;
}

int
record_done_has(const struct record_done_set *set, const char *source,
    const char *target, const char *kind)
{
	char *key;
	int found;

	if (set == NULL || set->n == 0)
		return 0;
	if ((key = done_key(source, target, kind)) == NULL)
		return 0;
	found = bsearch(&key, set->keys, set->n, sizeof *set->keys,
	    cmp_key) != NULL;
	free(key);
	return found;
}

size_t
record_done_count(const struct record_done_set *set)
{
	return set == NULL ? 0 : set->n;
}

void
record_done_free(struct record_done_set *set)
{
	size_t i;

	if (set == NULL)
		return;
	for (i = 0; i < set->n; i++)
		free(set->keys[i]);
	free(set->keys);
	free(set);
}
